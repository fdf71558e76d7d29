"""Tests of the ``gtheory sweep`` subcommand (experiments/cli/sweep.py); the API is tested in
tests/test_experiments_sweep_run.py."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import experiments as ex
import metrics
from experiments.cli import main


@pytest.fixture(scope="module")
def small(embedded_trec9) -> metrics.JudgedRuns:
    return embedded_trec9.subset(systems=range(0, 104, 3), topics=range(25))


def test_cli_happy_path(tmp_path, capsys, small):
    path = tmp_path / "small.npz"
    small.save(path)
    out = tmp_path / "sweep.csv"
    argv = ["sweep", "--judged", str(path), "--cutoffs", "10", "none", "--gains", "linear", "--discounts", "log2",
            "zipf", "--fractions", "1", "0.5", "--seeds", "0", "3", "--workers", "1", "--out", str(out)]
    assert main(argv) == 0
    cap = capsys.readouterr()
    assert "topics_needed" in cap.out and "sweep: 16/16 points, 4/4 tasks" in cap.err
    csv = pd.read_csv(out)
    assert len(csv) == 16 and list(csv.columns) == list(ex.SWEEP_COLUMNS)
    api = ex.sweep(small, [10, None], "linear", ["log2", "zipf"], [1.0, 0.5], [0, 3], max_workers=1)
    np.testing.assert_allclose(csv.phi, api.phi, rtol=1e-9)

    assert main(argv[:-2] + ["--json", "--quiet"]) == 0
    cap = capsys.readouterr()
    doc = json.loads(cap.out)
    assert cap.err == "" and len(doc["rows"]) == 16 and doc["rows"][2]["cutoff"] is None
    assert doc["rows"][0]["phi"] == pytest.approx(api.phi.iloc[0], abs=1e-12)



def test_cli_json_writes_infinite_topics_needed_as_null(tmp_path, capsys):
    # no system variance (two runs return the same lists): topics_needed = inf, written as null, not Infinity
    runs = tmp_path / "runs"
    runs.mkdir()
    for s, docs in (("a", ("d2", "d4")), ("b", ("d2", "d4")), ("c", ("d1", "d4"))):
        (runs / f"{s}.txt").write_text(f"1 Q0 {docs[0]} 1 1 {s}\n2 Q0 {docs[1]} 1 1 {s}\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n2 0 d4 0\n")
    assert main(["sweep", "--runs", str(runs), "--qrels", str(qrels), "--cutoffs", "10", "--gains", "linear",
                 "--discounts", "log2", "--quiet", "--json"]) == 0

    def refuse(name):
        raise ValueError(f"not valid JSON: {name}")

    (row,) = json.loads(capsys.readouterr().out, parse_constant=refuse)["rows"]
    assert row["var_system"] == 0 and row["topics_needed"] is None

def test_cli_missing_exclude_drops_the_missed_topics_with_a_note(tmp_path, capsys, small):
    # --missing exclude: topics a run does not return are NaN; the sweep used to print all-NaN rows with exit 0
    import dataclasses

    n_ret = small.n_retrieved.copy()
    n_ret[1, [0, 4]] = 0  # the second run returns neither topic 451 nor 455
    path = tmp_path / "exclude.npz"
    dataclasses.replace(small, n_retrieved=n_ret, missing="exclude").save(path)
    assert main(["sweep", "--judged", str(path), "--missing", "exclude", "--cutoffs", "10", "--gains", "linear", "--discounts", "log2",
                 "--workers", "1", "--quiet", "--json"]) == 0
    cap = capsys.readouterr()
    (row,) = json.loads(cap.out)["rows"]
    kept = [t for t in small.topics if t not in ("451", "455")]
    want = ex.sweep(small.subset(topics=kept), 10, "linear", "log2", max_workers=1)
    assert row["n_topics"] == 23 and row["phi"] == pytest.approx(want.phi.iloc[0], abs=1e-12)
    assert cap.err == (f"gtheory sweep: note: --missing exclude: dropped 2 of 25 topics that run {small.systems[1]} "
                       "does not return (topics 451, 455); the study uses the other 23.\n")


def test_cli_degenerate_grid_points_are_named_on_stderr(tmp_path, capsys, small):
    # binary(level=3) gives every grade of TREC-9 (0, 1, 2) the gain 0: every nDCG is 0, no G-study (NaN row)
    path = tmp_path / "small.npz"
    small.save(path)
    argv = ["sweep", "--judged", str(path), "--cutoffs", "10", "--discounts", "log2", "--workers", "1", "--quiet"]
    assert main(argv + ["--gains", "binary(level=3)", "linear"]) == 0
    cap = capsys.readouterr()
    assert cap.err == ("gtheory sweep: warning: no G-study at 1 grid point (NaN rows): gain binary(level=3) is 0 for "
                       "every grade of the data (0 1 2), so every nDCG is 0: cutoff=10 gain=binary(level=3) "
                       "discount=log2 fraction=1 seed=0\n")
    # nothing but NaN: not a success
    assert main(argv + ["--gains", "binary(level=3)", "--json"]) == 1
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == ("gtheory sweep: error: no grid point admits a G-study; every row is NaN "
                                    "(see the warnings above).")


def test_cli_cutoff_beyond_the_run_depth_is_noted_and_refused_with_tune(tmp_path, capsys, small):
    # a cut-off beyond the runs' depth used to be accepted silently, the rows labelled with it
    path = tmp_path / "shallow.npz"
    small.subset(topics=range(5)).save(path)
    assert main(["sweep", "--judged", str(path), "--cutoffs", "10", "5000", "--gains", "linear", "--discounts",
                 "log2", "--workers", "1", "--quiet"]) == 0
    assert capsys.readouterr().err == ("gtheory sweep: note: --cutoffs 5000 exceeds the run depth 1000: nDCG@5000 "
                                       "scores the 1000 ranks the runs have (the ideal ranking has up to 5000 "
                                       "documents).\n")
    # --tune: refused; with --runs before any loading (the files are not even looked at)
    assert main(["sweep", "--runs", str(tmp_path / "none"), "--qrels", str(tmp_path / "q"), "--depth", "100",
                 "--cutoffs", "500", "--tune", "--quiet"]) == 2
    assert capsys.readouterr().err == ("gtheory sweep: error: --cutoffs 500 exceeds the run --depth 100; --tune "
                                       "needs cut-offs within it.\n")
    assert main(["sweep", "--cutoffs", "10", "none", "--tune", "--quiet"]) == 2
    assert "--tune needs integer --cutoffs" in capsys.readouterr().err


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--gains", "expo"], "unknown gain family 'expo'; known: linear"),
        (["--cutoffs", "ten"], "--cutoffs takes positive integers or 'none'; got 'ten'"),
        (["--workers", "0"], "--workers must be an integer >= 1; got 0"),
        # the Python API's parameter names become the options the user typed
        (["--fractions", "0"], "--fractions must hold numbers in (0, 1]"),
        (["--seeds", "-1"], "--seeds N must be a positive number of seeds; got -1"),
        (["--seeds", "0", "-1"], "--seeds must hold non-negative integers; got -1."),
        (["--reference-gain", "foo"], "--reference-gain: unknown gain family 'foo'; known: linear"),
    ],
)
def test_cli_bad_input_exit_2_one_line(capsys, extra, message):
    assert main(["sweep", "--quiet"] + extra) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gtheory sweep: error: ") and message in err
    assert "`" not in err


def test_cli_unreachable_dask_scheduler(capsys, tmp_path, small, monkeypatch):
    pytest.importorskip("dask.distributed")
    import experiments.cli.sweep as cli_sweep

    monkeypatch.setattr(cli_sweep, "DASK_CONNECT_TIMEOUT", 1)
    path = tmp_path / "small.npz"
    small.subset(topics=range(5)).save(path)
    code = main(["sweep", "--judged", str(path), "--cutoffs", "10", "--quiet",
                 "--dask-scheduler", "tcp://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert code == 2 and "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err
    assert err.count("\n") == 1


def test_cli_dask_missing_message(monkeypatch, capsys):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.startswith("dask"):
            raise ImportError("no dask")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    assert main(["sweep", "--quiet", "--dask-scheduler", "tcp://127.0.0.1:9"]) == 2
    assert 'pip install "dask[distributed]"' in capsys.readouterr().err


def test_cli_out_into_a_missing_directory_is_refused_before_loading(tmp_path, capsys):
    bad = tmp_path / "nodir" / "sweep.csv"
    assert main(["sweep", "--runs", str(tmp_path / "none"), "--qrels", str(tmp_path / "q"), "--out", str(bad),
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"gtheory sweep: error: --out {bad}") and "nodir" in err


def test_cli_one_seed_value_is_a_count(capsys, tmp_path, small):
    path = tmp_path / "small.npz"
    small.save(path)
    argv = ["sweep", "--judged", str(path), "--cutoffs", "10", "--gains", "linear", "--discounts", "log2",
            "--fractions", "0.5", "--workers", "1", "--json"]
    assert main(argv + ["--seeds", "2"]) == 0
    cap = capsys.readouterr()
    assert [r["seed"] for r in json.loads(cap.out)["rows"]] == [0, 1]
    assert "note: --seeds 2 is the number of seeds" in cap.err
    assert main(argv + ["--seeds", "0", "5", "--quiet"]) == 0
    assert [r["seed"] for r in json.loads(capsys.readouterr().out)["rows"]] == [0, 5]


def test_ctrl_c_stops_a_parallel_sweep_and_its_workers_and_keeps_the_old_output(tmp_path):
    # a real Ctrl-C: SIGINT to the whole process group (the terminal sends it to the command and its worker
    # processes) once the first tasks are done; the workers must go, and the old output stay
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    out = tmp_path / "sweep.csv"
    out.write_text("old\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1]), "MPLBACKEND": "Agg"}
    argv = [sys.executable, "-m", "gtheory", "sweep", "--cutoffs", "10", "20", "100", "1000", "--fractions", "1", "0.5",
            "0.3", "0.2", "0.1", "--seeds", "20", "--workers", "2", "--out", str(out)]  # 100 tasks: ~30 s to finish

    def own_group() -> None:  # a group of its own (like a terminal's job), with the default SIGINT disposition
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.setpgrp()

    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=own_group)
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if " 2/100 tasks" in line:
            os.killpg(proc.pid, signal.SIGINT)
            break
    rest = proc.stderr.read()
    assert proc.wait(timeout=60) == 130, "".join(seen) + rest
    assert f"gtheory sweep: interrupted; nothing written to {out}" in rest
    assert out.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["sweep.csv"]
    time.sleep(0.5)
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):  # every process still in the command's group
        try:
            if os.getpgid(int(pid)) == proc.pid:
                left.append(pid)
        except (ProcessLookupError, PermissionError):
            pass
    assert left == [], f"worker processes left running: {left}"
