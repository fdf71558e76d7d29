"""Q-measure and R-measure (Sakai 2004, 2007): graded-relevance AP and R-precision through the blended ratio.

.. math::

    \\mathrm{BR}(r) = \\frac{\\beta\\, cg(r) + \\mathrm{count}(r)}{\\beta\\, cg^*(r) + r}, \\qquad
    Q = \\frac{1}{R} \\sum_{r=1}^{n} \\mathrm{isrel}(r)\\, \\mathrm{BR}(r), \\qquad
    \\text{R-measure} = \\mathrm{BR}(R)

:math:`\\mathrm{isrel}(r) = [x_r \\ge \\ell]`, :math:`\\mathrm{count}(r)` the relevant documents in the top
:math:`r`, :math:`cg(r) = \\sum_{i \\le r} g(x_i)` the cumulative gain of the list and :math:`cg^*(r)` that of the
ideal list (every relevant judged document, by gain descending; constant after rank R). Only relevant documents
carry gain (levels below :math:`\\ell` get 0). :math:`\\beta \\ge 0` weighs gain against position: :math:`\\beta = 0`
gives AP and R-precision exactly; with one relevance grade, :math:`Q = \\mathrm{AP}` when no relevant document lies
below rank R and Q > AP otherwise; Q = 1 exactly for an ideal list. Both are 0 when R = 0. Q′ (``judged_only``) is Q
on the condensed list (Sakai 2007; Sakai & Kando 2008).

References: Sakai (2004), "New performance metrics based on multigrade relevance", NTCIR-4; Sakai (2007), "On the
reliability of information retrieval metrics based on graded relevance", IP&M 43 (§2.2); Sakai & Kando (2008), IRJ
11. Checked against AP / R-precision at β = 0 and hand computation.
"""
from __future__ import annotations

import numpy as np

from ._ranked import frame_measure, scored, at_relevant, cell_sum, within_cell_cumsum, evaluated_list, level_mask, relevant_levels, safe_divide
from .gains import GainSpec, gain_vector
from ..io import JudgedRuns
from .ndcg import ideal_gains
from gtheory.kit.params import validate_params

__all__ = ["q_measure", "r_measure"]


def _check_beta(beta: float) -> float:
    if isinstance(beta, bool) or not isinstance(beta, (int, float, np.integer, np.floating)):
        raise TypeError(f"`beta` must be a number; got {type(beta).__name__}")
    if not (np.isfinite(beta) and beta >= 0):
        raise ValueError(f"`beta` must be a finite number ≥ 0; got {beta!r}")
    return float(beta)


def _gains(v: JudgedRuns, gain: GainSpec, rl: float) -> np.ndarray:
    """Per-level gains: those of ``gain`` on the relevant levels (checked ≥ 0), 0 on the others."""
    rel_levels = relevant_levels(v, rl)
    g = gain_vector(gain, v.levels)
    if (g[rel_levels] < 0).any():
        raise ValueError(f"Q/R-measure need non-negative gains; `gain` gives {dict(zip(v.levels.tolist(), g.tolist()))}")
    return np.where(rel_levels, g, 0.0)


@frame_measure
@validate_params()
def q_measure(
    judged: JudgedRuns, *, beta: float = 1.0, gain: GainSpec = "linear", relevance_level: float = 1, judged_only: bool = False
) -> np.ndarray:
    """Q-measure of every system on every topic.

    .. math:: Q = \\frac{1}{R} \\sum_{r} [x_r \\ge \\ell]\\, \\frac{\\beta\\, cg(r) + \\mathrm{count}(r)}{\\beta\\, cg^*(r) + r}

    Parameters
    ----------
    judged : the judged-grade tensor.
    beta : weight of the cumulative gain, ≥ 0 (default 1; 0 gives AP).
    gain : gain per grade for the relevant grades (:func:`metrics.measures.gains.gain_vector`; default ``"linear"``, the grade,
        which for grades 1, 2, 3 are Sakai's B, A, S gains 1, 2, 3).
    relevance_level : grades ≥ this are relevant (count towards R and ``count(r)``; default 1).
    judged_only : Q′, on the condensed lists.

    Returns
    -------
    pandas.DataFrame
        systems × topics in [0, 1].

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import q_measure
    >>> j = single_topic([[0, 2, 1]], qrels=[2, 1, 0])   # cg* = 2, 3, 3
    >>> # r=2: (2 + 1)/(3 + 2) = 0.6; r=3: (3 + 2)/(3 + 3) = 5/6; Q = (0.6 + 5/6) / 2
    >>> round(float(q_measure(j).iloc[0, 0]), 6)
    0.716667
    """
    beta = _check_beta(beta)
    rl = relevance_level
    v = evaluated_list(judged, judged_only)
    g = _gains(v, gain, rl)
    isrel = level_mask(v, relevant_levels(v, rl))
    cell, r, (count,) = at_relevant(isrel, isrel)
    # only relevant documents carry gain, so cg(r) is the running sum of the relevant documents' gains
    s_, t_ = np.divmod(cell, v.n_topics)
    cg = within_cell_cumsum(cell, g[v.grades[s_, t_, r]])
    cg_ideal = np.cumsum(ideal_gains(v, g, v.depth), axis=-1)[t_, r]
    br = (beta * cg + count) / (beta * cg_ideal + (r + 1.0))
    total = cell_sum(cell, br, isrel.shape)
    return scored(safe_divide(total, v.n_relevant(rl)[None, :]), judged)


@frame_measure
@validate_params()
def r_measure(
    judged: JudgedRuns, *, beta: float = 1.0, gain: GainSpec = "linear", relevance_level: float = 1, judged_only: bool = False
) -> np.ndarray:
    """R-measure: the blended ratio at rank R.

    .. math:: \\text{R-measure} = \\frac{\\beta\\, cg(R) + \\mathrm{count}(R)}{\\beta\\, cg^*(R) + R}

    Parameters
    ----------
    judged, beta, gain, relevance_level, judged_only : as :func:`q_measure`. With β = 0, or a single relevance
        grade, R-measure equals R-precision.

    Returns
    -------
    pandas.DataFrame
        systems × topics in [0, 1]; 0 when R = 0.

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import r_measure
    >>> j = single_topic([[1, 2, 0]], qrels=[2, 1, 0])   # R = 2: (3 + 2) / (3 + 2)
    >>> float(r_measure(j).iloc[0, 0])
    1.0
    """
    beta = _check_beta(beta)
    rl = relevance_level
    v = evaluated_list(judged, judged_only)
    g = _gains(v, gain, rl)
    R = v.n_relevant(rl)
    K = max(int(R.max(initial=0)), 1)
    k = min(K, v.depth)  # count and cg stay constant past the end of the list
    count = np.cumsum(level_mask(v, relevant_levels(v, rl))[..., :k], axis=-1, dtype=np.int64).astype(np.float64)
    cg = np.cumsum(v.level_values(g)[..., :k], axis=-1)
    cg_ideal = np.cumsum(ideal_gains(v, g, K), axis=-1)
    idx = np.clip(R - 1, 0, None)
    topics = np.arange(R.size)
    c = count[:, topics, np.minimum(idx, k - 1)]
    g_run = cg[:, topics, np.minimum(idx, k - 1)]
    g_ideal = cg_ideal[topics, idx]
    value = np.where(R[None, :] > 0, (beta * g_run + c) / (beta * g_ideal[None, :] + np.maximum(R, 1)[None, :]), 0.0)
    return scored(value, judged)
