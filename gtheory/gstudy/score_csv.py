"""Reading a per-topic score matrix from a CSV file (:func:`read_scores`): the wide layouts (one row per system or
per topic, ``MEASURE:topic`` columns) and the long one (``system, topic, score`` rows, an optional ``measure``
column), plain or compressed, with errors that name the file, the line and the problem.

Which axis holds the systems follows the one rule of every score-matrix input (:mod:`gtheory.gstudy.score_layout`). A
score matrix is always returned as systems × topics (rows = systems, columns = topics).
"""
from __future__ import annotations

import csv
import lzma
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..errors import ParameterError
from ..kit.checks import c_float
from ..kit.compressed import compression
from ..kit.output import csv_unsafe
from .score_layout import (_MEASURE_COLUMN, _SCORE_NAMES, _SYSTEM_NAMES, _TOPIC_NAMES, Orientation, _Ambiguous,
                           _axis_role, canonical_orientation, _first_column_doubt, _first_column_is_labels, _rows_are,
                           _summary_label, _summary_problem)

__all__ = ["read_scores"]

_MISSING = {"", "na", "nan", "null", "none", "n/a"}

def _opener(p: Path) -> tuple[Any, str]:
    """``open`` or the decompressing opener of a gzip/bzip2/xz file (recognised by its leading bytes,
    :mod:`gtheory.kit.compressed`), with the format's name for messages (``" (gzip)"``; ``""`` for plain text)."""
    with open(p, "rb") as fh:
        found = compression(fh.read(6))
    return (found[0], f" ({found[1]})") if found is not None else (open, "")


def _fail(path: str, line: int | None, problem: str, param: str | None = None) -> ValueError:
    """``"<path>, line <n>: <problem>"``; a :class:`ParameterError` when a parameter (``param``) would fix it."""
    where = f"{path}, line {line}" if line is not None else path
    return ParameterError(param, f"{where}: {problem}") if param else ValueError(f"{where}: {problem}")


def _number(token: str, path: str, line: int, column: str, allow_missing: bool = False) -> float:
    t = token.strip()
    if t.lower() in _MISSING and allow_missing:
        return math.nan
    if t.lower() in _MISSING:
        raise _fail(
            path, line,
            f"missing score in column {column!r}; gtheory needs a complete matrix (one score per "
            "system and topic). Fill or drop the system/topic first, or estimate from the scored cells: "
            "gstudy with `missing` reml or henderson.", "missing",
        )
    try:
        v = c_float(t)
    except ValueError:
        raise _fail(path, line, f"cannot read {token!r} in column {column!r} as a number (a score is written with "
                    "ASCII digits, a '.' decimal point and no thousands separator, e.g. 0.25 or 1e-3).") from None
    if not math.isfinite(v):
        raise _fail(path, line, f"non-finite score {token!r} in column {column!r}.")
    return v


def read_scores(
    path: str | os.PathLike[str], *, orientation: Orientation = "auto", measure: str | None = None,
    allow_missing: bool = False, same_measure: Callable[[str, str], bool] | None = None,
) -> pd.DataFrame:
    """Read a per-topic score matrix from a CSV file.

    Parameters
    ----------
    path : str or path-like
        A CSV file (plain, or compressed with gzip, bzip2 or xz: recognised by its first bytes) in
        one of two layouts:

        * **wide**: one row per system (``"systems-by-topics"``) or per topic
          (``"topics-by-systems"``), a header row of column labels, and optionally a first column
          of row labels. The first column is taken as row labels if its header is a known name
          (``topic``, ``query``, ``qid``, ``Topic ID``, ``system``, ``run``, ``sysid``, ``person``, …), is
          empty, or if its cells are not numbers; under an id-like header (``id``, ``docid``) when its
          cells are distinct whole numbers. Distinct whole numbers under a header that names nothing
          beside fractional scores (a column of topic ids that would become a system) are refused,
          naming the column. A wide file of several measures — ``gtheory evaluate --format
          wide`` with several ``--measure`` — labels its columns ``MEASURE:topic``
          (``nDCG@100:451``, ``AP:451``, …) and is read as one measure's columns (see ``measure``).
        * **long**: columns ``system``, ``topic``, ``score`` (any order, any extra columns
          ignored; ``run``/``query``/``qid``/``value`` are accepted as synonyms), one row per cell.
          A long file may hold several measures in a ``measure`` column — the
          ``system,topic,measure,score`` CSV of ``gtheory evaluate`` and :func:`metrics.evaluate`
          stacked — and is then filtered to one measure (see ``measure``). (A ``measure`` column
          is the score column only when there is no ``score``/``value`` column.)
    orientation : {"auto", "systems x topics", "topics x systems", "long"}, optional
        ``"auto"`` (default) recognises the long layout by its header, and a wide layout by the
        name of its label column (``topic``, ``query``, ``qid``, ``Topic ID`` → topics × systems;
        ``system``, ``run``, ``run_id``, ``sysid`` → systems × topics) or, failing that, by labels
        that all look like system names (``sys1``, ``run_a``, …) on one side — the rule of every
        score-matrix input (:func:`as_score_matrix`). If it cannot tell, it raises
        (:class:`gtheory.ParameterError`, ``param="orientation"``) and asks for ``orientation``.
        ``"systems-by-topics"`` and ``"topics-by-systems"`` are the older spellings.
        The TREC matrices of the SIGIR 2018 simulation study are topics × systems.
    measure : str, optional
        For a long file with a ``measure`` column, or a wide file whose column labels are all
        ``MEASURE:topic``: the measure whose rows (columns) are read (exact name,
        or else the one name that matches ignoring case, e.g. ``"ap"`` for ``AP``). Needed when
        the file holds several measures; when it holds one, that one is read. The matrix is
        built from that measure's rows only: ``X[s, t]`` = the score of the row
        ``(s, t, measure)``; rows of other measures are ignored.
    allow_missing : bool, optional
        If True, an empty/``NA``/``nan`` cell of a wide file and a system/topic pair absent from a
        long file become NaN (for ``gtheory.gstudy(..., missing="reml")`` etc.) instead of an error.
    same_measure : callable, optional
        ``same_measure(measure, name)``: whether the file's measure ``name`` is the ``measure`` asked for under
        another spelling, used when no name matches exactly or ignoring case (the command line passes the
        measure names' grammar of :mod:`metrics`, so ``MAP`` finds ``AP`` and ``ndcg_cut_10`` finds
        ``nDCG@10``; this package reads no measure names itself). The one name it accepts is read.

    Returns
    -------
    pandas.DataFrame
        Scores as float64, index = systems (name ``"system"``), columns = topics (name
        ``"topic"``), labels as strings. For a file with a ``measure`` column or ``MEASURE:topic``
        labels, ``df.attrs["measure"]`` holds the measure read (as :func:`metrics.evaluate` sets it).

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        For a malformed file; the message names the file, the line and the problem (ragged row,
        unreadable or missing score, duplicate or missing system/topic pair, ...). For a file
        with several measures and no ``measure``, or a ``measure`` the file does not hold, the
        message lists the measures in the file; ``measure`` given for a file without a
        ``measure`` column is an error too.
    TypeError
        If ``measure`` is neither a string nor None.

    Examples
    --------
    >>> from gtheory import read_scores                                        # doctest: +SKIP
    >>> X = read_scores("web2013_ap.csv", orientation="topics-by-systems")     # doctest: +SKIP
    >>> X.shape                                                                # doctest: +SKIP
    (34, 50)
    >>> AP = read_scores("scores.csv", measure="AP")  # gtheory evaluate --measure nDCG@10 --measure AP  # doctest: +SKIP
    >>> AP.attrs["measure"]                                                    # doctest: +SKIP
    'AP'
    """
    orientation = canonical_orientation(orientation)
    if measure is not None and not isinstance(measure, str):
        raise TypeError(f"`measure` must be a measure name (str) or None; got {type(measure).__name__}.")
    p = Path(path)
    name = str(path)
    if p.is_dir():
        raise ValueError(f"score file {name!r} is a directory; give a CSV file.")
    if not p.exists():
        raise FileNotFoundError(f"score file {name!r} does not exist.")
    if not p.is_file():  # /dev/null, a pipe, a socket: it exists, but holds no score file
        kind = "a character device" if p.is_char_device() else "a pipe" if p.is_fifo() else "not a regular file"
        raise ValueError(f"score file {name!r} is {kind}, not a score file; give a CSV file of per-topic scores "
                         "(e.g. the output of 'gtheory evaluate --out scores.csv').")
    opener, kind = _opener(p)
    try:
        with opener(p, "rb") as fh:
            head = fh.read(4096)
    except (OSError, EOFError, lzma.LZMAError) as exc:  # a truncated or corrupt compressed file
        raise _fail(name, None, f"cannot read the file{kind}: {exc}.") from None
    from ..kit.jsonio import looks_utf16

    if looks_utf16(head):
        raise _fail(name, None, f"UTF-16: convert to UTF-8{kind} (e.g. iconv -f UTF-16 -t UTF-8).")
    try:
        with opener(p, "rt", newline="", encoding="utf-8-sig") as fh:
            rows = [(i + 1, r) for i, r in enumerate(csv.reader(fh)) if any(c.strip() for c in r)]
    except UnicodeDecodeError as exc:
        raise _fail(name, None, f"not UTF-8 text{kind} ({exc.reason} at byte {exc.start}).") from None
    except (OSError, EOFError, lzma.LZMAError) as exc:  # a truncated or corrupt compressed file
        raise _fail(name, None, f"cannot read the file{kind}: {exc}.") from None
    if not rows:
        raise _fail(name, None, "the file is empty.")
    header_line, header = rows[0]
    header = [_label(h) for h in header]
    body = rows[1:]
    if not body:
        raise _fail(name, header_line, "a header but no data rows.")
    lower = [h.lower() for h in header]
    roles = [_axis_role(h) for h in header]
    is_long = "system" in roles and "topic" in roles and any(h in _SCORE_NAMES for h in lower)
    if orientation == "long" or (orientation == "auto" and is_long):
        return _read_long(name, header, lower, header_line, body, measure, allow_missing, same_measure)
    return _read_wide(name, header, lower, header_line, body, orientation, measure, allow_missing, same_measure)



def _label(cell: str) -> str:
    """A label cell (system, topic, measure, header) as read: stripped, and with the package writer's formula
    neutralisation undone (``'=run`` → ``=run``: :func:`gtheory.kit.output.csv_unsafe`)."""
    return csv_unsafe(cell.strip())

def _no_measure_column(name: str, measure: str) -> ValueError:
    return _fail(name, None, f"`measure` {measure!r} selects a measure of a long CSV "
                 f"with a {_MEASURE_COLUMN!r} column (system, topic, measure, score) or of a wide CSV with "
                 "MEASURE:topic column labels; the file has neither.", "measure")


def _measure_columns(name: str, columns: list[str], measure: str | None,
                     same_measure: Callable[[str, str], bool] | None = None) -> tuple[list[int], str | None]:
    """The columns of a wide file to read, and the measure they hold (None: no measure labels).

    ``gtheory evaluate --format wide`` with several measures labels its columns ``MEASURE:topic``
    (``nDCG@100:451``, ``AP:451``, ...). When every label has that form and there are several
    measures (or ``measure`` is given), the columns of one measure are read, relabelled by topic.
    """
    split = [c.rpartition(":") for c in columns]
    if not all(sep and m.strip() and t.strip() for m, sep, t in split):
        if measure is not None:
            raise _no_measure_column(name, measure)
        return list(range(len(columns))), None
    names = list(dict.fromkeys(m.strip() for m, _, _ in split))
    if len(names) == 1 and measure is None:
        return list(range(len(columns))), names[0]
    chosen = _choose_measure(name, "header", [(1, m) for m in names], measure, same_measure)
    return [j for j, (m, _, _) in enumerate(split) if m.strip() == chosen], chosen


def _read_long(
    name: str, header: list[str], lower: list[str], header_line: int,
    body: list[tuple[int, list[str]]], measure: str | None = None, allow_missing: bool = False,
    same_measure: Callable[[str, str], bool] | None = None,
) -> pd.DataFrame:
    def col(names: set[str], what: str) -> int:
        for j, h in enumerate(lower):
            if h in names or _axis_role(h) == what:
                return j
        raise _fail(name, header_line, f"long format needs a {what} column (one of "
                    f"{sorted(names)}); header is {header}.")

    js, jt = col(_SYSTEM_NAMES, "system"), col(_TOPIC_NAMES, "topic")
    # a "measure" column names the measure when a score/value column holds the numbers
    has_scores = any(h in _SCORE_NAMES - {_MEASURE_COLUMN} for h in lower)
    jv = col(_SCORE_NAMES - {_MEASURE_COLUMN} if has_scores else _SCORE_NAMES, "score")
    jm = lower.index(_MEASURE_COLUMN) if has_scores and _MEASURE_COLUMN in lower else None
    what = "score"
    if jm is not None:
        for line, r in body:  # the measure column of every row is read before filtering
            if len(r) != len(header):
                raise _fail(name, line, f"expected {len(header)} fields, got {len(r)}.")
        chosen = _choose_measure(name, header[jm], [(line, _label(r[jm])) for line, r in body], measure,
                                 same_measure)
        body = [(line, r) for line, r in body if _label(r[jm]) == chosen]
        what = f"{chosen} score"
    elif measure is not None:
        raise _no_measure_column(name, measure)
    seen: dict[tuple[str, str], int] = {}
    values: dict[tuple[str, str], float] = {}
    for line, r in body:
        if len(r) != len(header):
            raise _fail(name, line, f"expected {len(header)} fields, got {len(r)}.")
        key = (_label(r[js]), _label(r[jt]))
        if key in seen:
            raise _fail(name, line, f"duplicate {what} for system {key[0]!r}, topic {key[1]!r} "
                        f"(first given on line {seen[key]}).")
        seen[key] = line
        values[key] = _number(r[jv], name, line, header[jv], allow_missing)
    systems = list(dict.fromkeys(k[0] for k in values))
    topics = list(dict.fromkeys(k[1] for k in values))
    for role, labels, j in (("topic", topics, 1), ("system", systems, 0)):
        summary = _summary_label(labels)
        if summary is not None:
            first = min(line for key, line in seen.items() if key[j] == summary)
            raise _fail(name, first, _summary_problem(summary, role))
    missing = [(s, t) for s in systems for t in topics if (s, t) not in values]
    if missing and not allow_missing:
        s, t = missing[0]
        raise _fail(name, None, f"{len(missing)} system/topic pairs have no {what} (first: system "
                    f"{s!r}, topic {t!r}); gtheory needs a complete matrix.")
    data = np.array([[values.get((s, t), math.nan) for t in topics] for s in systems], dtype=np.float64)
    frame = _frame(data, systems, topics)
    if jm is not None:
        frame.attrs["measure"] = chosen
    return frame


def _choose_measure(name: str, column: str, cells: list[tuple[int, str]], measure: str | None,
                    same_measure: Callable[[str, str], bool] | None = None) -> str:
    """The measure of a long file to read: ``measure`` (exact, else the one case-insensitive match, else the one
    ``same_measure(measure, name)`` says is the same measure), or the file's only measure when ``measure`` is
    None."""
    for line, m in cells:
        if not m:
            raise _fail(name, line, f"empty measure name in column {column!r}.")
    names = list(dict.fromkeys(m for _, m in cells))
    listed = ", ".join(names)
    if measure is None:
        if len(names) > 1:
            raise _fail(name, None, f"the file holds {len(names)} measures ({listed}); choose one by name "
                        f"with `measure` (e.g. `measure` {names[0]!r}).", "measure")
        return names[0]
    wanted = measure.strip()
    if wanted in names:
        return wanted
    hits = [m for m in names if m.lower() == wanted.lower()]
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise _fail(name, None, f"`measure` {measure!r} matches {len(hits)} measures ignoring case "
                    f"({', '.join(hits)}); give the exact name.", "measure")
    if same_measure is not None:
        hits = [m for m in names if same_measure(wanted, m)]
        if len(hits) == 1:
            return hits[0]
        if hits:
            raise _fail(name, None, f"`measure` {measure!r} is {len(hits)} of the file's measures "
                        f"({', '.join(hits)}); give the exact name.", "measure")
    raise _fail(name, None, f"the file has no measure {measure!r}; it holds {listed}.", "measure")


def _read_wide(
    name: str, header: list[str], lower: list[str], header_line: int,
    body: list[tuple[int, list[str]]], orientation: str, measure: str | None = None,
    allow_missing: bool = False, same_measure: Callable[[str, str], bool] | None = None,
) -> pd.DataFrame:
    first_cells = [r[0].strip() if r else "" for _, r in body]
    values = None if not all(_is_number(c) for c in first_cells) else np.array(
        [c_float(c) if c.lower() not in _MISSING else math.nan for c in first_cells])

    def others_integer() -> bool:
        return all(_is_integer_token(c) for _, r in body for c in r[1:])

    doubt = _first_column_doubt(header[0], values, others_integer)
    if doubt is not None:
        raise _fail(name, header_line, f"column 1 ({header[0]!r}) {doubt}: is it a column of row labels (ids) or of "
                    f"scores? If it holds ids, name its header 'topic' (or 'system'); if it holds scores, add a "
                    "first column of row labels.")
    has_labels = _first_column_is_labels(header[0], values)
    start = 1 if has_labels else 0
    columns = header[start:]
    if not columns:
        raise _fail(name, header_line, "no score columns in the header.")
    keep, chosen = _measure_columns(name, columns, measure, same_measure)
    if chosen is not None:  # MEASURE:topic labels: one measure's columns, labelled by topic
        columns = [columns[j].rpartition(":")[2].strip() for j in keep]
    if len(set(columns)) != len(columns):
        dup = next(c for c in columns if columns.count(c) > 1)
        raise _fail(name, header_line, f"column label {dup!r} appears more than once.")
    labels: list[str] = []
    data = np.empty((len(body), len(columns)), dtype=np.float64)
    for k, (line, r) in enumerate(body):
        if len(r) != len(header):
            raise _fail(name, line, f"expected {len(header)} fields (as in the header), got {len(r)}.")
        labels.append(_label(r[0]) if has_labels else str(k + 1))
        for j, jj in enumerate(keep):
            data[k, j] = _number(r[start + jj], name, line, header[start + jj], allow_missing)
    if has_labels and len(set(labels)) != len(labels):
        dup = next(lab for lab in labels if labels.count(lab) > 1)
        first, again = [body[k][0] for k, lab in enumerate(labels) if lab == dup][:2]
        long_hint = ""
        if "system" in [_axis_role(h) for h in header] and "topic" in [_axis_role(h) for h in header]:
            long_hint = (" The header names a system and a topic column: if the file is long (one row per system "
                         "and topic), name its score column 'score'.")
        raise _fail(name, again, f"row label {dup!r} appears more than once (first on line {first}).{long_hint}")

    # the one rule of every score-matrix input (_rows_are): the label column's header names the rows' role
    # ("topic", "Topic ID", "run", ...); else labels that all look like system names (sys1, run_a) on one side
    frame = pd.DataFrame(data, index=pd.Index(labels, name=(header[0] or None) if has_labels else None),
                         columns=pd.Index(columns))
    try:
        rows = _rows_are(frame, orientation, name, rows_labelled=has_labels)
    except _Ambiguous:
        raise _fail(name, header_line, "cannot tell whether rows are systems or topics (the first column's "
                    f"header {header[0]!r} names neither, and neither the row nor the column labels all look like "
                    "system names such as sys1 or run_a); give `orientation` systems-by-topics or "
                    "topics-by-systems, or name the first column 'topic' or 'system'.", "orientation") from None
    except ValueError as exc:
        raise _fail(name, header_line, str(exc), "orientation") from None
    lines = [line for line, _ in body]
    row_what, column_what = ("topic", "system") if rows == "topic" else ("system", "topic")
    for what, found, at in ((column_what, _summary_label(columns), lambda _: header_line),
                            (row_what, _summary_label(labels) if has_labels else None,
                             lambda lab: lines[labels.index(lab)])):
        if found is not None:
            raise _fail(name, at(found), _summary_problem(found, what))
    if rows == "topic":
        frame = _frame(data.T.copy(), columns, labels)
    else:
        frame = _frame(data, labels, columns)
    if chosen is not None:
        frame.attrs["measure"] = chosen
    return frame


def _is_integer_token(token: str) -> bool:
    try:
        return c_float(token).is_integer()
    except ValueError:
        return False



def _is_number(token: str) -> bool:
    try:
        c_float(token)
    except ValueError:
        return token.strip().lower() in _MISSING
    return True


def _frame(data: NDArray[np.float64], systems: Sequence[str], topics: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame(
        data,
        index=pd.Index([str(s) for s in systems], name="system"),
        columns=pd.Index([str(t) for t in topics], name="topic"),
    )
