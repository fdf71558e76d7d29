r"""A certified upper bound on the tuned Φ(1) of the discount problem: a Shor (SDP) relaxation.

The tuned nDCG is :math:`X_{st} = a_{st}^\top d / c_t^\top d` (DCG over IDCG, see
:mod:`optimize.objective`) and :math:`\Phi(1) = \hat\sigma^2_s/(\hat\sigma^2_s+\hat\sigma^2_t+\hat\sigma^2_{st})`
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

The relaxation is tight (bound = optimum) when the SDP solution has rank one — e.g. when one
topic dominates or the optimum is at a vertex of the feasible set (a "top-m flat" discount);
it is loose when the maximiser is interior and topics pull the discount different ways. The
gap is reported, never hidden; the solver's own accuracy (SCS: ~1e-6 relative) is added as a
safety margin.

Cost: the PSD variable has :math:`(Tk+1)^2` entries — 500 × 500 for 50 topics at nDCG@10,
which SCS solves in minutes; nDCG@100 (5000 × 5000) is out of reach of a dense SDP (see
docs/optimize.md for the measured times). ``max_size`` refuses larger problems up front.

References
----------
.. [1] N. Z. Shor (1987). Quadratic optimization problems. *Soviet J. Comput. Syst. Sci.* 25.
.. [2] A. Charnes, W. W. Cooper (1962). Programming with linear fractional functionals.
       *Naval Research Logistics Quarterly* 9:181–186.
.. [3] A. Beck, M. Teboulle (2009). A convex optimization approach for minimizing the ratio of
       indefinite quadratic functions over an ellipsoid. *Math. Program.* 118:13–35.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from gtheory._display import fmt
from gtheory.gstudy import _fields_document, _read_fields

from .objective import Problem

__all__ = ["optimality_bound", "OptimalityBound", "quadratic_forms"]


@dataclass(frozen=True)
class OptimalityBound:
    """Result of :func:`optimality_bound`.

    ``bound`` is an upper bound on Φ(1) over every feasible discount (solver tolerance included
    as ``margin``), ``relaxed`` the SDP optimum itself, ``rank_one_ratio`` the share of the lifted
    matrix's trace in its top eigenvalue (1 = rank one = tight), ``status`` cvxpy's status.
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
        return (f"Optimality bound (Shor SDP relaxation, {self.solver}, {self.size} x {self.size}, {self.status}, "
                f"{self.seconds:.1f} s): Φ(1) ≤ {self.bound:.8g} (relaxation {self.relaxed:.8g} + margin "
                f"{self.margin:.1e}); top eigenvalue share {self.rank_one_ratio:.6f} (1 = rank one)")

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return (f"OptimalityBound(Φ(1) ≤ {fmt(self.bound)}, relaxation {fmt(self.relaxed)}, {self.solver} "
                f"{self.status}, {self.size} x {self.size}, top eigenvalue share {fmt(self.rank_one_ratio)})")

    def _repr_html_(self) -> str:
        from gtheory._display import kv_table

        return kv_table("OptimalityBound (Shor SDP relaxation)", {
            "Φ(1) ≤": self.bound, "relaxation": self.relaxed, "margin": self.margin, "solver": self.solver,
            "status": self.status, "size": f"{self.size} × {self.size}", "top eigenvalue share": self.rank_one_ratio,
            "seconds": self.seconds})

    #: the ``"format"`` of :meth:`to_dict`
    JSON_FORMAT: ClassVar[str] = "gtheory.optimize.OptimalityBound/1"

    def to_dict(self) -> dict[str, Any]:
        """The fields plus ``"format"``; non-finite numbers as None (strict JSON)."""
        return _fields_document(self)

    def to_json(self, path: str | None = None, *, indent: int | None = 2) -> str:
        """Strict JSON of :meth:`to_dict` (written atomically to ``path`` if given)."""
        from gtheory._json import json_text

        return json_text(self.to_dict(), path, indent=indent)

    @classmethod
    def from_json(cls, text_or_path: str) -> OptimalityBound:
        """An :class:`OptimalityBound` from :meth:`to_json` output, JSON text or a file path (a None bound/margin is
        +inf; documents written before the ``"format"`` key still load)."""
        from gtheory._json import read_json

        d = read_json(text_or_path, cls.JSON_FORMAT)
        if isinstance(d, dict) and "format" not in d:  # written before the key
            d["format"] = cls.JSON_FORMAT
        d = _read_fields(cls, json.dumps(d))
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


def optimality_bound(problem: Problem, *, solver: str | None = None, max_size: int = 1200,
                     eps: float = 1e-7, max_iters: int = 200000) -> OptimalityBound:
    r"""Upper bound on Φ(1) of nDCG over every feasible discount vector (Shor relaxation; see module).

    Parameters
    ----------
    problem : Problem
        A discount problem (``what="discount"``, monotone or not) or a gain problem with monotone
        gains (``what="gain"``); objective ``"phi"``.
    solver : str, optional
        A cvxpy SDP solver (``"SCS"`` default; ``"CLARABEL"`` is more accurate on small problems).
    max_size : int
        Refuse problems whose lifted matrix is larger than ``max_size`` (active topics × cut-off + 1):
        a dense SDP's memory and time grow with its square and cube.
    eps, max_iters : float, int
        SCS accuracy and iteration limit.

    Returns
    -------
    OptimalityBound

    Raises
    ------
    ValueError
        For a gain/joint or Eρ² problem, or a problem larger than ``max_size``.
    """
    import cvxpy as cp

    if problem.objective != "phi":
        raise ValueError(f"`optimality_bound` bounds Φ(1); got objective={problem.objective!r}.")
    t0 = time.perf_counter()
    P, Q, active = quadratic_forms(problem)
    _, C, _, _ = _topic_blocks(problem)
    C = C[active]
    n_t, k = C.shape
    n = n_t * k
    if n + 1 > max_size:
        raise ValueError(f"the relaxation's matrix would be {n + 1} x {n + 1} ({n_t} topics x cut-off {k}); "
                         f"larger than `max_size`={max_size}. Dense SDPs of this size are out of reach.")
    scale = float(np.max(np.abs(Q)))  # conditioning: scale both forms alike (the ratio is unchanged)
    P, Q = P / scale, Q / scale
    Z = cp.Variable((n + 1, n + 1), symmetric=True)
    tau, y, V = Z[0, 0], Z[0, 1:], Z[1:, 1:]
    cons = [Z >> 0, Z >= 0, cp.trace(Q @ V) == 1]
    Cb = np.zeros((n_t, n))
    for t in range(n_t):
        Cb[t, t * k:(t + 1) * k] = C[t]
    cons += [Cb @ y == tau * np.ones(n_t), Cb @ V == np.ones((n_t, 1)) @ cp.reshape(y, (1, n), order="C")]
    # coupling: every off-diagonal block symmetric (the u_t of one discount are parallel):
    # V[(t,r),(s,q)] = V[(t,q),(s,r)] for t < s, r < q, as one sparse selection of vec(Z)
    t_, s_, r_, q_ = (a.ravel() for a in np.meshgrid(np.arange(n_t), np.arange(n_t), np.arange(k), np.arange(k),
                                                      indexing="ij"))
    keep = (t_ < s_) & (r_ < q_)
    if keep.any():
        t_, s_, r_, q_ = t_[keep], s_[keep], r_[keep], q_[keep]
        m = t_.size
        one = 1 + t_ * k + r_, 1 + s_ * k + q_     # Z indices (offset 1 for τ, y)
        two = 1 + t_ * k + q_, 1 + s_ * k + r_
        flat = lambda ij: ij[1] * (n + 1) + ij[0]  # noqa: E731  (cvxpy's vec is column-major)
        sel = sp.csr_matrix((np.r_[np.ones(m), -np.ones(m)], (np.r_[np.arange(m), np.arange(m)],
                                                              np.r_[flat(one), flat(two)])), shape=(m, (n + 1) ** 2))
        cons.append(sel @ cp.vec(Z, order="F") == 0)
    prob = cp.Problem(cp.Maximize(cp.trace(P @ V)), cons)
    name = solver or "SCS"
    kw: dict[str, Any] = {"eps": eps, "max_iters": max_iters} if name == "SCS" else {}
    prob.solve(solver=name, **kw)
    status = str(prob.status)
    relaxed = float(prob.value) if prob.value is not None else math.nan
    if status not in ("optimal", "optimal_inaccurate") or not math.isfinite(relaxed):
        return OptimalityBound(math.inf, relaxed, math.inf, status, name, time.perf_counter() - t0, n + 1, math.nan)
    Vv = np.asarray(V.value)
    # safety margin: the primal equality residual (⟨Q,V⟩ = 1) and the solver's tolerance
    resid = abs(float(np.sum(Q * Vv)) - 1.0)
    margin = (10 * eps + resid) * max(1.0, abs(relaxed))
    w = np.linalg.eigvalsh(np.asarray(Z.value))
    rank1 = float(w[-1] / np.sum(np.clip(w, 0, None))) if np.sum(np.clip(w, 0, None)) > 0 else math.nan
    return OptimalityBound(min(relaxed + margin, 1.0), relaxed, margin, status, name,
                           time.perf_counter() - t0, n + 1, rank1)


def bound_for_tuning(tuning: Any, **kwargs: Any) -> OptimalityBound:
    """The :class:`OptimalityBound` of a :class:`optimize.Tuning`'s problem, computed once and cached
    on the tuning (``Tuning.bound()``; ``Tuning.gap`` = bound − achieved Φ(1))."""
    cached = tuning.__dict__.get("_optimality_bound")
    if cached is not None and not kwargs:
        return cached
    if tuning._judged is None:
        raise ValueError("this Tuning was loaded from JSON and holds no data; rebuild the problem and call "
                         "optimize.bound.optimality_bound(problem).")
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
    result = optimality_bound(problem, **kwargs)
    tuning.__dict__["_optimality_bound"] = result  # frozen dataclass: cache outside the fields
    return result


def summary_line(tuning: Any) -> str | None:
    """The summary line of a computed bound (None if :meth:`Tuning.bound` was not called)."""
    b = tuning.__dict__.get("_optimality_bound")
    if b is None:
        return None
    return (f"  optimality bound (Shor SDP, {b.solver}): Φ(1) ≤ {b.bound:.6f}; gap to the tuned "
            f"{tuning.fun:.6f}: {b.bound - tuning.fun:.2e}" + ("  (relaxation tight: the gap is the solver "
                                                               "tolerance)" if b.relaxed - tuning.fun <= b.margin else ""))
