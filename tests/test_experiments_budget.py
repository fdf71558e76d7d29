"""experiments.topic_depth_budget (experiments/budget.py): the depth-d pool equals a set computation over the runs'
top-d documents; each row equals the G-study and topic set size of the scores under that pool."""
from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

import experiments
import gtheory
import metrics
from experiments.budget import TopicBudget, pool_mask, topic_depth_budget


@pytest.fixture(scope="module")
def judged(embedded_trec9) -> metrics.JudgedRuns:
    j = embedded_trec9
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


def test_bootstrap_interval_and_cheapest_share(judged):
    with warnings.catch_warnings():
        # the library calls its own current API: a positional g.bootstrap(B) warned once per depth on stderr
        warnings.simplefilter("error", FutureWarning)
        b = topic_depth_budget(judged, "nDCG@10", depths=[5, 20, 50], target=0.8, bootstrap=200, seed=3)
    t = b.table
    assert b.bootstrap == 200 and b.seed == 3
    assert np.all(t["phi_topics_low"] <= t["phi_topics_high"])
    # each resample is the same systems and topics at every depth, so exactly one depth is cheapest in each one that
    # reaches the target somewhere: the shares are shares of one partition of the resamples
    assert np.all((t["phi_cheapest_share"] >= 0) & (t["phi_cheapest_share"] <= 1))
    assert t["phi_cheapest_share"].sum() == pytest.approx(1.0, abs=1e-12)
    # the interval is the Φ interval of each depth's own G-study bootstrap with the same seed
    for row in t.itertuples(index=False):
        scores = metrics.evaluate(judged.restrict_judgments(pool_mask(judged, row.depth)), "nDCG@10")
        lo, hi = gtheory.gstudy(scores).bootstrap(n_resamples=200, over="both", seed=3, target=0.8).interval("topics_needed")
        assert (row.phi_topics_low, row.phi_topics_high) == (lo, hi)
    assert topic_depth_budget(judged, "nDCG@10", depths=[5, 20, 50], target=0.8, bootstrap=200, seed=3) == b
    no = topic_depth_budget(judged, "nDCG@10", depths=[5, 20], target=0.8)
    assert no.seed is None and no.table["phi_topics_low"].isna().all() and no.table["phi_cheapest_share"].isna().all()
    assert TopicBudget.from_json(b.to_json()) == b and TopicBudget.from_json(no.to_json()) == no
    assert "cheapest in" in b.summary() and "cheapest in" not in no.summary()
    with pytest.raises(ValueError, match="bootstrap"):
        topic_depth_budget(judged, depths=[5], bootstrap=3)


@pytest.mark.parametrize("kind", ["thread", "process"])
def test_an_executor_gives_the_same_result(judged, kind):
    # one task per depth, each a pure function of the tensor, the depth and the seed: identical results (== is exact)
    from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

    kw = dict(depths=[5, 20], target=0.8, bootstrap=50, seed=7)
    alone = topic_depth_budget(judged, "nDCG@10", **kw)
    with (ThreadPoolExecutor(2) if kind == "thread" else ProcessPoolExecutor(2)) as pool:
        assert topic_depth_budget(judged, "nDCG@10", executor=pool, **kw) == alone
    assert topic_depth_budget(judged, "nDCG@10", **{**kw, "seed": 8}) != alone  # the comparison can fail
    with pytest.raises(TypeError, match="executor"):
        topic_depth_budget(judged, depths=[5], executor="pool")


@pytest.mark.parametrize("kw,param", [
    (dict(min_diff=0), "min_diff"), (dict(min_diff=-0.05), "min_diff"), (dict(min_diff=math.nan), "min_diff"),
    (dict(min_diff="0.05"), "min_diff"), (dict(min_diff=None), "min_diff"), (dict(min_diff=math.inf), "min_diff"),
    (dict(power=0.04, alpha=0.05), "power"), (dict(power=0.05, alpha=0.05), "power"),
    (dict(depths=[2.5]), "depths"), (dict(depths=[True]), "depths"), (dict(depths=[]), "depths"),
    (dict(depths=[0, 5]), "depths"), (dict(depths=["5"]), "depths"), (dict(depths=[10**6]), "depths"),
])
def test_bad_requirements_are_refused_up_front_naming_the_parameter(judged, kw, param):
    # regression (issue 34, class 9): these returned paired-t topics = inf, ran at a truncated depth (2.5 -> 2,
    # True -> 1), or failed with a TypeError after all the work; now the one rule of the parameter table (the
    # command line's too) refuses them before any depth is evaluated
    seen = []
    with pytest.raises(gtheory.ParameterError) as e:
        topic_depth_budget(judged, "nDCG@10", **{"depths": [5], **kw}, progress=seen.append)
    assert e.value.param == param and f"`{param}`" in str(e.value)
    assert not seen  # nothing ran


def test_the_api_and_the_command_line_share_one_rule(judged):
    # the same values are refused by `gtheory budget` before any run is read, naming the option
    import argparse

    from experiments.cli import UsageError
    from experiments.cli.budget import _validate, register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    for argv, option in ((["--min-diff", "0"], "--min-diff"), (["--min-diff", "nan"], "--min-diff"),
                         (["--power", "0.04", "--alpha", "0.05"], "--power"), (["--depths", "0", "5"], "--depths")):
        args = parser.parse_args(["budget", *argv])
        with pytest.raises(UsageError, match=option):
            _validate(args)
    assert topic_depth_budget(judged, "nDCG@10", depths=5, min_diff=0.1).table["depth"].tolist() == [5]
