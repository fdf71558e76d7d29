"""Fixes as data (gtheory.kit.errors, also metrics.FixableError / FixableWarning): the errors and warnings that know what the caller can do carry the parameter and
the value, and their message ends with that advice in Python terms; a front end reads the attributes, not the text."""
from __future__ import annotations

import doctest
import pickle
import warnings

import numpy as np
import pytest

import metrics
import optimize
from metrics import FixableError, FixableWarning
import gtheory.kit.errors
from gtheory.kit.errors import python_fix


def test_doctests():
    import gtheory.kit.errors

    result = doctest.testmod(gtheory.kit.errors)
    assert result.attempted >= 4 and result.failed == 0


def test_one_error_protocol_parameter_error_is_a_fixable_error_with_rule_and_value():
    import gtheory

    assert gtheory.ParameterError.__mro__[1] is FixableError
    err = gtheory.ParameterError("cutoff", "`cutoff` must be a positive integer; got 0", rule="an integer >= 1",
                                 value=0, fix={"cutoff": 10})
    assert isinstance(err, ValueError) and isinstance(err, FixableError)
    assert (err.param, err.rule, err.value, err.fix) == ("cutoff", "an integer >= 1", 0, {"cutoff": 10})
    assert str(err) == "`cutoff` must be a positive integer; got 0; pass cutoff=10"
    back = pickle.loads(pickle.dumps(err))  # crosses process boundaries with everything it carries
    assert (type(back), back.param, back.rule, back.value, str(back)) == (type(err), "cutoff", "an integer >= 1", 0,
                                                                          str(err))
    plain = FixableError("`x` is bad", param="x")
    assert plain.rule is None and plain.value is None


def test_message_is_the_statement_then_the_advice():
    err = FixableError("`x` is 2", param="x", fix={"x": 1, "y": "a"}, fix_effect="do it")
    assert str(err) == "`x` is 2; pass x=1, y='a' to do it"
    assert (err.statement, err.param, err.fix, err.fix_effect) == ("`x` is 2", "x", {"x": 1, "y": "a"}, "do it")
    assert str(FixableError("plain")) == "plain" and FixableError("plain").fix == {}
    # a value no single setting gives (...), with the advice worded by the raiser
    err = FixableError("bad", fix={"names": ...}, advice="rename them")
    assert str(err) == "bad; rename them" and err.fix == {"names": ...}
    assert python_fix({"names": ...}) == "pass names=..."
    assert isinstance(err, ValueError)


@pytest.mark.parametrize("exc", [
    FixableError("s", param="p", fix={"a": 1}, fix_effect="e"),
    FixableError("s", fix={"names": ...}, advice="rename"),
    metrics.TrecFormatError("f.txt", 3, "docno twice", fix={"duplicates": "first"}, fix_effect="keep the first"),
])
def test_errors_pickle_with_their_fix(exc):
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is type(exc) and str(back) == str(exc)
    assert (back.statement, back.param, back.fix, back.fix_effect, back.advice) == \
           (exc.statement, exc.param, exc.fix, exc.fix_effect, exc.advice)


def test_a_warning_instance_keeps_its_fix_through_warnings_warn():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn(FixableWarning("low", fix={"judged_only": True}, fix_effect="condense"))
        warnings.warn("by class", metrics.LowCoverageWarning)  # the usual form still works, without a fix
    assert caught[0].category is FixableWarning and caught[0].message.fix == {"judged_only": True}
    assert str(caught[0].message) == "low; pass judged_only=True to condense"
    assert caught[1].message.fix == {} and str(caught[1].message) == "by class"


@pytest.fixture
def tiny(tmp_path):
    """Two runs, two topics; the qrels grade one document 1.5 and judge few of the retrieved documents."""
    (tmp_path / "q").write_text("1 0 a 1.5\n1 0 b 0\n2 0 a 1\n")
    for name in ("r1", "r2"):
        (tmp_path / name).write_text("".join(f"{t} Q0 {d} {r} {10 - r} {name}\n" for t in (1, 2)
                                             for r, d in enumerate("abcdefghij", 1)))
    return tmp_path


def test_judge_warnings_carry_their_fix(tiny):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        metrics.judge([tiny / "r1", tiny / "r2"], tiny / "q", workers=1)
    by_class = {type(w.message): w.message for w in caught}
    frac = by_class[metrics.FractionalGradeWarning]
    assert isinstance(frac, FixableWarning) and frac.fix == {"grades": "trec_eval"}
    assert str(frac).endswith("(atol); pass grades='trec_eval' to get trec_eval's numbers")
    low = by_class[metrics.LowCoverageWarning]
    assert low.fix == {"judged_only": True} and "only 15.0% of the documents" in low.statement
    assert str(low).endswith("; pass judged_only=True to evaluate condensed lists (the usual remedy, with bpref)")


@pytest.mark.filterwarnings("ignore::metrics.FixableWarning")
def test_library_errors_name_their_parameter_and_fix(tiny):
    levels = np.array([0.0, 1.0, 1.5])
    with pytest.raises(FixableError) as exc:
        metrics.gain_vector([0, 1, 2], levels)
    assert exc.value.param == "gain" and exc.value.fix == {"gain": ...}
    assert str(exc.value) == ("`gain` with numbers gives one gain per integer grade 0, 1, 2, ..., but the qrels hold "
                              "non-integer grades [1.5]; pass a mapping {grade: gain} instead")
    with pytest.raises(FixableError) as exc:
        metrics.gain_vector([0, 1], np.array([0.0, 1.0, 2.0]))
    assert exc.value.param == "gain" and exc.value.fix == {}
    with pytest.raises(FixableError) as exc:
        metrics.discount_vector("linear", 5)
    assert exc.value.fix == {"cutoff": ...} and str(exc.value).endswith("needs its k; give a cutoff, or write "
                                                                         "'linear(k=100)'")
    (tiny / "x").mkdir()
    (tiny / "x" / "r1").write_text((tiny / "r1").read_text())
    with pytest.raises(FixableError) as exc:
        metrics.judge([tiny / "r1", tiny / "x" / "r1"], tiny / "q", workers=1)
    assert exc.value.fix == {"names": ...} and str(exc.value).endswith("; read them with read_runs(names=...)")


def test_a_measure_with_a_bad_cutoff_names_the_part():
    with pytest.raises(metrics.MeasureError) as exc:
        metrics.parse_measure("ndcg_cut.0")
    assert (exc.value.measure, exc.value.problem) == ("ndcg_cut.0", "the cut-off must be a positive integer; got 0")
    assert str(exc.value) == "the cut-off in 'ndcg_cut.0' must be a positive integer; got '0'"


def test_an_incomplete_matrix_is_refused_with_the_judging_fix(tiny):
    (tiny / "short").write_text("".join(ln + "\n" for ln in (tiny / "r2").read_text().splitlines()
                                        if not ln.startswith("2 ")))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        judged = metrics.judge([tiny / "r1", tiny / "short"], tiny / "q", missing="exclude", workers=1)
    with pytest.raises(FixableError) as exc:
        optimize.optimize_discount(judged, gain="linear", cutoff=3, starts=1)
    assert (exc.value.param, exc.value.fix) == ("judged", {"missing": "zero"})
    from experiments._measures import _resolve_measure, _scores  # the incompleteness study's check of a measure

    with pytest.raises(FixableError) as exc:
        _scores(_resolve_measure("AP", "AP"), judged, False, "AP")
    assert (exc.value.param, exc.value.fix) == ("judged", {"missing": "zero"})
    assert str(exc.value).startswith("measure 'AP' returned NaN or infinite scores (is `judged` read with")


def test_metrics_names_are_the_kits():
    # one protocol: an error raised in metrics is caught as the kit's class and vice versa
    assert metrics.FixableError is gtheory.kit.errors.FixableError
    assert metrics.FixableWarning is gtheory.kit.errors.FixableWarning


@pytest.mark.parametrize("call, param, fix", [
    (lambda: metrics.discount_vector("linear", 5), None, {"cutoff": ...}),
    (lambda: metrics.discount_vector("rbp(p=2)", 5), "p", {}),
    (lambda: metrics.gain_vector([0, 1], np.array([0.0, 1.5])), "gain", {"gain": ...}),
    (lambda: metrics.gain_vector([0, np.nan], np.array([0.0, 1.0])), "gain", {}),
])
def test_metrics_errors_carry_the_parameter_and_fix(call, param, fix):
    # the parameter each raiser names, read from its signature (docs/architecture.md, "Errors and their fixes")
    with pytest.raises(gtheory.kit.errors.FixableError) as err:
        call()
    assert isinstance(err.value, ValueError)
    assert err.value.param == param and err.value.fix == fix
    if fix:  # the advice ends the message
        assert str(err.value).endswith(err.value.advice) and err.value.advice


def test_low_coverage_warning_suggests_judged_only():
    assert issubclass(metrics.LowCoverageWarning, gtheory.kit.errors.FixableWarning)
    with pytest.warns(metrics.LowCoverageWarning) as w:
        metrics.judge({"q": {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.5}}, {"q": {"a": 1}})
    assert w[0].message.fix == {"judged_only": True}
