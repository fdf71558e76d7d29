"""Tests of optimize/solvers/parametrize.py: the increment maps (hand-computed values, round trips, the adjoint identity of
the chain rule) and Parametrization on a Problem (chain rule against finite differences)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import metrics
from optimize.solvers.objective import Problem
from optimize.solvers.parametrize import (Parametrization, discount_to_increments, gain_to_increments,
                                  increments_to_discount, increments_to_gain)
from tiny_collection import fd_grad  # noqa: E402

_finite = arrays(np.float64, st.integers(1, 12), elements=st.floats(-10, 10, allow_nan=False))


def test_increments_by_hand():
    # u_j = d_j - d_{j+1} with d_{k+1} = 0; v_i = g_i - g_{i-1} with g_0 = 0 (module docstring)
    np.testing.assert_allclose(discount_to_increments([0.5, 0.3, 0.2]), [0.2, 0.1, 0.2], atol=1e-15)
    np.testing.assert_allclose(increments_to_discount([0.2, 0.1, 0.2]), [0.5, 0.3, 0.2], atol=1e-15)
    np.testing.assert_array_equal(gain_to_increments([1.0, 3.0, 7.0]), [1.0, 2.0, 4.0])
    np.testing.assert_array_equal(increments_to_gain([1.0, 2.0, 4.0]), [1.0, 3.0, 7.0])


# tolerance of the round trips: a (reverse) cumulative sum of differences of numbers <= 10 in magnitude, k <= 12
# terms; each step rounds by at most one ulp of ~100, so 1e-12 is far above the error and far below any mistake
@settings(max_examples=60, deadline=None)
@given(_finite)
def test_round_trips(x):
    np.testing.assert_allclose(increments_to_discount(discount_to_increments(x)), x, atol=1e-12)
    np.testing.assert_allclose(discount_to_increments(increments_to_discount(x)), x, atol=1e-12)
    np.testing.assert_allclose(increments_to_gain(gain_to_increments(x)), x, atol=1e-12)
    np.testing.assert_allclose(gain_to_increments(increments_to_gain(x)), x, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.integers(1, 12), elements=st.floats(0, 10, allow_nan=False)))
def test_non_negative_increments_are_exactly_the_constraints(u):
    # u >= 0 gives a non-increasing, non-negative discount and a non-decreasing, non-negative gain
    d, g = increments_to_discount(u), increments_to_gain(u)
    assert np.all(d >= 0) and np.all(np.diff(d) <= 0)
    assert np.all(g >= 0) and np.all(np.diff(g) >= 0)
    # and back: a sorted non-negative vector has non-negative increments
    assert np.all(discount_to_increments(np.sort(u)[::-1]) >= 0)
    assert np.all(gain_to_increments(np.sort(u)) >= 0)


def test_an_increasing_discount_has_a_negative_increment():
    assert discount_to_increments([0.2, 0.5])[0] < 0
    assert gain_to_increments([2.0, 1.0])[1] < 0


def _tiny_problem(what, monotone=True):
    qrels = {str(t): {f"d{i}": int(i % 3) for i in range(6)} for t in range(4)}
    rng = np.random.default_rng(1)
    runs = {f"s{s}": {str(t): {f"d{i}": float(v) for i, v in enumerate(rng.random(6))} for t in range(4)}
            for s in range(4)}
    j = metrics.judge(runs, qrels, progress=False)
    return Problem(j, 5, what, monotone_gain=monotone, monotone_discount=monotone)


@pytest.mark.parametrize("what, monotone", [("discount", True), ("gain", True), ("joint", True), ("joint", False)])
def test_pullback_is_the_transpose_of_to_x(what, monotone):
    # to_x is linear, so <g, to_x(z)> = <pullback(g), z> for every g and z (the adjoint identity); a free
    # block is the identity. Tolerance: sums of ~10 products of numbers in [-1, 1]: rounding ~1e-15
    par = Parametrization(_tiny_problem(what, monotone))
    n = par.problem.n
    rng = np.random.default_rng(0)
    for _ in range(5):
        g, z = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
        assert g @ par.to_x(z) == pytest.approx(par.pullback(g) @ z, abs=1e-13)
        np.testing.assert_allclose(par.to_z(par.to_x(z)), z, atol=1e-14)
    if not monotone:
        np.testing.assert_array_equal(par.to_x(z), z)


def test_parametrization_chain_rule(embedded_trec9):
    p = Problem(embedded_trec9, 12, "joint")
    par = Parametrization(p)
    x = p.normalise(np.r_[np.sort(np.random.default_rng(4).random(12))[::-1], 0.3, 0.7])
    z = par.to_z(x)
    assert np.all(z >= 0)
    np.testing.assert_allclose(par.to_x(z), x, atol=1e-15)
    f, gz = par.value_and_grad(z)
    np.testing.assert_allclose(gz, fd_grad(lambda v: p.value(par.to_x(v)), z), rtol=1e-6, atol=1e-9)
