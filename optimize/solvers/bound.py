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

The certificate (:mod:`optimize.solvers.certificate`): for *any* multipliers the dual slack bounds Φ(1) once its
negative eigenvalues are charged, so the reported number is an upper bound whatever the solver's accuracy;
the module shows why and builds it, also without the SDP (``method="dual-search"``).

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

from .certificate import _coupling_selector, _stacked_normalisers, _topic_blocks, certified_bound, dual_search
from .certificate import quadratic_forms

__all__ = ["optimality_bound", "OptimalityBound"]


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
