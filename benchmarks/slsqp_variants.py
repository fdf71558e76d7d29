r"""Research formulations of the SLSQP solve, kept out of the library for the benchmark and its tests.

The library solves one start with :func:`optimize.solvers.slsqp.solve_slsqp`: the paper's problem (Kanoulas & Aslam 2009,
§2.3 and Fig. 1) in the ``"anchored"`` formulation, with the exact gradient of :mod:`optimize.solvers.objective`. This module
holds the descriptions of the same problem that were measured against it, and SciPy's finite differences
(``jac=False``), so that ``benchmarks/bench_optimize.py`` can time like with like and
``tests/test_optimize_solvers_slsqp.py`` can check that every description reaches the library's optimum:

* ``"anchored"`` — the library's formulation (the scale of each monotone block fixed by its largest variable);
* ``"reduced"`` — the sum-to-1 equality and the ``k-1`` monotonicity inequalities of each block, and only the one
  bound they do not imply (:math:`d_k \ge 0`; :math:`g_1 \ge 0`; :math:`x \ge 0` for a non-monotone block);
* ``"paper"`` — Fig. 1 literally: sum-to-1 equalities, monotonicity inequalities and ``0 <= x <= 1``;
* ``"increments"`` — bounds :math:`u \ge 0` on increments (:mod:`optimize.solvers.parametrize`) plus the sum-to-1 equality
  per block; badly scaled (one :math:`u_j` moves :math:`j` discounts): at ``ftol=1e-12`` SLSQP often stops at the
  optimum with exit mode 8 (a rounding-level failure of the line search).

Measured: ``python benchmarks/bench_optimize.py`` (results in ``benchmarks/results/optimize.txt``).
"""
from __future__ import annotations

import time
import warnings

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import OptimizeResult, minimize

from optimize.solvers._threads import single_threaded_blas
from optimize.solvers.objective import Problem
from optimize.solvers.parametrize import Parametrization
from optimize.solvers.result import SolverRun
from optimize.solvers.slsqp import _anchored, _finish, _linear_constraints, _negated_objective, make_feasible

FORMULATIONS = ("anchored", "reduced", "paper", "increments")


def _reduced_bounds(problem: Problem) -> list[tuple[float | None, None]]:
    """Lower bounds that the other constraints of the ``"reduced"`` formulation do not imply."""
    lo: list[float | None] = [None] * problem.n
    for b in problem.blocks:
        if not b.monotone:
            lo[b.slice] = [0.0] * b.size
        elif b.name == "discount":
            lo[b.start + b.size - 1] = 0.0  # d_1 >= ... >= d_k >= 0
        else:
            lo[b.start] = 0.0  # 0 <= g_1 <= ... <= g_J
    return [(v, None) for v in lo]


def solve_slsqp_variant(
    problem: Problem,
    x0: NDArray[np.float64],
    *,
    formulation: str = "anchored",
    jac: bool = True,
    maxiter: int = 1000,
    ftol: float = 1e-12,
) -> SolverRun:
    """Maximise Φ(1) of ``problem`` from ``x0`` with SLSQP in one of :data:`FORMULATIONS`, with the exact gradient
    (``jac=True``) or SciPy's two-point finite differences (``jac=False``, :math:`n` extra evaluations per gradient).

    The solver name is ``"slsqp"`` (exact) or ``"slsqp-fd"``, followed by ``[formulation]`` unless anchored; the
    returned point is made feasible and re-evaluated as in the library."""
    t0 = time.perf_counter()
    if formulation not in FORMULATIONS:
        raise ValueError(f"`formulation` must be one of {FORMULATIONS}; got {formulation!r}.")
    A_eq, b_eq, A_in = problem.linear_constraints()
    b_in = np.zeros(A_in.shape[0])
    if formulation == "anchored":
        xp = make_feasible(problem, x0)
        base, free, A_eq, b_eq, A_in, b_in, bounds = _anchored(problem, xp, A_eq, b_eq, A_in)
        if free.size == 0:
            res = OptimizeResult(x=np.zeros(0), success=True, nit=0, message="nothing to optimise")
            return _finish(problem, base, res, "slsqp" if jac else "slsqp-fd", t0, 0, 0)

        def to_x(z):
            x = base.copy()
            x[free] = z
            return x

        def pull(g):
            return g[free]

        z0 = xp[free]
    elif formulation == "increments":
        par = Parametrization(problem)
        T = np.column_stack([par.to_x(e) for e in np.eye(problem.n)])
        A_eq, A_in = A_eq @ T, np.zeros((0, problem.n))
        to_x, pull, z0 = par.to_x, par.pullback, par.to_z(make_feasible(problem, x0))
        bounds = [(0.0, None)] * problem.n
    else:
        to_x, pull, z0 = (lambda z: z), (lambda g: g), make_feasible(problem, x0)
        bounds = [(0.0, 1.0)] * problem.n if formulation == "paper" else _reduced_bounds(problem)

    counter = {"f": 0, "g": 0}
    fun, grad = _negated_objective(problem, to_x, pull, counter)
    if not jac:
        def fun(z):  # noqa: F811  (the finite-difference baseline evaluates f alone)
            counter["f"] += 1
            return -problem.value(to_x(z))

    with warnings.catch_warnings(), single_threaded_blas():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = minimize(fun, z0, jac=grad if jac else None, method="SLSQP", bounds=bounds,
                       constraints=_linear_constraints(A_eq, b_eq, A_in, b_in),
                       options={"maxiter": maxiter, "ftol": ftol})
    name = "slsqp" if jac else "slsqp-fd"
    if formulation != "anchored":
        name += f"[{formulation}]"
    return _finish(problem, to_x(res.x), res, name, t0, counter["f"], counter["g"])
