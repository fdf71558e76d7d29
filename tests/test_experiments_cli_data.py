"""Tests of experiments/cli/_data.py: the data options, the judged runs they name and the shape checks, called
directly (the command-line runs through main() are in test_experiments_cli_common.py)."""
from __future__ import annotations

import argparse
import re

import numpy as np
import pytest

import metrics
from conftest import toy_runs
from experiments.cli import UsageError, build_parser
from experiments.cli._data import (_policy, check_shape, drop_missed_topics, load_judged, positive_int,
                                   progress_option)


def _args(*argv):
    return build_parser().parse_args(["evaluate", *argv])


@pytest.mark.parametrize("text, value", [("1", 1), ("250", 250)])
def test_positive_int_accepts(text, value):
    assert positive_int("--depth")(text) == value


@pytest.mark.parametrize("text, message", [("0", "must be a positive integer; got 0"),
                                           ("-3", "must be a positive integer; got -3"),
                                           ("ten", "must be a positive integer; got 'ten'"),
                                           ("2.5", "must be a positive integer; got '2.5'")])
def test_positive_int_refuses_naming_the_value(text, message):
    parse = positive_int("--depth")
    assert parse.__name__ == "--depth"
    with pytest.raises(argparse.ArgumentTypeError, match=re.escape(message)):
        parse(text)


def test_given_options_are_recorded_and_defaults_are_not():
    a = _args()
    assert a.depth == 1000 and not getattr(a, "_given_depth", False)
    b = _args("--depth", "1000", "--missing", "exclude")
    assert b._given_depth and b._given_missing and b.missing == "exclude"


def test_progress_option():
    assert progress_option(argparse.Namespace(quiet=True, progress=True)) is False
    assert progress_option(argparse.Namespace(quiet=False, progress=True)) is True
    assert progress_option(argparse.Namespace()) == "auto"


def test_unbalanced_policies_are_for_gstudy_only():
    assert _policy(argparse.Namespace(missing="zero")) == "zero"
    assert _policy(argparse.Namespace(missing="reml", allow_unbalanced=True)) == "exclude"
    with pytest.raises(UsageError, match=re.escape("--missing henderson applies to gstudy only")):
        _policy(argparse.Namespace(missing="henderson"))


def test_load_judged_reads_runs_as_the_library_does(tmp_path, capsys):
    runs, qrels = toy_runs(tmp_path)
    j = load_judged(_args("--runs", str(runs), "--qrels", str(qrels), "--depth", "10"))
    ref = metrics.judge(runs, qrels, depth=10, progress=False)
    assert j.systems == ref.systems and j.topics == ref.topics and j.depth == 10
    np.testing.assert_array_equal(j.grades, ref.grades)
    assert capsys.readouterr().err.startswith("gtheory evaluate: ")  # the one coverage line


def test_a_topic_a_run_does_not_return_is_a_note_not_a_silent_zero(tmp_path, capsys):
    runs, qrels = toy_runs(tmp_path)
    full = load_judged(_args("--runs", str(runs), "--qrels", str(qrels)))
    assert "does not return" not in capsys.readouterr().err  # every run returns every topic: no note
    path = runs / "runB.txt"  # runB loses topic 3 (a run cut short, a topic lost in a conversion)
    path.write_text("".join(line for line in path.read_text().splitlines(keepends=True) if not line.startswith("3 ")))
    j = load_judged(_args("--runs", str(runs), "--qrels", str(qrels)))
    err = capsys.readouterr().err
    assert "note: run runB does not return topic 3 (1 run/topic pair): scored 0 there" in err
    assert "--missing exclude" in err
    # the scores are trec_eval -c's (0 for that cell), the others unchanged
    score = metrics.ndcg(j, cutoff=10)
    assert score.loc["runB", "3"] == 0 and score.drop(index="runB").equals(metrics.ndcg(full, cutoff=10).drop(index="runB"))
    load_judged(_args("--runs", str(runs), "--qrels", str(qrels), "--quiet"))
    assert capsys.readouterr().err == ""


def test_load_judged_saved_tensor_and_embedded_data(embedded_trec9, tmp_path):
    runs, qrels = toy_runs(tmp_path)
    ref = metrics.judge(runs, qrels, progress=False)
    path = tmp_path / "t.npz"
    ref.save(path)
    j = load_judged(_args("--judged", str(path), "--missing", "exclude"))
    np.testing.assert_array_equal(j.grades, ref.grades)
    assert j.missing == "exclude"  # the policy applies to a saved tensor too
    assert load_judged(_args()).n_systems == embedded_trec9.n_systems


@pytest.mark.parametrize("argv, message", [
    (["--judged", "{npz}", "--runs", "{runs}"], "give either --judged or --runs/--qrels, not both"),
    (["--runs", "{runs}"], "--runs and --qrels go together"),
    (["--runs", "{missing}", "--qrels", "{qrels}"], "no such run file or directory: "),
    (["--judged", "{npz}", "--depth", "5"], "--depth 5: the --judged tensor"),
    (["--judged", "{npz}", "--duplicates", "first"], "--duplicates applies to run files read with --runs, not to the "
                                                     "--judged tensor"),
    (["--depth", "7"], "--depth 7: the embedded TREC-9 data is judged to depth 1000 and cannot be cut here"),
])
def test_load_judged_refusals_are_usage_errors_naming_the_options(tmp_path, argv, message):
    runs, qrels = toy_runs(tmp_path)
    npz = tmp_path / "t.npz"
    metrics.judge(runs, qrels, progress=False).save(npz)
    fill = dict(npz=npz, runs=runs, qrels=qrels, missing=tmp_path / "nope")
    with pytest.raises(UsageError, match=re.escape(message)):
        load_judged(_args(*(a.format(**fill) for a in argv)))


def _with_a_missed_topic(missing):
    qrels = {t: {"a": 1, "b": 0} for t in ("1", "2", "3")}
    runs = {"s0": {"1": {"a": 2.0, "b": 1.0}, "2": {"a": 1.0}, "3": {"b": 1.0}},
            "s1": {"1": {"a": 1.0}, "3": {"a": 1.0, "b": 2.0}}}  # s1 does not return topic 2
    return metrics.judge(runs, qrels, missing=missing, progress=False)


def test_drop_missed_topics(capsys):
    j = _with_a_missed_topic("exclude")
    kept = drop_missed_topics(j, "tune")
    assert kept.topics == ("1", "3")
    err = capsys.readouterr().err
    assert "dropped 1 of 3 topics that run s1 does not return (topic 2); the study uses the other 2." in err
    z = _with_a_missed_topic("zero")
    assert drop_missed_topics(z, "tune") is z
    assert drop_missed_topics(j, "tune", quiet=True).topics == ("1", "3") and capsys.readouterr().err == ""


def test_check_shape():
    check_shape(np.zeros((2, 2)))
    with pytest.raises(UsageError, match=re.escape("the data has only 1 system; at least 2 are needed.")):
        check_shape(np.zeros((1, 5)))
    with pytest.raises(UsageError, match=re.escape("the data has only 3 topics; at least 4 are needed.")):
        check_shape(_with_a_missed_topic("zero"), min_topics=4)
