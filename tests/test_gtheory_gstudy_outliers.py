"""Tests of gtheory.gstudy.outliers: the robust rule for runs far below the rest, and the competitive systems."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gtheory.gstudy.outliers import MAD_SCALE, competitive_answer, competitive_systems, outlying_runs


def _frame(means, n_topics=4, seed=0):
    """A systems x topics frame whose row means are exactly ``means`` (zero-mean noise per row)."""
    rng = np.random.default_rng(seed)
    noise = rng.normal(0, 0.05, (len(means), n_topics))
    noise -= noise.mean(axis=1, keepdims=True)
    return pd.DataFrame(np.asarray(means, float)[:, None] + noise, index=[f"r{i}" for i in range(len(means))])


def test_the_rule_by_hand():
    # means 0.1 (broken), 0.5 .. 0.9: median 0.6, |dev| 0.5 .1 .1 0 .2 .3 ... by hand
    means = [0.1, 0.5, 0.55, 0.6, 0.65, 0.7, 0.9]
    out = outlying_runs(_frame(means))
    med = 0.6
    mad = MAD_SCALE * np.median(np.abs(np.array(means) - med))  # median of .5 .1 .05 0 .05 .1 .3 = .1
    assert out.median == pytest.approx(med) and out.mad == pytest.approx(MAD_SCALE * 0.1)
    assert out.mad == pytest.approx(mad) and out.threshold == pytest.approx(med - 3 * mad)
    assert out.systems == ("r0",) and out.means == pytest.approx((0.1,))
    assert "r0 (0.1)" in out.one_line() and "median - 3 x MAD" in out.one_line()
    assert outlying_runs(_frame(means), k=10).systems == ()  # 10 robust SDs: not far enough
    assert MAD_SCALE == pytest.approx(1 / __import__("scipy.stats", fromlist=["norm"]).norm.ppf(0.75))


def test_one_sided_and_no_scale_no_outlier():
    means = [0.5, 0.52, 0.54, 0.56, 0.58, 0.99]  # a run far above is the best system, not a broken one
    assert outlying_runs(_frame(means)).systems == ()
    same = outlying_runs(np.array([[0.5, 0.5]] * 4 + [[0.0, 0.0]]))  # MAD 0: no scale to call anything far
    assert same.mad == 0 and same.systems == ()


@settings(max_examples=30, deadline=None)
@given(st.integers(8, 30), st.integers(1, 3), st.floats(0.1, 10), st.floats(-5, 5))
def test_fence_is_robust_and_affine_equivariant(n_good, n_broken, scale, shift):
    rng = np.random.default_rng(n_good * 7 + n_broken)
    good = rng.uniform(0.4, 0.6, n_good)
    broken = rng.uniform(-0.5, -0.4, n_broken)  # far below: 1 to 3 broken of 9 to 33 (< 50 %)
    x = np.concatenate([broken, good])[:, None] * np.ones((1, 3))
    out = outlying_runs(x)
    assert set(out.systems) == {str(i) for i in range(n_broken)}  # every broken run named, no good one
    moved = outlying_runs(x * scale + shift)  # the rule is in units of the data's own spread
    assert moved.systems == out.systems
    assert moved.threshold == pytest.approx(out.threshold * scale + shift, rel=1e-9, abs=1e-9)


def test_competitive_systems_default_drops_the_lowest_quarter():
    x = _frame([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
    assert competitive_systems(x) == ("r7", "r6", "r5", "r4", "r3", "r2")  # 8 - floor(8/4) = 6, best first
    assert competitive_systems(x, top=3) == ("r7", "r6", "r5")
    assert competitive_systems(x, drop_lowest=0.9) == ("r7", "r6", "r5", "r4", "r3", "r2", "r1", "r0")[:2]
    for bad in ({"top": 1}, {"top": 9}, {"drop_lowest": 1.0}, {"top": 2, "drop_lowest": 0.1}):
        with pytest.raises(ValueError):
            competitive_systems(x, **bad)
    with pytest.raises(ValueError, match="`k` must be a positive"):
        outlying_runs(x, k=0)
    with pytest.raises(ValueError, match="at least 2 systems"):
        outlying_runs(np.ones((1, 3)))


def test_competitive_systems_that_cannot_be_told_apart_say_why_they_need_inf_topics():
    """Three best runs holding the same scores in other topic orders (equal means, so their system variance is
    estimated below 0): the answer for them is ∞ topics, and the line says why, with the estimate."""
    rng = np.random.default_rng(2)
    base = rng.random(12) * 0.5 + 0.4
    x = np.vstack([base, base[::-1], np.roll(base, 5), rng.random(12) * 0.3, rng.random(12) * 0.3])
    ans = competitive_answer(x, list("abcde"), [f"q{i}" for i in range(12)], top=3)
    assert set(ans.systems) == {"a", "b", "c"}
    assert ans.var_system_raw < 0 and ans.topics_needed["phi"] == math.inf
    line = ans.lines()[1]
    assert "∞: the system variance of these 3 runs is estimated at" in line and f"{ans.var_system_raw:.3g}" in line
    assert "∞:" not in competitive_answer(x, list("abcde"), [f"q{i}" for i in range(12)]).lines()[1]


def test_identical_competitive_runs_need_inf_topics_and_do_not_stop_the_study():
    """The best runs score alike on every topic (a run copied under several names): their G-study is undefined (0/0),
    so the answer for them is ∞ topics with the reason, not an error that stops the all-runs study; when half the
    runs or more share one mean the outlier line says the rule has no scale, instead of a fence some run is below."""
    base = np.random.default_rng(0).random(10)
    x = np.vstack([base, base, base, base, base - 0.05 * np.eye(10)[3]])
    ans = competitive_answer(x, list("abcde"), [str(i) for i in range(10)])
    assert ans.topics_needed == {"erho2": math.inf, "phi": math.inf} and ans.var_system_raw == 0.0
    assert "cannot be told apart" in ans.lines()[1]
    assert "the MAD of the run means is 0" in ans.lines()[0] and "none with a mean below" not in ans.lines()[0]
    with pytest.raises(ValueError):  # the whole matrix constant: the all-runs study itself is refused, as before
        competitive_answer(np.ones((4, 5)), list("abcd"), list("vwxyz"))
