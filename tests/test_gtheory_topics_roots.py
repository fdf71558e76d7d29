"""Tests of gtheory/topics/roots.py: Brent's root finder, against scipy.optimize.brentq (the reference it ports) to
the last bit, on functions drawn by hypothesis and on the topic planner's own power equations."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import optimize

import gtheory
from gtheory.topics.roots import brentq


@settings(max_examples=200, deadline=None)
@given(st.floats(-5, 5), st.floats(0.1, 5), st.floats(-3, 3), st.floats(0.05, 3), st.sampled_from([1e-12, 1e-8, 2e-12]),
       st.sampled_from([1e-12, 4 * np.finfo(float).eps, 1e-6]))
def test_the_same_root_as_scipy_to_the_last_bit(root, width, curve, skew, xtol, rtol):
    # functions through `root` with curvature and a non-polynomial part, bracketed asymmetrically (with a negative
    # curvature some brackets hold no sign change: then both refuse it, with the same error)
    def f(x):
        return math.sinh(curve * (x - root)) + skew * (x - root) ** 3 + 0.1 * (x - root)

    def outcome(solver):
        try:
            return solver(f, a, b, xtol=xtol, rtol=rtol)
        except (ValueError, RuntimeError) as exc:
            return type(exc), str(exc)

    a, b = root - width * skew, root + width
    assert outcome(brentq) == outcome(optimize.brentq)  # bit for bit: the same operations in the same order


def test_exact_roots_at_the_ends_and_the_errors_scipy_gives():
    assert brentq(lambda x: x, 0.0, 1.0) == optimize.brentq(lambda x: x, 0.0, 1.0) == 0.0
    assert brentq(lambda x: x - 1.0, 0.0, 1.0) == 1.0
    with pytest.raises(ValueError, match="different signs"):
        brentq(lambda x: x * x + 1.0, -1.0, 1.0)
    with pytest.raises(ValueError, match="xtol too small"):
        brentq(lambda x: x, -1.0, 1.0, xtol=0.0)
    with pytest.raises(ValueError, match="rtol too small"):
        brentq(lambda x: x, -1.0, 1.0, rtol=1e-17)
    with pytest.raises(RuntimeError, match="Failed to converge after 3 iterations"):
        brentq(lambda x: math.atan(x - 0.3), -50.0, 1.0, maxiter=3)


@pytest.mark.parametrize("method", ["paired-t", "anova"])
def test_the_detectable_difference_is_the_one_scipy_would_find(method, monkeypatch):
    # min_detectable_difference with this module, and with scipy's brentq put in its place: identical numbers
    n = [10, 25, 50, 200]
    kw = dict(variance=0.02, n_systems=5) if method == "anova" else dict(variance=0.02)
    ours = gtheory.min_detectable_difference(method, n, **kw)
    import gtheory.topics.roots as roots

    monkeypatch.setattr(roots, "brentq", lambda f, a, b, **k: optimize.brentq(f, a, b, **k))
    theirs = gtheory.min_detectable_difference(method, n, **kw)
    np.testing.assert_array_equal(ours, theirs)
