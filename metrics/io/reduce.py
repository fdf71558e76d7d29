r"""Reduced qrels: the judged-grade tensor under a random fraction of its judgments.

:func:`reduction_mask` / :func:`reduce_qrels` keep, per topic, a share :math:`f` of the judged relevant and
judged non-relevant documents, by the sampling of Buckley & Voorhees [1]_ as used by Bompada et al. [2]_ and
Sakai & Kando [3]_; the result is a :class:`~metrics.JudgedRuns` on which any measure is recomputed directly (via
the tensor's per-topic document ids: no run or qrels file is read again). The incompleteness study built on it
is :mod:`experiments.incomplete`.

Sampling (Buckley & Voorhees 2004, §3)
--------------------------------------
For each topic, the judged relevant documents (grade :math:`\ge` ``relevance_level``, default 1) and the
judged non-relevant documents (every other judged document, *including negative grades*: a -2 "spam"
judgment is a judgment of non-relevance and is sampled, kept or dropped like a 0) are put in two random
orders. The :math:`f`-qrels keep the first

.. math::

    R_f = \min\bigl(R,\ \max(1, \lceil fR \rceil)\bigr), \qquad
    N_f = \min\bigl(N,\ \max(10, \lceil fN \rceil)\bigr)

documents of each order (Bompada et al. [2]_ §4 give :math:`\lceil\cdot\rceil`; ``rounding="round"`` and
``"floor"`` are available; the minimums 1 and 10 are Buckley & Voorhees'). As one order per seed serves
every :math:`f`, the :math:`f`-qrels are *nested*: :math:`f < f'` implies :math:`f`-qrels
:math:`\subseteq f'`-qrels. Stratified sampling of this kind is essentially random sampling from the whole
judged set (Yilmaz & Aslam [4]_). Dropped judgments become *unjudged* (:data:`metrics.UNJUDGED`): a
measure treats them as it treats any unjudged document (non-relevant in the plain list, removed in the
condensed list).

References
----------
.. [1] C. Buckley and E. M. Voorhees. Retrieval evaluation with incomplete information. SIGIR 2004, pp. 25-32.
.. [2] T. Bompada, C.-C. Chang, J. Chen, R. Kumar and R. Shenoy. On the robustness of relevance measures with
   incomplete judgments. SIGIR 2007, pp. 359-366.
.. [3] T. Sakai and N. Kando. On information retrieval metrics designed for evaluation with incomplete
   relevance assessments. Information Retrieval 11(5), 2008, pp. 447-470.
.. [4] E. Yilmaz and J. A. Aslam. Estimating average precision with incomplete and imperfect judgments.
   CIKM 2006, pp. 102-111.
"""
from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, Literal, Sequence

import numpy as np

from .judged import JudgedRuns, check_judged
from gtheory.kit.params import ANY_LEVEL, PARAMS, check_param, one_or_many, validate_params

__all__ = ["reduction_mask", "reduce_qrels", "Rounding", "check_fractions", "stratify", "reduction_masks"]

Rounding = Literal["ceil", "round", "floor"]


# ================================================================================================ sampling
#: each of `fractions`: the table's rule of `fraction`
_FRACTION = PARAMS["fraction"].with_fix("give shares of judgments to keep, e.g. `fractions=[1.0, 0.5, 0.1]`")


def check_fractions(fractions: Any) -> tuple[float, ...]:
    """The shares of judgments to keep, checked and sorted from largest to smallest: a non-empty sequence of
    distinct numbers in (0, 1], each by the table's rule of ``fraction``."""
    if isinstance(fractions, (Real, str)) or fractions is None:
        raise TypeError(f"`fractions` must be a sequence of numbers in (0, 1]; got {fractions!r}.")
    fs = [check_param("fractions", f, _FRACTION) for f in fractions]
    if not fs:
        raise ValueError("`fractions` must not be empty.")
    if len(set(fs)) != len(fs):
        raise ValueError(f"`fractions` must be distinct; got {fs}.")
    return tuple(sorted(fs, reverse=True))


@dataclass(frozen=True)
class _Strata:
    """One random order of each topic's judged relevant and non-relevant documents (one seed)."""

    stratum: np.ndarray  # per judged doc: 2 * topic + (0 relevant | 1 non-relevant)
    rank: np.ndarray  # per judged doc: its position (0-based) in its stratum's random order
    counts: np.ndarray  # (2 * n_topics,) documents per stratum: R_0, N_0, R_1, N_1, ...


def stratify(judged: JudgedRuns, rng: np.random.Generator, relevance_level: float) -> _Strata:
    """Random order within each (topic, relevant/non-relevant) stratum, vectorised over all topics.

    One global random permutation gives every judged document a distinct key; a lexicographic sort by
    (stratum, key) then lists each stratum's documents in uniformly random order, and a document's rank is
    its position in that order minus the stratum's start.
    """
    n = judged.qrels_level.size
    topic_of = np.repeat(np.arange(judged.n_topics, dtype=np.int64), np.diff(judged.qrels_offsets))
    relevant = judged.levels[judged.qrels_level] >= relevance_level
    stratum = 2 * topic_of + (~relevant)
    key = rng.permutation(n)
    order = np.lexsort((key, stratum))
    counts = np.bincount(stratum, minlength=2 * judged.n_topics)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - starts[stratum[order]]
    return _Strata(stratum, rank, counts)


def _quota(counts: np.ndarray, f: float, minimums: np.ndarray, rounding: str) -> np.ndarray:
    """Documents kept per stratum: min(count, max(minimum, rounding(f * count)))."""
    x = np.round(f * counts, 9)  # 0.7 * 10 = 7.000000000000001 must count as 7
    if rounding == "ceil":
        k = np.ceil(x)
    elif rounding == "round":
        k = np.floor(x + 0.5)  # half up
    else:
        k = np.floor(x)
    return np.minimum(counts, np.maximum(minimums, k)).astype(np.int64)


def reduction_masks(
    judged: JudgedRuns,
    strata: _Strata,
    fractions: Sequence[float],
    min_relevant: int,
    min_nonrelevant: int,
    rounding: str,
) -> np.ndarray:
    r"""Which judged documents each fraction keeps: a boolean array
    (fractions × judged documents, in qrels order). In each (topic, relevant / non-relevant) stratum of ``strata``
    with :math:`N` documents, fraction :math:`f` keeps the first :math:`\min(N, \max(m, r(fN)))` documents of the
    stratum's random order, :math:`m` = ``min_relevant`` or ``min_nonrelevant`` and :math:`r` = ``rounding``
    (floor, ceil or half up) — stratified sampling of the judgments as in :func:`metrics.reduce_qrels`. The
    masks are nested: a smaller fraction keeps a subset of what a larger one keeps (same order)."""
    minimums = np.tile([min_relevant, min_nonrelevant], judged.n_topics)
    out = np.empty((len(fractions), strata.rank.size), dtype=bool)
    for i, f in enumerate(fractions):
        out[i] = strata.rank < _quota(strata.counts, f, minimums, rounding)[strata.stratum]
    return out


@validate_params(fraction=one_or_many(PARAMS["fraction"]), relevance_level=ANY_LEVEL)
def reduction_mask(
    judged: JudgedRuns,
    fraction: float | Sequence[float],
    seed: int | np.random.Generator | None = 0,
    *,
    relevance_level: float = 1,
    min_relevant: int = 1,
    min_nonrelevant: int = 10,
    rounding: Rounding = "ceil",
) -> np.ndarray:
    r"""Which judgments the :math:`f`-qrels keep (Buckley & Voorhees sampling [1]_ [2]_ [3]_).

    Parameters
    ----------
    judged : metrics.JudgedRuns
        The judged-grade tensor with the full qrels.
    fraction : float or sequence of floats
        Share(s) :math:`f \in (0, 1]` of each topic's judged relevant and non-relevant documents to keep.
    seed : int, Generator or None
        Randomness (:func:`numpy.random.default_rng`); the same seed gives the same random orders, so the
        masks for several fractions drawn with one seed are nested.
    relevance_level : float
        Judged documents with grade :math:`\ge` this are *relevant* (trec_eval's ``-l``); all others,
        negative grades included, are *non-relevant*.
    min_relevant, min_nonrelevant : int
        Buckley & Voorhees' minimums (1 and 10), capped at what the topic has.
    rounding : {"ceil", "round", "floor"}
        How :math:`fR` and :math:`fN` become counts: Bompada et al.'s :math:`\lceil\cdot\rceil` (default),
        half-up rounding, or truncation.

    Returns
    -------
    ndarray of bool
        Over the judged documents in ``judged.qrels_level`` order: shape ``(n_judged,)`` for one fraction,
        ``(n_fractions, n_judged)`` for a sequence (rows in the order given).

    Notes
    -----
    Per topic with :math:`R` relevant and :math:`N` non-relevant judged documents, the first
    :math:`R_f = \min(R, \max(1, \lceil fR\rceil))` of a random order of the relevant and the first
    :math:`N_f = \min(N, \max(10, \lceil fN\rceil))` of a random order of the non-relevant are kept (module
    docstring). Vectorised: one random key per judged document and one lexicographic sort by (topic,
    class, key), no loop over topics or documents.

    Examples
    --------
    >>> import metrics
    >>> from metrics import reduction_mask
    >>> j = metrics.load_trec9()
    >>> m = reduction_mask(j, [0.5, 0.1], seed=1)
    >>> m.shape == (2, j.qrels_level.size)
    True
    >>> bool((m[1] <= m[0]).all())      # nested: the 10 % qrels lie inside the 50 % qrels
    True
    """
    judged = check_judged(judged)
    scalar = not isinstance(fraction, list)  # the parameter table gives a float or a list of floats
    fractions = [fraction] if scalar else fraction
    rng = np.random.default_rng(seed)
    strata = stratify(judged, rng, relevance_level)
    masks = reduction_masks(judged, strata, fractions, min_relevant, min_nonrelevant, rounding)
    return masks[0] if scalar else masks


@validate_params(relevance_level=ANY_LEVEL)
def reduce_qrels(
    judged: JudgedRuns,
    fraction: float,
    seed: int | np.random.Generator | None = 0,
    *,
    relevance_level: float = 1,
    min_relevant: int = 1,
    min_nonrelevant: int = 10,
    rounding: Rounding = "ceil",
) -> JudgedRuns:
    r"""The judged-grade tensor under the :math:`f`-qrels (Buckley & Voorhees [1]_; Bompada et al. [2]_).

    Keeps, per topic, :math:`\min(R, \max(1, \lceil fR\rceil))` judged relevant and
    :math:`\min(N, \max(10, \lceil fN\rceil))` judged non-relevant documents, drawn at random
    (see :func:`reduction_mask` for the parameters and the module docstring for the procedure); every other
    judgment is forgotten with :meth:`metrics.JudgedRuns.restrict_judgments`, so the documents become
    unjudged wherever a run retrieved them. Nothing is re-read: the tensor's per-topic document ids carry it.

    Returns
    -------
    metrics.JudgedRuns
        ``report["reduction"]`` records the fraction, seed (if an int), minimums, rounding and relevance
        level. For ``fraction=1`` the judged set is unchanged and the grades are identical.

    Examples
    --------
    >>> import metrics
    >>> from metrics import reduce_qrels
    >>> j = metrics.load_trec9()
    >>> r = reduce_qrels(j, 0.3, seed=0)
    >>> bool((r.n_relevant() <= j.n_relevant()).all()), bool((r.n_nonrelevant() >= 10).all())
    (True, True)
    """
    mask = reduction_mask(
        judged,
        fraction,
        seed,
        relevance_level=relevance_level,
        min_relevant=min_relevant,
        min_nonrelevant=min_nonrelevant,
        rounding=rounding,
    )
    return _apply_mask(
        judged, mask, fraction=float(fraction), seed=seed if isinstance(seed, Integral) else None,
        relevance_level=relevance_level, min_relevant=min_relevant, min_nonrelevant=min_nonrelevant,
        rounding=rounding,
    )


def _apply_mask(judged: JudgedRuns, mask: np.ndarray, **info: Any) -> JudgedRuns:
    out = judged.restrict_judgments(mask)
    out.report["reduction"] = dict(info)
    return out
