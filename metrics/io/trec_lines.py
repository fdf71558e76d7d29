"""The lines of TREC files, shared by the run and qrels readers: reading a file's bytes (decompressed, checked to be
UTF-8 text), splitting lines into columns, reading number columns, topic ids in natural order, and
:class:`TrecFormatError`, the error that names file, line and problem.

Files may be plain text, gzip, bzip2 or xz (told by their first bytes, whatever their name), UTF-8 encoded; a leading UTF-8 byte-order mark is ignored.
Blank lines are skipped (line numbers in messages still count them). Columns are separated by ASCII whitespace only.

Refused as corruption, naming the file: UTF-16 text ("UTF-16: convert to UTF-8"), and a NUL byte anywhere (with
its line and byte offset; trec_eval's C strings would silently end the token there).

The readers: :mod:`metrics.io.trec_runs` (runs) and :mod:`metrics.io.trec_qrels` (qrels); :mod:`metrics` exports
the public names of all three.
"""
from __future__ import annotations

import re
import lzma
import os
from pathlib import Path
from typing import Any, Iterable, Literal, Sequence, Union

import numpy as np

from ._columns import Columns, parse_decimals
from gtheory.kit.errors import FixableError

__all__ = ["TrecFormatError", "PathLike", "utf16_kind", "natural_topic_order", "Ties", "check_read_options", "DUP_FIX",
           "DUP_EFFECT"]

PathLike = Union[str, "os.PathLike[str]"]
_COMPRESSED = (".gz", ".xz", ".bz2")

#: how tied documents of a run are ordered (``ties`` of :func:`metrics.read_run`, files and memory alike)
Ties = Literal["trec_eval", "input", "rank"]
_TIES = ("trec_eval", "input", "rank")
#: the fix of a repeated docno (``TrecFormatError.fix`` / ``fix_effect``)
DUP_FIX, DUP_EFFECT = {"duplicates": "first"}, "keep only the first occurrence (or remove the repeated lines)"


def check_read_options(ties: str, duplicates: str) -> None:
    """Validate the ``ties`` and ``duplicates`` options shared by :func:`metrics.read_run`, :func:`metrics.read_runs`,
    :func:`metrics.judge` and the in-memory forms (:mod:`metrics.io.inputs`)."""
    if ties not in _TIES:
        raise ValueError(f"`ties` must be one of {_TIES}; got {ties!r}")
    if duplicates not in ("error", "first"):
        raise ValueError(f"`duplicates` must be 'error' or 'first'; got {duplicates!r}")


class TrecFormatError(FixableError):
    """A malformed qrels or run file. ``str(err)`` reads ``"<path>, line <n>: <problem>"``.

    When a parameter value would accept the file, ``err.fix`` maps the parameter to that value (e.g.
    ``{"duplicates": "first"}``) and ``err.fix_effect`` says what it does; the message ends with the fix in Python
    terms (:func:`gtheory.kit.errors.python_fix`), and a front end can word it in its own (the ``gtheory`` CLI:
    ``--duplicates first``) from these attributes (:mod:`gtheory.kit.errors`). ``err.problem`` is the problem without the
    place and the fix, ``err.statement`` the message without the fix.
    """

    def __init__(self, path: PathLike, line: int | None, problem: str, counts: dict[str, int] | None = None,
                 fix: dict[str, Any] | None = None, fix_effect: str = "") -> None:
        self.path = str(path)
        self.line = line
        self.problem = problem
        #: for repeated docnos: every offending file and its number of repeated lines (else empty)
        self.counts = dict(counts or {})
        where = f"{self.path}, line {line}" if line is not None else self.path
        super().__init__(f"{where}: {problem}", fix=fix, fix_effect=fix_effect)

    def __reduce__(self):  # picklable, so errors cross process boundaries (judge's worker processes) intact
        return (type(self), (self.path, self.line, self.problem, self.counts, self.fix, self.fix_effect))


_BOM = b"\xef\xbb\xbf"


def _read_text(path: PathLike) -> str:
    """The file's text (decompressed, UTF-8 checked, a leading byte-order mark removed)."""
    return _read_bytes(path).decode("utf-8")


def _read_bytes(path: PathLike) -> bytes:
    """The file's bytes, decompressed, checked to be UTF-8, without a leading UTF-8 byte-order mark.

    A BOM (which some Windows editors write) is not part of the first line's first token: kept, it would make
    topic ``"\ufeff451"`` of the first line a topic of its own.
    """
    from gtheory.kit.compressed import existing_file

    p = existing_file(path, if_directory="expected a file, got a directory: {path}")
    try:
        with open(p, "rb") as fh:
            head = fh.read(6)
        opener = _opener(p, head)
        if opener is None:
            with open(p, "rb") as fh:
                raw = fh.read()
        else:
            with opener(p, "rb") as fh:
                raw = fh.read()
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise TrecFormatError(p, None, f"cannot read or decompress the file ({exc})") from None
    utf16 = utf16_kind(raw)
    if utf16:
        raise TrecFormatError(p, None, f"UTF-16: convert to UTF-8 (the file is UTF-16 text, {utf16}; e.g. "
                                       "iconv -f UTF-16 -t UTF-8)")
    skip = len(_BOM) if raw.startswith(_BOM) else 0
    if skip:
        raw = raw[skip:]
    nul = raw.find(b"\0")
    if nul >= 0:  # trec_eval's C strings would end the token there: a corrupt file, never a different docno
        line = raw.count(b"\n", 0, nul) + 1
        start = raw.rfind(b"\n", 0, nul) + 1
        raise TrecFormatError(p, line, f"a NUL byte (\\0) at byte offset {nul + skip} (column {nul - start + 1} of "
                                       "the line): the file is corrupt; remove it or restore the file")
    if not raw.isascii():
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw.count(b"\n", 0, exc.start) + 1
            raise TrecFormatError(p, line, f"not valid UTF-8 text (byte {exc.start + skip})") from None
    return raw


#: leading bytes of archives that are refused, naming their format (compressed files: gtheory.kit.compressed)
_ARCHIVES = ((b"PK\x03\x04", "a zip archive: extract its files (unzip) and give those"),
             (b"\x28\xb5\x2f\xfd", "zstd-compressed: decompress it (zstd -d) or recompress it with gzip or xz"))


def _opener(p: Path, head: bytes) -> Any:
    """The decompressing opener of a gzip/bzip2/xz file, told by its leading bytes as :func:`gtheory.read_scores`
    does (a run saved compressed without its suffix was reported as a corrupt file with a NUL byte; a plain file
    named ``.gz`` could not be read); ``None`` for plain text. A zip or zstd file is refused naming its format."""
    from gtheory.kit.compressed import compression

    found = compression(head)
    if found is not None:
        return found[0]
    for magic, what in _ARCHIVES:
        if head.startswith(magic):
            raise TrecFormatError(p, None, f"the file is {what}")
    return None


def utf16_kind(raw: bytes) -> str:
    """How ``raw`` shows it is UTF-16 text (``"a UTF-16 byte-order mark"`` or ``"NUL bytes between the
    characters"``), or ``""``: a byte-order mark ``FF FE`` / ``FE FF`` at the start, or, in the first 4 KiB, a NUL
    in at least 40 % of the even or of the odd positions (ASCII text saved as UTF-16LE/BE)."""
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "a UTF-16 byte-order mark"
    head = raw[:4096]
    if len(head) >= 4 and b"\0" in head:
        half = len(head) // 2
        if max(head[0::2].count(0), head[1::2].count(0)) >= 0.4 * half:
            return "NUL bytes between the characters"
    return ""


def _tokenise(text: str, ncols: int, path: PathLike, what: str) -> tuple[list[str], np.ndarray]:
    """Split ``text`` into tokens, checking every non-blank line has ``ncols`` columns.

    Returns the flat token list and the 1-based line number of each record. Vectorised: the column count of every
    line is found with NumPy on the bytes, not with a Python loop over lines.
    """
    # trec_eval splits on ASCII whitespace only: a non-ASCII space (e.g. U+00A0) stays inside its token
    # (str.split would also split on \x1c-\x1f, which trec_eval keeps inside tokens)
    plain = text.isascii() and not _INFO_SEPARATORS.search(text)
    tokens = text.split() if plain else _ASCII_WS.split(text.strip(" \t\n\r\f\v"))
    if tokens == [""]:
        tokens = []
    b = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    if b.size == 0:
        return tokens, np.zeros(0, dtype=np.int64)
    nl = b == 10
    tab_cr = (b == 9) | (b == 13)
    space = (b == 32) | nl | tab_cr  # ASCII whitespace separates tokens, as in trec_eval
    if np.count_nonzero(b < 32) != np.count_nonzero(nl) + np.count_nonzero(tab_cr):
        space = _IS_SPACE[b]  # vertical tab / form feed (or other control bytes) present: the exact table
    starts = np.flatnonzero(space[:-1] > space[1:]) + 1  # whitespace followed by a token byte
    if not space[0]:
        starts = np.r_[0, starts]
    newlines = np.flatnonzero(nl)
    per_line = np.diff(np.r_[0, np.searchsorted(starts, np.r_[newlines, b.size])])  # tokens starting on each line
    bad = np.flatnonzero((per_line != 0) & (per_line != ncols))
    if bad.size:
        ln = int(bad[0])
        raise TrecFormatError(
            path, ln + 1, f"{per_line[ln]} columns, expected {ncols} ({what}); the line reads {_line(text, ln)!r}"
        )
    lines = np.flatnonzero(per_line) + 1
    if len(tokens) != ncols * lines.size:  # str.split also splits on \x1c-\x1f: split exactly as the byte scan
        tokens = _ASCII_WS.split(text.strip(" \t\n\r\f\v"))
        if tokens == [""]:
            tokens = []
    return tokens, lines


_ASCII_WS = re.compile(r"[ \t\n\r\f\v]+")
_INFO_SEPARATORS = re.compile("[\x1c-\x1f]")
_IS_SPACE = np.zeros(256, dtype=bool)
_IS_SPACE[[9, 10, 11, 12, 13, 32]] = True


def _line(text: str, index: int) -> str:
    return text.split("\n", index + 1)[index][:200]


def _floats(values: Sequence[str], lines: np.ndarray, path: PathLike, column: str) -> np.ndarray:
    """Convert a column to float64, naming the first line with a non-numeric or non-finite value.

    Only C ``strtod`` syntax is accepted: Python's ``float`` also takes ``1_000`` and non-ASCII digits, which trec_eval
    (``atof``) does not; those are errors here.
    """
    joined = "".join(values)
    if not joined.isascii() or "_" in joined:
        for i, v in enumerate(values):
            if not v.isascii() or "_" in v:
                raise TrecFormatError(path, int(lines[i]), f"{column} {v!r} is not a number")
    try:
        x = np.fromiter(map(float, values), dtype=np.float64, count=len(values))
    except ValueError:
        for i, v in enumerate(values):
            try:
                float(v)
            except ValueError:
                raise TrecFormatError(path, int(lines[i]), f"{column} {v!r} is not a number") from None
        raise  # pragma: no cover
    bad = np.flatnonzero(~np.isfinite(x))
    if bad.size:
        i = int(bad[0])
        raise TrecFormatError(path, int(lines[i]), f"{column} {values[i]!r} is not finite ({column} must be a real number)")
    return x


_INTEGER_ID = re.compile(r"-?[0-9]+")


def natural_topic_order(topics: Iterable[str]) -> list[str]:
    """Sort topic ids numerically when they are all integers written in ASCII digits (an optional ``-`` and the
    digits 0-9: ``"451"``, ``"-3"``, ``"007"``; equal values by their text), else as strings (code-point order).

    Never raises: an id that only looks like a number to :meth:`str.isdigit` (``"²"``, other scripts' digits) or
    a token such as ``"--5"`` (a valid topic id for trec_eval) makes the order the string order.
    """
    ts = list(dict.fromkeys(topics))
    if all(isinstance(t, str) and _INTEGER_ID.fullmatch(t) for t in ts):
        return sorted(ts, key=lambda t: (int(t), t))
    return sorted(ts, key=str)



def _as_str(b: np.ndarray) -> np.ndarray:
    """A zero-padded NumPy bytes array as an object array of str (UTF-8)."""
    if b.tobytes().isascii():
        return b.astype(f"U{b.dtype.itemsize}").astype(object)
    return np.array([d.decode("utf-8") for d in b.tolist()], dtype=object)


def _topic_codes(topic: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Integer codes of the topic of each row, numbered in natural topic order (rows come in topic blocks)."""
    starts = np.flatnonzero(np.r_[True, topic[1:] != topic[:-1]])
    block = topic[starts]
    labels = block.tolist()
    if block.dtype != object:  # NumPy bytes
        labels = [t.decode("utf-8") for t in labels]
    nat = natural_topic_order(labels)
    pos = {t: i for i, t in enumerate(nat)}
    codes = np.fromiter((pos[t] for t in labels), dtype=np.int64, count=len(labels))
    return np.repeat(codes, np.diff(np.r_[starts, topic.size])), nat



def _column_floats(cols: Columns, j: int, p: Path, column: str) -> np.ndarray:
    """Column ``j`` as float64: vectorised for plain decimals, by :func:`_floats` (same rules, same errors) for the
    rest; the first bad value in file order is reported."""
    x, done = parse_decimals(cols, j)
    if not done.all():
        rest = np.flatnonzero(~done)
        values = [cols.token(int(i), j) for i in rest]
        x[rest] = _floats(values, cols.line_numbers(rest), p, column)
    return x

