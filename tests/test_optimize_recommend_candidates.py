"""Tests of optimize/recommend/candidates.py: what recommend chooses among. Reference: metrics' own gain and discount vectors
(the standard configurations must be exactly those, normalised), and the family fits' definitions."""
from __future__ import annotations

import numpy as np
import pytest

import metrics
from optimize.solvers._ratio import RatioModel
from optimize.recommend.candidates import LAMBDAS, _candidates


@pytest.fixture(scope="module")
def small(embedded_trec9):
    j = embedded_trec9
    return j.subset(systems=range(0, 104, 8))


def test_the_baseline_comes_first_and_the_standards_are_metrics_vectors(small):
    model = RatioModel(small, 10, "discount", gain="linear", discount="log2")
    cands = _candidates(model, "discount", "phi", "linear", "log2", LAMBDAS, ("rbp",), "ridge")
    assert cands[0].name == "log2" and cands[0].kind == "baseline" and cands[0].complexity == 0
    for c in cands:
        if c.kind in ("baseline", "standard"):
            x, label = c.fit(None)
            want = np.asarray(metrics.discount_vector(c.name, 10, cutoff=10), dtype=float)
            np.testing.assert_allclose(x, want / want.sum(), rtol=1e-15, atol=0)
    kinds = [c.kind for c in cands]
    assert kinds.index("family") > kinds.index("standard") and kinds[-1] == "regularised"
    assert sorted(c.complexity for c in cands) == [c.complexity for c in cands]  # simplest first


def test_a_family_fit_is_a_member_of_its_family(small):
    model = RatioModel(small, 10, "discount", gain="linear", discount="log2")
    cands = _candidates(model, "discount", "phi", "linear", "log2", (), ("rbp",), "ridge")
    rbp = next(c for c in cands if c.kind == "family")
    x, label = rbp.fit(np.arange(small.n_topics))
    (p,) = rbp.thetas[b"all"].values()  # the fitted parameter, unrounded (the label shows 4 digits)
    assert label.startswith("rbp(p=")
    want = np.asarray(metrics.discount_vector(f"rbp(p={p!r})", 10, cutoff=10), dtype=float)
    np.testing.assert_allclose(x, want / want.sum(), rtol=1e-6)
