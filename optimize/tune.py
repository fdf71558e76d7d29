r"""Front ends: stability-optimal discount, gain, or both (Kanoulas & Aslam 2009, §2.3).

Each maximises Φ (default) or Eρ² of the tuned nDCG's systems × topics matrix,

.. math::

    \max_{x}\; \frac{\hat\sigma^2_s(x)}{\hat\sigma^2_s(x) + \hat\sigma^2_t(x) + \hat\sigma^2_{st}(x)}
    \quad\text{s.t.}\quad \textstyle\sum x = 1,\; x \ge 0,\; \text{(monotone)},

i.e. Φ at one topic. Because :math:`\Phi(n) = n\rho/(1+n\rho)` is increasing in
:math:`\rho = \sigma^2_s/(\sigma^2_t+\sigma^2_{st})` for every :math:`n`, the argmax does not
depend on the number of topics; the result reports Φ at one topic and at the data's number of
topics, and the topics needed for any target.

Solvers (``solver=``): ``"slsqp"`` — SciPy SLSQP on the paper's constraints (without the
redundant bounds; :func:`optimize.slsqp.solve_slsqp`) with the exact gradient; ``"lbfgsb"`` — L-BFGS-B on the increments parametrisation (bounds only; fast at
1000 ranks); ``"cvxpy"`` — sequential convex programming with convex QP subproblems
(:mod:`optimize.cvx`); ``"auto"`` (default) — SLSQP up to 200 variables, L-BFGS-B above.
All start from the same deterministic starts (:mod:`optimize.multistart`).

References
----------
.. [1] E. Kanoulas and J. A. Aslam (2009). Empirical justification of the gain and discount
       function for nDCG. CIKM 2009.
.. [2] R. L. Brennan (2001). Generalizability Theory. Springer.
.. [3] D. Bodoff and P. Li (2007). Test theory for assessing IR test collections. SIGIR 2007.
"""
from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np

import gtheory
import metrics
from metrics import JudgedRuns

from .multistart import best_run, run_starts, starting_points
from .objective import Objective, Problem
from .result import OptimizationError, OptimizationWarning, SolverRun, Tuning
from .slsqp import solve_lbfgsb, solve_slsqp

__all__ = ["optimize_discount", "optimize_gain", "optimize_joint", "tune_problem", "SOLVERS"]

SOLVERS = ("auto", "slsqp", "lbfgsb", "cvxpy", "slsqp-fd")


def _solver_for(problem: Problem, solver: str):
    if solver not in SOLVERS:
        raise ValueError(f"`solver` must be one of {SOLVERS}; got {solver!r}.")
    if solver == "auto":
        solver = "slsqp" if problem.n <= 200 else "lbfgsb"
    if solver == "slsqp":
        return solver, lambda x0: solve_slsqp(problem, x0)
    if solver == "slsqp-fd":
        return solver, lambda x0: solve_slsqp(problem, x0, jac=False)
    if solver == "lbfgsb":
        return solver, lambda x0: solve_lbfgsb(problem, x0)
    from .cvx import solve_cvx

    return solver, lambda x0: solve_cvx(problem, x0)


def make_tuning(problem: Problem, best: SolverRun, runs: list[SolverRun], n_agree: int, agree_tol: float,
                solver: str, seconds: float, per_problem: list[dict[str, Any]] | None = None) -> Tuning:
    """A :class:`Tuning` from the best run of ``problem`` (coefficients from the raw ANOVA components)."""
    g, d = problem.split(best.x)
    g = g / g.sum() if g.sum() > 0 else g
    d = d / d.sum() if d.sum() > 0 else d
    X = problem.scores(best.x)
    vc = gtheory.variance_components(X)
    vs, vt, ve = float(vc.system), float(vc.topic), float(vc.residual)
    n = problem.n_topics
    negative = [name for name, v in (("system", vs), ("topic", vt), ("residual", ve)) if v < 0]
    failed = [r for r in runs if not r.success]
    msg = best.message
    if failed and best.success:
        msg += f" ({len(failed)} of {len(runs)} starts did not converge)"
    return Tuning(
        what=problem.what, objective=problem.objective, cutoff=problem.cutoff,
        levels=problem.levels.copy(), gain=g, discount=d,
        phi=float(gtheory.phi_from_components(vs, vt, ve, n)),
        erho2=float(gtheory.erho2_from_components(vs, ve, n)),
        phi_1=float(gtheory.phi_from_components(vs, vt, ve, 1)),
        erho2_1=float(gtheory.erho2_from_components(vs, ve, 1)),
        var_system=vs, var_topic=vt, var_residual=ve,
        n_systems=problem.n_systems, n_topics=n,
        success=bool(best.success), message=msg,
        nit=sum(r.nit for r in runs), nfev=sum(r.nfev for r in runs), njev=sum(r.njev for r in runs),
        solver=solver, starts=len(runs), n_agree=n_agree, agree_tol=agree_tol,
        start_values={r.start: float(r.fun) for r in runs},
        monotone_gain=problem.monotone_gain, monotone_discount=problem.monotone_discount,
        judged_only=problem.judged_only, seconds=seconds, per_problem=per_problem or [],
        negative_components=negative, _judged=problem.judged,
    )


def report_failure(tuning: Tuning, strict: bool, *, stacklevel: int = 4) -> None:
    """Warn (or raise, under ``strict``) when the optimiser failed; warn once about negative
    variance components of the final configuration (the only G-study that warns)."""
    if tuning.negative_components:
        comps = ", ".join(f"σ²({c})" for c in tuning.negative_components)
        warnings.warn(
            f"the tuned nDCG@{tuning.cutoff} has negative variance estimate(s) {comps} on the tuning data; "
            "Φ and Eρ² use them raw here and gtheory.gstudy sets them to 0 (Brennan 2001, §3.4).",
            gtheory.NegativeVarianceWarning, stacklevel=stacklevel,
        )
    if tuning.success:
        return
    text = f"the {tuning.solver} optimiser did not converge: {tuning.message}"
    if strict:
        raise OptimizationError(text)
    warnings.warn(text, OptimizationWarning, stacklevel=stacklevel)


def _check_common(starts: int, agree_tol: float) -> None:
    if isinstance(starts, bool) or not isinstance(starts, (int, np.integer)) or starts < 1:
        raise ValueError(f"`starts` must be a positive integer; got {starts!r}.")
    if not (isinstance(agree_tol, (int, float)) and agree_tol >= 0):
        raise ValueError(f"`agree_tol` must be a non-negative number; got {agree_tol!r}.")


def tune_problem(problem: Problem, *, solver: str = "auto", starts: int = 4, seed: int | None = 0,
                 agree_tol: float = 1e-6, strict: bool = False) -> Tuning:
    """Multi-start tuning of a prepared :class:`Problem` (the engine behind the front ends)."""
    _check_common(starts, agree_tol)
    name, solve = _solver_for(problem, solver)
    t0 = time.perf_counter()
    runs = run_starts(solve, starting_points(problem, starts, seed=seed))
    best, n_agree = best_run(runs, agree_tol)
    tuning = make_tuning(problem, best, runs, n_agree, agree_tol, name, time.perf_counter() - t0)
    report_failure(tuning, strict)
    return tuning


def optimize_discount(
    judged: JudgedRuns,
    gain: metrics.gains.GainSpec = "linear",
    cutoff: int = 100,
    *,
    objective: Objective = "phi",
    monotone: bool = True,
    solver: str = "auto",
    starts: int = 4,
    seed: int | None = 0,
    agree_tol: float = 1e-6,
    strict: bool = False,
    judged_only: bool = False,
) -> Tuning:
    r"""The stability-optimal discount vector of nDCG@``cutoff`` for a fixed gain.

    Parameters
    ----------
    judged : metrics.JudgedRuns
        Systems × topics × ranks judged grades (:func:`metrics.judge`, :func:`metrics.load_trec9`).
    gain : gain specification as in :func:`metrics.ndcg` (default ``"linear"``: the grade).
    cutoff : int
        k of nDCG@k; the discount has k entries.
    objective : {"phi", "erho2"}
        Maximise Φ (dependability; default, as the paper) or Eρ² (generalizability).
    monotone : bool
        Keep the discount non-increasing in rank (paper's constraint). False gives the paper's
        "unconstrained" discount (Fig. 3): only :math:`d \ge 0`, :math:`\sum d = 1`.
    solver : {"auto", "slsqp", "lbfgsb", "cvxpy"}
    starts : int
        Number of starting points (log2, zipf, linear, uniform, then seeded random).
    seed : int or None
        Seed of the random starts.
    agree_tol : float
        Starts within this of the best Φ(1) count as agreeing (``Tuning.n_agree``).
    strict : bool
        Raise :class:`OptimizationError` if the optimiser fails (default: warn
        :class:`OptimizationWarning` and record it in ``Tuning.success``/``message``).
    judged_only : bool
        Tune nDCG′ (condensed lists).

    Returns
    -------
    Tuning

    Notes
    -----
    :math:`\max_d f(d)` with :math:`f` = Φ(1) of :math:`X_{st} = \sum_r d_r G_{str} / \sum_r d_r I_{tr}`
    s.t. :math:`\sum_r d_r = 1`, :math:`d_r \ge d_{r+1} \ge 0` (Kanoulas & Aslam 2009, Fig. 1).
    The maximiser does not depend on the number of topics (module docstring).

    Examples
    --------
    >>> import metrics, optimize
    >>> t = optimize.optimize_discount(metrics.load_trec9(), gain=[0, 1, 2], cutoff=20, starts=1)
    >>> bool(t.success), t.discount.shape, bool(abs(t.discount.sum() - 1) < 1e-12)
    (True, (20,), True)
    """
    p = Problem(judged, cutoff, "discount", gain=gain, objective=objective,
                monotone_discount=monotone, judged_only=judged_only)
    return tune_problem(p, solver=solver, starts=starts, seed=seed, agree_tol=agree_tol, strict=strict)


def optimize_gain(
    judged: JudgedRuns,
    discount: metrics.discounts.DiscountSpec = "log2",
    cutoff: int = 100,
    *,
    objective: Objective = "phi",
    monotone: bool = True,
    solver: str = "auto",
    starts: int = 4,
    seed: int | None = 0,
    agree_tol: float = 1e-6,
    strict: bool = False,
    judged_only: bool = False,
) -> Tuning:
    r"""The stability-optimal gains (per grade) of nDCG@``cutoff`` for a fixed discount.

    Gains of grades ≤ 0 are 0; the positive grades' gains sum to 1 and, with ``monotone=True``,
    are non-decreasing in grade. ``monotone=False`` is the paper's "unconstrained" column of
    Table 2 (gains only non-negative; the hrel/rel ratio may fall below 1). Without the monotone
    constraint the ideal ranking follows the current gain order, so the objective is piecewise
    smooth (:mod:`optimize.objective`). Other parameters as :func:`optimize_discount`.

    Examples
    --------
    >>> import metrics, optimize
    >>> t = optimize.optimize_gain(metrics.load_trec9(), discount="log2", cutoff=10, starts=2)
    >>> bool(t.success), round(t.gain_ratios[2.0], 1) > 1
    (True, True)
    """
    p = Problem(judged, cutoff, "gain", discount=discount, objective=objective,
                monotone_gain=monotone, judged_only=judged_only)
    return tune_problem(p, solver=solver, starts=starts, seed=seed, agree_tol=agree_tol, strict=strict)


def optimize_joint(
    judged: JudgedRuns,
    cutoff: int = 100,
    *,
    objective: Objective = "phi",
    monotone_gain: bool = True,
    monotone_discount: bool = True,
    solver: str = "auto",
    starts: int = 4,
    seed: int | None = 0,
    agree_tol: float = 1e-6,
    strict: bool = False,
    judged_only: bool = False,
) -> Tuning:
    r"""Gains and discount tuned together: :math:`\max_{g,d} f(g, d)`, each block a distribution.

    DCG is bilinear in :math:`(g, d)`; the exact gradient has both blocks
    (:mod:`optimize.objective`). Parameters as :func:`optimize_discount`.

    Examples
    --------
    >>> import metrics, optimize
    >>> t = optimize.optimize_joint(metrics.load_trec9(), cutoff=10, starts=1)
    >>> bool(t.success), t.gain.shape, t.discount.shape
    (True, (3,), (10,))
    """
    p = Problem(judged, cutoff, "joint", objective=objective, monotone_gain=monotone_gain,
                monotone_discount=monotone_discount, judged_only=judged_only)
    return tune_problem(p, solver=solver, starts=starts, seed=seed, agree_tol=agree_tol, strict=strict)
