"""Rank-biased precision (RBP) and its residual, graded via gain / maximum gain.

.. math::

    \\mathrm{RBP}_p(s, t) = (1 - p) \\sum_{r=1}^{k} p^{\\,r-1}\\, \\frac{g(x_{s,t,r})}{g_{\\max}}, \\qquad
    \\mathrm{residual}_p(s, t) = (1 - p) \\sum_{r \\le n:\\ x_r \\text{ unjudged}} p^{\\,r-1} \\;+\\; p^{\\,n}

:math:`p \\in (0, 1)` is the user's persistence, :math:`g` the gain of a grade and :math:`g_{\\max}` the largest gain
of any grade in the qrels (the highest relevance level across all topics, Sakai & Kando 2008 eq. 9), so a document
of the top grade weighs 1; unjudged and absent documents have gain 0. :math:`n` is the length of the list (at most
the cut-off :math:`k`). The residual is the most RBP could still grow if every unjudged document had the top grade
and the list went on, beyond its end, with top-grade documents (Moffat & Zobel 2008, §5): the true value lies in
:math:`[\\mathrm{RBP}, \\mathrm{RBP} + \\mathrm{residual}]`. Pooled-but-unjudged documents (negative grades) count
as unjudged.

For an ideal list of R equally relevant documents, :math:`\\mathrm{RBP} = 1 - p^R`: with :math:`p = 0.95`, .4013
for R = 10 and .9941 for R = 100; :math:`1 - p` for R = 1 (Sakai & Kando 2008, Table 1).

References: Moffat & Zobel (2008), "Rank-biased precision for measurement of retrieval effectiveness", ACM TOIS
27(1); Sakai & Kando (2008), IRJ 11. trec_eval's ``rbp_resid`` (development code, p fixed at 0.9) reports 0 when no
retrieved document is unjudged, dropping the :math:`p^n` tail; we keep it, as Moffat & Zobel define it.
"""
from __future__ import annotations

import numpy as np

from ._ranked import frame_measure, scored, evaluated_list, level_mask, list_length
from .gains import GainSpec, gain_vector
from ..io import JudgedRuns, pooled_unjudged
from gtheory.kit.params import validate_params

__all__ = ["rbp", "rbp_residual"]


def _check_p(p: float) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)):
        raise TypeError(f"`p` must be a number; got {type(p).__name__}")
    if not 0 < float(p) < 1:
        raise ValueError(f"`p` (persistence) must be in (0, 1); got {p!r}")
    return float(p)


def _weights(judged: JudgedRuns, gain: GainSpec) -> np.ndarray:
    g = gain_vector(gain, judged.levels)
    if (g < 0).any():
        raise ValueError(f"RBP needs non-negative gains; `gain` gives {dict(zip(judged.levels.tolist(), g.tolist()))}")
    top = g.max(initial=0.0)
    return g / top if top > 0 else g


@frame_measure
@validate_params()
def rbp(
    judged: JudgedRuns, *, p: float = 0.8, gain: GainSpec = "linear", cutoff: int | None = None, judged_only: bool = False
) -> np.ndarray:
    """Rank-biased precision, graded by gain / maximum gain (Moffat & Zobel 2008; Sakai & Kando 2008, eq. 9).

    .. math:: \\mathrm{RBP}_p = (1 - p) \\sum_{r \\le k} p^{\\,r-1}\\, \\frac{g(x_r)}{g_{\\max}}

    Parameters
    ----------
    judged : the judged-grade tensor.
    p : persistence, in (0, 1) (default 0.8).
    gain : gain per grade (:func:`metrics.measures.gains.gain_vector`): ``"linear"`` (default: grade / top grade),
        ``"binary(level=l)"`` (binary RBP at relevance level l), ``"exponential"``, a vector, mapping or callable.
    cutoff : evaluate the top ``cutoff`` ranks only (default: the whole list).
    judged_only : RBP on the condensed lists.

    Returns
    -------
    pandas.DataFrame
        systems × topics in [0, 1].

    Examples
    --------
    Sakai & Kando (2008), Table 1: an ideal list for a topic with 10 relevant documents, p = 0.95.

    >>> from metrics._toy import single_topic
    >>> from metrics import rbp
    >>> round(float(rbp(single_topic([[1] * 10], qrels=[1] * 10), p=0.95).iloc[0, 0]), 4)
    0.4013
    """
    p = _check_p(p)
    k = cutoff
    v = evaluated_list(judged, judged_only)
    w = v.level_values(_weights(v, gain))
    if k is not None and k < v.depth:
        w = w[..., :k]
    disc = np.power(p, np.arange(w.shape[-1], dtype=np.float64))
    return scored((1.0 - p) * (w @ disc), judged)


@frame_measure
@validate_params()
def rbp_residual(
    judged: JudgedRuns, *, p: float = 0.8, cutoff: int | None = None, judged_only: bool = False
) -> np.ndarray:
    """The residual of RBP: how much it could grow if the unjudged documents and the unseen tail were top-grade.

    .. math:: \\mathrm{residual}_p = (1 - p) \\sum_{r \\le n:\\ x_r \\text{ unjudged}} p^{\\,r-1} + p^{\\,n}

    with :math:`n` the length of the list, at most ``cutoff``. Does not depend on the gains.

    Parameters
    ----------
    judged, p, cutoff, judged_only : as :func:`rbp`. On condensed lists only the tail term remains.

    Returns
    -------
    pandas.DataFrame
        systems × topics in [0, 1]; ``rbp + rbp_residual ≤ 1``. A topic the run did not return has residual 1
        (nothing is known) under ``missing="zero"``, NaN under ``"exclude"``.

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import rbp_residual
    >>> j = single_topic([[1, None, 0]], qrels=[1, 0])   # 0.5 * 0.5 + 0.5 ** 3
    >>> float(rbp_residual(j, p=0.5).iloc[0, 0])
    0.375
    """
    p = _check_p(p)
    k = cutoff
    v = evaluated_list(judged, judged_only)
    unj = level_mask(v, pooled_unjudged(v.levels), unjudged=True)
    if k is not None and k < v.depth:
        unj = unj[..., :k]
    disc = np.power(p, np.arange(unj.shape[-1], dtype=np.float64))
    n = list_length(v)
    if k is not None:
        n = np.minimum(n, k)
    return scored((1.0 - p) * (unj @ disc) + np.power(p, n), judged)
