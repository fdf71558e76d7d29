r"""Deterministic multi-start: the problem is not convex, so solve from several points and compare.

Starting points, in order: the standard families — for the discount ``log2``, ``zipf``,
``linear`` and uniform (``none``); for the gains ``linear`` (the grade), ``exponential``
(:math:`2^x-1`), equal gains and grade-squared; joint tuning pairs them — then points drawn from
``numpy.random.default_rng(seed)``: uniform on the simplex (Dirichlet(1)), sorted to be monotone
when the monotone constraint is on. ``starts=n`` takes the first ``n`` of that sequence.

Agreement: starts whose objective is within ``agree_tol`` (absolute, in Φ(1) or Eρ²(1)) of the
best are counted in ``n_agree``. The best start is the one with the highest objective among the
starts that converged (among all starts if none did).

Example
-------
>>> import metrics
>>> from optimize.solvers.objective import Problem
>>> from optimize.solvers.multistart import starting_points
>>> p = Problem(metrics.load_trec9(), 10, "discount", gain=[0, 1, 2])
>>> [name for name, _ in starting_points(p, 6, seed=0)]
['log2', 'zipf', 'linear', 'uniform', 'random-1', 'random-2']
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

import metrics

from .objective import Problem
from .result import SolverRun
from gtheory.kit.params import validate_params

__all__ = ["starting_points", "run_starts", "best_run"]

_DISCOUNTS = ("log2", "zipf", "linear", "none")
_GAINS = ("linear", "exponential", "equal", "square")


def _gain_family(name: str, levels: NDArray[np.float64]) -> NDArray[np.float64]:
    if name == "equal":
        return (levels > 0).astype(np.float64)
    if name == "square":
        return np.where(levels > 0, levels**2, 0.0)
    return metrics.gain_vector(name, levels)


def _random_block(rng: np.random.Generator, size: int, monotone: bool, name: str) -> NDArray[np.float64]:
    v = rng.dirichlet(np.ones(size))
    if monotone:
        v = np.sort(v)[::-1] if name == "discount" else np.sort(v)
    return v


@validate_params()
def starting_points(
    problem: Problem, starts: int = 4, *, seed: int | np.random.Generator | None = 0
) -> list[tuple[str, NDArray[np.float64]]]:
    """The first ``starts`` named starting points for ``problem`` (see the module docstring).

    ``starts`` and ``seed`` are checked by the parameter table (:mod:`gtheory.kit.params`): a
    :class:`gtheory.ParameterError` names the one out of its rule.
    """
    k = problem.cutoff
    out: list[tuple[str, NDArray[np.float64]]] = []
    has_d = problem.block("discount") is not None
    has_g = problem.block("gain") is not None
    for i in range(min(starts, 4)):
        d = metrics.discount_vector(_DISCOUNTS[i], k, cutoff=k) if has_d else None
        g = _gain_family(_GAINS[i], problem.levels) if has_g else None
        d_name = "uniform" if _DISCOUNTS[i] == "none" else _DISCOUNTS[i]
        if has_d and has_g:
            name = f"{_GAINS[i]}+{d_name}"
        elif has_d:
            name = d_name
        else:
            name = _GAINS[i]
        out.append((name, problem.normalise(problem.join(g, d))))
    rng = np.random.default_rng(seed)
    for i in range(starts - len(out)):
        x = np.concatenate([_random_block(rng, b.size, b.monotone, b.name) for b in problem.blocks])
        out.append((f"random-{i + 1}", problem.normalise(x)))
    return out


def run_starts(
    solve: Callable[[NDArray[np.float64]], SolverRun],
    points: list[tuple[str, NDArray[np.float64]]],
) -> list[SolverRun]:
    """Run ``solve`` from every point; each run is labelled with its start's name."""
    return [replace(solve(x0), start=name) for name, x0 in points]


def best_run(runs: list[SolverRun], agree_tol: float) -> tuple[SolverRun, int]:
    """The best run (highest ``fun`` among successful runs, else among all) and how many agree with it."""
    ok = [r for r in runs if r.success and np.isfinite(r.fun)]
    pool = ok or [r for r in runs if np.isfinite(r.fun)] or runs
    best = max(pool, key=lambda r: r.fun if np.isfinite(r.fun) else -np.inf)
    n_agree = sum(1 for r in runs if np.isfinite(r.fun) and abs(r.fun - best.fun) <= agree_tol)
    return best, n_agree
