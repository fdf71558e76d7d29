r"""Bootstrap intervals for the crossed systems × topics G-study (Brennan 2001, ch. 6; Wiley 2000).

Three resampling procedures of the score matrix (rows = systems, columns = topics):

* ``over="systems"`` — *boot-p*: systems drawn with replacement, all topics kept;
* ``over="topics"`` — *boot-i*: topics drawn with replacement, all systems kept;
* ``over="both"`` (the default) — *boot-p,i*: systems and topics drawn independently; the one
  procedure whose intervals hold their level on real IR score matrices (.94–.998, conservative
  .97–.999 on normal data; see below);
* ``over="auto"`` — each quantity from the procedure that reproduces its sampling variability
  under a homogeneous interaction: boot-p for σ²(s), σ²(st) and Eρ², boot-i for σ²(t), and for Φ
  and the topics needed σ²(s), σ²(st) of a boot-p replicate with σ²(t) of an independent boot-i
  replicate (``BootstrapResult.sources``); calibrated (93–97 %) on normal matrices, too short on
  real IR scores.

Each replicate's variance components are biased estimates of the sample's (a system drawn twice
is two identical "systems"). Taking expectations over the resampling of the ANOVA mean squares
(derived in the module tests and checked there by simulation) gives, for a complete matrix of
:math:`n_s` systems and :math:`n_t` topics and replicate estimates :math:`\hat\sigma^{2*}`,

.. math::

    \text{boot-p:}\quad & E\hat\sigma^{2*}_s = \tfrac{n_s-1}{n_s}\hat\sigma^2_s,\;
        E\hat\sigma^{2*}_{st} = \tfrac{n_s-1}{n_s}\hat\sigma^2_{st},\;
        E\hat\sigma^{2*}_t = \hat\sigma^2_t + \hat\sigma^2_{st}/n_s;\\
    \text{boot-i:}\quad & \text{the same with } s \leftrightarrow t;\\
    \text{boot-p,i:}\quad & E\hat\sigma^{2*}_{st} = \tfrac{(n_s-1)(n_t-1)}{n_s n_t}\hat\sigma^2_{st},\;
        E\hat\sigma^{2*}_s = \tfrac{n_s-1}{n_s}(\hat\sigma^2_s + \hat\sigma^2_{st}/n_t),\;
        E\hat\sigma^{2*}_t = \tfrac{n_t-1}{n_t}(\hat\sigma^2_t + \hat\sigma^2_{st}/n_s),

Wiley's (2000) bias-adjusted estimates, as tabulated by Brennan (2001, ch. 6). Inverting these
linear maps replicate by replicate gives *bias-corrected* replicates whose mean is the sample
estimate; their percentile interval is the ``bias_corrected`` interval here, the percentile
interval of the raw replicates the ``percentile`` one. Φ(n), Eρ²(n) and the topics needed are
computed from each replicate's (raw resp. corrected) components, negative ones taken as 0.

Brennan recommends, for the p × i design, boot-p for σ²(p), boot-i for σ²(i) and the adjusted
boot-p,i for σ²(pi) (Brennan 2001, ch. 6; Tong & Brennan 2007): a component's interval is only
meaningful under a procedure that resamples the facets it depends on; the result records which.
``over="auto"`` follows this for σ²(s) and σ²(t) but takes σ²(st) from boot-p: resampling both
facets counts the interaction's variability more than once (McCullagh 2000; Owen 2007), and the
measured coverage of boot-p,i intervals for σ²(st) is .998 (table in :func:`bootstrap`).

The default interval (``interval(q)``, ``basic_low``/``basic_high``) is the *expanded basic
interval on the log mean-square scale* (:func:`_basic_intervals`); with ``over="auto"`` it covers
93–97 % in the normal simulations tabulated in :func:`bootstrap`, where percentile intervals cover 86–92 %.
On real IR score matrices (Robust 2004 AP and P@10, Web 2010 and TREC-9 nDCG@20, sampled from as populations:
``benchmarks/coverage_real.py``) ``"auto"`` is too short — σ²(st) .62–.84, Φ .78–.95 — because the
interaction is heteroscedastic across topics, which boot-p cannot see; ``over="both"`` covers .94–.998
there (but σ²(t) from few heavy-tailed topics) and is conservative on normal data (.97–.999), hence the
default (docs/gtheory.md).

With missing cells (:class:`gtheory.gstudy.unbalanced.UnbalancedGStudy`) each replicate is estimated by
the study's own method (Henderson vectorised; REML one replicate at a time, warm-started, slow:
``over="auto"`` refits 2B times) and the corrections and mean-square pivots use :math:`n_s`,
:math:`n_t` of the matrix — exact only for complete data; the coverage was measured on complete
matrices only.

References
----------
.. [1] R. L. Brennan (2001). *Generalizability Theory*. Springer. Ch. 6 (resampling procedures).
.. [2] E. W. Wiley (2000). *Bootstrap strategies for variance component estimation: theoretical
       and empirical results*. PhD thesis, Stanford University.
.. [3] Y. Tong, R. L. Brennan (2007). Bootstrap estimates of standard errors in generalizability
       theory. *Educational and Psychological Measurement* 67(5):804–817.
.. [4] B. Efron, R. J. Tibshirani (1993). *An Introduction to the Bootstrap*. Chapman & Hall, ch. 13.
.. [5] A. C. Davison, D. V. Hinkley (1997). *Bootstrap Methods and their Application*. CUP, §5.2–5.3.
.. [6] T. C. Hesterberg (2015). What teachers should know about the bootstrap. *The American
       Statistician* 69(4):371–386 (expanded percentile interval).
.. [7] N. Schenker (1985). Qualms about bootstrap confidence intervals. *JASA* 80(390):360–361.
.. [8] P. McCullagh (2000). Resampling and exchangeable arrays. *Bernoulli* 6(2):285–301.
.. [9] A. B. Owen (2007). The pigeonhole bootstrap. *Annals of Applied Statistics* 1(2):386–411.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..kit.ties import tie_values
from .components import erho2_from_components, phi_from_components, variance_components
from ..errors import ParameterError
from ..kit.params import integer, validate_params
from .bootstrap_result import _PROCEDURE, QUANTITIES, BootstrapResult, Over

#: a :class:`gtheory.GStudy` (not imported here: this module sits below it, so that gtheory has no import cycle)
GStudy = Any

__all__ = ["bootstrap", "dstudy_subset", "bias_adjust"]

#: the components whose sampling variability each procedure reproduces (Brennan 2001, ch. 6)
_VALID_FOR = {"systems": ("var_system",), "topics": ("var_topic",),
              "both": ("var_system", "var_topic", "var_residual"),
              "auto": ("var_system", "var_topic", "var_residual")}
#: the resampling behind each quantity's replicates under ``over="auto"``
_AUTO_SOURCES = ("systems", "topics", "systems", "systems+topics", "systems", "systems+topics")


def bias_adjust(
    v_s: NDArray[np.float64], v_t: NDArray[np.float64], v_e: NDArray[np.float64],
    n_s: int, n_t: int, over: str,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Wiley's (2000) bias-adjusted components of bootstrap replicates (inverse of the module's
    expectation formulas; Brennan 2001, ch. 6): broadcasting over arrays of replicates."""
    if over == "systems":
        e = v_e * n_s / (n_s - 1)
        return v_s * n_s / (n_s - 1), v_t - v_e / (n_s - 1), e
    if over == "topics":
        e = v_e * n_t / (n_t - 1)
        return v_s - v_e / (n_t - 1), v_t * n_t / (n_t - 1), e
    e = v_e * n_s * n_t / ((n_s - 1) * (n_t - 1))
    return v_s * n_s / (n_s - 1) - e / n_t, v_t * n_t / (n_t - 1) - e / n_s, e


def _topics_needed(ratio: NDArray[np.float64], target: float) -> NDArray[np.float64]:
    """Smallest n with n r/(1+n r) ≥ target, vectorised (inf where r ≤ 0, 1 where r = inf)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        exact = target / ((1.0 - target) * ratio)
        n = np.maximum(1.0, np.ceil(exact * (1 - 1e-12)))
    return np.where(ratio > 0, n, np.inf)


def _expanded_tail(n: int, level: float, second_moment: bool = False) -> float:
    r"""Tail probability :math:`\alpha' = \Phi(-c\, t_{n-1,(1+\text{level})/2})` of an expanded
    bootstrap interval for a statistic of ``n`` resampled units (Hesterberg 2015).

    For a mean the bootstrap distribution is too narrow by :math:`\sqrt{(n-1)/n}`, so
    :math:`c = \sqrt{n/(n-1)}` (Hesterberg's expanded percentile interval). For a variance of the
    units (``second_moment=True``: σ²(s) over systems, σ²(t) over topics and the coefficients
    driven by them) the bootstrap variance of :math:`\log\hat\sigma^2` is :math:`(b_2-1)/n`
    with :math:`b_2` the sample kurtosis, while the sampling variance is :math:`2/(n-1)` for
    normal units and :math:`E\,b_2 = 3(n-1)/(n+1)` there; the ratio gives
    :math:`c = \sqrt{n(n+1)/((n-1)(n-2))}`."""
    from scipy.special import ndtr
    from scipy.stats import t as student_t

    c = math.sqrt(n * (n + 1) / ((n - 1) * (n - 2))) if second_moment and n > 2 else math.sqrt(n / (n - 1))
    return float(ndtr(-c * student_t.ppf((1 + level) / 2, n - 1)))


def _pivots(c: NDArray[np.float64], n_s: int, n_t: int) -> NDArray[np.float64]:
    r"""(..., 5) the positive, mean-square-like quantities whose logarithm the basic interval uses,
    from (unclipped) components (..., 3):
    :math:`n_t\sigma^2_s+\sigma^2_{st}` (E MS_s), :math:`n_s\sigma^2_t+\sigma^2_{st}` (E MS_t),
    :math:`\sigma^2_{st}`, :math:`1 + n_t r_\Phi = (n_t\sigma^2_s+\sigma^2_t+\sigma^2_{st})/
    (\sigma^2_t+\sigma^2_{st})` and :math:`1 + n_t r_E = (n_t\sigma^2_s+\sigma^2_{st})/\sigma^2_{st}`
    (E MS_s / E MS_st, the F ratio behind Feldt's interval). Unlike the components themselves they
    stay positive when σ²(s) is estimated near or below 0."""
    vs, vt, ve = c[..., 0], c[..., 1], c[..., 2]
    vt_pos = np.maximum(vt, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.stack([n_t * vs + ve, n_s * vt + ve, ve, (n_t * vs + vt_pos + ve) / (vt_pos + ve),
                         (n_t * vs + ve) / ve], axis=-1)


def _basic_intervals(adj: NDArray[np.float64], est3: tuple[float, float, float], sizes: tuple[int, ...],
                     level: float, n_d: float, target: float, n_s: int, n_t: int,
                     ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Expanded basic bootstrap intervals on the log mean-square scale (Davison & Hinkley 1997,
    eq. 5.6; Hesterberg 2015), for the six :data:`QUANTITIES`.

    ``adj`` are the bias-corrected (unclipped) replicate components, ``est3`` the unclipped
    estimates. For each pivot :math:`\psi` of :func:`_pivots` (E MS_s, E MS_t, σ²(st),
    :math:`1+n_t r_\Phi`, :math:`1+n_t r_E`), with :math:`q_a` the :math:`a`-quantile of its
    replicates, the interval is :math:`[\hat\psi^2/q_{1-\alpha'},\ \hat\psi^2/q_{\alpha'}]` — the
    basic interval of :math:`\log\psi` — with :math:`\alpha'` from :func:`_expanded_tail` for the
    ``sizes[k]`` units behind quantity ``k`` (the second-moment expansion but for σ²(st)). Back
    to the quantities: σ²(s) = (ψ − σ̂²(st))/n_t, σ²(t) = (ψ − σ̂²(st))/n_s, r = (ψ − 1)/n_t
    (each at least 0); Φ(n) = n r_Φ/(1 + n r_Φ) and Eρ²(n) = n r_E/(1 + n r_E) are increasing
    in the ratios and the topics needed decreasing in r_Φ. A mean square is a scaled χ² variable,
    so :math:`\log\psi` is the scale on which the bootstrap distribution of
    :math:`\hat\psi^*/\hat\psi` mimics that of :math:`\hat\psi/\psi`.
    """
    psi = _pivots(adj, n_s, n_t)
    psi0 = _pivots(np.asarray(est3, dtype=np.float64), n_s, n_t)
    lo, hi = np.empty(5), np.empty(5)
    for k in range(5):  # five quantities, each with its own expansion; σ²(st) is a mean over cells
        a = _expanded_tail(sizes[k], level, second_moment=k != 2)
        v = psi[:, k]
        v = v[np.isfinite(v)]
        if psi0[k] > 0 and v.size and np.all(v > 0):
            q_lo, q_hi = np.quantile(np.log(v), [a, 1 - a])
            lo[k], hi[k] = math.exp(2 * math.log(psi0[k]) - q_hi), math.exp(2 * math.log(psi0[k]) - q_lo)
        else:  # a degenerate matrix (a mean square of 0): the percentile interval
            lo[k], hi[k] = np.quantile(v, [a, 1 - a]) if v.size else (math.nan, math.nan)
    e0 = max(float(est3[2]), 0.0)
    comp_lo = np.maximum([(lo[0] - e0) / n_t, (lo[1] - e0) / n_s, lo[2]], 0.0)
    comp_hi = np.maximum([(hi[0] - e0) / n_t, (hi[1] - e0) / n_s, hi[2]], 0.0)
    r_lo, r_hi = np.maximum((lo[3:] - 1) / n_t, 0.0), np.maximum((hi[3:] - 1) / n_t, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        low = np.array([*comp_lo, *(n_d * r_lo / (1 + n_d * r_lo)), _topics_needed(np.array(r_hi[0]), target)])
        high = np.array([*comp_hi, *(n_d * r_hi / (1 + n_d * r_hi)), _topics_needed(np.array(r_lo[0]), target)])
    return low, high


def _derived(v_s, v_t, v_e, n_topics: float, target: float) -> NDArray[np.float64]:
    """Rows (var_s, var_t, var_e, Φ(n), Eρ²(n), topics needed for Φ ≥ target) of replicates."""
    vs, vt, ve = (np.maximum(v, 0.0) for v in (v_s, v_t, v_e))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(vs > 0, vs / (vt + ve), 0.0)
    return np.stack([vs, vt, ve, phi_from_components(vs, vt, ve, n_topics), erho2_from_components(vs, ve, n_topics),
                     _topics_needed(ratio, target)], axis=-1)


#: the bootstrap's rule for n_resamples (the table's minimum is 1): percentile intervals need a few replicates
_RESAMPLES = integer(10, fix="give the number of bootstrap replicates, e.g. `n_resamples=1000`")


def _counts_of(idx: NDArray[np.intp], n: int) -> NDArray[np.float64]:
    """(B, n) how often each index occurs in each row of ``idx``."""
    b = idx.shape[0]
    flat = (np.asarray(idx) + n * np.arange(b)[:, None]).ravel()
    return np.bincount(flat, minlength=b * n).reshape(b, n).astype(np.float64)


def _weighted_components(x: NDArray[np.float64], wr: NDArray[np.float64] | None,
                         wc: NDArray[np.float64] | None) -> NDArray[np.float64]:
    r"""(B, 3) ANOVA components of the resampled complete matrices, from the resampling counts.

    A resample that takes system :math:`s` :math:`w_s` times and topic :math:`t` :math:`v_t` times
    has the T terms :math:`T_s = \sum_s w_s (\sum_t v_t x_{st})^2/n_t`,
    :math:`T_t = \sum_t v_t (\sum_s w_s x_{st})^2/n_s`, :math:`T_{st} = \sum_{s,t} w_s v_t x_{st}^2`,
    :math:`T_\mu = (w'Xv)^2/(n_s n_t)`: three matrix products per batch instead of B copies.
    ``wr`` or ``wc`` None means every system (topic) once: the one-facet bootstraps then need a
    single matrix product."""
    n_s, n_t = x.shape
    xc = x - x.mean()  # the components do not depend on the origin; centring limits cancellation
    xc -= xc.mean()    # second pass: x.mean() of scores of 1e12 is itself off by ~1e-4
    if wr is None and wc is None:
        raise ValueError("at least one facet must be resampled")
    if wc is None:                     # boot-p: row sums fixed, column sums per resample
        r0 = xc.sum(axis=1)
        c = wr @ xc
        g = wr @ r0
        t_s = wr @ (r0 * r0) / n_t
        t_t = np.einsum("bt,bt->b", c, c) / n_s
        t_st = wr @ (xc * xc).sum(axis=1)
    elif wr is None:                   # boot-i: column sums fixed, row sums per resample
        c0 = xc.sum(axis=0)
        r = wc @ xc.T
        g = wc @ c0
        t_s = np.einsum("bs,bs->b", r, r) / n_t
        t_t = wc @ (c0 * c0) / n_s
        t_st = wc @ (xc * xc).sum(axis=0)
    else:
        r = wc @ xc.T                      # (B, n_s) row sums of each resample's distinct rows
        c = wr @ xc                        # (B, n_t) column sums
        g = np.einsum("bs,bs->b", wr, r)   # grand sum
        t_s = np.einsum("bs,bs->b", wr, r * r) / n_t
        t_t = np.einsum("bt,bt->b", wc, c * c) / n_s
        t_st = np.einsum("bt,bt->b", wr @ (xc * xc), wc)
    t_mu = g * g / (n_s * n_t)
    ms_s = (t_s - t_mu) / (n_s - 1)
    ms_t = (t_t - t_mu) / (n_t - 1)
    ms_e = (t_st - t_s - t_t + t_mu) / ((n_s - 1) * (n_t - 1))
    return np.stack([(ms_s - ms_e) / n_t, (ms_t - ms_e) / n_s, ms_e], axis=-1)


def _replicate_components(x: NDArray[np.float64], rows: NDArray[np.intp], cols: NDArray[np.intp],
                          method: str, start: tuple[float, float] | None) -> NDArray[np.float64]:
    """(B, 3) raw components of the resampled matrices ``x[rows[b]][:, cols[b]]``."""
    n_b = rows.shape[0]
    out = np.empty((n_b, 3))
    if method == "reml":
        from .reml import reml_components

        for b in range(n_b):  # one optimisation per replicate; warm-started
            c, _ = reml_components(x[np.ix_(rows[b], cols[b])], start=start)
            out[b] = (c.system, c.topic, c.residual)
        return out
    if method == "anova":  # complete matrix: the T terms from resampling counts, no copies
        n_s, n_t = x.shape
        kept_s = bool(np.all(rows == np.arange(n_s)))
        kept_t = bool(np.all(cols == np.arange(n_t)))
        return _weighted_components(x, None if kept_s else _counts_of(rows, n_s),
                                    None if kept_t else _counts_of(cols, n_t))
    chunk = max(1, int(4e6 // x.size))
    for lo in range(0, n_b, chunk):
        xb = x[rows[lo:lo + chunk, :, None], cols[lo:lo + chunk, None, :]]
        if method == "henderson":
            from .reml import henderson_components

            vc = henderson_components(xb)
        else:
            vc = variance_components(xb)
        out[lo:lo + chunk] = np.stack([vc.system, vc.topic, vc.residual], axis=-1)
    return out


@validate_params(n_resamples=_RESAMPLES)
def bootstrap(
    study: GStudy, *, n_resamples: int = 1000, over: Over = "both", seed: int | np.random.Generator | None = None,
    level: float = 0.95,
    n_topics: float | None = None, target: float = 0.95,
) -> BootstrapResult:
    r"""Bootstrap a G-study: resample systems, topics or both and re-estimate everything.

    Parameters
    ----------
    study : GStudy
        A result of :func:`gtheory.gstudy` (it keeps its score matrix).
    n_resamples : int
        Number of resamples :math:`B` (>= 10; 1000 is usual for 95 % percentile intervals). Keyword-only.
    over : {"both", "auto", "systems", "topics"}
        Brennan's boot-p,i (``"both"``, the default: it holds its level on real IR scores, see
        *On real IR scores* below), boot-p or boot-i; ``"auto"`` draws ``n_resamples`` boot-p and as many
        independent boot-i resamples and takes σ²(s), σ²(st) and Eρ² from boot-p, σ²(t) from
        boot-i, and Φ and the topics needed from σ²(s), σ²(st) of boot-p with σ²(t) of boot-i
        (calibrated on normal data, too short on real IR scores).
    seed : int, Generator or None
        Seed of ``numpy.random.default_rng``; the same seed gives the same result.
    level : float
        Two-sided confidence level (percentiles :math:`(1\pm\text{level})/2`).
    n_topics : float, optional
        Topics of the reported Φ(n) and Eρ²(n); default the study's (harmonic mean with missing cells).
    target : float
        Target Φ of the topics needed.

    Returns
    -------
    BootstrapResult
        ``interval(q)`` is the expanded basic interval on the log mean-square scale (the default;
        see below);
        the percentile and bias-corrected percentile intervals are kept for comparison.

    Notes
    -----
    *Which resampling.* A single-facet bootstrap reproduces the sampling variability of a
    quantity that depends on one facet's sample plus the cells: resampling systems reproduces
    the variance of σ̂²(s) and of Eρ̂² (which do not depend on which topics were drawn, only on
    the interaction) and, like resampling topics, that of σ̂²(st). Resampling both facets counts
    the interaction's contribution two to three times (McCullagh 2000; Owen 2007), so boot-p,i
    intervals are too wide for σ²(s), σ²(st), Φ and Eρ² (bias-corrected: .95–1.0; the raw
    percentile ones, pulled back by the replicates' bias, .91–.98 below) while boot-p and
    boot-i are blind to the other facet. Φ depends on both facets through σ²(t), hence
    ``over="auto"`` combines the boot-p replicate of σ²(s), σ²(st) with an independent boot-i
    replicate of σ²(t). This follows Brennan (2001, ch. 6; Tong & Brennan 2007) for σ²(s) and
    σ²(t); for σ²(st) boot-p (not the adjusted boot-p,i Brennan lists) is used because the
    coverage table shows boot-p,i's interval to be far too wide.

    *Which interval.* Percentile intervals of variance components are too short at these sizes
    (Schenker 1985: the bootstrap distribution of a variance is skewed the wrong way and too
    narrow; .82–.94 for the percentile intervals of the same replicates). The default interval is the *basic* interval (Davison & Hinkley 1997,
    eq. 5.6) of the logarithm of a positive mean-square pivot ψ — E MS_s = n_t σ²(s) + σ²(st) for
    σ²(s), E MS_t for σ²(t), σ²(st), :math:`1 + n_t r_\Phi` for Φ(n) and the topics needed, and
    the F ratio :math:`1 + n_t σ^2_s/σ^2_{st}` for Eρ²(n) — i.e. :math:`[\hat\psi^2/q_{1-\alpha'},
    \hat\psi^2/q_{\alpha'}]` from quantiles of the bias-corrected replicates, mapped back to the
    quantity (:func:`_basic_intervals`): right for a scaled χ² statistic, since
    :math:`\hat\psi^*/\hat\psi` mimics :math:`\hat\psi/\psi`, and defined when σ²(s) is
    estimated near 0. The tail is *expanded* (Hesterberg 2015; :func:`_expanded_tail`) for the
    number of resampled systems (topics for σ²(t); the fewer of the two for Φ).

    *Measured coverage* of nominal 95 % intervals (complete normal matrices with known
    components σ²(t) = .25, σ²(st) = 1; 1000 matrices, B = 1000 each; the slow-marked test in
    ``tests/test_gtheory_gstudy_bootstrap.py`` asserts 93–97 % for ``"auto"`` at three sizes); order
    σ²(s) / σ²(t) / σ²(st) / Φ(nₜ) / Eρ²(nₜ) / topics needed; more columns in docs/gtheory.md:

    ==============  ========================================  ========================================
    nₛ × nₜ, σ²ₛ    auto, basic                               boot-p,i percentile
    ==============  ========================================  ========================================
    30 × 30, 0.1    .947 / .966 / .954 / .948 / .951 / .948   .983 / .983 / .958 / .978 / .972 / .978
    60 × 50, 0.1    .939 / .948 / .947 / .942 / .939 / .942   .960 / .961 / .963 / .953 / .951 / .953
    60 × 50, 0.05   .935 / .948 / .947 / .938 / .935 / .940   .926 / .961 / .963 / .908 / .906 / .909
    30 × 30, 0.05   .951 / .966 / .954 / .953 / .955 / .953   .974 / .983 / .958 / .970 / .962 / .972
    100 × 50, 0.1   .952 / .959 / .956 / .956 / .954 / .956   .955 / .961 / .958 / .944 / .932 / .944
    50 × 100, 0.1   .944 / .958 / .955 / .939 / .947 / .942   .972 / .979 / .963 / .970 / .966 / .971
    ==============  ========================================  ========================================

    *On real IR scores* ``"auto"`` is too short (population resampling of real AP, P@10 and nDCG@20
    matrices, ``benchmarks/coverage_real.py``; docs/gtheory.md, "Coverage on real IR scores"):
    σ²(st) .62–.84, Φ(50) and the topics needed .78–.95, σ²(s) and Eρ²(50) .85–.96. The residual
    variance differs widely from topic to topic there, and boot-p keeps the topics. ``over="both"``
    with the basic interval covers .94–.998 (σ²(t) from 25–50 Web 2010 nDCG@20 topics: .85–.95) and .97–.999 on
    the normal matrices above — conservative, never short — so it is the default: a "95 %" interval that
    covers 62 % would be a silent wrong number for the IR scores this package is for.

    Vectorised: complete matrices are resampled through the resampling counts (three matrix
    products per batch, no copies); with missing cells the resampled matrices are built by fancy
    indexing in chunks and re-estimated in one batched call
    (:func:`gtheory.gstudy.reml.henderson_components`; REML one replicate at a time).

    References: Davison & Hinkley (1997) *Bootstrap Methods and their Application*, §5.2–5.3;
    T. Hesterberg (2015) What teachers should know about the bootstrap, *Am. Stat.* 69(4);
    N. Schenker (1985) Qualms about bootstrap confidence intervals, *JASA* 80; P. McCullagh
    (2000) Resampling and exchangeable arrays, *Bernoulli* 6(2); A. B. Owen (2007) The pigeonhole
    bootstrap, *Ann. Appl. Stat.* 1(2); Brennan (2001) ch. 6; Tong & Brennan (2007).
    """
    if over not in _PROCEDURE:
        raise ParameterError("over", f"`over` must be 'auto', 'systems', 'topics' or 'both'; got {over!r}.")
    x = getattr(study, "scores", None)
    if x is None:
        raise ValueError("this G-study does not keep its score matrix; compute it with gtheory.gstudy(...).")
    method = getattr(study, "method", "anova")
    n_s, n_t = x.shape
    nd = float(study.n_topics_harmonic) if method != "anova" else float(n_t)
    n_d = nd if n_topics is None else float(n_topics)
    if not (n_d > 0 and math.isfinite(n_d)):
        raise ValueError(f"`n_topics` must be positive and finite; got {n_topics!r}.")
    rng = np.random.default_rng(seed)
    all_s, all_t = np.broadcast_to(np.arange(n_s), (n_resamples, n_s)), np.broadcast_to(np.arange(n_t), (n_resamples, n_t))
    rows = rng.integers(0, n_s, size=(n_resamples, n_s)) if over != "topics" else all_s
    cols = rng.integers(0, n_t, size=(n_resamples, n_t)) if over != "systems" else all_t
    start = None
    if method == "reml":
        e = max(study.var_residual_raw, 1e-12)
        start = (math.sqrt(max(study.var_system_raw, 1e-4 * e) / e), math.sqrt(max(study.var_topic_raw, 1e-4 * e) / e))
    est = (study.var_system, study.var_topic, study.var_residual)
    common = dict(n_resamples=n_resamples, seed=seed, level=level, n_d=n_d, target=target, method=method, n_s=n_s, n_t=n_t,
                  est_raw=(study.var_system_raw, study.var_topic_raw, study.var_residual_raw))
    if over != "auto":
        raw = _replicate_components(x, np.asarray(rows), np.asarray(cols), method, start)
        adj = np.stack(bias_adjust(raw[:, 0], raw[:, 1], raw[:, 2], n_s, n_t, over), axis=-1)
        return _assemble(raw, adj, est, over=over, **common)
    # boot-p and an independent boot-i; each quantity from the procedure that fits it
    raw_p = _replicate_components(x, np.asarray(rows), np.asarray(all_t), method, start)
    raw_i = _replicate_components(x, np.asarray(all_s), np.asarray(cols), method, start)
    adj_p = np.stack(bias_adjust(raw_p[:, 0], raw_p[:, 1], raw_p[:, 2], n_s, n_t, "systems"), axis=-1)
    adj_i = np.stack(bias_adjust(raw_i[:, 0], raw_i[:, 1], raw_i[:, 2], n_s, n_t, "topics"), axis=-1)
    raw = np.stack([raw_p[:, 0], raw_i[:, 1], raw_p[:, 2]], axis=-1)
    adj = np.stack([adj_p[:, 0], adj_i[:, 1], adj_p[:, 2]], axis=-1)
    return _assemble(raw, adj, est, over=over, **common)


def _assemble(raw: NDArray[np.float64], adj: NDArray[np.float64], est3: tuple[float, float, float], *, over: str,
              n_resamples: int, seed: int | None, level: float, n_d: float, target: float, method: str, n_s: int, n_t: int,
              est_raw: tuple[float, float, float], selection: str = "") -> BootstrapResult:
    """The :class:`BootstrapResult` of raw and bias-corrected replicate components (B, 3); ``est3``
    the reported (clipped) estimates, ``est_raw`` the unclipped ones."""
    sources = _AUTO_SOURCES if over == "auto" else (over if over != "both" else "systems+topics",) * len(QUANTITIES)
    size = {"systems": n_s, "topics": n_t, "systems+topics": min(n_s, n_t)}
    basic_lo, basic_hi = _basic_intervals(adj, est_raw, tuple(size[s] for s in sources[:5]), level, n_d, target,
                                          n_s, n_t)
    rep = _derived(raw[:, 0], raw[:, 1], raw[:, 2], n_d, target)
    rep_adj = _derived(adj[:, 0], adj[:, 1], adj[:, 2], n_d, target)
    est = _derived(*(np.array(v) for v in est3), n_d, target)
    a = (1.0 - level) / 2.0

    def q(r: NDArray[np.float64], p: float) -> tuple[float, ...]:
        big = np.finfo(np.float64).max / 4  # inf (topics needed never reached) survives interpolation
        v = np.quantile(np.where(np.isposinf(r), big, r), p, axis=0, method="linear")
        return tuple(math.inf if x >= big else float(x) for x in v)

    def sd(r: NDArray[np.float64]) -> tuple[float, ...]:
        with np.errstate(invalid="ignore"):
            return tuple(float(np.std(c[np.isfinite(c)], ddof=1)) if np.isfinite(c).sum() > 1 else math.nan
                         for c in r.T)

    def mean(r: NDArray[np.float64]) -> tuple[float, ...]:
        return tuple(float(v) for v in r.mean(axis=0))

    return BootstrapResult(
        over=over, n_resamples=int(n_resamples), seed=int(seed) if isinstance(seed, (int, np.integer)) else None, level=float(level),
        n_topics=n_d, target=float(target), method=method, n_systems=n_s, n_topics_study=n_t,
        quantities=QUANTITIES, estimate=tuple(float(v) for v in est),
        mean=mean(rep), mean_adjusted=mean(rep_adj), se=sd(rep), se_adjusted=sd(rep_adj),
        percentile_low=q(rep, a), percentile_high=q(rep, 1 - a), bc_low=q(rep_adj, a), bc_high=q(rep_adj, 1 - a),
        basic_low=tuple(float(v) for v in basic_lo), basic_high=tuple(float(v) for v in basic_hi),
        valid_for=_VALID_FOR[over], sources=sources, selection=selection, replicates=rep, replicates_adjusted=rep_adj,
    )


@validate_params(n_resamples=_RESAMPLES)
def dstudy_subset(
    study: GStudy, *, n_resamples: int = 1000, top: int | None = None, drop_lowest: float | None = None,
    over: Over = "topics", seed: int | np.random.Generator | None = None, level: float = 0.95,
    n_topics: float | None = None, target: float = 0.95,
) -> BootstrapResult:
    r"""D-study for the systems a future collection will compare: the best ``top`` systems, or all
    but the lowest ``drop_lowest`` fraction (TREC practice: 0.25), with bootstrap intervals.

    σ²(s) shrinks when only good systems are compared, so the topics needed for a target Φ grow.
    The selection is data-dependent, so every bootstrap replicate *re-selects* the systems by
    their mean score on the resampled topics (and systems) before re-estimating the components —
    the interval then includes the selection's own uncertainty.

    Parameters
    ----------
    study : GStudy
        A complete-matrix G-study (:func:`gtheory.gstudy`).
    top : int, optional
        Keep the ``top`` systems with the highest mean (>= 2); ties at the cut (means equal up to
        rounding) go in input order.
    drop_lowest : float, optional
        Drop this fraction of systems with the lowest mean (as :func:`gtheory.gstudy`'s
        ``drop_lowest``: below the quantile); the replicates keep the same number of systems.
    n_resamples, over, seed, level, n_topics, target
        As :func:`bootstrap`; the default ``over="topics"`` resamples the topics of a future
        collection and keeps the candidate systems.

    Returns
    -------
    BootstrapResult
        Estimates on the selected systems of the original data; ``selection`` says which.

    Examples
    --------
    >>> import numpy as np, gtheory
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(0, .3, (40, 1)) + rng.normal(0, .5, (1, 50)) + rng.normal(0, .5, (40, 50))
    >>> g = gtheory.gstudy(X)
    >>> sub = dstudy_subset(g, n_resamples=200, drop_lowest=0.25, seed=1)
    >>> sub.n_systems
    30
    >>> bool(sub.estimate[0] < g.var_system)   # the better 75 % of systems differ less
    True
    """
    if over not in _PROCEDURE:
        raise ParameterError("over", f"`over` must be 'auto', 'systems', 'topics' or 'both'; got {over!r}.")
    if over == "auto":
        raise ValueError("`over` must be 'topics', 'systems' or 'both' for dstudy_subset (the systems are "
                         "re-selected in every resample); got 'auto'.")
    x = getattr(study, "scores", None)
    if x is None or getattr(study, "method", "anova") != "anova":
        raise ValueError("`dstudy_subset` needs a complete-matrix G-study from gtheory.gstudy(...).")
    n_all, n_t = x.shape
    if (top is None) == (drop_lowest is None):
        raise ValueError("give exactly one of `top` (number of best systems) and `drop_lowest` (fraction).")
    means = tie_values(x.mean(axis=1))  # means equal in exact arithmetic are ties, whatever the rounding
    if top is not None:
        if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or not 2 <= top <= n_all:
            raise ValueError(f"`top` must be an integer in [2, {n_all}]; got {top!r}.")
        k, selection = int(top), f"top {int(top)} of {n_all} by mean score"
        keep = np.sort(np.argsort(-means, kind="stable")[:k])
    else:
        if isinstance(drop_lowest, bool) or not isinstance(drop_lowest, (int, float)) or not 0 <= drop_lowest < 1:
            raise ValueError(f"`drop_lowest` must be a fraction in [0, 1); got {drop_lowest!r}.")
        keep = np.flatnonzero(means >= np.quantile(means, drop_lowest))
        k = keep.size
        selection = f"{k} of {n_all} (lowest {drop_lowest:.0%} by mean score dropped)"
        if k < 2:
            raise ValueError(f"`drop_lowest`={drop_lowest!r} leaves {k} system(s); at least 2 are needed.")
    vc = variance_components(x[keep])
    est_raw = tuple(float(v) for v in (vc.system, vc.topic, vc.residual))
    est3 = tuple(max(v, 0.0) for v in est_raw)
    n_d = float(n_t) if n_topics is None else float(n_topics)
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, n_all, size=(n_resamples, n_all)) if over in ("systems", "both") else np.broadcast_to(np.arange(n_all), (n_resamples, n_all))
    cols = rng.integers(0, n_t, size=(n_resamples, n_t)) if over in ("topics", "both") else np.broadcast_to(np.arange(n_t), (n_resamples, n_t))
    raw = np.empty((n_resamples, 3))
    chunk = max(1, int(4e6 // x.size))
    for lo in range(0, n_resamples, chunk):
        xb = x[np.asarray(rows[lo:lo + chunk])[:, :, None], np.asarray(cols[lo:lo + chunk])[:, None, :]]
        order = np.argsort(-tie_values(xb.mean(axis=2)), axis=1, kind="stable")[:, :k]   # re-select per replicate
        sub = np.take_along_axis(xb, order[:, :, None], axis=1)
        v = variance_components(sub)
        raw[lo:lo + chunk] = np.stack([v.system, v.topic, v.residual], axis=-1)
    adj = np.stack(bias_adjust(raw[:, 0], raw[:, 1], raw[:, 2], k, n_t, over), axis=-1)
    return _assemble(raw, adj, est3, over=over, n_resamples=n_resamples, seed=seed, level=level, n_d=n_d, target=target, method="anova",
                     n_s=k, n_t=n_t, est_raw=est_raw, selection=selection)
