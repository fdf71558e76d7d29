"""Cumulated-gain measures besides nDCG: DCG (unnormalised), nCG@k and AnDCG@k (Sakai 2007).

.. math::

    dcg(r) = \\sum_{i=1}^{r} d_i\\, g(x_i), \\qquad
    \\mathrm{DCG}_k = dcg(k), \\qquad
    \\mathrm{nCG}_k = \\frac{cg(k)}{cg^*(k)}, \\qquad
    \\mathrm{AnDCG}_l = \\frac{1}{l} \\sum_{r=1}^{l} \\frac{dcg(r)}{dcg^*(r)}

:math:`g` is the gain of a grade, :math:`d_i` the discount of rank :math:`i`, :math:`cg` the undiscounted
(:math:`d_i = 1`) sum and :math:`^*` the ideal list (every judged document with positive gain, by gain descending,
from the qrels). Unjudged and absent documents have gain 0. A ratio with a zero ideal is 0. nCG is nDCG with the
``"none"`` discount (Järvelin & Kekäläinen 2002); AnDCG averages nDCG over the ranks 1..l (Sakai 2007, eq. 7, with
the Järvelin discount ``"jarvelin(b=2)"`` there; our default is ``"log2"``, as :func:`metrics.ndcg`).

References: Järvelin & Kekäläinen (2002), ACM TOIS 20(4); Sakai (2007), "On the reliability of information retrieval
metrics based on graded relevance", IP&M 43. DCG and nCG reuse :func:`metrics.measures.ndcg.dcg_parts`; DCG with the linear
gain and log2 discount agrees with trec_eval's DCG numerator (checked through nDCG against pytrec_eval).
"""
from __future__ import annotations

import numpy as np

from ._ranked import frame_measure, scored, evaluated_list, safe_divide
from .discounts import DiscountSpec, discount_vector
from .gains import GainSpec, gain_vector
from ..io import JudgedRuns
from .ndcg import dcg_parts, ideal_gains
from gtheory.kit.params import REQUIRED_CUTOFF, validate_params

__all__ = ["dcg", "ncg", "andcg"]


@frame_measure
@validate_params()
def dcg(
    judged: JudgedRuns,
    *,
    gain: GainSpec = "linear",
    discount: DiscountSpec = "log2",
    cutoff: int | None = None,
    judged_only: bool = False,
) -> np.ndarray:
    """Discounted cumulated gain, not normalised (Järvelin & Kekäläinen 2002).

    .. math:: \\mathrm{DCG}_k = \\sum_{r \\le k} d_r\\, g(x_r)

    Parameters
    ----------
    judged : the judged-grade tensor.
    gain, discount : as :func:`metrics.ndcg` (defaults: the grade, :math:`1/\\log_2(r+1)`).
    cutoff : the top ``cutoff`` ranks (default: the whole list).
    judged_only : DCG of the condensed lists.

    Returns
    -------
    pandas.DataFrame
        systems × topics, ≥ 0 for non-negative gains; not comparable across topics.

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import dcg
    >>> j = single_topic([[2, 0, 1]], qrels=[2, 1, 0])   # 2/log2(2) + 1/log2(4)
    >>> float(dcg(j).iloc[0, 0])
    2.5
    """
    v = evaluated_list(judged, judged_only)
    value, _ = dcg_parts(v, gain=gain, discount=discount, cutoff=cutoff)
    return scored(value, judged)


@frame_measure
@validate_params()
def ncg(judged: JudgedRuns, *, gain: GainSpec = "linear", cutoff: int | None = None, judged_only: bool = False) -> np.ndarray:
    """Normalised cumulated gain at ``cutoff`` (Järvelin & Kekäläinen 2002): nDCG without a discount.

    .. math:: \\mathrm{nCG}_k = \\frac{cg(k)}{cg^*(k)}, \\qquad cg(k) = \\sum_{r \\le k} g(x_r)

    Parameters
    ----------
    judged : the judged-grade tensor.
    gain : gain per grade (default ``"linear"``).
    cutoff : k (default: the whole list against the whole ideal list, i.e. a graded recall).
    judged_only : nCG of the condensed lists.

    Returns
    -------
    pandas.DataFrame
        systems × topics in [0, 1].

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import ncg
    >>> j = single_topic([[0, 2, 1]], qrels=[2, 1, 0])   # cg(2) = 2, cg*(2) = 3
    >>> round(float(ncg(j, cutoff=2).iloc[0, 0]), 6)
    0.666667
    """
    v = evaluated_list(judged, judged_only)
    value, ideal = dcg_parts(v, gain=gain, discount="none", cutoff=cutoff)
    return scored(safe_divide(value, ideal[None, :]), judged)


@frame_measure
@validate_params(cutoff=REQUIRED_CUTOFF)
def andcg(
    judged: JudgedRuns,
    *,
    cutoff: int = 1000,
    gain: GainSpec = "linear",
    discount: DiscountSpec = "log2",
    judged_only: bool = False,
) -> np.ndarray:
    """Average nDCG over ranks 1..l (Sakai 2007, eq. 7).

    .. math:: \\mathrm{AnDCG}_l = \\frac{1}{l} \\sum_{r=1}^{l} \\frac{dcg(r)}{dcg^*(r)}

    Parameters
    ----------
    judged : the judged-grade tensor.
    cutoff : l, a positive integer (default 1000, Sakai's :math:`L_0`). Ranks past the end of a list add no gain.
    gain, discount : as :func:`metrics.ndcg`; Sakai (2007) uses ``discount="jarvelin(b=2)"``.
    judged_only : AnDCG of the condensed lists.

    Returns
    -------
    pandas.DataFrame
        systems × topics in [0, 1]; 1 exactly for an ideal list (when the topic has a relevant document).

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import andcg
    >>> j = single_topic([[0, 1]], qrels=[1, 0])   # nDCG@1 = 0, nDCG@2 = (1/log2 3) / 1
    >>> round(float(andcg(j, cutoff=2).iloc[0, 0]), 6)
    0.315465
    """
    ell = cutoff
    v = evaluated_list(judged, judged_only)
    g = gain_vector(gain, v.levels)
    d = discount_vector(discount, ell, cutoff=ell)
    k = min(ell, v.depth)
    run = np.cumsum(v.level_values(g, ranks=k) * d[:k], axis=-1)
    ideal = np.cumsum(ideal_gains(v, g, ell) * d, axis=-1)  # (T, l)
    ratio_sum = safe_divide(run, ideal[None, :, :k]).sum(axis=-1)
    if ell > k:  # past the list's end the run's dcg stays at dcg(k)
        ratio_sum = ratio_sum + (safe_divide(run[..., -1:], ideal[None, :, k:])).sum(axis=-1)
    return scored(ratio_sum / ell, judged)
