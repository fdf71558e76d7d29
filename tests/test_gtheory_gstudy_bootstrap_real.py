"""Tests of benchmarks/coverage_real.py: bootstrap coverage measured on real score matrices by population resampling.

The truth it scores the intervals against is checked independently: against ``gtheory.gstudy`` on the full
population matrix, and — the reason it is the right target — by enumerating *every* subsample of a small
skewed matrix: the mean of the subsamples' ANOVA estimates equals the truth exactly (Cornfield & Tukey 1956
for sampling without replacement; the exchangeable-array components for sampling with replacement).
"""
from __future__ import annotations

import importlib.util
import itertools
import math
from pathlib import Path

import numpy as np
import pytest

import gtheory
from conftest import shared
from gtheory.gstudy.coefficients import topics_needed_for_ratio

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "coverage_real.py"
_spec = importlib.util.spec_from_file_location("coverage_real", _PATH)
cr = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cr)


def _skewed(ns=5, nt=4, seed=7):
    rng = np.random.default_rng(seed)   # bounded, skewed, system x topic dependent: nothing like the normal model
    x = (rng.beta(0.5, 3, (ns, 1)) * rng.beta(0.7, 1.5, (1, nt)) * 3 + 0.5 * rng.beta(1, 4, (ns, 1))
         + rng.exponential(0.1, (ns, nt)))
    return np.clip(x, 0, 1)


def _components(x):
    vc = gtheory.variance_components(x)   # unclipped ANOVA estimates (a draw may repeat one cell: no gstudy)
    return np.array([vc.system, vc.topic, vc.residual])


def test_truth_without_replacement_is_the_population_gstudy():
    x = _skewed(9, 7)
    g = gtheory.gstudy(x)
    t = cr.population_truth(x, replace=False, n_topics=50, target=0.95)
    np.testing.assert_allclose(t[:3], [g.var_system, g.var_topic, g.var_residual], rtol=1e-12)
    np.testing.assert_allclose(t[3:5], [g.phi(50), g.erho2(50)], rtol=1e-12)
    assert t[5] == topics_needed_for_ratio(g.phi_ratio, 0.95)


@pytest.mark.parametrize("replace", [False, True])
def test_truth_is_the_mean_of_every_subsample_estimate(replace):
    # exact expectation over every sample: 5C3 x 4C3 = 40 subsamples, or 4^2 x 3^2 = 144 ordered draws
    x = _skewed()
    if replace:
        draws = itertools.product(itertools.product(range(4), repeat=2), itertools.product(range(3), repeat=2))
        x = x[:4, :3]
    else:
        draws = itertools.product(itertools.combinations(range(5), 3), itertools.combinations(range(4), 3))
    est = np.mean([_components(x[np.ix_(r, c)]) for r, c in draws], axis=0)
    truth = cr.population_truth(x, replace=replace)
    assert np.all(truth[:3] > 0)   # no component clipped at 0: the comparison is of the estimators' expectations
    np.testing.assert_allclose(est, truth[:3], rtol=1e-10, atol=1e-14)
    if replace:   # with replacement the target differs from the population's own ANOVA estimates
        assert not np.allclose(est, _components(x))


def test_coverage_core_on_real_scores():
    x = cr.load_population("robust2004_ap", shared("score-matrices", "sigir2018-simulation"))
    assert x.shape == (110, 249)
    for replace in (False, True):
        c = cr.coverage(x, 8, 10, n_samples=12, B=50, seed=5, replace=replace)
        for k in (*cr.KINDS, "basic_below", "basic_above"):
            assert c[k].shape == (6,) and np.all((c[k] >= 0) & (c[k] <= 1)), (k, c[k])
            np.testing.assert_allclose(c[k] * 12, np.round(c[k] * 12))   # shares of 12 samples
        np.testing.assert_allclose(c["basic"] + c["basic_below"] + c["basic_above"], 1.0)
        assert np.all(c["basic"] >= 0.25), c["basic"]                      # not degenerate intervals
        np.testing.assert_array_equal(c["truth"], cr.population_truth(x, replace))
    g = gtheory.gstudy(x)
    assert c["truth"][2] == pytest.approx(g.var_residual * 109 * 248 / (110 * 249), rel=1e-12)
    again = cr.coverage(x, 8, 10, n_samples=12, B=50, seed=5, replace=True)
    for k in cr.KINDS:
        np.testing.assert_array_equal(again[k], c[k])                   # seeded


def test_coverage_refuses_a_sample_larger_than_the_population():
    with pytest.raises(ValueError, match="without replacement"):
        cr.coverage(_skewed(), 6, 3, n_samples=2, B=10, seed=0)
    assert math.isfinite(cr.population_truth(_skewed())[5])


def test_trec9_population_is_the_package_ndcg20(embedded_trec9):
    import metrics

    x = cr.load_population("trec9:ndcg20")
    assert x.shape == (104, 50)
    np.testing.assert_array_equal(x, metrics.ndcg(embedded_trec9, cutoff=20).to_numpy())
    with pytest.raises(FileNotFoundError, match="no_such_matrix.csv"):
        cr.load_population("no_such_matrix", shared("score-matrices", "sigir2018-simulation"))
