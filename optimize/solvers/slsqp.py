r"""SciPy solvers for one start: SLSQP on the paper's formulation, L-BFGS-B on increments.

* :func:`solve_slsqp` — the paper's method (Kanoulas & Aslam 2009, §2.3 and Fig. 1; MATLAB
  ``fmincon`` is an SQP method too): maximise :math:`f(x)` subject to each block summing to 1,
  :math:`x \ge 0` and, where requested, the monotonicity inequalities (the scale fixed by an
  anchor instead of the sum), with the exact gradient of :mod:`optimize.solvers.objective`. A dense SQP
  costs :math:`O(n^3)` per iteration: fine to a few hundred variables.
* :func:`solve_lbfgsb` — the same optimum through the increments parametrisation
  (:mod:`optimize.solvers.parametrize`): only bounds :math:`z \ge 0`, so L-BFGS-B needs :math:`O(n)` per
  iteration and tunes a 1000-rank discount in well under a second of objective work.

Both return a :class:`optimize.solvers.result.SolverRun` whose ``x`` satisfies the constraints exactly up
to rounding (the raw iterate is projected: clipped at 0, made monotone by a running min/max, and
rescaled to sum 1 per block — a change of the order of the solver's own constraint tolerance,
after which ``f`` is re-evaluated).
"""
from __future__ import annotations

import time
import warnings

from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import OptimizeResult, minimize

from .objective import Problem
from .parametrize import Parametrization
from ._threads import single_threaded_blas
from .result import SolverRun

__all__ = ["solve_slsqp", "solve_lbfgsb", "make_feasible"]


def make_feasible(problem: Problem, x: NDArray[np.float64]) -> NDArray[np.float64]:
    """A feasible point close to ``x`` (a repair, not a Euclidean projection): clip at 0, make each
    monotone block monotone by a running min (discount) or max (gains), rescale each block to sum 1."""
    x = np.maximum(np.asarray(x, dtype=np.float64), 0.0)
    for b in problem.blocks:
        v = x[b.slice]
        if b.monotone:
            v = np.minimum.accumulate(v) if b.name == "discount" else np.maximum.accumulate(v)
        s = v.sum()
        x[b.slice] = v / s if s > 0 else np.full(b.size, 1.0 / b.size)
    return x


def _finish(problem: Problem, x_raw, res, solver: str, t0: float, nfev: int, njev: int) -> SolverRun:
    x = make_feasible(problem, x_raw)
    f = problem.value(x)
    ok = bool(res.success) and np.isfinite(f)
    msg = str(res.message)
    viol = problem.violation(x)
    if viol > 1e-9:
        ok = False
        msg += f"; constraint violation {viol:.2e} after projection"
    return SolverRun(
        x=x, fun=float(f), success=ok, message=msg, nit=int(getattr(res, "nit", 0)),
        nfev=nfev, njev=njev, solver=solver, seconds=time.perf_counter() - t0,
    )


def _anchored(problem: Problem, x0: NDArray[np.float64], A_eq, b_eq, A_in):
    """The ``"anchored"`` formulation of :func:`solve_slsqp` as ``x = base + Z z`` (``Z`` selects
    the free variables ``free``): ``(base, free, A_eq, b_eq, A_in, b_in, bounds)`` in ``z``.

    ``x0`` must be feasible (projected): its anchors are positive, being the largest entry of a
    block that sums to 1."""
    base = np.zeros(problem.n)
    fixed = np.zeros(problem.n, dtype=bool)
    lo = np.full(problem.n, -np.inf)  # lower bounds not implied by the other constraints
    hi = np.full(problem.n, np.inf)
    keep_eq = []
    for i, b in enumerate(problem.blocks):
        if b.monotone:
            # the largest variable of the block: the top-rank discount, the top-grade gain
            top, bottom = (b.start, b.start + b.size - 1) if b.name == "discount" else (b.start + b.size - 1, b.start)
            base[top], fixed[top] = x0[top], True
            lo[bottom] = 0.0
        else:
            keep_eq.append(i)
            lo[b.slice] = 0.0
    free = np.flatnonzero(~fixed)
    b_in = -(A_in @ base)
    A_in, lo, hi = A_in[:, free], lo[free], hi[free]
    # a monotonicity row left with one variable (the anchor's neighbour: d_2 <= d_1) is a bound
    single = np.count_nonzero(A_in, axis=1) == 1
    rows = np.flatnonzero(single)
    cols = np.argmax(A_in[rows] != 0, axis=1) if free.size else np.zeros(0, dtype=np.intp)
    coef = A_in[rows, cols]
    v = b_in[rows] / coef
    np.maximum.at(lo, cols[coef > 0], v[coef > 0])
    np.minimum.at(hi, cols[coef < 0], v[coef < 0])
    bounds = list(zip(np.where(np.isfinite(lo), lo, None).tolist(), np.where(np.isfinite(hi), hi, None).tolist()))
    return base, free, A_eq[keep_eq][:, free], b_eq[keep_eq], A_in[~single], b_in[~single], bounds


def _negated_objective(problem: Problem, to_x: Any, pull: Any, counter: dict) -> tuple[Any, Any]:
    """SLSQP's ``(fun, grad)`` in the solver's variables ``z`` (``x = to_x(z)``, gradients pulled back by ``pull``):
    :math:`-f` and :math:`-\nabla f`, counting calls in ``counter``. SLSQP asks for the gradient at accepted iterates
    only, right after their value, so the gradient reuses the scores of the last value when ``z`` is the same."""
    last: dict = {}

    def fun(z):
        counter["f"] += 1
        f, state = problem.forward(to_x(z))
        last["z"], last["state"] = z.copy(), state
        return -f

    def grad(z):
        counter["g"] += 1
        state = last["state"] if "z" in last and np.array_equal(last["z"], z) else problem.forward(to_x(z))[1]
        return -pull(problem.gradient(state))

    return fun, grad


def _linear_constraints(A_eq, b_eq, A_in, b_in) -> list[dict]:
    """SciPy's constraint dicts of ``A_eq z = b_eq`` and ``A_in z >= b_in`` (the empty ones left out)."""
    cons = []
    if A_eq.shape[0]:
        cons.append({"type": "eq", "fun": lambda z: A_eq @ z - b_eq, "jac": lambda z: A_eq})
    if A_in.shape[0]:
        cons.append({"type": "ineq", "fun": lambda z: A_in @ z - b_in, "jac": lambda z: A_in})
    return cons


def solve_slsqp(
    problem: Problem,
    x0: NDArray[np.float64],
    *,
    maxiter: int = 1000,
    ftol: float = 1e-12,
) -> SolverRun:
    r"""Maximise the stability of one :class:`Problem` from ``x0`` with SLSQP and the exact gradient.

    The problem is the paper's (Kanoulas & Aslam 2009, Fig. 1), written so that SLSQP's subproblems are small: the
    scale of each monotone block is fixed by holding its largest variable at its (projected) starting value — the
    top-rank discount :math:`d_1`, the top-grade gain — instead of by the sum-to-1 equality, and the result is
    rescaled to sum 1 afterwards. What remains are the ``k-1`` monotonicity inequalities (the one next to the anchor
    as a bound, :math:`d_2 \le d_1`) and the one bound they do not imply (:math:`d_k \ge 0`; lowest gain
    :math:`\ge 0`). A block without the monotone constraint keeps sum-to-1 and :math:`x \ge 0` (its largest entry
    is not known in advance). Anchoring is exact: nDCG is scale-free in the gains and in the discounts, the anchor
    is positive at every feasible point, so every feasible direction is a rescaling of one with that anchor. On
    TREC-9 nDCG@100 it takes 10–13 iterations, exit mode 0 from every start tried; the literal Fig. 1 form, the
    other formulations measured against it and SciPy's finite differences are in ``benchmarks/slsqp_variants.py``
    (timings: ``benchmarks/results/optimize.txt``).

    Parameters
    ----------
    problem : Problem
    x0 : starting point (projected onto the feasible set first).
    maxiter, ftol : passed to SLSQP (``ftol`` is the precision goal for ``f`` = Φ(1)).

    Returns
    -------
    SolverRun
    """
    t0 = time.perf_counter()
    A_eq, b_eq, A_in = problem.linear_constraints()
    counter = {"f": 0, "g": 0}
    xp = make_feasible(problem, x0)
    base, free, A_eq, b_eq, A_in, b_in, bounds = _anchored(problem, xp, A_eq, b_eq, A_in)
    if free.size == 0:  # every block is a single anchored variable: nothing to optimise
        res = OptimizeResult(x=np.zeros(0), success=True, nit=0,
                             message="nothing to optimise (every block is one anchored variable)")
        return _finish(problem, base, res, "slsqp", t0, 0, 0)

    def to_x(z):
        x = base.copy()
        x[free] = z
        return x

    fun, grad = _negated_objective(problem, to_x, lambda g: g[free], counter)
    with warnings.catch_warnings(), single_threaded_blas():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = minimize(fun, xp[free], jac=grad, method="SLSQP", bounds=bounds,
                       constraints=_linear_constraints(A_eq, b_eq, A_in, b_in),
                       options={"maxiter": maxiter, "ftol": ftol})
    return _finish(problem, to_x(res.x), res, "slsqp", t0, counter["f"], counter["g"])


def solve_lbfgsb(
    problem: Problem,
    x0: NDArray[np.float64],
    *,
    maxiter: int = 15000,
    ftol: float = 1e-15,
    gtol: float = 1e-10,
    restarts: int = 10,
) -> SolverRun:
    """Maximise from ``x0`` with L-BFGS-B on the increments parametrisation (bounds only).

    Parameters as :func:`solve_slsqp`; ``ftol``/``gtol`` are L-BFGS-B's relative-reduction and
    projected-gradient tolerances; ``restarts`` bounds the warm restarts (from the re-normalised
    point, with a fresh curvature model) taken while they still improve ``f``.
    """
    t0 = time.perf_counter()
    par = Parametrization(problem)
    z0 = par.to_z(make_feasible(problem, x0))
    counter = {"f": 0}

    def fun(z):
        counter["f"] += 1
        f, g = par.value_and_grad(z)
        if not np.isfinite(f):
            return np.inf, np.zeros_like(z)
        return -f, -g

    nit = 0
    best_f, best_res = -np.inf, None
    for _ in range(restarts + 1):
        with single_threaded_blas():
            res = minimize(
                fun, z0, jac=True, method="L-BFGS-B", bounds=[(0.0, None)] * problem.n,
                options={"maxiter": maxiter, "maxfun": 4 * maxiter, "ftol": ftol, "gtol": gtol, "maxcor": 30},
            )
        nit += res.nit
        f_new = -float(res.fun)
        # the objective is scale-free: re-normalise and restart with a fresh curvature model until
        # a restart no longer improves (L-BFGS-B's stopping tests can fire early on a flat ridge)
        z0 = par.to_z(make_feasible(problem, par.to_x(res.x)))
        improved = f_new - best_f > 1e-13 * max(1.0, abs(f_new))
        if best_res is None or (f_new >= best_f and (res.success or not best_res.success)):
            best_res = res
        best_f = max(best_f, f_new)
        if not improved:
            break
    res = best_res
    res.nit = nit
    return _finish(problem, par.to_x(res.x), res, "lbfgsb", t0, counter["f"], counter["f"])
