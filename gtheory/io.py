"""Reading per-topic score matrices from CSV files and turning user input into a checked matrix.

A score matrix is always returned as systems × topics (rows = systems, columns = topics).
"""
from __future__ import annotations

import bz2
import csv
import functools
import gzip
import lzma
import math
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, Union

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .errors import ParameterError
from .kit.output import csv_unsafe

__all__ = ["read_scores", "as_score_matrix", "ScoreInput", "Orientation"]

Orientation = Literal["auto", "systems x topics", "topics x systems", "systems-by-topics", "topics-by-systems", "long"]
ScoreInput = Union[np.ndarray, pd.DataFrame, str, "os.PathLike[str]", Sequence[Sequence[float]]]

_ORIENTATIONS = ("auto", "systems-by-topics", "topics-by-systems", "long")
_TOPIC_NAMES = {"topic", "topics", "query", "queries", "qid", "query_id", "topic_id", "item"}
_SYSTEM_NAMES = {"system", "systems", "run", "runs", "runid", "run_id", "sys", "person", "p"}
_MEASURE_COLUMN = "measure"
_SCORE_NAMES = {"score", "value", _MEASURE_COLUMN}
_MISSING = {"", "na", "nan", "null", "none", "n/a"}
_SYSTEM_LIKE = re.compile(r"^(sys|system|run)[\s_\-.]?\w*$", re.IGNORECASE)
#: an axis or column name of a role once lower-cased and stripped of everything but letters and digits
#: ("Topic ID" → topicid, "run_id" → runid, "sysid"): the names of :data:`_TOPIC_NAMES` / :data:`_SYSTEM_NAMES`
#: and these words with an id suffix
_ROLE_SUFFIX = r"(id|ids|no|nr|num|number|name|names|label|tag)?"
_TOPIC_ROLE = re.compile(rf"^(topics?|query|queries|qid|qids|items?){_ROLE_SUFFIX}$")
_SYSTEM_ROLE = re.compile(rf"^(systems?|sys|runs?|persons?|p){_ROLE_SUFFIX}$")
#: a first-column header that names an identifier (not a system): "id", "no.", "#", "docid", "sysid", ...
_ID_HEADER = re.compile(r"^(ids?|no|nr|num|number|index|idx|key|labels?|names?|#)$|ids?$")
#: the canonical layouts and their accepted spellings (case, spaces, "-by-" / " x " / "×" do not matter)
_LAYOUT_WORDS = {"auto": "auto", "long": "long", "systemsxtopics": "systems-by-topics",
                 "topicsxsystems": "topics-by-systems", "systemxtopic": "systems-by-topics",
                 "topicxsystem": "topics-by-systems"}


def _canonical_orientation(orientation: Any) -> str:
    """``orientation`` as one of :data:`_ORIENTATIONS` (``"systems x topics"`` and ``"systems-by-topics"`` are one
    layout), or a :class:`ParameterError` listing the spellings."""
    if isinstance(orientation, str):
        words = re.sub(r"\bby\b", " x ", orientation.lower().replace("×", " x "))
        key = re.sub(r"[\s_\-]", "", words)
        if key in _LAYOUT_WORDS:
            return _LAYOUT_WORDS[key]
    raise ParameterError("orientation", "`orientation` must be one of 'auto', 'systems x topics' (or "
                         "'systems-by-topics'), 'topics x systems' (or 'topics-by-systems'), 'long'; "
                         f"got {orientation!r}.")


#: leading bytes of the compressed formats read_scores opens
_MAGIC = ((b"\x1f\x8b", gzip.open, " (gzip)"), (b"BZh", bz2.open, " (bzip2)"),
          (b"\xfd7zXZ\x00", lzma.open, " (xz)"))


def _opener(p: Path) -> tuple[Any, str]:
    """``open`` or the decompressing opener of a gzip/bzip2/xz file (recognised by its leading bytes)."""
    with open(p, "rb") as fh:
        head = fh.read(6)
    for magic, opener, kind in _MAGIC:
        if head.startswith(magic):
            return opener, kind
    return open, ""


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
        v = float(t)
    except ValueError:
        raise _fail(path, line, f"cannot read {token!r} in column {column!r} as a number.") from None
    if not math.isfinite(v):
        raise _fail(path, line, f"non-finite score {token!r} in column {column!r}.")
    return v


def read_scores(
    path: str | os.PathLike[str], *, orientation: Orientation = "auto", measure: str | None = None,
    allow_missing: bool = False,
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

        Labels (systems, topics, measures, headers) are stripped of surrounding white space, and a leading
        ``'`` that the package's CSV writer put before ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
        (formula neutralisation, :func:`gtheory.kit.csv_safe`) is removed, so a file ``gtheory evaluate`` wrote
        reads back with the names it was written with (:func:`gtheory.kit.output.csv_unsafe`).
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
    orientation = _canonical_orientation(orientation)
    if measure is not None and not isinstance(measure, str):
        raise TypeError(f"`measure` must be a measure name (str) or None; got {type(measure).__name__}.")
    p = Path(path)
    name = str(path)
    if p.is_dir():
        raise ValueError(f"score file {name!r} is a directory; give a CSV file.")
    if not p.is_file():
        raise FileNotFoundError(f"score file {name!r} does not exist.")
    opener, kind = _opener(p)
    try:
        with opener(p, "rb") as fh:
            head = fh.read(4096)
    except (OSError, EOFError, lzma.LZMAError) as exc:  # a truncated or corrupt compressed file
        raise _fail(name, None, f"cannot read the file{kind}: {exc}.") from None
    from .kit.jsonio import looks_utf16

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
        return _read_long(name, header, lower, header_line, body, measure, allow_missing)
    return _read_wide(name, header, lower, header_line, body, orientation, measure, allow_missing)


def _label(cell: str) -> str:
    """A label cell (system, topic, measure, header) as read: stripped, and with the package writer's formula
    neutralisation undone (``'=run`` → ``=run``: :func:`gtheory.kit.output.csv_unsafe`)."""
    return csv_unsafe(cell.strip())


def _no_measure_column(name: str, measure: str) -> ValueError:
    return _fail(name, None, f"`measure` {measure!r} selects a measure of a long CSV "
                 f"with a {_MEASURE_COLUMN!r} column (system, topic, measure, score) or of a wide CSV with "
                 "MEASURE:topic column labels; the file has neither.", "measure")


def _measure_columns(name: str, columns: list[str], measure: str | None) -> tuple[list[int], str | None]:
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
    chosen = _choose_measure(name, "header", [(1, m) for m in names], measure)
    return [j for j, (m, _, _) in enumerate(split) if m.strip() == chosen], chosen


def _read_long(
    name: str, header: list[str], lower: list[str], header_line: int,
    body: list[tuple[int, list[str]]], measure: str | None = None, allow_missing: bool = False,
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
        chosen = _choose_measure(name, header[jm], [(line, _label(r[jm])) for line, r in body], measure)
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


def _choose_measure(name: str, column: str, cells: list[tuple[int, str]], measure: str | None) -> str:
    """The measure of a long file to read: ``measure`` (exact, else the one case-insensitive match),
    or the file's only measure when ``measure`` is None."""
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
    raise _fail(name, None, f"the file has no measure {measure!r}; it holds {listed}.", "measure")


def _read_wide(
    name: str, header: list[str], lower: list[str], header_line: int,
    body: list[tuple[int, list[str]]], orientation: str, measure: str | None = None,
    allow_missing: bool = False,
) -> pd.DataFrame:
    first_cells = [r[0].strip() if r else "" for _, r in body]
    values = None if not all(_is_number(c) for c in first_cells) else np.array(
        [float(c) if c.lower() not in _MISSING else math.nan for c in first_cells])

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
    keep, chosen = _measure_columns(name, columns, measure)
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
        raise _fail(name, None, f"row label {dup!r} appears more than once.")

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
    if rows == "topic":
        frame = _frame(data.T.copy(), columns, labels)
    else:
        frame = _frame(data, labels, columns)
    if chosen is not None:
        frame.attrs["measure"] = chosen
    return frame


def _is_integer_token(token: str) -> bool:
    try:
        return float(token).is_integer()
    except ValueError:
        return False


def _first_column_is_labels(header: Any, values: NDArray[np.float64] | None) -> bool:
    """Whether the first column of a wide table holds row labels: its cells are not all numbers, or its header is
    empty (``Unnamed: 0`` as pandas names it), a role name (``topic``, ``Topic ID``, ``run``, ``sysid``) or an
    id-like name (``id``, ``no``, ``docid``) — the latter only with distinct whole numbers
    (:func:`_first_column_doubt` refuses the rest)."""
    if values is None:
        return True
    h = header.strip() if isinstance(header, str) else None
    if h is None:
        return False
    if h == "" or h.lower().startswith("unnamed") or _axis_role(h) is not None:
        return True
    return bool(_ID_HEADER.search(re.sub(r"[^a-z0-9#]", "", h.lower())))


def _first_column_doubt(header: Any, values: NDArray[np.float64] | None, others_integer: Any) -> str | None:
    """Why the first column of a wide table can be neither taken as labels nor as scores for certain, or None.

    The doubtful cases: an id-like header (``id``, ``docid``; not a role name) over cells that are not distinct
    whole numbers; and distinct whole numbers (``401, 402, ...``) under a header that is neither a role nor an id
    name (``T``, ``x``) while the other columns hold fractional scores: topic ids that, read as scores, would
    become a system.
    """
    if values is None or not isinstance(header, str):
        return None
    h = header.strip()
    if h == "" or h.lower().startswith("unnamed") or _axis_role(h) is not None:
        return None
    distinct_whole = (values.size >= 2 and bool(np.all(np.isfinite(values)))
                      and bool(np.all(values == np.round(values))) and np.unique(values).size == values.size)
    if _first_column_is_labels(header, values):
        return None if distinct_whole else "has an id-like header but holds numbers that are not distinct ids"
    if distinct_whole and not others_integer():
        shown = ", ".join(f"{v:g}" for v in values[:3])
        return f"holds distinct whole numbers ({shown}, ...) while the other columns hold fractional scores"
    return None


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return token.strip().lower() in _MISSING
    return True


def _frame(data: NDArray[np.float64], systems: Sequence[str], topics: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame(
        data,
        index=pd.Index([str(s) for s in systems], name="system"),
        columns=pd.Index([str(t) for t in topics], name="topic"),
    )


def _axis_role(name: Any) -> str | None:
    """``"system"`` or ``"topic"`` when an axis or column name says so (``system``, ``run_id``,
    ``topic``, ``query_id``, ... as :func:`read_scores` knows them), else None."""
    if not isinstance(name, str):
        return None
    return _role_of(name)


@functools.lru_cache(maxsize=4096)
def _role_of(name: str) -> str | None:
    low = name.strip().lower()
    if low in _SYSTEM_NAMES:
        return "system"
    if low in _TOPIC_NAMES:
        return "topic"
    compact = re.sub(r"[^a-z0-9]", "", low)
    if _SYSTEM_ROLE.match(compact):
        return "system"
    if _TOPIC_ROLE.match(compact):
        return "topic"
    return None


def _long_columns(frame: pd.DataFrame) -> tuple[Any, Any, Any, Any] | None:
    """(system, topic, score, measure-or-None) column labels of a long frame, or None when the
    columns do not name a long layout (``system, topic, score``; ``run_id, query_id, value``; ...)."""
    by_role: dict[str, list[Any]] = {"system": [], "topic": [], "score": [], "measure": []}
    for c in frame.columns:
        low = c.strip().lower() if isinstance(c, str) else None
        role = _axis_role(c)
        if role:
            by_role[role].append(c)
        elif low in _SCORE_NAMES - {_MEASURE_COLUMN}:
            by_role["score"].append(c)
        elif low == _MEASURE_COLUMN:
            by_role["measure"].append(c)
    if not (by_role["system"] and by_role["topic"]):
        return None
    if not by_role["score"] and by_role["measure"]:  # a "measure" column holding the numbers
        by_role["score"], by_role["measure"] = by_role["measure"], []
    if not by_role["score"]:
        return None
    return (by_role["system"][0], by_role["topic"][0], by_role["score"][0],
            by_role["measure"][0] if by_role["measure"] else None)


def _long_frame_to_matrix(frame: pd.DataFrame, cols: tuple[Any, Any, Any, Any], measure: str | None,
                          name: str, allow_nan: bool = False) -> pd.DataFrame:
    """The systems × topics matrix of a long frame (one row per system, topic [, measure])."""
    js, jt, jv, jm = cols
    if jm is not None:
        names = list(dict.fromkeys(str(m) for m in frame[jm]))
        if measure is None:
            if len(names) > 1:
                raise ValueError(
                    f"`{name}` is a long table of {len(names)} measures ({', '.join(names[:10])}"
                    f"{', ...' if len(names) > 10 else ''}); choose one with `measure` "
                    f"(e.g. measure={names[0]!r}).")
            chosen = names[0]
        else:
            hits = [m for m in names if m == measure] or [m for m in names if m.lower() == str(measure).lower()]
            if len(hits) != 1:
                raise ValueError(f"`measure`={measure!r}: the long table `{name}` holds "
                                 f"{', '.join(names[:10])}; give one of these exactly.")
            chosen = hits[0]
        frame = frame[[str(m) == chosen for m in frame[jm]]]
    elif measure is not None:
        raise ValueError(f"`measure`={measure!r} selects rows of a long table with a {_MEASURE_COLUMN!r} "
                         f"column; `{name}` has none.")
    systems = frame[js].astype(str).str.strip()
    topics = frame[jt].astype(str).str.strip()
    try:
        values = pd.to_numeric(frame[jv], errors="raise").astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"`{name}`: column {jv!r} must hold numbers; {exc}") from None
    key = pd.MultiIndex.from_arrays([systems, topics], names=["system", "topic"])
    dup = key.duplicated()
    if dup.any():
        s, t = key[int(np.argmax(dup))]
        raise ValueError(f"`{name}` has {int(dup.sum())} repeated system/topic pair(s) in its columns "
                         f"{js!r}, {jt!r} (first: system {s!r}, topic {t!r}); give one {jv!r} per pair"
                         + (" (filter to one measure first)." if jm is None else "."))
    wide = pd.Series(values.to_numpy(), index=key).unstack("topic")
    wide = wide.reindex(index=list(dict.fromkeys(systems)), columns=list(dict.fromkeys(topics)))
    given = pd.Series(True, index=key).unstack("topic").reindex_like(wide)
    holes = given.isna().to_numpy()
    if holes.any() and not allow_nan:  # with allow_nan an absent pair is a missing cell (NaN)
        i, j = np.argwhere(holes)[0]
        raise ValueError(f"`{name}` is a long table with {int(holes.sum())} system/topic pairs missing (first: "
                         f"system {wide.index[i]!r}, topic {wide.columns[j]!r}); gtheory needs a score for every "
                         "system on every topic.")
    wide.index.name, wide.columns.name = "system", "topic"
    return wide


def _looks_long(frame: pd.DataFrame) -> tuple[Any, Any] | None:
    """Two columns of an unnamed frame that hold every pair of their integer ids exactly once (and
    more rows than columns): the shape of a long table (system id, topic id, score), not a matrix."""
    n_rows, n_cols = frame.shape
    if not (3 <= n_cols <= 4 and n_rows > 2 * n_cols):
        return None
    ids = []
    for c in frame.columns:
        v = frame[c]
        if pd.api.types.is_numeric_dtype(v) and not pd.api.types.is_bool_dtype(v):
            arr = v.to_numpy(dtype=np.float64, na_value=np.nan)
            if np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
                ids.append(c)
        elif not pd.api.types.is_numeric_dtype(v):
            ids.append(c)
    for a in range(len(ids)):
        for b in range(a + 1, len(ids)):
            na, nb = frame[ids[a]].nunique(), frame[ids[b]].nunique()
            if na >= 2 and nb >= 2 and na * nb == n_rows and not frame.duplicated([ids[a], ids[b]]).any():
                return ids[a], ids[b]
    return None


class _Ambiguous(ParameterError):
    """Whether the rows of a wide table are systems or topics cannot be told (the caller words the fix)."""


def _is_default(index: pd.Index) -> bool:
    """No labels: the 0, 1, ... of ``pd.DataFrame(array)`` (or ``header=None``)."""
    return isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1


def _system_like(index: pd.Index) -> bool:
    return len(index) > 0 and all(isinstance(v, str) and _SYSTEM_LIKE.match(v.strip()) for v in index)


def _preview(items: Any, limit: int = 3) -> str:
    items = list(items)
    return ", ".join(repr(i) for i in items[:limit]) + (", ..." if len(items) > limit else "")


def _rows_are(frame: pd.DataFrame, orientation: str, name: str, *, rows_labelled: bool | None = None) -> str:
    """``"system"`` or ``"topic"``: what the rows of a wide table hold — the one rule of every score-matrix input.

    1. axis names: ``index.name`` / ``columns.name`` naming a role (``system``, ``run_id``, ``topic``,
       ``query_id``, ``Topic ID``, ...) decide, and ``orientation`` must not contradict them;
    2. else ``orientation`` (``"systems-by-topics"`` / ``"topics-by-systems"``) decides;
    3. else labels that all look like system names (``sys1``, ``run_a``, ``system-x``) on exactly one axis mark it
       as the systems' axis;
    4. else a table without labels on either axis (``pd.DataFrame(array)``) is read as the array it wraps: rows =
       systems;
    5. else :class:`_Ambiguous` — an unnamed table with labels (``pd.read_csv(f, index_col=0)``) is never guessed.
    """
    rows, columns = _axis_role(frame.index.name), _axis_role(frame.columns.name)
    if rows is not None and rows == columns:
        raise ValueError(f"`{name}` names both its index and its columns {rows!r} "
                         f"({frame.index.name!r}, {frame.columns.name!r}); name one axis 'system' and the "
                         "other 'topic' (df.rename_axis(index='system', columns='topic')).")
    named = rows or ({"system": "topic", "topic": "system"}[columns] if columns else None)
    if orientation in ("systems-by-topics", "topics-by-systems"):
        wanted = "system" if orientation == "systems-by-topics" else "topic"
        if named is not None and named != wanted:
            raise ValueError(
                f"`orientation`={orientation!r} contradicts the axis names of `{name}` (index "
                f"{frame.index.name!r}, columns {frame.columns.name!r}: rows are {named}s); drop "
                "`orientation` or rename the axes.")
        return wanted
    if named is not None:
        return named
    labelled_rows = not _is_default(frame.index) if rows_labelled is None else rows_labelled
    sys_rows = labelled_rows and _system_like(frame.index)
    sys_cols = _system_like(frame.columns)
    if sys_rows != sys_cols:
        return "system" if sys_rows else "topic"
    if rows_labelled is None and _is_default(frame.index) and _is_default(frame.columns):
        return "system"
    raise _Ambiguous("orientation", f"`{name}` ({frame.shape[0]} rows x {frame.shape[1]} columns; rows "
                     f"{_preview(frame.index)}, columns {_preview(frame.columns)}) has unnamed axes: whether its "
                     "rows are systems or topics cannot be told, and it is not guessed.")


def _ambiguous_fix(name: str, can_orient: bool) -> str:
    return (" Name the axes: df.rename_axis(index='system', columns='topic'), or index='topic', columns='system' "
            "when the rows are topics" + (" — or pass orientation='systems x topics' or 'topics x systems'."
                                          if can_orient else "."))


def _label_column(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """A frame without row labels (default index) whose first column holds them (``pd.read_csv(f)`` of a file
    with a label column, e.g. ``topic`` or ``Topic ID``), with that column as its index; else unchanged. The
    column is recognised as a CSV file's (:func:`_first_column_is_labels`); a doubtful one is refused."""
    if not _is_default(frame.index) or frame.shape[1] < 2 or _is_default(frame.columns):
        return frame
    first = frame.columns[0]
    col = frame[first]
    numeric = pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)
    values = col.to_numpy(dtype=np.float64, na_value=np.nan) if numeric else None

    def others_integer() -> bool:
        rest = frame.iloc[:, 1:]
        try:
            arr = rest.to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError):
            return False
        return bool(np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)))

    doubt = _first_column_doubt(first, values, others_integer)
    if doubt is not None:
        raise ValueError(f"`{name}`: its first column {first!r} {doubt}: is it a column of row labels (ids) or of "
                         f"scores? If it holds ids, make it the index (df.set_index({first!r})) and name the axes; "
                         "if it holds scores, give the frame an index of row labels.")
    if _first_column_is_labels(first, values):
        return frame.set_index(first)
    return frame


def _frame_to_matrix(frame: pd.DataFrame, orientation: str, measure: str | None, name: str,
                     allow_nan: bool = False, can_orient: bool = True) -> pd.DataFrame:
    """A DataFrame as systems × topics (axes named ``system`` and ``topic``) by the rule of :func:`as_score_matrix`.

    * long: columns naming system, topic and score (``system, topic, score``; ir_measures'
      ``run_id, query_id, value``; an optional ``measure`` column filtered to ``measure``), or a
      2-level index named so; ``orientation="long"`` requires it.
    * wide: :func:`_rows_are` (axis names, ``orientation``, system-like labels, no labels at all; never a guess),
      after a first column of row labels is made the index (:func:`_label_column`).
    * an unnamed frame with the shape of a long table (two id columns holding every pair once) is refused.
    * any other MultiIndex is refused, saying how to make one label per system and topic.
    """
    if isinstance(frame.index, pd.MultiIndex) and len(frame.index.names) == 2 and \
            {_axis_role(n) for n in frame.index.names} == {"system", "topic"}:
        frame = frame.reset_index()
    for axis, idx in (("rows", frame.index), ("columns", frame.columns)):
        if isinstance(idx, pd.MultiIndex):
            lvl = idx.names[-1] if idx.names[-1] is not None else idx.nlevels - 1
            raise ValueError(
                f"`{name}` has a {idx.nlevels}-level index on its {axis} (levels {list(idx.names)}, first label "
                f"{idx[0]!r}); a score matrix needs one label per system and one per topic. Keep one value of the "
                f"extra level (df.xs(VALUE, level={lvl!r}{', axis=1' if axis == 'columns' else ''})) or join the "
                f"levels into one label (df.{'index' if axis == 'rows' else 'columns'} = "
                f"df.{'index' if axis == 'rows' else 'columns'}.map(lambda k: '/'.join(map(str, k)))), then name "
                "the axes.")
    cols = _long_columns(frame)
    if orientation == "long" or (orientation == "auto" and cols is not None):
        if cols is None:
            raise ValueError(f"`orientation`='long' needs columns naming the system, the topic and the score "
                             f"(system, topic, score or run_id, query_id, value); `{name}` has columns "
                             f"{list(frame.columns)[:10]}.")
        return _long_frame_to_matrix(frame, cols, measure, name, allow_nan)
    if measure is not None:
        raise ValueError(f"`measure`={measure!r} selects rows of a long table with a {_MEASURE_COLUMN!r} column; "
                         f"`{name}` is a matrix.")
    unnamed = _axis_role(frame.index.name) is None and _axis_role(frame.columns.name) is None
    if orientation == "auto" and unnamed and (_is_default(frame.index) or _is_default(frame.columns)):
        pair = _looks_long(frame)
        if pair is not None:
            a, b = pair
            raise ValueError(
                f"`{name}` ({frame.shape[0]} rows x {frame.shape[1]} columns) looks like a long table: columns "
                f"{a!r} and {b!r} hold every pair of their {frame[a].nunique()} x {frame[b].nunique()} ids once. "
                "Name its columns system, topic, score (df.columns = ['system', 'topic', 'score']) to read it as "
                "one score per row, or, if it really is a systems x topics matrix, name its axes "
                "(df.rename_axis(index='system', columns='topic'))"
                + (" or pass orientation='systems x topics'." if can_orient else "."))
    if unnamed:
        frame = _label_column(frame, name)
    def numeric(dt: Any) -> bool:
        return pd.api.types.is_numeric_dtype(dt) and not pd.api.types.is_bool_dtype(dt)

    dtypes = frame.dtypes.tolist()  # by dtype, the distinct ones first: no per-column work for an all-float frame
    bad = [] if all(numeric(dt) for dt in set(dtypes)) else [c for c, dt in zip(frame.columns, dtypes) if not numeric(dt)]
    if bad:
        raise TypeError(f"`{name}` must hold numeric scores; columns {_preview(bad, 5)} are not numeric. Put the "
                        "labels in the index (e.g. `df.set_index('system')`) and name the axes.")
    try:
        rows = _rows_are(frame, orientation, name)
    except _Ambiguous as exc:
        raise _Ambiguous("orientation", str(exc) + _ambiguous_fix(name, can_orient)) from None
    out = frame.T if rows == "topic" else frame
    return out.rename_axis(index="system", columns="topic")


def _coerce_matrix(
    scores: Any, *, orientation: str = "auto", name: str = "scores", measure: str | None = None,
    allow_nan: bool = False, min_systems: int = 2, min_topics: int = 2, can_orient: bool = True,
    nan_advice: str | None = None,
) -> tuple[NDArray[np.float64], pd.Index, pd.Index, bool]:
    """The one coercion of a score matrix: ``(X, systems, topics, labelled)``, X float64 systems × topics,
    the labels as given (a :class:`pandas.Index`; 0, 1, ... for an array), ``labelled`` for pandas input.

    Used by :func:`as_score_matrix` (:func:`gtheory.gstudy`, :func:`gtheory.read_scores`'s callers) and by the
    score arguments of :mod:`experiments`; the rule is the one of :func:`as_score_matrix`. ``can_orient`` False:
    the caller has no ``orientation`` parameter (the messages then say to name the axes); ``nan_advice`` replaces
    the advice after a NaN.
    """
    orientation = _canonical_orientation(orientation)
    if isinstance(scores, (str, os.PathLike)):
        scores = read_scores(scores, orientation=orientation, measure=measure, allow_missing=allow_nan)
        orientation, measure = "systems-by-topics", None
    labelled = isinstance(scores, pd.DataFrame)
    if labelled:
        frame = _frame_to_matrix(scores, orientation, measure, name, allow_nan, can_orient)
        systems, topics = frame.index, frame.columns
        try:
            x = frame.to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"`{name}` must hold numbers only; {exc}") from None
    else:
        if isinstance(scores, (pd.Series, dict, bytes, set)) or scores is None or np.isscalar(scores):
            raise TypeError(
                f"`{name}` must be a 2-D array (systems x topics), a DataFrame or a CSV path; "
                f"got {type(scores).__name__}."
            )
        if measure is not None:
            raise ValueError(f"`measure` selects rows of a long table (DataFrame or CSV); `{name}` is an array.")
        if orientation == "long":
            raise ValueError(f"`orientation`='long' needs a DataFrame or CSV with system, topic and score columns; "
                             f"`{name}` is an array.")
        try:
            x = np.asarray(scores, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"`{name}` must be a 2-D array of numbers (systems x topics), a DataFrame or a CSV "
                f"path; got {type(scores).__name__} ({exc})."
            ) from None
        if x.ndim != 2:
            raise ValueError(
                f"`{name}` must be 2-D (rows = systems, columns = topics); got an array of shape "
                f"{x.shape}. For a single system or topic there is nothing to decompose."
            )
        if orientation == "topics-by-systems":
            x = x.T
        elif orientation == "auto" and np.all(np.isfinite(x)) and _looks_long(pd.DataFrame(x)) is not None:
            a, b = _looks_long(pd.DataFrame(x))
            raise ValueError(
                f"`{name}` ({x.shape[0]} x {x.shape[1]} array) looks like a long table: columns {a} and {b} hold "
                "every pair of their integer ids once. Give a DataFrame with columns system, topic, score "
                "(pd.DataFrame(x, columns=['system', 'topic', 'score'])) to read one score per row, or, if it "
                "really is a systems x topics matrix"
                + (", pass orientation='systems x topics'." if can_orient else ", name the axes of a DataFrame of it "
                   "(pd.DataFrame(x).rename_axis(index='system', columns='topic'))."))
        systems, topics = pd.RangeIndex(x.shape[0]), pd.RangeIndex(x.shape[1])
    n_s, n_t = x.shape
    if n_s < min_systems:
        raise ValueError(f"`{name}` has {n_s} system(s); at least {min_systems} systems (rows) are needed"
                         + (" to estimate system variance." if min_systems == 2 else "."))
    if n_t < min_topics:
        raise ValueError(f"`{name}` has {n_t} topic(s); at least {min_topics} topics (columns) are needed"
                         + (" to separate topic variance from interaction." if min_topics == 2 else "."))
    for what, idx in (("system", systems), ("topic", topics)):
        if idx.has_duplicates:
            raise ValueError(f"`{name}` has duplicate {what} labels: {_preview(idx[idx.duplicated()].unique(), 5)}; "
                             f"give each {what} one {'row' if what == 'system' else 'column'}.")
    bad = np.isinf(x) if allow_nan else ~np.isfinite(x)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        n_nan = 0 if allow_nan else int(np.isnan(x).sum())
        n_inf = int(bad.sum()) - n_nan
        what = " and ".join(
            s for s in (f"{n_nan} NaN value{'s' * (n_nan != 1)}" if n_nan else "",
                        f"{n_inf} infinite value{'s' * (n_inf != 1)}" if n_inf else "") if s
        )
        raise ValueError(
            f"`{name}` contains {what} (first at system {systems[i]!r}, topic {topics[j]!r}); "
            + ("a score must be finite (NaN marks a missing cell)." if allow_nan else nan_advice or
               "missing scores are refused by default — compute the metric for every system and topic "
               "(e.g. score 0 for no retrieved documents), drop the system/topic, or estimate from the "
               "scored cells with gstudy(..., missing='reml' or 'henderson').")
        )
    return x, pd.Index(systems), pd.Index(topics), labelled


def as_score_matrix(
    scores: ScoreInput, *, orientation: Orientation = "auto", name: str = "scores",
    measure: str | None = None, allow_nan: bool = False,
) -> tuple[NDArray[np.float64], list[str], list[str]]:
    """Validate user input and return ``(X, system_labels, topic_labels)``, X systems × topics.

    **The rule of every score-matrix input** (:func:`gtheory.gstudy`, :func:`read_scores`, the score arguments
    of :mod:`experiments`, the ``gtheory`` command line):

    * a **NumPy array** (or nested lists) is systems × topics: rows = systems, columns = topics;
      ``orientation="topics x systems"`` transposes it;
    * a **long table** — a DataFrame or CSV with columns ``system``, ``topic``, ``score`` (or ir_measures'
      ``run_id``, ``query_id``, ``value``; the synonyms of :func:`read_scores`), one row per cell, or a 2-level
      index so named — is pivoted; with a ``measure`` column holding several measures, ``measure`` chooses one;
    * a **wide DataFrame with named axes** — ``index.name`` / ``columns.name`` ``system`` or ``topic`` or a
      synonym (``run``, ``run_id``, ``sysid``, ``query``, ``qid``, ``query_id``, ``Topic ID``, ...) — is oriented
      by them (``index.name == "topic"``: rows are topics, so it is transposed); a first column of row labels
      with such a name (``pd.read_csv(f)`` of a file whose first column is ``topic``) is its index;
    * an **unnamed wide DataFrame** is oriented by ``orientation`` (``"systems x topics"`` /
      ``"topics x systems"``, also spelt ``"systems-by-topics"`` / ``"topics-by-systems"``), or when its labels
      tell for certain — all the labels of exactly one axis look like system names (``sys1``, ``run_a``): that
      axis holds the systems — and is **refused otherwise** (``pd.read_csv(f, index_col=0)`` of a topics ×
      systems file is never silently read as systems × topics). A DataFrame without labels on either axis
      (``pd.DataFrame(array)``) is read as the array it wraps;
    * a **CSV file** follows the same rule through :func:`read_scores` (the first column's header names the
      rows, an id column is recognised by its header and content);
    * an unnamed table shaped like a long table (two integer-id columns holding every pair of ids once) and a
      DataFrame with any other MultiIndex are refused, with the fix in the message.

    ``orientation`` must not contradict the axis names. Raises ``TypeError`` for other types and non-numeric
    columns and ``ValueError`` for: not 2-D, fewer than 2 systems or topics, repeated system or topic labels,
    NaN or infinite values (the message counts them and names the first), a long table with a repeated or a
    missing system/topic pair, or a layout that cannot be told (a :class:`ParameterError` with ``param``
    ``"orientation"``). With ``allow_nan`` a missing cell is kept as NaN (NaN in an array or frame; an empty
    cell or absent system/topic pair of a CSV file or long table); infinite values are still refused.
    """
    x, systems, topics, _ = _coerce_matrix(scores, orientation=orientation, name=name, measure=measure,
                                           allow_nan=allow_nan)
    return x, [str(s) for s in systems], [str(t) for t in topics]
