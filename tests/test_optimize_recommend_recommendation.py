"""Tests of optimize/recommend/recommendation.py: the Recommendation result (views, presentation, strict JSON and its
refusals). The procedure that fills it, optimize.recommend, is tested in test_optimize_recommend_recommend.py."""
from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pytest

import metrics
import optimize


@pytest.fixture(scope="module")
def judged(embedded_trec9):
    # 13 systems x 24 topics of TREC-9: enough for a nested cross-validation of two splits, a few seconds
    return embedded_trec9.subset(systems=range(0, 104, 8), topics=range(24))


@pytest.fixture(scope="module")
def small_rec(judged):
    return optimize.recommend(judged, cutoff=10, n_splits=2, n_inner=2, n_seeds=1, seed=0, progress=False)


def test_recommendation_protocol(small_rec, tmp_path, judged):
    r = small_rec
    assert "Recommendation(" in repr(r) and r.verdict in r.summary()
    assert "<table" in r._repr_html_() and r._repr_html_().count("<tr>") == len(r.table) + 1
    text = r.to_json()
    json.loads(text)  # strict JSON
    assert "NaN" not in text and "Infinity" not in text
    back = optimize.Recommendation.from_json(text)
    assert back.verdict == r.verdict and back.choice == r.choice
    assert back.table.equals(r.table.astype(back.table.dtypes.to_dict()))
    np.testing.assert_array_equal(back.discount, r.discount)
    path = tmp_path / "rec.json"
    r.to_json(path)
    t = optimize.Tuning.from_json(path)  # what `gtheory evaluate --tuning` reads
    np.testing.assert_allclose(t.ndcg(judged).to_numpy(), r.ndcg(judged).to_numpy())
    d = json.loads(path.read_text())
    nd = metrics.ndcg(judged, gain=dict(zip(d["levels"], d["gain"])), discount=d["discount"], cutoff=d["cutoff"])
    np.testing.assert_allclose(nd.to_numpy(), r.ndcg(judged).to_numpy())
    for key, value, match in (("what", "both", "'what' must be"), ("adopt", "yes", "'adopt' must be"),
                              ("table", {}, "'table' must be a list"), ("format", "x", "missing 'format'")):
        with pytest.raises(ValueError, match=match):
            optimize.Recommendation.from_json(json.dumps({**json.loads(text), key: value}))
    import matplotlib

    matplotlib.use("Agg")
    ax = r.plot()
    assert len(ax.get_yticklabels()) == len(r.table)


def test_keeping_evaluates_the_baseline_itself_and_adopting_the_tuning(small_rec, judged):
    r = small_rec
    assert not r.adopt and r.choice == "log2" and r.base_gain == "linear" and r.base_discount == "log2"
    # keep: metrics.ndcg of the baseline, bit for bit (not the tuning's normalised vectors)
    ref = metrics.ndcg(judged, gain="linear", discount="log2", cutoff=10)
    assert r.ndcg(judged).equals(ref)
    assert r.ndcg(judged, cutoff=5).equals(metrics.ndcg(judged, gain="linear", discount="log2", cutoff=5))
    # adopt: the tuning's vectors
    adopted = replace(r, adopt=True)
    np.testing.assert_array_equal(adopted.ndcg(judged).to_numpy(), r.tuning.ndcg(judged).to_numpy())
    assert r.gain is r.tuning.gain and r.discount is r.tuning.discount


def test_the_document_gives_the_configuration_to_use_at_the_top_level(small_rec):
    d = small_rec.to_dict()
    assert d["cutoff"] == 10 and d["levels"] == [0.0, 1.0, 2.0]
    # kept baseline: linear gains, log2 discount 1/log2(r + 1), up to scale (nDCG is scale-free in each)
    g, disc = np.array(d["gain"]), np.array(d["discount"])
    np.testing.assert_allclose(g / g[-1], [0.0, 0.5, 1.0], atol=1e-15)
    r = np.arange(1, 11)
    np.testing.assert_allclose(disc / disc[0], 1 / np.log2(r + 1), rtol=1e-12)


def test_non_finite_numbers_are_null_and_read_back_as_nan(small_rec):
    r = replace(small_rec, procedure_diff=math.nan, diff_hi=math.inf)
    text = r.to_json()
    d = json.loads(text)  # strict: no NaN/Infinity tokens
    assert d["procedure_diff"] is None and d["diff_hi"] is None
    back = optimize.Recommendation.from_json(text)
    assert math.isnan(back.procedure_diff) and math.isnan(back.diff_hi)
    for k in ("what", "cutoff", "adopt", "choice", "label", "kind", "baseline", "decided", "measure", "n_seeds",
              "seed_decisions", "agreement", "n_splits", "n_inner", "seed"):
        assert getattr(back, k) == getattr(r, k), k


@pytest.mark.parametrize("change, message", [
    ({"cutoff": 0}, "field 'cutoff' must be an integer >= 1; got int 0"),
    ({"cutoff": True}, "field 'cutoff' must be an integer >= 1; got bool True"),
    ({"verdict": 3}, "field 'verdict' must be a string; got int 3"),
    ({"outer": [1, 2]}, "field 'outer' must be a list of records"),
    ({"table": [{"kind": "baseline"}]}, "field 'table' must give each row's 'candidate'"),
    ({"tuning": []}, "field 'tuning' must be an object"),
    ({"diff": "0.1"}, "field 'diff' must be a finite number; got str '0.1'"),
    ({"topics_to_decide": "many"}, "field 'topics_to_decide' must be a finite number; got str 'many'"),
    ({"procedure_lo": False}, "field 'procedure_lo' must be a finite number; got bool False"),
])
def test_invalid_documents_are_refused_naming_the_field(small_rec, change, message):
    from gtheory.kit.errors import DocumentError

    d = {**json.loads(small_rec.to_json()), **change}
    with pytest.raises(DocumentError, match=f"not a valid gtheory.optimize.Recommendation/1 document: {message}") as e:
        optimize.Recommendation.from_json(json.dumps(d))
    assert e.value.field == next(iter(change))


def test_incomplete_documents_name_what_is_missing(small_rec):
    d = json.loads(small_rec.to_json())
    for k in ("outer", "verdict"):
        d.pop(k)
    with pytest.raises(ValueError, match="field 'verdict' is missing"):
        optimize.Recommendation.from_json(json.dumps(d))


def test_summary_lists_every_candidate_and_the_plot_marks_the_choice(small_rec):
    import matplotlib

    matplotlib.use("Agg")
    r = small_rec
    text = r.summary()
    assert str(r) == text and f"verdict: {r.verdict}" in text
    assert f"{r.n_systems} systems x {r.n_topics} topics" in text
    for name in r.table.index:
        assert any(line.strip().startswith(name) for line in text.splitlines()), name
    ax = r.plot()
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == list(r.table.index[::-1])  # first candidate (the baseline) at the top
    assert ax.get_title().endswith("keep " + r.choice)
