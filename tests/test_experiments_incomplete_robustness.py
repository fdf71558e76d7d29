"""Tests of experiments/incomplete/robustness.py: the summarised incompleteness study (RobustnessStudy)."""
from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

import gtheory
import metrics
from metrics import JudgedRuns

from experiments import RobustnessStudy, robustness_study
from tiny_collection import synthetic  # noqa: E402


@pytest.fixture(scope="module")
def small(embedded_trec9) -> JudgedRuns:
    """20 systems, all 50 topics: enough for rankings, fast enough for studies."""
    return embedded_trec9.subset(systems=np.arange(0, 104, 5)[:20])


@pytest.mark.parametrize("level, match", [
    (5.0, r"`relevance_level` must split the qrels grades \(-2 0 1 2\) into relevant \(>= it\) and non-relevant: "
          r"a value in \(-2, 2\]; got 5\."),
    (-2.0, r"a value in \(-2, 2\]; got -2\."),
    (float("nan"), r"`relevance_level` must be a finite number; got nan"),  # the table's rule, before the split
])
def test_robustness_study_refuses_a_relevance_level_that_splits_nothing(level, match):
    with pytest.raises(gtheory.ParameterError, match=match) as exc:
        robustness_study(synthetic(), ["AP"], fractions=(1.0,), seeds=1, relevance_level=level)
    assert exc.value.param == "relevance_level"


def test_robustness_study_takes_judged_only_and_seeds_as_a_list(small):
    a = robustness_study(small, ["AP"], fractions=[1.0, 0.5], seeds=[0, 1], judged_only=True, test=None)
    assert set(a.results.judged_only) == {False, True} and sorted(set(a.results.seed)) == [0, 1] and a.seeds == 2


@pytest.fixture(scope="module")
def tiny_study(embedded_trec9):
    j = embedded_trec9.subset(systems=np.arange(0, 104, 13), topics=list(range(15)))

    def constant(judged):  # every system the same score: no ranking, τ is 0/0
        return pd.DataFrame(0.5, index=list(judged.systems), columns=list(judged.topics))

    return j, robustness_study(j, {"AP": "AP", "constant": constant}, fractions=[1.0, 0.5, 0.2], seeds=3, test=None)


def test_table_is_the_mean_and_sd_over_seeds_of_the_results(tiny_study):
    j, r = tiny_study
    assert isinstance(r, RobustnessStudy) and (r.n_systems, r.n_topics, r.seeds) == (8, 15, 3)
    res = r.results[r.results.measure == "AP"]
    for f in (1.0, 0.5, 0.2):
        rows = res[res.fraction == f]
        assert len(rows) == 3  # one per seed
        for v in r.values:
            assert r.table.loc[("AP", False, f), (v, "mean")] == pytest.approx(rows[v].mean(), abs=1e-12)
            assert r.table.loc[("AP", False, f), (v, "std")] == pytest.approx(rows[v].std(ddof=1), abs=1e-12,
                                                                              nan_ok=True)
    one = res[res.fraction == 1.0]
    assert (one.tau == 1.0).all() and (one.judged_kept == 1.0).all()  # the full qrels are the reference


def test_undefined_curves_and_knees(tiny_study):
    _, r = tiny_study
    assert r.undefined_curves() == ["constant"]
    k = r.knees.set_index("measure")
    assert math.isnan(k.loc["constant", "knee"])
    # the knee is experiments.knee's: the smallest fraction from which the mean τ stays >= 0.9
    means = r.results[r.results.measure == "AP"].groupby("fraction").tau.mean().sort_index(ascending=False)
    ok = [f for f in means.index if (means[means.index >= f] >= 0.9).all()]
    assert ok, "the premise: τ at f = 1 is 1, so some fraction qualifies"
    assert k.loc["AP", "knee"] == min(ok)


def test_document_is_strict_json_with_the_knees(tiny_study):
    import json

    _, r = tiny_study
    d = json.loads(r.to_json())
    assert d["format"] == "gtheory.experiments.RobustnessStudy/1" and d["fractions"] == [1.0, 0.5, 0.2]
    by = {c["measure"]: c for c in d["curves"]}
    assert by["constant"]["knee"] is None and by["constant"]["rows"][0]["tau"] is None  # NaN written as null
    assert [row["fraction"] for row in by["AP"]["rows"]] == [1.0, 0.5, 0.2]
    assert by["AP"]["rows"][0]["tau"] == 1.0


def test_summary_and_repr(tiny_study):
    _, r = tiny_study
    text = r.summary()
    assert text.startswith("Incomplete judgments: 8 systems x 15 topics, 3 seed(s) per fraction")
    assert "\nAP\n" in text and "\nconstant\n" in text and "knee (tau >= 0.9): none in the fractions given" in text
    assert repr(r) == "RobustnessStudy(8 systems × 15 topics; 2 curves, 3 fractions × 3 seeds)"


def test_plot_needs_one_axes_per_panel(tiny_study):
    import matplotlib.pyplot as plt

    _, r = tiny_study
    fig = r.plot()
    assert len(fig.axes) == 2  # τ and the mean drift (no test: no power or accuracy panels)
    _, axes = plt.subplots(1, 3)
    with pytest.raises(ValueError, match=r"`ax` must hold 2 Axes \(one per panel\); got 3"):
        r.plot(axes)
    plt.close("all")


def test_a_single_grade_cannot_be_split():
    j = metrics.judge({"s0": {"1": {"a": 1.0}}, "s1": {"1": {"b": 1.0}}}, {"1": {"a": 1, "b": 1}}, progress=False)
    with pytest.raises(gtheory.ParameterError, match="the qrels have only the grade 1; sampling needs relevant"):
        robustness_study(j, ["AP"], fractions=[1.0], seeds=1)
