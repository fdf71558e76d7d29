"""Tier 1 of optimize.recommend (optimize.recommend.fixed): the paired topic bootstrap of the Φ(1) difference of the
fixed configurations against the baseline on all topics, Bonferroni over the standards."""
from __future__ import annotations

import numpy as np
import pytest

import gtheory
from optimize.solvers._ratio import RatioModel
from optimize.recommend.candidates import _standard_candidates
from optimize.recommend.fixed import fixed_decision, resampled_phi, topic_counts, topic_resamples


@pytest.fixture(scope="module")
def dl19_discount100(dl19):
    model = RatioModel(dl19.judged, 100, "discount")
    cands = _standard_candidates(model, "discount", "linear", "log2")
    return model.scores(np.stack([c.fit(None)[0] for c in cands])), [c.name for c in cands]


def test_resampled_phi_is_the_gstudy_of_the_resampled_matrix(dl19_discount100):
    # the count formula against gtheory.gstudy of the explicitly resampled (duplicated-column) matrices
    X, _ = dl19_discount100
    idx = topic_resamples(X.shape[2], 5, np.random.default_rng(3))
    phi = resampled_phi(X, idx)
    for c in range(X.shape[0]):
        for b in range(idx.shape[0]):
            assert phi[c, b] == pytest.approx(gtheory.gstudy(X[c][:, idx[b]]).phi(1), abs=1e-12)
    np.testing.assert_array_equal(topic_counts(idx, X.shape[2]).sum(axis=1), X.shape[2])


def test_the_decision_reads_its_bootstrap_quantiles(dl19_discount100):
    X, names = dl19_discount100
    idx = topic_resamples(X.shape[2], 4000, np.random.default_rng(0))
    d = fixed_decision(X, names, idx=idx)
    boot = resampled_phi(X, idx)
    db = boot[1:] - boot[0]
    assert d.alpha == pytest.approx(0.025) and d.m == 2  # lower end of the 95 % interval, Bonferroni over 2
    np.testing.assert_allclose(d.lo[1:], np.quantile(db, 0.0125, axis=1), atol=0)
    np.testing.assert_allclose(d.diff[1:], resampled_phi(X, np.arange(X.shape[2])[None])[1:, 0]
                               - resampled_phi(X, np.arange(X.shape[2])[None])[0, 0], atol=1e-15)
    assert d.adopt == bool(np.any((d.lo[1:] > 0) & (d.diff[1:] > 0)))
    # the same seed gives the same decision; the bound moves only by Monte Carlo error with another seed
    again = fixed_decision(X, names, rng=5)
    other = fixed_decision(X, names, rng=6)
    np.testing.assert_array_equal(again.lo, fixed_decision(X, names, rng=5).lo)
    assert np.nanmax(np.abs(again.lo - other.lo)) < 0.01


def test_a_copy_of_the_baseline_never_switches_and_a_clear_gain_does(dl19_discount100):
    X, names = dl19_discount100
    same = np.stack([X[0], X[0], X[2]])
    d = fixed_decision(same, names, rng=0)
    assert d.diff[1] == 0 and not d.lo[1] > 0 and d.index != 1
    # the baseline's scores with noise added per system on every topic: Φ(1) falls; swapped roles, it rises clearly
    rng = np.random.default_rng(1)
    noisy = np.clip(X[0] + rng.normal(0, 0.3, X[0].shape), 0, 1)
    d = fixed_decision(np.stack([noisy, X[0]]), ["noisy", "clean"], rng=0)
    assert d.index == 1 and d.lo[1] > 0 and d.share[1] > 0.99
