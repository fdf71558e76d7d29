r"""Tier 1 of :func:`optimize.recommend`: the fixed configurations (the baseline and the other standards) compared
with the baseline on *all* topics by a studentised topic-swap randomisation test of their Φ(1) difference.

A fixed configuration needs no fitting half: every topic can serve as evidence. For configurations
:math:`c = 0, 1, \dots, m` (0 the baseline) with systems × topics scores :math:`X_c`, the difference is
:math:`\Delta_c = \Phi_c(1) - \Phi_0(1)` on all :math:`T` topics (Φ(1) of the crossed G-study, Brennan 2001 §3.4),
and its standard error :math:`\hat s_c` is the topic jackknife's,
:math:`\hat s^2 = \frac{T-1}{T}\sum_t (\Delta_{(t)} - \bar\Delta_{(\cdot)})^2` over the leave-one-topic-out
differences (Efron & Tibshirani 1993 §11.2; the topic is the unit of the G-study's generalisation, Brennan 2001 §6).

**The test.** Under the null hypothesis that the alternative and the baseline are exchangeable topic by topic (on
each topic the pair of score columns, all systems, is as likely either way round) the two columns are swapped on
each topic with probability 1/2, independently, ``n_resamples`` times; on each swap the statistic
:math:`t^\circ_c = \Delta^\circ_c / \hat s^\circ_c` is recomputed, standard error included, and the one-sided
p-value is :math:`p_c = (1 + \#\{t^\circ_c \ge t_c\}) / (1 + R)` over the :math:`R` swaps, :math:`t_c =
\Delta_c / \hat s_c` (Fisher 1935; Phipson & Smyth 2010; the paired randomisation test of IR evaluation, Smucker,
Allan & Carterette 2007, with the topic as the unit and Φ(1) as the quantity). Alternative :math:`c` is *reliable*
when :math:`\Delta_c > 0` and :math:`p_c \le \alpha/m` with :math:`\alpha = (1 -` ``level``:math:`)/2` (one-sided:
the favourable end of a two-sided ``level`` test, the convention of the reported interval and of tier 2's;
Bonferroni over the :math:`m` alternatives).

**Why studentised.** Any statistic gives an exact test of exchangeability: under exchangeable nulls the chance of
switching to a given alternative is at most :math:`\alpha/m`, and to any at most :math:`\alpha`, whatever the
collection and the number of swaps (Phipson & Smyth 2010). Exchangeability is more than the question asked, which is
whether the alternative is more stable on the population of topics (:math:`\Phi_c = \Phi_0` there, the columns
otherwise different). Divided by its own standard error on every swap, the statistic's randomisation distribution
is asymptotically the standard normal that the studentised difference has under that wider null, so the test's level
holds for it too as the topics grow (Janssen 1997; Chung & Romano 2013, the studentised permutation test), while it
stays exact under exchangeability. The unstudentised difference has not that property; the paired topic bootstrap
alone is optimistic at 40–65 topics (a false-switch rate of 0.07 at a nominal 0.025 in the calibration). One test has
the power that requiring the bootstrap and the unstudentised test together had, within the calibration's resolution
(benchmarks/calibrate_recommend.py, docs/should-i-tune.md).

**The rule.** Switch to the reliable alternative with the largest :math:`\Delta_c`, else keep the baseline.

**Reported with it**: the paired topic bootstrap's interval of :math:`\Delta_c` (``n_resamples`` resamples of the
topics with replacement, the same for every configuration, systems fixed; percentile bounds at
:math:`\alpha_B/m` and :math:`1 - \alpha_B/m`, :math:`\alpha_B = (1 -` ``level``:math:`)/2`: the two-sided ``level``
interval, Bonferroni-corrected, the convention of tier 2's interval) and the share of resamples on which the
alternative wins. They describe the size of the gain; they do not decide.

**Monte Carlo error.** A decision is *clear* when :math:`\alpha/m` lies outside :math:`p_c \pm 3\sqrt{p_c(1 -
p_c)/R}`; while an alternative's decision is not clear, ``n_resamples`` more swaps (and resamples) are added, up to
``REFINE`` times as many, so that a seed decides only where the data leave the answer at the threshold.

Both resampling schemes are computed without forming the resampled matrices: the ANOVA sums of squares of a
resampled, swapped or leave-one-out matrix follow from per-topic column sums and sums of squares (weighted by the
topic counts, or linear in the swap indicators) and (systems × topics) × (topics × draws) products.

References
----------
.. [1] R. L. Brennan (2001). Generalizability Theory. Springer.
.. [2] B. Efron and R. J. Tibshirani (1993). An Introduction to the Bootstrap. Chapman & Hall.
.. [3] R. A. Fisher (1935). The Design of Experiments. Oliver & Boyd.
.. [4] B. Phipson and G. K. Smyth (2010). Permutation p-values should never be zero. Stat. Appl. Genet. Mol. Biol. 9.
.. [5] M. D. Smucker, J. Allan and B. Carterette (2007). A comparison of statistical significance tests for
   information retrieval evaluation. CIKM, 623–632.
.. [6] A. Janssen (1997). Studentized permutation tests for non-i.i.d. hypotheses and the generalized Behrens–Fisher
   problem. Statist. Probab. Lett. 36, 9–21.
.. [7] E. Chung and J. P. Romano (2013). Exact and asymptotically robust permutation tests. Ann. Statist. 41, 484–507.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from gtheory.kit.ties import TIE_REL

__all__ = ["FixedDecision", "fixed_decision", "tier_one", "standard_indices", "fixed_index", "resampled_phi",
           "swapped_phi", "swapped_phi_loo", "swap_draws", "swap_null", "swap_statistics", "studentised",
           "swap_p_value", "topic_resamples", "topic_counts", "N_RESAMPLES", "REFINE", "FIXED_STREAM"]

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


def _swapped(X0: NDArray[np.float64], Xc: NDArray[np.float64], Z: NDArray, loo: bool):
    r"""Φ(1) of :math:`Y = X_0 + Z \odot (X_c - X_0)` for each row of ``Z`` and, with ``loo``, of each leave-one-topic-out
    matrix :math:`Y_{(t)}`. With the per-topic means :math:`c_t`, sums of squares :math:`q_t`, the system sums
    :math:`M_s` and the grand sum :math:`G` of :math:`Y` (all linear in :math:`Z`, or one product), leaving topic
    :math:`t` out gives :math:`n = T - 1`, :math:`\bar y = (G - S c_t)/(Sn)`, :math:`SS_{tot} = Q - q_t - Sn\bar y^2`,
    :math:`SS_t = S(\sum_u c_u^2 - c_t^2 - n\bar y^2)` and :math:`SS_s = (\sum_s M_s^2 - 2\sum_s M_s y_{st} + q_t)/n
    - Sn\bar y^2`."""
    X0 = np.asarray(X0, dtype=np.float64)
    Xc = np.asarray(Xc, dtype=np.float64)
    Z = np.asarray(Z, dtype=np.float64)
    S, T = X0.shape
    shift = 0.5 * (X0.mean() + Xc.mean())  # Φ is shift invariant; centring keeps the sums of squares exact
    X0, Xc = X0 - shift, Xc - shift
    D = Xc - X0
    ct = X0.mean(axis=0) + Z * D.mean(axis=0)  # (R, T) topic means
    q0 = (X0 * X0).sum(axis=0)
    qt = q0 + Z * ((Xc * Xc).sum(axis=0) - q0)  # (R, T) per-topic sums of squares over systems
    M = X0.sum(axis=1)[:, None] + D @ Z.T  # (S, R) system sums
    G = S * ct.sum(axis=1)  # (R,) grand sums
    Q, C2, M2 = qt.sum(axis=1), (ct * ct).sum(axis=1), (M * M).sum(axis=0)
    g = G / (S * T)
    phi = _phi_from_sums(Q - S * T * g * g, M2 / T - S * T * g * g, S * (C2 - T * g * g), S, T)
    if not loo:
        return phi
    n = T - 1
    MY = M.T @ X0 + Z * (M.T @ D)  # (R, T): Σ_s M_s y_st
    gl = (G[:, None] - S * ct) / (S * n)
    sq = S * n * gl * gl
    phil = _phi_from_sums(Q[:, None] - qt - sq, (M2[:, None] - 2.0 * MY + qt) / n - sq,
                          S * (C2[:, None] - ct * ct - n * gl * gl), S, n)
    return phi, phil


def swapped_phi(X0: NDArray[np.float64], Xc: NDArray[np.float64], Z: NDArray) -> NDArray[np.float64]:
    r"""Φ(1) of the baseline's matrix with configuration ``c``'s columns swapped in on the topics marked in each row
    of ``Z``: ``(R,)`` for ``X0``, ``Xc`` ``(S, T)`` and indicators ``Z`` ``(R, T)``.

    With :math:`Y = X_0 + Z \odot (X_c - X_0)` (column by column), the topic means, the per-topic sums of squares and
    the grand mean are linear in :math:`Z`; the system means are one product. Equal to
    ``gtheory.gstudy(Y).phi(1)`` row by row (tested)."""
    return _swapped(X0, Xc, Z, loo=False)


def swapped_phi_loo(X0: NDArray[np.float64], Xc: NDArray[np.float64],
                    Z: NDArray) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """:func:`swapped_phi` ``(R,)`` and the Φ(1) of each swapped matrix without topic ``t``, ``(R, T)``: equal to
    ``gtheory.gstudy(np.delete(Y, t, axis=1)).phi(1)`` (tested)."""
    return _swapped(X0, Xc, Z, loo=True)


def swap_null(X0: NDArray[np.float64], Xc: NDArray[np.float64], Z: NDArray) -> NDArray[np.float64]:
    r"""The randomisation distribution of :math:`\Delta_c = \Phi_c(1) - \Phi_0(1)`: ``(R,)``, one value per row of
    swap indicators ``Z``; on a row the baseline's role is played by :math:`X_0` with :math:`X_c`'s columns on the
    marked topics, the alternative's by the complement."""
    Z = np.asarray(Z, dtype=bool)
    return swapped_phi(X0, Xc, ~Z) - swapped_phi(X0, Xc, Z)


def swap_statistics(X0: NDArray[np.float64], Xc: NDArray[np.float64],
                    Z: NDArray) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Per row of swap indicators ``Z`` (roles as in :func:`swap_null`): the difference :math:`\Delta^\circ` and its
    topic-jackknife standard error :math:`\sqrt{\frac{T-1}{T}\sum_t(\Delta^\circ_{(t)} - \bar\Delta^\circ_{(\cdot)})^2}`
    (Efron & Tibshirani 1993 §11.2). A row of ``False`` is the observed pair: alternative ``Xc``, baseline ``X0``."""
    Z = np.asarray(Z, dtype=bool)
    pa, la = swapped_phi_loo(X0, Xc, ~Z)
    pb, lb = swapped_phi_loo(X0, Xc, Z)
    dl = la - lb
    T = dl.shape[1]
    se = np.sqrt((T - 1) / T * ((dl - dl.mean(axis=1, keepdims=True)) ** 2).sum(axis=1))
    return pa - pb, se


def studentised(diff: NDArray[np.float64], se: NDArray[np.float64]) -> NDArray[np.float64]:
    """``diff / se``; 0 where the standard error is 0 (the two columns agree on every leave-one-out matrix: no
    evidence either way)."""
    diff = np.asarray(diff, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    return np.divide(diff, se, out=np.zeros_like(diff), where=se > 0)


def swap_p_value(null: NDArray[np.float64], diff: float) -> float:
    r"""The one-sided randomisation p-value :math:`(1 + \#\{\Delta^\circ \ge \Delta\}) / (1 + R)` of the observed
    ``diff`` among the ``R`` randomised values ``null`` (Phipson & Smyth 2010), ties within
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
    lo: NDArray  # one-sided lower bound at α_B/m (Bonferroni), percentile bootstrap (reported, does not decide)
    hi: NDArray  # the matching upper bound (1 − α_B/m quantile): [lo, hi] is the two-sided interval at 1 − 2α_B/m
    share: NDArray  # share of bootstrap resamples on which c beats the baseline
    index: int  # the configuration to use (0: keep the baseline)
    alpha: float  # the bootstrap interval's one-sided level α_B, (1 − level) / 2
    m: int  # number of alternatives (the Bonferroni divisor)
    n_resamples: int  # bootstrap resamples used (as many topic swaps)
    p: NDArray | None = None  # one-sided studentised topic-swap randomisation p-value of each alternative (unadjusted)
    alpha_swap: float = math.nan  # the randomisation test's familywise one-sided level α, (1 − level) / 2
    se: NDArray | None = None  # topic-jackknife standard error of diff on all topics

    @property
    def reliable(self) -> NDArray:
        """Per configuration: the randomisation test finds it better than the baseline (the baseline's entry False)."""
        ok = self.diff > 0
        ok = ok & (self.p <= self.alpha_swap / max(self.m, 1)) if self.p is not None else np.zeros_like(ok)
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
        """The alternative nearest to being adopted (the one the evidence is about when keeping): the smallest p-value
        (ties: the larger gain); 0 if none."""
        if self.m == 0:
            return 0
        if self.p is None:
            return 1 + int(np.argmax(self.lo[1:]))
        return int(min(range(1, self.m + 1), key=lambda c: (self.p[c], -self.diff[c], c)))


def fixed_decision(X: NDArray[np.float64], names: tuple[str, ...] | list[str], *, level: float = 0.95,
                   n_resamples: int = N_RESAMPLES, rng: np.random.Generator | int | None = None,
                   idx: NDArray[np.int64] | None = None, swaps: NDArray | None = None,
                   refine: int = REFINE, interval: bool = True) -> FixedDecision:
    r"""Tier 1 on scores ``X`` ``(C, S, T)`` of ``C`` fixed configurations, the baseline first (module docstring):
    switch to the alternative with the largest all-topics Φ(1) gain among those whose studentised topic-swap
    randomisation p-value is at most :math:`(1 - \text{level})/(2m)`; while a decision is within Monte Carlo error of its
    threshold, more draws (``n_resamples`` a round, ``refine`` rounds at the most). The paired topic bootstrap's
    interval (two-sided ``level``, Bonferroni) is reported beside it.

    ``idx`` (``(B, T)`` resampled topic indices) and ``swaps`` (``(R, T)`` swap indicators) replace the draws from
    ``rng`` and the refinement (tests pass fixed arrays). ``interval=False`` skips the bootstrap (``lo``, ``hi`` and
    ``share`` are NaN): the same decision, from the same swaps, at about two thirds of the cost (the calibration's
    thousands of decisions)."""
    X = np.asarray(X, dtype=np.float64)
    C, S, T = X.shape
    gen = np.random.default_rng(rng) if idx is None or swaps is None else None
    fixed_draws = idx is not None or swaps is not None
    # the bootstrap's own stream, split off first: the swaps, hence the decision, do not depend on ``interval``
    boot_gen = np.random.default_rng(gen.integers(0, 2 ** 63)) if gen is not None else None
    phi = resampled_phi(X, weights=np.ones((1, T)))[:, 0]
    d = phi - phi[0]
    m = C - 1
    alpha = (1.0 - float(level)) / 2.0
    alpha_swap = (1.0 - float(level)) / 2.0
    q, q_swap = alpha / max(m, 1), alpha_swap / max(m, 1)
    se = np.full(C, math.nan)
    t_obs = np.zeros(C)
    for c in range(1, C):
        dc, sc = swap_statistics(X[0], X[c], np.zeros((1, T), dtype=bool))
        se[c], t_obs[c] = sc[0], studentised(dc, sc)[0]
    boots: list[NDArray] = []
    nulls: list[list[NDArray]] = [[] for _ in range(C)]
    p = np.full(C, math.nan)
    for _ in range(1 if fixed_draws else max(1, int(refine))):
        Z = swaps if swaps is not None else swap_draws(T, n_resamples, gen)
        if interval:
            I = idx if idx is not None else topic_resamples(T, n_resamples, boot_gen)
            b = resampled_phi(X, weights=topic_counts(np.asarray(I), T))
            boots.append(b - b[:1])
        for c in range(1, C):
            nulls[c].append(studentised(*swap_statistics(X[0], X[c], Z)))
            p[c] = swap_p_value(np.concatenate(nulls[c]), t_obs[c])
        R = sum(x.size for x in nulls[1]) if C > 1 else 0
        if not [c for c in range(1, C) if d[c] > 0 and
                abs(p[c] - q_swap) <= 3.0 * math.sqrt(q_swap * (1.0 - q_swap) / max(R, 1))]:
            break
    if boots:
        db = np.concatenate(boots, axis=1)
        lo, hi, share = np.quantile(db, q, axis=1), np.quantile(db, 1.0 - q, axis=1), (db > 0).mean(axis=1)
        n_draws = int(db.shape[1])
    else:
        lo, hi, share = np.full(C, math.nan), np.full(C, math.nan), np.full(C, math.nan)
        n_draws = int(sum(x.size for x in nulls[1])) if C > 1 else int(n_resamples)
    lo[0] = hi[0] = share[0] = math.nan
    dec = FixedDecision(names=tuple(names), phi=phi, diff=d, lo=lo, hi=hi, share=share, index=0, alpha=alpha, m=m,
                        n_resamples=n_draws, p=p, alpha_swap=alpha_swap, se=se)
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
