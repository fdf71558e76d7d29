"""Measure names (metrics.measures.names) and the evaluate() entry point: parsing, canonical strings, aliases, errors, and
that each name runs the function it documents."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics import Measure, evaluate, measure_names, parse_measure
from metrics._toy import single_topic

J = single_topic([[2, 0, None, 1, 0, 1], [0, 1]], qrels=[2, 1, 1, 0, 0, 0])


def test_evaluate_type_error():
    with pytest.raises(TypeError, match="a measure must be a string"):
        evaluate(J, 10)


@pytest.mark.parametrize("expression, canonical", [("nDCG@10", "nDCG@10"), ("MRR@10", "RR@10"),
                                                   ("RBP(rel=2,p=0.9)", "RBP(p=0.9,rel=2)")])
def test_ir_measures_objects_evaluate_as_their_names(expression, canonical):
    ir_measures = pytest.importorskip("ir_measures")
    obj = eval(expression, vars(ir_measures))  # the test builds the object as a user would write it
    assert evaluate(J, obj).equals(evaluate(J, canonical))


def test_unknown_measure_in_evaluate_lists_known_ones():
    with pytest.raises(ValueError, match="known measures: " + ", ".join(measure_names()).replace("(", r"\(")):
        evaluate(J, "NERR8@10")


def test_several_measures_return_a_dict_of_frames():
    res = evaluate(J, ["AP", "ndcg_cut.3", "R@2", Measure("P", cutoff=2)])
    assert list(res) == ["AP", "nDCG@3", "R@2", "P@2"]  # canonical names, in the order given
    for name, df in res.items():
        pd.testing.assert_frame_equal(df, evaluate(J, name), check_exact=True)
        assert df.attrs["measure"] == name
    assert list(evaluate(J, ("AP",))) == ["AP"] and list(evaluate(J, (m for m in ["RR"]))) == ["RR"]
    # one long table, as documented
    long = pd.concat(res, names=["measure"]).stack().rename("value").reset_index()
    assert list(long.columns) == ["measure", "system", "topic", "value"] and len(long) == 4 * J.n_systems
    # judged_only applies to every measure of the list
    cond = evaluate(J, ["AP", "nDCG@3"], judged_only=True)
    pd.testing.assert_frame_equal(cond["AP"], evaluate(J, "AP'"))
    # a single string (or Measure) still returns a frame
    assert isinstance(evaluate(J, "AP"), pd.DataFrame) and isinstance(evaluate(J, parse_measure("AP")), pd.DataFrame)


def test_several_measures_errors():
    with pytest.raises(ValueError, match=r"the measure 'nDCG@10' is given twice \(as ndcg_cut.10\)"):
        evaluate(J, ["nDCG@10", "ndcg_cut.10"])
    with pytest.raises(ValueError, match="`measure` is an empty list"):
        evaluate(J, [])
    with pytest.raises(ValueError, match="unknown measure 'Foo'"):
        evaluate(J, ["AP", "Foo"])
    with pytest.raises(ValueError, match=r"contradicts the measure 'AP\(judged_only=True\)'"):
        evaluate(J, ["P@2", "AP'"], judged_only=False)


DIRECT = {
    "AP": lambda j: metrics.average_precision(j),
    "AP@3": lambda j: metrics.average_precision(j, cutoff=3),
    "P(rel=2)@2": lambda j: metrics.precision(j, cutoff=2, relevance_level=2),
    "Rprec": metrics.r_precision,
    "RR": metrics.reciprocal_rank,
    "RR(rel=2)@3": lambda j: metrics.reciprocal_rank(j, cutoff=3, relevance_level=2),
    "Bpref": metrics.bpref,
    "bpref10": metrics.bpref_10,
    "bpref_R": metrics.bpref_r,
    "bpref_N": metrics.bpref_n,
    "RankEff": metrics.rank_eff,
    "infAP": metrics.inferred_ap,
    "nDCG@3": lambda j: metrics.ndcg(j, cutoff=3),
    "nDCG(dcg=exp-log2)": lambda j: metrics.ndcg(j, gain="exponential"),
    "DCG(discount=zipf)@4": lambda j: metrics.dcg(j, discount="zipf", cutoff=4),
    "nCG@2": lambda j: metrics.ncg(j, cutoff=2),
    "AnDCG@4": lambda j: metrics.andcg(j, cutoff=4),
    "RBP(p=0.5)": lambda j: metrics.rbp(j, p=0.5),
    "RBP(p=0.5,rel=2)": lambda j: metrics.rbp(j, p=0.5, gain="binary(level=2)"),
    "RBP_residual(p=0.9)@3": lambda j: metrics.rbp_residual(j, p=0.9, cutoff=3),
    "Q(beta=2)": lambda j: metrics.q_measure(j, beta=2),
    "Rmeasure": metrics.r_measure,
    "R@3": lambda j: metrics.recall(j, cutoff=3),
    "R(rel=2)@3": lambda j: metrics.recall(j, cutoff=3, relevance_level=2),
    "Success@2": lambda j: metrics.success(j, cutoff=2),
    "ERR@4": lambda j: metrics.err(j, cutoff=4),
    "ERR(max_grade=2)": lambda j: metrics.err(j, max_grade=2),
    "Judged@3": lambda j: metrics.judged_at_k(j, cutoff=3),
    "NumRel": metrics.num_rel,
    "NumRet": metrics.num_ret,
    "NumRelRet": metrics.num_rel_ret,
}


@pytest.mark.parametrize("name", sorted(DIRECT))
def test_each_name_runs_its_function(name):
    got = evaluate(J, name)
    pd.testing.assert_frame_equal(got, DIRECT[name](J), check_exact=True)
    assert got.attrs["measure"] == str(parse_measure(name)) and got.attrs["judged_only"] is False


def test_every_registered_name_evaluates():
    for name in measure_names():
        spec = metrics.MEASURE_SPECS[name]
        text = f"{name}@5" if spec.cutoff == "required" else name
        out = evaluate(J, text)
        assert out.shape == (2, 1) and np.isfinite(out.to_numpy()).all()


@pytest.mark.parametrize("missing", ["zero", "exclude"])
def test_measure_scores_are_the_frames_values(missing):
    """measure_scores (the array core behind evaluate, for the command line) gives every registered measure's frame
    values exactly, NaN where a topic is excluded; each public measure keeps its frame and signature."""
    import dataclasses
    import inspect

    from metrics.measures import measure_scores

    j = metrics.judge({"a": {"1": {"d1": 2.0, "d2": 1.0}, "2": {"d3": 1.0}}, "b": {"1": {"d2": 2.0, "u": 1.0}}},
                      {"1": {"d1": 2, "d2": 1}, "2": {"d3": 1, "d4": 0}}, progress=False, workers=1)
    j = dataclasses.replace(j, missing=missing)
    for name in measure_names():
        spec = metrics.MEASURE_SPECS[name]
        text = f"{name}@5" if spec.cutoff == "required" else name
        got, frame = measure_scores(j, text), evaluate(j, text)
        assert got.dtype == np.float64 and np.array_equal(got, frame.to_numpy(), equal_nan=True), name
        assert np.isnan(got[1, 1]) == (missing == "exclude"), name  # b does not return topic 2
        fname, kwargs = spec.call(parse_measure(text), False)
        fn = getattr(metrics, fname)
        assert isinstance(fn(j, **kwargs), pd.DataFrame) and inspect.signature(fn).return_annotation == "pd.DataFrame"
    with pytest.raises(ValueError, match="contradicts"):
        measure_scores(j, "AP'", judged_only=False)


def test_judged_only_keyword_and_name():
    cond = metrics.average_precision(J, judged_only=True)
    pd.testing.assert_frame_equal(evaluate(J, "AP'"), cond)
    pd.testing.assert_frame_equal(evaluate(J, "AP", judged_only=True), cond)
    pd.testing.assert_frame_equal(evaluate(J, "AP(judged_only=True)", judged_only=True), cond)
    with pytest.raises(ValueError, match="contradicts"):
        evaluate(J, "AP'", judged_only=False)
    with pytest.raises(TypeError, match="`judged_only` must be True, False or None"):
        evaluate(J, "AP", judged_only=1)


def test_conflicting_parameters():
    with pytest.raises(ValueError, match="give either `dcg` .* or `gain`"):
        evaluate(J, "nDCG(dcg=exp-log2,gain=linear)")
    with pytest.raises(ValueError, match="give either `rel` .* or `gain`"):
        evaluate(J, "RBP(rel=2,gain=linear)")


def test_ndcg_discount_parameters_reach_metrics_ndcg(embedded_trec9):
    """``nDCG(discount=rbp,p=…)`` and ``nDCG(discount=jarvelin,b=…)`` equal metrics.ndcg with the family string."""
    import numpy as np

    import metrics

    j = embedded_trec9.subset(systems=list(range(6)))
    pairs = [
        ("nDCG(discount=rbp,p=0.6)@10", dict(discount="rbp(p=0.6)", cutoff=10)),
        ("nDCG(discount=jarvelin,b=3)@20", dict(discount="jarvelin(b=3)", cutoff=20)),
        ("DCG(discount=rbp,p=0.9)@5", None),
    ]
    for name, kw in pairs[:2]:
        assert np.array_equal(metrics.evaluate(j, name).to_numpy(), metrics.ndcg(j, **kw).to_numpy())
    d = 0.9 ** np.arange(5)
    rel = j.level_values(np.array([0.0, 1.0, 2.0]))[..., :5]
    assert np.allclose(metrics.evaluate(j, pairs[2][0]).to_numpy(), rel @ d)
    with pytest.raises(ValueError, match="`p` is the persistence of discount=rbp"):
        metrics.evaluate(j, "nDCG(p=0.5)@10")
    with pytest.raises(ValueError, match="`b` is the log base of discount=jarvelin"):
        metrics.evaluate(j, "nDCG(discount=zipf,b=2)")
