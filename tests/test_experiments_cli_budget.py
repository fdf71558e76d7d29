"""Tests of the ``gtheory budget`` subcommand (experiments/cli/budget.py): its table, JSON and CSV are
experiments.topic_depth_budget's on the same judged runs (TREC-9 run files read from disk, or the embedded tensor);
bad input is one line on stderr naming the option, exit 2, nothing written."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import metrics
from conftest import run_files, shared, toy_runs
from experiments.budget import TopicBudget, topic_depth_budget
from experiments.cli import SUBCOMMANDS, main


@pytest.fixture(scope="module")
def trec9_slice() -> tuple[list[str], str]:
    """8 of the 104 TREC-9 Web run files (every 12th) and the qrels: a small real pilot read from disk."""
    shared("trec9-web-wt10g")
    files, qrels = run_files("trec9")
    return [str(f) for f in files[::3][:8]], str(qrels)


def test_registered():
    assert "budget" in SUBCOMMANDS


def test_runs_and_qrels_end_to_end(tmp_path, capsys, trec9_slice):
    runs, qrels = trec9_slice
    out = tmp_path / "budget.json"
    argv = ["budget", "--runs", *runs, "--qrels", qrels, "--depth", "100", "--measure", "nDCG@10",
            "--depths", "10", "20", "50", "100", "--target", "0.8", "--out", str(out), "--progress"]
    assert main(argv) == 0
    cap = capsys.readouterr()
    assert "depth 100 done (4 of 4)" in cap.err  # --progress: a line per depth on stderr
    judged = metrics.judge(runs, qrels, depth=100, progress=False)
    api = topic_depth_budget(judged, "nDCG@10", depths=[10, 20, 50, 100], target=0.8)
    assert TopicBudget.from_json(out) == api  # the whole result, exactly
    assert f"budget written to {out}" in cap.err
    assert cap.out.startswith("nDCG@10 over runs in")
    assert "8 systems × 50 topics" in cap.out
    for req, name in (("phi", "Φ"), ("erho2", "Eρ²"), ("paired_t", "paired t")):
        c = api.cheapest(req)
        assert f"cheapest for {name}: depth {c['depth']}, {int(c['topics'])} topics" in cap.out
    # the judging cost grows with the depth on real pools (each deeper pool holds the shallower one)
    assert np.all(np.diff(api.table["judged_per_topic"]) > 0)


def test_csv_json_and_bootstrap_on_the_embedded_runs(embedded_trec9, tmp_path, capsys):
    csv = tmp_path / "b.csv"
    argv = ["budget", "--measure", "P@10", "--depths", "10", "30", "--target", "0.8", "--bootstrap", "50",
            "--seed", "4", "--workers", "2", "--out", str(csv), "--json"]
    assert main(argv) == 0
    printed = json.loads(capsys.readouterr().out)
    api = topic_depth_budget(embedded_trec9, "P@10", depths=[10, 30], target=0.8, bootstrap=50, seed=4)
    assert TopicBudget.from_json(json.dumps(printed)) == api  # two workers: the same numbers
    table = pd.read_csv(csv)
    assert list(table.columns) == list(api.table.columns)
    # CSV writes floats with repr, so the round trip is exact
    assert np.array_equal(table.to_numpy(float), api.table.to_numpy(float), equal_nan=True)
    # P@10 sees ranks 1-10 only: the depth-10 pool already holds every judgment it uses
    assert table["var_residual"].iloc[0] == table["var_residual"].iloc[1]


def test_plot_and_out_to_stdout(tmp_path, capsys):
    runs, qrels = toy_runs(tmp_path)
    png = tmp_path / "b.png"
    assert main(["budget", "--runs", str(runs), "--qrels", str(qrels), "--measure", "P@5", "--depths", "2", "5",
                 "--target", "0.5", "--min-diff", "0.2", "--out", "-", "--out-format", "csv", "--plot",
                 str(png)]) == 0
    cap = capsys.readouterr()
    assert cap.out.splitlines()[0].startswith("depth,judged_per_topic,coverage")  # only the CSV on stdout
    assert len(cap.out.splitlines()) == 3 and png.stat().st_size > 0


@pytest.mark.parametrize("argv, words", [
    (["--depths", "10", "2000"], "--depths must be at most the runs' depth (1000)"),
    (["--seed", "3"], "--seed is the seed of the --bootstrap resamples"),
    (["--bootstrap", "3"], "--bootstrap must be at least 10"),
    (["--target", "1.5"], "--target must be a probability strictly in (0, 1); got 1.5"),
    (["--min-diff", "0"], "--min-diff must be a positive finite number; got 0"),
    (["--power", "0.04"], "--power must exceed --alpha (0.05)"),
    (["--depths", "0", "5"], "--depths must be an integer >= 1"),
    (["--measure", "nDCG@0"], "nDCG@0"),
    (["--measure", "NoSuchMeasure"], "NoSuchMeasure"),
    (["--out", "budget.txt"], "must end in .json"),
    (["--out", "x.csv", "--out-format", "json"], "give one format"),
    (["--out-format", "csv"], "--out-format applies to --out"),
    (["--json", "--out", "-", "--out-format", "json"], "both write standard output"),
    (["--runs", "nosuchdir"], "--runs and --qrels go together"),
])
def test_bad_input_is_one_line_naming_the_option(tmp_path, capsys, monkeypatch, argv, words):
    monkeypatch.chdir(tmp_path)
    assert main(["budget", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("gtheory budget: error:") and len(err.splitlines()) == 1 and words in err
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_missing_output_directory_and_bad_depth(tmp_path, capsys):
    assert main(["budget", "--out", str(tmp_path / "nodir" / "b.json")]) == 2
    assert "--out" in capsys.readouterr().err
    # a depth must be an integer >= 1: the API's rule (the parameter table), before any run is read
    assert main(["budget", "--depths", "0"]) == 2
    assert "--depths must be an integer >= 1" in capsys.readouterr().err
