"""Shared pieces of the rank-based measures (AP, P@k, R-precision, bpref, infAP, RBP, Q, …): argument checks, the
list a measure is evaluated on (original or condensed), per-rank relevance tensors, R and N, and the output frame.

Conventions, all those of trec_eval (``form_res_rels.c``):

* a document is *relevant* when its grade is ≥ ``relevance_level`` (trec_eval ``-l``, default 1);
* *judged non-relevant* means a grade in ``[0, relevance_level)``;
* a grade ≤ -1 (negative after trec_eval's truncation) marks a pooled-but-unjudged document: it is neither relevant nor judged non-relevant, it is not
  counted in R or N, and the condensed list drops it together with the documents absent from the qrels;
* R and N (:meth:`JudgedRuns.n_relevant`, :meth:`JudgedRuns.n_nonrelevant`) are counted over the qrels, not over
  the ranked list.
"""
from __future__ import annotations


import functools
import inspect
import weakref
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..io import ABSENT, UNJUDGED, JudgedRuns, check_judged, pooled_unjudged

if TYPE_CHECKING:
    import pandas as pd

__all__: list[str] = []


def check_lists(judged: JudgedRuns, judged_only: bool) -> None:
    """The two arguments every measure takes: a :class:`~metrics.JudgedRuns` and ``judged_only``, a bool (else a
    TypeError naming the argument)."""
    check_judged(judged)
    if not isinstance(judged_only, (bool, np.bool_)):
        raise TypeError(f"`judged_only` must be True or False; got {judged_only!r}")


def evaluated_list(judged: JudgedRuns, judged_only: bool) -> JudgedRuns:
    """The lists a measure is computed on: ``judged`` itself, or its condensed lists when ``judged_only``.

    The condensed list (:meth:`JudgedRuns.condensed`; Sakai 2007; trec_eval ``-J``) keeps only judged documents, in
    their order; documents with a grade ≤ -1 (pooled-but-unjudged in trec_eval) are dropped as well.
    """
    check_lists(judged, judged_only)
    if not judged_only:
        return judged
    return judged.condensed()


def relevant_levels(judged: JudgedRuns, relevance_level: float) -> np.ndarray:
    """(n_levels,) bool: the grade levels counted as relevant."""
    return judged.levels >= relevance_level


def nonrelevant_levels(judged: JudgedRuns, relevance_level: float) -> np.ndarray:
    """(n_levels,) bool: the judged non-relevant levels, grades below ``relevance_level`` that are not
    pooled-but-unjudged (:func:`metrics.io._grades.pooled_unjudged`: grades ≤ -1)."""
    return ~pooled_unjudged(judged.levels) & (judged.levels < relevance_level)


def level_mask(judged: JudgedRuns, per_level: np.ndarray, *, unjudged: bool = False, absent: bool = False) -> np.ndarray:
    """Map a per-level boolean onto the tensor: bool (n_systems, n_topics, depth)."""
    table = np.empty(judged.levels.size + 2, dtype=bool)
    table[: judged.levels.size] = per_level
    table[UNJUDGED] = unjudged
    table[ABSENT] = absent
    return table[judged.grades]


def relevance_at_ranks(
    judged: JudgedRuns, *, cutoff: int | None, relevance_level: float, judged_only: bool
) -> tuple[JudgedRuns, np.ndarray, float]:
    """The start of a binary-relevance measure: ``(lists, rel, level)`` — the evaluated lists
    (:func:`evaluated_list`), bool ``rel`` (n_systems, n_topics, ranks) marking grade ≥ ``level`` in
    the top ``cutoff`` ranks (all ranks if None), and the checked relevance level."""
    k, rl = cutoff, relevance_level  # checked by the public measure (gtheory.kit.params)
    v = evaluated_list(judged, judged_only)
    rel = level_mask(v, relevant_levels(v, rl))
    if k is not None and k < v.depth:
        rel = rel[..., :k]
    return v, rel, rl


def list_length(judged: JudgedRuns) -> np.ndarray:
    """(n_systems, n_topics) int64: documents in each list (not :data:`ABSENT`)."""
    return (judged.grades != ABSENT).sum(axis=-1)


def safe_divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` with 0 where ``den == 0`` (trec_eval's convention, e.g. AP with R = 0)."""
    num, den = np.broadcast_arrays(np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64))
    out = np.zeros(num.shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


def scored(values: np.ndarray, judged: JudgedRuns) -> np.ndarray:
    """A measure's scores as every measure returns them: a fresh float64 (n_systems, n_topics) array, NaN for the
    topics a run did not return under ``missing="exclude"``. In column order (Fortran), the layout of the frame that
    wraps it (a DataFrame holds each column together): a frame's reductions and ``to_numpy`` are those of a frame
    built by copying the values."""
    out = np.array(values, dtype=np.float64, order="F")
    if judged.missing == "exclude":
        out[~np.asarray(judged.retrieved)] = np.nan
    return out


def as_frame(values: np.ndarray, judged: JudgedRuns) -> pd.DataFrame:
    """A systems × topics DataFrame of ``values`` (wrapped, not copied); topics a run did not return are NaN under
    ``missing="exclude"`` (:func:`masked`)."""
    return _labelled(masked(values, judged), judged)


def masked(values: np.ndarray, judged: JudgedRuns) -> np.ndarray:
    """``values`` (systems × topics, in ``judged``'s order) as float64, with the topics a run did not return set to
    NaN under ``missing="exclude"`` (a copy then; otherwise ``values`` itself): the cells :func:`as_frame` labels,
    for callers that keep the array (the command line's comparisons)."""
    values = np.asarray(values, dtype=np.float64)
    if judged.missing == "exclude":
        values = values.copy(order="K")
        values[~np.asarray(judged.retrieved)] = np.nan
    return values


def _labelled(values: np.ndarray, judged: JudgedRuns) -> pd.DataFrame:
    """``values`` (a measure's scores, fresh: the frame wraps them without a copy) with the system and topic labels
    of ``judged``: the one place a measure's frame is built."""
    import pandas as pd  # here, not at the top: a measure's scores are computed without pandas (measure_scores)

    index, columns = _labels(judged)
    return pd.DataFrame(values, index=index, columns=columns, copy=False)


def frame_measure(core: Callable[..., np.ndarray]) -> Callable[..., pd.DataFrame]:
    """The public function of a measure from its computation.

    ``core(judged, **params)`` returns the measure's scores as :func:`scored` gives them, a float64 (n_systems,
    n_topics) array; the function returned takes the same arguments (its signature and docstring are the core's)
    and returns them as the systems × topics DataFrame (index ``system``, columns ``topic``). The core is its
    ``scores`` attribute: :func:`metrics.measures.evaluate.measure_scores` computes a measure by name through it,
    without building a frame (nor importing pandas: the command line's terminal tables).
    """
    @functools.wraps(core)
    def measure(*args: Any, **kwargs: Any) -> pd.DataFrame:
        values = core(*args, **kwargs)
        return _labelled(values, args[0] if args else kwargs["judged"])

    measure.__signature__ = inspect.signature(core).replace(return_annotation="pd.DataFrame")  # type: ignore[attr-defined]
    measure.__annotations__ = {**core.__annotations__, "return": "pd.DataFrame"}
    measure.scores = core  # type: ignore[attr-defined]
    return measure


_LABELS: "weakref.WeakKeyDictionary[JudgedRuns, tuple[pd.Index, pd.Index]]" = weakref.WeakKeyDictionary()


def _labels(judged: JudgedRuns) -> tuple[pd.Index, pd.Index]:
    """The (system, topic) label indexes of ``judged``'s frames, built once per tensor (pandas indexes are immutable)."""
    import pandas as pd

    hit = _LABELS.get(judged)
    if hit is None or len(hit[0]) != judged.n_systems or len(hit[1]) != judged.n_topics:
        hit = (pd.Index(list(judged.systems), name="system"), pd.Index(list(judged.topics), name="topic"))
        _LABELS[judged] = hit
    return hit


def at_relevant(rel: np.ndarray, *masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Sparse view of the relevant documents of a (n_systems, n_topics, depth) boolean tensor ``rel``.

    Returns the flat cell ``s * n_topics + t`` and 0-based rank of every relevant document, in (system, topic, rank)
    order, and for each of ``masks`` (same shape) the number of its True entries at ranks ≤ that rank in the same
    list (inclusive). Lets a measure evaluate its per-document term only where documents are relevant.
    """
    s, t, r = np.nonzero(rel)
    cell = s * rel.shape[1] + t
    counts = [np.cumsum(m, axis=-1, dtype=np.int32)[s, t, r].astype(np.float64) for m in masks]
    return cell, r, counts


def cell_sum(cell: np.ndarray, values: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``values`` per cell (in order, like trec_eval's running sums) into an (n_systems, n_topics) array."""
    S, T = shape[:2]
    return np.bincount(cell, weights=values, minlength=S * T).reshape(S, T)


def within_cell_cumsum(cell: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Running sum of ``values`` restarted at each new ``cell`` (``cell`` sorted, as from :func:`at_relevant`).

    Summed in order within each cell (no global running sum, so no rounding carried across cells).
    """
    if cell.size == 0:
        return np.zeros(0)
    first = np.r_[True, cell[1:] != cell[:-1]]
    start = np.maximum.accumulate(np.where(first, np.arange(cell.size), 0))
    pos = np.arange(cell.size) - start  # position within the cell
    row = np.cumsum(first) - 1
    grid = np.zeros((int(row[-1]) + 1, int(pos.max()) + 1))
    grid[row, pos] = values
    return np.cumsum(grid, axis=1)[row, pos]
