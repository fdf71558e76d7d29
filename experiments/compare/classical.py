r"""The classical paired tests of :func:`experiments.compare`, one function each (declared in
:mod:`experiments.compare.registry`): the paired t-test, the sign test and the Wilcoxon signed-rank test, whose null
distributions are known in closed form or enumerated (no resampling). Each takes a
:class:`~experiments.compare.registry.PairsInput` (standardised differences, with the zeros and ties of exact
arithmetic) and returns a :class:`~experiments.compare.registry.PairsOutcome`, as the resampling tests of
:mod:`experiments.compare.resampling` do.
"""
from __future__ import annotations

import numpy as np

from .registry import PairsInput, PairsOutcome

__all__ = ["t_test", "sign_test", "wilcoxon"]


def t_test(inp: PairsInput) -> PairsOutcome:
    r"""Paired t-test, :math:`t = \bar d / (s_d/\sqrt n)` on n - 1 df (:func:`scipy.stats.ttest_rel`): 0/0 -> t = 0,
    p = 1; c/0 -> t = +-inf, p = 0; means and spreads at rounding level are 0. The tail is
    :func:`scipy.special.stdtr`, the function ``scipy.stats.t.sf`` evaluates (without importing scipy.stats)."""
    from scipy.special import stdtr

    from experiments.discriminative import _studentise

    D = inp.D
    n = D.shape[1]
    t = _studentise(D.mean(axis=1), D.var(axis=1, ddof=1), n, np.abs(D).max(axis=1))
    p = np.where(t == 0, 1.0, 2.0 * stdtr(n - 1, -np.abs(t)))
    return PairsOutcome(t, np.minimum(p, 1.0))


def sign_test(inp: PairsInput) -> PairsOutcome:
    """Sign test: the positive differences among the non-zero ones are Binomial(n', 1/2) under H0; two-sided p is
    twice the smaller tail, capped at 1 (:func:`scipy.stats.binomtest`'s rule at p = 1/2)."""
    from scipy import stats

    D = inp.D
    pos = np.count_nonzero(D > 0, axis=1)
    nz = np.count_nonzero(D != 0, axis=1)
    k = np.minimum(pos, nz - pos)
    p = np.where(nz == 0, 1.0, np.minimum(1.0, 2.0 * stats.binom.cdf(k, np.maximum(nz, 1), 0.5)))
    most = int(nz.max()) if len(nz) else 0
    # the smallest p: all n' non-zero differences of one sign (no non-zero difference at all: nothing to floor)
    return PairsOutcome(pos.astype(float), p, p_floor=min(1.0, 2.0 * 0.5 ** most) if most else 0.0)


def wilcoxon(inp: PairsInput) -> PairsOutcome:
    """Wilcoxon signed-rank test per pair (:func:`experiments.compare.pairwise_tests._wilcoxon_rows`), R's ``wilcox.test``
    rule: the exact null distribution for n < 50 non-zero differences without zeros or ties, else the normal
    approximation, with the continuity correction when ``continuity_correction`` (R's default). SciPy's
    ``method="auto"`` differs at exactly n = 50, where it takes the exact distribution."""
    from .pairwise_tests import WILCOXON_EXACT_BELOW, _wilcoxon_rows

    D = inp.D
    stat, p = _wilcoxon_rows(D, "wilcox", "auto", inp.continuity_correction)
    # the exact null distribution (every row: n < 50, no zero, no tie) cannot go below 2/2^n (all differences of
    # one sign); the normal approximation has no such floor
    sorted_abs = np.sort(np.abs(D), axis=1)
    clean = ~np.any(D == 0, axis=1) & ~np.any(np.diff(sorted_abs, axis=1) == 0, axis=1)
    n = D.shape[1]
    floor = 2.0 / 2 ** n if n < WILCOXON_EXACT_BELOW and len(D) and clean.all() else 0.0
    return PairsOutcome(stat, p, p_floor=floor)
