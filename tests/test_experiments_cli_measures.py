"""Tests of experiments/cli/_measures.py: --measure with the nDCG options, resolved and checked before any data
is read."""
from __future__ import annotations

import re

import pytest

import optimize
from experiments.cli import UsageError, build_parser
from experiments.cli._measures import check_measure_names, resolve_measures


def _args(*argv):
    return build_parser().parse_args(["evaluate", *argv])


def test_the_toy_tensor_of_the_name_checks_is_the_judged_one():
    """check_measure_names runs each name on a tensor written out (no judging, no pandas): the one judge() makes."""
    import dataclasses
    import warnings

    import numpy as np

    import metrics
    from experiments.cli._measures import _toy_judged

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = metrics.judge({"a": {"1": {"d1": 2.0, "d2": 1.0}}, "b": {"1": {"d2": 2.0, "u": 1.0}}},
                             {"1": {"d1": 0, "d2": 0}}, progress=False, workers=1)
    got = _toy_judged()
    for f in dataclasses.fields(want):
        a, b = getattr(got, f.name), getattr(want, f.name)
        if isinstance(b, np.ndarray):
            assert a.dtype == b.dtype and np.array_equal(a, b), f.name
        elif f.name == "report":
            assert all(b[k] == v for k, v in a.items()), f.name
        else:
            assert a == b, f.name


def test_unknown_or_malformed_measures_are_usage_errors():
    check_measure_names(["AP", "nDCG@10", "P@5"])
    with pytest.raises(UsageError, match=re.escape("--measure nDCG@0:")):
        check_measure_names(["AP", "nDCG@0"])
    with pytest.raises(UsageError, match="nosuch"):
        check_measure_names(["nosuch"])


def test_defaults_and_given_options():
    r = resolve_measures(_args(), ["nDCG@10", "AP"], command="evaluate")
    assert r == {"tuning": None, "gain": "linear", "discount": "log2", "measures": ["nDCG@10", "AP"]}
    r = resolve_measures(_args("--gain", "0", "1", "3", "--discount", "zipf"), ["nDCG@5"], command="evaluate")
    assert r["gain"] == [0.0, 1.0, 3.0] and r["discount"] == "zipf"


def test_a_measure_given_twice_in_two_spellings_is_refused():
    with pytest.raises(UsageError, match=re.escape("--measure ndcg_cut.10 and --measure nDCG@10 are the same measure "
                                                   "(nDCG@10); give each measure once.")):
        resolve_measures(_args(), ["nDCG@10", "ndcg_cut.10"], command="evaluate")


def test_ndcg_options_without_ndcg_are_refused():
    with pytest.raises(UsageError, match=re.escape("--gain applies to nDCG; --measure AP, P@5 are not nDCG.")):
        resolve_measures(_args("--gain", "exponential"), ["AP", "P@5"], command="evaluate")


@pytest.fixture(scope="module")
def tuning_file(embedded_trec9, tmp_path_factory):
    j = embedded_trec9.subset(systems=range(0, 104, 10), topics=range(12))
    path = tmp_path_factory.mktemp("tuning") / "t.json"
    optimize.optimize_discount(j, gain="linear", cutoff=5, starts=1).to_json(path)
    return str(path)


def test_a_tuning_relabels_ndcg_at_its_cutoff(tuning_file):
    r = resolve_measures(_args("--tuning", tuning_file), ["nDCG", "nDCG@3"], command="evaluate")
    assert r["measures"] == ["nDCG@5", "nDCG@3"] and r["gain"] is None and r["tuning"].cutoff == 5


@pytest.mark.parametrize("argv, measures, message", [
    (["--gain", "linear"], ["nDCG@5"], "--gain and --tuning exclude each other"),
    ([], ["nDCG@5", "AP"], "--tuning applies to nDCG; --measure AP is not nDCG"),
    ([], ["nDCG@10"], "--measure nDCG@10: --tuning {path} has discount weights up to rank 5 only; use nDCG@5 or less"),
])
def test_tuning_conflicts(tuning_file, argv, measures, message):
    with pytest.raises(UsageError, match=re.escape(message.format(path=tuning_file))):
        resolve_measures(_args("--tuning", tuning_file, *argv), measures, command="evaluate")


def test_a_tuning_given_as_discount_with_another_gain_warns(tuning_file, capsys):
    resolve_measures(_args("--discount", tuning_file), ["nDCG@5"], command="evaluate")
    assert capsys.readouterr().err == ""  # tuned with linear gains, --gain linear (the default): no warning
    resolve_measures(_args("--discount", tuning_file, "--gain", "exponential"), ["nDCG@5"], command="evaluate")
    err = capsys.readouterr().err
    assert f"warning: --discount {tuning_file} is a tuning whose gain" in err and "is not --gain exponential" in err
