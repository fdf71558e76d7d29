r"""A certified upper bound on the tuned Φ(1) of the discount problem: a Shor (SDP) relaxation.

The tuned nDCG is :math:`X_{st} = a_{st}^\top d / c_t^\top d` (DCG over IDCG, see
:mod:`optimize.solvers.objective`) and :math:`\Phi(1) = \hat\sigma^2_s/(\hat\sigma^2_s+\hat\sigma^2_t+\hat\sigma^2_{st})`
is a ratio of two quadratic forms of :math:`X`. Maximising it over the feasible discounts is
non-convex; a relaxation gives an upper bound, and *bound − achieved* certifies how far a
tuning can be from the global optimum.

Construction (valid for the true per-topic normalisation, not only for a frozen IDCG):

1. Monotone discounts are :math:`d = Ru` with :math:`u \ge 0` (:math:`R` upper-triangular ones,
   :math:`d_r = \sum_{j\ge r} u_j`); without monotonicity :math:`d = u \ge 0`.
2. Charnes–Cooper *per topic*: :math:`u_t = u/(c_t^\top R u)` gives
   :math:`X_{\cdot t} = A_t R u_t` (linear) with :math:`\tilde c_t^\top u_t = 1`,
   :math:`\tilde c_t = R^\top c_t`; the :math:`u_t` of one discount are positive multiples of each
   other. Stacking :math:`v = (u_t)_t \in \mathbb{R}^{Tk}`, :math:`\Phi(1) = v^\top P v / v^\top Q v`
   with :math:`P, Q` assembled from the sums of squares (no :math:`n_s n_t`-sized matrix is formed).
3. Shor lifting :math:`V \approx vv^\top`, homogenised (Charnes–Cooper on the ratio):

   .. math::

       \max\ \langle P, V\rangle \quad\text{s.t.}\quad
       \begin{pmatrix}\tau & y^\top\\ y & V\end{pmatrix} \succeq 0,\;
       \langle Q, V\rangle = 1,\; \tilde c_t^\top y_t = \tau,\;
       \sum_r \tilde c_{t,r} V_{(t,r),\cdot} = y^\top,\; V \ge 0,\; y \ge 0,\;
       V_{tt'} = V_{tt'}^\top ,

   the last constraints (each off-diagonal block symmetric) hold exactly when the :math:`u_t`
   are parallel — the coupling of the topics through one discount. Every feasible discount
   gives a feasible point with objective its Φ(1), hence optimum ≥ max Φ(1).

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

The relaxation is tight (bound = optimum) when the SDP solution has rank one — e.g. when one
topic dominates or the optimum is at a vertex of the feasible set (a "top-m flat" discount);
it is loose when the maximiser is interior and topics pull the discount different ways. The
gap is reported, never hidden.

Cost: the PSD variable has :math:`(Tk+1)^2` entries — 500 × 500 for 50 topics at nDCG@10,
which SCS solves in minutes; 1000 × 1000 at nDCG@20 takes about a second per SCS iteration on
one core; nDCG@100 (5000 × 5000) is out of reach of a dense SDP (see docs/optimize.md for the
measured times). ``max_size`` refuses larger problems up front. Since *any* multipliers certify,
:func:`dual_search` builds a certificate without the SDP (momentum steps on the coupling and
non-negativity multipliers from :math:`S = \lambda\hat Q - \hat P`, one partial
eigendecomposition per step): valid at every size, but slow to close the gap.

References
----------
.. [1] N. Z. Shor (1987). Quadratic optimization problems. *Soviet J. Comput. Syst. Sci.* 25.
.. [2] A. Charnes, W. W. Cooper (1962). Programming with linear fractional functionals.
       *Naval Research Logistics Quarterly* 9:181–186.
.. [3] A. Beck, M. Teboulle (2009). A convex optimization approach for minimizing the ratio of
       indefinite quadratic functions over an ellipsoid. *Math. Program.* 118:13–35.
.. [4] C. Jansson, D. Chaykin, C. Keil (2007). Rigorous error bounds for the optimal value in
       semidefinite programming. *SIAM J. Numer. Anal.* 46(1):180–200.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from gtheory.kit.display import fmt
from gtheory.kit.jsonio import JsonResult
from gtheory.gstudy import fields_document, read_fields

from .objective import Problem

__all__ = ["optimality_bound", "OptimalityBound", "quadratic_forms", "dual_matrix", "certify", "repair", "dual_search"]


@dataclass(frozen=True)
class OptimalityBound(JsonResult):
    """Result of :func:`optimality_bound`.

    ``bound`` is a certified upper bound on Φ(1) over every feasible discount (from the dual,
    see the module docstring), ``relaxed`` the solver's optimum of the relaxation, ``margin`` =
    bound − relaxed (what the certificate charged for the solver's inaccuracy),
    ``rank_one_ratio`` the share of the lifted matrix's trace in its top eigenvalue (1 = rank
    one = tight), ``status`` cvxpy's status. A bound from :func:`dual_search` has ``solver``
    "dual search" and NaN ``relaxed``, ``margin`` and ``rank_one_ratio``.
    """

    bound: float
    relaxed: float
    margin: float
    status: str
    solver: str
    seconds: float
    size: int
    rank_one_ratio: float

    def summary(self) -> str:
        """One paragraph: the bound, the relaxation, the solver and how close to rank one."""
        if self.solver == "dual search":
            return (f"Optimality bound (certificate from a dual search, no SDP solve, {self.size} x {self.size}, "
                    f"{self.seconds:.1f} s): Φ(1) ≤ {self.bound:.8g} (certified)")
        return (f"Optimality bound (Shor SDP relaxation, {self.solver}, {self.size} x {self.size}, {self.status}, "
                f"{self.seconds:.1f} s): Φ(1) ≤ {self.bound:.8g} (certified; relaxation {self.relaxed:.8g}, "
                f"margin {self.margin:.1e}); top eigenvalue share {self.rank_one_ratio:.6f} (1 = rank one)")

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return (f"OptimalityBound(Φ(1) ≤ {fmt(self.bound)}, relaxation {fmt(self.relaxed)}, {self.solver} "
                f"{self.status}, {self.size} x {self.size}, top eigenvalue share {fmt(self.rank_one_ratio)})")

    def _repr_html_(self) -> str:
        from gtheory.kit.display import kv_table

        return kv_table("OptimalityBound (Shor SDP relaxation)", {
            "Φ(1) ≤": self.bound, "relaxation": self.relaxed, "margin": self.margin, "solver": self.solver,
            "status": self.status, "size": f"{self.size} × {self.size}", "top eigenvalue share": self.rank_one_ratio,
            "seconds": self.seconds})

    #: the ``"format"`` of :meth:`to_dict`
    JSON_FORMAT: ClassVar[str] = "gtheory.optimize.OptimalityBound/1"

    def to_dict(self) -> dict[str, Any]:
        """The fields plus ``"format"``; non-finite numbers as None (strict JSON)."""
        return fields_document(self)

    @classmethod
    def from_json(cls, text_or_path: str) -> OptimalityBound:
        """An :class:`OptimalityBound` from :meth:`to_json` output, JSON text or a file path (a None bound/margin is
        +inf)."""
        d = read_fields(cls, text_or_path)
        for f in ("bound", "margin"):
            d[f] = math.inf if d[f] is None else d[f]
        for f in ("relaxed", "rank_one_ratio"):
            d[f] = math.nan if d[f] is None else d[f]
        return cls(**d)


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


def _lifted(P: NDArray[np.float64], Q: NDArray[np.float64], C: NDArray[np.float64]):
    """The Shor relaxation as a cvxpy problem: ``(problem, Z, constraints, coupling selector)``;
    constraints in the order PSD, Z ≥ 0, ⟨Q,V⟩ = 1, C̃y = τ1, C̃V = 1y', coupling."""
    import cvxpy as cp

    n_t, k = C.shape
    n = n_t * k
    Z = cp.Variable((n + 1, n + 1), symmetric=True)
    tau, y, V = Z[0, 0], Z[0, 1:], Z[1:, 1:]
    Cb = _stacked_normalisers(C)
    cons = [Z >> 0, Z >= 0, cp.trace(Q @ V) == 1, Cb @ y == tau * np.ones(n_t),
            Cb @ V == np.ones((n_t, 1)) @ cp.reshape(y, (1, n), order="C")]
    sel = _coupling_selector(n_t, k)
    if sel is not None:
        cons.append(sel @ cp.vec(Z, order="F") == 0)
    return cp.Problem(cp.Maximize(cp.trace(P @ V)), cons), Z, cons, sel


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


def optimality_bound(problem: Problem, *, method: str = "sdp", solver: str | None = None, max_size: int = 1200,
                     eps: float = 1e-7, max_iters: int = 200000, repair_iters: int = 100,
                     lower: float | None = None, seconds: float = math.inf, iters: int = 1000) -> OptimalityBound:
    r"""Certified upper bound on Φ(1) of nDCG over every feasible discount vector (Shor relaxation,
    certified from its dual; see the module docstring).

    Parameters
    ----------
    problem : Problem
        A discount problem (``what="discount"``, monotone or not) or a gain problem with monotone
        gains (``what="gain"``); objective ``"phi"``.
    method : {"sdp", "dual-search"}
        ``"sdp"``: solve the relaxation (cvxpy) and certify its dual. ``"dual-search"``: no SDP
        solve — :func:`dual_search` builds the certificate directly (one partial eigendecomposition
        per iteration, no ``max_size`` limit; slower to close the gap, reported as ``solver``
        "dual search" with ``relaxed`` NaN).
    solver : str, optional
        A cvxpy SDP solver (``"SCS"`` default; ``"CLARABEL"`` is more accurate on small problems).
    max_size : int
        Refuse problems whose lifted matrix is larger than ``max_size`` (active topics × cut-off + 1):
        a dense SDP's memory and time grow with its square and cube.
    eps, max_iters : float, int
        SCS accuracy and iteration limit. An inaccurate solution still gives a valid bound (the
        certificate charges the dual's infeasibility), only a looser one.
    repair_iters : int
        At most this many :func:`repair` steps (one eigendecomposition each) when the certificate
        charges more than 1e-9; the smaller of the two certified bounds is reported.
    lower, seconds, iters : float, float, int
        ``"dual-search"`` only: a feasible Φ(1) to aim at (default: that of the log2 discount; pass
        the tuned Φ(1)), a time budget and an iteration limit.

    Returns
    -------
    OptimalityBound
        ``bound`` is certified whatever the solver's accuracy; ``relaxed`` is the solver's optimum.

    Raises
    ------
    ValueError
        For a gain/joint or Eρ² problem, or a problem larger than ``max_size``.
    """
    if problem.objective != "phi":
        raise ValueError(f"`optimality_bound` bounds Φ(1); got objective={problem.objective!r}.")
    t0 = time.perf_counter()
    P, Q, active = quadratic_forms(problem)
    _, C, _, _ = _topic_blocks(problem)
    C = C[active]
    n_t, k = C.shape
    n = n_t * k
    if method not in ("sdp", "dual-search"):
        raise ValueError(f"`method` must be 'sdp' or 'dual-search'; got {method!r}.")
    if method == "sdp" and n + 1 > max_size:
        raise ValueError(f"the relaxation's matrix would be {n + 1} x {n + 1} ({n_t} topics x cut-off {k}); "
                         f"larger than `max_size`={max_size}. Dense SDPs of this size are out of reach; "
                         "method='dual-search' certifies a (looser) bound without solving it.")
    scale = float(np.max(np.abs(Q)))  # conditioning: scale both forms alike (the ratio is unchanged)
    P, Q = P / scale, Q / scale
    if method == "dual-search":
        if lower is None:
            lower = _feasible_value(problem)
        bound = min(dual_search(P, Q, C, lower, iters=iters, seconds=seconds)[0], 1.0)
        return OptimalityBound(bound, math.nan, math.nan, "certified", "dual search", time.perf_counter() - t0,
                               n + 1, math.nan)
    name = solver or "SCS"
    status, relaxed, Zv, mult, sel = _solve(P, Q, C, name, eps, max_iters)
    seconds = lambda: time.perf_counter() - t0  # noqa: E731
    if mult is None:
        return OptimalityBound(math.inf, relaxed, math.inf, status, name, seconds(), n + 1, math.nan)
    bound = certified_bound(P, Q, C, mult, sel, repair_iters=repair_iters)
    w = np.linalg.eigvalsh(Zv)
    rank1 = float(w[-1] / np.sum(np.clip(w, 0, None))) if np.sum(np.clip(w, 0, None)) > 0 else math.nan
    bound = min(bound, 1.0)
    return OptimalityBound(bound, relaxed, bound - relaxed, status, name, seconds(), n + 1, rank1)


def _feasible_value(problem: Problem) -> float:
    """Φ(1) of a feasible vector: the log2 discount (or the grades as gains)."""
    if problem.what == "discount":
        x = 1.0 / np.log2(np.arange(2, problem.cutoff + 2))
    else:
        x = np.arange(1, problem.n + 1, dtype=np.float64)
    return float(problem.value(x / x.sum()))


def certified_bound(P: NDArray[np.float64], Q: NDArray[np.float64], C: NDArray[np.float64], mult: tuple,
                    sel: sp.csr_matrix | None, *, repair_iters: int = 100) -> float:
    """The certified bound (:func:`certify`) of the multipliers ``mult`` = ``(lam, mu0, gamma, kappa, N)``,
    and of their :func:`repair` when that charges more than 1e-9: the smaller (both are valid)."""
    S = dual_matrix(P, Q, C, *mult, sel)
    bound, _, floor = certify(P, Q, C, S, mult[0])
    if repair_iters > 0 and bound - mult[0] > 1e-9:  # the denominator's floor depends on Q, C only: computed once
        bound = min(bound, certify(P, Q, C, repair(S, mult[4], C, repair_iters)[0], mult[0], floor=floor)[0])
    return bound


def _solve(P: NDArray[np.float64], Q: NDArray[np.float64], C: NDArray[np.float64], solver: str, eps: float,
           max_iters: int, **options: Any) -> tuple[str, float, Any, tuple | None, sp.csr_matrix | None]:
    """Solve the relaxation: ``(status, optimum, Z, multipliers or None, coupling selector)``."""
    prob, Z, cons, sel = _lifted(P, Q, C)
    kw: dict[str, Any] = {"eps": eps, "max_iters": max_iters} if solver == "SCS" else {}
    prob.solve(solver=solver, **kw, **options)
    status = str(prob.status)
    relaxed = float(prob.value) if prob.value is not None else math.nan
    if status not in ("optimal", "optimal_inaccurate") or not math.isfinite(relaxed) or cons[2].dual_value is None:
        return status, relaxed, None, None, sel
    n_t, k = C.shape
    return status, relaxed, np.asarray(Z.value), _multipliers(cons, n_t, n_t * k), sel


def _multipliers(cons: list, n_t: int, n: int) -> tuple:
    """``(lam, mu0, gamma, kappa, N)`` from cvxpy's dual values, in the signs of :func:`dual_matrix`
    (checked: S then equals cvxpy's dual of Z ⪰ 0 to ~1e-12 on an accurately solved problem). The
    signs do not matter for validity — any multipliers give a valid certificate — only for tightness."""
    lam = float(np.asarray(cons[2].dual_value).ravel()[0])
    N = np.asarray(cons[1].dual_value, dtype=np.float64)
    mu0 = -np.asarray(cons[3].dual_value, dtype=np.float64).reshape(n_t)
    gamma = np.asarray(cons[4].dual_value, dtype=np.float64).reshape(n_t, n)
    kappa = np.asarray(cons[5].dual_value, dtype=np.float64).ravel() if len(cons) > 5 else None
    return lam, mu0, gamma, kappa, N


def bound_for_tuning(tuning: Any, **kwargs: Any) -> OptimalityBound:
    """The :class:`OptimalityBound` of a :class:`optimize.Tuning`'s problem, computed once and cached
    on the tuning (``Tuning.bound()``; ``Tuning.gap`` = bound − achieved Φ(1))."""
    cached = tuning.__dict__.get("_optimality_bound")
    if cached is not None and not kwargs:
        return cached
    if tuning._judged is None:
        raise ValueError("this Tuning was loaded from JSON and holds no data; rebuild the problem and call "
                         "optimize.solvers.bound.optimality_bound(problem).")
    if tuning.per_problem:
        raise ValueError("`bound()` is for a single-problem tuning; a minimax tuning has several problems.")
    if tuning.what == "discount":
        problem = Problem(tuning._judged, tuning.cutoff, "discount", gain=tuning._gain_for(tuning._judged),
                          objective=tuning.objective, monotone_discount=tuning.monotone_discount,
                          judged_only=tuning.judged_only)
    elif tuning.what == "gain":
        problem = Problem(tuning._judged, tuning.cutoff, "gain", discount=tuning.discount,
                          objective=tuning.objective, monotone_gain=tuning.monotone_gain,
                          judged_only=tuning.judged_only)
    else:
        raise ValueError("`bound()` handles discount and gain tunings; a joint tuning is not supported.")
    if kwargs.get("method") == "dual-search":
        kwargs.setdefault("lower", tuning.fun)
    result = optimality_bound(problem, **kwargs)
    tuning.__dict__["_optimality_bound"] = result  # frozen dataclass: cache outside the fields
    return result


def summary_line(tuning: Any) -> str | None:
    """The summary line of a computed bound (None if :meth:`Tuning.bound` was not called)."""
    b = tuning.__dict__.get("_optimality_bound")
    if b is None:
        return None
    how = "dual search" if b.solver == "dual search" else f"Shor SDP, {b.solver}"
    return (f"  optimality bound ({how}, certified): Φ(1) ≤ {b.bound:.6f}; gap to the tuned "
            f"{tuning.fun:.6f}: {b.bound - tuning.fun:.2e}" + ("  (relaxation tight: the gap is what the certificate "
                                                               "charges for the solver's inaccuracy)"
                                                               if b.relaxed - tuning.fun <= 1e-6 else ""))
