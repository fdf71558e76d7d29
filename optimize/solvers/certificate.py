r"""The certificate of the Shor bound on the tuned Φ(1) (:mod:`optimize.solvers.bound`): the discount problem's
quadratic forms (:func:`quadratic_forms`: Φ(1) = vᵀPv / vᵀQv of the stacked per-topic vectors), the dual slack
of any multipliers (:func:`dual_matrix`), the bound it certifies (:func:`certify`, after :func:`repair`), and a
certificate built without the SDP (:func:`dual_search`).

Certificate (why the reported number is an upper bound whatever the solver's accuracy). Let
:math:`w = (1, v)` be the lifted vector of a feasible discount, :math:`\hat P, \hat Q` the forms
padded with a zero row and column for :math:`\tau`. For *any* multipliers — :math:`\lambda` of
:math:`\langle Q,V\rangle=1`, :math:`\mu_0,\Gamma` of the normalisation rows, :math:`\kappa` of the
coupling rows, :math:`N \ge 0` of :math:`Z \ge 0` — the dual slack
:math:`S = \lambda\hat Q - \hat P + \mathcal E(\mu_0,\Gamma,\kappa) - N` (:func:`dual_matrix`) satisfies

.. math::

    w^\top S w = \lambda\, v^\top Qv - v^\top Pv - w^\top N w \le \lambda\, v^\top Qv - v^\top Pv,

because every equality row vanishes on :math:`ww^\top` (the normalisations hold, the off-diagonal
blocks :math:`\alpha_t\alpha_s uu^\top` are symmetric) and :math:`w \ge 0`. If :math:`S` were PSD,
:math:`\Phi(1) \le \lambda` (weak duality). A first-order solver's :math:`S` is not exactly PSD, so
:func:`certify` charges its negative eigenvalues: with the eigenpairs :math:`(\lambda_i, q_i)` of
:math:`S` on the subspace :math:`\{\tilde c_t^\top u_t = \tau\}` that contains every :math:`w`,
:math:`w^\top S w \ge -\sum_{\lambda_i<0}|\lambda_i| (q_i^\top w)^2 - \lVert\Delta\rVert\,\lVert w\rVert^2`
(:math:`\Delta` the computed decomposition's residual), where :math:`|q_i^\top w|` and
:math:`\lVert w \rVert` are bounded in closed form over the product of the topics' simplices
:math:`\{u_t \ge 0, \tilde c_t^\top u_t = 1\}` (a superset of the feasible set). Dividing by a
certified lower bound on the denominator :math:`v^\top Qv` (Frank–Wolfe on the same superset,
whose duality gap makes it a lower bound; :func:`_denominator_floor`) gives

.. math::

    \Phi(1) \le \lambda + \frac{\sum_{\lambda_i<0}|\lambda_i|\, m_i^2 + \lVert\Delta\rVert\, \max\lVert w\rVert^2}
                             {\min v^\top Qv}.

This is the a-posteriori approach of Jansson, Chaykin & Keil (2007) with problem-specific bounds in
place of a bound on the primal trace. :func:`repair` first moves :math:`S` towards the PSD cone
along directions that keep it a certificate (skew parts of off-diagonal blocks; :math:`N`), which
shrinks the charge. Rounding in forming :math:`P, Q` from the data (relative ~1e-15) is not
charged.

References
----------
.. [1] C. Jansson, D. Chaykin, C. Keil (2007). Rigorous error bounds for the optimal value in
       semidefinite programming. *SIAM J. Numer. Anal.* 46(1):180–200.
"""
from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from .objective import Problem

__all__ = ["quadratic_forms", "dual_matrix", "certify", "repair", "dual_search", "certified_bound"]


def _topic_blocks(problem: Problem) -> tuple[list[NDArray[np.float64]], NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """Per-topic ``B_t`` (S × k) with X_{·t} ∝ B_t u, the normalisers ``c̃_t`` (T × k), the map R
    (variables = R u) and which topics can have IDCG > 0.

    Discount problem: ``B_t = A_t R`` (DCG gains by rank), ``c̃_t = R'c_t`` (ideal gains). Gain
    problem with monotone gains: the ideal ranking orders grades by grade, so IDCG is linear in the
    gains too: ``B_t = C_t' L``, ``c̃_t = L'D_t`` with ``g = L w``, ``w ≥ 0`` (L lower-triangular
    ones: non-decreasing gains)."""
    S, T = problem.n_systems, problem.n_topics
    if problem.what == "discount":
        k = problem.cutoff
        A = problem._A.toarray() if hasattr(problem._A, "toarray") else np.asarray(problem._A)
        A = A.reshape(S, T, k)
        R = np.triu(np.ones((k, k))) if problem.monotone_discount else np.eye(k)
        C = np.asarray(problem._I, dtype=np.float64) @ R
        blocks = [A[:, t, :] @ R for t in range(T)]
    elif problem.what == "gain" and problem.monotone_gain:
        m = problem.positive.size
        R = np.tril(np.ones((m, m)))
        g = np.zeros(problem.levels.size)
        g[problem.positive] = np.arange(1, m + 1)  # any increasing gains: the ideal order by grade
        D = problem._ideal_blocks(g, problem.fixed_discount)        # (m, T)
        C = D.T @ R
        blocks = [problem._C[:, :, t].T @ R for t in range(T)]      # (S, m)
    else:
        raise ValueError("`optimality_bound` handles the discount problem and the gain problem with "
                         f"monotone gains; got what={problem.what!r}"
                         + (", monotone_gain=False (the ideal ranking then depends on the gains)"
                            if problem.what == "gain" else "") + ".")
    active = C.max(axis=1) > 0
    return blocks, C, R, active


def quadratic_forms(problem: Problem) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    r"""``(P, Q, active)``: Φ(1) = v'Pv / v'Qv for the stacked per-topic variables of the active topics.

    From the sums of squares of :math:`X` with :math:`X_{\cdot t} = B_t u_t`:
    :math:`\sum X^2 = \sum_t u_t^\top B_t^\top B_t u_t`, row sums :math:`\sum_t B_t u_t`, column
    sums :math:`1^\top B_t u_t`, grand sum; then :math:`SS_s, SS_t, SS_{st}`, the mean squares and
    :math:`\sigma^2_s` (P) and :math:`\sigma^2_s+\sigma^2_t+\sigma^2_{st}` (Q).
    """
    S, T = problem.n_systems, problem.n_topics
    blocks, _, _, active = _topic_blocks(problem)
    Bs = [blocks[t] for t in np.flatnonzero(active)]
    k = Bs[0].shape[1]
    n = len(Bs) * k
    Ball = np.hstack(Bs)                          # S × n: row sums = Ball v
    sq = np.zeros((n, n))                         # Σ X² : block diagonal
    col = np.zeros((n, n))                        # Σ_t (column sum)² : block diagonal
    for i, B in enumerate(Bs):
        sl = slice(i * k, (i + 1) * k)
        sq[sl, sl] = B.T @ B
        b = B.sum(axis=0)
        col[sl, sl] = np.outer(b, b)
    rows = Ball.T @ Ball                          # Σ_s (row sum)²
    g = Ball.sum(axis=0)
    grand = np.outer(g, g) / (S * T)              # (Σ X)² / (S T)
    ss_s = rows / T - grand
    ss_t = col / S - grand
    ss_e = sq - grand - ss_s - ss_t
    ms_s, ms_t, ms_e = ss_s / (S - 1), ss_t / (T - 1), ss_e / ((S - 1) * (T - 1))
    v_s, v_t = (ms_s - ms_e) / T, (ms_t - ms_e) / S
    P = v_s
    Q = v_s + v_t + ms_e
    return (P + P.T) / 2, (Q + Q.T) / 2, active


def _stacked_normalisers(C: NDArray[np.float64]) -> NDArray[np.float64]:
    """The (topics × topics·k) matrix C̃ with C̃v = (c̃_t'u_t)_t."""
    n_t, k = C.shape
    Cb = np.zeros((n_t, n_t * k))
    for t in range(n_t):
        Cb[t, t * k:(t + 1) * k] = C[t]
    return Cb


def _coupling_pairs(n_t: int, k: int) -> tuple[NDArray[np.int64], ...]:
    """``(t, s, r, q)`` of the coupling rows, t < s and r < q, in the order of :func:`_coupling_selector`."""
    t_, s_, r_, q_ = (a.ravel() for a in np.meshgrid(np.arange(n_t), np.arange(n_t), np.arange(k), np.arange(k),
                                                      indexing="ij"))
    keep = (t_ < s_) & (r_ < q_)
    return t_[keep], s_[keep], r_[keep], q_[keep]


def _valid_pairs(C: NDArray[np.float64]) -> NDArray[np.bool_]:
    """(T, k, T, k): a coupling multiplier may join (t,r),(s,q) (and (t,q),(s,r)) only when all four
    coordinates have a positive normaliser (the others are kept out of the certificate)."""
    J = C > 0
    return J[:, :, None, None] & J[None, None, :, :] & J[:, None, None, :] & J.T[None, :, :, None]


def _coupling_selector(n_t: int, k: int) -> sp.csr_matrix | None:
    """Rows V[(t,r),(s,q)] − V[(t,q),(s,r)] (t < s, r < q) as a sparse selection of vec(Z)
    (column-major, Z = [[τ, y'], [y, V]]): every off-diagonal block of V symmetric."""
    n = n_t * k
    t_, s_, r_, q_ = _coupling_pairs(n_t, k)
    if not t_.size:
        return None
    m = t_.size
    one = 1 + t_ * k + r_, 1 + s_ * k + q_     # Z indices (offset 1 for τ, y)
    two = 1 + t_ * k + q_, 1 + s_ * k + r_
    flat = lambda ij: ij[1] * (n + 1) + ij[0]  # noqa: E731  (cvxpy's vec is column-major)
    return sp.csr_matrix((np.r_[np.ones(m), -np.ones(m)], (np.r_[np.arange(m), np.arange(m)],
                                                            np.r_[flat(one), flat(two)])), shape=(m, (n + 1) ** 2))


def _sym(M: NDArray[np.float64]) -> NDArray[np.float64]:
    return (M + M.T) / 2


def dual_matrix(P: NDArray[np.float64], Q: NDArray[np.float64], C: NDArray[np.float64], lam: float,
                mu0: NDArray[np.float64], gamma: NDArray[np.float64], kappa: NDArray[np.float64] | None,
                N: NDArray[np.float64], sel: sp.csr_matrix | None = None) -> NDArray[np.float64]:
    r"""The dual slack :math:`S = \lambda\hat Q - \hat P + \mathcal E(\mu_0, \Gamma, \kappa) - N` of the
    relaxation for any multipliers (see the module docstring, "Certificate").

    ``lam`` multiplies ⟨Q,V⟩ = 1, ``mu0`` (topics) the rows C̃y − τ1 = 0, ``gamma`` (topics × n)
    the rows C̃V − 1y' = 0, ``kappa`` the coupling rows (``sel``), ``N`` ≥ 0 (its symmetric part is
    used) the entrywise Z ≥ 0. Each equality term vanishes on every lifted feasible discount.
    """
    n_t, k = C.shape
    n = n_t * k
    Cb = _stacked_normalisers(C)
    zero = np.flatnonzero(C.ravel() <= 0)
    if zero.size:   # coordinates no normalisation bounds: keep every multiplier off them (see certify)
        gamma = np.array(gamma, dtype=np.float64)
        gamma[:, zero] = 0.0
        N = np.array(N, dtype=np.float64)
        N[1 + zero, :] = 0.0
        N[:, 1 + zero] = 0.0
        if kappa is not None:
            ok = _valid_pairs(C)
            t_, s_, r_, q_ = _coupling_pairs(n_t, k)
            kappa = np.where(ok[t_, r_, s_, q_], kappa, 0.0)
    S = np.zeros((n + 1, n + 1))
    S[1:, 1:] = lam * Q - P
    # C̃y − τ1 = 0:  ⟨μ0, C̃y⟩ − τ Σμ0
    h = Cb.T @ mu0
    S[0, 0] -= mu0.sum()
    S[0, 1:] += h / 2
    S[1:, 0] += h / 2
    # C̃V − 1y' = 0:  ⟨C̃'Γ, V⟩ − ⟨Γ'1, y⟩
    g = gamma.sum(axis=0)
    S[1:, 1:] += _sym(Cb.T @ gamma)
    S[0, 1:] -= g / 2
    S[1:, 0] -= g / 2
    if kappa is not None and sel is not None:
        S += _sym(np.asarray(sel.T @ kappa).reshape(n + 1, n + 1, order="F"))
    S -= _sym(np.clip(N, 0, None))
    return _sym(S)


def _denominator_floor(Q: NDArray[np.float64], C: NDArray[np.float64], iters: int = 2000) -> float:
    r"""A certified lower bound on :math:`v^\top Q v` over every feasible discount.

    Dropping the coupling of the topics enlarges the feasible set to the product of the simplices
    :math:`\{u_t \ge 0,\ \tilde c_t^\top u_t = 1\}`, on which :math:`v^\top Qv` (Q ⪰ 0: the
    denominator σ²_s+σ²_t+σ²_st is a sum of non-negative mean squares) is convex. Frank–Wolfe with
    exact line search; at each iterate :math:`\hat v`, convexity gives the lower bound
    :math:`f(\hat v) + \min_{v} \nabla f(\hat v)^\top (v - \hat v)`, the minimum attained at a vertex
    :math:`e_r/\tilde c_{t,r}` of each topic's simplex. The best bound seen is returned.
    """
    n_t, k = C.shape
    J = C.ravel() > 0                                # coordinates without normaliser: not in the simplices
    inv = np.where(J, 1.0 / np.where(J, C.ravel(), 1.0), 0.0)
    v = inv / np.repeat(J.reshape(n_t, k).sum(axis=1), k)   # uniform weights c̃_{t,r}u_{t,r} on each simplex
    best = -math.inf
    Qv = Q @ v
    for _ in range(iters):
        f = float(v @ Qv)
        grad = 2 * Qv
        scaled = np.where(J, grad * inv, np.inf).reshape(n_t, k)   # gradient at the vertices e_r / c̃_{t,r}
        r = np.argmin(scaled, axis=1)
        s = np.zeros(n_t * k)
        s[np.arange(n_t) * k + r] = inv[np.arange(n_t) * k + r]
        lin = float(grad @ (s - v))
        best = max(best, f + lin)
        if -lin <= 1e-6 * f:
            break
        dvec = s - v
        Qd = Q @ dvec
        curv = float(dvec @ Qd)
        step = 1.0 if curv <= 0 else min(1.0, -lin / (2 * curv))
        v += step * dvec
        Qv += step * Qd
    return best


def _normalisation_rows(C: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(F, W)``: the rows c̃_t'u_t − τ (columns of F) that vanish on every lifted discount
    w = (1, v), and W = F(F'F)⁻¹, so that Π = I − WF' projects onto their null space."""
    n_t, k = C.shape
    n = n_t * k
    F = np.zeros((n + 1, n_t))
    F[0] = -1.0
    for t in range(n_t):
        F[1 + t * k:1 + (t + 1) * k, t] = C[t]
    return F, np.linalg.solve(F.T @ F, F.T).T


def _projected(S: NDArray[np.float64], F: NDArray[np.float64], W: NDArray[np.float64]) -> NDArray[np.float64]:
    """ΠSΠ with Π = I − WF' (rank-T updates: O(n² T), no n³ product)."""
    SF = S @ F
    out = S - W @ SF.T - SF @ W.T + W @ (F.T @ SF) @ W.T
    return _sym(out)


def _negative_part(M: NDArray[np.float64], keep: NDArray[np.bool_] | None = None
                   ) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    """``(eigenvalues < −tol, their eigenvectors, allowance)`` of a symmetric ``M`` (LAPACK ``evr``,
    only those eigenpairs: a dual slack has few clearly negative eigenvalues, but a rank-deficient
    one has many at ±rounding level). ``tol`` = 10·n·u·‖M‖_F; ``allowance`` bounds what the rest
    can contribute: the eigenvalues in [−tol, 0), the LAPACK backward error (≤ tol) and the
    computed residuals ‖Mq_i − λ_i q_i‖, so that w'Mw ≥ Σ λ_i (q_i'w)² − allowance·‖w‖²."""
    import scipy.linalg as sl

    if keep is not None and not keep.all():         # rows/columns outside ``keep`` are 0: decompose the rest
        w, U, res = _negative_part(M[np.ix_(keep, keep)])
        full = np.zeros((M.shape[0], w.size))
        full[keep] = U
        return w, full, res
    n = M.shape[0]
    tol = 10 * n * np.finfo(float).eps * float(np.linalg.norm(M))
    w, U = sl.eigh(M, subset_by_value=(-np.inf, -tol), driver="evr")
    res = float(np.sum(np.linalg.norm(M @ U - U * w, axis=0))) if w.size else 0.0
    return w, U, res + 2 * tol


def certify(P: NDArray[np.float64], Q: NDArray[np.float64], C: NDArray[np.float64],
            S: NDArray[np.float64], lam: float, *, floor: float | None = None) -> tuple[float, float, float]:
    r"""``(bound, correction, floor)``: a certified upper bound on Φ(1) = v'Pv/v'Qv from a dual slack
    ``S`` built by :func:`dual_matrix` with multiplier ``lam`` (module docstring, "Certificate").

    With :math:`\Pi` the orthogonal projector onto the subspace the lifted feasible points
    :math:`w=(1,v)` lie in (:math:`\tilde c_t^\top u_t = \tau`) and the negative eigenpairs
    :math:`(\lambda_i, q_i)` of :math:`\Pi S \Pi` (LAPACK ``evr``; the rest of the spectrum is ≥ 0 up to
    the backward error :math:`\Delta`, charged as 10·n·u·‖ΠSΠ‖_F plus the computed residuals), for
    every feasible discount

    .. math::

        \lambda\, v^\top Q v - v^\top P v \;\ge\; w^\top S w \;\ge\;
        -\sum_{\lambda_i < 0} |\lambda_i|\, m_i^2 - \lVert\Delta\rVert_F\, \max\lVert w\rVert^2
        =: -\,\mathrm{correction},

    :math:`m_i = \max |q_i^\top w|` over :math:`w = (1, v)`, :math:`v` in the product of the topics'
    simplices (a superset of the feasible set: closed form, one vertex per topic), and
    :math:`\lVert w\rVert^2 \le 1 + \sum_t \max_r \tilde c_{t,r}^{-2}`. Dividing by
    :math:`v^\top Qv \ge` ``floor`` (:func:`_denominator_floor`):
    ``bound = lam + correction / floor`` (+inf when ``floor`` ≤ 0, or when some c̃_{t,r} = 0 — a
    non-monotone discount at a rank past a topic's relevant documents — where the superset is
    unbounded). ``floor`` may be given when already computed for these ``Q``, ``C``.
    """
    keep = _kept(P, Q, C, S)
    if keep is None:                                 # a normaliser 0 where the forms or S are not: unbounded
        return math.inf, math.inf, math.nan
    F, W = _normalisation_rows(C)
    w, q, resid = _negative_part(_projected(S, F, W), keep)
    correction = _charge(C, w, q, resid)
    floor = _denominator_floor(Q, C) if floor is None else floor
    if not floor > 0:
        return math.inf, correction, floor
    return float(lam + correction / floor), correction, floor


def _kept(P: NDArray[np.float64], Q: NDArray[np.float64], C: NDArray[np.float64],
          S: NDArray[np.float64]) -> NDArray[np.bool_] | None:
    """The coordinates of w the certificate works on: all but those with normaliser c̃_{t,r} = 0
    (their u_{t,r} is unbounded on the feasible set). Allowed only where P, Q and S vanish on them
    — then w'Sw does not depend on them (:func:`dual_matrix` keeps multipliers off them); None
    otherwise (no certificate)."""
    zero = np.flatnonzero(C.ravel() <= 0)
    if not zero.size:
        return np.ones(S.shape[0], dtype=bool)
    if np.any(P[zero]) or np.any(Q[zero]) or np.any(S[1 + zero]) or np.any(S[:, 1 + zero]):
        return None
    keep = np.ones(S.shape[0], dtype=bool)
    keep[1 + zero] = False
    return keep


def _charge(C: NDArray[np.float64], w: NDArray[np.float64], q: NDArray[np.float64], resid: float) -> float:
    """Σ|λ_i| m_i² + resid · max‖w‖² of :func:`certify` from the negative eigenpairs ``(w, q)``."""
    # vertex of topic t's simplex at rank r: e_r / c̃_{t,r}; a coordinate without normaliser is outside
    # the certificate (q is 0 there) and counts as 0, which can only enlarge the maxima below
    inv = np.where(C > 0, 1.0 / np.where(C > 0, C, 1.0), 0.0)
    correction = resid * (1.0 + float(np.sum(np.max(inv, axis=1) ** 2)))
    if w.size:
        n_t, k = C.shape
        body = q[1:].reshape(n_t, k, -1) * inv[:, :, None]
        hi = q[0] + body.max(axis=1).sum(axis=0)
        lo = q[0] + body.min(axis=1).sum(axis=0)
        m = np.maximum(np.abs(hi), np.abs(lo))
        correction += float(np.sum(-w * m ** 2))
    return correction


def repair(S: NDArray[np.float64], N: NDArray[np.float64], C: NDArray[np.float64], iters: int = 50,
           *, callback: Any = None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Move a dual slack ``S`` (with the non-negativity multiplier ``N`` ≥ 0 it holds, as passed to
    :func:`dual_matrix`) towards the PSD cone without leaving the set of valid certificates.

    Accelerated projected gradient (Nesterov/FISTA momentum) on
    :math:`\tfrac12\lVert(\Pi S\Pi)_-\rVert_F^2` over the moves :math:`S + K - \Delta N`: :math:`K`
    skew in every off-diagonal topic block (a coupling multiplier:
    :math:`w^\top K w = \sum_{t\ne s}\alpha_t\alpha_s u^\top K_{ts} u = 0` on every lifted discount
    :math:`u_t = \alpha_t u`) and :math:`N + \Delta N \ge 0`; the step (1) is that of alternating
    projections. Every iterate is a valid certificate; the last one is returned as ``(S, N)``.
    ``callback(i, S, w_neg, q_neg, resid)`` (optional) sees each iterate and the negative eigenpairs
    of its ΠSΠ with their residual (:func:`_negative_part`); a true return stops at that iterate.
    """
    n_t, k = C.shape
    n = n_t * k
    F, W = _normalisation_rows(C)
    keep = np.r_[True, C.ravel() > 0]                # coordinates without normaliser stay 0 in S (dual_matrix)
    N = _sym(np.clip(N, 0, None))
    N[~keep] = 0.0                                   # as dual_matrix subtracted it: N must be what S holds
    N[:, ~keep] = 0.0
    base = S + N                                     # S = base + K − N, K = 0 to start
    topic = np.r_[-1, np.repeat(np.arange(n_t), k)]
    off = topic[:, None] != topic[None, :]
    off[0, :] = off[:, 0] = False                   # the τ and y entries: only N can move them
    off[1:, 1:] &= _valid_pairs(C).reshape(n, n)     # and no coupling move touching a coordinate without normaliser

    def skew(G: NDArray[np.float64]) -> NDArray[np.float64]:
        Gv = G[1:, 1:].reshape(n_t, k, n_t, k)
        K = np.zeros_like(G)
        K[1:, 1:] = ((Gv - Gv.transpose(0, 3, 2, 1)) / 2).reshape(n, n)
        K[~off] = 0.0
        return K

    K = np.zeros_like(S)
    K_prev, N_prev = K, N
    for i in range(iters):
        beta = i / (i + 3)                          # FISTA extrapolation
        Ky, Ny = K + beta * (K - K_prev), np.clip(N + beta * (N - N_prev), 0, None)
        Sy = base + Ky - Ny
        w, q, resid = _negative_part(_projected(Sy, F, W), keep)
        if not w.size or (callback is not None and callback(i, Sy, w, q, resid)):
            K, N = Ky, Ny
            break
        D = -(q * w) @ q.T                          # PSD projection minus ΠSΠ
        Kd = skew(D)
        K_prev, N_prev = K, N
        K = Ky + Kd
        N = np.clip(Ny - (D - Kd), 0, None)
    return _sym(base + K - N), N


def dual_search(P: NDArray[np.float64], Q: NDArray[np.float64], C: NDArray[np.float64], lower: float, *,
                start: float | None = None, iters: int = 500, seconds: float = math.inf,
                log: Any = None, warm: tuple | None = None, sel: sp.csr_matrix | None = None,
                patience: int = 100) -> tuple[float, float]:
    r"""A certified bound without solving the SDP: ``(bound, lam)``.

    Starts from the multiplier-free slack :math:`S = \lambda\hat Q - \hat P` at ``start`` (default
    ``lower`` + 0.02) and runs the accelerated :func:`repair` iteration on the coupling and
    non-negativity multipliers; each iterate is certified (:func:`certify`'s charge from the
    negative eigenpairs it computes anyway) and the best bound is kept. Continuation on
    :math:`\lambda`: when the charge is below a quarter of :math:`\lambda -` ``lower`` (``lower`` a
    feasible Φ(1), e.g. the tuned one), :math:`\lambda` moves halfway down to ``lower`` and the
    momentum restarts; if the lower :math:`\lambda` brings no better bound within ``patience``
    iterations, the search returns to the last state and halves the step. Costs one partial eigendecomposition (the negative part) per iteration, so
    it reaches lifted sizes where SCS's full eigendecompositions and factorisations do not.
    ``warm`` = ``(lam, mu0, gamma, kappa, N)`` (e.g. an unfinished SCS run's multipliers, with the
    coupling selector ``sel``) starts from those multipliers instead, moved to λ = ``start``.
    """
    n_t, k = C.shape
    n = n_t * k
    Jz = np.flatnonzero(C.ravel() <= 0)
    if np.any(P[Jz]) or np.any(Q[Jz]):              # see _kept: no certificate
        return math.inf, math.nan
    floor = _denominator_floor(Q, C)
    if not floor > 0:
        return math.inf, math.nan
    lam = lower + 0.02 if start is None else start
    Qh = np.zeros((n + 1, n + 1))
    Qh[1:, 1:] = Q
    if warm is None:
        S = dual_matrix(P, Q, C, lam, np.zeros(n_t), np.zeros((n_t, n)), None, np.zeros((n + 1, n + 1)))
        N = np.zeros_like(S)
    else:
        S = dual_matrix(P, Q, C, lam, *warm[1:], sel)  # the same multipliers with λ = start
        N = _sym(np.clip(warm[4], 0, None))
    best = [math.inf, lam]
    t0 = time.perf_counter()
    done = 0
    since = 0                                       # iterations since λ last moved
    stalled = False
    fraction = 0.5

    def watch(i: int, Sy: NDArray[np.float64], w: NDArray[np.float64], q: NDArray[np.float64],
              resid: float) -> bool:
        nonlocal done, since, stalled
        done += 1
        since += 1
        charge = _charge(C, w, q, resid) / floor
        if lam + charge < best[0]:
            best[:] = [lam + charge, lam]
            since = 0 if lam < saved[0] else since
        if log is not None:
            log(f"iter {done}: lambda {lam:.6f} charge {charge:.2e} bound {lam + charge:.6f} best {best[0]:.6f} "
                f"({len(w)} negative, {time.perf_counter() - t0:.0f} s)")
        stalled = lam < saved[0] and since >= patience and best[1] != lam
        return (done >= iters or time.perf_counter() - t0 > seconds or stalled
                or (charge < (lam - lower) / 4 and i >= 5))

    saved: list[Any] = [math.inf, S, N]
    while done < iters and time.perf_counter() - t0 <= seconds:
        S, N = repair(S, N, C, iters - done, callback=watch)
        if done >= iters or time.perf_counter() - t0 > seconds:
            break
        if stalled:                                 # the lower λ did not pay off: back, and a smaller step
            lam, S, N = saved
            fraction /= 2
            stalled = False
        step = (lam - lower) * fraction             # continuation: λ part of the way down to the feasible value
        if step < 1e-9:
            break
        saved = [lam, S.copy(), N.copy()]
        lam -= step
        S = S - step * Qh
        since = 0
    return best[0], best[1]


def certified_bound(P: NDArray[np.float64], Q: NDArray[np.float64], C: NDArray[np.float64], mult: tuple,
                    sel: sp.csr_matrix | None, *, repair_iters: int = 100) -> float:
    """The certified bound (:func:`certify`) of the multipliers ``mult`` = ``(lam, mu0, gamma, kappa, N)``,
    and of their :func:`repair` when that charges more than 1e-9: the smaller (both are valid)."""
    S = dual_matrix(P, Q, C, *mult, sel)
    bound, _, floor = certify(P, Q, C, S, mult[0])
    if repair_iters > 0 and bound - mult[0] > 1e-9:  # the denominator's floor depends on Q, C only: computed once
        bound = min(bound, certify(P, Q, C, repair(S, mult[4], C, repair_iters)[0], mult[0], floor=floor)[0])
    return bound
