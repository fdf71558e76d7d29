"""The result protocol (docs/api.md), tested once for every result type: a one-line ``repr``, ``summary()`` as
text, and — where the type has JSON — a strict ``to_json`` (non-finite numbers as ``null``) that ``from_json``
reads back to an equal result."""
from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import experiments
import gtheory
import metrics
import optimize
from experiments.study import DemoStudy, demo_study


@pytest.fixture(scope="module")
def judged(embedded_trec9) -> metrics.JudgedRuns:
    j = embedded_trec9
    return j.subset(systems=list(j.systems[:12]), topics=list(j.topics[:10]))


def _scores(seed: int = 0, shape=(8, 12)) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.random(shape) * 0.5 + np.linspace(0.4, 0, shape[0])[:, None])


def _flat(n_systems: int = 6) -> pd.DataFrame:
    """Systems that do not differ at all: σ²(s) is estimated 0, Φ is 0 and no number of topics reaches a
    target (topics needed: inf)."""
    rng = np.random.default_rng(1)
    return pd.DataFrame(np.tile(rng.random(12), (n_systems, 1)) + rng.normal(0, 1e-3, (n_systems, 12)))


def _quiet(fn, *a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **kw)


def _make(name: str, judged: metrics.JudgedRuns):
    if name == "GStudy":
        return _quiet(gtheory.gstudy, _scores())
    if name == "GStudy (σ²(s) = 0)":
        return _quiet(gtheory.gstudy, _flat())
    if name == "UnbalancedGStudy":
        x = _scores().to_numpy(dtype=float, copy=True)
        x[0, 1] = x[3, 5] = np.nan
        return _quiet(gtheory.gstudy, x, missing="henderson")
    if name == "BootstrapResult":
        return _quiet(gtheory.gstudy, _scores()).bootstrap(n_resamples=50, seed=0)
    if name == "TopicsNeeded":
        return _quiet(gtheory.gstudy, _scores()).topics_needed(0.95)
    if name == "CoefficientInterval":
        return _quiet(gtheory.gstudy, _scores()).interval("phi", [10, 50])
    if name == "DesignGStudy":
        return _quiet(gtheory.gstudy_design, np.asarray(_scores()), "s x t")
    if name == "DesignDStudy":
        return _quiet(gtheory.gstudy_design, np.asarray(_scores()), "s x t").dstudy("s", {"t": 20})
    if name == "Tuning":
        return _quiet(optimize.optimize_discount, judged, gain="linear", cutoff=10, starts=1, seed=0)
    if name == "SolverRun":
        return optimize.solvers.result.SolverRun(x=np.array([0.6, 0.4]), fun=0.31, success=True, message="Optimization "
                                         "terminated successfully", nit=3, nfev=4, njev=3, solver="slsqp",
                                         seconds=0.01, start="log2")
    if name == "Coverage":
        return judged.coverage
    if name == "Evaluation":
        return metrics.evaluate(judged.subset(systems=[0, 1, 2]), ["AP", "nDCG@10", "NumRelRet"])
    if name == "JudgedRuns":
        return judged
    if name == "Qrels":
        return metrics.Qrels.from_frame(pd.DataFrame({"topic": ["1", "1", "2"], "docno": ["a", "b", "a"],
                                                      "grade": [0, 2, 1]}))
    if name == "DiscriminativePower":
        return experiments.discriminative_power(_scores(), n_resamples=50, seed=0)
    if name == "ConfigurationCheck":
        configs = {"a": _scores(), "b": _scores() ** 2, "flat": _flat(8)}
        table = _quiet(experiments.check_configurations, configs, "a", n_resamples=30, seed=0)
        return experiments.ConfigurationCheck(table=table, reference="a", cutoff=10, n_systems=8, n_topics=12,
                                              top_k=8, n_resamples=30, alpha=0.05, seed=0, gain={"0": 0.0, "1": 1.0})
    if name == "Recommendation":
        return _quiet(optimize.recommend, judged, cutoff=10, n_splits=2, n_inner=2, n_seeds=2, progress=False)
    if name == "ParameterTuning":
        return _quiet(optimize.tune_parameters, judged, "RBP(p={p})", {"p": (0.5, 0.95)}, grid=4, n_splits=2,
                      progress=False)
    if name == "RobustnessStudy":
        return _quiet(experiments.robustness_study, judged, ["nDCG@10"], fractions=[1.0, 0.5], seeds=2)
    if name == "DemoStudy":
        return _quiet(demo_study, judged, cutoff=10, target=0.95, n_splits=2)
    if name == "Tuning (gain, failed)":  # systems that cannot be told apart: a failed tuning, Eρ² undefined (NaN)
        import dataclasses

        one = judged.subset(systems=[0], topics=list(range(6)))
        same = dataclasses.replace(one, grades=np.repeat(one.grades, 3, axis=0), doc_ids=np.repeat(one.doc_ids, 3, axis=0),
                                   n_retrieved=np.repeat(one.n_retrieved, 3, axis=0), systems=("a", "b", "c"))
        return _quiet(optimize.optimize_gain, same, discount="log2", cutoff=5, starts=1)
    if name == "SweepGrid":
        return experiments.SweepGrid.of(cutoffs=[10, None], gains={"linear": "linear", "steep": {0: 0.0, 1: 1.0, 2: 4.0}},
                                        discounts=["log2", "zipf"], fractions=[1.0, 0.5], seeds=[0, 3])
    if name == "Study":
        from experiments import ReportSettings, run_study

        s = ReportSettings.quick(cutoff=10, discount_cutoffs=(10,), gain_cutoffs=(10,), n_resamples=20, n_splits=2, starts=1)
        return _quiet(run_study, judged, settings=s, published=False)
    if name == "OptimalityBound":  # made by Tuning.bound() (cvxpy); here its numbers, one of them not finite
        return optimize.OptimalityBound(bound=0.4125, relaxed=0.4124, margin=math.inf, status="optimal", solver="SCS",
                                        seconds=1.5, size=11, rank_one_ratio=0.99998)
    if name == "SignificanceConfusion":
        return _quiet(experiments.significance_confusion, _scores(), _scores(1), n_resamples=30, seed=0)
    if name == "TopicSetSize":
        return gtheory.topic_set_size(_scores(), method="paired-t", min_diff=0.05)
    if name == "TopicPlan":
        return _quiet(gtheory.plan, _scores(), min_diff=0.05)
    if name == "TopicCurves":
        return _quiet(gtheory.topic_curves, _scores(), repeats=5, seed=0)
    if name == "Comparison":
        return experiments.compare(_scores(), test="randomization", correction="holm", n_resamples=200, seed=0)
    if name == "ComparisonTable":
        return experiments.compare_measures({"a": _scores(), "b": _scores(1)}, baseline=_scores().index[0])
    raise AssertionError(name)


TYPES = ["GStudy", "GStudy (σ²(s) = 0)", "UnbalancedGStudy", "BootstrapResult", "TopicsNeeded", "CoefficientInterval",
         "DesignGStudy", "DesignDStudy", "Tuning", "Tuning (gain, failed)", "SolverRun", "OptimalityBound", "Coverage",
         "Qrels", "DiscriminativePower", "SignificanceConfusion", "ConfigurationCheck", "DemoStudy", "Study",
         "SweepGrid", "Recommendation", "ParameterTuning", "RobustnessStudy", "TopicSetSize", "TopicPlan", "TopicCurves", "Comparison", "ComparisonTable", "Evaluation", "JudgedRuns"]
#: the types with to_json/from_json
JSON_TYPES = ["GStudy", "GStudy (σ²(s) = 0)", "UnbalancedGStudy", "BootstrapResult", "TopicsNeeded",
              "CoefficientInterval", "DesignGStudy", "DesignDStudy", "Tuning", "Tuning (gain, failed)", "SolverRun", "OptimalityBound",
              "Coverage", "DiscriminativePower", "SignificanceConfusion", "ConfigurationCheck", "DemoStudy", "SweepGrid",
              "Recommendation", "ParameterTuning", "TopicSetSize", "TopicPlan", "TopicCurves", "Comparison", "ComparisonTable", "Evaluation"]
#: the types whose JSON is written, not read back (a RobustnessStudy's per-seed results are a CSV; a Study's
#: score matrices and tunings are recomputed by run_study)
WRITTEN_TYPES = ["RobustnessStudy", "Study"]


@pytest.fixture(scope="module")
def results(judged):
    return {name: _make(name, judged) for name in TYPES}


def _strict(text: str):
    def refuse(constant):
        raise AssertionError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("name", TYPES)
def test_repr_is_one_concise_line_and_summary_is_text(results, name):
    r = results[name]
    text = repr(r)
    assert "\n" not in text and len(text) <= 300 and text.startswith(type(r).__name__ + "(")
    assert "np.float64" not in text and "array(" not in text
    s = r.summary()
    assert isinstance(s, str) and s.strip() and "np.float64" not in s


@pytest.mark.parametrize("name", [*JSON_TYPES, *WRITTEN_TYPES])
def test_json_is_strict_and_round_trips(results, name):
    r = results[name]
    text = r.to_json()
    assert "NaN" not in text and "Infinity" not in text and '"inf"' not in text
    doc = _strict(text)
    assert isinstance(doc, dict)
    # the document holds the object's own values: every scalar field of the result that the JSON names is written
    # exactly (JSON floats round-trip: repr is exact), a non-finite number as null
    compared = 0
    for key, value in doc.items():
        attr = getattr(type(r), key, None)
        if key == "format" or (callable(attr) and not isinstance(attr, property)) or not hasattr(r, key):
            continue
        if isinstance(attr, property) and isinstance(value, dict):  # a derived view, written as a richer document
            continue
        own = getattr(r, key)
        if isinstance(own, (bool, np.bool_)):
            assert value is bool(own), key
        elif isinstance(own, (int, float, np.integer, np.floating)):
            assert (value is None) if not math.isfinite(own) else (value == own), (key, value, own)
        elif isinstance(own, str):
            assert value == own, key
        elif isinstance(own, (list, tuple)) and all(x is None or isinstance(x, (int, float, str)) for x in own):
            plain = [None if isinstance(x, float) and not math.isfinite(x) else x for x in own]
            assert value == plain, (key, value, own)
        else:
            continue
        compared += 1
    assert compared >= 1, f"{name}: no scalar field of the object found in its JSON"
    assert doc["format"].startswith("gtheory.")
    if name not in JSON_TYPES:  # written, not read back
        return
    back = type(r).from_json(text)
    assert back.to_json() == text  # every field survives (a Tuning read from JSON holds no data)
    if name in ("GStudy", "GStudy (σ²(s) = 0)", "UnbalancedGStudy", "ConfigurationCheck", "DemoStudy", "TopicsNeeded",
                "OptimalityBound", "SweepGrid", "TopicSetSize", "TopicPlan", "TopicCurves", "Evaluation"):  # the
        # others hold arrays (no ==); a G-study's score matrix comes back too, for bootstrap()
        if name == "UnbalancedGStudy":
            assert np.array_equal(back.scores, r.scores, equal_nan=True) and type(back) is type(r)
        assert back == r


def test_non_finite_numbers_are_null_and_read_back(results, tmp_path):
    g = results["GStudy (σ²(s) = 0)"]
    assert g.var_system == 0 and g.as_row()["topics_needed"] == math.inf
    c = results["ConfigurationCheck"]
    flat = next(r for r in c.to_dict()["configurations"] if r["configuration"] == "flat")
    assert c.table.loc["flat", "topics_needed"] == math.inf and flat["topics_needed"] is None
    assert experiments.ConfigurationCheck.from_json(c.to_json()).table.loc["flat", "topics_needed"] == math.inf
    # to_json(path) writes the same text, read back from the path
    path = tmp_path / "c.json"
    assert c.to_json(str(path)) == path.read_text(encoding="utf-8")
    assert experiments.ConfigurationCheck.from_json(str(path)) == c


def test_from_json_refuses_another_type(results):
    with pytest.raises(ValueError, match="not a gtheory.GStudy/1 document"):
        gtheory.GStudy.from_json(results["DemoStudy"].to_json())
    with pytest.raises(ValueError, match="unknown fields"):
        gtheory.GStudy.from_json(json.dumps({**results["GStudy"].to_dict(), "extra": 1}))


def test_as_row_matches_the_gstudy(results):
    g = results["GStudy"]
    row = g.as_row(20, target=0.9)
    assert set(row) == set(gtheory.GStudy.ROW_KEYS)
    assert row["phi"] == pytest.approx(float(g.phi(20))) and row["erho2"] == pytest.approx(float(g.erho2(20)))
    assert row["phi_1"] == pytest.approx(float(g.phi(1)))
    assert row["topics_needed"] == g.topics_needed(0.9, "phi", level=None).n
    assert row["topics_needed_erho2"] == g.topics_needed(0.9, "erho2", level=None).n
    total = g.var_system + g.var_topic + g.var_residual
    assert row["share_system"] + row["share_topic"] + row["share_residual"] == pytest.approx(1.0)
    assert row["share_system"] == pytest.approx(g.var_system / total)


def test_demo_study_rows_are_the_gstudies(results, judged):
    d: DemoStudy = results["DemoStudy"]
    j = judged
    g = gtheory.gstudy(metrics.ndcg(j, gain=[0.0, 1.0, 2.0], discount="zipf", cutoff=10))
    row = d.rows[0]
    assert row["configuration"] == "zipf discount" and row["phi"] == pytest.approx(float(g.phi(j.n_topics)))
    assert "zipf discount" in d.summary() and "out of sample (2 splits" in d.summary()


def test_qrels_summary_is_text_and_the_frame_is_kept(results):
    q = results["Qrels"]
    assert q.summary().startswith("Qrels from <memory>: 3 judgments of 2 topics")
    f = q.summary_frame()
    assert list(f.index) == ["1", "2"] and int(f.to_numpy().sum()) == 3


def test_robustness_study_plot_and_rows(results):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    r = results["RobustnessStudy"]
    full = r.results[r.results.fraction == 1.0]
    assert (full["tau"] == 1.0).all()  # the full qrels rank the systems as the full qrels do
    fig = r.plot()
    assert len(fig.axes) == 2
    plt.close(fig)
    with pytest.raises(ValueError, match="must hold 2 Axes"):
        r.plot(ax=[None])


def test_check_tuning_compares_the_tuning_with_the_standard_configurations(results, judged):
    t = results["Tuning"]
    c = experiments.check_tuning(judged, t, ["log2", "exponential+log2"], n_resamples=30, top_k=6)
    assert list(c.table.index) == ["tuned discount", "log2", "exponential+log2"] and c.reference == "tuned discount"
    assert c.table.loc["tuned discount", "kendall_tau"] == 1.0 and c.cutoff == t.cutoff == 10 and c.top_k == 6
    # the log2 row is the G-study of metrics.ndcg with linear gains and the log2 discount
    g = _quiet(gtheory.gstudy, metrics.ndcg(judged, gain="linear", discount="log2", cutoff=10))
    assert c.table.loc["log2", "phi"] == pytest.approx(float(g.phi()))
    with pytest.raises(gtheory.ParameterError, match="`cutoff` 5000 exceeds the run depth") as err:
        experiments.check_tuning(judged, None, cutoff=5000)
    assert err.value.param == "cutoff"
    with pytest.raises(gtheory.ParameterError, match="GAIN\\+DISCOUNT"):
        experiments.check_tuning(judged, t, ["a+b+c"])


#: the types with a picture (the others have none: a number, a table of numbers)
PLOT_TYPES = ["GStudy", "GStudy (σ²(s) = 0)", "UnbalancedGStudy", "BootstrapResult", "Coverage", "DemoStudy",
              "Recommendation", "ParameterTuning", "RobustnessStudy", "Tuning", "Tuning (gain, failed)", "Study",
              "TopicSetSize", "TopicPlan", "TopicCurves", "Comparison", "ComparisonTable"]


@pytest.mark.parametrize("name", PLOT_TYPES)
def test_plot_where_a_picture_exists(results, name):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    r = results[name]
    out = r.plot()
    fig = getattr(out, "figure", out)
    assert fig.axes and any(ax.has_data() for ax in fig.axes)
    plt.close(fig)


@pytest.mark.parametrize("name", ["GStudy", "GStudy (σ²(s) = 0)", "Tuning", "Tuning (gain, failed)", "ParameterTuning"])
def test_one_coefficient_api(results, name):
    """phi(n), erho2(n) and topics_needed(target, coefficient) mean the same on every result that has them: floats
    at the result's own topics by default, arrays for arrays, a TopicsNeeded for the topics needed."""
    r = results[name]
    assert type(r.phi()) is float and type(r.erho2()) is float and r.phi() == r.phi(r.n_topics)
    assert np.asarray(r.phi([1, 10, 100])).shape == (3,) and r.phi(1) == pytest.approx(r.phi([1, 2])[0], abs=0)
    need = r.topics_needed(0.9, "erho2", level=None)
    assert isinstance(need, gtheory.TopicsNeeded) and (need.coefficient, need.target, need.level) == ("erho2", 0.9, None)
    if math.isfinite(need.n):  # the smallest n that reaches the target
        assert r.erho2(need.n) >= 0.9 and (need.n == 1 or r.erho2(need.n - 1) < 0.9)
    else:
        assert need.reason
    with pytest.raises(ValueError, match="`coefficient` must be 'phi' or 'erho2'; got 'rho'"):
        r.topics_needed(0.9, "rho", level=None)
    with pytest.raises(ValueError, match="`n_topics` must be positive and finite"):
        r.erho2(-1)


def test_study_summary_and_sweep_grid_document(results):
    study = results["Study"]
    text = study.summary()
    assert text.startswith(f"Study: {study.name}, 12 systems × 10 topics") and str(study) == text
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if "topics for Φ ≥ 0.95" in line)
    for line, need in zip(lines[head + 1:], study.discount_table["topics_needed"]):  # Table 1: a line per discount
        assert line.split()[-1] == (f"{need:.0f}" if math.isfinite(need) else "∞")
    assert study.to_dict()["discount_table"][0]["phi"] == pytest.approx(float(study.discount_table["phi"].iloc[0]))
    grid = results["SweepGrid"]
    assert "32 points (4 task(s) of 8 configuration(s))" in grid.summary() and "'steep' = {0: 0.0" in grid.summary()
    with pytest.raises(ValueError, match="not a gtheory.experiments.SweepGrid/1 document"):
        experiments.SweepGrid.from_json(results["DemoStudy"].to_json())
    doc = json.loads(grid.to_json())
    doc["fractions"] = [1.5]
    with pytest.raises(ValueError, match="fractions"):  # the axes are checked by SweepGrid.of
        experiments.SweepGrid.from_json(json.dumps(doc))
    with pytest.raises(TypeError, match="cannot be written as JSON"):
        experiments.SweepGrid.of(gains={"f": lambda g: g}).to_dict()


@pytest.mark.parametrize("name, frames", [("DiscriminativePower", ["table"]), ("SignificanceConfusion", ["matrix", "table"]),
                                          ("DesignDStudy", ["terms"]), ("DesignGStudy", ["components"])])
def test_tables_come_back_from_json(results, name, frames):
    r = results[name]
    back = type(r).from_json(r.to_json())
    for f in frames:  # the same table: index, columns, values and dtypes
        pd.testing.assert_frame_equal(getattr(back, f), getattr(r, f), check_index_type=False, check_column_type=False)
    assert back.summary() == r.summary()
    if name == "DesignGStudy":  # the design comes back parsed: its D-study is the same
        assert back.dstudy("s", {"t": 20}).to_json() == r.dstudy("s", {"t": 20}).to_json()


@pytest.mark.parametrize("name", TYPES)
def test_notebook_display_is_a_well_formed_table(results, name):
    from test_display import parse  # the HTML checker of the display tests

    p = parse(results[name]._repr_html_())
    assert p.cells and all("np.float64" not in c and c != "nan" for c in p.cells)
