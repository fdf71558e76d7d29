"""Tests of gtheory.gstudy.bootstrap_result (BootstrapResult): the same seed gives the same result, which
round-trips through strict JSON (topics never reached written as null), and its percentile interval is the
type-7 quantile of the replicates, by hand."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import gtheory
from gtheory import BootstrapResult, gstudy


def _matrix(ns=8, nt=6, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(0, 0.3, (ns, 1)) + rng.normal(0, 0.5, (1, nt)) + rng.normal(0, 0.4, (ns, nt))


def test_same_seed_same_result_and_json_round_trip(tmp_path):
    g = gstudy(_matrix(12, 10))
    a = g.bootstrap(n_resamples=200, over="both", seed=5)
    b = g.bootstrap(n_resamples=200, over="both", seed=5)
    assert a == b and np.array_equal(a.replicates, b.replicates)
    assert g.bootstrap(n_resamples=200, over="both", seed=6) != a
    text = a.to_json(tmp_path / "boot.json")
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    assert BootstrapResult.from_json(tmp_path / "boot.json") == a
    assert "boot-p,i" in a.summary() and "Φ" in a.summary() and repr(a).startswith("BootstrapResult(")
    k = a.quantities.index("phi")
    lo, hi = a.interval("phi")
    assert 0.0 <= lo < a.estimate[k] < hi <= 1.0  # Φ is a share of variance: its interval stays in [0, 1]
    # the percentile interval, by hand: Hyndman & Fan's type 7 between the sorted Φ replicates (level 0.95)
    reps = np.sort(a.replicates[:, k])

    def quantile(p):
        h = (len(reps) - 1) * p
        i = int(h)
        return reps[i] + (h - i) * (reps[i + 1] - reps[i])

    assert a.interval("phi", "percentile") == pytest.approx((quantile(0.025), quantile(0.975)), rel=1e-12)
    ax = a.plot()
    assert ax.get_xlabel() == "Φ"


def test_infinite_topics_needed_written_as_null():
    # a matrix where σ²(system) is estimated ≤ 0 in many replicates: topics needed = inf there
    x = np.random.default_rng(0).normal(size=(6, 30))
    with pytest.warns(gtheory.NegativeVarianceWarning):
        g = gstudy(x)
    b = g.bootstrap(n_resamples=100, over="systems", seed=1)
    k = b.quantities.index("topics_needed")
    assert b.estimate[k] == math.inf
    d = json.loads(b.to_json())
    assert d["estimate"][k] is None
    assert BootstrapResult.from_json(b.to_json()).estimate[k] == math.inf
