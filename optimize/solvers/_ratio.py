r"""Precomputed per-rank / per-grade tensors: nDCG as a ratio of two linear maps of one vector.

With the gain fixed, nDCG@k is linear-fractional in the discount :math:`d`; with the discount
fixed (and gains non-decreasing in grade, so that the ideal ranking is the grade order) it is
linear-fractional in the positive grades' gains :math:`g`. Both are

.. math::

    X_{st}(x) = \frac{\sum_j P_{stj}\, x_j}{\sum_j Q_{tj}\, x_j},

with, for the discount, :math:`P_{str} = g(x_{s,t,r})` and :math:`Q_{tr} = g(x^*_{t,r})`; for the
gains, :math:`P_{stl} = \sum_{r \le k} d_r [x_{s,t,r} = l]` and :math:`Q_{tl}` the discount mass
of the ideal ranking's block of grade :math:`l` (Kanoulas & Aslam 2009, §2; the notation of
:mod:`optimize.solvers.objective`). :class:`RatioModel` holds ``P`` and ``Q`` once and scores any batch of
vectors on any subset of topics with two matrix products — what the families, the regularised
tuner and the nested cross-validation of :func:`optimize.recommend` evaluate thousands of times.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

import gtheory
import metrics
from metrics import JudgedRuns
from metrics.measures import matvec, relevant_cells

from .objective import _compact, _gain_matrix, _stability_and_gradient

try:  # SciPy's compiled CSC kernel (what ``A.T @ w`` runs for a CSR ``A``), called directly
    from scipy.sparse._sparsetools import csc_matvec as _csc_matvec
except ImportError:  # pragma: no cover
    _csc_matvec = None

__all__ = ["RatioModel", "coefficients", "coefficient_f"]


class RatioModel:
    """``P`` and ``Q`` of the module docstring for one judged collection.

    For the discount, ``P`` is held as the (S·T, k) matrix of the gains of the documents at ranks ≤ k (row
    ``s·T + t``), sparse (CSR: only the documents with a non-zero gain, built from
    :func:`metrics.measures.sparse.relevant_cells`) unless more than a quarter of the cells are relevant; memory is
    O(relevant cells), not O(S·T·k). For the gains, ``P`` is the dense (S, T, n_levels) array of per-grade
    discounted counts (small).

    Parameters
    ----------
    judged : metrics.JudgedRuns
    cutoff : nDCG cut-off k.
    what : ``"discount"`` (``x`` is the discount of ranks 1..k, the gain ``gain`` fixed) or
        ``"gain"`` (``x`` is the gains of the positive grades, ascending; the discount ``discount`` fixed).
    """

    def __init__(self, judged: JudgedRuns, cutoff: int, what: str, *, gain: metrics.measures.gains.GainSpec = "linear",
                 discount: metrics.measures.discounts.DiscountSpec = "log2") -> None:
        self.what = what
        self.cutoff = k = int(cutoff)
        self.levels = np.asarray(judged.levels, dtype=np.float64)
        self.positive = np.flatnonzero(self.levels > 0)
        S, T, K = judged.shape
        kr = min(k, K)
        rc = relevant_cells(judged)
        if what == "discount":
            g = metrics.gain_vector(gain, self.levels)
            self.fixed = g
            # the gains g(x_{s,t,r}) at ranks <= k, (S*T, k): no dense S x T x k array (objective._gain_matrix)
            P = _compact(_gain_matrix(rc, g, k))
            Q = metrics.ideal_gains(judged, g, k)
        else:
            d = metrics.discount_vector(discount, k, cutoff=k)
            self.fixed = d
            # per-grade discounted counts from the sparse view (no cells x k array; metrics.measures.sparse)
            P = np.stack([rc.discounted_counts(lv, d[:kr]).reshape(S, T) for lv in self.positive], axis=-1)
            # ideal ranking of non-decreasing gains: the positive grades in descending order
            order = self.positive[::-1]
            prefix = np.r_[0.0, np.cumsum(d)]
            hi = np.minimum(np.cumsum(judged.level_counts[:, order], axis=1), k)
            lo = np.concatenate([np.zeros((T, 1), dtype=hi.dtype), hi[:, :-1]], axis=1)
            Q = (prefix[hi] - prefix[lo])[:, ::-1].copy()  # back to ascending grade
        self._set(P, Q, S, T)

    def _set(self, P, Q: NDArray[np.float64], S: int, T: int) -> None:
        """Hold ``P`` (a (S·T, n) CSR / array for the discount, (S, T, n) for the gains) and ``Q`` (T, n)."""
        self.P = P if sp.issparse(P) else np.ascontiguousarray(P)
        self.Q = np.ascontiguousarray(Q)
        self.n_systems, self.n_topics, self.n = S, T, self.Q.shape[-1]
        self._flat = self.what == "discount"  # P is the 2-D (cells, n) matrix

    def _sub(self, topics: NDArray[np.int64] | None):
        """``(P, Q, t)`` of ``topics`` (the last subset is cached: a solver asks for the same one often)."""
        if topics is None:
            return self.P, self.Q, self.n_topics
        key = np.asarray(topics, dtype=np.int64).tobytes()
        cached = getattr(self, "_cache", None)
        if cached is not None and cached[0] == key:
            return cached[1]
        topics = np.asarray(topics, dtype=np.int64)
        if self._flat:
            rows = (np.arange(self.n_systems)[:, None] * self.n_topics + topics[None, :]).ravel()
            P = _rows(self.P, rows)
        else:
            P = np.ascontiguousarray(self.P[:, topics])
        out = (P, np.ascontiguousarray(self.Q[topics]), topics.size)
        self._cache = (key, out)
        return out

    def scores(self, x: NDArray[np.float64], topics: NDArray[np.int64] | None = None) -> NDArray[np.float64]:
        """nDCG (S, t) for one vector ``x`` (n,), or (m, S, t) for a batch (m, n); 0 where IDCG is 0."""
        x = np.asarray(x, dtype=np.float64)
        one = x.ndim == 1
        xb = np.atleast_2d(x)
        P, Q, t = self._sub(topics)
        if self._flat:
            dcg = np.moveaxis(np.asarray(P @ np.ascontiguousarray(xb.T)).reshape(self.n_systems, t, -1), -1, 0)
        else:
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
        P, Q, t = self._sub(topics)
        S = self.n_systems
        idcg = Q @ x
        ok = idcg > 0
        inv = np.where(ok, 1.0 / np.where(ok, idcg, 1.0), 0.0)
        dcg = _dot(P, x).reshape(S, t) if self._flat else P @ x
        X = dcg * inv[None, :]
        f, _, W = _stability_and_gradient(X, objective)
        if not np.isfinite(f):
            return f, np.zeros_like(x)
        Wc = W * inv[None, :]
        v = (W * X).sum(axis=0) * inv
        if self._flat:  # P^T w: a CSC view of the CSR rows, read once in order (objective.Problem does the same)
            grad = _tdot(P, Wc.reshape(-1)) - v @ Q
        else:
            grad = Wc.reshape(-1) @ P.reshape(S * t, self.n) - v @ Q
        return f, grad

    def row_totals(self, topics: NDArray[np.int64] | None = None) -> NDArray[np.float64]:
        """(S, t, 1): the DCG of the all-ones discount, the last column of :meth:`prefix_blocks` — the same
        sequential sum over ranks (SciPy's CSR kernel adds a row's entries in rank order from 0)."""
        P, _, t = self._sub(topics)
        if sp.issparse(P):
            out = matvec(P, np.ones(self.n))
        else:
            out = np.cumsum(P, axis=1)[:, -1]
        return out.reshape(self.n_systems, t, 1)

    def prefix_blocks(self, topics: NDArray[np.int64] | None = None, block: int | None = None):
        """Yield ``(m0, Pc)``: the DCG of the discount that is 1 at ranks 1..m and 0 after, for a block of
        ``m`` = m0+1..m0+b, as (S, t, b) — ``np.cumsum`` of the dense (S, t, k) gains over rank, the same
        sequential sums, a block of ranks at a time (discount models only)."""
        P, _, t = self._sub(topics)
        S, k = self.n_systems, self.n
        if block is None:
            block = max(1, _BLOCK_ELEMENTS // max(S * t, 1))
        base = np.zeros(S * t)
        C = sp.csc_matrix(P) if sp.issparse(P) else None
        for m0 in range(0, k, block):
            m1 = min(k, m0 + block)
            if C is None:
                D = np.array(P[:, m0:m1])
            else:
                D = np.zeros((S * t, m1 - m0))
                lo, hi = C.indptr[m0], C.indptr[m1]
                cols = np.repeat(np.arange(m1 - m0), np.diff(C.indptr[m0:m1 + 1]))
                D[C.indices[lo:hi], cols] = C.data[lo:hi]
            D[:, 0] += base  # Pc[m0] = Pc[m0 - 1] + P[m0], as one cumsum over all ranks adds them
            np.cumsum(D, axis=1, out=D)
            base = D[:, -1].copy()
            yield m0, D.reshape(S, t, m1 - m0)


#: elements of a (cells, ranks) block of :meth:`RatioModel.prefix_blocks` (2 MB of float64)
_BLOCK_ELEMENTS = 1 << 18


def _dot(P, x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``P @ x`` for a CSR matrix (SciPy's kernel without its per-call checks) or an array."""
    return matvec(P, np.ascontiguousarray(x, dtype=np.float64)) if sp.issparse(P) else P @ x


def _tdot(P, w: NDArray[np.float64]) -> NDArray[np.float64]:
    """``P.T @ w``: for a CSR ``P`` SciPy's CSC kernel on the same arrays (what ``P.T @ w`` runs: it reads ``P``
    once in order and sums each column over the rows in ascending order), without building the transposed view."""
    if not sp.issparse(P):
        return w @ P
    if _csc_matvec is None or P.data.dtype != np.float64:  # pragma: no cover - a SciPy without the kernel
        return np.asarray(P.T @ w)
    y = np.zeros(P.shape[1])
    _csc_matvec(P.shape[1], P.shape[0], P.indptr, P.indices, P.data, np.ascontiguousarray(w, dtype=np.float64), y)
    return y


def _rows(P, rows: NDArray[np.int64]):
    """Rows ``rows`` of a CSR matrix (sorted column indices kept) or of an array."""
    if not sp.issparse(P):
        return np.ascontiguousarray(P[rows])
    out = P[rows]
    out.sort_indices()
    return out


def _components(X: NDArray[np.float64]) -> tuple[NDArray, NDArray, NDArray]:
    """Raw ANOVA components (σ²(s), σ²(t), σ²(st,e)) of score matrices ``X`` (..., S, T), vectorised over the
    leading axes (Brennan 2001, §3.4)."""
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
    return (ms_s - ms_e) / T, (ms_t - ms_e) / S, ms_e


def coefficients(X: NDArray[np.float64], objective: str = "phi") -> dict[str, NDArray[np.float64]]:
    r"""Batched G-study of score matrices ``X`` (..., S, T): raw ``f`` (what a tuner maximises:
    :math:`\rho/(1+\rho)` from the raw ANOVA components) and, by the G-study convention of
    :func:`gtheory.gstudy` (negative estimates set to 0), ``phi_1`` = Φ(1), ``erho2_1`` = Eρ²(1)
    and the ratio ``r`` = σ²s/(σ²t+σ²st) (``inf`` when the error variance is 0).

    Same ANOVA estimates as :func:`gtheory.variance_components` (Brennan 2001, §3.4), vectorised
    over the leading axes.
    """
    vs, vt, ve = _components(X)
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


def coefficient_f(X: NDArray[np.float64], objective: str = "phi") -> NDArray[np.float64]:
    """``coefficients(X, objective)["f"]`` alone (the same operations in the same order, so the same numbers),
    for the searches that compare configurations by it thousands of times."""
    vs, vt, ve = _components(X)
    with np.errstate(divide="ignore", invalid="ignore"):
        den = vt + ve if objective == "phi" else ve
        rho = vs / den
        return np.where(den > 0, rho / (1.0 + rho), np.nan)


def topics_needed(r: float, target: float) -> float:
    """Topics for Φ ≥ ``target`` at ratio ``r`` (:func:`gtheory.topics_needed_for_ratio`), ``inf`` if none."""
    if not math.isfinite(r) and r > 0:
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(gtheory.topics_needed_for_ratio(float(r), target))


def _view(P, Q: NDArray[np.float64], what: str, levels: NDArray[np.float64], cutoff: int, S: int,
          T: int) -> RatioModel:
    """A :class:`RatioModel` from given ``P`` and ``Q`` (a slice of a :class:`JointModel`)."""
    m = object.__new__(RatioModel)
    m.what, m.cutoff, m.levels = what, cutoff, levels
    m.positive = np.flatnonzero(levels > 0)
    m._set(P, Q, S, T)
    return m


class JointModel:
    r"""Gains and discount together: :math:`X_{st} = \sum_{r,l} g_l d_r M_{strl} / \sum_{r,l} g_l d_r H_{trl}`,
    bilinear in :math:`(d, g)`; :math:`M` the one-hot grade of each retrieved document, :math:`H` the
    ideal ranking's grade blocks (grade order: gains non-decreasing in grade). For a fixed gain it is a
    discount :class:`RatioModel` (:meth:`discount_view`), for a fixed discount a gain one
    (:meth:`gain_view`). Variables ``x`` = the discount (k) then the positive grades' gains.

    :math:`M` is held as one sparse (S·T, k) 0/1 pattern per positive grade
    (:meth:`metrics.measures.sparse.RelevantCells.pattern`): memory O(relevant cells), not O(S·T·k·L)."""

    what = "joint"

    def __init__(self, judged: JudgedRuns, cutoff: int) -> None:
        self.cutoff = k = int(cutoff)
        self.levels = np.asarray(judged.levels, dtype=np.float64)
        self.positive = np.flatnonzero(self.levels > 0)
        S, T, K = judged.shape
        L = self.positive.size
        self._rc = rc = relevant_cells(judged)
        self.M = [rc.pattern(int(lv), k) for lv in self.positive]  # (S*T, k) CSR per positive grade
        # all of them in one CSR holding 1 + the grade's index (exact small integers): a discount view gathers
        # its gains from it instead of adding L sparse matrices
        C = sp.csr_matrix((S * T, k))
        for i, M in enumerate(self.M):
            C = C + M * float(i + 1)
        C.sort_indices()
        self._C = C
        order = self.positive[::-1]
        hi = np.minimum(np.cumsum(judged.level_counts[:, order], axis=1), k)[:, ::-1]  # ascending grade again
        lo = np.minimum(np.cumsum(judged.level_counts[:, order], axis=1) - judged.level_counts[:, order], k)[:, ::-1]
        r = np.arange(k)
        H = ((r[None, :, None] >= lo[:, None, :]) & (r[None, :, None] < hi[:, None, :])).astype(np.float64)
        self.H = H
        self.k, self.L = k, L
        self.n_systems, self.n_topics, self.n = S, T, k + L

    def split(self, x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        return x[: self.k], x[self.k:]

    def _mh(self, topics: NDArray[np.int64] | None):
        """The per-grade patterns (rows of ``topics``' cells) and ``H`` of ``topics`` (the last subset cached)."""
        if topics is None:
            return self.M, self._C, self.H, self.n_topics
        key = np.asarray(topics, dtype=np.int64).tobytes()
        cached = getattr(self, "_cache", None)
        if cached is None or cached[0] != key:
            topics = np.asarray(topics, dtype=np.int64)
            rows = (np.arange(self.n_systems)[:, None] * self.n_topics + topics[None, :]).ravel()
            self._cache = cached = (key, ([_rows(M, rows) for M in self.M], _rows(self._C, rows),
                                          np.ascontiguousarray(self.H[topics]), topics.size))
        return cached[1]

    def discount_view(self, g: NDArray[np.float64], topics: NDArray[np.int64] | None = None) -> RatioModel:
        """The discount model for fixed gains ``g``, on ``topics`` (all when None)."""
        M, C, H, t = self._mh(topics)
        g = np.asarray(g, dtype=np.float64)
        # sum_l g_l M_l: the patterns do not overlap, so every stored value is exactly its g_l
        if np.all(g != 0):  # the same entries: gathered from the combined pattern
            P = sp.csr_matrix((g[C.data.astype(np.intp) - 1], C.indices, C.indptr), shape=C.shape)
            P.has_sorted_indices = True
        else:  # a zero gain drops its grade's documents
            P = sp.csr_matrix(C.shape)
            for gl, Ml in zip(g.tolist(), M):
                if gl != 0:
                    P = P + Ml * gl
            P.sort_indices()
        return _view(_compact(P), H @ g, "discount", self.levels, self.cutoff, self.n_systems, t)

    def gain_view(self, d: NDArray[np.float64], topics: NDArray[np.int64] | None = None) -> RatioModel:
        """The gain model for a fixed discount ``d``, on ``topics`` (all when None)."""
        M, _, H, t = self._mh(topics)
        d = np.ascontiguousarray(d, dtype=np.float64)
        P = np.stack([matvec(Ml, d).reshape(self.n_systems, t) for Ml in M], axis=-1)
        return _view(P, np.einsum("tkl,k->tl", H, d), "gain", self.levels, self.cutoff, self.n_systems, t)

    def scores(self, x: NDArray[np.float64], topics: NDArray[np.int64] | None = None) -> NDArray[np.float64]:
        x = np.asarray(x, dtype=np.float64)
        if x.ndim == 1:
            d, g = self.split(x)
            return self.discount_view(g, topics).scores(d)
        return np.stack([self.scores(v, topics) for v in x])
