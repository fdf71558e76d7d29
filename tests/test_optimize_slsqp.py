"""Tests of optimize/slsqp.py: the SLSQP formulations, L-BFGS-B and the projection onto the feasible set."""
from __future__ import annotations

import numpy as np
import pytest

import gtheory
import metrics
from optimize.objective import Problem
from optimize.slsqp import solve_slsqp


@pytest.fixture(scope="module")
def trec9():
    return metrics.load_trec9()


def test_analytic_gradient_path_uses_no_finite_differences(trec9):
    p = Problem(trec9, 30, "discount", gain=[0, 1, 2])
    r = solve_slsqp(p, p.normalise(np.ones(30)))
    fd = solve_slsqp(p, p.normalise(np.ones(30)), jac=False)
    assert 0 < r.njev <= r.nfev < fd.nfev / 10  # gradients only at iterates; FD needs n + 1 values each
    assert r.fun >= fd.fun - 1e-9


@pytest.mark.parametrize("what,k,monotone", [("discount", 100, True), ("gain", 100, True), ("joint", 20, True),
                                             ("discount", 30, False), ("joint", 10, False)])
def test_slsqp_formulations_reach_the_same_optimum(trec9, what, k, monotone):
    # "anchored" (default), "reduced", "paper" (Fig. 1 literally) and "increments" describe one
    # problem; reference: the literal paper form. Tolerance 1e-10 in Φ(1): all stop on Δf < 1e-12.
    p = Problem(trec9, k, what, gain=[0, 1, 2], monotone_gain=monotone, monotone_discount=monotone)
    x0 = p.normalise(np.ones(p.n))
    runs = {f: solve_slsqp(p, x0, formulation=f) for f in ("anchored", "reduced", "paper", "increments")}
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
    X = metrics.ndcg(trec9, gain={float(l): float(v) for l, v in zip(p.levels, g)}, discount=d, cutoff=k).to_numpy()
    assert gtheory.gstudy(X).phi(1) == pytest.approx(runs["anchored"].fun, abs=1e-12)


def test_anchored_formulation_holds_the_top_value_and_rescales(trec9):
    # the anchor (top-rank discount, top-grade gain) is fixed at its projected start value during
    # the solve; the reported x sums to 1 per block, and the start's scale does not matter
    from optimize.slsqp import _anchored, make_feasible

    p = Problem(trec9, 12, "joint", gain=[0, 1, 2])
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


def test_default_formulation_converges_cleanly_from_every_start(trec9):
    p = Problem(trec9, 100, "discount", gain=[0, 1, 2])
    from optimize.multistart import starting_points

    vals = []
    for name, x0 in starting_points(p, 6, seed=0):
        exact, fd = solve_slsqp(p, x0), solve_slsqp(p, x0, jac=False) if name == "log2" else None
        assert exact.success and "successfully" in exact.message, (name, exact.message)
        if fd is not None:  # like with like: finite differences reach no better Φ
            assert fd.success and exact.fun >= fd.fun - 1e-12 and exact.nfev < fd.nfev / 50
        vals.append(exact.fun)
    assert max(vals) - min(vals) < 1e-10


def test_formulation_argument_error(trec9):
    p = Problem(trec9, 10, "discount", gain=[0, 1, 2])
    with pytest.raises(ValueError, match="`formulation` must be one of"):
        solve_slsqp(p, np.full(10, 0.1), formulation="fig1")
