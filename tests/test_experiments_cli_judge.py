"""Tests of ``gtheory judge`` (experiments/cli/judge.py) and of ``--judged`` on the subcommands that read runs:
the same numbers as from --runs/--qrels, the record of the sources, the warning when they changed."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import metrics
from conftest import run_files, toy_runs
from experiments.cli import main


def _judge(tmp_path, capsys, runs, qrels, *extra):
    out = tmp_path / "judged.npz"
    assert main(["judge", "--runs", *map(str, runs), "--qrels", str(qrels), "--out", str(out), *extra]) == 0
    err = capsys.readouterr().err
    # "wrote N runs x M topics ... to F" is a note: --quiet silences it (the file is the result)
    assert (f"to {out}" in err) != ("--quiet" in extra) and out.is_file(), err
    return out


def _stdout(capsys, argv):
    assert main(argv) == 0, capsys.readouterr().err
    return capsys.readouterr().out


#: every subcommand's numbers from --judged must equal those from --runs/--qrels (the same tensor, so exactly)
SESSION = [
    ["evaluate", "--measure", "nDCG@10", "--measure", "AP", "--means", "--json"],
    ["gstudy", "--measure", "nDCG@10", "--json"],
    ["plan", "--measure", "AP", "--min-diff", "0.1", "--json"],
    ["compare", "--measure", "nDCG@10", "--format", "json"],
]


def _numbers(text: str) -> object:
    d = json.loads(text)
    if isinstance(d, dict):
        d.pop("source", None)  # names the data (the runs or the --judged file)
    return d


def test_judge_once_then_every_subcommand_gives_the_same_numbers(tmp_path, capsys):
    runs, qrels = toy_runs(tmp_path)
    out = _judge(tmp_path, capsys, [runs], qrels, "--depth", "12", "--grades", "trec_eval")
    saved = metrics.JudgedRuns.load(out)
    direct = metrics.judge(str(runs), str(qrels), depth=12, grades="trec_eval")
    assert saved.depth == 12 and np.array_equal(saved.grades, direct.grades)
    src = saved.report["sources"]  # what it was made from: paths, sizes, hashes, options
    assert [os.path.basename(e["path"]) for e in src["runs"]] == ["runA.txt", "runB.txt", "runC.txt", "runD.txt"]
    assert src["qrels"]["size"] == qrels.stat().st_size and len(src["qrels"]["sha256"]) == 64
    assert src["options"] == {"depth": 12, "grades": "trec_eval", "duplicates": "error", "missing": "zero"}
    for argv in SESSION:
        from_runs = _stdout(capsys, [*argv, "--runs", str(runs), "--qrels", str(qrels), "--depth", "12",
                                     "--grades", "trec_eval"])
        from_judged = _stdout(capsys, [*argv, "--judged", str(out)])
        assert _numbers(from_judged) == _numbers(from_runs), argv[0]


def test_changed_or_removed_sources_are_named_in_one_warning(tmp_path, capsys):
    runs, qrels = toy_runs(tmp_path)
    out = _judge(tmp_path, capsys, [runs], qrels)
    argv = ["evaluate", "--judged", str(out), "--quiet"]
    _stdout(capsys, argv)
    assert main(argv) == 0 and capsys.readouterr().err == ""  # unchanged: no warning, nothing hashed again
    (runs / "runB.txt").unlink()
    text = qrels.read_text()
    qrels.write_text(text.replace(" 2\n", " 1\n", 1))  # the same size, another content
    os.utime(qrels, ns=(1, 1))
    assert main(argv) == 0  # the old judgments are still usable; the warning is not a note: --quiet keeps it
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("gtheory evaluate: warning: --judged ")
    assert "runB.txt is gone" in err[0] and "qrels.txt changed (another SHA-256)" in err[0]
    (runs / "runE.txt").write_text((runs / "runA.txt").read_text())
    assert main(argv) == 0
    assert "1 run file more (runE.txt)" in capsys.readouterr().err


def test_judge_refuses_what_it_cannot_write(tmp_path, capsys):
    runs, qrels = toy_runs(tmp_path)
    assert main(["judge", "--runs", str(runs), "--qrels", str(qrels), "--out", str(tmp_path / "j.csv")]) == 2
    assert ".npz (or .npz.xz for LZMA)" in capsys.readouterr().err
    assert main(["judge", "--qrels", str(qrels), "--out", str(tmp_path / "j.npz")]) == 2
    assert "--runs and --qrels are needed" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # judge writes --judged; it does not read one
        main(["judge", "--judged", "x.npz", "--out", str(tmp_path / "j.npz")])
    capsys.readouterr()
    # an .npz.xz is LZMA-compressed and read back the same
    xz = tmp_path / "j.npz.xz"
    assert main(["judge", "--runs", str(runs), "--qrels", str(qrels), "--out", str(xz), "--quiet"]) == 0
    assert metrics.JudgedRuns.load(xz).report["sources"]["qrels"]["path"] == str(qrels.resolve())


def test_judged_gives_the_same_numbers_on_dl2019(tmp_path, capsys):
    """Three of the shared DL 2019 runs (cheap): evaluate from --runs/--qrels and from --judged agree exactly."""
    files, qrels = run_files("dl19")
    if not qrels.exists():
        pytest.skip("shared data not found")
    some = files[:3]
    out = _judge(tmp_path, capsys, some, qrels, "--quiet")
    argv = ["evaluate", "--measure", "nDCG@10", "--measure", "AP", "--measure", "RR@10", "--json", "--quiet"]
    a = _stdout(capsys, [*argv, "--runs", *map(str, some), "--qrels", str(qrels)])
    b = _stdout(capsys, [*argv, "--judged", str(out)])
    assert json.loads(a) == json.loads(b) and len(json.loads(a)) == 3 * 43 * 3


def test_a_tensor_without_sources_loads_and_warns_nothing(tmp_path, capsys):
    runs, qrels = toy_runs(tmp_path)
    path = tmp_path / "plain.npz"
    metrics.judge(str(runs), str(qrels)).save(path)  # JudgedRuns.save without sources
    assert "sources" not in metrics.JudgedRuns.load(path).report
    shutil.rmtree(runs)
    assert main(["evaluate", "--judged", str(path), "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_the_missing_policy_of_judge_is_kept_unless_given_again(tmp_path, capsys):
    runs, qrels = toy_runs(tmp_path)
    lines = (runs / "runD.txt").read_text().splitlines(keepends=True)
    (runs / "runD.txt").write_text("".join(x for x in lines if not x.startswith("4 ")))  # runD misses topic 4
    out = _judge(tmp_path, capsys, [runs], qrels, "--missing", "exclude", "--quiet")
    argv = ["evaluate", "--judged", str(out), "--measure", "AP", "--json", "--quiet"]
    rows = json.loads(_stdout(capsys, argv))
    assert [r["score"] for r in rows if r["system"] == "runD" and r["topic"] == "4"] == [None]  # excluded
    rows = json.loads(_stdout(capsys, [*argv, "--missing", "zero"]))
    assert [r["score"] for r in rows if r["system"] == "runD" and r["topic"] == "4"] == [0.0]  # as trec_eval -c



#: what a command line from --judged must not load (each costs 0.05-0.5 s of start-up): SciPy's sparse matrices, its
#: statistics, plotting, statsmodels, cvxpy, and the process pool that judges run files. pandas still comes with
#: every measure's frame.
HEAVY = ("scipy.sparse", "scipy.optimize", "scipy.stats", "matplotlib", "statsmodels", "cvxpy", "multiprocessing")


def test_the_judged_session_loads_no_heavy_module(tmp_path, capsys):
    """evaluate, gstudy, plan and compare from --judged, in turn in one fresh interpreter: the heavy modules each had
    loaded by then (plan and compare solve for the detectable difference with gtheory.topics.roots, not
    scipy.optimize, which would bring scipy.sparse and the linear programming modules)."""
    runs, qrels = toy_runs(tmp_path)
    out = _judge(tmp_path, capsys, [runs], qrels, "--quiet")
    session = [[*argv, "--judged", str(out), "--quiet"] for argv in SESSION]
    code = ("import contextlib, io, json, sys\nfrom experiments.cli import main\nloaded = {}\n"
            "for argv in json.loads(sys.argv[1]):\n"
            "    with contextlib.redirect_stdout(io.StringIO()):\n"
            "        assert main(argv) == 0, argv\n"
            f"    loaded[argv[0]] = [m for m in {HEAVY!r} if m in sys.modules]\n"
            "print(json.dumps(loaded))")
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    r = subprocess.run([sys.executable, "-c", code, json.dumps(session)], capture_output=True, text=True, cwd=root,
                       env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    loaded = json.loads(r.stdout)
    assert list(loaded) == ["evaluate", "gstudy", "plan", "compare"]
    assert loaded["evaluate"] == [] and loaded["gstudy"] == []
    assert loaded["compare"] == []  # cumulative: plan's too


def test_judged_says_what_runs_say_of_the_runs(tmp_path, capsys):
    """From --judged a command warns and notes what it says from --runs/--qrels about the runs themselves: a run that
    retrieved no judged document (a warning, kept under --quiet), a topic no run returns apart from the topics a run
    misses (notes)."""
    runs, qrels = toy_runs(tmp_path)
    bad = runs / "runD.txt"
    bad.write_text("".join(ln.replace(" d", " x") for ln in bad.read_text().splitlines(keepends=True)))  # unjudged
    lines = (runs / "runC.txt").read_text().splitlines(keepends=True)
    (runs / "runC.txt").write_text("".join(x for x in lines if not x.startswith("2 ")))  # runC misses topic 2
    with open(qrels, "a") as fh:
        fh.write("9 0 d1 1\n")  # a qrels topic no run returns
    out = _judge(tmp_path, capsys, [runs], qrels, "--quiet")

    def said(argv):
        assert main(argv) == 0
        return [ln for ln in capsys.readouterr().err.splitlines() if ": warning: " in ln or ": note: " in ln]

    from_runs = said(["gstudy", "--runs", str(runs), "--qrels", str(qrels)])
    from_judged = said(["gstudy", "--judged", str(out)])
    assert from_judged == from_runs
    assert any("retrieved no judged document (runD)" in ln for ln in from_judged)
    assert any("no run returns qrels topic 9" in ln for ln in from_judged)
    assert any("run runC does not return topic 2 " in ln for ln in from_judged)
    quiet = said(["gstudy", "--judged", str(out), "--quiet"])
    assert quiet and all(": warning: " in ln for ln in quiet)  # the warning stays, the notes go
