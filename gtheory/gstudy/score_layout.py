"""The layout of a score matrix: which axis holds the systems and which the topics — the one rule of every
score-matrix input (:func:`gtheory.as_score_matrix`, :func:`gtheory.read_scores`, the score arguments of
:mod:`experiments`, the ``gtheory`` command line).

One concept: telling the layout, never guessing it. The names that mark a role (``system``, ``run_id``,
``topic``, ``query_id``, ``Topic ID``, ...: :func:`_axis_role`), the spellings of ``orientation``
(:func:`canonical_orientation`), whether a first column holds row labels (:func:`_first_column_is_labels`,
:func:`_first_column_doubt`) and what the rows of a wide table are (:func:`_rows_are`). The CSV reader
(:mod:`gtheory.gstudy.score_csv`) and the coercion of in-memory input (:mod:`gtheory.gstudy.score_matrix`) both follow it;
the package exports :func:`gtheory.read_scores` and :func:`gtheory.as_score_matrix`.
"""
from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import NDArray

from ..errors import ParameterError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Orientation", "canonical_orientation"]

Orientation = Literal["auto", "systems x topics", "topics x systems", "systems-by-topics", "topics-by-systems", "long"]

_ORIENTATIONS = ("auto", "systems-by-topics", "topics-by-systems", "long")
_TOPIC_NAMES = {"topic", "topics", "query", "queries", "qid", "query_id", "topic_id", "item"}
_SYSTEM_NAMES = {"system", "systems", "run", "runs", "runid", "run_id", "sys", "person", "p"}
_MEASURE_COLUMN = "measure"
_SCORE_NAMES = {"score", "value", _MEASURE_COLUMN}
_SYSTEM_LIKE = re.compile(r"^(sys|system|run)[\s_\-.]?\w*$", re.IGNORECASE)
#: an axis or column name of a role once lower-cased and stripped of everything but letters and digits
#: ("Topic ID" → topicid, "run_id" → runid, "sysid"): the names of :data:`_TOPIC_NAMES` / :data:`_SYSTEM_NAMES`
#: and these words with an id suffix
_ROLE_SUFFIX = r"(id|ids|no|nr|num|number|name|names|label|tag)?"
_TOPIC_ROLE = re.compile(rf"^(topics?|query|queries|qid|qids|items?){_ROLE_SUFFIX}$")
_SYSTEM_ROLE = re.compile(rf"^(systems?|sys|runs?|persons?|p){_ROLE_SUFFIX}$")
#: a first-column header that names an identifier (not a system): "id", "no.", "#", "docid", "sysid", ...
_ID_HEADER = re.compile(r"^(ids?|no|nr|num|number|index|idx|key|labels?|names?|#)$|ids?$")
#: the canonical layouts and their accepted spellings (case, spaces, "-by-" / "_by_" / " x " / "×" do not matter)
_LAYOUT_WORDS = {"auto": "auto", "long": "long", "systemsxtopics": "systems-by-topics",
                 "topicsxsystems": "topics-by-systems", "systemxtopic": "systems-by-topics",
                 "topicxsystem": "topics-by-systems"}


#: labels of a summary over topics or systems, not of a topic or a system: trec_eval's ``all`` rows (``-q``), the
#: ``num_q`` column of per-run means (``gtheory evaluate --means``), a mean or total row or column of a spreadsheet
_SUMMARY_LABELS = {"all", "mean", "means", "average", "avg", "total", "sum", "median", "overall", "num_q", "numq",
                   "std", "stdev", "sd"}


def _summary_label(labels: Any) -> str | None:
    """The first of ``labels`` that names a summary (:data:`_SUMMARY_LABELS`: ``all``, ``mean``, ``num_q``, …),
    or None. Such a row or column read as a topic or a system would be a made-up one: a mean column as a topic
    lowers the interaction and raises Φ, trec_eval's ``all`` rows add a topic, a ``num_q`` column is a count."""
    for label in labels:
        if isinstance(label, str) and label.strip().lower() in _SUMMARY_LABELS:
            return label
    return None


def _summary_problem(label: str, what: str) -> str:
    """Why a ``what`` ("topic", "system") labelled ``label`` is refused, and the fix."""
    if label.strip().lower() in ("num_q", "numq"):
        return (f"a {what} labelled {label!r}: this is a table of per-run means ({label} is their number of topics, "
                "as gtheory evaluate --means and trec_eval write them), not of per-topic scores; give the per-topic "
                "scores (gtheory evaluate --per-topic, trec_eval -q without its 'all' rows).")
    return (f"a {what} labelled {label!r}, which names a summary (trec_eval -q's 'all' rows, a mean or total row "
            f"or column), not a {what}; read as a {what} it would change every variance component. Remove that "
            f"row or column, or, if {label!r} really is a {what}, rename it.")


def canonical_orientation(orientation: Any) -> str:
    """``orientation`` as one of :data:`_ORIENTATIONS` (``"systems x topics"`` and ``"systems-by-topics"`` are one
    layout), or a :class:`ParameterError` listing the spellings."""
    if isinstance(orientation, str):
        words = re.sub(r"\bby\b", " x ", re.sub(r"[_\-]", " ", orientation.lower().replace("×", " x ")))
        key = re.sub(r"[\s_\-]", "", words)
        if key in _LAYOUT_WORDS:
            return _LAYOUT_WORDS[key]
    raise ParameterError("orientation", "`orientation` must be one of 'auto', 'systems x topics' (or "
                         "'systems-by-topics'), 'topics x systems' (or 'topics-by-systems'), 'long'; "
                         f"got {orientation!r}.")



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



class _Ambiguous(ParameterError):
    """Whether the rows of a wide table are systems or topics cannot be told (the caller words the fix)."""


def _is_default(index: pd.Index) -> bool:
    """No labels: the 0, 1, ... of ``pd.DataFrame(array)`` (or ``header=None``)."""
    import pandas as pd

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
    labelled_rows = not _is_default(frame.index) if rows_labelled is None else rows_labelled
    sys_rows = labelled_rows and _system_like(frame.index)
    sys_cols = _system_like(frame.columns)
    if named is not None:
        if sys_rows != sys_cols and ("system" if sys_rows else "topic") != named:
            # a name says one thing, the labels the other: a transposed table under a wrong name, never a guess
            looks, axis = (frame.index, "row") if sys_rows else (frame.columns, "column")
            raise ValueError(
                f"the axis names of `{name}` (index {frame.index.name!r}, columns {frame.columns.name!r}) say the "
                f"rows are {named}s, but the {axis} labels {_preview(looks)} look like system names and the other "
                "axis's do not: is the table transposed, or an axis misnamed? Rename the axis (e.g. the first "
                "column 'topic' or 'system'), or, if the names are right, pass `orientation` explicitly.")
        return named
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
