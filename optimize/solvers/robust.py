r"""Robust (minimax) tuning: one configuration for a family of collections and/or cut-offs.

For problems :math:`i = 1..m` (collections × cut-offs) with objectives :math:`f_i` (Φ(1) or
Eρ²(1) of each), the worst-case optimum is the epigraph problem

.. math::

    \max_{x,\,t}\; t \quad\text{s.t.}\quad f_i(x) \ge t\;\; (i=1..m),\quad
    \textstyle\sum x = 1 \text{ per block},\; x \ge 0,\; \text{(monotone)},

solved with SLSQP and the exact gradients :math:`\nabla f_i` — what MATLAB's ``fminimax``
(an SQP on the same epigraph form) did for the paper's "Pareto-optimal" joint gain and
discount (Kanoulas & Aslam 2009, §3.3). A minimax point is Pareto-optimal among the
:math:`f_i` unless several of them tie at the optimum in a degenerate way.

One discount vector serves every cut-off: it has ``max(cutoffs)`` entries and nDCG@k uses its
first k (nDCG is scale-free, so no renormalisation is needed). That holds for the fixed discount of
``what="gain"`` too: it is built at ``max(cutoffs)`` (for ``"linear"``, :math:`(K+1-r)/K` with
:math:`K` the largest cut-off, at every cut-off), so each problem is reproduced by the returned
:class:`Tuning` at its cut-off. Gains are shared across
collections, which must then have the same positive grades.

Example
-------
>>> import metrics, optimize
>>> j = metrics.load_trec9()
>>> t = optimize.optimize_minimax([j], what="discount", cutoffs=[10, 20], gain=[0, 1, 2], starts=1)
>>> len(t.per_problem), bool(t.phi_1 <= max(p["fun"] for p in t.per_problem) + 1e-12)
(2, True)
"""
from __future__ import annotations

import time
import warnings
from dataclasses import replace
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize

import gtheory
import metrics
from metrics import JudgedRuns

from ._threads import single_threaded_blas
from .multistart import best_run, run_starts, starting_points
from .objective import Objective, Problem
from .result import SolverRun, Tuning, gstudy_ratios
from .result_document import _fmt_grades
from .slsqp import make_feasible
from .tune import gain_family_of, make_tuning, report_failure
from gtheory.kit.params import validate_params

__all__ = ["optimize_minimax", "minimax_problems"]


@validate_params()
def minimax_problems(
    collections: Sequence[JudgedRuns],
    what: str,
    cutoffs: Sequence[int],
    *,
    gain: metrics.measures.gains.GainSpec = "linear",
    discount: metrics.measures.discounts.DiscountSpec = "log2",
    objective: Objective = "phi",
    monotone_gain: bool = True,
    monotone_discount: bool = True,
    labels: Sequence[str] | None = None,
) -> tuple[list[Problem], list[str], Problem]:
    """The problems (collection × cut-off), their labels, and a layout problem at the largest cut-off."""
    if isinstance(collections, JudgedRuns):
        collections = [collections]
    collections = list(collections)
    if not collections:
        raise ValueError("`collections` must hold at least one JudgedRuns.")
    cutoffs = [cutoffs] if isinstance(cutoffs, (int, np.integer)) else list(cutoffs)
    if not cutoffs:
        raise ValueError("`cutoffs` must hold at least one cut-off.")
    for k in cutoffs:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"`cutoffs` must hold positive integers; got {k!r}.")
    if labels is None:
        labels = [f"collection-{i + 1}" for i in range(len(collections))]
    if len(labels) != len(collections):
        raise ValueError(f"`labels` has {len(labels)} entries for {len(collections)} collections.")
    names_of = [f"`collections`[{i}] ({lab!r})" for i, lab in enumerate(labels)]
    for name, j in zip(names_of, collections):
        if not isinstance(j, JudgedRuns):
            raise TypeError(f"{name} must be a metrics.JudgedRuns; got {type(j).__name__}.")
    if what in ("gain", "joint"):
        pos = [tuple(float(v) for v in np.asarray(j.levels, dtype=np.float64) if v > 0) for j in collections]
        if len(set(pos)) > 1:
            have = "; ".join(f"{name} has {_fmt_grades(p) or 'none'}" for name, p in zip(names_of, pos))
            raise ValueError(f"shared gains need the same positive grades in every collection; {have}.")
    kmax = max(cutoffs)
    # one fixed discount (what="gain") for every cut-off, as for a tuned one: the vector at the largest
    # cut-off, nDCG@k using its first k weights (differs from the family at k only for "linear", (k+1-r)/k)
    fixed_d = metrics.discount_vector(discount, kmax, cutoff=kmax) if what == "gain" else discount
    kw = dict(gain=gain, objective=objective, monotone_gain=monotone_gain, monotone_discount=monotone_discount)
    problems, names = [], []
    for lab, name, j in zip(labels, names_of, collections):
        for k in cutoffs:
            try:
                problems.append(Problem(j, k, what, discount=fixed_d[:k] if what == "gain" else fixed_d, **kw))
            except (TypeError, ValueError) as exc:  # say which collection (e.g. a grade the fixed gain lacks)
                raise (ValueError if isinstance(exc, ValueError) else TypeError)(f"{name}: {exc}") from None
            names.append(f"{lab}@{k}")
    layout = Problem(collections[0], kmax, what, discount=fixed_d, **kw)
    return problems, names, layout


def _embed(layout: Problem, p: Problem):
    """Index map: problem variables = x_shared[idx]."""
    idx = []
    bd, bg = layout.block("discount"), layout.block("gain")
    if p.block("discount"):
        idx.append(np.arange(bd.start, bd.start + p.cutoff))
    if p.block("gain"):
        idx.append(np.arange(bg.start, bg.start + bg.size))
    return np.concatenate(idx)


def _coefficient(p: Problem, x: NDArray[np.float64]) -> float:
    r"""Φ (or Eρ², the problem's objective) of the tuned nDCG at the problem's number of topics, by the
    G-study convention of :meth:`Tuning.phi`: :math:`n r/(1 + n r)` with
    :math:`r = \sigma^2_s/(\sigma^2_t+\sigma^2_{st})` (Eρ²: :math:`\sigma^2_s/\sigma^2_{st}`), negative
    components set to 0 (:func:`optimize.solvers.result.gstudy_ratios`)."""
    vc = gtheory.variance_components(p.scores(x))
    r_phi, r_erho2 = gstudy_ratios(float(vc.system), float(vc.topic), float(vc.residual))
    return float(gtheory.project(r_phi if p.objective == "phi" else r_erho2, p.n_topics))


def _solve_epigraph(problems, layout, x0, maxiter=1000, ftol=1e-12) -> SolverRun:
    t0 = time.perf_counter()
    n = layout.n
    idxs = [_embed(layout, p) for p in problems]
    A_eq, b_eq, A_in = layout.linear_constraints()
    cache: dict = {}
    counter = {"f": 0}

    def evals(z):
        key = z[:n].tobytes()
        if key not in cache:
            counter["f"] += 1
            vals, grads = [], []
            for p, ix in zip(problems, idxs):
                f, g = p.value_and_grad(z[:n][ix])
                G = np.zeros(n)
                G[ix] = g
                vals.append(f)
                grads.append(G)
            cache.clear()
            cache[key] = (np.array(vals), np.array(grads))
        return cache[key]

    A_eq_z = np.hstack([A_eq, np.zeros((A_eq.shape[0], 1))])
    A_in_z = np.hstack([A_in, np.zeros((A_in.shape[0], 1))])
    cons = [
        {"type": "eq", "fun": lambda z: A_eq_z @ z - b_eq, "jac": lambda z: A_eq_z},
        {"type": "ineq", "fun": lambda z: evals(z)[0] - z[n],
         "jac": lambda z: np.hstack([evals(z)[1], -np.ones((len(problems), 1))])},
    ]
    if A_in.shape[0]:
        cons.append({"type": "ineq", "fun": lambda z: A_in_z @ z, "jac": lambda z: A_in_z})
    x0 = make_feasible(layout, x0)
    z0 = np.r_[x0, evals(np.r_[x0, 0.0])[0].min()]
    obj_grad = np.r_[np.zeros(n), -1.0]
    with warnings.catch_warnings(), single_threaded_blas():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = minimize(lambda z: (-z[n], obj_grad), z0, jac=True, method="SLSQP",
                       bounds=[(0.0, 1.0)] * n + [(None, None)], constraints=cons,
                       options={"maxiter": maxiter, "ftol": ftol})
    x = make_feasible(layout, res.x[:n])
    vals = np.array([p.value(x[ix]) for p, ix in zip(problems, idxs)])
    ok = bool(res.success) and np.all(np.isfinite(vals)) and layout.violation(x) <= 1e-9
    return SolverRun(x=x, fun=float(vals.min()), success=ok, message=str(res.message), nit=int(res.nit),
                     nfev=counter["f"], njev=counter["f"], solver="slsqp-minimax",
                     seconds=time.perf_counter() - t0)


@validate_params()
def optimize_minimax(
    collections: Sequence[JudgedRuns] | JudgedRuns,
    *,
    what: str = "discount",
    cutoffs: Sequence[int] | int = 100,
    gain: metrics.measures.gains.GainSpec = "linear",
    discount: metrics.measures.discounts.DiscountSpec = "log2",
    objective: Objective = "phi",
    monotone_gain: bool = True,
    monotone_discount: bool = True,
    labels: Sequence[str] | None = None,
    starts: int = 4,
    seed: int | np.random.Generator | None = 0,
    agree_tol: float = 1e-6,
    strict: bool = False,
) -> Tuning:
    r"""Maximise the worst single-topic Φ(1) (or Eρ²(1)) over collections and/or cut-offs.

    For problems :math:`i = 1..m` (each collection at each cut-off), with :math:`\rho_i(x)` the
    variance ratio of the nDCG configured by :math:`x` on problem :math:`i` —
    :math:`\sigma^2_s/(\sigma^2_t+\sigma^2_{st})` for Φ, :math:`\sigma^2_s/\sigma^2_{st}` for Eρ² —

    .. math::

        \max_x \min_i \Phi_i(1) = \max_x \min_i \frac{\rho_i(x)}{1 + \rho_i(x)}

    under the constraints of :func:`optimize.optimize_discount` / :func:`optimize.optimize_gain`
    (both for ``"joint"``): the Pareto-optimal ("minimax") gain and discount of
    Kanoulas & Aslam (2009), §3.3, who maximised the worst stability over TREC 9, 10 and 12.

    **What is maximised, precisely.** :math:`\Phi(n) = n\rho/(1+n\rho)` is increasing in
    :math:`\rho` for every :math:`n`, so at one common number of topics :math:`n` the worst
    :math:`\Phi_i(n)` is that of the problem with the worst :math:`\rho_i` — the one with the worst
    :math:`\Phi_i(1)` — and :math:`\max_x \min_i \Phi_i(n)` has the same maximiser for every
    :math:`n`. That is the paper's case (50 topics in every collection) and the case of several
    cut-offs on one collection. When the collections have different numbers of topics
    :math:`n_i`, this function maximises the worst :math:`\rho_i` (the stability per topic, which
    is comparable across collections of any size), **not** the worst :math:`\Phi_i(n_i)` at each
    collection's own topic count: a large collection can have the worst :math:`\rho_i` and still
    not the worst :math:`\Phi_i(n_i)`. ``per_problem`` reports both for every problem (``fun`` =
    :math:`\Phi_i(1)`, ``phi`` = :math:`\Phi_i(n_i)`), and so does the summary.

    Parameters
    ----------
    collections : one JudgedRuns or several (e.g. TREC 9, 10, 12 judged separately).
    what : {"discount", "gain", "joint"} — ``"joint"`` is the paper's Pareto-optimal gain and
        discount (§3.3).
    cutoffs : one or several cut-offs; every collection is evaluated at each.
    gain, discount : the fixed part (as :func:`optimize.optimize_discount` / ``optimize_gain``).
    objective, monotone_gain, monotone_discount, starts, seed, agree_tol, strict :
        as :func:`optimize.optimize_discount`.
    labels : names of the collections in ``Tuning.per_problem`` (default ``collection-1``, …).

    Returns
    -------
    Tuning
        ``phi_1``, ``phi()``, … are those of the binding problem (the worst Φ(1), or Eρ²(1));
        ``per_problem`` lists ``label``, ``cutoff``, ``fun`` (its raw Φ(1) or Eρ²(1), what the
        optimiser maximised, as :attr:`Tuning.fun`), ``phi`` (or ``erho2`` for that objective: the
        coefficient at its own ``n_topics`` by the G-study convention, negative components set to
        0, as :meth:`Tuning.phi` — equal to it for the binding problem) and ``n_topics`` for each.
        ``discount`` has ``max(cutoffs)`` entries (for ``what="gain"`` the fixed discount at that
        cut-off, normalised) and ``cutoff`` is ``max(cutoffs)`` (the default of ``Tuning.ndcg``;
        pass ``cutoff=`` for the others). The binding problem is
        ``binding_label`` at ``binding_cutoff``; ``Tuning.gstudy`` evaluates it, reproducing
        ``phi``.

    Notes
    -----
    Epigraph form :math:`\max t` s.t. :math:`f_i(x) \ge t` with SLSQP (module docstring), the
    :math:`f_i` the raw Φ(1) (Eρ²(1)) of each problem.

    References
    ----------
    E. Kanoulas and J. A. Aslam (2009). Empirical justification of the gain and discount function
    for nDCG. CIKM 2009.
    """
    problems, names, layout = minimax_problems(
        collections, what, cutoffs, gain=gain, discount=discount, objective=objective,
        monotone_gain=monotone_gain, monotone_discount=monotone_discount, labels=labels)
    t0 = time.perf_counter()
    runs = run_starts(lambda x0: _solve_epigraph(problems, layout, x0), starting_points(layout, starts, seed=seed))
    best, n_agree = best_run(runs, agree_tol)
    vals = np.array([p.value(best.x[_embed(layout, p)]) for p in problems])  # each problem's objective at x
    worst = int(np.argmin(vals))
    wp = problems[worst]
    idx = _embed(layout, wp)
    sub = SolverRun(x=best.x[idx], fun=float(vals[worst]), success=best.success, message=best.message,
                    nit=best.nit, nfev=best.nfev, njev=best.njev, solver=best.solver, seconds=best.seconds)
    per = []
    for lab, p, v in zip(names, problems, vals):
        per.append({"label": lab, "cutoff": p.cutoff, "fun": float(v), "n_topics": p.n_topics,
                    "phi" if p.objective == "phi" else "erho2": _coefficient(p, best.x[_embed(layout, p)])})
    tuning = make_tuning(wp, sub, runs, n_agree, agree_tol, "slsqp-minimax", time.perf_counter() - t0, per,
                         gain_family=gain_family_of(gain) if what == "discount" else None)
    # report the shared vectors (full length), not the binding problem's truncation: `cutoff` is the
    # discount's length (the largest cut-off), the binding problem is recorded separately
    # (for what="gain" the discount is the fixed one at the largest cut-off, normalised)
    g, d = layout.split(best.x)
    tuning = replace(tuning, gain=g / g.sum(), discount=d / d.sum(), cutoff=layout.cutoff, binding_cutoff=wp.cutoff,
                     binding_label=names[worst])
    report_failure(tuning, strict, stacklevel=3)
    return tuning
