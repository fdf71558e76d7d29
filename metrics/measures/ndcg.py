"""nDCG with any gain vector (per grade) and any discount vector (per rank).

.. math::

    \\mathrm{DCG}_k(s, t) = \\sum_{r=1}^{k} d_r\\, g(x_{s,t,r}), \\qquad
    \\mathrm{nDCG}_k(s, t) = \\frac{\\mathrm{DCG}_k(s, t)}{\\mathrm{IDCG}_k(t)}, \\qquad
    \\mathrm{IDCG}_k(t) = \\sum_{r=1}^{k} d_r\\, g(x^*_{t,r})

where :math:`x_{s,t,r}` is the grade of the document system :math:`s` ranks at :math:`r` for topic :math:`t`
(unjudged and absent documents have gain 0), and :math:`x^*_t` is the ideal ranking: every judged document with a
positive gain, sorted by gain descending (trec_eval's ideal). Without a cut-off, DCG runs over the whole ranked list
and IDCG over every positive-gain judged document (trec_eval ``ndcg``); with cut-off :math:`k` both stop at
:math:`k` (trec_eval ``ndcg_cut.k``). IDCG = 0 gives nDCG = 0, as in trec_eval. ``judged_only=True`` evaluates the
condensed list (Sakai 2007's nDCG′; trec_eval ``-J``).

References: Järvelin & Kekäläinen (2002), "Cumulated gain-based evaluation of IR techniques", ACM TOIS 20(4);
Kanoulas & Aslam (2009), "Empirical justification of the gain and discount function for nDCG", CIKM.
"""
from __future__ import annotations

import numpy as np

from ._ranked import frame_measure
from .discounts import DiscountSpec
from .gains import GainSpec
from .sparse import relevant_cells
from gtheory.kit.errors import FixableError
from ..io import JudgedRuns
from gtheory.kit.params import validate_params

__all__ = ["ndcg", "dcg_parts", "ideal_gains"]


def ideal_gains(judged: JudgedRuns, gains: np.ndarray, k: int) -> np.ndarray:
    """(n_topics, k) gains of the ideal ranking at ranks 1..k for per-level ``gains``.

    The ideal ranking lists every judged document with positive gain, by gain descending; built from the per-topic
    grade counts, vectorised: :math:`g^*_{t,r} = \\sum_j (g_j - g_{j+1})[r \\le c_{t,j}]` with levels sorted by gain
    and :math:`c_{t,j}` the cumulative counts.
    """
    gains = np.asarray(gains, dtype=np.float64)
    pos = np.flatnonzero(gains > 0)
    if pos.size == 0 or k == 0:
        return np.zeros((judged.n_topics, k))
    order = pos[np.argsort(-gains[pos], kind="stable")]
    gs = gains[order]
    cum = judged.level_counts[:, order].cumsum(axis=1)  # (T, J)
    steps = gs - np.r_[gs[1:], 0.0]
    r = np.arange(k)
    return np.einsum("j,tjr->tr", steps, (r[None, None, :] < cum[:, :, None]).astype(np.float64))


@validate_params()
def dcg_parts(
    judged: JudgedRuns,
    *,
    gain: GainSpec = "linear",
    discount: DiscountSpec = "log2",
    cutoff: int | None = None,
    judged_only: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """DCG (n_systems, n_topics) and IDCG (n_topics,) as arrays; see :func:`ndcg` for the parameters.

    Computed on the sparse view of the tensor (:mod:`metrics.measures.sparse`): DCG as
    :math:`\\sum_l g_l C^{(l)}` from the per-grade discounted counts of the documents whose gain is non-zero, IDCG
    from the per-topic grade counts and the discount's prefix sums; no (cells × cut-off) array is built.
    """
    rc = relevant_cells(judged, judged_only)
    g = rc.gains(gain)
    k_run = rc.depth if cutoff is None else min(int(cutoff), rc.depth)
    counts = rc.level_counts
    if cutoff is None:
        k_ideal = int(counts[:, g > 0].sum(axis=1).max(initial=0))
    else:
        k_ideal = int(cutoff)
    k_ideal = min(k_ideal, rc.max_judged)
    d = rc.discount(discount, max(k_run, k_ideal), cutoff)
    _check_range(g, d[:max(k_run, k_ideal)])
    return rc.dcg(g, d[:k_run]), rc.ideal_dcg(g, d[:k_ideal])


def _check_range(g: np.ndarray, d: np.ndarray) -> None:
    """Refuse gains and discounts whose DCG can overflow: :math:`|\\mathrm{DCG}| \\le \\max_l |g_l| \\sum_r |d_r|`;
    beyond double precision DCG and IDCG are infinite and nDCG = inf/inf comes out NaN for every cell."""
    with np.errstate(over="ignore"):
        largest, total = float(np.max(np.abs(g), initial=0.0)), float(np.sum(np.abs(d)))
        bound = largest * total
    if not np.isfinite(bound):
        raise FixableError(
            f"the gains (largest {largest:.3g}) times the discount weights (sum {total:.3g}) overflow double precision: DCG and its ideal would be infinite and "
            "every nDCG NaN. Rescale the gains or the discount (divide by their largest value): nDCG does not "
            "depend on the scale of either.", param="gain" if largest >= total else "discount")


@frame_measure
@validate_params()
def ndcg(
    judged: JudgedRuns,
    *,
    gain: GainSpec = "linear",
    discount: DiscountSpec = "log2",
    cutoff: int | None = None,
    judged_only: bool = False,
) -> np.ndarray:
    """nDCG of every system on every topic, with any gain and discount.

    Parameters
    ----------
    judged : the judged-grade tensor (:func:`metrics.judge`).
    gain : per-grade gains: ``"linear"`` (the grade; default), ``"exponential"`` (:math:`2^x - 1`), ``"binary"``, a
        vector indexed by grade, a ``{grade: gain}`` mapping or a callable (see :func:`metrics.measures.gains.gain_vector`).
        Real-valued gains are used exactly.
    discount : per-rank weights: ``"log2"`` (:math:`1/\\log_2(r+1)`, default), ``"jarvelin(b=2)"``, ``"zipf"``,
        ``"linear"``, ``"none"``, ``"rbp(p=0.8)"`` or a vector (``d[r-1]`` weighs rank r; ranks past its end
        weigh 0).
    cutoff : evaluate the top ``cutoff`` ranks (DCG and IDCG both truncated, trec_eval ``ndcg_cut``); ``None``
        evaluates the whole list against the full ideal ranking (trec_eval ``ndcg``).
    judged_only : evaluate the condensed list (unjudged documents removed first; nDCG′, trec_eval ``-J``).

    Returns
    -------
    pandas.DataFrame
        systems × topics, in [0, 1] for non-negative gains and non-increasing discounts. With the
        ``missing="exclude"`` policy, topics a run did not return are NaN.

    Notes
    -----
    :math:`\\mathrm{nDCG}_k = \\sum_{r \\le k} d_r g(x_r) / \\sum_{r \\le k} d_r g(x^*_r)` (module docstring);
    agrees with trec_eval ``ndcg`` / ``ndcg_cut.k`` (``-J`` for ``judged_only``) to 1e-12 for integer grades.

    Examples
    --------
    >>> import metrics
    >>> j = metrics.load_trec9()
    >>> metrics.ndcg(j, gain=[0, 1, 2], discount="zipf", cutoff=100).shape
    (104, 50)
    """
    return ndcg_values(judged, gain=gain, discount=discount, cutoff=cutoff, judged_only=judged_only)


def ndcg_values(
    judged: JudgedRuns,
    *,
    gain: GainSpec = "linear",
    discount: DiscountSpec = "log2",
    cutoff: int | None = None,
    judged_only: bool = False,
) -> np.ndarray:
    """:func:`ndcg` as a float64 (n_systems, n_topics) array without labels (NaN as ``ndcg`` gives it), for loops
    over many configurations (:func:`experiments.sweep`)."""
    dcg, idcg = dcg_parts(judged, gain=gain, discount=discount, cutoff=cutoff, judged_only=judged_only)
    out = np.zeros(dcg.shape)
    np.divide(dcg, idcg[None, :], out=out, where=idcg[None, :] > 0)
    if judged.missing == "exclude":
        out[~judged.retrieved] = np.nan
    return out
