"""Tests of optimize.bound (Shor/SDP upper bound on the tuned Φ(1)).

References: the quadratic forms are checked against the objective of :class:`optimize.Problem`
(which is itself checked against metrics.ndcg + gtheory.gstudy); validity of the bound against
the tuned optimum and against random feasible vectors. The bounds of the full TREC-9 problems
(minutes of SCS each) are recorded in docs/optimize.md, not recomputed here.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import metrics
import optimize
from optimize.bound import _topic_blocks, optimality_bound, quadratic_forms
from optimize.objective import Problem


@pytest.fixture(scope="module")
def small():
    j = metrics.load_trec9()
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
        t = optimize.optimize_discount(small, [0, 1, 2], k, starts=2)
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
    with pytest.raises(ValueError, match=r"401 x 401 .*larger than `max_size`=300"):
        optimality_bound(p, max_size=300)


def test_bound_without_monotonicity_covers_random_discounts(small):
    p = Problem(small, 4, "discount", gain=[0, 1, 2], monotone_discount=False)
    b = optimality_bound(p)
    rng = np.random.default_rng(2)
    vals = [p.value(d / d.sum()) for d in rng.random((50, 4))]
    assert b.status == "optimal" and max(vals) <= b.bound
    # dropping monotonicity can only raise the optimum
    assert b.bound >= optimality_bound(Problem(small, 4, "discount", gain=[0, 1, 2])).relaxed - 1e-6
