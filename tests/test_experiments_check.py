"""Tests of experiments/check.py: check_configurations against independent computations (the two-way ANOVA by
hand, scipy's Kendall τ, RMSE of the means), parse_configuration, check_tuning and the ConfigurationCheck result."""
from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd
import pytest
import scipy.stats

import gtheory
import metrics
import optimize
from experiments.check import ConfigurationCheck, check_configurations, check_tuning, parse_configuration
from tiny_collection import phi_n_by_hand  # noqa: E402


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(0)
    base = rng.random((8, 20)) * 0.5 + np.linspace(0.4, 0, 8)[:, None]
    noisy = base + rng.normal(0, 0.2, base.shape)
    configs = {"a": pd.DataFrame(base), "b": pd.DataFrame(base ** 2), "c": pd.DataFrame(noisy)}
    return configs, check_configurations(configs, "a", top_k=6, n_resamples=200, seed=1)


def test_check_configurations_against_independent_computations(table):
    configs, t = table
    assert list(t.index) == ["a", "b", "c"]
    for name, X in configs.items():
        x = X.to_numpy()
        r = t.loc[name]
        assert r["phi"] == pytest.approx(phi_n_by_hand(x, 20), abs=1e-12)
        ref_means, means = configs["a"].to_numpy().mean(axis=1), x.mean(axis=1)
        assert r["kendall_tau"] == pytest.approx(scipy.stats.kendalltau(ref_means, means).statistic, abs=1e-12)
        assert r["rmse"] == pytest.approx(np.sqrt(np.mean((ref_means - means) ** 2)), abs=1e-15)
        assert r["mean"] == pytest.approx(x.mean(), abs=1e-15)
        assert r["n_pairs"] == 6 * 5 // 2 and r["power"] == pytest.approx(r["n_significant"] / r["n_pairs"])
        assert r["swap_topics"] == 10  # half the topics
    # against itself: τ = τ_AP = 1 and RMSE 0 up to the rounding of two ways of taking the same means
    assert t.loc["a", "kendall_tau"] == 1.0 and t.loc["a", "rmse"] < 1e-15 and t.loc["a", "tau_ap"] == 1.0
    assert t.loc["b", "kendall_tau"] == 1.0  # squaring keeps the order of positive means


def test_check_configurations_reports_progress():
    X = pd.DataFrame(np.random.default_rng(2).random((4, 6)) + np.arange(4)[:, None])
    said = []
    check_configurations({"x": X, "y": X * 2}, "x", n_resamples=20, progress=said.append)
    assert said == ["[1/2] x: G-study, τ, bootstrap (B=20), swap method",
                    "[2/2] y: G-study, τ, bootstrap (B=20), swap method"]


@pytest.mark.parametrize("spec, expected", [("log2", ("linear", "log2")),
                                            ("exponential+zipf", ("exponential", "zipf")),
                                            (" exponential + rbp(p=0.8) ", ("exponential", "rbp(p=0.8)"))])
def test_parse_configuration(spec, expected):
    assert parse_configuration(spec) == expected


@pytest.mark.parametrize("spec", ["", "a+b+c", 3, None])
def test_parse_configuration_refusals(spec):
    with pytest.raises(gtheory.ParameterError, match=re.escape("`against` entries are DISCOUNT or GAIN+DISCOUNT")) \
            as exc:
        parse_configuration(spec)
    assert exc.value.param == "against"


@pytest.fixture(scope="module")
def small(embedded_trec9):
    return embedded_trec9.subset(systems=range(0, 104, 8), topics=range(20))


@pytest.fixture(scope="module")
def checked(small):
    t = optimize.optimize_discount(small, gain="linear", cutoff=10, starts=1)
    return t, check_tuning(small, t, against=("log2", "exponential+zipf"), n_resamples=100, top_k=8)


def test_check_tuning_rows_are_the_configurations_ndcg(small, checked):
    t, c = checked
    assert list(c.table.index) == ["tuned discount", "log2", "exponential+zipf"] and c.reference == "tuned discount"
    for name, X in (("tuned discount", t.ndcg(small)),
                    ("log2", metrics.ndcg(small, gain="linear", discount="log2", cutoff=10)),
                    ("exponential+zipf", metrics.ndcg(small, gain="exponential", discount="zipf", cutoff=10))):
        assert c.table.loc[name, "phi"] == pytest.approx(phi_n_by_hand(X.to_numpy(), 20), abs=1e-12)
    assert (c.cutoff, c.n_systems, c.n_topics, c.top_k, c.n_resamples) == (10, 13, 20, 8, 100)
    # the reference's gains: linear (grade 0 gains 0, grade 2 twice grade 1), whatever their scale
    assert set(c.gain) == {"0", "1", "2"} and c.gain["0"] == 0.0
    assert c.gain["2"] == pytest.approx(2 * c.gain["1"], rel=1e-12)


@pytest.mark.parametrize("kwargs, param, message", [
    (dict(cutoff=2000), "cutoff", "`cutoff` 2000 exceeds the run depth"),
    (dict(cutoff=20), "cutoff", "`cutoff` 20 exceeds the tuning's discount length 10"),
    (dict(against=("rbp(p=2)",)), "against", "`against` 'rbp(p=2)':"),
])
def test_check_tuning_refusals_name_the_parameter(small, checked, kwargs, param, message):
    t, _ = checked
    with pytest.raises(gtheory.ParameterError, match=re.escape(message)) as exc:
        check_tuning(small, t, **{"n_resamples": 10, **kwargs})
    assert exc.value.param == param


def test_configuration_check_json_round_trip(checked, tmp_path):
    _, c = checked
    path = tmp_path / "c.json"
    c.to_json(path)
    back = ConfigurationCheck.from_json(path)
    assert back == c
    d = json.loads(path.read_text())
    assert d["format"] == ConfigurationCheck.JSON_FORMAT
    assert all(isinstance(r["n_pairs"], int) for r in d["configurations"])  # counts are integers
    # a topics_needed no number of topics reaches is written as null and read back as inf
    inf = ConfigurationCheck(**{**{f: getattr(c, f) for f in ("reference", "cutoff", "n_systems", "n_topics", "top_k",
                                                               "n_resamples", "alpha", "seed", "gain")},
                                "table": c.table.assign(topics_needed=math.inf)})
    d = json.loads(inf.to_json())
    assert all(r["topics_needed"] is None for r in d["configurations"])
    assert (ConfigurationCheck.from_json(inf.to_json()).table["topics_needed"] == math.inf).all()


def test_summary_lists_every_configuration(checked):
    _, c = checked
    text = c.summary()
    assert text.startswith("nDCG@10: 13 systems x 20 topics; agreement with 'tuned discount'")
    for name in c.table.index:
        assert any(line.startswith(name) for line in text.splitlines())
    assert repr(c) == "ConfigurationCheck(nDCG@10, 13 systems × 20 topics; 3 configurations against 'tuned discount')"
