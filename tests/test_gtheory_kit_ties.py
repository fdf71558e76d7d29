"""Tests of gtheory/kit/ties.py: values equal up to rounding made exactly equal before they are compared.

References: exact arithmetic (``fractions.Fraction``) for means that tie in exact arithmetic but not in floating
point, and the rule of the module: groups split at every gap wider than ``TIE_REL`` × the row's largest |value|,
each group set to its smallest member.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gtheory.kit.ties import TIE_REL, tie_values


def test_means_equal_in_exact_arithmetic_become_equal():
    # (0.1 + 0.2 + 0.3)/3 and (0.3 + 0.3 + 0.0)/3 are both 1/5 exactly, but differ in the last bit as floats
    a, b = (0.1 + 0.2 + 0.3) / 3, (0.3 + 0.3 + 0.0) / 3
    assert a != b
    t = tie_values([a, b, 0.5])
    assert t[0] == t[1] == min(a, b) and t[2] == 0.5


def test_a_real_difference_is_kept_and_order_is_the_inputs():
    x = np.array([0.3, 0.1, 0.3 * (1 + 1e-6), 0.1 * (1 + 1e-12)])
    t = tie_values(x)
    # 1e-6 relative is far above TIE_REL = 1e-9: not a tie; 1e-13 absolute is below 1e-9 × 0.3: a tie
    assert t[0] == 0.3 and t[2] == x[2] and t[1] == t[3] == 0.1


def test_rows_are_independent_and_non_finite_rows_unchanged():
    x = np.array([[1.0, 1.0 + 1e-12, 2.0], [np.nan, 1.0, 1.0 + 1e-12], [0.0, 0.0, 0.0]])
    t = tie_values(x)
    assert t[0].tolist() == [1.0, 1.0, 2.0]
    assert np.isnan(t[1, 0]) and t[1, 2] == 1.0 + 1e-12  # a row with a NaN is returned as it is
    assert t[2].tolist() == [0.0, 0.0, 0.0]
    assert tie_values([5.0]).tolist() == [5.0]  # one value: nothing to tie


def test_dimensions_checked():
    with pytest.raises(ValueError, match="tie_values expects a 1-D or 2-D array; got 3 dimensions"):
        tie_values(np.zeros((2, 2, 2)))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=12))
def test_the_grouping_rule(values):
    x = np.array(values)
    t = tie_values(x)
    tol = TIE_REL * np.abs(x).max()
    # nothing moves by more than the span of its group (at most n - 1 gaps of tol), and never upwards
    assert (t <= x).all() and (x - t <= (x.size - 1) * tol + 0.0).all()
    # values that differ by more than tol (and are not chained by smaller gaps) stay ordered: the order of
    # the result is the order of the input, ties aside
    order = np.argsort(x, kind="stable")
    assert (np.diff(t[order]) >= 0).all()
    # idempotent: the tied values are a fixed point
    assert np.array_equal(tie_values(t), t)
    # every value of the result is one of the inputs (the smallest of its group)
    assert set(t.tolist()) <= set(x.tolist())
