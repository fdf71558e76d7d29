r"""The power of a significance test and the expected width of a confidence interval at ``n`` topics, for the
topic set size design (Sakai, "Topic set size design", *Information Retrieval Journal* 19, 2016; Sakai,
*Laboratory Experiments in Information Retrieval*, Springer 2018, ch. 6): :func:`power_at`,
:func:`expected_ci_width` and :func:`min_detectable_difference`; :mod:`gtheory.topics.topic_set_size` searches
the smallest ``n`` that meets a requirement (the methods and the variance are described there).

With :math:`n` topics:

==============  ========================================================  =====================================
method          statistic under the alternative                           power at level α
==============  ========================================================  =====================================
paired-t        noncentral t, :math:`\nu=n-1`, :math:`\lambda=D\sqrt{n}/\sigma_d`      :math:`P(|T|\ge t_{\nu,1-\alpha/2})`
two-sample-t    noncentral t, :math:`\nu=2(n-1)`, :math:`\lambda=D\sqrt{n/2}/\sigma`   same
anova           noncentral F, :math:`(m-1, m(n-1))`, :math:`\lambda=nD^2/(2\sigma^2)`  :math:`P(F\ge F_{m-1,m(n-1),1-\alpha})`
==============  ========================================================  =====================================

and for ``"ci"`` the expected width :math:`E[W]=2\,t_{n-1,1-\alpha/2}\,c_4(n)\,\sigma_d/\sqrt{n}` with
:math:`c_4(n)=\sqrt{2/(n-1)}\,\Gamma(n/2)/\Gamma((n-1)/2)` (so that :math:`E[s]=c_4\sigma`).

``approximation="exact"`` evaluates these with scipy's noncentral t and F (:mod:`gtheory.topics.noncentral`);
``approximation="nagata"`` by the normal approximations Nagata (2003) uses (Johnson & Welch for the noncentral t,
Severo & Zelen / Laubscher for the noncentral F).
"""
from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import ParameterError
from ..kit.params import check_param, choice, validate_params

__all__ = ["power_at", "expected_ci_width", "min_detectable_difference", "METHODS"]

Method = Literal["paired-t", "two-sample-t", "anova", "ci"]


#: the methods of :func:`topic_set_size`
METHODS: tuple[str, ...] = ("paired-t", "two-sample-t", "anova", "ci")


_POWER_METHODS = ("paired-t", "two-sample-t", "anova")


# --------------------------------------------------------------------------------------------- argument checks
#: the rules of this module's own choices (the parameter table's constructors, gtheory.kit.params)
_METHOD = choice(*METHODS)


def _check_positive(name: str, value: Any) -> float:
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if not ok or not (math.isfinite(float(value)) and float(value) > 0):
        raise ParameterError(name, f"`{name}` must be a positive finite number; got {value!r}.")
    return float(value)


def _check_systems(method: str, n_systems: Any) -> int | None:
    if method != "anova":
        if n_systems is not None:
            raise ParameterError("n_systems", f"`n_systems` applies to method='anova' only; got {n_systems!r} "
                                              f"with method={method!r}.")
        return None
    ok = isinstance(n_systems, (int, np.integer)) and not isinstance(n_systems, bool)
    if not ok or n_systems < 2:
        raise ParameterError("n_systems", f"`n_systems` must be an integer >= 2 (the systems the ANOVA compares); "
                                          f"got {n_systems!r}.")
    return int(n_systems)


def _check_topics(n: ArrayLike) -> NDArray[np.float64]:
    a = np.asarray(n, dtype=np.float64)
    if a.size == 0 or not np.all(np.isfinite(a)) or np.any(a < 2) or np.any(a != np.floor(a)):
        raise ParameterError("n", f"`n` (topics) must be integers >= 2; got {n!r}.")
    return a


# ------------------------------------------------------------------------------------------------ power (exact)
def _exact_power(method: str, n: NDArray[np.float64], d: NDArray[np.float64] | float, var: float, alpha: float,
                 m: int | None) -> NDArray[np.float64]:
    """The exact power (noncentral t / F), by :mod:`gtheory.topics.noncentral`: Boost's tails, and where Boost returns NaN
    (a lower tail below 1e-16 at ncp >= 6.3, both tails from ncp 36, the F from ncp 1e19) a quadrature that always
    answers."""
    from .noncentral import f_crit, ncf_sf, nct_power, t_crit

    d = np.abs(d)
    with np.errstate(over="ignore"):
        if method == "anova":
            assert m is not None
            df1, df2 = m - 1.0, m * (n - 1.0)
            lam = np.minimum(n * d**2 / (2.0 * var), 1e300)  # beyond, the power is 1 (and inf would be NaN)
            crit = f_crit(df1, df2, alpha)
            p = ncf_sf(crit, df1, df2, lam)
        else:
            df, lam = _t_df_ncp(method, n, d, var)
            crit = t_crit(df, alpha)
            p = nct_power(crit, df, lam)
    return np.asarray(np.clip(p, 0.0, 1.0), dtype=np.float64)


def _t_df_ncp(method: str, n: NDArray[np.float64], d: Any, var: float) -> tuple[Any, Any]:
    if method == "paired-t":  # differences of two systems on the same topics: σ_d² = 2σ²
        return n - 1.0, d * np.sqrt(n / (2.0 * var))
    return 2.0 * (n - 1.0), d * np.sqrt(n / 2.0) / np.sqrt(var)  # two-sample: n topics per system


# ------------------------------------------------------------------------------------------- power (Nagata's)
def _nagata_power(method: str, n: NDArray[np.float64], d: Any, var: float, alpha: float,
                  m: int | None) -> NDArray[np.float64]:
    r"""Nagata's (2003) normal approximations of the power, as in Sakai (2016, eqs. of §3.1–3.2).

    t-tests: :math:`1-\beta \approx \bar\Phi\big((w(1-\tfrac1{4\phi})-\lambda)/\sqrt{1+w^2/(2\phi)}\big) +
    \Phi\big((-w(1-\tfrac1{4\phi})-\lambda)/\sqrt{1+w^2/(2\phi)}\big)` with :math:`w=t_{\phi,1-\alpha/2}`.
    ANOVA: :math:`1-\beta\approx\bar\Phi(c)`, :math:`c=\big(\sqrt{(2\phi_E-1)\phi_A F/\phi_E}-
    \sqrt{2(\phi_A+\lambda)-(\phi_A+2\lambda)/(\phi_A+\lambda)}\big)/\sqrt{\phi_A F/\phi_E+(\phi_A+2\lambda)/
    (\phi_A+\lambda)}` with :math:`F=F_{\phi_A,\phi_E,1-\alpha}`.
    """
    from scipy.special import ndtr  # the normal tails scipy.stats.norm evaluates, without importing scipy.stats

    from .noncentral import f_crit, t_crit

    d = np.abs(d)
    if method == "anova":
        assert m is not None
        fa, fe = m - 1.0, m * (n - 1.0)
        with np.errstate(over="ignore"):
            lam = np.minimum(n * d**2 / (2.0 * var), 1e300)  # an infinite λ would make b NaN; the power is 1
        F = f_crit(fa, fe, alpha)
        a = fa * F / fe
        b = (fa + 2.0 * lam) / (fa + lam)
        c = (np.sqrt(a * (2.0 * fe - 1.0)) - np.sqrt(2.0 * (fa + lam) - b)) / np.sqrt(a + b)
        return np.asarray(ndtr(-c), dtype=np.float64)
    phi, lam = _t_df_ncp(method, n, d, var)
    w = t_crit(phi, alpha)
    shrink, scale = w * (1.0 - 1.0 / (4.0 * phi)), np.sqrt(1.0 + w**2 / (2.0 * phi))
    return np.asarray(ndtr(-(shrink - lam) / scale) + ndtr((-shrink - lam) / scale),
                      dtype=np.float64)


@validate_params()
def power_at(method: str, n: ArrayLike, *, min_diff: float, variance: float, alpha: float = 0.05,
             n_systems: int | None = None, approximation: str = "exact") -> float | NDArray[np.float64]:
    r"""Power of a test with ``n`` topics (per system) to detect a true difference ``min_diff``.

    ``method`` is ``"paired-t"``, ``"two-sample-t"`` or ``"anova"`` (``n_systems`` systems, least favourable
    configuration); ``variance`` is the within-system :math:`\sigma^2` (:func:`within_system_variance`). Exact
    (noncentral t / F, two-sided) or Nagata's normal approximation; the formulas are in the module docstring.
    A scalar ``n`` gives a float, an array an array. Used for the achieved power of an existing experiment
    (Sakai, SIGIR 2016: post-hoc power) with ``n`` its number of topics.

    >>> round(float(power_at("paired-t", 50, min_diff=0.05, variance=0.02)), 3)
    0.41
    """
    method = check_param("method", method, _METHOD)
    if method == "ci":
        raise ParameterError("method", "`method` 'ci' has no power; use expected_ci_width.")
    m = _check_systems(method, n_systems)
    a = _check_topics(n)
    d = _check_positive("min_diff", min_diff)
    var = _check_positive("variance", variance)
    fn = _exact_power if approximation == "exact" else _nagata_power
    p = fn(method, a, d, var, alpha, m)
    return float(p) if a.ndim == 0 else p


@validate_params()
def expected_ci_width(n: ArrayLike, *, variance: float, alpha: float = 0.05) -> float | NDArray[np.float64]:
    r"""Expected width of the two-sided ``1-alpha`` confidence interval of a paired difference with ``n`` topics.

    :math:`E[W] = 2\,t_{n-1,1-\alpha/2}\,c_4(n)\sqrt{2\sigma^2/n}`, :math:`c_4(n)=\sqrt{2/(n-1)}\,
    \Gamma(n/2)/\Gamma((n-1)/2)` (the mean of the sample standard deviation over σ for normal data; Sakai 2016,
    §3.3, after Nagata 2003).

    >>> round(float(expected_ci_width(100, variance=0.02)), 4)
    0.0792
    """
    from scipy import special

    from .noncentral import t_crit

    a = _check_topics(n)
    var = _check_positive("variance", variance)
    c4 = np.sqrt(2.0 / (a - 1.0)) * np.exp(special.gammaln(a / 2.0) - special.gammaln((a - 1.0) / 2.0))
    w = 2.0 * t_crit(a - 1.0, alpha) * c4 * np.sqrt(2.0 * var / a)
    return float(w) if a.ndim == 0 else np.asarray(w, dtype=np.float64)


@validate_params()
def min_detectable_difference(method: str, n: ArrayLike, *, variance: float, alpha: float = 0.05, power: float = 0.8,
                              n_systems: int | None = None,
                              approximation: str = "exact") -> float | NDArray[np.float64]:
    r"""The smallest true difference a test with ``n`` topics detects with probability ``power``.

    Solves ``power_at(method, n, min_diff=D, ...) = power`` for ``D`` (power rises with ``D``; Brent's method
    on a bracket found by at most 20 doublings and 40 halvings of σ). For ``method="ci"`` it is the expected CI
    width at ``n`` (:func:`expected_ci_width`): the finest difference the interval resolves. A scalar ``n`` gives
    a float, an array (or list) of sizes an array of the same shape, one solution per size.

    >>> [round(float(v), 4) for v in min_detectable_difference("paired-t", [50, 100], variance=0.02)]
    [0.0808, 0.0566]
    """
    method = check_param("method", method, _METHOD)
    sizes = _check_topics(n)
    if method == "ci":
        w = expected_ci_width(sizes, variance=variance, alpha=alpha)
        return float(w) if sizes.ndim == 0 else np.asarray(w, dtype=np.float64)
    target = power  # power and alpha: the parameter table (gtheory.kit.params)
    var = _check_positive("variance", variance)
    if target <= alpha:
        raise ParameterError("power", f"`power` must exceed `alpha` ({alpha:g}): any difference is detected with "
                                      f"probability >= alpha; got {power!r}.")
    m = _check_systems(method, n_systems)
    fn = _exact_power if approximation == "exact" else _nagata_power
    if sizes.ndim == 0:
        return _detectable(fn, method, np.float64(sizes), var, alpha, target, m)
    out = [_detectable(fn, method, np.float64(k), var, alpha, target, m) for k in sizes.ravel()]
    return np.asarray(out, dtype=np.float64).reshape(sizes.shape)


def _detectable(fn: Any, method: str, nn: np.float64, var: float, alpha: float, target: float,
                m: int | None) -> float:
    """The root in D of ``fn(method, nn, D, ...) = target`` (one size)."""
    from .roots import brentq

    sd = math.sqrt(var)

    def gap(d: float) -> float:
        return float(fn(method, nn, d, var, alpha, m)) - target

    hi = sd
    while gap(hi) < 0:
        hi *= 2.0
        if hi > 1e6 * sd:  # pragma: no cover - power → 1 as D grows, so this is never reached
            return math.inf
    lo = hi / 2.0
    while lo > 1e-12 * sd and gap(lo) > 0:
        lo /= 2.0
    return brentq(gap, lo, hi, xtol=1e-12 * sd, rtol=1e-12)
