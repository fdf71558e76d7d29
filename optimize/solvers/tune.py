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
redundant bounds; :func:`optimize.solvers.slsqp.solve_slsqp`) with the exact gradient; ``"lbfgsb"`` — L-BFGS-B on the increments parametrisation (bounds only; fast at
1000 ranks); ``"cvxpy"`` — sequential convex programming with convex QP subproblems
(:mod:`optimize.solvers.cvx`); ``"auto"`` (default) — SLSQP up to 200 variables, L-BFGS-B above.
All start from the same deterministic starts (:mod:`optimize.solvers.multistart`).

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
from dataclasses import replace
from typing import Any

import numpy as np

import gtheory
import metrics
from gtheory.errors import is_rounding_noise
from metrics import JudgedRuns

from .multistart import best_run, run_starts, starting_points
from .objective import Objective, Problem
from .parametrize import Parametrization
from ..errors import OptimizationError, OptimizationWarning
from .result import SolverRun, Tuning, gstudy_ratios
from .slsqp import solve_lbfgsb, solve_slsqp
from gtheory.kit.params import REQUIRED_CUTOFF, validate_params

__all__ = ["optimize_discount", "optimize_gain", "optimize_joint", "tune_problem", "SOLVERS"]

SOLVERS = ("auto", "slsqp", "lbfgsb", "cvxpy")


def _solver_for(problem: Problem, solver: str):
    if solver not in SOLVERS:
        raise ValueError(f"`solver` must be one of {SOLVERS}; got {solver!r}.")
    if solver == "auto":
        solver = "slsqp" if problem.n <= 200 else "lbfgsb"
    if solver == "slsqp":
        return solver, lambda x0: solve_slsqp(problem, x0)
    if solver == "lbfgsb":
        return solver, lambda x0: verify_first_order(problem, solve_lbfgsb(problem, x0))
    from .cvx import solve_cvx

    return solver, lambda x0: solve_cvx(problem, x0)


#: relative projected-gradient tolerance of :func:`verify_first_order`
FIRST_ORDER_TOL = 1e-6

#: σ²(system) at most this fraction of the score variance counts as 0 (:func:`degenerate_message`)
FLAT_TOL = 1e-12

_INDISTINGUISHABLE = "the systems are indistinguishable under every configuration"


def verify_first_order(problem: Problem, run: SolverRun, tol: float = FIRST_ORDER_TOL) -> SolverRun:
    r"""Accept an L-BFGS-B run that stopped ``ABNORMAL`` (line search failed) at a first-order point.

    L-BFGS-B reports ``ABNORMAL`` when its line search cannot decrease :math:`-f` any more — at
    the optimum that is rounding, not failure. In the increments :math:`z \ge 0`
    (:mod:`optimize.solvers.parametrize`) the projected gradient of :math:`-f` is
    :math:`p = \max(z - \nabla_z(-f), 0) - z` (L-BFGS-B's own ``pgtol`` measure); if
    :math:`\lVert p\rVert_\infty \le` ``tol`` :math:`\cdot |f|` at the returned point the
    bound-constrained KKT conditions hold to that tolerance and the run is reported converged.
    Other runs are returned unchanged; a changed run is a new :class:`SolverRun` (it is frozen).
    """
    if run.success or not run.message.startswith("ABNORMAL") or not np.isfinite(run.fun):
        return run
    par = Parametrization(problem)
    z = par.to_z(run.x)
    f, g = par.value_and_grad(z)
    if not (np.isfinite(f) and np.all(np.isfinite(g))):
        return run
    pg = float(np.max(np.abs(np.maximum(z + g, 0.0) - z)))  # ∇(-f) = -g
    if pg <= tol * abs(f):
        return replace(run, success=True,
                       message=(f"converged: projected gradient {pg:.2e} ≤ tol·|f| = {tol * abs(f):.2e} "
                                f"after line-search stop ({run.message.strip()})"))
    return replace(run, message=run.message + f" (projected gradient {pg:.2e} > tol·|f| = {tol * abs(f):.2e})")


def _identical_systems(problem: Problem) -> bool:
    """Whether every system has the same relevant grade at every rank ≤ k of every topic — then
    every gain and discount gives all systems the same nDCG on each topic."""
    j = problem._j
    levels = np.asarray(j.levels, dtype=np.float64)
    cls = np.where(levels > 0, np.arange(1, levels.size + 1), 0).astype(np.float64)
    V = j.level_values(cls, ranks=problem.cutoff)
    return bool(np.all(V == V[:1]))


def degenerate_message(problem: Problem, X: np.ndarray, var_system: float) -> str | None:
    """Why ``problem`` cannot be tuned, or None: σ²(system) of the tuned scores ``X`` is 0 (at most
    :data:`FLAT_TOL` of the score variance), so Φ and Eρ² are 0 for the best configuration found."""
    scale = float(np.mean((X - X.mean()) ** 2))
    if abs(var_system) > FLAT_TOL * scale:
        return None
    k = problem.cutoff
    if _identical_systems(problem):
        why = (f"all {problem.n_systems} systems retrieve the same grades at every rank ≤ {k} on every topic, "
               "so every gain and discount scores them alike")
    else:
        why = (f"the best configuration found has σ²(system) = {var_system:.3g}, at most {FLAT_TOL:g} of the "
               f"score variance {scale:.3g}")
    return (f"{_INDISTINGUISHABLE}: σ²(system) = 0 for the tuned nDCG@{k} ({why}); Φ is 0 (Eρ² 0, or undefined "
            "when the systems also agree on every topic) whatever the gain and discount, and the returned vectors "
            "are arbitrary")


def make_tuning(problem: Problem, best: SolverRun, runs: list[SolverRun], n_agree: int, agree_tol: float,
                solver: str, seconds: float, per_problem: list[dict[str, Any]] | None = None, *,
                gain_family: str | None = None) -> Tuning:
    """A :class:`Tuning` from the best run of ``problem``: coefficients by the G-study convention
    (negative components set to 0, as :func:`gtheory.gstudy`), raw components kept; ``success``
    False with the reason when the systems cannot be told apart (:func:`degenerate_message`);
    ``gain_family`` the named gain family of a discount tuning (None otherwise)."""
    g, d = problem.split(best.x)
    g = g / g.sum() if g.sum() > 0 else g
    d = d / d.sum() if d.sum() > 0 else d
    X = problem.scores(best.x)
    vc = gtheory.variance_components(X)
    vs, vt, ve = float(vc.system), float(vc.topic), float(vc.residual)
    n = problem.n_topics
    scale = float(np.mean((X - X.mean()) ** 2))  # rounding-level negatives are 0, not negative estimates
    negative = [name for name, v in (("system", vs), ("topic", vt), ("residual", ve))
                if v < 0 and not is_rounding_noise(v, scale)]
    failed = [r for r in runs if not r.success]
    msg = best.message
    success = bool(best.success)
    if failed and best.success:
        msg += f" ({len(failed)} of {len(runs)} starts did not converge)"
    flat = degenerate_message(problem, X, vs)
    if flat is not None:
        success, msg = False, f"{flat} (solver: {msg})"
    r_phi, r_erho2 = gstudy_ratios(vs, vt, ve)

    def coef(r: float, m: int) -> float:
        return float(gtheory.project(r, m))

    return Tuning(
        what=problem.what, objective=problem.objective, cutoff=problem.cutoff,
        levels=problem.levels.copy(), gain=g, discount=d,
        phi_1=coef(r_phi, 1), erho2_1=coef(r_erho2, 1),
        var_system=vs, var_topic=vt, var_residual=ve,
        n_systems=problem.n_systems, n_topics=n,
        success=success, message=msg,
        nit=sum(r.nit for r in runs), nfev=sum(r.nfev for r in runs), njev=sum(r.njev for r in runs),
        solver=solver, starts=len(runs), n_agree=n_agree, agree_tol=agree_tol,
        start_values={r.start: float(r.fun) for r in runs},
        monotone_gain=problem.monotone_gain, monotone_discount=problem.monotone_discount,
        judged_only=problem.judged_only, seconds=seconds, per_problem=per_problem or [],
        negative_components=negative, gain_family=gain_family, _judged=problem.judged,
    )


def report_failure(tuning: Tuning, strict: bool, *, stacklevel: int = 4) -> None:
    """Warn (or raise, under ``strict``) when the optimiser failed or the data cannot be tuned; warn
    once about negative variance components of the final configuration (the only G-study that warns)."""
    flat = tuning.message.startswith(_INDISTINGUISHABLE)
    if tuning.negative_components and not flat:  # rounding-level negatives of a 0 variance: said below
        comps = ", ".join(f"σ²({c})" for c in tuning.negative_components)
        warnings.warn(
            f"the tuned nDCG@{tuning.binding_cutoff or tuning.cutoff} has negative variance estimate(s) {comps} "
            "on the tuning data; "
            "Φ and Eρ² set them to 0 as gtheory.gstudy does (Brennan 2001, §3.4); the optimiser's raw "
            f"objective is Tuning.fun = {tuning.fun:.6g}.",
            gtheory.NegativeVarianceWarning, stacklevel=stacklevel,
        )
    if tuning.success:
        return
    if flat:
        text = f"cannot tune nDCG@{tuning.cutoff}: {tuning.message}"
    else:
        text = f"the {tuning.solver} optimiser did not converge: {tuning.message}"
    if strict:
        raise OptimizationError(text)
    warnings.warn(text, OptimizationWarning, stacklevel=stacklevel)


@validate_params()
def tune_problem(problem: Problem, *, solver: str = "auto", starts: int = 4,
                 seed: int | np.random.Generator | None = 0,
                 agree_tol: float = 1e-6, strict: bool = False) -> Tuning:
    """Multi-start tuning of a prepared :class:`Problem` (the engine behind the front ends)."""
    return _tune(problem, solver=solver, starts=starts, seed=seed, agree_tol=agree_tol, strict=strict)


def _tune(problem: Problem, *, solver: str, starts: int, seed: int | np.random.Generator | None, agree_tol: float,
          strict: bool, gain_family: str | None = None) -> Tuning:
    name, solve = _solver_for(problem, solver)
    t0 = time.perf_counter()
    runs = run_starts(solve, starting_points(problem, starts, seed=seed))
    best, n_agree = best_run(runs, agree_tol)
    tuning = make_tuning(problem, best, runs, n_agree, agree_tol, name, time.perf_counter() - t0,
                         gain_family=gain_family)
    report_failure(tuning, strict)
    return tuning


def gain_family_of(gain: Any) -> str | None:
    """The gain family name of a fixed gain specification (``"linear"``, ``"exponential(base=3)"``),
    or None for a per-grade vector, mapping or callable."""
    return gain if isinstance(gain, str) else None


@validate_params(cutoff=REQUIRED_CUTOFF)
def optimize_discount(
    judged: JudgedRuns,
    *,
    gain: metrics.measures.gains.GainSpec = "linear",
    cutoff: int = 100,
    objective: Objective = "phi",
    monotone: bool = True,
    solver: str = "auto",
    starts: int = 4,
    seed: int | np.random.Generator | None = 0,
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
    seed : int, numpy.random.Generator or None
        Seed of the random starts (None or a non-negative integer, for :func:`numpy.random.default_rng`).
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
    return _tune(p, solver=solver, starts=starts, seed=seed, agree_tol=agree_tol, strict=strict,
                 gain_family=gain_family_of(gain))


@validate_params(cutoff=REQUIRED_CUTOFF)
def optimize_gain(
    judged: JudgedRuns,
    *,
    discount: metrics.measures.discounts.DiscountSpec = "log2",
    cutoff: int = 100,
    objective: Objective = "phi",
    monotone: bool = True,
    solver: str = "auto",
    starts: int = 4,
    seed: int | np.random.Generator | None = 0,
    agree_tol: float = 1e-6,
    strict: bool = False,
    judged_only: bool = False,
) -> Tuning:
    r"""The stability-optimal gains (per grade) of nDCG@``cutoff`` for a fixed discount.

    Gains of grades ≤ 0 are 0; the positive grades' gains sum to 1 and, with ``monotone=True``,
    are non-decreasing in grade. ``monotone=False`` is the paper's "unconstrained" column of
    Table 2 (gains only non-negative; the hrel/rel ratio may fall below 1). Without the monotone
    constraint the ideal ranking follows the current gain order, so the objective is piecewise
    smooth (:mod:`optimize.solvers.objective`). Other parameters as :func:`optimize_discount`
    (``discount`` is the fixed discount, a family name or a vector of ``cutoff`` weights).

    Returns
    -------
    Tuning

    Notes
    -----
    With :math:`G_{str}` the grade system s retrieved at rank r for topic t and :math:`I_{tr}`
    the r-th grade of topic t's ideal ranking,

    .. math::

        \max_{g}\; \Phi(1) = \frac{\sigma^2_s}{\sigma^2_s + \sigma^2_t + \sigma^2_{st}}
        \quad\text{of}\quad X_{st} = \frac{\sum_{r \le k} d_r\, g(G_{str})}{\sum_{r \le k} d_r\, g(I_{tr})}

    s.t. :math:`\sum_{l > 0} g(l) = 1`, :math:`g(l) \ge 0`, :math:`g(l) = 0` for :math:`l \le 0`
    and (``monotone``) :math:`g(l) \le g(l')` for :math:`l < l'` — the gain problem of
    Kanoulas & Aslam (2009), §2.3 and Fig. 1; the variance components are those of the systems ×
    topics ANOVA of :math:`X` (Eρ²(1) = :math:`\sigma^2_s/(\sigma^2_s+\sigma^2_{st})` for
    ``objective="erho2"``). The maximiser does not depend on the number of topics (module docstring).

    References
    ----------
    E. Kanoulas and J. A. Aslam (2009). Empirical justification of the gain and discount function
    for nDCG. CIKM 2009.

    Examples
    --------
    >>> import metrics, optimize
    >>> t = optimize.optimize_gain(metrics.load_trec9(), discount="log2", cutoff=10, starts=2)
    >>> bool(t.success), round(t.gain_ratios[2.0], 1) > 1
    (True, True)
    """
    p = Problem(judged, cutoff, "gain", discount=discount, objective=objective,
                monotone_gain=monotone, judged_only=judged_only)
    return _tune(p, solver=solver, starts=starts, seed=seed, agree_tol=agree_tol, strict=strict)


@validate_params(cutoff=REQUIRED_CUTOFF)
def optimize_joint(
    judged: JudgedRuns,
    *,
    cutoff: int = 100,
    objective: Objective = "phi",
    monotone_gain: bool = True,
    monotone_discount: bool = True,
    solver: str = "auto",
    starts: int = 4,
    seed: int | np.random.Generator | None = 0,
    agree_tol: float = 1e-6,
    strict: bool = False,
    judged_only: bool = False,
) -> Tuning:
    r"""Gains and discount tuned together: :math:`\max_{g,d} f(g, d)`, each block a distribution.

    DCG is bilinear in :math:`(g, d)`; the exact gradient has both blocks
    (:mod:`optimize.solvers.objective`). ``monotone_gain`` / ``monotone_discount`` keep the gains
    non-decreasing in grade / the discount non-increasing in rank; other parameters as
    :func:`optimize_discount`.

    Returns
    -------
    Tuning

    Notes
    -----
    .. math::

        \max_{g,\,d}\; \Phi(1) = \frac{\sigma^2_s}{\sigma^2_s + \sigma^2_t + \sigma^2_{st}}
        \quad\text{of}\quad X_{st} = \frac{\sum_{r \le k} d_r\, g(G_{str})}{\sum_{r \le k} d_r\, g(I_{tr})}

    s.t. both constraint sets of Kanoulas & Aslam (2009), Fig. 1: :math:`\sum_{l>0} g(l) = 1`,
    :math:`g \ge 0`, :math:`g(l \le 0) = 0`, gains non-decreasing in grade; :math:`\sum_r d_r = 1`,
    :math:`d_r \ge d_{r+1} \ge 0` (notation as :func:`optimize_gain`). On one collection and
    cut-off this is the paper's simultaneous optimisation of gain and discount (§2.3); its
    Pareto-optimal form over several collections is :func:`optimize_minimax` (§3.3).

    References
    ----------
    E. Kanoulas and J. A. Aslam (2009). Empirical justification of the gain and discount function
    for nDCG. CIKM 2009.

    Examples
    --------
    >>> import metrics, optimize
    >>> t = optimize.optimize_joint(metrics.load_trec9(), cutoff=10, starts=1)
    >>> bool(t.success), t.gain.shape, t.discount.shape
    (True, (3,), (10,))
    """
    p = Problem(judged, cutoff, "joint", objective=objective, monotone_gain=monotone_gain,
                monotone_discount=monotone_discount, judged_only=judged_only)
    return _tune(p, solver=solver, starts=starts, seed=seed, agree_tol=agree_tol, strict=strict)
