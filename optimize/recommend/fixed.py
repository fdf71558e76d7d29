r"""Tier 1 of :func:`optimize.recommend`: the fixed configurations (the baseline and the other standards) compared
with the baseline on *all* topics, by two tests of the Φ(1) difference that must both find the alternative better.

A fixed configuration needs no fitting half: every topic can serve as evidence. For configurations
:math:`c = 0, 1, \dots, m` (0 the baseline) with systems × topics scores :math:`X_c`, the statistic is
:math:`\Delta_c = \Phi_c(1) - \Phi_0(1)` on all :math:`T` topics (Φ(1) of the crossed G-study, Brennan 2001 §3.4).

**The topic population: a paired topic bootstrap.** ``n_resamples`` resamples of the :math:`T` topics with
replacement, the *same* resampled topics for every configuration (topics resampled jointly, systems fixed — the
topic is the unit of the G-study's generalisation, Brennan 2001 §6; Efron & Tibshirani 1993 §16.4), and on each
resample :math:`\Delta^*_c` from the G-study of the resampled matrices. Alternative :math:`c`'s lower bound
:math:`\ell_c` is the :math:`\alpha_B/m` quantile of :math:`\Delta^*_c` (percentile bootstrap), with
:math:`\alpha_B = (1 -` ``level``:math:`)/2`: the lower end of the two-sided ``level`` interval, Bonferroni-corrected
— the same convention as tier 2's interval.

**Exchangeability: a topic-swap randomisation test.** The null hypothesis that the alternative and the baseline
are exchangeable topic by topic (on each topic the pair of score columns, all systems, is as likely either way
round) is tested exactly: the two columns are swapped on each topic with probability 1/2, independently,
``n_resamples`` times, and the one-sided p-value is :math:`p_c = (1 + \#\{\Delta^\circ_c \ge \Delta_c\}) / (1 + R)`
over the :math:`R` randomised differences :math:`\Delta^\circ_c` (Fisher 1935; exact for any :math:`R`, Phipson &
Smyth 2010; the paired randomisation test of IR evaluation, Smucker, Allan & Carterette 2007, with the topic as the
unit and Φ(1) as the statistic). It passes when :math:`p_c \le \alpha_R/m` with :math:`\alpha_R = 1 -`
``level`` (one-sided; Bonferroni over the :math:`m` alternatives).

**The rule.** Switch to the alternative with the largest :math:`\Delta_c` among those with :math:`\ell_c > 0` *and*
:math:`p_c \le \alpha_R/m`, else keep the baseline. Each test alone has a failure mode: the bootstrap's quantile
is optimistic at 40–65 topics — under exchangeable nulls its false-switch rate reached 0.07 at a nominal 0.025
(benchmarks/calibrate_recommend.py, docs/should-i-tune.md) — and the randomisation test rejects exchangeability
for an alternative that differs from the baseline without being more stable on the population of topics. Needing
both (an intersection–union test, Berger 1982) keeps each one's guarantee: under exchangeable nulls the chance of
switching to a given alternative is at most :math:`\alpha_R/m` exactly, and to any at most :math:`\alpha_R`
(Bonferroni on exact p-values), whatever the collection. The bootstrap interval is the one reported.

**Monte Carlo error.** A decision is *clear* when 0 lies outside the 99.7 % band of the bootstrap quantile (the
order statistics at ranks :math:`qB \pm 3\sqrt{Bq(1-q)}`) and :math:`\alpha_R/m` outside
:math:`p_c \pm 3\sqrt{p_c(1-p_c)/R}`; while an alternative's decision is not clear, ``n_resamples`` more draws of
both are added, up to ``REFINE`` times as many, so that a seed decides only where the data leave the answer at the
threshold.

Both resampling schemes are computed without forming the resampled matrices: the ANOVA sums of squares of a
resampled or swapped matrix follow from per-topic column sums and sums of squares (weighted by the topic counts, or
linear in the swap indicators) and one (systems × topics) × (topics × draws) product for the system means.

References
----------
.. [1] R. L. Brennan (2001). Generalizability Theory. Springer.
.. [2] B. Efron and R. J. Tibshirani (1993). An Introduction to the Bootstrap. Chapman & Hall.
.. [3] R. A. Fisher (1935). The Design of Experiments. Oliver & Boyd.
.. [4] B. Phipson and G. K. Smyth (2010). Permutation p-values should never be zero. Stat. Appl. Genet. Mol. Biol. 9.
.. [5] M. D. Smucker, J. Allan and B. Carterette (2007). A comparison of statistical significance tests for
   information retrieval evaluation. CIKM, 623–632.
.. [6] R. L. Berger (1982). Multiparameter hypothesis testing and acceptance sampling. Technometrics 24, 295–300.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from gtheory.kit.ties import TIE_REL

__all__ = ["FixedDecision", "fixed_decision", "tier_one", "standard_indices", "fixed_index", "resampled_phi",
           "swapped_phi", "swap_draws", "swap_null", "swap_p_value", "topic_resamples", "topic_counts", "N_RESAMPLES", "REFINE", "FIXED_STREAM"]

#: default number of paired topic resamples and of topic swaps of tier 1, per round (the α/m = 0.0125 quantile
#: rests on 50 resamples beyond it)
N_RESAMPLES = 4000

#: rounds of ``n_resamples`` at the most, while a decision is within Monte Carlo error of its threshold
REFINE = 10

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
    return _phi_from_sums(ss_tot, ss_s, ss_t, S, n)


def _phi_from_sums(ss_tot, ss_s, ss_t, S: int, n) -> NDArray[np.float64]:
    """Φ(1) from the two-way ANOVA sums of squares of an ``S`` × ``n`` matrix (negative components set to 0, as
    :func:`gtheory.gstudy` does)."""
    ss_e = ss_tot - ss_s - ss_t
    ms_s, ms_t, ms_e = ss_s / (S - 1), ss_t / (n - 1), ss_e / ((S - 1) * (n - 1))
    vs, vt, ve = (ms_s - ms_e) / n, (ms_t - ms_e) / S, ms_e
    cs, cT, ce = np.maximum(vs, 0), np.maximum(vt, 0), np.maximum(ve, 0)
    tot = cs + cT + ce
    return np.where(cs > 0, cs / np.where(tot > 0, tot, 1.0), 0.0)


def swap_draws(n_topics: int, n_resamples: int, rng: np.random.Generator) -> NDArray[np.bool_]:
    """``(n_resamples, n_topics)`` swap indicators, each topic swapped with probability 1/2 (one randomisation a row)."""
    return rng.random((int(n_resamples), int(n_topics))) < 0.5


def swapped_phi(X0: NDArray[np.float64], Xc: NDArray[np.float64], Z: NDArray) -> NDArray[np.float64]:
    r"""Φ(1) of the baseline's matrix with configuration ``c``'s columns swapped in on the topics marked in each row
    of ``Z``: ``(R,)`` for ``X0``, ``Xc`` ``(S, T)`` and indicators ``Z`` ``(R, T)``.

    With :math:`Y = X_0 + Z \odot (X_c - X_0)` (column by column), the topic means, the per-topic sums of squares and
    the grand mean are linear in :math:`Z`; the system means are one product. Equal to
    ``gtheory.gstudy(Y).phi(1)`` row by row (tested)."""
    X0 = np.asarray(X0, dtype=np.float64)
    Xc = np.asarray(Xc, dtype=np.float64)
    Z = np.asarray(Z, dtype=np.float64)
    S, T = X0.shape
    shift = 0.5 * (X0.mean() + Xc.mean())  # Φ is shift invariant; centring keeps the sums of squares exact
    X0, Xc = X0 - shift, Xc - shift
    D = Xc - X0
    ct = X0.mean(axis=0) + Z * D.mean(axis=0)  # (R, T) topic means
    g = ct.mean(axis=1)  # (R,) grand means
    q0 = (X0 * X0).sum(axis=0)
    ss_tot = q0.sum() + Z @ ((Xc * Xc).sum(axis=0) - q0) - S * T * g * g
    ms = (X0.sum(axis=1)[:, None] + D @ Z.T) / T  # (S, R) system means
    ss_s = T * ((ms - g) ** 2).sum(axis=0)
    ss_t = S * ((ct - g[:, None]) ** 2).sum(axis=1)
    return _phi_from_sums(ss_tot, ss_s, ss_t, S, T)


def swap_null(X0: NDArray[np.float64], Xc: NDArray[np.float64], Z: NDArray) -> NDArray[np.float64]:
    r"""The randomisation distribution of :math:`\Delta_c = \Phi_c(1) - \Phi_0(1)`: ``(R,)``, one value per row of
    swap indicators ``Z``; on a row the baseline's role is played by :math:`X_0` with :math:`X_c`'s columns on the
    marked topics, the alternative's by the complement."""
    Z = np.asarray(Z, dtype=bool)
    return swapped_phi(X0, Xc, ~Z) - swapped_phi(X0, Xc, Z)


def swap_p_value(null: NDArray[np.float64], diff: float) -> float:
    r"""The one-sided randomisation p-value :math:`(1 + \#\{\Delta^\circ \ge \Delta\}) / (1 + R)` of the observed
    ``diff`` among the ``R`` randomised differences ``null`` (Phipson & Smyth 2010), ties within
    :data:`~gtheory.kit.ties.TIE_REL` counted as reaching it (rounding must not decide them)."""
    null = np.asarray(null, dtype=np.float64)
    tol = TIE_REL * max(abs(diff), float(np.abs(null).max(initial=0.0)))
    return (1.0 + np.count_nonzero(null >= diff - tol)) / (null.size + 1.0)


@dataclass(frozen=True)
class FixedDecision:
    """Tier 1's outcome (module docstring). Arrays are per configuration, the baseline first (its entries 0/NaN)."""

    names: tuple[str, ...]
    phi: NDArray  # Φ(1) on all topics
    diff: NDArray  # Φ_c(1) − Φ_0(1) on all topics
    lo: NDArray  # one-sided lower bound at α_B/m (Bonferroni), percentile bootstrap
    hi: NDArray  # the matching upper bound (1 − α_B/m quantile): [lo, hi] is the two-sided interval at 1 − 2α_B/m
    share: NDArray  # share of bootstrap resamples on which c beats the baseline
    index: int  # the configuration to use (0: keep the baseline)
    alpha: float  # the bootstrap's familywise one-sided level α_B, (1 − level) / 2
    m: int  # number of alternatives (the Bonferroni divisor)
    n_resamples: int  # bootstrap resamples used (as many topic swaps)
    p: NDArray | None = None  # one-sided topic-swap randomisation p-value of each alternative (unadjusted)
    alpha_swap: float = math.nan  # the randomisation test's familywise one-sided level α_R, 1 − level

    @property
    def reliable(self) -> NDArray:
        """Per configuration: both tests find it better than the baseline (the baseline's entry False)."""
        ok = (self.lo > 0) & (self.diff > 0)
        if self.p is not None:
            ok &= self.p <= self.alpha_swap / max(self.m, 1)
        ok[0] = False
        return ok

    @property
    def chosen(self) -> int:
        """The reliable alternative with the largest all-topic gain (ties: the first listed); 0, keep, if none."""
        ok = np.flatnonzero(self.reliable)
        return int(max(ok, key=lambda c: (self.diff[c], -c))) if ok.size else 0

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
                   idx: NDArray[np.int64] | None = None, swaps: NDArray | None = None,
                   refine: int = REFINE) -> FixedDecision:
    r"""Tier 1 on scores ``X`` ``(C, S, T)`` of ``C`` fixed configurations, the baseline first (module docstring):
    switch to the alternative with the largest all-topics Φ(1) gain among those whose Bonferroni-corrected one-sided
    bootstrap lower bound (two-sided ``level`` interval) is above 0 and whose topic-swap randomisation p-value is at
    most :math:`(1 - \text{level})/m`; while a decision is within Monte Carlo error of its threshold, more draws
    (``n_resamples`` a round, ``refine`` rounds at the most).

    ``idx`` (``(B, T)`` resampled topic indices) and ``swaps`` (``(R, T)`` swap indicators) replace the draws from
    ``rng`` and the refinement (tests pass fixed arrays)."""
    X = np.asarray(X, dtype=np.float64)
    C, S, T = X.shape
    gen = np.random.default_rng(rng) if idx is None or swaps is None else None
    fixed_draws = idx is not None or swaps is not None
    phi = resampled_phi(X, weights=np.ones((1, T)))[:, 0]
    d = phi - phi[0]
    m = C - 1
    alpha = (1.0 - float(level)) / 2.0
    alpha_swap = 1.0 - float(level)
    q, q_swap = alpha / max(m, 1), alpha_swap / max(m, 1)
    boots: list[NDArray] = []
    nulls: list[list[NDArray]] = [[] for _ in range(C)]
    for _ in range(1 if fixed_draws else max(1, int(refine))):
        I = idx if idx is not None else topic_resamples(T, n_resamples, gen)
        Z = swaps if swaps is not None else swap_draws(T, n_resamples, gen)
        b = resampled_phi(X, weights=topic_counts(np.asarray(I), T))
        boots.append(b - b[:1])
        for c in range(1, C):
            nulls[c].append(swap_null(X[0], X[c], Z))
        db = np.concatenate(boots, axis=1)
        B = db.shape[1]
        srt = np.sort(db, axis=1)
        half = 3.0 * math.sqrt(B * q * (1.0 - q))
        band_lo = srt[:, max(0, int(math.floor(q * B - half)))]
        band_hi = srt[:, min(B - 1, int(math.ceil(q * B + half)))]
        p = np.full(C, math.nan)
        for c in range(1, C):
            p[c] = swap_p_value(np.concatenate(nulls[c]), d[c])
        R = sum(x.size for x in nulls[1]) if C > 1 else 0
        unclear = [c for c in range(1, C) if d[c] > 0 and (
            band_lo[c] <= 0 < band_hi[c] or abs(p[c] - q_swap) <= 3.0 * math.sqrt(q_swap * (1.0 - q_swap) / max(R, 1)))]
        if not unclear:
            break
    lo = np.quantile(db, q, axis=1)
    hi = np.quantile(db, 1.0 - q, axis=1)
    share = (db > 0).mean(axis=1)
    lo[0] = hi[0] = math.nan
    share[0] = math.nan
    dec = FixedDecision(names=tuple(names), phi=phi, diff=d, lo=lo, hi=hi, share=share, index=0, alpha=alpha, m=m,
                        n_resamples=int(db.shape[1]), p=p, alpha_swap=alpha_swap)
    return replace(dec, index=dec.chosen)


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
