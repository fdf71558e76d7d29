"""User input turned into a checked score matrix (:func:`as_score_matrix`): a NumPy array, a wide or long
DataFrame, or a CSV path (read by :mod:`gtheory.gstudy.score_csv`), coerced to float64 systems × topics with its labels;
missing, non-finite, repeated or too few cells are refused with the fix in the message.

Which axis holds the systems follows the one rule of every score-matrix input (:mod:`gtheory.gstudy.score_layout`);
:func:`coerce_matrix` is that rule's one implementation (public: the packages above use it).
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Union

import numpy as np
from numpy.typing import NDArray

from .score_layout import (_MEASURE_COLUMN, _SCORE_NAMES, Orientation, _Ambiguous, _ambiguous_fix, _axis_role,
                           canonical_orientation, _first_column_doubt, _first_column_is_labels, _is_default,
                           _preview, _rows_are, _summary_label, _summary_problem)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["as_score_matrix", "ScoreInput", "coerce_matrix", "frame_to_matrix", "checked_matrix"]

ScoreInput = Union[np.ndarray, "pd.DataFrame", str, "os.PathLike[str]", Sequence[Sequence[float]]]


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
    import pandas as pd

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


def _long_shape(shape: tuple[int, ...]) -> bool:
    """Whether a table of this (rows, columns) shape could be a long one (system id, topic id, score[, measure]):
    3 or 4 columns and more than twice as many rows."""
    n_rows, n_cols = shape
    return 3 <= n_cols <= 4 and n_rows > 2 * n_cols


def _looks_long(frame: pd.DataFrame) -> tuple[Any, Any] | None:
    """Two columns of an unnamed frame that hold every pair of their integer ids exactly once (and
    more rows than columns, :func:`_long_shape`): the shape of a long table (system id, topic id, score), not a
    matrix."""
    import pandas as pd

    if not _long_shape(frame.shape):
        return None
    n_rows = frame.shape[0]
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



def _label_column(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """A frame without row labels (default index) whose first column holds them (``pd.read_csv(f)`` of a file
    with a label column, e.g. ``topic`` or ``Topic ID``), with that column as its index; else unchanged. The
    column is recognised as a CSV file's (:func:`_first_column_is_labels`); a doubtful one is refused."""
    import pandas as pd

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


def frame_to_matrix(frame: pd.DataFrame, orientation: str, measure: str | None, name: str,
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
    import pandas as pd

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


def coerce_matrix(
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
    import pandas as pd  # here: labelled_gstudy checks a matrix without pandas (checked_matrix)

    from .score_csv import read_scores

    orientation = canonical_orientation(orientation)
    if isinstance(scores, (str, os.PathLike)):
        scores = read_scores(scores, orientation=orientation, measure=measure, allow_missing=allow_nan)
        orientation, measure = "systems-by-topics", None
    labelled = isinstance(scores, pd.DataFrame)
    if labelled:
        frame = frame_to_matrix(scores, orientation, measure, name, allow_nan, can_orient)
        systems, topics = frame.index, frame.columns
        try:
            x = frame.to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"`{name}` must hold numbers only; {exc}") from None
    else:
        x = _array_matrix(scores, orientation, name, measure, can_orient)
        systems, topics = pd.RangeIndex(x.shape[0]), pd.RangeIndex(x.shape[1])
    checked_matrix(x, systems, topics, name=name, labelled=labelled, allow_nan=allow_nan, min_systems=min_systems,
                   min_topics=min_topics, nan_advice=nan_advice)
    return x, pd.Index(systems), pd.Index(topics), labelled


def _is_frame(scores: Any) -> bool:
    """Whether ``scores`` is a pandas object (a frame or a series): never when pandas was not imported, which is
    not imported to ask."""
    import sys

    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(scores, (pd.DataFrame, pd.Series))


def _array_matrix(scores: Any, orientation: str, name: str, measure: str | None, can_orient: bool) -> NDArray[np.float64]:
    """The systems x topics float64 array of an array-like ``scores`` (not a frame, not a path; ``orientation``
    canonical), before :func:`checked_matrix`: the array branch of :func:`coerce_matrix`. Pandas is imported only
    to ask whether an array shaped like a long table is one."""
    if _is_frame(scores) or isinstance(scores, (dict, bytes, set)) or scores is None or np.isscalar(scores):
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
    elif orientation == "auto" and _long_shape(x.shape) and np.all(np.isfinite(x)):
        import pandas as pd

        pair = _looks_long(pd.DataFrame(x))
        if pair is not None:
            a, b = pair
            raise ValueError(
                f"`{name}` ({x.shape[0]} x {x.shape[1]} array) looks like a long table: columns {a} and {b} hold "
                "every pair of their integer ids once. Give a DataFrame with columns system, topic, score "
                "(pd.DataFrame(x, columns=['system', 'topic', 'score'])) to read one score per row, or, if it "
                "really is a systems x topics matrix"
                + (", pass orientation='systems x topics'." if can_orient else ", name the axes of a DataFrame of it "
                   "(pd.DataFrame(x).rename_axis(index='system', columns='topic'))."))
    return x


def checked_matrix(x: NDArray[np.float64], systems: Sequence[Any], topics: Sequence[Any], *, name: str = "scores",
                   labelled: bool = True, allow_nan: bool = False, min_systems: int = 2, min_topics: int = 2,
                   nan_advice: str | None = None) -> None:
    """The checks of every score matrix once it is systems x topics (:func:`coerce_matrix`'s last step, and that of a
    matrix computed with its labels, :func:`gtheory.gstudy.gstudy.labelled_gstudy`): enough systems and topics, no
    repeated label, no summary label (``all``, ``mean``, ...: when the labels came with the data, ``labelled``), and
    finite scores (NaN a missing cell with ``allow_nan``). A ``ValueError`` naming the problem; without pandas."""
    n_s, n_t = x.shape
    if n_s < min_systems:
        raise ValueError(f"`{name}` has {n_s} system(s); at least {min_systems} systems (rows) are needed"
                         + (" to estimate system variance." if min_systems == 2 else "."))
    if n_t < min_topics:
        raise ValueError(f"`{name}` has {n_t} topic(s); at least {min_topics} topics (columns) are needed"
                         + (" to separate topic variance from interaction." if min_topics == 2 else "."))
    for what, idx in (("system", systems), ("topic", topics)):
        repeated = _repeated(idx)
        if repeated:
            raise ValueError(f"`{name}` has duplicate {what} labels: {_preview(repeated, 5)}; "
                             f"give each {what} one {'row' if what == 'system' else 'column'}.")
    if labelled:
        for what, idx in (("topic", topics), ("system", systems)):
            summary = _summary_label(idx)
            if summary is not None:
                raise ValueError(f"`{name}` has " + _summary_problem(summary, what))
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


def _repeated(labels: Sequence[Any]) -> list[Any]:
    """The labels that occur more than once, in the order of their second occurrence (as pandas'
    ``idx[idx.duplicated()].unique()``)."""
    seen: set[Any] = set()
    out: list[Any] = []
    for label in labels:
        if label in seen and label not in out:
            out.append(label)
        seen.add(label)
    return out


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
    if not (_is_frame(scores) or isinstance(scores, (str, os.PathLike))):  # an array: without pandas
        x = _array_matrix(scores, canonical_orientation(orientation), name, measure, True)
        systems, topics = range(x.shape[0]), range(x.shape[1])
        checked_matrix(x, systems, topics, name=name, labelled=False, allow_nan=allow_nan)
    else:
        x, systems, topics, _ = coerce_matrix(scores, orientation=orientation, name=name, measure=measure,
                                               allow_nan=allow_nan)
    return x, [str(s) for s in systems], [str(t) for t in topics]
