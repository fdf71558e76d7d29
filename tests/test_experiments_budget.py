"""experiments.topic_depth_budget (experiments/budget.py): the depth-d pool equals a set computation over the runs'
top-d documents; each row equals the G-study and topic set size of the scores under that pool."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import experiments
import gtheory
import metrics
from experiments.budget import TopicBudget, pool_mask, topic_depth_budget


@pytest.fixture(scope="module")
def judged() -> metrics.JudgedRuns:
    j = metrics.load_trec9()
    return j.subset(systems=list(j.systems[:15]), topics=list(j.topics[:12]))


def test_pool_mask_is_the_union_of_the_top_d(judged):
    for d in (1, 5, 20):
        keep = pool_mask(judged, d)
        for t in range(judged.n_topics):
            ids = judged.doc_ids[:, t, :d]
            pooled = set(ids[ids >= 0].tolist())  # judged documents some run returned at rank <= d
            lo, hi = judged.qrels_offsets[t], judged.qrels_offsets[t + 1]
            assert set(np.flatnonzero(keep[lo:hi]).tolist()) == pooled
    assert np.all(pool_mask(judged, 5) <= pool_mask(judged, 20))  # nested pools


def test_rows_equal_the_studies_under_each_pool(judged):
    b = topic_depth_budget(judged, "nDCG@10", depths=[5, 20], min_diff=0.1, target=0.9)
    for row in b.table.itertuples(index=False):
        keep = pool_mask(judged, row.depth)
        scores = metrics.evaluate(judged.restrict_judgments(keep), "nDCG@10")
        g = gtheory.gstudy(scores)
        assert row.judged_per_topic == keep.sum() / judged.n_topics
        assert row.var_residual == pytest.approx(g.var_residual, rel=1e-12)
        assert row.phi_topics == g.topics_needed(0.9, "phi", level=None).n
        assert row.paired_t_topics == gtheory.topic_set_size(scores, method="paired-t", min_diff=0.1).n
        assert row.phi_cost == pytest.approx(row.phi_topics * row.judged_per_topic)
        assert 0 < row.coverage <= 1
    c = b.cheapest("phi")
    assert c["cost"] == b.table["phi_cost"].min() and c["depth"] in (5, 20)


def test_protocol_and_errors(judged, tmp_path):
    b = topic_depth_budget(judged, "P@10", depths=[10, 30])
    text = b.to_json(tmp_path / "b.json")
    json.loads(text)
    assert TopicBudget.from_json(tmp_path / "b.json") == b
    assert "cheapest for Φ" in b.summary() and repr(b).startswith("TopicBudget(") and "<table" in b._repr_html_()
    import matplotlib

    matplotlib.use("Agg")
    assert b.plot().has_data()
    with pytest.raises(gtheory.ParameterError) as e:
        topic_depth_budget(judged, depths=[0])
    assert e.value.param == "depths"
    with pytest.raises(gtheory.ParameterError):
        b.cheapest("anova")
    assert experiments.topic_depth_budget is topic_depth_budget
