"""Tests of experiments/study.py: the short tuning study of ``gtheory demo`` (DemoStudy) against independent
computations (the two-way ANOVA by hand on metrics.ndcg, scipy's Kendall τ), its parameter checks and result
protocol."""
from __future__ import annotations

import json
import math
import re
from dataclasses import replace

import numpy as np
import pytest
import scipy.stats

import gtheory
import metrics
from experiments.study import DEMO_ROW_KEYS, DemoStudy, check_demo_parameters, demo_study
from tiny_collection import components_by_hand  # noqa: E402


@pytest.fixture(scope="module")
def small(embedded_trec9):
    # 6 topics: below the 8 that the nested cross-validation of the verdict needs, so the study is quick
    return embedded_trec9.subset(systems=range(0, 104, 8), topics=range(6))


@pytest.fixture(scope="module")
def study(small):
    said = []
    s = demo_study(small, cutoff=10, n_splits=2, seed=1, progress=said.append)
    return s, said


def test_rows_of_the_standard_discounts_by_hand(small, study):
    s, _ = study
    assert [r["configuration"] for r in s.rows] == ["zipf discount", "linear discount", "log2 discount",
                                                    "tuned discount", "tuned gain (log2)"]
    assert all(tuple(r) == DEMO_ROW_KEYS for r in s.rows)
    log2_means = metrics.ndcg(small, gain=[0.0, 1.0, 2.0], discount="log2", cutoff=10).to_numpy().mean(axis=1)
    for r in s.rows[:3]:
        X = metrics.ndcg(small, gain=[0.0, 1.0, 2.0], discount=r["configuration"].split()[0], cutoff=10).to_numpy()
        vs, vt, ve = components_by_hand(X, clip=True)
        # rounding of the same sums in another order: ~1e-16 on values ~0.01-0.1
        assert r["var_system"] == pytest.approx(vs, abs=1e-14) and r["var_residual"] == pytest.approx(ve, abs=1e-14)
        assert r["phi"] == pytest.approx(vs / (vs + (vt + ve) / 6), abs=1e-12)
        assert r["erho2"] == pytest.approx(vs / (vs + ve / 6), abs=1e-12)
        need = next((n for n in range(1, 10 ** 6) if vs / (vs + (vt + ve) / n) >= 0.95), math.inf)
        assert r["topics_needed"] == need
        tau = scipy.stats.kendalltau(X.mean(axis=1), log2_means).statistic
        assert r["kendall_tau_vs_log2"] == pytest.approx(tau, abs=1e-12)
        assert r["converged"] is None
    assert s.rows[2]["kendall_tau_vs_log2"] == 1.0
    # the tuned discount maximises Φ: in sample at least as stable as every standard discount
    assert s.rows[3]["phi"] >= max(r["phi"] for r in s.rows[:3]) - 1e-9 and s.rows[3]["converged"] in (True, False)
    assert s.verdict is None and s.recommended is None  # fewer than 8 topics: no nested cross-validation


def test_out_of_sample_summary_and_progress(study):
    s, said = study
    oos = s.out_of_sample
    assert oos["n_splits"] == 2 and oos["n_test_topics"] == 3
    assert set(oos["phi_mean"]) >= {"tuned", "log2"} and 0 <= oos["tuned_beats_log2"] <= 2
    assert said[0].startswith("data: ") and any(m.startswith("4. Out of sample") for m in said)
    # relative to grade 1 (module docstring): grade 1 is 1, the monotone tuned gain of grade 2 at least that
    assert set(s.tuned_gain_ratios) == {"1", "2"} and s.tuned_gain_ratios["1"] == pytest.approx(1.0, abs=1e-12)
    assert s.tuned_gain_ratios["2"] >= 1.0 - 1e-9


def test_json_round_trip_with_an_unreachable_target(study, tmp_path):
    s, _ = study
    rows = (dict(s.rows[0], topics_needed=math.inf),) + s.rows[1:]
    u = replace(s, rows=rows)
    d = json.loads(u.to_json())
    assert d["rows"][0]["topics_needed"] is None and d["format"] == DemoStudy.JSON_FORMAT
    path = tmp_path / "demo.json"
    u.to_json(path)
    back = DemoStudy.from_json(path)
    assert back.rows[0]["topics_needed"] == math.inf and back.rows[1:] == u.rows[1:]
    assert (back.cutoff, back.n_topics, back.out_of_sample["n_splits"]) == (10, 6, 2)
    lines = back.summary().splitlines()
    first_row = lines[lines.index(next(ln for ln in lines if ln.startswith("-" * 20))) + 1]  # the row under the rule
    assert first_row.startswith(back.rows[0]["configuration"]) and "inf" in first_row


def test_summary_repr_and_plot(study):
    import matplotlib

    matplotlib.use("Agg")
    s, _ = study
    text = s.summary()
    assert text.startswith("nDCG@10, 13 systems x n = 6 topics   (Φ target 0.95)")
    for r in s.rows:
        assert any(line.startswith(r["configuration"]) for line in text.splitlines())
    best = max(s.rows, key=lambda r: r["phi"])
    assert f"most stable: {best['configuration']}" in repr(s)
    ax = s.plot()
    assert [t.get_text() for t in ax.get_yticklabels()] == [r["configuration"] for r in s.rows[::-1]]
    matplotlib.pyplot.close("all")


@pytest.mark.parametrize("args, kwargs, param, message", [
    ((0, 0.95, 2), {}, "cutoff", "`cutoff` must be an integer >= 1; got 0"),
    ((True, 0.95, 2), {}, "cutoff", "`cutoff` must be an integer >= 1; got bool True"),
    ((10, 1.0, 2), {}, "target", "`target` must be a probability strictly in (0, 1); got 1.0"),
    ((10, 0.9, 0), {}, "n_splits", "`n_splits` must be an integer >= 1; got 0"),
    ((10, 0.9, 2), {"depth": 5}, "cutoff", "`cutoff` 10 exceeds the run depth 5; give a cut-off of at most 5."),
])
def test_check_demo_parameters(args, kwargs, param, message):
    with pytest.raises(gtheory.ParameterError, match=re.escape(message)) as exc:
        check_demo_parameters(*args, **kwargs)
    assert exc.value.param == param


def test_demo_study_checks_before_any_work(small, monkeypatch):
    import optimize

    monkeypatch.setattr(optimize, "optimize_discount", lambda *a, **k: pytest.fail("tuned before the check"))
    with pytest.raises(gtheory.ParameterError, match="exceeds the run depth"):
        demo_study(small, cutoff=small.depth + 1)
    assert np.isfinite(small.depth)
