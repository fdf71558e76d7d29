"""Tests of optimize/solvers/multistart.py: starting points, seeds, the best of several runs."""
from __future__ import annotations

import re

import numpy as np
import pytest

import metrics
import optimize
from optimize.solvers.multistart import best_run, run_starts, starting_points
from optimize.solvers.objective import Problem


@pytest.fixture(scope="module")
def j(embedded_trec9):
    return embedded_trec9


def test_good_seeds_are_accepted(j):
    from optimize.solvers.multistart import starting_points

    p = Problem(j, 10, "discount", gain=[0, 1, 2])
    a = starting_points(p, 6, seed=np.int64(3))
    b = starting_points(p, 6, seed=3)
    assert all(np.array_equal(x, y) for (_, x), (_, y) in zip(a, b))
    assert len(starting_points(p, 6, seed=None)) == 6
    with pytest.raises(ValueError, match=r"`seed` must be a non-negative integer, None, a numpy.random.Generator or a numpy.random.SeedSequence; got -2;"):
        starting_points(p, 6, seed=-2)


def test_a_generator_is_accepted_as_seed_and_is_reproducible(j):
    # experiments accepted a numpy.random.Generator as `seed`; optimize now does too (random starts 5 and 6)
    a = optimize.optimize_discount(j, gain=[0, 1, 2], cutoff=10, starts=6, seed=np.random.default_rng(7))
    b = optimize.optimize_discount(j, gain=[0, 1, 2], cutoff=10, starts=6, seed=np.random.default_rng(7))
    assert np.array_equal(a.discount, b.discount) and a.phi() == b.phi()
    from optimize.solvers.multistart import starting_points

    p = Problem(j, 10, "discount", gain=[0, 1, 2])
    x = starting_points(p, 6, seed=np.random.default_rng(3))
    y = starting_points(p, 6, seed=np.random.default_rng(3))
    assert all(np.array_equal(u, v) for (_, u), (_, v) in zip(x, y))
    assert not np.array_equal(x[-1][1], starting_points(p, 6, seed=np.random.default_rng(4))[-1][1])


def _tiny_judged():
    qrels = {str(t): {f"d{i}": int(i % 3) for i in range(6)} for t in range(4)}
    rng = np.random.default_rng(1)
    runs = {f"s{s}": {str(t): {f"d{i}": float(v) for i, v in enumerate(rng.random(6))} for t in range(4)}
            for s in range(4)}
    return metrics.judge(runs, qrels, progress=False)


def test_the_named_starts_are_the_standard_vectors_normalised():
    # discounts log2, zipf, linear, uniform and gains linear, exponential, equal, square, each block summing to 1
    j = _tiny_judged()
    k = 5
    p = Problem(j, k, "joint")
    pts = starting_points(p, 4)
    assert [name for name, _ in pts] == ["linear+log2", "exponential+zipf", "equal+linear", "square+uniform"]
    r = np.arange(1, k + 1)
    discounts = [1 / np.log2(r + 1), 1 / r, (k + 1 - r) / k, np.ones(k)]
    gains = [np.array([1.0, 2.0]), np.array([1.0, 3.0]), np.array([1.0, 1.0]), np.array([1.0, 4.0])]  # grades 1, 2
    for (name, x), d, g in zip(pts, discounts, gains):
        # the problem's variables: the discount then the gains of the positive grades (optimize.solvers.objective.Problem)
        np.testing.assert_allclose(x[:k], d / d.sum(), rtol=1e-12, err_msg=name)
        np.testing.assert_allclose(x[k:], g / g.sum(), rtol=1e-12, err_msg=name)
    assert [n for n, _ in starting_points(Problem(j, k, "discount"), 2)] == ["log2", "zipf"]
    assert [n for n, _ in starting_points(Problem(j, k, "gain"), 3)] == ["linear", "exponential", "equal"]


def test_random_starts_are_feasible_reproducible_and_seed_dependent():
    j = _tiny_judged()
    p = Problem(j, 5, "joint")
    a = starting_points(p, 9, seed=11)
    assert [n for n, _ in a[4:]] == [f"random-{i}" for i in range(1, 6)]
    for name, x in a:
        assert p.violation(x) <= 1e-12, name  # monotone blocks, non-negative, each summing to 1
    b = starting_points(p, 9, seed=11)
    assert all(np.array_equal(x, y) for (_, x), (_, y) in zip(a, b))
    c = starting_points(p, 9, seed=12)
    assert not np.array_equal(a[-1][1], c[-1][1])
    free = Problem(j, 5, "discount", monotone_discount=False)
    xs = [x for _, x in starting_points(free, 30, seed=0)[4:]]
    assert any(np.any(np.diff(x) > 0) for x in xs)  # without the constraint the random starts are not sorted


@pytest.mark.parametrize("starts", [0, -1, 2.0, True, "4"])
def test_starts_must_be_a_positive_integer(starts):
    p = Problem(_tiny_judged(), 5, "discount")
    with pytest.raises(ValueError, match=re.escape("`starts` must be an integer >= 1; got ")) as caught:
        starting_points(p, starts)
    assert caught.value.param == "starts" and caught.value.value is starts


def _run(fun, success=True, start="?"):
    return optimize.SolverRun(x=np.ones(2) / 2, fun=fun, success=success, message="", nit=1, nfev=1, njev=1,
                              solver="slsqp", seconds=0.0, start=start)


def test_best_run_prefers_successful_runs_and_counts_agreement():
    runs = [_run(0.50), _run(0.70, success=False), _run(0.5 + 5e-7), _run(float("nan")), _run(0.40)]
    best, n = best_run(runs, agree_tol=1e-6)
    assert best is runs[2]  # the failed 0.70 is not trusted while a run succeeded
    assert n == 2  # 0.5 and 0.5 + 5e-7 are within 1e-6 of the best; NaN agrees with nothing
    best, n = best_run([_run(0.3, False), _run(0.6, False), _run(float("nan"), False)], agree_tol=1e-6)
    assert best.fun == 0.6 and n == 1  # no success: the best finite run
    best, n = best_run([_run(float("nan"), False)], agree_tol=1e-6)
    assert np.isnan(best.fun) and n == 0


def test_run_starts_labels_each_run_with_its_start():
    seen = []

    def solve(x0):
        seen.append(x0)
        return _run(float(x0[0]))

    pts = [("a", np.array([0.1, 0.9])), ("b", np.array([0.7, 0.3]))]
    runs = run_starts(solve, pts)
    assert [r.start for r in runs] == ["a", "b"] and [r.fun for r in runs] == [0.1, 0.7]
    assert all(s is x for s, (_, x) in zip(seen, pts))
