"""Tests of optimize/solvers/slsqp.py: SLSQP (against the formulations and finite differences measured beside it in
benchmarks/slsqp_variants.py), L-BFGS-B and the projection onto the feasible set."""
from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import gtheory
import metrics
from optimize.solvers.objective import Problem
from optimize.solvers.slsqp import make_feasible, solve_lbfgsb, solve_slsqp
from tiny_collection import ndcg_by_hand, phi1_by_hand, tiny  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "slsqp_variants", Path(__file__).resolve().parents[1] / "benchmarks" / "slsqp_variants.py")
variants = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(variants)


def test_analytic_gradient_path_uses_no_finite_differences(embedded_trec9):
    p = Problem(embedded_trec9, 30, "discount", gain=[0, 1, 2])
    r = solve_slsqp(p, p.normalise(np.ones(30)))
    fd = variants.solve_slsqp_variant(p, p.normalise(np.ones(30)), jac=False)
    assert 0 < r.njev <= r.nfev < fd.nfev / 10  # gradients only at iterates; FD needs n + 1 values each
    assert r.fun >= fd.fun - 1e-9


@pytest.mark.parametrize("what,k,monotone", [("discount", 100, True), ("gain", 100, True), ("joint", 20, True),
                                             ("discount", 30, False), ("joint", 10, False)])
def test_slsqp_formulations_reach_the_same_optimum(embedded_trec9, what, k, monotone):
    # "anchored" (default), "reduced", "paper" (Fig. 1 literally) and "increments" describe one
    # problem; reference: the literal paper form. Tolerance 1e-10 in Φ(1): all stop on Δf < 1e-12.
    p = Problem(embedded_trec9, k, what, gain=[0, 1, 2], monotone_gain=monotone, monotone_discount=monotone)
    x0 = p.normalise(np.ones(p.n))
    runs = {f: variants.solve_slsqp_variant(p, x0, formulation=f) for f in ("anchored", "reduced", "paper", "increments")}
    runs["anchored"] = solve_slsqp(p, x0)  # the library's solver is the anchored formulation
    for f in ("anchored", "reduced", "paper"):
        assert runs[f].success, (f, runs[f].message)
    for f in ("anchored", "reduced"):
        assert "successfully" in runs[f].message  # SciPy exit mode 0, not a tolerated failure
    for f, r in runs.items():
        assert r.fun == pytest.approx(runs["paper"].fun, abs=1e-10), f
        assert p.violation(r.x) <= 1e-9
    assert runs["anchored"].solver == "slsqp" and runs["reduced"].solver == "slsqp[reduced]"
    # the default path's Φ(1) recomputed independently with metrics.ndcg + gtheory.gstudy
    g, d = p.split(runs["anchored"].x)
    X = metrics.ndcg(embedded_trec9, gain={float(l): float(v) for l, v in zip(p.levels, g)}, discount=d, cutoff=k).to_numpy()
    assert gtheory.gstudy(X).phi(1) == pytest.approx(runs["anchored"].fun, abs=1e-12)


def test_anchored_formulation_holds_the_top_value_and_rescales(embedded_trec9):
    # the anchor (top-rank discount, top-grade gain) is fixed at its projected start value during
    # the solve; the reported x sums to 1 per block, and the start's scale does not matter
    from optimize.solvers.slsqp import _anchored, make_feasible

    p = Problem(embedded_trec9, 12, "joint", gain=[0, 1, 2])
    x0 = make_feasible(p, p.normalise(np.r_[np.linspace(2, 1, 12), 1.0, 3.0]))
    A_eq, b_eq, A_in = p.linear_constraints()
    base, free, A_eq2, _, A_in2, b_in2, bounds = _anchored(p, x0, A_eq, b_eq, A_in)
    assert set(range(p.n)) - set(free.tolist()) == {0, 13}  # d_1 and the grade-2 gain
    assert base[0] == x0[0] and base[13] == x0[13]
    assert A_eq2.shape[0] == 0  # both blocks are monotone: no equality left
    # d_2 <= d_1 and g_1 <= g_2 became upper bounds; d_12 >= 0 and g_1 >= 0 lower bounds
    b = dict(zip(free.tolist(), bounds))
    assert b[1] == (None, x0[0]) and b[11] == (0.0, None) and b[12] == (0.0, x0[13])
    assert A_in2.shape[0] == 10 and np.all(b_in2 == 0)  # d_2 >= d_3 ... d_11 >= d_12
    r1 = solve_slsqp(p, x0)
    r2 = solve_slsqp(p, 7.0 * x0)  # same direction, other scale: same normalised answer
    assert r1.success and r2.success
    assert r1.fun == pytest.approx(r2.fun, abs=1e-12)
    np.testing.assert_allclose(r1.x, r2.x, atol=1e-6)
    for blk in p.blocks:
        assert r1.x[blk.slice].sum() == pytest.approx(1.0, abs=1e-12)


def test_anchored_with_nothing_to_optimise_returns_the_start(tmp_path):
    # binary relevance: the gain block is one anchored variable, nothing is free
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{t} 0 d{i} {int(i % 2 == 0)}\n" for t in (1, 2) for i in range(6)))
    runs = []
    for s in range(3):
        path = tmp_path / f"run{s}"
        path.write_text("".join(f"{t} Q0 d{(i + s + t) % 6} {i + 1} {10 - i} run{s}\n" for t in (1, 2) for i in range(5)))
        runs.append(path)
    j = metrics.judge(runs, qrels)
    p = Problem(j, 4, "gain", discount="log2")
    assert p.n == 1
    r = solve_slsqp(p, np.array([0.3]))
    assert r.success and r.nit == 0 and "nothing to optimise" in r.message
    np.testing.assert_array_equal(r.x, [1.0])
    assert r.fun == pytest.approx(p.value(np.array([1.0])))


def test_default_formulation_converges_cleanly_from_every_start(embedded_trec9):
    p = Problem(embedded_trec9, 100, "discount", gain=[0, 1, 2])
    from optimize.solvers.multistart import starting_points

    vals = []
    for name, x0 in starting_points(p, 6, seed=0):
        exact, fd = solve_slsqp(p, x0), variants.solve_slsqp_variant(p, x0, jac=False) if name == "log2" else None
        assert exact.success and "successfully" in exact.message, (name, exact.message)
        if fd is not None:  # like with like: finite differences reach no better Φ
            assert fd.success and exact.fun >= fd.fun - 1e-12 and exact.nfev < fd.nfev / 50
        vals.append(exact.fun)
    assert max(vals) - min(vals) < 1e-10


def test_formulation_argument_error(embedded_trec9):
    p = Problem(embedded_trec9, 10, "discount", gain=[0, 1, 2])
    with pytest.raises(ValueError, match="`formulation` must be one of"):
        variants.solve_slsqp_variant(p, np.full(10, 0.1), formulation="fig1")


# ------------------------------------------------------------- a tiny collection with an independent nDCG

def test_make_feasible_by_hand():
    j, _, _ = tiny(1)
    p = Problem(j, 4, "joint")  # discount d1..d4, then the gains of grades 1 and 2
    x = np.array([0.2, 0.5, -0.1, 0.3, 3.0, 1.0])
    # clip at 0 -> [0.2, 0.5, 0, 0.3 | 3, 1]; running min -> [0.2, 0.2, 0, 0]; running max -> [3, 3]; sum 1 each
    np.testing.assert_allclose(make_feasible(p, x), [0.5, 0.5, 0.0, 0.0, 0.5, 0.5], atol=1e-15)
    # an all-zero block becomes uniform
    np.testing.assert_allclose(make_feasible(p, np.r_[np.zeros(4), 1.0, 2.0]), [0.25] * 4 + [1 / 3, 2 / 3],
                               atol=1e-15)
    free = Problem(j, 4, "discount", monotone_discount=False)
    np.testing.assert_allclose(make_feasible(free, [0.1, 0.3, -1.0, 0.6]), [0.1, 0.3, 0.0, 0.6], atol=1e-15)


@settings(max_examples=50, deadline=None)
@given(arrays(np.float64, 6, elements=st.floats(-5, 5, allow_nan=False)))
def test_make_feasible_is_feasible_and_keeps_feasible_points(x):
    p = _joint4()
    y = make_feasible(p, x)
    assert p.violation(y) <= 1e-12
    np.testing.assert_allclose(make_feasible(p, y), y, atol=1e-15)  # a feasible point is left alone


@functools.lru_cache(maxsize=1)
def _joint4():
    return Problem(tiny(1)[0], 4, "joint")


@pytest.mark.parametrize("solve", [solve_slsqp, solve_lbfgsb])
def test_gain_optimum_against_a_brute_force_grid(solve):
    # with grades 0, 1, 2 the feasible gains are (g1, g2) = (a, 1 - a), 0 <= a <= 1/2: Φ(1) of nDCG@5 with the
    # log2 discount, by hand, on a grid of 20001 values of a; the solvers must reach the grid's best, and their
    # answer must lie within a grid step of its argmax (the objective is smooth with one interior peak here)
    j, G, ideal = tiny(1)
    p = Problem(j, 5, "gain", discount="log2")
    d = 1 / np.log2(np.arange(2, 7))
    a = np.linspace(0, 0.5, 20001)
    f = np.array([phi1_by_hand(ndcg_by_hand(G, ideal, [0, v, 1 - v], d)) for v in a])
    r = solve(p, p.normalise(np.ones(2)))
    assert r.success, r.message
    assert r.fun >= f.max() - 1e-12  # both stop on Δf < 1e-12 or the projected gradient
    assert 0 < a[f.argmax()] < 0.5  # the premise: an interior peak
    assert abs(r.x[0] - a[f.argmax()]) <= 2 * (a[1] - a[0]) + 1e-6
    assert r.fun == pytest.approx(phi1_by_hand(ndcg_by_hand(G, ideal, [0, *r.x], d)), abs=1e-12)


def test_lbfgsb_result_is_labelled_and_feasible(embedded_trec9):
    p = Problem(embedded_trec9, 10, "discount", gain=[0, 1, 2])
    r = solve_lbfgsb(p, np.linspace(2, 1, 10))
    assert r.solver == "lbfgsb" and r.success and p.violation(r.x) <= 1e-9
    assert r.njev > 0 and r.nfev >= r.njev
