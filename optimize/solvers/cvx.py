r"""A cvxpy solver: sequential convex programming with convex QP subproblems.

The objective is a ratio of (differences of) quadratic forms of the nDCG matrix :math:`X(x)`,
and :math:`X` is a ratio of linear functions of :math:`x` — neither convex nor concave. Each
iteration builds a concave model of the Dinkelbach function around the feasible iterate
:math:`x_k` (with :math:`\lambda_k = \rho(x_k)`) and maximises it over the paper's polyhedron
with cvxpy (Clarabel):

1. linearise the scores, :math:`X(x_k+\delta) \approx X_k + J_k\delta` (exact first order;
   this is where the frozen-IDCG idea of METHOD-NOTES is made first-order exact by keeping the
   IDCG's derivative);
2. Dinkelbach: :math:`\rho = N/D \ge \lambda_k \iff N - \lambda_k D \ge 0`, with
   :math:`N = (MS_s - MS_{st})/n_t` and :math:`D = MS_t/n_s + (1-1/n_s)MS_{st}` (Φ) or
   :math:`D = MS_{st}` (Eρ²) — :math:`MS_s, MS_t, MS_{st}` are convex quadratics of the
   linearised :math:`X`;
3. minorise the one convex term with a positive sign, :math:`MS_s/n_t`, by its tangent
   (the convex–concave procedure); what remains is a concave quadratic;
4. add a proximal term :math:`-\tfrac{\tau}{2}\lVert\delta\rVert^2` and solve the QP

.. math::

    \max_\delta\; \tfrac{1}{n_t}\nabla MS_s^\top\delta
        - \left(\tfrac{1}{n_t} + \lambda_k c_e\right) MS_{st}(\delta) - \lambda_k c_t MS_t(\delta)
        - \tfrac{\tau}{2}\lVert\delta\rVert^2
    \quad\text{s.t.}\quad x_k + \delta \in \mathcal{F}

(:math:`c_t = 1/n_s, c_e = 1-1/n_s` for Φ; :math:`c_t=0, c_e=1` for Eρ²).

The model agrees with :math:`N-\lambda_k D` to first order at :math:`\delta=0`, whose gradient
is :math:`D\,\nabla\rho`; so a fixed point (:math:`\delta=0` optimal) is a KKT point of the
original problem. A step is accepted only if the true Φ(1) increases; otherwise :math:`\tau`
grows tenfold (a trust region in proximal form), and shrinks after acceptance. The QP has
:math:`n` variables and an :math:`n\times n` factor, so this solver suits up to a few hundred
variables; building the model costs :math:`O(n_s n_t n^2)` per iteration.

References
----------
.. [1] W. Dinkelbach (1967). On nonlinear fractional programming. Management Science 13(7).
.. [2] A. L. Yuille and A. Rangarajan (2003). The concave-convex procedure. Neural Computation 15(4).
.. [3] T. Lipp and S. Boyd (2016). Variations and extension of the convex–concave procedure.
       Optimization and Engineering 17.
.. [4] E. Kanoulas and J. A. Aslam (2009). CIKM 2009, §2.3.
"""
from __future__ import annotations

import time
import warnings

import numpy as np
from numpy.typing import NDArray

from ._threads import single_threaded_blas
from .objective import Problem
from .result import SolverRun
from .slsqp import make_feasible

__all__ = ["solve_cvx", "model_terms"]

#: solver options: the QP must be solved well below the Φ differences we resolve (1e-9)
_TIGHT = {
    "CLARABEL": dict(tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12, tol_ktratio=1e-10, max_iter=200),
    "OSQP": dict(eps_abs=1e-10, eps_rel=1e-10, max_iter=200000, polish=True),
}


def model_terms(problem: Problem, x: NDArray[np.float64]):
    r"""``(f, lam, Q, b)`` of the QP :math:`\min_\delta \tfrac12\delta^\top Q\delta + b^\top\delta` at ``x``
    (without the proximal term): the negated concave model :math:`M` of the module docstring, unscaled —
    :math:`\tfrac12\delta^\top Q\delta + b^\top\delta = -(M(\delta) - M(0))`, so :math:`b = -D\,\nabla\rho` at ``x``
    and :math:`Q = 2(\alpha J_e^\top J_e + \beta J_t^\top J_t)`,
    :math:`\alpha = (1/n_t + \lambda c_e)/((n_s-1)(n_t-1))`,
    :math:`\beta = \lambda c_t n_s/(n_t-1)`."""
    S, T = problem.n_systems, problem.n_topics
    X, J = problem.scores_and_jacobian(x)
    n = J.shape[1]
    J3 = J.reshape(S, T, n)
    mean_s = X.mean(axis=1)
    mean_t = X.mean(axis=0)
    grand = mean_s.mean()
    ds, dt = mean_s - grand, mean_t - grand
    e = X - mean_s[:, None] - dt[None, :]
    Js_mean = J3.mean(axis=1)  # (S, n)
    Jt_mean = J3.mean(axis=0)  # (T, n)
    Jg = Js_mean.mean(axis=0)
    Js = Js_mean - Jg
    Jt = Jt_mean - Jg
    Je = (J3 - Js_mean[:, None, :] - Jt[None, :, :]).reshape(S * T, n)
    ms_s = T * ds @ ds / (S - 1)
    ms_t = S * dt @ dt / (T - 1)
    ms_e = float((e * e).sum()) / ((S - 1) * (T - 1))
    num = (ms_s - ms_e) / T
    if problem.objective == "phi":
        c_t, c_e = 1.0 / S, 1.0 - 1.0 / S
    else:
        c_t, c_e = 0.0, 1.0
    den = c_t * ms_t + c_e * ms_e
    lam = num / den
    f = lam / (1 + lam)
    alpha = (1.0 / T + lam * c_e) / ((S - 1) * (T - 1))
    beta = lam * c_t * S / (T - 1)
    # minimise alpha||e + Je d||^2 + beta||dt + Jt d||^2 - (2/(S-1)) ds^T Js d   (tangent of MS_s/T)
    Q = 2.0 * (alpha * (Je.T @ Je) + beta * (Jt.T @ Jt))
    b = 2.0 * alpha * (Je.T @ e.ravel()) + 2.0 * beta * (Jt.T @ dt) - (2.0 / (S - 1)) * (Js.T @ ds)
    return float(f), float(lam), 0.5 * (Q + Q.T), b


def solve_cvx(
    problem: Problem,
    x0: NDArray[np.float64],
    *,
    maxiter: int = 300,
    ftol: float = 1e-13,
    xtol: float = 1e-10,
    tau0: float = 1e-3,
    solver: str = "CLARABEL",
) -> SolverRun:
    """Maximise one :class:`Problem` from ``x0`` by sequential convex QPs solved with cvxpy.

    Parameters
    ----------
    problem : Problem
    x0 : starting point (projected onto the feasible set first).
    maxiter : outer iterations (accepted or rejected QP solves).
    ftol : stop when an accepted step raises f by less than this (absolute, in Φ(1)).
    xtol : stop when the step's largest component is below this.
    tau0 : initial proximal weight, relative to the mean diagonal of the model's curvature.
    solver : cvxpy QP solver (default Clarabel, an interior-point method accurate to ~1e-8).

    Returns
    -------
    SolverRun
    """
    import cvxpy as cp

    t0 = time.perf_counter()
    x = make_feasible(problem, x0)
    n = problem.n
    A_eq, b_eq, A_in = problem.linear_constraints()
    delta = cp.Variable(n)
    L = cp.Parameter((n, n))
    b = cp.Parameter(n)
    xk = cp.Parameter(n)
    cons = [xk + delta >= 0, A_eq @ delta == 0]
    if A_in.shape[0]:
        cons.append(A_in @ (xk + delta) >= 0)
    qp = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(L @ delta) + b @ delta), cons)

    f, lam, Q, bb = model_terms(problem, x)
    scale = max(float(np.trace(Q)) / n, 1e-300)
    tau = tau0 * scale
    nit = nfev = 0
    success, message = False, f"iteration limit ({maxiter}) reached"
    while nit < maxiter:
        nit += 1
        # the QP is scaled to unit mean curvature so the solver's absolute tolerances bite
        Qt = (Q + tau * np.eye(n)) / scale
        try:
            L.value = np.linalg.cholesky(Qt).T
        except np.linalg.LinAlgError:
            tau *= 10
            continue
        b.value = bb / scale
        xk.value = x
        try:
            with warnings.catch_warnings(), single_threaded_blas():
                warnings.simplefilter("ignore", UserWarning)  # "solution may be inaccurate": we check f
                qp.solve(solver=solver, **_TIGHT.get(solver, {}))
        except cp.error.SolverError as exc:  # pragma: no cover - solver failure is reported
            message = f"QP solver failed: {exc}"
            break
        if delta.value is None or qp.status not in ("optimal", "optimal_inaccurate"):
            message = f"QP status {qp.status}"
            break
        step = np.asarray(delta.value)
        x_new = make_feasible(problem, x + step)
        f_new = problem.value(x_new)
        nfev += 1
        if np.isfinite(f_new) and f_new >= f:
            small = f_new - f <= ftol or np.max(np.abs(x_new - x)) <= xtol
            x, f = x_new, f_new
            if small:
                success, message = True, "converged: step below tolerance"
                break
            f, lam, Q, bb = model_terms(problem, x)
            nfev += 1
            tau = max(tau / 3.0, 1e-12 * scale)
        else:
            if np.max(np.abs(step)) <= xtol:
                success, message = True, "converged: no ascent step larger than tolerance"
                break
            tau *= 10.0
    f = problem.value(x)


    return SolverRun(x=x, fun=float(f), success=success, message=message, nit=nit, nfev=nfev,
                     njev=nfev, solver="cvxpy", seconds=time.perf_counter() - t0)
