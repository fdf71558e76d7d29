"""Reading TREC run files (``qid Q0 docno rank score tag``: 6 columns; the 2nd column is ignored, so ``Q0``, ``q0``
and ``0`` are all accepted, as trec_eval does; the rank column is ignored unless ``ties="rank"``) into :class:`Run`
and :class:`RunSet`, the way trec_eval does, with errors that name file, line and problem (:mod:`metrics.io.trec_lines`).

Run files are parsed on their bytes with NumPy (:mod:`metrics.io._columns`: one tokenisation per file, no Python object
per line); files that reader cannot prove it handles exactly (control bytes, tokens over 64 bytes) are read by the
string reader. Both give the same rows, order and errors.

Ordering (trec_eval, ``form_res_rels.c``): documents are ranked by score descending, ties broken by docno
*descending* (``strcmp`` order); the rank column is ignored. trec_eval holds scores as single-precision C ``float``,
so two scores that differ only beyond float32 precision tie (and are ordered by docno); ``ties="trec_eval"``
reproduces that exactly. The stored ``score`` keeps full double precision. ``ties="input"`` keeps tied documents in file order;
``ties="rank"`` ranks by the rank column instead of the score (ties again in file order).
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable, Literal, Sequence

import numpy as np
import pandas as pd

from ._columns import Columns, hash_rows, split_columns
from gtheory.kit.errors import FixableError
from .inputs import is_in_memory, run_rows
from .trec_lines import (_COMPRESSED, DUP_EFFECT, DUP_FIX, PathLike, Ties, TrecFormatError, _as_str, _column_floats,
                         _floats, _read_bytes, _tokenise, _topic_codes, check_read_options, natural_topic_order)

__all__ = ["Run", "RunSet", "read_run", "read_runs", "run_from_memory", "runs_from_memory", "duplicate_error"]



@dataclass(frozen=True, eq=False)
class Run:
    """One system's ranked lists, rows grouped by topic and in rank order within a topic.

    ``topic``/``docno`` are object arrays of str, ``score`` float64, ``line`` the 1-based line in ``path``;
    ``rank`` is the 1-based rank after ordering (the file's rank column is ignored, as in trec_eval).
    """

    name: str
    topic: np.ndarray
    docno: np.ndarray
    score: np.ndarray
    line: np.ndarray
    rank: np.ndarray
    path: str = "<memory>"
    ties: str = "trec_eval"
    duplicates_dropped: int = 0

    def __len__(self) -> int:
        return int(self.score.size)

    @property
    def topics(self) -> list[str]:
        return natural_topic_order(self.topic)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            {"topic": self.topic, "docno": self.docno, "score": self.score, "rank": self.rank, "line": self.line}
        )

    @classmethod
    def from_frame(
        cls, df: pd.DataFrame, *, name: str | None = None, ties: Ties = "trec_eval",
        duplicates: Literal["error", "first"] = "error",
    ) -> "Run":
        """One system's run from a DataFrame with columns ``query_id, doc_id, score`` (ir_measures / ir_datasets
        naming) or ``topic, docno, score``, ranked as :func:`read_run` ranks a file (``ties``, ``duplicates``);
        ``name`` defaults to ``"run"``. Several systems (a ``run``/``system`` column): :func:`read_runs`. Errors name
        the row; see :mod:`metrics.io.inputs`."""
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"`df` must be a pandas DataFrame; got {type(df).__name__}")
        return run_from_memory(df, name=name, ties=ties, duplicates=duplicates)

    def __repr__(self) -> str:  # notebook display: concise, not the arrays
        return f"Run({self.name!r}: {len(self)} rows, {len(set(self.topic))} topics, from {self.path!r})"

    def _repr_html_(self) -> str:
        from gtheory.kit.display import kv_table

        return kv_table(f"Run {self.name}", {"rows": len(self), "topics": len(set(self.topic)), "from": self.path,
                                             "ties": self.ties, "duplicates dropped": self.duplicates_dropped})


@dataclass(frozen=True, eq=False)
class RunSet:
    """Several systems' runs, in a fixed order (``names``)."""

    runs: tuple[Run, ...]
    report: dict = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return [r.name for r in self.runs]

    def __len__(self) -> int:
        return len(self.runs)

    def __iter__(self):
        return iter(self.runs)

    def __getitem__(self, key: int | str) -> Run:
        if isinstance(key, str):
            for r in self.runs:
                if r.name == key:
                    return r
            raise KeyError(f"no run named {key!r}; runs are {self.names[:10]}{'...' if len(self) > 10 else ''}")
        return self.runs[key]

    def __repr__(self) -> str:  # notebook display: concise, not every run
        names = ", ".join(self.names[:5]) + (", …" if len(self) > 5 else "")
        return f"RunSet({len(self)} runs: {names})"

    def _repr_html_(self) -> str:
        from gtheory.kit.display import html_table

        return html_table(((r.name, len(r), len(set(r.topic)), r.path) for r in self.runs),
                          header=["run", "rows", "topics", "from"], caption=f"RunSet: {len(self)} runs")


def runs_from_memory(obj: object, *, ties: str = "trec_eval", duplicates: str = "error",
                     names: Sequence[str] | None = None, source: str | None = None) -> RunSet:
    """A :class:`RunSet` from any in-memory run form (:mod:`metrics.io.inputs`: one system, or several by a
    ``run``/``system`` column or a dict keyed by system, in order of first appearance); ``report`` counts the
    duplicate lines dropped per run. ``ties`` and ``duplicates`` as in :func:`read_run`.

    Raises
    ------
    InputFormatError
        A missing column, a bad id or score, a docno twice for a topic (unless ``duplicates="first"``); the message
        names the row.
    """
    runs = tuple(Run(*rows) for rows in run_rows(obj, ties=ties, duplicates=duplicates, names=names, source=source))
    return RunSet(runs, {"duplicates_dropped": {r.name: r.duplicates_dropped for r in runs if r.duplicates_dropped}})


def run_from_memory(obj: object, *, name: str | None = None, ties: str = "trec_eval",
                    duplicates: str = "error", source: str | None = None) -> Run:
    """One system's :class:`Run` from a DataFrame (``query_id, doc_id, score`` or ``topic, docno, score``), a dict
    ``{qid: {docid: score}}`` or an iterable of ``ScoredDoc`` named tuples (:mod:`metrics.io.inputs`).

    ``name`` defaults to ``"run"``. ``ties`` and ``duplicates`` as in :func:`read_run`.
    """
    check_read_options(ties, duplicates)
    runs = runs_from_memory(obj, ties=ties, duplicates=duplicates, source=source,
                            names=None if name is None else [name])
    if len(runs) != 1:
        raise ValueError(f"expected one run, got {len(runs)} systems ({runs.names[:5]}); use read_runs")
    return runs.runs[0]


def _run_name(path: Path) -> str:
    name = path.name
    for suf in _COMPRESSED:
        if name.lower().endswith(suf):
            name = name[: -len(suf)]
    for suf in (".txt", ".run", ".trec", ".res"):
        if name.lower().endswith(suf):
            name = name[: -len(suf)]
    if name.startswith("input.") and len(name) > 6:
        name = name[6:]
    return name


def _order(topic_codes: np.ndarray, score: np.ndarray, docno: np.ndarray, key: np.ndarray | None, ties: str) -> np.ndarray:
    """Row order: by topic, then score descending (or ``key`` ascending), ties per ``ties``; vectorised.

    ``docno`` is an object array of str or a zero-padded NumPy bytes array (``strcmp`` order; for UTF-8 text the same
    as the str order). Most run files are already in this order; that is checked first (no sort needed then), and
    when only tied documents are out of docno order, only those are reordered.
    """
    if key is not None:
        primary = key
    elif ties == "trec_eval":
        # trec_eval keeps scores as C floats: equal in float32 means tied (+0 turns -0.0 into 0.0, its equal); a score
        # beyond float32's range becomes ±inf, as in C's conversion (all such scores tie), without an overflow warning
        with np.errstate(over="ignore"):
            primary = -score.astype(np.float32) + np.float32(0)
    else:
        primary = -score
    n = primary.size
    same_t = topic_codes[1:] == topic_codes[:-1]
    sorted_already = bool((topic_codes[1:] >= topic_codes[:-1]).all()
                          and (~same_t | (primary[1:] >= primary[:-1])).all())
    if sorted_already:
        order = np.arange(n)
    elif ties == "trec_eval":  # one stable radix-free sort on (topic, float32 score bits in sortable form)
        bits = primary.view(np.uint32)
        sortable = np.where(bits >> np.uint32(31), ~bits, bits | np.uint32(0x80000000)).astype(np.uint64)
        order = np.argsort(sortable | (topic_codes.astype(np.uint64) << np.uint64(32)), kind="stable")
    else:
        order = np.lexsort((primary, topic_codes))  # stable: ties stay in file order
    if ties != "trec_eval":
        return order
    identity = sorted_already
    if identity:  # order is arange(n): no copies
        t_sorted, p_sorted, d_sorted = topic_codes, primary, docno
    else:
        t_sorted, p_sorted = topic_codes[order], primary[order]
    same = (t_sorted[1:] == t_sorted[:-1]) & (p_sorted[1:] == p_sorted[:-1])
    if not same.any():
        return order
    if not identity:
        d_sorted = docno[order]
    idx = np.flatnonzero(same)
    desc = d_sorted[idx] > d_sorted[idx + 1]
    if desc.all():
        return order
    # reorder the tied documents only: within each run of equal (topic, score), docno descending
    tied = np.zeros(n, dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    group = np.cumsum(np.r_[True, ~same])
    sub = np.flatnonzero(tied)
    g = group[sub]
    # groups already in ascending docno order (the common case) need no sort, only the mirroring below
    unsorted = np.zeros(int(group[-1]) + 1, dtype=bool)
    unsorted[group[idx[desc]]] = True
    perm = np.arange(sub.size)
    b = np.flatnonzero(unsorted[g])
    if b.size:
        d = d_sorted[sub[b]]
        if d.dtype == object:
            keys: tuple = (d.astype(str),)
        else:  # zero-padded bytes as big-endian words: integer order is strcmp order, and integers sort fast
            words = d.view(">u8").reshape(d.size, -1).astype(np.uint64)  # native order sorts much faster
            keys = tuple(np.ascontiguousarray(words[:, k]) for k in range(words.shape[1] - 1, -1, -1))
        perm[b] = b[np.lexsort((*keys, g[b]))]  # by group, then docno ascending
    # docno descending within each group: mirror the positions inside the group
    first = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    size = np.diff(np.r_[first, g.size])
    start = np.repeat(first, size)
    pos = np.arange(g.size)
    perm = perm[start + np.repeat(size, size) - 1 - (pos - start)]
    order = order.copy()
    order[sub] = order[sub[perm]]
    return order



@dataclass(frozen=True)
class _Duplicate:
    """The first repeated (topic, docno) of a run file, and how many lines repeat one."""

    path: str
    line: int
    first_line: int
    docno: str
    topic: str
    count: int


@dataclass(frozen=True)
class _Parsed:
    """A run file parsed but not reordered: rows in file order plus the rank order.

    Read by the byte-level reader (:mod:`metrics.io._columns`), ``docno`` is a zero-padded NumPy bytes array and
    ``doc_hash`` its hashes; read by the string reader, an object array of str. ``duplicate`` is set (and the rest
    not ordered) when ``duplicates="error"`` and a docno repeats.
    """

    topics: list[str]  # natural order; tcode indexes it
    tcode: np.ndarray
    docno: np.ndarray
    score: np.ndarray
    rows: np.ndarray  # record index of each row in the file (differs when duplicates were dropped)
    order: np.ndarray  # row indices in rank order (grouped by topic)
    rank: np.ndarray  # 1-based rank of order[i]
    dropped: int
    doc_hash: np.ndarray | None = None
    cols: Columns | None = None
    lines: np.ndarray | None = None  # string reader: line of each record
    duplicate: _Duplicate | None = None
    tags: tuple[str, ...] = ()  # the distinct run tags (6th column) when there are several, sorted; else ()

    @property
    def line(self) -> np.ndarray:
        """1-based line number of each row."""
        if self.lines is not None:
            return self.lines[self.rows]
        return self.cols.line_numbers(self.rows)

    def docno_str(self) -> np.ndarray:
        """The docnos as an object array of str."""
        return self.docno if self.docno.dtype == object else _as_str(self.docno)


_RUN_FORMAT = "run lines are 'qid Q0 docno rank score tag'"


def _parse_fields(raw: bytes, p: Path, ties: str, duplicates: str) -> _Parsed:
    """Parse a run file's bytes (from :func:`_read_bytes`): the byte-level reader when it applies, else the string
    reader; both give the same rows, order and errors."""
    cols = split_columns(raw, 6)
    if cols is None:
        return _parse_text(raw.decode("utf-8"), p, ties, duplicates)
    tags = _several_tags(_column_tags(cols))
    f = _parse_columns(cols, p, ties, duplicates)
    return replace(f, tags=tags) if tags else f


def _column_tags(cols: Columns) -> Sequence[str]:
    """The distinct run tags (6th column) of the byte reader's columns; none in the usual case of one tag (found by
    one comparison pass)."""
    tag_col = cols.fixed(5)
    if tag_col is None:  # a tag wider than the byte reader's window: the tokens themselves
        return {bytes(cols.buf[a:b]).decode("utf-8", "replace")
                for a, b in zip(cols.starts[:, 5].tolist(), cols.ends[:, 5].tolist())}
    if not (tag_col != tag_col[:1]).any():
        return ()
    return [u.rstrip(b"\0").decode("utf-8", "replace") for u in np.unique(tag_col)]


def _several_tags(tags: Iterable[str]) -> tuple[str, ...]:
    """The distinct run tags of one file when there are several (sorted), else ``()``: a file of two runs pasted
    together is read as one system (as trec_eval does), and the readers report it."""
    distinct = sorted(set(tags))
    return tuple(distinct) if len(distinct) > 1 else ()


def _parse_columns(cols: Columns, p: Path, ties: str, duplicates: str) -> _Parsed:
    """The byte-level reader of :func:`_parse_fields`."""
    n = cols.n
    topic_b, docno = cols.fixed(0), cols.fixed(2)
    score = _column_floats(cols, 4, p, "score")
    key = _column_floats(cols, 3, p, "rank") if ties == "rank" else None
    tcode, topics = _topic_codes(topic_b)
    doc_hash = hash_rows(docno)
    pair = doc_hash + tcode.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    rows = np.arange(n)
    dup = pd.Series(pair).duplicated().to_numpy()
    if dup.any():  # hashes can collide: decide on the bytes
        dup = pd.MultiIndex.from_arrays([tcode, docno]).duplicated()

    def describe(i: int, first: int, count: int) -> _Duplicate:
        ln = cols.line_numbers(np.array([first, i]))
        return _Duplicate(str(p), int(ln[1]), int(ln[0]), docno[i].decode("utf-8"), topics[tcode[i]], count)

    keep, dropped, found = _repeats(dup, tcode, docno, duplicates, describe)
    if found is not None:
        return _Parsed(topics, tcode, docno, score, rows, rows, rows, 0, doc_hash, cols, duplicate=found)
    if keep is not None:
        rows, docno, score, tcode, doc_hash = rows[keep], docno[keep], score[keep], tcode[keep], doc_hash[keep]
        key = None if key is None else key[keep]
    order = _order(tcode, score, docno, key, ties)
    return _Parsed(topics, tcode, docno, score, rows, order, _ranks(tcode[order]), dropped, doc_hash, cols)


def _repeats(dup: np.ndarray, tcode: np.ndarray, docno: np.ndarray, duplicates: str,
             describe: Callable[[int, int, int], _Duplicate]) -> tuple[np.ndarray | None, int, _Duplicate | None]:
    """The repeated (topic, docno) rows ``dup`` of one run file, by the ``duplicates`` policy (both readers):
    ``(keep, dropped, found)`` — with "error", ``found`` describes the first repeat (``describe(row, first row of
    that docno, count)``); with "first", ``keep`` masks the rows to keep and ``dropped`` counts the others; no
    repeat: ``(None, 0, None)``."""
    if not dup.any():
        return None, 0, None
    d = np.flatnonzero(dup)
    if duplicates == "error":
        i = int(d[0])
        first = int(np.flatnonzero((tcode == tcode[i]) & (docno == docno[i]))[0])
        return None, 0, describe(i, first, int(d.size))
    return ~dup, int(d.size), None


def _ranks(tc: np.ndarray) -> np.ndarray:
    """1-based rank of each row of topic-grouped codes ``tc``."""
    starts = np.flatnonzero(np.r_[True, tc[1:] != tc[:-1]])
    return np.arange(tc.size) - np.repeat(starts, np.diff(np.r_[starts, tc.size])) + 1



def _parse_text(text: str, p: Path, ties: str, duplicates: str) -> _Parsed:
    """The string reader: Python tokens (files with unusual control bytes or very long tokens; error lines)."""
    tokens, lines = _tokenise(text, 6, p, _RUN_FORMAT)
    if not lines.size:
        raise TrecFormatError(p, None, "the run file holds no results")
    tags = _several_tags(tokens[5::6])
    f = _parse_tokens(tokens, lines, p, ties, duplicates)
    return replace(f, tags=tags) if tags else f


def _parse_tokens(tokens: list[str], lines: np.ndarray, p: Path, ties: str, duplicates: str) -> _Parsed:
    """The rest of the string reader, from the tokens and their lines."""
    score = _floats(tokens[4::6], lines, p, "score")
    key = _floats(tokens[3::6], lines, p, "rank") if ties == "rank" else None
    topic = np.array(tokens[0::6], dtype=object)
    docno = np.array(tokens[2::6], dtype=object)
    del tokens
    tcode, topics = _topic_codes(topic)
    rows = np.arange(lines.size)
    dup = pd.MultiIndex.from_arrays([tcode, docno]).duplicated()

    def describe(i: int, first: int, count: int) -> _Duplicate:
        return _Duplicate(str(p), int(lines[i]), int(lines[first]), docno[i], topic[i], count)

    keep, dropped, found = _repeats(dup, tcode, docno, duplicates, describe)
    if found is not None:
        return _Parsed(topics, tcode, docno, score, rows, rows, rows, 0, lines=lines, duplicate=found)
    if keep is not None:
        rows, docno, score, tcode = rows[keep], docno[keep], score[keep], tcode[keep]
        key = None if key is None else key[keep]
    order = _order(tcode, score, docno, key, ties)
    return _Parsed(topics, tcode, docno, score, rows, order, _ranks(tcode[order]), dropped, lines=lines)


def duplicate_error(found: Sequence[_Duplicate]) -> TrecFormatError:
    """One error for every run file with a repeated docno: the first file's first repeat, then the other files
    with their counts (``err.counts`` maps each file to its number of repeated lines)."""
    f = found[0]
    problem = f"docno {f.docno!r} appears twice for topic {f.topic!r} (first at line {f.first_line})"
    if f.count > 1:
        problem += f"; {f.count} lines of this file repeat a docno of their topic"
    if len(found) > 1:
        others = ", ".join(f"{g.path} ({g.count} line{'s' * (g.count != 1)}, first at line {g.line})" for g in found[1:])
        k = len(found) - 1
        problem += f"; {k} other run file{'s' * (k > 1)} also repeat{'s' * (k == 1)} docnos: {others}"
    return TrecFormatError(f.path, f.line, problem, counts={g.path: g.count for g in found}, fix=DUP_FIX,
                           fix_effect=DUP_EFFECT)


def _parse_run(raw: bytes, p: Path, name: str, ties: str, duplicates: str) -> Run | _Duplicate:
    f = _parse_fields(raw, p, ties, duplicates)
    if f.duplicate is not None:
        return f.duplicate
    o = f.order
    topic = np.array(f.topics, dtype=object)[f.tcode[o]]
    return Run(name, topic, f.docno_str()[o], f.score[o], f.line[o], f.rank, str(p), ties, f.dropped)


def read_run(
    path: PathLike,
    *,
    name: str | None = None,
    ties: Ties = "trec_eval",
    duplicates: Literal["error", "first"] = "error",
) -> Run:
    """Read one TREC run file (``qid Q0 docno rank score tag``; plain, .gz, .bz2 or .xz).

    Parameters
    ----------
    path : the run file, or one run in memory (a DataFrame, a ``{qid: {docid: score}}`` dict or ``ScoredDoc``
        named tuples; :mod:`metrics.io.inputs`).
    name : system name; default the file name without compression suffix, ``.txt``/``.run`` extension and the
        ``input.`` prefix TREC gives submitted runs.
    ties : ``"trec_eval"`` (default) ranks by score descending, ties by docno descending, ignoring the rank column
        (trec_eval's order); ``"input"`` keeps tied documents in file order; ``"rank"`` orders by the rank column
        (ascending, ties in file order) and ignores scores for ordering.
    duplicates : a docno listed twice for one topic is an error (``"error"``, default, naming file, line and
        docno, and how many lines of the file repeat one) or only its first line is kept (``"first"``).

    Raises
    ------
    TrecFormatError
        Wrong column count, non-numeric or NaN/inf score (or rank with ``ties="rank"``), duplicate docno; the
        message names the file, line and problem.
    """
    check_read_options(ties, duplicates)
    if is_in_memory(path, (Run, RunSet), (Run,)):  # a DataFrame, a {qid: {docid: score}} dict or ScoredDoc named tuples
        return run_from_memory(path, name=name, ties=ties, duplicates=duplicates)
    p = Path(path)
    run = _parse_run(_read_bytes(p), p, name or _run_name(p), ties, duplicates)
    if isinstance(run, _Duplicate):
        raise duplicate_error([run])
    return run


def _expand(paths_or_directory: PathLike | Sequence[PathLike]) -> list[Path]:
    if isinstance(paths_or_directory, (str, os.PathLike)):
        p = Path(paths_or_directory)
        if p.is_dir():
            entries = [q for q in p.iterdir() if not q.name.startswith(".")]
            dangling = sorted(q for q in entries if q.is_symlink() and not q.exists())
            if dangling:  # as the same file named explicitly: an error, never silently one run fewer
                raise FileNotFoundError(f"the run directory {p} holds a dangling symbolic link: {dangling[0]} -> "
                                        f"{os.readlink(dangling[0])} (no such file"
                                        f"{f'; {len(dangling) - 1} more such link(s)' if len(dangling) > 1 else ''}); "
                                        "remove the link or restore its target")
            files = sorted(q for q in entries if q.is_file())
            if not files:
                raise FileNotFoundError(f"the run directory {p} holds no files")
            return files
        return [p]
    files: list[Path] = []
    seen: dict[Path, Path] = {}
    for q in paths_or_directory:  # a directory among the paths is its files (the runs of several directories)
        for f in (_expand(q) if Path(q).is_dir() else [Path(q)]):
            key = f.resolve() if f.exists() else f
            if key in seen:  # one file twice (--runs d d, or d and d/run): not two systems of the same name
                raise ValueError(f"the run file {f} is given twice (directly or through its directory"
                                 f"{'' if seen[key] == f else f'; also as {seen[key]}'}); give each run once")
            seen[key] = f
            files.append(f)
    if not files:
        raise ValueError("`paths_or_directory` is an empty list; give run files or a directory of runs")
    return files


def read_runs(
    paths_or_directory: PathLike | Sequence[PathLike],
    *,
    ties: Ties = "trec_eval",
    duplicates: Literal["error", "first"] = "error",
    names: Sequence[str] | None = None,
    workers: int | None = None,
) -> RunSet:
    """Read several TREC run files (a directory — every non-hidden file in it, sorted by name — or a list).

    Runs in memory are accepted too (:mod:`metrics.io.inputs`): a DataFrame with a ``run``/``system`` column, a dict
    ``{system: {qid: {docid: score}}}`` or ``{system: <DataFrame or ScoredDoc named tuples>}``.

    Files are decompressed and parsed on ``workers`` threads (default: the number of CPUs; decompression releases
    the GIL). See :func:`read_run` for ``ties`` and ``duplicates``; with ``duplicates="error"`` every file is read
    first and one :class:`TrecFormatError` lists each file that repeats a docno (``err.counts``: file -> repeated
    lines). System names must be unique.

    Returns
    -------
    RunSet
        Runs in the order of the files; ``report`` counts duplicate lines dropped per run.
    """
    if is_in_memory(paths_or_directory, (Run, RunSet), (Run,)):  # DataFrame (with a run/system column), dicts, named tuples
        return runs_from_memory(paths_or_directory, ties=ties, duplicates=duplicates, names=names)
    files = _expand(paths_or_directory)
    if names is not None and len(names) != len(files):
        raise ValueError(f"`names` has {len(names)} entries for {len(files)} run files")
    labels = list(names) if names is not None else [_run_name(f) for f in files]
    seen: dict[str, Path] = {}
    for lab, f in zip(labels, files):
        if lab in seen:
            raise FixableError(f"two run files give the system name {lab!r}: {seen[lab]} and {f}", fix={"names": ...},
                               advice="pass `names=`")
        seen[lab] = f
    check_read_options(ties, duplicates)

    def one(item: tuple[Path, str]) -> Run:
        return _parse_run(_read_bytes(item[0]), item[0], item[1], ties, duplicates)

    n = workers or min(len(files), os.cpu_count() or 1)
    if n > 1 and len(files) > 1:
        with ThreadPoolExecutor(n) as ex:
            runs = tuple(ex.map(one, zip(files, labels)))
    else:
        runs = tuple(one(item) for item in zip(files, labels))
    found = [r for r in runs if isinstance(r, _Duplicate)]
    if found:
        raise duplicate_error(found)
    report = {"duplicates_dropped": {r.name: r.duplicates_dropped for r in runs if r.duplicates_dropped}}
    return RunSet(runs, report)
