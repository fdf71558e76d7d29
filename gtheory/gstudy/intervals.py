r"""Confidence intervals for Eρ² (Feldt) and Φ (Arteaga et al.) in the crossed s × t design.

Both intervals are functions of the three mean squares only, so they are unaffected by the
clipping of negative variance components. They are built for a single topic and projected to
:math:`n'` topics with the Spearman–Brown form, which is monotone, so the projected bounds keep
their coverage and the interval for the number of topics needed follows by inversion.

References
----------
.. [1] L. S. Feldt (1965). The approximate sampling distribution of Kuder–Richardson
       reliability coefficient twenty. *Psychometrika* 30(3):357–370.
.. [2] C. Arteaga, S. Jeyaratnam and G. A. Franklin (1982). Confidence intervals for proportions
       of total variance in the two-way cross component of variance model. *Communications in
       Statistics — Theory and Methods* 11(15):1643–1658.
.. [3] R. L. Brennan (2001). *Generalizability Theory*. Springer. Ch. 6 (§6.2, Tables 6.2, 6.5).
.. [4] J. Urbano, M. Marrero and D. Martín (2013). On the measurement of test collection
       reliability. *SIGIR 2013*, 393–402; R package ``gt4ireval`` (``dstudy``), whose formula
       for the Arteaga et al. interval is the one implemented here.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..kit.params import validate_params

__all__ = ["feldt_ratio_bounds", "arteaga_ratio_bounds", "project", "topics_for_ratio"]


def _f_ppf(q: float, dfn: float, dfd: float) -> float:
    """The F(dfn, dfd) quantile at ``q`` in (0, 1): ``scipy.special.fdtri``, the function ``scipy.stats.f.ppf``
    calls, without importing ``scipy.stats`` (about 1 s of a command's start-up; scipy.special costs 0.2 s)."""
    from scipy.special import fdtri

    return float(fdtri(dfn, dfd, q))


def _chi2_ppf(q: float, df: float) -> float:
    """The χ²(df) quantile at ``q`` in (0, 1): ``2 * gammaincinv(df / 2, q)``, as ``scipy.stats.chi2.ppf``
    computes it (see :func:`_f_ppf`)."""
    from scipy.special import gammaincinv

    return float(2.0 * gammaincinv(df / 2.0, q))


def _alpha(level: float) -> float:
    return (1.0 - level) / 2.0  # level: checked by the public functions (gtheory.kit.params)


@validate_params()
def feldt_ratio_bounds(
    ms_system: ArrayLike, ms_residual: ArrayLike, n_systems: int, n_topics: int, level: float = 0.95
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Two-sided bounds for :math:`r = \sigma^2_s/\sigma^2_{st}` from Feldt's F interval.

    Under normality :math:`\frac{MS_s/MS_{st}}{E[MS_s]/E[MS_{st}]} \sim F(n_s-1,(n_s-1)(n_t-1))`
    and :math:`E[MS_s]/E[MS_{st}] = 1 + n_t r`, hence, with :math:`F_o = MS_s/MS_{st}` and
    :math:`\alpha = (1-\text{level})/2`,

    .. math::

        r_{low} = \frac{F_o / F_{1-\alpha} - 1}{n_t}, \qquad
        r_{high} = \frac{F_o / F_{\alpha} - 1}{n_t},

    and :math:`E\rho^2(n') = n'r/(1+n'r)`. Bounds are clipped at 0 (a negative ratio bound
    means the interval for Eρ² reaches 0). Mean squares may be arrays (broadcast).
    Feldt (1965); Brennan (2001) §6.2.
    """
    a = _alpha(level)
    df_s = n_systems - 1
    df_e = (n_systems - 1) * (n_topics - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        f_obs = np.asarray(ms_system, dtype=np.float64) / np.asarray(ms_residual, dtype=np.float64)
        lo = (f_obs / _f_ppf(1 - a, df_s, df_e) - 1) / n_topics
        hi = (f_obs / _f_ppf(a, df_s, df_e) - 1) / n_topics
    return np.maximum(lo, 0.0), np.maximum(hi, 0.0)


def _arteaga_phi1(
    ms_s: NDArray[np.float64], ms_t: NDArray[np.float64], ms_e: NDArray[np.float64], n_s: int, n_t: int,
    q: float,
) -> NDArray[np.float64]:
    """Arteaga et al. (1982) bound for Φ with one topic, at lower-tail probability ``q``."""
    df_s, df_t = n_s - 1, n_t - 1
    df_e = df_s * df_t
    f1 = _chi2_ppf(q, df_s) / df_s  # F(df_s, ∞) quantile; scipy's f.ppf gives NaN for ∞
    f2 = _f_ppf(q, df_s, df_e)
    f3 = _f_ppf(q, df_s, df_t)
    num = ms_s**2 - f1 * ms_s * ms_e + (f1 - f2) * f2 * ms_e**2
    den = (n_s - 1) * f1 * ms_s * ms_e + f3 * ms_s * ms_t
    # λ ≤ 0 when the system mean square is too small for the quantile (bound at 0); λ = ∞ when the topic and
    # residual mean squares vanish (scores vary only between systems: bound at 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(num <= 0, 0.0, np.where(den > 0, num / np.where(den > 0, den, 1.0), np.inf))
        return np.where(np.isinf(lam), 1.0, n_s * lam / (n_s * lam + n_t))


@validate_params()
def arteaga_ratio_bounds(
    ms_system: ArrayLike, ms_topic: ArrayLike, ms_residual: ArrayLike, n_systems: int, n_topics: int,
    level: float = 0.95,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Two-sided bounds for :math:`r = \sigma^2_s/(\sigma^2_t+\sigma^2_{st})` (Arteaga et al. 1982).

    With :math:`\alpha=(1-\text{level})/2`, :math:`F_1 = F_{1-\alpha}(n_s-1, \infty)`,
    :math:`F_2 = F_{1-\alpha}(n_s-1, (n_s-1)(n_t-1))`, :math:`F_3 = F_{1-\alpha}(n_s-1, n_t-1)`,

    .. math::

        \lambda_{low} = \frac{MS_s^2 - F_1 MS_s MS_{st} + (F_1-F_2) F_2 MS_{st}^2}
                             {(n_s-1) F_1 MS_s MS_{st} + F_3 MS_s MS_t}, \qquad
        \Phi_{low}(1) = \frac{n_s\lambda_{low}}{n_s\lambda_{low} + n_t},

    and the upper bound is the same with the :math:`\alpha` quantiles. (With all three F
    quantiles equal to 1 this is exactly the point estimate of Φ(1).) The single-topic bound is
    returned as the ratio :math:`r = \Phi(1)/(1-\Phi(1))`, clipped to :math:`[0, \infty]`, so that
    :math:`\Phi(n') = n'r/(1+n'r)`. Mean squares may be arrays (broadcast). Formula as in
    Brennan (2001) §6.2 and ``gt4ireval::dstudy`` (Urbano et al. 2013).
    """
    a = _alpha(level)
    ms = [np.asarray(m, dtype=np.float64) for m in (ms_system, ms_topic, ms_residual)]
    out = []
    for q in (1 - a, a):
        phi1 = _arteaga_phi1(*ms, n_systems, n_topics, q)
        phi1 = np.clip(np.where(np.isnan(phi1), 0.0, phi1), 0.0, 1.0)
        with np.errstate(divide="ignore"):
            out.append(np.where(phi1 >= 1.0, np.inf, phi1 / (1.0 - phi1)))
    return np.minimum(out[0], out[1]), np.maximum(out[0], out[1])


def project(ratio: float | ArrayLike, n_topics: ArrayLike) -> NDArray[np.float64]:
    r"""D-study coefficient (Φ or Eρ²) for ``n_topics`` topics from its single-topic ratio: :math:`nr/(1+nr)`.

    Parameters
    ----------
    ratio : float or array_like
        The single-topic ratio :math:`r`: for Φ, :math:`r = \sigma^2_s/(\sigma^2_t+\sigma^2_{st})`
        (:attr:`GStudy.phi_ratio`); for Eρ², :math:`r = \sigma^2_s/\sigma^2_{st}`
        (:attr:`GStudy.erho2_ratio`). ``inf`` when the error variance is 0.
    n_topics : float or array_like
        D-study number(s) of topics :math:`n`; broadcast against ``ratio``.

    Returns
    -------
    ndarray
        :math:`nr/(1+nr)`, of the broadcast shape (0-d for scalars; ``float(...)`` for a number):
        1 where ``ratio`` is ``inf``, NaN where it is NaN, 0 where it is 0 or negative (a negative
        ratio means a negative estimate of :math:`\sigma^2_s`, taken as 0 — Brennan's convention,
        as :meth:`GStudy.phi`; :func:`stability_ratio` returns such raw ratios). The inputs are not
        checked (callers such as :meth:`GStudy.phi` check ``n_topics``).

    Notes
    -----
    Dividing numerator and denominator of the D-study coefficients of the crossed s × t design by
    the error variance of one topic gives, with :math:`n` topics,

    .. math::

        \Phi(n) = \frac{\sigma^2_s}{\sigma^2_s + (\sigma^2_t + \sigma^2_{st})/n}
                 = \frac{n r_\Phi}{1 + n r_\Phi}, \qquad
        E\rho^2(n) = \frac{\sigma^2_s}{\sigma^2_s + \sigma^2_{st}/n}
                    = \frac{n r_{E\rho^2}}{1 + n r_{E\rho^2}},

    the Spearman–Brown form; it is monotone in :math:`r`, so bounds for the ratio project to bounds
    for the coefficient. Used by :meth:`GStudy.phi`, :meth:`GStudy.erho2`, the interval bounds,
    :func:`topics_needed_for_ratio` and :meth:`optimize.Tuning.phi` (the same code).

    References
    ----------
    R. L. Brennan (2001). *Generalizability Theory*. Springer. §4.1 (D-study coefficients).
    E. Kanoulas and J. A. Aslam (2009). Empirical justification of the gain and discount function
    for nDCG. *CIKM 2009*, eqs. 2-3.

    Examples
    --------
    >>> from gtheory import project
    >>> float(project(0.5, 38))   # Φ(38) when σ²_s / (σ²_t + σ²_st) = 0.5
    0.95
    >>> project(0.5, [1, 10, 100]).round(4)
    array([0.3333, 0.8333, 0.9804])
    >>> float(project(float("inf"), 1))
    1.0
    """
    r = np.asarray(ratio, dtype=np.float64)
    # a negative ratio comes from a negative estimate of σ²_s: set to 0 (Brennan 2001, §3.4), Φ = 0
    r = np.where(r < 0, 0.0, r)
    n = np.asarray(n_topics, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(np.isposinf(r), 1.0, n * r / (1.0 + n * r))


def topics_for_ratio(ratio: float, target: float) -> float:
    r"""Real-valued :math:`n` with :math:`nr/(1+nr) = \text{target}`: :math:`n = t/((1-t) r)`."""
    if ratio <= 0:
        return float("inf")
    if np.isinf(ratio):
        return 0.0
    with np.errstate(over="ignore"):  # a subnormal ratio: inf topics, not ZeroDivisionError
        return float(np.float64(target) / (1.0 - target) / np.float64(ratio))
