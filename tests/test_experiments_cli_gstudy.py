"""Tests of the ``gtheory gstudy`` subcommand (experiments/cli/gstudy.py)."""
from __future__ import annotations

import json

import numpy as np
import pytest

import gtheory
from conftest import judged_against_runs, shared, toy_runs
from experiments.cli import main


@pytest.mark.parametrize("options", [["--measure", "nDCG@10"], ["--measure", "AP", "-l", "2", "--quiet", "--json"]])
def test_judged_gstudy_without_pandas(tmp_path, capsys, options):
    """After `gtheory judge`, gstudy from --judged prints what --runs/--qrels prints (but for the line naming the
    source), without importing pandas (scipy.special stays: the Feldt and Arteaga intervals' F quantiles)."""
    want, got, loaded = judged_against_runs(tmp_path, capsys, "gstudy", options,
                                            ("pandas", "scipy.stats", "scipy.optimize"))
    assert loaded == [] and got == want
    assert "Outlying runs" in got or '"outlying_runs"' in got


@pytest.fixture
def WEB() -> str:
    """A SIGIR 2018 simulation score matrix (topics x systems CSV); skips when the shared data is not there."""
    return str(shared("score-matrices", "sigir2018-simulation", "web2013_ndcg20.csv"))


def test_prints_summary(capsys, WEB):
    assert main(["gstudy", WEB, "--n-topics", "10", "25", "50", "100", "--target", "0.9"]) == 0
    out = capsys.readouterr().out
    g = gtheory.gstudy(WEB)
    assert "system:topic,e" in out and "Topics needed for 0.9" in out
    assert f"{g.phi(25):.4f}" in out and f"{g.erho2(100):.4f}" in out
    assert f"Φ ≥ 0.9: {g.topics_needed(0.9).n} topics" in out


def test_json_output_matches_api(capsys, WEB):
    assert main(["gstudy", WEB, "--json", "--n-topics", "20", "--drop-lowest", "0.25", "--level", "0.9"]) == 0
    data = json.loads(capsys.readouterr().out)
    g = gtheory.gstudy(WEB, drop_lowest=0.25)
    assert data["n_systems"] == g.n_systems < 34
    assert data["components"]["system"]["variance"] == g.var_system
    row = data["dstudy"][0]
    assert row["n_topics"] == 20 and row["phi"] == g.phi(20)
    assert row["phi_low"] == pytest.approx(g.interval("phi", 20, 0.9).low, rel=1e-15)
    assert data["topics_needed"]["phi"]["n"] == g.topics_needed(0.95).n


def test_plot_written(tmp_path, capsys, WEB):
    out = tmp_path / "d.png"
    assert main(["gstudy", WEB, "--plot", str(out)]) == 0
    assert out.stat().st_size > 1000 and out.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    "content, args, match",
    [
        ("system,t1,t2\na,1,2\nb,3\n", [], "bad.csv, line 3: expected 3 fields"),
        ("system,t1,t2\na,1,2\nb,1,2\n", [], "vary only between topics"),
        ("system,t1,t2\na,1,1\nb,1,1\n", [], "all scores are equal"),
        ("system,t1,t2\na,1,2\nb,3,5\n", ["--target", "1.5"], "--target must be a probability strictly in (0, 1); got 1.5"),
        ("system,t1,t2\na,1,2\nb,3,5\n", ["--n-topics", "0"], "--n-topics must be positive"),
    ],
)
def test_bad_input_exit_2_without_traceback(tmp_path, capsys, monkeypatch, content, args, match):
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    p = tmp_path / "bad.csv"
    p.write_text(content)
    assert main(["gstudy", str(p), *args]) == 2
    err = capsys.readouterr().err
    assert match in err and "Traceback" not in err
    assert err.startswith("gtheory gstudy: error:")


def test_missing_file(capsys, monkeypatch):
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    assert main(["gstudy", "/no/such/file.csv"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_negative_variance_reported_on_stderr(tmp_path, capsys):
    p = tmp_path / "neg.csv"
    X = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [0.5, 0.5, 0.6], [1.0, 0.0, 0.5]])
    p.write_text("system,a,b,c\n" + "".join(f"s{i},{','.join(map(str, r))}\n" for i, r in enumerate(X)))
    assert main(["gstudy", str(p)]) == 0
    captured = capsys.readouterr()
    assert "warning: negative estimate" in captured.err
    assert "(negative estimate set to 0)" in captured.out


@pytest.mark.filterwarnings("ignore::gtheory.NegativeVarianceWarning")
def test_runs_and_qrels_scored_with_metrics(tmp_path, capsys):
    import metrics

    runs, qrels = toy_runs(tmp_path)
    assert main(["gstudy", "--runs", str(runs), "--qrels", str(qrels), "--measure", "nDCG@10", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    X = metrics.ndcg(metrics.judge(metrics.read_runs(runs), qrels), cutoff=10)
    g = gtheory.gstudy(X)
    assert data["n_systems"] == 4 and data["n_topics"] == 4
    assert data["components"]["system"]["variance_raw"] == pytest.approx(g.var_system_raw, rel=1e-14)
    assert data["source"].startswith("nDCG@10 over runs")


@pytest.mark.parametrize("args, match", [
    (["--runs", "x"], "--runs and --qrels go together"),
    (["WEB", "--runs", "x", "--qrels", "y"], "give either SCORES.csv or the data options"),
    (["--runs", "x", "--qrels", "y", "--measure", "AP"], "no such run file or directory: x"),
    (["WEB", "--measure", "AP"], "selects a measure of a long CSV with a 'measure' column"),
])
def test_runs_option_errors(capsys, monkeypatch, request, args, match):
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    if "WEB" in args:
        args = [request.getfixturevalue("WEB") if a == "WEB" else a for a in args]
    assert main(["gstudy", *args]) == 2
    assert match in capsys.readouterr().err


# ---- the README's first session: gtheory evaluate ... --out scores.csv, then gtheory gstudy scores.csv
@pytest.mark.filterwarnings("ignore::gtheory.NegativeVarianceWarning")
@pytest.mark.parametrize("fmt", ["long", "wide"])
@pytest.mark.parametrize("measures", [["AP"], ["nDCG@10", "AP"]])
def test_evaluate_long_csv_then_gstudy(tmp_path, capsys, monkeypatch, measures, fmt):
    # the wide CSV of several measures labels its columns MEASURE:topic; gstudy reads one measure's columns
    # (it used to read nDCG@10:1 ... AP:4 as 8 topics)
    import metrics

    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    runs, qrels = toy_runs(tmp_path)
    csv = tmp_path / "scores.csv"
    flags = [a for m in measures for a in ("--measure", m)]
    assert main(["evaluate", "--runs", str(runs), "--qrels", str(qrels), *flags, "--format", fmt,
                 "--out", str(csv)]) == 0
    header = csv.read_text().splitlines()[0]
    if fmt == "long":
        assert header == "system,topic,measure,score"
    else:
        assert header.startswith("system,") and ("AP:" in header) == (len(measures) > 1)
    capsys.readouterr()
    judged = metrics.judge(str(runs), str(qrels))
    if len(measures) > 1:  # several measures: --measure is required, and the message lists them
        assert main(["gstudy", str(csv)]) == 2
        err = capsys.readouterr().err
        assert "holds 2 measures (nDCG@10, AP)" in err
        assert "choose one by name with --measure (e.g. --measure 'nDCG@10')" in err
        chosen = ["--measure", "ap"]  # matched case-insensitively
    else:
        chosen = []
    assert main(["gstudy", str(csv), *chosen, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    g = gtheory.gstudy(metrics.evaluate(judged, "AP"))
    assert data["n_systems"] == 4 and data["n_topics"] == 4
    assert data["source"].endswith("(AP)") or (fmt == "wide" and len(measures) == 1)
    assert data["components"]["system"]["variance_raw"] == pytest.approx(g.var_system_raw, rel=1e-9)
    if len(measures) > 1:
        assert main(["gstudy", str(csv), "--measure", "nDCG@10", "--quiet"]) == 0
        quiet = capsys.readouterr()  # --quiet silences notes, never results
        assert "G-study" in quiet.out and "Topics needed" in quiet.out
        assert main(["gstudy", str(csv), "--measure", "P@5"]) == 2
        assert "has no measure 'P@5'; it holds nDCG@10, AP" in capsys.readouterr().err


def test_long_csv_with_a_missing_cell_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    p = tmp_path / "s.csv"
    p.write_text("system,topic,measure,score\na,1,AP,0.1\na,2,AP,0.2\nb,1,AP,0.3\n")
    assert main(["gstudy", str(p)]) == 2
    assert "1 system/topic pairs have no AP score (first: system 'b', topic '2')" in capsys.readouterr().err


def test_long_csv_with_measures_is_read_by_gtheory_read_scores(tmp_path, capsys, monkeypatch):
    # one reader for the library and the CLI: its errors (with the line) and its attrs["measure"]
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    p = tmp_path / "s.csv"
    p.write_text("system,topic,measure,score\na,1,AP,0.1\na,1,AP,0.2\nb,1,P@5,0.3\n")
    assert main(["gstudy", str(p), "--measure", "AP"]) == 2
    assert f"{p}, line 3: duplicate AP score for system 'a', topic '1' (first given on line 2)" in capsys.readouterr().err
    p.write_text("system,topic,measure,score\na,1,AP,0.1\na,2,AP,0.3\nb,1,AP,0.6\nb,2,AP,0.7\nb,2,P@5,0.2\n")
    assert main(["gstudy", str(p), "--measure", "ap", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    g = gtheory.gstudy(gtheory.read_scores(p, measure="AP"))
    assert data["source"] == f"{p} (AP)" and data["grand_mean"] == pytest.approx(g.grand_mean, rel=1e-15)


@pytest.mark.filterwarnings("ignore::gtheory.NegativeVarianceWarning")
def test_long_csv_with_measure_column_accepts_the_column_synonyms(tmp_path, capsys):
    p = tmp_path / "syn.csv"
    p.write_text("run,qid,measure,value\na,1,AP,0.1\na,2,AP,0.3\nb,1,AP,0.2\nb,2,AP,0.25\nc,1,AP,0.5\nc,2,AP,0.3\n")
    assert main(["gstudy", str(p), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    g = gtheory.gstudy(np.array([[0.1, 0.3], [0.2, 0.25], [0.5, 0.3]]))
    assert data["n_systems"] == 3 and data["grand_mean"] == pytest.approx(g.grand_mean, rel=1e-14)


def test_one_system_is_refused_in_the_users_terms(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    p = tmp_path / "s.csv"
    p.write_text("system,topic,measure,score\na,1,AP,0.1\na,2,AP,0.2\n")
    assert main(["gstudy", str(p)]) == 2
    err = capsys.readouterr().err
    assert "the data has only 1 system; at least 2 are needed" in err and "`" not in err


def test_gstudy_shared_data_options(embedded_trec9, capsys):
    # no CSV: the shared data options (embedded TREC-9 by default), any measure of `gtheory evaluate`
    import metrics

    assert main(["gstudy", "--measure", "P@10", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    g = gtheory.gstudy(metrics.evaluate(embedded_trec9, "P@10"))
    assert data["components"]["system"]["variance_raw"] == pytest.approx(g.var_system_raw, rel=1e-12)
    assert data["source"] == "P@10 over the embedded TREC-9 Web runs"


def test_unknown_option_prints_the_subcommands_usage(capsys, WEB):
    with pytest.raises(SystemExit) as exc:
        main(["gstudy", WEB, "--no-such-option"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: gtheory gstudy") and "unrecognized arguments: --no-such-option" in err


def test_the_summary_speaks_the_commands_words(capsys):
    """gstudy prints the G-study's summary with its Python words in the command's: --drop-lowest, not drop_lowest."""
    from experiments.cli import main

    assert main(["gstudy", "--drop-lowest", "0.25", "-q"]) == 0
    out = capsys.readouterr().out
    assert "(--drop-lowest 0.25)" in out and "drop_lowest" not in out


def test_reml_leaves_out_a_topic_no_run_returns(tmp_path, capsys):
    """--missing reml keeps the topics some runs miss, but a qrels topic no run returns has no scored cell: it is left
    out with a note (the G-study refused it, asking the user to drop it, which the command line cannot)."""
    from conftest import toy_runs
    from experiments.cli import main

    runs, qrels = toy_runs(tmp_path)
    with open(qrels, "a") as fh:
        fh.write("9 0 d1 1\n")
    lines = (runs / "runD.txt").read_text().splitlines(keepends=True)
    (runs / "runD.txt").write_text("".join(x for x in lines if not x.startswith("2 ")))
    assert main(["gstudy", "--runs", str(runs), "--qrels", str(qrels), "--missing", "reml", "--json"]) == 0
    out, err = capsys.readouterr()
    assert "left out 1 qrels topic no run returns (9)" in err
    import json

    assert json.loads(out)["n_topics"] == 4
