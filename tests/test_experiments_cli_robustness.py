"""Tests of the ``gtheory robustness`` subcommand (experiments/cli/robustness.py).

The CLI's numbers are checked against the Python API (experiments.incompleteness_study / knee) called
with the same settings, and the --runs/--qrels path against metrics.judge on the same files.
"""
from __future__ import annotations

import glob
import json
import os

import pandas as pd
import pytest

import metrics
from experiments import incompleteness_study, knee
from experiments.cli import main

from conftest import SHARED, shared

TREC9 = SHARED / "trec9-web-wt10g"
QRELS = str(TREC9 / "qrels.trec9.web.451-500.txt")


@pytest.fixture(scope="module")
def api_study(embedded_trec9):
    return incompleteness_study(
        embedded_trec9, {"nDCG@100": "nDCG@100"}, fractions=(1.0, 0.3), seeds=2, judged_only=(False, True),
        test="t",
    )


def test_table_matches_api(capsys, api_study):
    argv = ["robustness", "--measure", "nDCG@100", "--fractions", "1", "0.3", "--seeds", "2", "--judged-only",
            "--test", "t"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "nDCG@100\n" in out and "nDCG@100 (condensed)\n" in out
    for cond in (False, True):
        rows = api_study[(api_study.judged_only == cond) & (api_study.fraction == 0.3)]
        assert f"{rows.tau.mean():.4f} ± {rows.tau.std():.3f}" in out
        assert f"{rows.accuracy.mean():.4f}" in out and f"{rows.drift.mean():.4f}" in out
        k = knee(api_study).set_index("judged_only").loc[cond]
        assert f"knee (tau >= 0.9): f = {k.knee:g} (tau = {k.value_at_knee:.4f})" in out


def test_json_and_csv_match_api(capsys, tmp_path, api_study):
    csv = tmp_path / "study.csv"
    argv = ["robustness", "--measure", "nDCG@100", "--fractions", "1", "0.3", "--seeds", "2", "--judged-only",
            "--test", "t", "--json", "--out", str(csv)]
    assert main(argv) == 0
    cap = capsys.readouterr()
    data = json.loads(cap.out)
    assert data["n_systems"] == 104 and data["fractions"] == [1.0, 0.3] and data["test"] == "t"
    curves = {(c["measure"], c["judged_only"]): c for c in data["curves"]}
    assert set(curves) == {("nDCG@100", False), ("nDCG@100", True)}
    for (m, cond), c in curves.items():
        rows = api_study[(api_study.judged_only == cond)]
        assert [r["fraction"] for r in c["rows"]] == [1.0, 0.3]
        assert c["rows"][0]["tau"] == 1.0 and c["rows"][0]["drift"] == 0.0
        assert c["rows"][1]["tau"] == pytest.approx(rows[rows.fraction == 0.3].tau.mean(), abs=1e-15)
        assert c["rows"][1]["power"] == pytest.approx(rows[rows.fraction == 0.3].power.mean(), abs=1e-15)
        expected_knee = knee(api_study).set_index("judged_only").loc[cond, "knee"]
        assert c["knee"] == expected_knee
    saved = pd.read_csv(csv)
    pd.testing.assert_frame_equal(
        saved[["measure", "judged_only", "fraction", "seed", "tau", "accuracy"]],
        api_study[["measure", "judged_only", "fraction", "seed", "tau", "accuracy"]].reset_index(drop=True),
        check_exact=False, rtol=1e-12,
    )


def test_runs_and_qrels_plot_and_quiet(capsys, tmp_path):
    runs = sorted(glob.glob(f"{shared('trec9-web-wt10g')}/runs_full_xz/*.xz"))[::20][:5]
    d = tmp_path / "runs"
    d.mkdir()
    for r in runs:
        os.symlink(r, d / os.path.basename(r))
    png = tmp_path / "fig.png"
    argv = ["robustness", "--runs", str(d), "--qrels", QRELS, "--measure", "AP", "--fractions", "1", "0.5",
            "--seeds", "1", "--test", "none", "--plot", str(png), "--quiet"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    # --quiet: the results on stdout, no progress and no notes on stderr
    assert "robustness" not in captured.err and "plot written to" not in captured.err and captured.out.strip()
    assert png.stat().st_size > 1000 and png.read_bytes()[:4] == b"\x89PNG"

    assert main(argv[:-3] + ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["n_systems"] == 5 and data["test"] is None
    j = metrics.judge([str(d / os.path.basename(r)) for r in runs], QRELS, workers=1)
    expected = incompleteness_study(j, "AP", fractions=(1.0, 0.5), seeds=1, judged_only=False, test=None)
    assert data["curves"][0]["rows"][1]["tau"] == pytest.approx(float(expected.tau.iloc[1]), abs=1e-15)


@pytest.mark.parametrize(
    "args, match",
    [
        (["--fractions", "1", "0"], "--fractions must be in (0, 1]"),
        (["--fractions", "1.5"], "--fractions must be in (0, 1] (shares of the judgments kept); got 1.5"),
        (["--fractions", "0.5", "0.5"], "--fractions must be distinct"),
        (["--seeds", "0"], "--seeds N must be a positive number of seeds; got 0"),
        (["--alpha", "2"], "--alpha must be a probability strictly in (0, 1); got 2"),
        (["--measure", "NoSuchMeasure"], "unknown measure 'NoSuchMeasure'"),
        (["--qrels", QRELS], "--runs and --qrels go together"),
        # accepted before: a knee that no tau can reach; a level above every grade (and the header claimed
        # "at least 1 relevant ... kept")
        (["--threshold", "2"], "--threshold is a level of Kendall's tau, in [-1, 1]; got 2."),
        (["--relevance-level", "5"], "--relevance-level must split the qrels grades (0 1 2) into relevant (>= it) "
                                     "and non-relevant: a value in (0, 2]; got 5."),
        (["--relevance-level", "0"], "-l/--relevance-level must be a positive finite number; got 0."),  # as everywhere
        # the Python API's `top_k` is the --top-k the user typed
        (["--test", "t", "--top-k", "500"], "--top-k must not exceed the number of systems (104); got 500."),
    ],
)
def test_bad_input_exit_2_without_traceback(capsys, monkeypatch, args, match):
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    assert main(["robustness", "--test", "none", "--seeds", "1", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gtheory robustness: error:")
    assert match in err and "Traceback" not in err and "`" not in err


def test_progress_per_measure_fraction_and_seed_unless_quiet(capsys):
    argv = ["robustness", "--measure", "AP", "--measure", "P@10", "--fractions", "1", "0.5", "--seeds", "2",
            "--test", "none"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    steps = [ln.split("robustness ", 1)[1] for ln in err.splitlines() if "robustness [" in ln]
    assert len(steps) == 2 * 2 * 2 and steps[0] == "[1/8] AP: f=1, seed 0" and steps[-1] == "[8/8] P@10: f=0.5, seed 1"
    assert main(argv + ["--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_one_system_error_names_the_data_not_a_parameter(embedded_trec9, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    one = tmp_path / "one.npz"
    embedded_trec9.subset(systems=[0]).save(one)
    for cmd in (["robustness", "--fractions", "1", "--seeds", "1", "--test", "none"],
                ["sweep", "--cutoffs", "10", "--gains", "linear", "--discounts", "log2", "--workers", "1"]):
        assert main([*cmd, "--judged", str(one)]) == 2
        err = capsys.readouterr().err
        assert "the data has only 1 system; at least 2 are needed" in err and "`" not in err, err


def test_missing_exclude_drops_the_missed_topics_with_a_note(embedded_trec9, tmp_path, capsys):
    # was refused with the API's advice "a JudgedRuns with missing='exclude'?"; now as `gtheory sweep` does
    import dataclasses

    small = embedded_trec9.subset(systems=range(0, 104, 8), topics=range(12))
    n_ret = small.n_retrieved.copy()
    n_ret[2, 3] = 0
    path = tmp_path / "exclude.npz"
    dataclasses.replace(small, n_retrieved=n_ret, missing="exclude").save(path)
    argv = ["robustness", "--judged", str(path), "--missing", "exclude", "--fractions", "1", "0.5", "--seeds", "1", "--test", "none",
            "--json"]
    assert main(argv) == 0
    cap = capsys.readouterr()
    assert cap.err.startswith(f"gtheory robustness: note: --missing exclude: dropped 1 of 12 topics that run "
                              f"{small.systems[2]} does not return (topic 454); the study uses the other 11.\n")
    data = json.loads(cap.out)
    kept = small.subset(topics=[t for t in small.topics if t != "454"])
    want = incompleteness_study(kept, "nDCG@10", fractions=(1.0, 0.5), seeds=1, judged_only=False, test=None)
    assert data["n_topics"] == 11
    assert data["curves"][0]["rows"][1]["tau"] == pytest.approx(float(want.tau.iloc[1]), abs=1e-15)


@pytest.mark.parametrize("option", ["--out", "--plot"])
def test_output_into_a_missing_directory_is_refused_before_loading(tmp_path, capsys, option):
    bad = tmp_path / "nodir" / "x.out"
    assert main(["robustness", "--runs", str(tmp_path / "none"), "--qrels", str(tmp_path / "q"), option, str(bad),
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"gtheory robustness: error: {option} {bad}") and "nodir" in err
