"""Tests of metrics/measures/gains.py: the gain of each relevance grade (gain_vector).

References: the families' formulas (Järvelin & Kekäläinen 2002: the grade itself; Burges et al. 2005: 2^x - 1;
binary: 1 at or above a level) evaluated here by hand, and trec_eval's convention that grades ≤ -1 are
pooled-but-unjudged documents with no gain whatever the specification.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from metrics import gain_vector

LV = np.array([-1.0, 0.0, 1.0, 2.0, 3.0])


def test_gain_families():
    assert gain_vector("linear", LV).tolist() == [0, 0, 1, 2, 3]
    assert gain_vector("exponential", LV).tolist() == [0, 0, 1, 3, 7]
    assert gain_vector("binary", LV).tolist() == [0, 0, 1, 1, 1]
    assert gain_vector("binary(level=2)", LV).tolist() == [0, 0, 0, 1, 1]
    assert gain_vector([0, 1, 5, 9], LV).tolist() == [0, 0, 1, 5, 9]


def test_exponential_base_and_real_valued_grades():
    # 3^x - 1 at x = 1, 2; a real grade 1.5 is used as it is: 2^1.5 - 1 (no truncation)
    assert gain_vector("exponential(base=3)", np.array([0.0, 1.0, 2.0])).tolist() == [0.0, 2.0, 8.0]
    assert gain_vector("exponential", np.array([1.5]))[0] == pytest.approx(2 ** 1.5 - 1, rel=1e-15)
    assert gain_vector("linear", np.array([0.5, 2.25])).tolist() == [0.5, 2.25]


def test_mapping_and_callable():
    got = gain_vector({1.0: 10.0, 2.0: 30.0, 3.0: 31.0}, LV)
    assert got.tolist() == [0, 0, 10, 30, 31]  # grades ≤ 0 missing from the mapping get 0
    # a callable receives the grades; what it says for grade -1 is overruled (pooled-but-unjudged: no gain)
    assert gain_vector(lambda x: x ** 2 + 1, LV).tolist() == [0, 1, 2, 5, 10]


@pytest.mark.parametrize("gain, levels, message", [
    ({1: 1.0}, [0.0, 1.0, 2.0], r"the gain mapping has no value for grade\(s\) 2 found in the qrels"),
    ([0, 1], [0.0, 1.0, 3.0], r"`gain` has 2 entries \(grades 0..1\) but the qrels hold grade\(s\) \[3.0\]"),
    ([0, 1, 2], [0.0, 1.5], r"`gain` with numbers gives one gain per integer grade .* non-integer grades \[1.5\]"),
    ([0, np.inf], [0.0, 1.0], r"`gain` \(gains per grade\) must hold finite numbers; got inf at position 1"),
    ("squared", [1.0], r"unknown gain family 'squared'"),
    ("exponential(base=1)", [1.0], r"`base` of the exponential gain must be > 1; got 1.0"),
    (lambda x: x[:1], [0.0, 1.0], r"the gain callable returned shape \(1,\) for 2 grades"),
    (lambda x: x / 0, [0.0, 1.0], r"`gain` must give finite gains"),
    ([[0, 1]], [0.0, 1.0], r"a gain vector must be 1-D and non-empty"),
])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # x / 0 in the callable case
def test_errors_name_the_problem(gain, levels, message):
    with pytest.raises(ValueError, match=message):
        gain_vector(gain, np.array(levels))


def test_non_integer_grades_with_a_vector_carry_the_fix():
    with pytest.raises(ValueError) as err:
        gain_vector([0, 1, 2], np.array([0.0, 1.5]))
    assert err.value.param == "gain" and "pass a mapping {grade: gain} instead" in str(err.value)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-3, 6), min_size=1, max_size=8, unique=True), st.floats(1.1, 5.0))
def test_gains_are_zero_at_or_below_zero_and_increase_with_the_grade(grades, base):
    levels = np.array(sorted(grades), dtype=float)
    for spec in ("linear", f"exponential(base={base!r})", "binary"):
        g = gain_vector(spec, levels)
        assert g.shape == levels.shape and (g[levels <= 0] == 0).all()
        assert (np.diff(g) >= 0).all()  # a better grade never gains less
