r"""Tier 1 of :func:`optimize.recommend`: the fixed configurations (the baseline and the other standards) compared
with the baseline on *all* topics, by a paired topic bootstrap of the Φ(1) difference.

A fixed configuration needs no fitting half: every topic can serve as evidence. For configurations
:math:`c = 0, 1, \dots, m` (0 the baseline) with systems × topics scores :math:`X_c`, the statistic is
:math:`\Delta_c = \Phi_c(1) - \Phi_0(1)` on all :math:`T` topics. Its sampling distribution over topic sets is
estimated by the paired topic bootstrap: ``n_resamples`` resamples of the :math:`T` topics with replacement, the
*same* resampled topics for every configuration (topics resampled jointly, systems fixed — the topic is the unit
of the G-study's generalisation, Brennan 2001 §6; Efron & Tibshirani 1993 §16.4 for the paired bootstrap), and on
each resample :math:`\Delta^*_c` from the G-study of the resampled matrices.

The multiplicity of choosing among :math:`m` alternatives is controlled by Bonferroni: alternative :math:`c`'s
one-sided lower bound is the :math:`\alpha/m` quantile of :math:`\Delta^*_c` (percentile bootstrap), with
:math:`\alpha = (1 -` ``level``:math:`)/2`: the lower end of the two-sided ``level`` (95 %) interval, Bonferroni-corrected
— the same convention as tier 2's corrected interval, whose lower end must be above 0. The rule switches to the alternative with the largest :math:`\Delta_c` among those
whose lower bound is above 0, else keeps the baseline. So under a null where every alternative is exchangeable
with the baseline topic by topic, the chance of any switch is at most :math:`\alpha` (about :math:`\alpha/m` for
each alternative), as far as the bootstrap quantile is accurate — measured, not assumed:
``benchmarks/calibrate_recommend.py`` and docs/should-i-tune.md. (Bonferroni rather than the max-statistic of
the :math:`m` differences: with :math:`m \le 2` standards per question the two differ little — the max-statistic's
quantile lies between the :math:`\alpha/m` and :math:`\alpha` quantiles, and the standards' differences are
positively correlated so it would be nearer :math:`\alpha` — while Bonferroni needs no joint resampling argument
and its bound of each alternative does not depend on which other standards are listed.)

The resampled G-studies are computed without forming the resampled matrices: with :math:`w_{bt}` the number of
times topic :math:`t` is drawn in resample :math:`b`, the system means are :math:`X_c w_b / T`, and the sums of
squares of the two-way ANOVA (Brennan 2001, §3.4) follow from the per-topic column sums and sums of squares
weighted by :math:`w_b` — one (systems × topics) × (topics × resamples) product per configuration.

References
----------
.. [1] R. L. Brennan (2001). Generalizability Theory. Springer.
.. [2] B. Efron and R. J. Tibshirani (1993). An Introduction to the Bootstrap. Chapman & Hall.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = ["FixedDecision", "fixed_decision", "tier_one", "standard_indices", "fixed_index", "resampled_phi", "topic_resamples", "topic_counts", "N_RESAMPLES", "FIXED_STREAM"]

#: default number of paired topic resamples of tier 1 (the α/m = 0.0125 quantile rests on 50 resamples beyond it)
N_RESAMPLES = 4000

#: spawn key of tier 1's random stream under ``recommend``'s seed (distinct from the nested seeds' children 0, 1, …)
FIXED_STREAM = 2 ** 31 - 1


def topic_resamples(n_topics: int, n_resamples: int, rng: np.random.Generator) -> NDArray[np.int64]:
    """``(n_resamples, n_topics)`` topic indices drawn with replacement (one paired topic bootstrap resample a row)."""
    return rng.integers(0, n_topics, size=(int(n_resamples), int(n_topics)))


def topic_counts(idx: NDArray[np.int64], n_topics: int) -> NDArray[np.float64]:
    """``(B, T)`` how many times each topic is drawn in each resample."""
    idx = np.asarray(idx, dtype=np.int64)
    n_resamples = idx.shape[0]
    flat = (np.arange(n_resamples, dtype=np.int64)[:, None] * n_topics + idx).ravel()
    return np.bincount(flat, minlength=n_resamples * n_topics).reshape(n_resamples, n_topics).astype(np.float64)


def resampled_phi(X: NDArray[np.float64], idx: NDArray[np.int64] | None = None,
                  weights: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
    r"""Φ(1) of every configuration on every topic resample: ``(C, B)`` for scores ``X`` ``(C, S, T)`` and resamples
    ``idx`` ``(B, T)`` (or their topic counts ``weights`` ``(B, T)``).

    Equal to ``optimize.solvers._ratio.coefficients(X[:, :, idx[b]])["phi_1"]`` for each ``b`` (the ANOVA estimates of the
    resampled matrix, negative components set to 0 as in :func:`gtheory.gstudy`), computed from counts:
    :math:`SS_{tot} = \sum_t w_t \sum_s (x_{st}-\bar x)^2`, :math:`SS_s = T\sum_s(\bar x_{s\cdot}-\bar x)^2`,
    :math:`SS_t = S\sum_t w_t(\bar x_{\cdot t}-\bar x)^2`, :math:`SS_{st} = SS_{tot}-SS_s-SS_t`."""
    X = np.asarray(X, dtype=np.float64)
    C, S, T = X.shape
    W = topic_counts(np.asarray(idx), T) if weights is None else np.asarray(weights, dtype=np.float64)
    X = X - X.mean(axis=(1, 2), keepdims=True)  # Φ is shift invariant; centring keeps the sums of squares exact
    n = W.sum(axis=1)  # (B,) = T for a bootstrap resample
    ct = X.mean(axis=1)  # (C, T) topic means
    qt = (X * X).sum(axis=1)  # (C, T) per-topic sums of squares over systems
    ms = (X @ W.T) / n  # (C, S, B) system means over the resample
    g = ms.mean(axis=1)  # (C, B) grand mean
    ss_tot = qt @ W.T - 2.0 * g * S * (ct @ W.T) + S * n * g * g
    ss_s = n * ((ms - g[:, None, :]) ** 2).sum(axis=1)
    ss_t = S * ((ct * ct) @ W.T - 2.0 * g * (ct @ W.T) + n * g * g)
    ss_e = ss_tot - ss_s - ss_t
    ms_s, ms_t, ms_e = ss_s / (S - 1), ss_t / (n - 1), ss_e / ((S - 1) * (n - 1))
    vs, vt, ve = (ms_s - ms_e) / n, (ms_t - ms_e) / S, ms_e
    cs, cT, ce = np.maximum(vs, 0), np.maximum(vt, 0), np.maximum(ve, 0)
    tot = cs + cT + ce
    return np.where(cs > 0, cs / np.where(tot > 0, tot, 1.0), 0.0)


@dataclass(frozen=True)
class FixedDecision:
    """Tier 1's outcome (module docstring). Arrays are per configuration, the baseline first (its entries 0/NaN)."""

    names: tuple[str, ...]
    phi: NDArray  # Φ(1) on all topics
    diff: NDArray  # Φ_c(1) − Φ_0(1) on all topics
    lo: NDArray  # one-sided lower bound at α/m (Bonferroni), percentile bootstrap
    hi: NDArray  # the matching upper bound (1 − α/m quantile): [lo, hi] is the two-sided interval at 1 − 2α/m
    share: NDArray  # share of resamples on which c beats the baseline
    index: int  # the configuration to use (0: keep the baseline)
    alpha: float  # familywise one-sided level, (1 − level) / 2
    m: int  # number of alternatives (the Bonferroni divisor)
    n_resamples: int

    @property
    def adopt(self) -> bool:
        return self.index != 0

    @property
    def best(self) -> int:
        """The alternative with the largest lower bound (the one the evidence is about when keeping); 0 if none."""
        if self.m == 0:
            return 0
        return 1 + int(np.argmax(self.lo[1:]))


def fixed_decision(X: NDArray[np.float64], names: tuple[str, ...] | list[str], *, level: float = 0.95,
                   n_resamples: int = N_RESAMPLES, rng: np.random.Generator | int | None = None,
                   idx: NDArray[np.int64] | None = None, weights: NDArray[np.float64] | None = None) -> FixedDecision:
    r"""Tier 1 on scores ``X`` ``(C, S, T)`` of ``C`` fixed configurations, the baseline first (module docstring):
    switch to the alternative with the largest all-topics Φ(1) gain among those whose Bonferroni-corrected one-sided
    lower bound (paired topic bootstrap, level ``level``) is above 0.

    ``idx`` (``(B, T)`` resampled topic indices) replaces the resamples drawn from ``rng`` (the calibration passes
    one array to many constructed nulls); ``weights`` (``(B, T)`` topic counts of such resamples) replaces both."""
    X = np.asarray(X, dtype=np.float64)
    C, S, T = X.shape
    if weights is None:
        if idx is None:
            idx = topic_resamples(T, n_resamples, np.random.default_rng(rng))
        weights = topic_counts(np.asarray(idx), T)
    phi = resampled_phi(X, weights=np.ones((1, T)))[:, 0]
    boot = resampled_phi(X, weights=weights)
    d = phi - phi[0]
    db = boot - boot[:1]
    m = C - 1
    alpha = (1.0 - float(level)) / 2.0
    q = alpha / max(m, 1)
    lo = np.quantile(db, q, axis=1)
    hi = np.quantile(db, 1.0 - q, axis=1)
    share = (db > 0).mean(axis=1)
    lo[0] = hi[0] = math.nan
    share[0] = math.nan
    ok = [c for c in range(1, C) if lo[c] > 0 and d[c] > 0]
    index = max(ok, key=lambda c: (d[c], -c)) if ok else 0
    return FixedDecision(names=tuple(names), phi=phi, diff=d, lo=lo, hi=hi, share=share, index=int(index),
                         alpha=alpha, m=m, n_resamples=int(weights.shape[0]))


def standard_indices(cands: list) -> list[int]:
    """Positions of the fixed configurations among the candidates: the baseline (0) first, then the standards."""
    return [i for i, c in enumerate(cands) if c.kind in ("baseline", "standard")]


def tier_one(model, cands: list, *, level: float, n_resamples: int = N_RESAMPLES, rng=None,
             topics: NDArray | None = None) -> FixedDecision:
    """Tier 1 (:mod:`optimize.recommend.fixed`) on the fixed configurations among ``cands``, on ``topics``
    (default all)."""
    std = standard_indices(cands)
    X = model.scores(np.stack([cands[i].fit(None)[0] for i in std]), topics)
    return fixed_decision(X, [cands[i].name for i in std], level=level, n_resamples=n_resamples, rng=rng)


def fixed_index(cands: list, fixed: FixedDecision) -> int:
    """The candidate position of tier 1's choice."""
    return standard_indices(cands)[fixed.index]
