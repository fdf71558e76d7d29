"""Fast, batched variance components for the crossed systems × topics design.

This is the low-level path an optimiser calls thousands of times: pure NumPy, no pandas, no
validation beyond shape, no warnings. :func:`gtheory.gstudy` is the checked, labelled front end.

Validated against statsmodels ``anova_lm(ols("score ~ C(system) + C(topic)"))`` and
``MixedLM`` (REML) in ``tests/test_gtheory_gstudy_components.py``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "VarianceComponents",
    "variance_components",
    "phi_from_components",
    "erho2_from_components",
    "stability_ratio",
]


class VarianceComponents(NamedTuple):
    """Variance components (and the mean squares behind them) of a systems × topics design.

    Every field is an array with the batch shape of the input (a 0-d array for one matrix).
    """

    system: NDArray[np.float64]
    """σ²(s) = (MS_s − MS_st) / n_t"""
    topic: NDArray[np.float64]
    """σ²(t) = (MS_t − MS_st) / n_s"""
    residual: NDArray[np.float64]
    """σ²(st,e) = MS_st"""
    ms_system: NDArray[np.float64]
    ms_topic: NDArray[np.float64]
    ms_residual: NDArray[np.float64]


def variance_components(scores: ArrayLike, *, clip: bool = False) -> VarianceComponents:
    r"""ANOVA (expected-mean-squares) variance components of one or many score matrices.

    Parameters
    ----------
    scores : array_like, shape (..., n_systems, n_topics)
        One score matrix (rows = systems, columns = topics) or a batch of them. At least two
        systems and two topics. No checks for NaN or constant matrices are made here.
    clip : bool, optional
        If True, negative estimates are set to 0 (silently — this is the optimiser's path; the
        user-facing :func:`gtheory.gstudy` warns). Default False: the unbiased raw estimates.

    Returns
    -------
    VarianceComponents
        ``system``, ``topic``, ``residual`` and the three mean squares, each of the batch shape.

    Raises
    ------
    ValueError
        If the last two axes are not at least 2 × 2.

    Notes
    -----
    With system means :math:`\bar X_{s\cdot}`, topic means :math:`\bar X_{\cdot t}` and grand
    mean :math:`\bar X`, for :math:`n_s` systems and :math:`n_t` topics (Brennan 2001, ch. 3):

    .. math::

        MS_s &= \frac{n_t}{n_s-1}\sum_s (\bar X_{s\cdot}-\bar X)^2, \qquad
        MS_t = \frac{n_s}{n_t-1}\sum_t (\bar X_{\cdot t}-\bar X)^2, \\
        MS_{st} &= \frac{1}{(n_s-1)(n_t-1)}\sum_{s,t}
                   (X_{st}-\bar X_{s\cdot}-\bar X_{\cdot t}+\bar X)^2, \\
        \hat\sigma^2_{st} &= MS_{st}, \quad
        \hat\sigma^2_s = \frac{MS_s-MS_{st}}{n_t}, \quad
        \hat\sigma^2_t = \frac{MS_t-MS_{st}}{n_s}.

    Every sum of squares is computed from deviations (the data shifted by an estimate of their centre,
    then the system and topic means subtracted), never as a difference of raw sums of squares: a
    constant added to every score (``X + 1e12``) changes no estimate beyond float64 rounding of the
    deviations themselves. The residual sum of squares is that of the double-centred matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from gtheory import variance_components
    >>> X = np.random.default_rng(0).random((8, 100, 50))   # 8 matrices of 100 systems x 50 topics
    >>> vc = variance_components(X)
    >>> vc.system.shape
    (8,)
    """
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim < 2 or x.shape[-1] < 2 or x.shape[-2] < 2:
        raise ValueError(
            f"`scores` must have shape (..., n_systems, n_topics) with at least 2 systems and "
            f"2 topics; got shape {x.shape}."
        )
    n_s, n_t = x.shape[-2], x.shape[-1]
    # Every sum of squares is of deviations, so the estimates do not depend on the origin: shift the data to
    # near their centre first (by the first system's mean, an O(n_t) estimate of it). Scores of 1e12 + 0.3
    # then lose nothing to the sums of ~1e12-sized numbers (each sum below is of deviations of the size of
    # the spread, and x - c is exact when x and c are within a factor of 2 of each other, Sterbenz's lemma).
    resid = x - x[..., :1, :].mean(axis=-1, keepdims=True)
    mean_s = resid.sum(axis=-1) / n_t
    mean_t = resid.sum(axis=-2) / n_s
    grand = mean_s.mean(axis=-1)
    ds = mean_s - grand[..., None]
    dt = mean_t - grand[..., None]
    resid -= mean_s[..., :, None]
    resid -= dt[..., None, :]
    ms_s = n_t * np.einsum("...i,...i->...", ds, ds) / (n_s - 1)
    ms_t = n_s * np.einsum("...i,...i->...", dt, dt) / (n_t - 1)
    ms_e = np.einsum("...ij,...ij->...", resid, resid) / ((n_s - 1) * (n_t - 1))
    var_s = (ms_s - ms_e) / n_t
    var_t = (ms_t - ms_e) / n_s
    var_e = ms_e
    if clip:
        var_s = np.maximum(var_s, 0.0)
        var_t = np.maximum(var_t, 0.0)
    return VarianceComponents(var_s, var_t, var_e, ms_s, ms_t, ms_e)


def phi_from_components(
    var_system: ArrayLike, var_topic: ArrayLike, var_residual: ArrayLike, n_topics: ArrayLike = 1
) -> NDArray[np.float64]:
    r"""Dependability index Φ for :math:`n` topics, broadcasting over all arguments.

    .. math:: \Phi(n) = \frac{\sigma^2_s}{\sigma^2_s + (\sigma^2_t + \sigma^2_{st})/n}

    Φ(n) is an increasing function of the ratio :math:`r = \sigma^2_s/(\sigma^2_t+\sigma^2_{st})`
    for every :math:`n>0` (:math:`\Phi(n) = nr/(1+nr)`), so a maximiser of Φ does not depend on
    :math:`n`: optimise at :math:`n=1` and project afterwards. Returns NaN where all components
    are 0 (0/0). Negative estimates (the unclipped output of :func:`variance_components`) are
    taken as 0 first (Brennan 2001, §3.4), as :class:`GStudy` does, so the result is in [0, 1].
    References: Brennan (2001) ch. 4; Kanoulas & Aslam (CIKM 2009) §2.
    """
    vs, vt, vr = (_nonneg(v) for v in (var_system, var_topic, var_residual))
    n = np.asarray(n_topics, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return vs / (vs + (vt + vr) / n)


def erho2_from_components(
    var_system: ArrayLike, var_residual: ArrayLike, n_topics: ArrayLike = 1
) -> NDArray[np.float64]:
    r"""Generalizability coefficient Eρ² for :math:`n` topics, broadcasting over all arguments.

    .. math:: E\rho^2(n) = \frac{\sigma^2_s}{\sigma^2_s + \sigma^2_{st}/n}

    An increasing function of :math:`\sigma^2_s/\sigma^2_{st}` for every :math:`n>0`. Negative
    estimates are taken as 0 first, as in :func:`phi_from_components`.
    References: Brennan (2001) ch. 4; Kanoulas & Aslam (CIKM 2009) §2.
    """
    vs, vr = _nonneg(var_system), _nonneg(var_residual)
    n = np.asarray(n_topics, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return vs / (vs + vr / n)


def _nonneg(v: ArrayLike) -> NDArray[np.float64]:
    """A variance estimate with negative values set to 0 (NaN kept)."""
    v = np.asarray(v, dtype=np.float64)
    return np.where(v < 0, 0.0, v)


def stability_ratio(scores: ArrayLike, coefficient: str = "phi") -> NDArray[np.float64]:
    r"""The scale-free ratio an optimiser should maximise, batched like :func:`variance_components`.

    ``"phi"``: :math:`\sigma^2_s/(\sigma^2_t+\sigma^2_{st})`; ``"erho2"``:
    :math:`\sigma^2_s/\sigma^2_{st}` (raw, unclipped components). Φ(n) and Eρ²(n) are both
    :math:`nr/(1+nr)` of the respective ratio :math:`r`.
    """
    vc = variance_components(scores)
    with np.errstate(invalid="ignore", divide="ignore"):
        if coefficient == "phi":
            return vc.system / (vc.topic + vc.residual)
        if coefficient == "erho2":
            return vc.system / vc.residual
    raise ValueError(f"`coefficient` must be 'phi' or 'erho2'; got {coefficient!r}.")
