"""Tests of optimize/recommend/nested.py's building blocks: the corrected resampled interval, the seed list, the tie-aware
win count. ``recommend`` end to end is tests/test_optimize_recommend_recommend.py; its calibration on half-collections is
tests/test_optimize_recommend_calibration.py.

References: Nadeau & Bengio (2003)'s variance (1/J + n_test/n_fit) s² written out with scipy's t quantile;
numpy's own ``SeedSequence.spawn`` for the seed list.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from gtheory.kit.ties import TIE_REL
from optimize.recommend.nested import _wins, corrected_interval, seed_list


def test_corrected_interval_by_hand():
    d = np.array([0.01, 0.02, -0.005, 0.015])
    m, lo, hi = corrected_interval(d, n_test=25, n_fit=25)
    se = math.sqrt((1 / 4 + 1) * d.var(ddof=1))
    assert m == pytest.approx(d.mean())
    assert hi - m == pytest.approx(stats.t.ppf(0.975, 3) * se)
    assert m - lo == pytest.approx(hi - m)


def test_corrected_interval_is_wider_than_the_naive_one_and_grows_with_the_test_share():
    d = np.random.default_rng(0).normal(0.01, 0.02, size=10)
    _, lo_naive, hi_naive = (d.mean(), *stats.t.interval(0.95, 9, loc=d.mean(), scale=d.std(ddof=1) / math.sqrt(10)))
    _, lo, hi = corrected_interval(d, n_test=25, n_fit=25)
    _, lo2, hi2 = corrected_interval(d, n_test=10, n_fit=40)
    assert hi - lo > hi_naive - lo_naive  # overlapping splits: the naive interval is too narrow
    assert hi2 - lo2 < hi - lo  # a smaller held-out share, a smaller correction
    assert (hi2 - lo2) > (hi_naive - lo_naive)


def test_corrected_interval_undefined_cases():
    assert all(math.isnan(x) for x in corrected_interval(np.array([]), 5, 5))
    m, lo, hi = corrected_interval(np.array([0.3]), 5, 5)
    assert m == 0.3 and math.isnan(lo) and math.isnan(hi)
    _, lo, hi = corrected_interval(np.array([0.1, np.nan, 0.2]), 5, 5)
    assert math.isnan(lo) and math.isnan(hi)


def test_seed_list_starts_with_the_seed_and_spawns_the_rest():
    seeds = seed_list(7, 4)
    assert seeds[0] == 7 and len(seeds) == 4
    kids = np.random.SeedSequence(7).spawn(3)
    for got, want in zip(seeds[1:], kids):
        assert np.array_equal(np.random.default_rng(got).integers(0, 2**31, 5),
                              np.random.default_rng(want).integers(0, 2**31, 5))


def test_wins_ignore_differences_within_rounding():
    d = np.array([TIE_REL / 2, -0.1, 0.2, 2 * TIE_REL, 0.0])
    assert _wins(d) == 2
