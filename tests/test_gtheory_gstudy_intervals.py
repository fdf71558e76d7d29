"""Tests of gtheory.gstudy.intervals: Feldt (Eρ²) and Arteaga et al. (Φ) confidence intervals.

External references:
* Brennan (2001) Table 6.5 (synthetic data set 4 as p × i, 80% two-sided intervals), as asserted in
  gt4ireval's tests/testthat/test.dstudy.R: Eρ² .729 [.541, .876], Φ .672 [.457, .845].
* Monte Carlo coverage under the normal random-effects model: Feldt's interval is exact (each tail
  2.5%); the Arteaga et al. interval is approximate and known to be slightly conservative.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from gtheory import gstudy, variance_components
from gtheory.gstudy.intervals import arteaga_ratio_bounds, feldt_ratio_bounds, project, topics_for_ratio

from conftest import shared

BRENNAN = ("gtheory-textbook", "brennan2001_via_GeneralizIT")


@pytest.fixture(scope="module")
def g4():
    return gstudy(pd.read_csv(shared(*BRENNAN, "synthetic4_p_x_r_nested_in_t.csv"), index_col=0))


def test_brennan_table_6_5(g4):
    # gt4ireval: dstudy(gstudy(synthetic4), alpha = .1)  -> 80% two-sided, tolerance 1e-3
    e = g4.interval("erho2", level=0.80)
    p = g4.interval("phi", level=0.80)
    assert e.estimate == pytest.approx(0.729, abs=1e-3)
    assert e.low == pytest.approx(0.541, abs=1e-3)
    assert e.high == pytest.approx(0.876, abs=1e-3)
    assert p.estimate == pytest.approx(0.672, abs=1e-3)
    assert p.low == pytest.approx(0.457, abs=1e-3)
    assert p.high == pytest.approx(0.845, abs=1e-3)
    assert e.method.startswith("Feldt") and p.method.startswith("Arteaga")


def test_interval_contains_estimate_and_widens_with_level(g4):
    for coef in ("phi", "erho2"):
        n = np.array([1, 5, 12, 50, 200])
        a = g4.interval(coef, n, level=0.8)
        b = g4.interval(coef, n, level=0.99)
        assert np.all(a.low <= a.estimate) and np.all(a.estimate <= a.high)
        assert np.all(b.low <= a.low) and np.all(a.high <= b.high)
        assert np.all(np.diff(a.low) > 0) and np.all(np.diff(a.high) > 0)


@pytest.mark.parametrize("ns, nt, vs, vt, ve", [(15, 10, 1.0, 0.5, 2.0), (30, 25, 0.2, 0.5, 1.0)])
def test_coverage_by_simulation(ns, nt, vs, vt, ve):
    rng = np.random.default_rng(5)
    K = 4000
    X = (rng.normal(0, math.sqrt(vs), (K, ns, 1)) + rng.normal(0, math.sqrt(vt), (K, 1, nt))
         + rng.normal(0, math.sqrt(ve), (K, ns, nt)))
    vc = variance_components(X)
    true_e = vs / (vs + ve / nt)
    true_p = vs / (vs + (vt + ve) / nt)
    lo, hi = feldt_ratio_bounds(vc.ms_system, vc.ms_residual, ns, nt, 0.95)
    miss_low, miss_high = np.mean(project(lo, nt) > true_e), np.mean(project(hi, nt) < true_e)
    # exact interval: 2.5% in each tail (binomial SE 0.0025)
    assert abs(miss_low - 0.025) < 0.01 and abs(miss_high - 0.025) < 0.01
    lo, hi = arteaga_ratio_bounds(vc.ms_system, vc.ms_topic, vc.ms_residual, ns, nt, 0.95)
    miss_low, miss_high = np.mean(project(lo, nt) > true_p), np.mean(project(hi, nt) < true_p)
    assert 0.005 < miss_low < 0.035 and 0.005 < miss_high < 0.035


def test_feldt_matches_f_distribution_definition(g4):
    # independent restatement: (MS_s/MS_e) / (1 + n_t r) ~ F(df_s, df_e); bounds solve for r
    from scipy.stats import f

    lo, hi = feldt_ratio_bounds(g4.ms_system, g4.ms_residual, 10, 12, 0.9)
    F = g4.ms_system / g4.ms_residual
    assert f.cdf(F / (1 + 12 * lo), 9, 99) == pytest.approx(0.95, abs=1e-10)
    assert f.cdf(F / (1 + 12 * hi), 9, 99) == pytest.approx(0.05, abs=1e-10)


def test_helpers():
    assert topics_for_ratio(0.0, 0.9) == math.inf
    assert topics_for_ratio(math.inf, 0.9) == 0.0
    assert topics_for_ratio(1.0, 0.9) == pytest.approx(9.0)
    assert project(math.inf, 3) == 1.0
    with pytest.raises(ValueError, match="`level` must be"):
        feldt_ratio_bounds(1.0, 1.0, 5, 5, level=1.0)



def test_project_is_public_and_gives_the_d_study_coefficients(g4):
    import gtheory

    assert gtheory.project is project and "project" in gtheory.__all__
    # Φ(n) = σ²_s / (σ²_s + (σ²_t + σ²_st)/n), Eρ²(n) = σ²_s / (σ²_s + σ²_st/n)   (Brennan 2001, §4.1)
    s, t, st = g4.var_system, g4.var_topic, g4.var_residual
    n = np.array([1, 3, 12, 50.5])
    np.testing.assert_allclose(project(s / (t + st), n), s / (s + (t + st) / n), rtol=1e-14)
    np.testing.assert_allclose(project(s / st, n), s / (s + st / n), rtol=1e-14)
    assert project(0.0, 5) == 0.0 and math.isnan(project(math.nan, 5))

def test_phi_interval_brackets_the_estimate_in_degenerate_cases():
    """Arteaga bounds at σ²(s) ≈ 0 (λ numerator ≤ 0) and at MS_t = MS_st = 0 (λ = ∞) stay ordered around Φ."""
    import warnings

    import gtheory

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
        g = gtheory.gstudy(np.array([[0, 1, 0.2], [1, 0, 0.3], [0.5, 0.5, 0.1]]))
        iv = g.interval("phi", 3)
        assert iv.low == iv.high == iv.estimate == 0.0
        g = gtheory.gstudy(np.tile([[0.1], [0.5], [0.9]], (1, 4)))
        iv = g.interval("phi", 10)
        assert iv.low == iv.high == iv.estimate == 1.0
        rng = np.random.default_rng(1)
        for _ in range(500):
            x = rng.random((int(rng.integers(3, 12)), int(rng.integers(3, 15))))
            g = gtheory.gstudy(x)
            n = x.shape[1]
            iv = g.interval("phi", n)
            assert iv.low <= g.phi(n) + 1e-12 and g.phi(n) <= iv.high + 1e-12
            need = g.topics_needed(0.8)
            assert need.n_low <= need.n_high


def test_quantiles_are_scipy_stats_without_importing_it():
    """The F and χ² quantiles of the intervals are scipy.stats' (the same special functions it calls), so the
    intervals did not move when scipy.stats stopped being imported for them."""
    from scipy import stats

    from gtheory.gstudy.intervals import _chi2_ppf, _f_ppf

    for q in (0.005, 0.025, 0.5, 0.975, 0.995):
        for d1, d2 in ((1, 1), (3, 7), (36, 1512), (103, 5047)):
            assert _f_ppf(q, d1, d2) == pytest.approx(float(stats.f.ppf(q, d1, d2)), rel=1e-13)
            assert _chi2_ppf(q, d1) == pytest.approx(float(stats.chi2.ppf(q, d1)), rel=1e-13)

