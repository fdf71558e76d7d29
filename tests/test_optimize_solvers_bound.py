"""Tests of optimize.solvers.bound (Shor/SDP upper bound on the tuned Φ(1)).

References: the quadratic forms are checked against the objective of :class:`optimize.Problem`
(which is itself checked against metrics.ndcg + gtheory.gstudy); validity of the bound against
the tuned optimum and against random feasible vectors. The bounds of the full TREC-9 problems
(minutes of SCS each) are recorded in docs/optimize.md, not recomputed here.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import optimize
from optimize.solvers.bound import optimality_bound
from optimize.solvers.certificate import _topic_blocks, quadratic_forms
from optimize.solvers.objective import Problem


@pytest.fixture(scope="module")
def small(embedded_trec9):
    j = embedded_trec9
    return j.subset(topics=list(j.topics)[:8])


def _stacked(problem, x):
    blocks, C, R, active = _topic_blocks(problem)
    u = np.linalg.solve(R, x)
    return np.concatenate([u / (C[t] @ u) for t in np.flatnonzero(active)])


@pytest.mark.parametrize("what", ["discount", "gain"])
def test_quadratic_forms_equal_objective(small, what):
    k = 5
    p = Problem(small, k, what, gain=[0, 1, 2], discount="log2")
    P, Q, _ = quadratic_forms(p)
    rng = np.random.default_rng(0)
    for _ in range(3):
        x = np.sort(rng.random(p.n))[::-1] if what == "discount" else np.sort(rng.random(p.n))
        v = _stacked(p, x)
        assert v @ P @ v / (v @ Q @ v) == pytest.approx(p.value(x / x.sum()), rel=1e-10)


def test_discount_bound_is_valid_and_tight_on_a_small_problem(small):
    k = 5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = optimize.optimize_discount(small, gain=[0, 1, 2], cutoff=k, starts=2)
    b = t.bound()
    assert b.status == "optimal"
    assert b.bound >= t.fun - 1e-9
    # tight here: the relaxation's optimum is the tuned Φ(1) up to the solver tolerance
    assert b.relaxed == pytest.approx(t.fun, abs=1e-6)
    assert 0 <= t.gap <= 2e-6
    assert "optimality bound" in t.summary() and "gap" in t.summary()
    assert type(b).from_json(b.to_json()) == b and "Φ(1) ≤" in b.summary()
    # valid against any feasible discount (monotone, non-negative)
    p = Problem(small, k, "discount", gain=[0, 1, 2])
    rng = np.random.default_rng(1)
    for _ in range(20):
        d = np.sort(rng.random(k))[::-1]
        assert p.value(d / d.sum()) <= b.bound


def test_gain_bound_valid(small):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = optimize.optimize_gain(small, discount="log2", cutoff=10, starts=2)
    b = t.bound()
    assert b.bound >= t.fun - 1e-9 and t.gap < 1e-5


def test_bound_refuses_what_it_cannot_do(small):
    p = Problem(small, 5, "gain", discount="log2", monotone_gain=False)
    with pytest.raises(ValueError, match="monotone_gain=False"):
        optimality_bound(p)
    p = Problem(small, 5, "discount", gain=[0, 1, 2], objective="erho2")
    with pytest.raises(ValueError, match="bounds Φ"):
        optimality_bound(p)
    p = Problem(small, 50, "discount", gain=[0, 1, 2])
    with pytest.raises(ValueError, match=r"401 x 401 .*larger than `max_size`=300.*dual-search"):
        optimality_bound(p, max_size=300)


def test_bound_without_monotonicity_covers_random_discounts(small):
    p = Problem(small, 4, "discount", gain=[0, 1, 2], monotone_discount=False)
    b = optimality_bound(p)
    rng = np.random.default_rng(2)
    vals = [p.value(d / d.sum()) for d in rng.random((50, 4))]
    assert b.status == "optimal" and max(vals) <= b.bound
    # dropping monotonicity can only raise the optimum
    assert b.bound >= optimality_bound(Problem(small, 4, "discount", gain=[0, 1, 2])).relaxed - 1e-6


# --- the certificate (module docstring, "Certificate") -------------------------------------------------------------


def test_dual_search_through_the_api(small):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = optimize.optimize_discount(small, gain=[0, 1, 2], cutoff=5, starts=2)
    b = optimality_bound(Problem(small, 5, "discount", gain=[0, 1, 2]), method="dual-search", lower=t.fun, iters=60)
    assert b.solver == "dual search" and t.fun <= b.bound < t.fun + 0.05
    assert type(b).from_json(b.to_json()).bound == b.bound and "dual search" in b.summary()
    # without `lower` it aims at the log2 discount's Φ(1): still valid
    b2 = optimality_bound(Problem(small, 5, "discount", gain=[0, 1, 2]), method="dual-search", iters=20)
    assert b2.bound >= t.fun
    with pytest.raises(ValueError, match="method"):
        optimality_bound(Problem(small, 5, "discount", gain=[0, 1, 2]), method="lp")


def test_gain_bound_with_a_topic_missing_a_grade(embedded_trec9, small):
    # topics without grade-2 documents: their normaliser of the grade-2 increment is 0 and that coordinate is
    # unbounded; it does not enter P, Q, and the certificate leaves it out (no multiplier touches it)
    sub = embedded_trec9
    p = Problem(sub, 10, "gain", discount="log2")
    C = _topic_blocks(p)[1][_topic_blocks(p)[3]]
    assert (C <= 0).any()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = optimize.optimize_gain(sub, discount="log2", cutoff=10, starts=2)
    b = t.bound()
    assert b.status == "optimal" and t.fun - 1e-9 <= b.bound <= t.fun + 1e-5
    rng = np.random.default_rng(5)
    for _ in range(10):
        g = np.sort(rng.random(p.n))
        assert p.value(g / g.sum()) <= b.bound
    # arbitrary multipliers: dual_matrix keeps them off those coordinates, and the certificate stays valid
    from optimize.solvers.certificate import _coupling_selector, certify, dual_matrix, repair

    P, Q, _ = quadratic_forms(p)
    n_t, k = C.shape
    sel = _coupling_selector(n_t, k)
    mult = (0.1, rng.normal(size=n_t), rng.normal(size=(n_t, n_t * k)), rng.normal(size=sel.shape[0]),
            rng.random((n_t * k + 1, n_t * k + 1)))
    S = dual_matrix(P, Q, C, *mult, sel)
    zero = 1 + np.flatnonzero(C.ravel() <= 0)
    assert not S[zero].any() and not S[:, zero].any()
    assert certify(P, Q, C, S, 0.1)[0] >= t.fun
    S2, _ = repair(S, mult[4], C, iters=3)
    assert not S2[zero].any() and certify(P, Q, C, S2, 0.1)[0] >= t.fun
