"""Measure names (metrics.measures) and the evaluate() entry point: parsing, canonical strings, aliases, errors, and
that each name runs the function it documents."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics import Measure, evaluate, measure_names, parse_measure
from metrics._toy import single_topic

J = single_topic([[2, 0, None, 1, 0, 1], [0, 1]], qrels=[2, 1, 1, 0, 0, 0])


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("AP", "AP"),
        ("map", "AP"),
        ("P@10", "P@10"),
        ("P_10", "P@10"),
        ("P(rel=2)@5", "P(rel=2)@5"),
        ("Rprec", "Rprec"),
        ("RR", "RR"),
        ("RR@10", "RR@10"),
        ("recip_rank", "RR"),
        ("RR(rel=2)@10", "RR(rel=2)@10"),
        ("MRR@10", "RR@10"),
        ("RR'@10", "RR(judged_only=True)@10"),
        ("bpref", "Bpref"),
        ("Bpref(rel=2)", "Bpref(rel=2)"),
        ("infAP", "infAP"),
        ("nDCG@20", "nDCG@20"),
        ("ndcg_cut_20", "nDCG@20"),
        ("map_cut_100", "AP@100"),
        ("nDCG(dcg=exp-log2)@10", "nDCG(dcg=exp-log2)@10"),
        ("RBP(p=0.8)", "RBP(p=0.8)"),
        (" RBP( rel=2 , p=.80 )@100 ", "RBP(p=0.8,rel=2)@100"),
        ("Q(beta=1)", "Q(beta=1)"),
        ("Q-measure", "Q"),
        ("R-measure(beta=0.5)", "Rmeasure(beta=0.5)"),
        ("RankEff", "RankEff"),
        ("bpref-10", "bpref10"),
        ("AP'", "AP(judged_only=True)"),
        ("nDCG′@10", "nDCG(judged_only=True)@10"),
        ("Q'(beta=2)", "Q(beta=2,judged_only=True)"),
        ("AnDCG@100", "AnDCG@100"),
    ],
)
def test_canonical_strings(text, canonical):
    m = parse_measure(text)
    assert str(m) == canonical
    assert parse_measure(str(m)) == m  # round trip
    assert Measure.parse(text) == m


def test_measure_is_immutable_and_hashable():
    a, b = parse_measure("RBP(rel=2,p=0.8)"), parse_measure("RBP(p=0.80, rel=2)")
    assert a == b and hash(a) == hash(b) and len({a, b, parse_measure("RBP(p=0.8)")}) == 2
    with pytest.raises(AttributeError):
        a.name = "AP"  # type: ignore[misc]
    assert a.param("p") == 0.8 and a.param("missing", 7) == 7 and a.cutoff is None
    assert repr(a) == "Measure('RBP(p=0.8,rel=2)')"


@pytest.mark.parametrize(
    "text, message",
    [
        ("Foo@10", r"unknown measure 'Foo' in 'Foo@10'; known measures: AP, P, Rprec, Bpref, .*RankEff.*Q"),
        ("AP(rel=1", r"cannot parse measure 'AP\(rel=1'; expected measure := name"),
        ("RBP(p)", r"cannot parse parameter 'p' in 'RBP\(p\)'; expected key=value"),
        ("AP(beta=1)", r"measure AP takes parameters \(rel, judged_only\); got `beta`"),
        ("P", r"measure P needs a cut-off, e.g. P@10"),
        ("Rprec@10", r"measure Rprec takes no cut-off"),
        ("RR@0", r"the cut-off in 'RR@0' must be a positive integer; got '0'"),
        ("RR(rel=2)@1.5", r"the cut-off in 'RR\(rel=2\)@1.5' must be a positive integer; got '1.5'"),
        ("RR(beta=1)", r"measure RR takes parameters \(rel, judged_only\); got `beta`"),
        ("P@0", r"the cut-off in 'P@0' must be a positive integer; got '0'"),
        ("P@ten", r"the cut-off in 'P@ten' must be a positive integer"),
        ("RBP(p=high)", r"parameter `p` in 'RBP\(p=high\)' must be a number; got 'high'"),
        ("nDCG(dcg=cubic)", r"parameter `dcg` .* must be one of log2, exp-log2; got 'cubic'"),
        ("AP(rel=1,rel=2)", r"parameter `rel` given twice"),
        ("AP(judged_only=maybe)", r"must be True or False"),
        ("AP'(judged_only=False)", r"prime"),
        ("__import__('os')", r"cannot parse measure"),
    ],
)
def test_parse_errors_name_the_problem(text, message):
    with pytest.raises(ValueError, match=message):
        parse_measure(text)


def test_parse_type_error():
    with pytest.raises(TypeError, match="a measure must be a string"):
        parse_measure(10)


def test_unknown_measure_in_evaluate_lists_known_ones():
    with pytest.raises(ValueError, match="known measures: " + ", ".join(measure_names()).replace("(", r"\(")):
        evaluate(J, "ERR@10")


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


def test_ndcg_discount_parameters_reach_metrics_ndcg():
    """``nDCG(discount=rbp,p=…)`` and ``nDCG(discount=jarvelin,b=…)`` equal metrics.ndcg with the family string."""
    import numpy as np

    import metrics

    j = metrics.load_trec9().subset(systems=list(range(6)))
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
