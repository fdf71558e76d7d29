"""Safe outputs of the command line (issue 12 items 6, 7, 9 and 10): an output that is an input is refused before
any work, every output of the library is atomic (the writer itself: test_gtheory_kit_output_atomic.py), Ctrl-C says what was written and exits 130, nDCG@k beyond
the run depth is scored as trec_eval does, and `robustness` on identical runs does not print τ = nan with exit 0.
"""
from __future__ import annotations

import json
import lzma
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import gtheory
import metrics
import optimize
from conftest import SHARED
from experiments.cli import main
from tiny_collection import interrupted_at_rename

TREC9 = SHARED / "trec9-web-wt10g"
needs_data = pytest.mark.skipif(not TREC9.is_dir(), reason="shared data not found")


# ------------------------------------------------------------------------------------- the atomic writer
def _left_over(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir() if p.name.startswith("."))


def test_library_writers_are_atomic(embedded_trec9, tmp_path, monkeypatch):
    j = embedded_trec9.subset(systems=[0, 10, 20], topics=list(range(10)))
    j.save(tmp_path / "t")  # as np.savez_compressed: the .npz suffix is added
    assert metrics.JudgedRuns.load(tmp_path / "t.npz").n_systems == 3
    j.save(tmp_path / "t.npz.xz")
    assert metrics.JudgedRuns.load(tmp_path / "t.npz.xz").n_topics == 10
    t = optimize.optimize_discount(j, gain="linear", cutoff=20, starts=1)
    path = tmp_path / "t.json"
    path.write_text("old")
    interrupted_at_rename(monkeypatch, lambda: t.to_json(str(path)))
    assert path.read_text() == "old" and _left_over(tmp_path) == []
    t.to_json(str(path))
    assert optimize.Tuning.from_json(path).cutoff == 20


# ------------------------------------------------------------------------------ outputs that are inputs
@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    """Two TREC-9 runs and the qrels, copied (the qrels writable), with a symbolic and a hard link to the qrels."""
    if not TREC9.is_dir():
        pytest.skip("shared data not found")
    d = tmp_path_factory.mktemp("io")
    (d / "runs").mkdir()
    for name in ("CWI0000.xz", "CWI0001.xz"):
        shutil.copy(TREC9 / "runs_full_xz" / name, d / "runs" / name)
    shutil.copyfile(TREC9 / "qrels.trec9.web.451-500.txt", d / "q.txt")
    (d / "q.txt").chmod(0o644)
    (d / "qlink.txt").symlink_to("q.txt")
    os.link(d / "q.txt", d / "qhard.txt")
    (d / "runlink.xz").symlink_to(Path("runs") / "CWI0001.xz")  # links to a file of the --runs directory
    (d / "dangling.csv").symlink_to(Path("runs") / "new.csv")  # would create a file there
    os.link(d / "runs" / "CWI0001.xz", d / "runhard.xz")
    return d


@pytest.mark.parametrize("out, message", [
    ("q.txt", "--out {d}/q.txt: is the input --qrels {d}/q.txt; writing there would destroy it"),
    ("qlink.txt", "is the input --qrels"),   # a symbolic link to the qrels
    ("qhard.txt", "is the input --qrels"),   # a hard link: same inode
    ("runs/CWI0001.xz", "is a file of the input directory --runs"),
    ("runlink.xz", "is a file of the input directory --runs"),  # written through, the link would replace the run
    ("runhard.xz", "is a file of the input directory --runs"),
    ("runs/new.csv", "is a file of the input directory --runs"),  # a new file there is read as a run next time
    ("dangling.csv", "is a file of the input directory --runs"),
    ("runs", "is the input --runs"),
])
def test_an_output_that_is_an_input_is_refused_before_any_work(data, out, message, capsys):
    before = (data / "q.txt").read_bytes(), (data / "runs" / "CWI0001.xz").read_bytes()
    argv = ["evaluate", "--runs", str(data / "runs"), "--qrels", str(data / "q.txt"), "--out", str(data / out)]
    assert main(argv) == 2
    assert message.format(d=data) in capsys.readouterr().err
    assert ((data / "q.txt").read_bytes(), (data / "runs" / "CWI0001.xz").read_bytes()) == before
    assert sorted(p.name for p in (data / "runs").iterdir()) == ["CWI0000.xz", "CWI0001.xz"]


def test_other_inputs_and_duplicate_outputs_are_refused(data, tmp_path, capsys):
    scores = tmp_path / "s.csv"
    pd.DataFrame(np.random.default_rng(0).random((4, 5)),
                 index=pd.Index(list("abcd"), name="system")).to_csv(scores)
    assert main(["gstudy", str(scores), "--plot", str(scores)]) == 2
    assert "is the input SCORES.csv" in capsys.readouterr().err
    assert main(["robustness", "--out", str(tmp_path / "x.png"), "--plot", str(tmp_path / "x.png")]) == 2
    assert "is also the output of --out" in capsys.readouterr().err
    report = data  # holds the runs and the qrels: replaced as a whole it would delete them
    assert main(["report", "--runs", str(data / "runs"), "--qrels", str(data / "q.txt"), "--out", str(report)]) == 2
    assert "holds the input --runs" in capsys.readouterr().err


def test_an_existing_output_is_replaced_with_a_note(embedded_trec9, tmp_path, capsys):
    out = tmp_path / "scores.csv"
    out.write_text("old\n")
    judged = tmp_path / "j.npz"
    embedded_trec9.subset(systems=[0, 1, 2], topics=[0, 1]).save(judged)
    assert main(["evaluate", "--judged", str(judged), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"gtheory evaluate: note: --out {out}: the existing file will be replaced" in err
    assert out.read_text().startswith("system,topic,measure,score") and _left_over(tmp_path) == []


def test_a_directory_of_other_files_is_not_replaced_by_a_report(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    assert main(["report", "--quick", "--out", str(tmp_path)]) == 2
    assert "holds files that are not part of a report (notes.txt)" in capsys.readouterr().err
    assert (tmp_path / "notes.txt").read_text() == "mine"


# ----------------------------------------------------------------------------------------- interrupts
def test_interrupt_while_writing_a_csv_leaves_the_old_file(embedded_trec9, tmp_path, monkeypatch, capsys):
    out = tmp_path / "scores.csv"
    out.write_text("old\n")
    judged = tmp_path / "j.npz"
    embedded_trec9.subset(systems=[0, 1, 2], topics=[0, 1]).save(judged)
    real = pd.DataFrame.to_csv

    def half_then_interrupt(self, fh, *a, **k):
        fh.write("system,topic")
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_interrupt)
    assert main(["evaluate", "--judged", str(judged), "--out", str(out)]) == 130
    monkeypatch.setattr(pd.DataFrame, "to_csv", real)
    assert capsys.readouterr().err.endswith(f"gtheory evaluate: interrupted; nothing written to {out}\n")
    assert out.read_text() == "old\n" and _left_over(tmp_path) == []


def test_sigint_during_a_report_keeps_the_old_report(tmp_path):
    # a real process and a real SIGINT while the figures are drawn and written (the study takes ~3 s before that).
    # On a heavily loaded machine the signal can reach the process only after it has finished (exit 0, report
    # written): such an attempt proves nothing either way and is repeated; an interrupt path that never works
    # fails all three attempts.
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1]), "MPLBACKEND": "Agg"}
    # two attempts interrupt the figure writing; a third (if both finished first) interrupts the study itself
    for attempt, trigger in enumerate(("writing figures", "writing figures", "tuning the discount")):
        out = tmp_path / f"attempt{attempt}" / "rep"
        out.mkdir(parents=True)
        (out / "report.md").write_text("old report")
        # the child gets the default SIGINT disposition whatever this process has (an ignored signal would be
        # inherited through exec, and Python would then install no KeyboardInterrupt handler)
        proc = subprocess.Popen([sys.executable, "-m", "experiments", "report", "--quick", "--out", str(out)],
                                stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        seen = []
        for line in proc.stderr:
            seen.append(line)
            if trigger in line:  # drawing the 8 figures takes seconds: interrupt it
                proc.send_signal(signal.SIGINT)
                break
        rest = proc.stderr.read()
        code = proc.wait(timeout=60)
        if code == 0 and "done in" in rest:
            continue  # the signal arrived after the last write: try again
        assert code == 130, "".join(seen) + rest
        assert f"gtheory report: interrupted; nothing written to {out}" in rest
        assert sorted(os.listdir(out)) == ["report.md"] and (out / "report.md").read_text() == "old report"
        assert _left_over(out.parent) == []
        return
    pytest.fail("three reports finished before the SIGINT sent while they were working reached them (SIGINT in this "
                f"process: {signal.getsignal(signal.SIGINT)!r})")


# ------------------------------------------------------------------------------ nDCG beyond the run depth
@needs_data
def test_ndcg_at_10_of_5_deep_runs_is_trec_eval_ndcg_cut_10(data, capsys):
    import pytrec_eval

    argv = ["evaluate", "--runs", str(data / "runs"), "--qrels", str(data / "q.txt"), "--depth", "5",
            "--measure", "nDCG@10", "--json"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "note: --measure nDCG@10 on runs 5 deep: the ranks that exist are scored" in captured.err
    got = {(r["system"], r["topic"]): r["score"] for r in json.loads(captured.out)}
    with open(data / "q.txt") as fh:
        qrels = pytrec_eval.parse_qrel(fh)
    for system in ("CWI0000", "CWI0001"):
        with lzma.open(data / "runs" / f"{system}.xz", "rt") as fh:
            run = pytrec_eval.parse_run(fh)
        # the 5 top documents in trec_eval's order (score descending, ties by docno descending)
        top5 = {q: dict(sorted(docs.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[:5])
                for q, docs in run.items()}
        ref = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(top5)
        for q, m in ref.items():
            assert got[(system, q)] == pytest.approx(m["ndcg_cut_10"], abs=1e-12)


# ------------------------------------------------------------------------------ robustness, identical runs
def test_robustness_on_identical_runs_is_an_error_not_tau_nan(embedded_trec9, tmp_path, capsys):
    judged = tmp_path / "same.npz"
    embedded_trec9.subset(systems=[2, 2, 2], topics=list(range(10)), repeats=True).save(judged)
    argv = ["robustness", "--judged", str(judged), "--fractions", "1", "0.5", "--seeds", "1", "--test", "none",
            "--quiet"]
    assert main(argv) == 1
    out, err = capsys.readouterr()
    assert out == "" and "Kendall's τ is undefined for nDCG@10: every system has the same mean score" in err


def test_interrupt_after_one_output_says_what_was_written(embedded_trec9, tmp_path, monkeypatch, capsys):
    from experiments.incomplete import RobustnessStudy

    judged = tmp_path / "j.npz"
    embedded_trec9.subset(systems=[0, 10, 20, 30], topics=list(range(10))).save(judged)

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(RobustnessStudy, "plot", interrupted)  # Ctrl-C while the figure is drawn
    csv, png = tmp_path / "r.csv", tmp_path / "r.png"
    argv = ["robustness", "--judged", str(judged), "--fractions", "1", "0.5", "--seeds", "1", "--test", "none",
            "--quiet", "--out", str(csv), "--plot", str(png)]
    assert main(argv) == 130
    assert capsys.readouterr().err.endswith(f"gtheory robustness: interrupted; wrote {csv}; nothing written to {png}\n")
    assert csv.read_text().startswith("measure,judged_only,fraction") and not png.exists()


# ------------------------------------------------------------------ devices, FIFOs and standard output (issue 20)
# On f2a3012 every output was a temporary file renamed over the target: as root, `--out /dev/null` deleted the
# device and left a regular file; `--out` onto a FIFO replaced the pipe, so its reader got nothing.
import stat  # noqa: E402
import threading  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def small_judged(embedded_trec9, tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("dev") / "j.npz"
    embedded_trec9.subset(systems=[0, 10, 20], topics=list(range(6))).save(p)
    return p


def _evaluate_csv(judged: Path, tmp_path: Path) -> bytes:
    """What `evaluate --out FILE` writes to a regular file: the reference for the written-through outputs."""
    ref = tmp_path / "ref.csv"
    assert main(["evaluate", "--judged", str(judged), "--quiet", "--out", str(ref)]) == 0
    return ref.read_bytes()


def _read_all(fd_or_path, sink: list[bytes]) -> threading.Thread:
    def run():
        if isinstance(fd_or_path, int):
            chunks = []
            while True:
                try:
                    b = os.read(fd_or_path, 65536)
                except OSError:  # EIO: the pty's other side was closed
                    break
                if not b:
                    break
                chunks.append(b)
            sink.append(b"".join(chunks))
        else:
            with open(fd_or_path, "rb") as fh:
                sink.append(fh.read())
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def test_evaluate_out_onto_a_character_device_delivers_and_keeps_it(tmp_path, small_judged, capsys):
    import tty

    expected = _evaluate_csv(small_judged, tmp_path)
    try:
        os.mknod(tmp_path / "mynull", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except OSError as exc:
        pytest.skip(f"cannot make a character device here: {exc}")
    assert main(["evaluate", "--judged", str(small_judged), "--quiet", "--out", str(tmp_path / "mynull")]) == 0
    st_ = os.lstat(tmp_path / "mynull")
    assert stat.S_ISCHR(st_.st_mode) and st_.st_rdev == os.makedev(1, 3)  # f2a3012: a regular file
    assert "will be replaced" not in capsys.readouterr().err  # a device is not replaced: no such note
    # a character device that shows what it gets: a pseudo-terminal (raw mode: no newline translation)
    master, slave = os.openpty()
    tty.setraw(slave)
    name = os.ttyname(slave)
    got: list[bytes] = []
    reader = _read_all(master, got)
    try:
        assert main(["evaluate", "--judged", str(small_judged), "--quiet", "--out", name]) == 0
        assert stat.S_ISCHR(os.lstat(name).st_mode)  # still the terminal's device node
    finally:
        os.close(slave)
    reader.join(timeout=30)
    os.close(master)
    assert got and got[0] == expected  # every byte reached the device


def test_evaluate_out_onto_a_fifo_delivers_and_keeps_it(tmp_path, small_judged):
    expected = _evaluate_csv(small_judged, tmp_path)
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = _read_all(fifo, got)
    assert main(["evaluate", "--judged", str(small_judged), "--quiet", "--out", str(fifo)]) == 0
    reader.join(timeout=30)
    assert got == [expected] and stat.S_ISFIFO(os.lstat(fifo).st_mode)  # f2a3012: replaced, the reader got nothing
    assert sorted(os.listdir(tmp_path)) == ["p", "ref.csv"]


def test_tune_out_and_plot_onto_fifos(tmp_path, small_judged):
    tuned, plot = tmp_path / "t.fifo", tmp_path / "g.png"  # a FIFO; the suffix names the image format
    os.mkfifo(tuned)
    os.mkfifo(plot)
    got: list[bytes] = []
    reader = _read_all(tuned, got)
    assert main(["tune", "--judged", str(small_judged), "--cutoff", "10", "--starts", "1", "--quiet",
                 "--out", str(tuned)]) == 0
    reader.join(timeout=30)
    assert optimize.Tuning.from_json(got[0].decode()).cutoff == 10 and stat.S_ISFIFO(os.lstat(tuned).st_mode)
    got = []
    reader = _read_all(plot, got)
    assert main(["gstudy", "--judged", str(small_judged), "--quiet", "--plot", str(plot)]) == 0
    reader.join(timeout=30)
    assert got[0].startswith(b"\x89PNG") and stat.S_ISFIFO(os.lstat(plot).st_mode)


def _cli(*argv: str, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "experiments", *argv], env=env, cwd=ROOT, timeout=300,
                          capture_output=True, **kw)


def test_out_dev_stdout_on_a_pipe_and_dash(tmp_path, small_judged):
    expected = _evaluate_csv(small_judged, tmp_path)
    r = _cli("evaluate", "--judged", str(small_judged), "--quiet", "--out", "/dev/stdout")
    assert r.returncode == 0 and r.stdout == expected, r.stderr  # f2a3012: [Errno 2] ... pipe:[...] ... .tmp
    r = _cli("evaluate", "--judged", str(small_judged), "--quiet", "--out", "-")
    assert r.returncode == 0 and r.stdout == expected, r.stderr
    # `-` for a JSON output: standard output holds only the JSON, the command's own report goes to stderr
    r = _cli("tune", "--judged", str(small_judged), "--cutoff", "10", "--starts", "1", "--out", "-")
    assert r.returncode == 0, r.stderr
    t = optimize.Tuning.from_json(r.stdout.decode())  # the whole of standard output is the tuning's JSON
    assert t.cutoff == 10 and t.summary().splitlines()[0].encode() in r.stderr  # the summary went to stderr
    assert not (ROOT / "-").exists()


def test_dash_is_refused_where_it_cannot_work(tmp_path, small_judged, monkeypatch, capsys):
    import io

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stdout", Terminal())
    assert main(["gstudy", "--judged", str(small_judged), "--quiet", "--plot", "-"]) == 2
    assert "standard output is a terminal" in capsys.readouterr().err
    assert main(["report", "--judged", str(small_judged), "--quick", "--out", "-"]) == 2
    assert "standard output cannot hold it" in capsys.readouterr().err
    assert main(["robustness", "--judged", str(small_judged), "--out", "-", "--plot", "-"]) == 2
    assert "standard output is also the output of --out" in capsys.readouterr().err


def test_an_interrupted_write_through_says_it_may_be_partial(tmp_path, small_judged, monkeypatch, capsys):
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = _read_all(fifo, got)

    def half_then_interrupt(self, fh, *a, **k):
        fh.write("system,topic")
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_interrupt)
    assert main(["evaluate", "--judged", str(small_judged), "--quiet", "--out", str(fifo)]) == 130
    reader.join(timeout=30)
    assert f"{fifo} may hold part of the output" in capsys.readouterr().err and stat.S_ISFIFO(os.lstat(fifo).st_mode)


# --------------------------------------------------------------------------- CSV formula injection (issue 20)
HOSTILE = ['=HYPERLINK("http:x","y")', "@SUM(A1)", "+1+cmd", "-2+3"]


@pytest.fixture(scope="module")
def hostile_runs(tmp_path_factory) -> Path:
    """Runs whose file names (the system names) a spreadsheet would run as formulas, and one that is a number."""
    d = tmp_path_factory.mktemp("inj")
    (d / "runs").mkdir()
    for i, name in enumerate(HOSTILE + ["-0.5", "plain"]):
        (d / "runs" / name).write_text("".join(f"{t} Q0 d{k} {k} {10 - k - i * 0.1} x\n" for t in ("1", "@2")
                                               for k in range(1, 4)))
    (d / "qrels").write_text("1 0 d1 1\n1 0 d2 0\n@2 0 d3 2\n@2 0 d1 0\n")
    return d


@pytest.mark.parametrize("fmt", ["long", "wide"])
def test_evaluate_csv_neutralises_formula_names_and_raw_csv_keeps_them(hostile_runs, tmp_path, fmt, capsys):
    base = ["evaluate", "--runs", str(hostile_runs / "runs"), "--qrels", str(hostile_runs / "qrels"), "--quiet",
            "--format", fmt, "--measure", "P@2"]
    assert main(base + ["--out", str(tmp_path / "safe.csv")]) == 0
    assert main(base + ["--out", str(tmp_path / "raw.csv"), "--raw-csv"]) == 0
    safe = pd.read_csv(tmp_path / "safe.csv", dtype=str, keep_default_na=False)
    raw = pd.read_csv(tmp_path / "raw.csv", dtype=str, keep_default_na=False)
    cells = lambda f: set(f.to_numpy().ravel()) | set(f.columns)  # noqa: E731
    for name in HOSTILE + ["@2"]:
        assert name not in cells(safe) and "'" + name in cells(safe)  # f2a3012: written raw
        assert name in cells(raw)
    assert "-0.5" in cells(safe) and "plain" in cells(safe)  # a name that is a number, and plain text, unchanged
    scores = safe["score"] if fmt == "long" else safe.drop(columns=safe.columns[0]).stack()
    assert np.isfinite(scores.astype(float)).all()  # the scores are numbers, never prefixed
    assert main(base) == 0  # standard output: the same neutralised CSV
    assert "'=HYPERLINK" in capsys.readouterr().out


@pytest.mark.parametrize("fmt", ["long", "wide"])
def test_a_neutralised_csv_reads_back_with_the_names_it_was_written_with(hostile_runs, tmp_path, fmt, capsys):
    # the package's own CSV (neutralised: '=HYPERLINK...) read back by its readers (read_scores, the CLI's score
    # input) gives the run and topic names without the writer's leading ': the same names as the raw CSV
    base = ["evaluate", "--runs", str(hostile_runs / "runs"), "--qrels", str(hostile_runs / "qrels"), "--quiet",
            "--format", fmt, "--measure", "P@2"]
    assert main(base + ["--out", str(tmp_path / "safe.csv")]) == 0
    assert main(base + ["--out", str(tmp_path / "raw.csv"), "--raw-csv"]) == 0
    safe, raw = gtheory.read_scores(tmp_path / "safe.csv"), gtheory.read_scores(tmp_path / "raw.csv")
    assert set(safe.index) == set(HOSTILE + ["-0.5", "plain"]) and set(safe.columns) == {"1", "@2"}
    pd.testing.assert_frame_equal(safe, raw)
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "safe.csv")]) == 0  # the CLI's score input; text output, never prefixed
    out = capsys.readouterr().out
    assert "@SUM(A1)" in out and "'@SUM(A1)" not in out and "'=HYPERLINK" not in out


@pytest.mark.parametrize("argv, option", [
    (["evaluate", "--out", ""], "--out ''"),      # was no --out: the summary table went to standard output
    (["gstudy", "s.csv", "--plot", " "], "--plot ' '"),
    (["gstudy", ""], "SCORES.csv ''"),
    (["evaluate", "--qrels", "", "--runs", "r"], "--qrels ''"),
])
def test_an_empty_path_is_refused_not_taken_for_no_option(argv, option, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"error: {option}: an empty file name" in err and len(err.splitlines()) == 1  # one line, no usage
