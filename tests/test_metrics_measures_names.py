"""Tests of metrics/measures/names.py: measure names parsed into immutable :class:`metrics.Measure` values, without eval.

References: the grammar and canonical strings of ir_measures (name, parameters sorted by key, cut-off; its own
``str()`` of the same measure objects where it has them) and trec_eval's measure names as given to ``trec_eval -m``
and as it prints them. Whether each name runs the function it documents is tested in test_metrics_measures_evaluate.py.
"""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

from metrics import MEASURE_SPECS, Measure, MeasureError, parse_measure


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
        # trec_eval spellings: as given to -m (name.k) and as printed (name_k)
        ("P.10", "P@10"),
        ("ndcg_cut.10", "nDCG@10"),
        ("map_cut.100", "AP@100"),
        ("recall.100", "R@100"),
        ("recall_100", "R@100"),
        ("success.10", "Success@10"),
        ("success_1", "Success@1"),
        ("num_rel", "NumRel"),
        ("num_ret", "NumRet"),
        ("num_rel_ret", "NumRet(rel=1)"),
        # ir_measures spellings
        ("R@100", "R@100"),
        ("Recall@100", "R@100"),
        ("R(rel=2)@1000", "R(rel=2)@1000"),
        ("Success@10", "Success@10"),
        ("ERR@20", "ERR@20"),
        ("ERR(max_grade=3)@20", "ERR(max_grade=3)@20"),
        ("ERR", "ERR"),
        ("Judged@10", "Judged@10"),
        ("Judged", "Judged"),
        ("NumRel", "NumRel"),
        ("NumRet", "NumRet"),
        ("NumRelRet", "NumRet(rel=1)"),
        ("NumRelRet(rel=2)", "NumRet(rel=2)"),
        ("NumRet(rel=1)", "NumRet(rel=1)"),
        ("nDCG(dcg='exp-log2')@10", "nDCG(dcg=exp-log2)@10"),  # ir_measures prints string values quoted
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
        ("P.5,10", r"'P.5,10' names 2 measures \(trec_eval -m syntax\); give them one by one: P.5, P.10"),
        ("ndcg_cut", r"trec_eval's ndcg_cut needs a cut-off here, e.g. ndcg_cut.10 \(= nDCG@10\)"),
        ("recall", r"measure R needs a cut-off, e.g. R@10; got 'recall'"),
        ("Success", r"measure Success needs a cut-off"),
        ("NumRel@10", r"measure NumRel takes no cut-off"),
        ("Judged'@10", r"measure Judged has no condensed-list form"),
        ("ERR(max_grade=high)@20", r"parameter `max_grade` .* must be a number"),
        ("Rprec.10", r"unknown measure 'Rprec_10' in 'Rprec.10'"),
    ],
)
def test_parse_errors_name_the_problem(text, message):
    with pytest.raises(ValueError, match=message):
        parse_measure(text)


def test_parse_type_error():
    with pytest.raises(TypeError, match="a measure must be a string .*, a metrics.Measure or an ir_measures measure"):
        parse_measure(10)


IR_MEASURES = [  # (ir_measures expression, our canonical string)
    ("nDCG@10", "nDCG@10"), ("AP", "AP"), ("R@100", "R@100"), ("Recall@100", "R@100"), ("P(rel=2)@10", "P(rel=2)@10"),
    ("RR(rel=2)@10", "RR(rel=2)@10"), ("MRR@10", "RR@10"), ("Rprec", "Rprec"), ("Bpref", "Bpref"), ("infAP", "infAP"),
    ("nDCG(dcg='exp-log2')@10", "nDCG(dcg=exp-log2)@10"), ("nDCG(judged_only=True)@10", "nDCG(judged_only=True)@10"),
    ("AP(rel=2,judged_only=True)@100", "AP(judged_only=True,rel=2)@100"), ("ERR@20", "ERR@20"),
    ("Judged@10", "Judged@10"), ("Success@10", "Success@10"), ("NumRel", "NumRel"), ("NumRet", "NumRet"),
    ("NumRelRet", "NumRet(rel=1)"), ("RBP(p=0.9)", "RBP(p=0.9)"), ("RBP(rel=2,p=0.9)", "RBP(p=0.9,rel=2)"),
]  # fmt: skip


@pytest.mark.parametrize("expression, canonical", IR_MEASURES)
def test_ir_measures_objects(expression, canonical):
    """ir_measures measure objects are read from their name and parameters (str() where ir_measures' equals ours)."""
    ir_measures = pytest.importorskip("ir_measures")
    obj = eval(expression, vars(ir_measures))  # the test builds the object as a user would write it
    assert str(parse_measure(obj)) == canonical


def test_ir_measures_object_without_an_equivalent():
    ir_measures = pytest.importorskip("ir_measures")
    with pytest.raises(ValueError, match=r"has parameter `gains`=\{0: 0, 1: 1\}, which has no equivalent here"):
        parse_measure(ir_measures.nDCG(gains={0: 0, 1: 1}) @ 10)
    with pytest.raises(ValueError, match="unknown measure 'NumQ'"):
        parse_measure(ir_measures.NumQ)


def test_measure_error_carries_the_name_and_the_problem():
    with pytest.raises(MeasureError) as err:
        parse_measure("nDCG@0")
    assert isinstance(err.value, ValueError)
    assert err.value.measure == "nDCG@0" and err.value.problem == "the cut-off must be a positive integer; got 0"


def test_a_measure_value_is_checked_again_and_an_infinite_parameter_named():
    assert parse_measure(Measure("AP", (("rel", 2),), 10)) == parse_measure("AP(rel=2)@10")
    with pytest.raises(ValueError, match="measure P needs a cut-off"):
        parse_measure(Measure("P"))  # a hand-built Measure goes through the same checks
    with pytest.raises(ValueError, match=r"`p` of measure 'RBP\(p=1e999\)' must be a finite number; got inf"):
        parse_measure("RBP(p=1e999)")


def test_numbers_are_typed():
    # an integral number is an int (so 'rel=2' and 'rel=2.0' are one measure), others floats, booleans bools
    m = parse_measure("RBP(p=.5,rel=2.0,judged_only=1)")
    assert m.params == (("judged_only", True), ("p", 0.5), ("rel", 2))
    assert type(m.param("rel")) is int and type(m.param("p")) is float
    assert parse_measure("RBP(rel=2)") == parse_measure("RBP(rel=2.0)")


def _names_with_cutoffs():
    out = []
    for name, spec in MEASURE_SPECS.items():
        if spec.cutoff in ("optional", "required"):
            out.append((name, True))
        if spec.cutoff in ("optional", "none"):
            out.append((name, False))
    return out


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_names_with_cutoffs()), st.integers(1, 10_000), st.booleans(),
       st.floats(0.01, 0.99).map(lambda x: round(x, 3)))
def test_round_trip_of_the_canonical_string(name_cut, k, prime, p):
    # str(parse(text)) is a fixed point: parsing the canonical string gives the same measure and the same string
    name, with_cut = name_cut
    spec = MEASURE_SPECS[name]
    text = name + ("'" if prime and "judged_only" in spec.params else "")
    if "p" in spec.params:
        text += f"(p={p})"
    text += f"@{k}" if with_cut else ""
    m = parse_measure(text)
    assert parse_measure(str(m)) == m and str(parse_measure(str(m))) == str(m)
    assert m.name == name and m.cutoff == (k if with_cut else None)
    if "p" in spec.params:
        assert math.isclose(m.param("p"), p, rel_tol=0, abs_tol=0)  # a decimal written back by repr reads exactly


@pytest.mark.parametrize("text, canonical", [
    ("mrr@10", "RR@10"), ("MAP", "AP"), ("Map", "AP"), ("ndcg_cut_10", "nDCG@10"), ("NDCG_CUT_10", "nDCG@10"),
    ("NDCG_CUT.10", "nDCG@10"), ("p@10", "P@10"), ("p_5", "P@5"), ("rprec", "Rprec"), ("BPREF", "Bpref"),
    ("Recip_Rank", "RR"), ("numrelret", "NumRet(rel=1)"), ("INFAP", "infAP"), ("ndcg@10", "nDCG@10"),
    ("err@20", "ERR@20"), ("rbp(p=0.8)", "RBP(p=0.8)"),
])
def test_names_are_case_insensitive_where_unambiguous(text, canonical):
    """As trec_eval and ir_measures users write them: a name in another case is the one spelling it folds to."""
    assert str(parse_measure(text)) == canonical


def test_a_name_ambiguous_ignoring_case_is_refused_with_the_candidates(monkeypatch):
    import metrics.measures.names as mm

    # no two measures of the registry differ only in case today; a spelling table with such a pair must refuse
    assert all(len({mm._meaning(x) for x in v}) == 1 for v in mm._SPELLINGS.values())
    monkeypatch.setitem(mm._SPELLINGS, "xr", ["xR", "Xr"])
    monkeypatch.setattr(mm, "_meaning", lambda s: (s,))
    with pytest.raises(ValueError, match="ambiguous ignoring case: it could be xR or Xr"):
        parse_measure("XR@5")
    with pytest.raises(ValueError, match="unknown measure 'nosuch'"):
        parse_measure("nosuch")

