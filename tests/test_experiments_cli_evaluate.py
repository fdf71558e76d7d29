"""Tests of the ``gtheory evaluate`` subcommand (experiments/cli/evaluate.py)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import judged_against_runs, toy_runs
from experiments.cli import main


# ---- --measure: the new measures, trec_eval and ir_measures spellings
def test_evaluate_accepts_new_measures_and_trec_eval_spellings(tmp_path, capsys):
    import pandas as pd

    import metrics

    runs, qrels = toy_runs(tmp_path)
    names = ["R@5", "recall.10", "Success@1", "success.5", "ERR@20", "Judged@10", "NumRel", "num_ret",
             "num_rel_ret", "NumRelRet(rel=2)", "ndcg_cut.5", "P.5", "map", "recip_rank"]
    csv = tmp_path / "s.csv"
    flags = [a for m in names for a in ("--measure", m)]
    assert main(["evaluate", "--runs", str(runs), "--qrels", str(qrels), *flags, "--out", str(csv)]) == 0
    long = pd.read_csv(csv, dtype={"topic": str})
    assert list(long["measure"].unique()) == names  # labelled as typed, in the order given
    judged = metrics.judge(str(runs), str(qrels))
    for name in names:
        want = metrics.evaluate(judged, name).stack().rename("score").reset_index()
        got = long[long["measure"] == name].drop(columns="measure").reset_index(drop=True)
        assert np.allclose(got["score"], want["score"], rtol=1e-9, atol=0), name  # CSV keeps 10 digits
    # ndcg_cut.5 is nDCG@5: --gain applies to it
    capsys.readouterr()
    assert main(["evaluate", "--runs", str(runs), "--qrels", str(qrels), "--measure", "ndcg_cut.5", "--gain",
                 "exponential", "--json"]) == 0
    got = [r["score"] for r in json.loads(capsys.readouterr().out)]
    assert np.allclose(got, metrics.ndcg(judged, gain="exponential", cutoff=5).stack().to_numpy())


@pytest.mark.parametrize("options", [["--measure", "nDCG@10", "--measure", "AP", "--measure", "NumRelRet"],
                                     ["--measure", "AP", "--measure", "P@5", "--sort", "mean", "-l", "2", "--quiet"]])
def test_judged_per_run_table_without_pandas(tmp_path, capsys, options):
    """After `gtheory judge`, the per-run table from --judged is what --runs/--qrels prints, computed without importing
    pandas or scipy (their import would be most of the command's time)."""
    want, got, loaded = judged_against_runs(tmp_path, capsys, "evaluate", options)
    assert loaded == [] and got == want and "runA" in got


@pytest.mark.parametrize("args, match", [
    (["--measure", "nDCG@10", "--measure", "ndcg_cut.10"], "--measure ndcg_cut.10 and --measure nDCG@10 are the same measure (nDCG@10)"),
    (["--measure", "recall"], "measure R needs a cut-off, e.g. R@10"),
    (["--measure", "P.5,10"], "give them one by one: P.5, P.10"),
    (["--measure", "ERR(max_grade=1)@20"], "--measure ERR(max_grade=1)@20: the qrels hold grade 2, above max_grade=1"),
])
def test_evaluate_measure_errors(tmp_path, capsys, monkeypatch, args, match):
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    runs, qrels = toy_runs(tmp_path)
    assert main(["evaluate", "--runs", str(runs), "--qrels", str(qrels), *args]) == 2
    err = capsys.readouterr().err
    assert match in err and "Traceback" not in err


# ---- the per-run table (trec_eval's all rows), --means, --per-topic
@pytest.fixture(scope="module")
def small(embedded_trec9, tmp_path_factory) -> str:

    path = tmp_path_factory.mktemp("evaluate") / "small.npz"
    embedded_trec9.subset(systems=[0, 10, 20], topics=list(range(8))).save(path)
    return str(path)


def test_without_out_prints_the_per_run_table(small, capsys):
    import metrics

    assert main(["evaluate", "--judged", small, "--measure", "AP", "--measure", "NumRelRet"]) == 0
    out = capsys.readouterr().out
    j = metrics.JudgedRuns.load(small)
    ap = metrics.evaluate(j, "AP").mean(axis=1)  # the mean over the 8 topics, computed here from the frame
    nrr = metrics.evaluate(j, "NumRelRet").sum(axis=1)  # trec_eval's all row sums num_rel_ret
    for s in j.systems:
        cells = next(ln for ln in out.splitlines() if ln.startswith(s)).split()
        assert cells[1:] == ["8", f"{ap[s]:.4f}", f"{nrr[s]:.0f}"]


def test_means_and_per_topic_rows(small, tmp_path, capsys):
    import pandas as pd

    import metrics

    j = metrics.JudgedRuns.load(small)
    path = tmp_path / "means.csv"
    assert main(["evaluate", "--judged", small, "--measure", "AP", "--measure", "P@5", "--means", "--out",
                 str(path)]) == 0
    means = pd.read_csv(path, index_col="system")
    assert list(means.columns) == ["num_q", "AP", "P@5"]
    np.testing.assert_allclose(means["P@5"], metrics.evaluate(j, "P@5").mean(axis=1), rtol=1e-9)  # %.10g written
    assert main(["evaluate", "--judged", small, "--measure", "AP", "--means", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["system"] for r in records] == list(j.systems) and all(r["num_q"] == 8 for r in records)
    assert main(["evaluate", "--judged", small, "--measure", "AP", "--per-topic"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "system,topic,measure,score" and len(rows) == 1 + 3 * 8
    assert main(["evaluate", "--judged", small, "--means", "--format", "wide"]) == 2
    assert "--format lays out the per-topic rows" in capsys.readouterr().err


def test_an_unknown_measure_fails_before_any_file_is_read(tmp_path, capsys):
    # the runs and qrels do not exist: the measure is refused first (it used to be refused after reading every run)
    argv = ["--runs", str(tmp_path / "no-runs"), "--qrels", str(tmp_path / "no-qrels"), "--measure", "nDGC@10"]
    for command in ("evaluate", "gstudy", "robustness"):
        assert main([command, *argv]) == 2
        err = capsys.readouterr().err
        assert f"gtheory {command}: error: --measure nDGC@10: unknown measure 'nDGC'" in err
        assert "known measures: AP" in err
        assert "no-runs" not in err


@pytest.mark.filterwarnings("ignore::gtheory.NegativeVarianceWarning")  # sigma^2(topic) < 0 on this small subset
def test_evaluate_and_gstudy_default_to_the_same_measure(small, capsys):
    import gtheory
    import metrics

    from experiments.cli._measures import DEFAULT_MEASURE

    assert DEFAULT_MEASURE == "nDCG@10"
    j = metrics.JudgedRuns.load(small)
    assert main(["evaluate", "--judged", small, "--per-topic"]) == 0
    assert set(line.split(",")[2] for line in capsys.readouterr().out.splitlines()[1:]) == {"nDCG@10"}
    assert main(["gstudy", "--judged", small, "--json", "--n-topics", "8"]) == 0
    d = json.loads(capsys.readouterr().out)
    want = gtheory.gstudy(metrics.ndcg(j, cutoff=10)).phi(8)  # the G-study of nDCG@10, computed here
    assert d["dstudy"][0]["phi"] == pytest.approx(want, rel=1e-12)


def test_progress_option():
    import argparse

    from experiments.cli._data import progress_option

    ns = argparse.Namespace
    assert progress_option(ns(quiet=True, progress=True)) is False
    assert progress_option(ns(quiet=False, progress=True)) is True
    assert progress_option(ns(quiet=False, progress=False)) == "auto"


def test_a_measure_that_names_its_lists_keeps_them_without_judged_only(small, tmp_path, capsys):
    # AP' is AP on condensed lists (judged_only=True in its name): without --judged-only the CLI has no opinion,
    # with it they agree; before, the flag's default False contradicted the name and the command failed
    import pandas as pd

    import metrics

    j = metrics.JudgedRuns.load(small)
    want = metrics.evaluate(j, "AP(judged_only=True)").mean(axis=1)
    for flags in ([], ["--judged-only"]):
        path = tmp_path / f"ap{len(flags)}.csv"
        assert main(["evaluate", "--judged", small, "--measure", "AP'", "--means", "--out", str(path), *flags]) == 0
        got = pd.read_csv(path, index_col="system").iloc[:, -1]
        np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=1e-9)  # %.10g written
    assert not np.allclose(want, metrics.evaluate(j, "AP").mean(axis=1))  # the condensed lists matter here


def test_the_out_name_chooses_json_and_a_name_of_another_format_is_refused(tmp_path, capsys):
    """evaluate --out e.json writes the JSON records (as --json); a .tex/.md/.xlsx name is refused (the file would
    be CSV); .csv, compressed and extension-less names are CSV."""
    import json

    assert main(["evaluate", "--out", str(tmp_path / "e.json"), "-q"]) == 0
    rows = json.loads((tmp_path / "e.json").read_text())
    assert set(rows[0]) == {"system", "topic", "measure", "score"}
    for name in ("e.tex", "e.md", "e.xlsx"):
        assert main(["evaluate", "--out", str(tmp_path / name), "-q"]) == 2
        assert "evaluate writes CSV (or JSON with --json)" in capsys.readouterr().err
    assert main(["evaluate", "--out", str(tmp_path / "e.csv"), "-q"]) == 0
    assert (tmp_path / "e.csv").read_text().startswith("system,topic,measure,score")


def test_runs_from_several_directories(tmp_path, capsys):
    """--runs DIR1 DIR2 reads the runs of both directories (it failed with "expected a file, got a directory"); a
    system name in both is refused, naming the two files."""
    import shutil

    from conftest import toy_runs

    runs, qrels = toy_runs(tmp_path)
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    for name, where in (("runA", a), ("runB", a), ("runC", b), ("runD", b)):
        shutil.copy(runs / f"{name}.txt", where)
    argv = ["evaluate", "--qrels", str(qrels), "--json", "-q"]
    assert main([*argv, "--runs", str(a), str(b)]) == 0
    both = json.loads(capsys.readouterr().out)
    assert main([*argv, "--runs", str(runs)]) == 0
    assert both == json.loads(capsys.readouterr().out)
    shutil.copy(runs / "runA.txt", b)
    assert main([*argv, "--runs", str(a), str(b)]) == 2
    assert "several run files give the same system name(s) ['runA']" in capsys.readouterr().err


def test_runs_given_twice_are_refused(tmp_path, capsys):
    from conftest import toy_runs

    runs, qrels = toy_runs(tmp_path)
    for extra in ([str(runs)], [str(runs / "runA.txt")]):
        assert main(["evaluate", "--runs", str(runs), *extra, "--qrels", str(qrels), "-q"]) == 2
        assert "runA.txt is given twice" in capsys.readouterr().err
