r"""Precomputed per-rank / per-grade tensors: nDCG as a ratio of two linear maps of one vector.

With the gain fixed, nDCG@k is linear-fractional in the discount :math:`d`; with the discount
fixed (and gains non-decreasing in grade, so that the ideal ranking is the grade order) it is
linear-fractional in the positive grades' gains :math:`g`. Both are

.. math::

    X_{st}(x) = \frac{\sum_j P_{stj}\, x_j}{\sum_j Q_{tj}\, x_j},

with, for the discount, :math:`P_{str} = g(x_{s,t,r})` and :math:`Q_{tr} = g(x^*_{t,r})`; for the
gains, :math:`P_{stl} = \sum_{r \le k} d_r [x_{s,t,r} = l]` and :math:`Q_{tl}` the discount mass
of the ideal ranking's block of grade :math:`l` (Kanoulas & Aslam 2009, §2; the notation of
:mod:`optimize.objective`). :class:`RatioModel` holds ``P`` and ``Q`` once and scores any batch of
vectors on any subset of topics with two matrix products — what the families, the regularised
tuner and the nested cross-validation of :func:`optimize.recommend` evaluate thousands of times.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
from numpy.typing import NDArray

import gtheory
import metrics
from metrics import JudgedRuns

from .objective import stability_and_gradient

__all__ = ["RatioModel", "coefficients"]


class RatioModel:
    """``P`` (S, T, n) and ``Q`` (T, n) of the module docstring for one judged collection.

    Parameters
    ----------
    judged : metrics.JudgedRuns
    cutoff : nDCG cut-off k.
    what : ``"discount"`` (``x`` is the discount of ranks 1..k, the gain ``gain`` fixed) or
        ``"gain"`` (``x`` is the gains of the positive grades, ascending; the discount ``discount`` fixed).
    """

    def __init__(self, judged: JudgedRuns, cutoff: int, what: str, *, gain: metrics.gains.GainSpec = "linear",
                 discount: metrics.discounts.DiscountSpec = "log2") -> None:
        self.what = what
        self.cutoff = k = int(cutoff)
        self.levels = np.asarray(judged.levels, dtype=np.float64)
        self.positive = np.flatnonzero(self.levels > 0)
        S, T, K = judged.shape
        kr = min(k, K)
        if what == "discount":
            g = metrics.gain_vector(gain, self.levels)
            self.fixed = g
            P = np.zeros((S, T, k))
            P[..., :kr] = judged.level_values(g, ranks=kr)
            Q = metrics.ideal_gains(judged, g, k)
        else:
            d = metrics.discount_vector(discount, k, cutoff=k)
            self.fixed = d
            codes = judged.grades[..., :kr]
            P = np.stack([(codes == lv) @ d[:kr] for lv in self.positive], axis=-1).astype(np.float64)
            # ideal ranking of non-decreasing gains: the positive grades in descending order
            order = self.positive[::-1]
            prefix = np.r_[0.0, np.cumsum(d)]
            hi = np.minimum(np.cumsum(judged.level_counts[:, order], axis=1), k)
            lo = np.concatenate([np.zeros((T, 1), dtype=hi.dtype), hi[:, :-1]], axis=1)
            Q = (prefix[hi] - prefix[lo])[:, ::-1].copy()  # back to ascending grade
        self.P = np.ascontiguousarray(P)
        self.Q = np.ascontiguousarray(Q)
        self.n_systems, self.n_topics, self.n = S, T, self.P.shape[-1]

    def _sub(self, topics: NDArray[np.int64] | None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``P`` and ``Q`` of ``topics`` (the last subset is cached: a solver asks for the same one often)."""
        if topics is None:
            return self.P, self.Q
        key = np.asarray(topics, dtype=np.int64).tobytes()
        cached = getattr(self, "_cache", None)
        if cached is not None and cached[0] == key:
            return cached[1], cached[2]
        P, Q = np.ascontiguousarray(self.P[:, topics]), np.ascontiguousarray(self.Q[topics])
        self._cache = (key, P, Q)
        return P, Q

    def scores(self, x: NDArray[np.float64], topics: NDArray[np.int64] | None = None) -> NDArray[np.float64]:
        """nDCG (S, t) for one vector ``x`` (n,), or (m, S, t) for a batch (m, n); 0 where IDCG is 0."""
        x = np.asarray(x, dtype=np.float64)
        one = x.ndim == 1
        xb = np.atleast_2d(x)
        P, Q = self._sub(topics)
        dcg = np.moveaxis(P @ xb.T, -1, 0)  # (m, S, t)
        idcg = (Q @ xb.T).T  # (m, t)
        ok = idcg > 0
        inv = np.where(ok, 1.0 / np.where(ok, idcg, 1.0), 0.0)
        X = dcg * inv[:, None, :]
        return X[0] if one else X

    def value_and_grad(self, x: NDArray[np.float64], topics: NDArray[np.int64] | None,
                       objective: str) -> tuple[float, NDArray[np.float64]]:
        r"""Raw :math:`f` = Φ(1) (or Eρ²(1)) of :meth:`scores` and its exact gradient in ``x``:
        :math:`\partial f/\partial x_j = \sum_{st} W_{st} P_{stj}/c_t - \sum_t (\sum_s W_{st}X_{st}/c_t) Q_{tj}`
        with :math:`W = \partial f/\partial X` (:func:`optimize.stability_and_gradient`), :math:`c_t` = IDCG."""
        P, Q = self._sub(topics)
        S, t, n = P.shape
        idcg = Q @ x
        ok = idcg > 0
        inv = np.where(ok, 1.0 / np.where(ok, idcg, 1.0), 0.0)
        X = (P @ x) * inv[None, :]
        f, _, W = stability_and_gradient(X, objective)
        if not np.isfinite(f):
            return f, np.zeros_like(x)
        Wc = W * inv[None, :]
        v = (W * X).sum(axis=0) * inv
        grad = Wc.reshape(-1) @ P.reshape(S * t, n) - v @ Q
        return f, grad


def coefficients(X: NDArray[np.float64], objective: str = "phi") -> dict[str, NDArray[np.float64]]:
    r"""Batched G-study of score matrices ``X`` (..., S, T): raw ``f`` (what a tuner maximises:
    :math:`\rho/(1+\rho)` from the raw ANOVA components) and, by the G-study convention of
    :func:`gtheory.gstudy` (negative estimates set to 0), ``phi_1`` = Φ(1), ``erho2_1`` = Eρ²(1)
    and the ratio ``r`` = σ²s/(σ²t+σ²st) (``inf`` when the error variance is 0).

    Same ANOVA estimates as :func:`gtheory.variance_components` (Brennan 2001, §3.4), vectorised
    over the leading axes.
    """
    X = np.asarray(X, dtype=np.float64)
    S, T = X.shape[-2:]
    ms = X.mean(axis=-1)
    mt = X.mean(axis=-2)
    g = ms.mean(axis=-1)
    ds = ms - g[..., None]
    dt = mt - g[..., None]
    resid = X - ms[..., :, None] - dt[..., None, :]
    ms_s = T * (ds * ds).sum(axis=-1) / (S - 1)
    ms_t = S * (dt * dt).sum(axis=-1) / (T - 1)
    ms_e = (resid * resid).sum(axis=(-2, -1)) / ((S - 1) * (T - 1))
    vs, vt, ve = (ms_s - ms_e) / T, (ms_t - ms_e) / S, ms_e
    with np.errstate(divide="ignore", invalid="ignore"):
        den = vt + ve if objective == "phi" else ve
        rho = vs / den
        f = np.where(den > 0, rho / (1.0 + rho), np.nan)
        cs, ct, ce = np.maximum(vs, 0), np.maximum(vt, 0), np.maximum(ve, 0)
        tot = cs + ct + ce
        phi_1 = np.where(cs > 0, cs / np.where(tot > 0, tot, 1.0), 0.0)
        erho2_1 = np.where(cs > 0, cs / np.where(cs + ce > 0, cs + ce, 1.0), 0.0)
        r = np.where(cs > 0, np.where(ct + ce > 0, cs / np.where(ct + ce > 0, ct + ce, 1.0), np.inf), 0.0)
    return {"f": f, "phi_1": phi_1, "erho2_1": erho2_1, "r": r}


def topics_needed(r: float, target: float) -> float:
    """Topics for Φ ≥ ``target`` at ratio ``r`` (:func:`gtheory.topics_needed_for_ratio`), ``inf`` if none."""
    if not math.isfinite(r) and r > 0:
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(gtheory.topics_needed_for_ratio(float(r), target))


def _view(P: NDArray[np.float64], Q: NDArray[np.float64], what: str, levels: NDArray[np.float64],
          cutoff: int) -> RatioModel:
    """A :class:`RatioModel` from given ``P`` and ``Q`` (a slice of a :class:`JointModel`)."""
    m = object.__new__(RatioModel)
    m.what, m.cutoff, m.levels = what, cutoff, levels
    m.positive = np.flatnonzero(levels > 0)
    m.P, m.Q = np.ascontiguousarray(P), np.ascontiguousarray(Q)
    m.n_systems, m.n_topics, m.n = P.shape[0], P.shape[1], P.shape[-1]
    return m


class JointModel:
    r"""Gains and discount together: :math:`X_{st} = \sum_{r,l} g_l d_r M_{strl} / \sum_{r,l} g_l d_r H_{trl}`,
    bilinear in :math:`(d, g)`; :math:`M` the one-hot grade of each retrieved document, :math:`H` the
    ideal ranking's grade blocks (grade order: gains non-decreasing in grade). For a fixed gain it is a
    discount :class:`RatioModel` (:meth:`discount_view`), for a fixed discount a gain one
    (:meth:`gain_view`). Variables ``x`` = the discount (k) then the positive grades' gains."""

    what = "joint"

    def __init__(self, judged: JudgedRuns, cutoff: int) -> None:
        self.cutoff = k = int(cutoff)
        self.levels = np.asarray(judged.levels, dtype=np.float64)
        self.positive = np.flatnonzero(self.levels > 0)
        S, T, K = judged.shape
        kr = min(k, K)
        L = self.positive.size
        codes = judged.grades[..., :kr]
        M = np.zeros((S, T, k, L))
        for i, lv in enumerate(self.positive):
            M[..., :kr, i] = codes == lv
        order = self.positive[::-1]
        hi = np.minimum(np.cumsum(judged.level_counts[:, order], axis=1), k)[:, ::-1]  # ascending grade again
        lo = np.minimum(np.cumsum(judged.level_counts[:, order], axis=1) - judged.level_counts[:, order], k)[:, ::-1]
        r = np.arange(k)
        H = ((r[None, :, None] >= lo[:, None, :]) & (r[None, :, None] < hi[:, None, :])).astype(np.float64)
        self.M, self.H = M, H
        self.k, self.L = k, L
        self.n_systems, self.n_topics, self.n = S, T, k + L

    def split(self, x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        return x[: self.k], x[self.k:]

    def _mh(self, topics: NDArray[np.int64] | None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        if topics is None:
            return self.M, self.H
        key = np.asarray(topics, dtype=np.int64).tobytes()
        cached = getattr(self, "_cache", None)
        if cached is None or cached[0] != key:
            self._cache = cached = (key, np.ascontiguousarray(self.M[:, topics]), np.ascontiguousarray(self.H[topics]))
        return cached[1], cached[2]

    def discount_view(self, g: NDArray[np.float64], topics: NDArray[np.int64] | None = None) -> RatioModel:
        """The discount model for fixed gains ``g``, on ``topics`` (all when None)."""
        M, H = self._mh(topics)
        return _view(M @ g, H @ g, "discount", self.levels, self.cutoff)

    def gain_view(self, d: NDArray[np.float64], topics: NDArray[np.int64] | None = None) -> RatioModel:
        """The gain model for a fixed discount ``d``, on ``topics`` (all when None)."""
        M, H = self._mh(topics)

        P = np.einsum("stkl,k->stl", M, d, optimize=True)
        return _view(P, np.einsum("tkl,k->tl", H, d), "gain", self.levels, self.cutoff)

    def scores(self, x: NDArray[np.float64], topics: NDArray[np.int64] | None = None) -> NDArray[np.float64]:
        x = np.asarray(x, dtype=np.float64)
        if x.ndim == 1:
            d, g = self.split(x)
            return self.discount_view(g, topics).scores(d)
        return np.stack([self.scores(v, topics) for v in x])
