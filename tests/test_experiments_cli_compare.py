"""Tests of experiments/cli/compare.py: ``gtheory compare`` on score files and the embedded runs, its outputs and
its refusals; p-values checked against scipy and statsmodels."""
from __future__ import annotations

import json
import subprocess
import sys
from io import StringIO

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from experiments.cli import main
from experiments.compare import compare


def _matrix(m=5, n=30, seed=0, shift=(0.3, 0.0, 0.05, 0.1, 0.0)):
    rng = np.random.default_rng(seed)
    X = rng.random((m, n)) * 0.6 + np.asarray(shift[:m])[:, None]
    return pd.DataFrame(X, index=[f"run{i}" for i in range(m)], columns=[f"q{j}" for j in range(n)]).rename_axis(
        index="system", columns="topic")


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "gtheory", "compare", *args], capture_output=True, text=True,
                          cwd=cwd)


def test_cli_compare_on_a_score_csv_matches_the_api(tmp_path):
    X = _matrix(m=4)
    path = tmp_path / "s.csv"
    X.rename_axis("system").to_csv(path)
    r = _cli(str(path), "--test", "t", "--correction", "holm", "--format", "csv", "--pairs")
    assert r.returncode == 0, r.stderr
    from io import StringIO

    got = pd.read_csv(StringIO(r.stdout))
    ref = compare(X, test="t", correction="holm").table
    np.testing.assert_allclose(got["p_adjusted"], ref["p_adjusted"], rtol=1e-9)


def test_cli_compare_embedded_latex_and_errors(tmp_path):
    r = _cli("--measure", "AP", "--top", "3", "--format", "latex", "--out", str(tmp_path / "t.tex"), "--quiet")
    assert r.returncode == 0, r.stderr
    assert r"\toprule" in (tmp_path / "t.tex").read_text()
    bad = _cli("--measure", "AP", "--test", "tukey-hsd", "--correction", "holm")
    assert bad.returncode == 2 and "tukey-hsd" in bad.stderr and "Traceback" not in bad.stderr
    bad = _cli("--measure", "AP", "--baseline", "no-such-run")
    assert bad.returncode == 2 and "no-such-run" in bad.stderr and "Traceback" not in bad.stderr


@pytest.fixture()
def scores_csv(tmp_path):
    X = _matrix(m=4)
    path = tmp_path / "s.csv"
    X.to_csv(path)
    return X, path


def test_pairs_csv_against_scipy_and_statsmodels(scores_csv, capsys):
    X, path = scores_csv
    assert main(["compare", str(path), "--test", "t", "--correction", "holm", "--format", "csv", "--pairs"]) == 0
    got = pd.read_csv(StringIO(capsys.readouterr().out))
    assert len(got) == 6 and set(got.measure) == {"score"}
    p = []
    for r in got.itertuples(index=False):  # every pair: the paired t-test of scipy on the two rows
        ref = stats.ttest_rel(X.loc[r.a], X.loc[r.b]).pvalue
        assert r.p == pytest.approx(ref, rel=1e-9)
        p.append(ref)
    np.testing.assert_allclose(got.p_adjusted, multipletests(p, method="holm")[1], rtol=1e-9)


def test_baseline_compares_every_run_with_it(scores_csv, capsys):
    X, path = scores_csv
    assert main(["compare", str(path), "--baseline", "run1", "--test", "wilcoxon", "--format", "csv", "--pairs"]) == 0
    got = pd.read_csv(StringIO(capsys.readouterr().out))
    assert len(got) == 3 and (got[["a", "b"]] == "run1").any(axis=1).all()
    for r in got.itertuples(index=False):
        assert r.p == pytest.approx(stats.wilcoxon(X.loc[r.a], X.loc[r.b]).pvalue, rel=1e-9)


def test_json_and_markdown_outputs(scores_csv, capsys, tmp_path):
    _, path = scores_csv
    out = tmp_path / "c.json"
    assert main(["compare", str(path), "--format", "json", "--out", str(out), "--quiet"]) == 0
    d = json.loads(out.read_text())  # strict JSON
    assert d and capsys.readouterr().err == ""
    assert main(["compare", str(path), "--format", "md"]) == 0
    assert capsys.readouterr().out.lstrip().startswith("|")


@pytest.mark.parametrize("argv, message", [
    (["--runs", "r", "--qrels", "q"], "give either SCORES.csv or the data options"),
    (["--alpha", "1.5"], "--alpha must be a probability strictly in (0, 1); got 1.5."),
    (["--test", "tukey-hsd", "--correction", "bh"], "--test tukey-hsd controls the family-wise error itself"),
    (["--gain", "exponential"], "--gain applies to nDCG computed from runs"),
    (["--top", "1"], "--top"),
    (["--n-resamples", "1000000000000"], "--n-resamples must be an integer in [1, 100000000]; got 1000000000000."),
])
def test_refusals_exit_2_with_the_option(scores_csv, argv, message, capsys):
    _, path = scores_csv
    assert main(["compare", str(path), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_dev_null_is_not_a_missing_file(capsys):
    assert main(["compare", "/dev/null"]) == 2
    err = capsys.readouterr().err
    assert "character device, not a score file" in err and "does not exist" not in err


def test_too_few_resamples_for_the_correction_is_a_warning_line_with_the_option(tmp_path, capsys):
    # 28 pairs: Holm starts at 0.05/28 = 1.8e-3 < 1/101
    X = _matrix(m=8, n=12, seed=2, shift=(0.3, 0.0, 0.05, 0.1, 0.0, 0.2, 0.1, 0.0))
    path = tmp_path / "s.csv"
    X.to_csv(path)
    assert main(["compare", str(path), "--test", "randomization", "--correction", "holm", "--n-resamples", "100"]) == 0
    err = capsys.readouterr().err
    assert "gtheory compare: warning:" in err and "--n-resamples 559" in err


def test_no_continuity_correction_is_scipys_default(tmp_path, capsys):
    X = (_matrix(m=2, n=20, seed=3) * 10).round() / 10  # tenths: ties, the normal approximation
    path = tmp_path / "s.csv"
    X.to_csv(path)
    for argv, corr in (([], True), (["--no-continuity-correction"], False)):
        assert main(["compare", str(path), "--test", "wilcoxon", "--format", "csv", "--pairs", *argv]) == 0
        got = pd.read_csv(StringIO(capsys.readouterr().out))
        d = X.loc[got.a[0]].to_numpy() - X.loc[got.b[0]].to_numpy()
        d = np.round(d, 10)
        ref = stats.wilcoxon(d, method="asymptotic", correction=corr).pvalue
        assert got.p[0] == pytest.approx(ref, rel=1e-9)


def test_markdown_output_keeps_a_hostile_run_name_as_text(tmp_path, capsys):
    # run names are chosen by campaign participants: markup in them must stay text in `--format md`
    import markdown

    from _markup import parse as _parse

    X = _matrix(m=4)
    hostile = ["<img src=x onerror=alert(1)>", "[x](javascript:alert(1))", "a|b", "run3"]
    X.index = pd.Index(hostile, name="system")
    path = tmp_path / "s.csv"
    X.to_csv(path)
    assert main(["compare", str(path), "--format", "md", "--pairs"]) == 0
    md = capsys.readouterr().out
    page = _parse(markdown.markdown(md, extensions=["tables"]))
    assert not page.tags & {"img", "a", "script"} and "onerror" not in page.attrs
    runs = [r[0].split(") ", 1)[1] for r in page.rows[1:5]]  # the runs x measures table: one row per run
    assert sorted(runs) == sorted(hostile)


@pytest.mark.parametrize("options", [
    ["--measure", "nDCG@10", "--measure", "AP", "--correction", "holm", "--pairs"],
    ["--measure", "P@5", "--baseline", "runB", "--format", "latex", "--sort", "mean"],
    ["--test", "randomization", "--n-resamples", "200", "--format", "md", "--pairs", "--top", "3"],
    ["--measure", "RR", "--format", "json", "-l", "2", "--quiet"],
    ["--test", "tukey-hsd", "--n-resamples", "100", "--pairs"],
])
def test_judged_comparison_without_pandas(tmp_path, capsys, options):
    """After `gtheory judge`, compare from --judged prints what it prints from --runs/--qrels (text, LaTeX, Markdown,
    JSON), computed without importing pandas: the comparison's results are arrays, their frames built only when asked
    for (the CSV output and the Python attributes ``table`` and ``means``)."""
    from conftest import judged_against_runs

    want, got, loaded = judged_against_runs(tmp_path, capsys, "compare", options, modules=("pandas",))
    assert loaded == [] and got == want and "runA" in got


def test_a_warning_raised_for_each_measure_is_printed_once(capsys, monkeypatch):
    """The resampling-resolution warning comes once per measure with the same words: the command prints it once,
    whatever other code did to the warning filters in between (here a filter added before each measure's comparison,
    which makes Python forget that it showed the warning already, as pandas' own filters did)."""
    import importlib
    import warnings

    table = importlib.import_module("experiments.compare.table")

    def compare(*args, **kwargs):
        warnings.filterwarnings("ignore", message="a filter that matches nothing")
        return real(*args, **kwargs)

    real = table.compare
    monkeypatch.setattr(table, "compare", compare)
    argv = ["compare", "--measure", "nDCG@10", "--measure", "AP", "--test", "randomization", "--n-resamples", "50",
            "--correction", "holm", "--top", "6"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if "warning: --n-resamples: with n_resamples = 50" in ln]
    assert len(lines) == 1, err


def test_an_unknown_run_is_named_against_the_runs_not_a_scores_file(tmp_path, capsys):
    """From runs (the embedded TREC-9 runs here) the error about --run names the runs, not SCORES.csv, which was
    not given; from SCORES.csv it names the file's option."""
    assert main(["compare", "--run", "no-such-run", "--run", "also-not", "-q"]) == 2
    err = capsys.readouterr().err
    assert "--run names 2 system(s) not in the runs: 'no-such-run', 'also-not'" in err and "SCORES.csv" not in err
    path = tmp_path / "s.csv"
    _matrix(m=3).to_csv(path)
    assert main(["compare", str(path), "--run", "no-such-run", "-q"]) == 2
    assert "not in SCORES.csv: 'no-such-run'" in capsys.readouterr().err


def test_missing_exclude_drops_the_topics_a_run_does_not_return(tmp_path, capsys):
    """--missing exclude means what it means for gstudy, plan and check: paired tests need every run on every topic,
    so the topics some run does not return are dropped, with a note naming them; the comparison is the one of the
    other topics (the API's compare of the runs' nDCG@10 without that topic)."""
    import metrics
    from conftest import toy_runs

    runs, qrels = toy_runs(tmp_path)
    lines = (runs / "runD.txt").read_text().splitlines(keepends=True)
    (runs / "runD.txt").write_text("".join(x for x in lines if not x.startswith("4 ")))  # runD misses topic 4
    argv = ["compare", "--runs", str(runs), "--qrels", str(qrels), "--missing", "exclude", "--format", "json"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "--missing exclude: dropped 1 of 4 topics that run runD does not return (topic 4)" in err
    doc = json.loads(out)["comparisons"]["nDCG@10"]
    kept = metrics.judge(str(runs), str(qrels), missing="exclude").subset(topics=["1", "2", "3"])
    want = compare(metrics.ndcg(kept, cutoff=10), measure="nDCG@10")
    assert doc["n_topics"] == 3 and json.loads(want.to_json())["table"] == doc["table"]
    assert main([*argv, "--quiet"]) == 0 and capsys.readouterr().err == ""


def test_json_is_format_json(capsys):
    """--json, as on the other subcommands, writes the JSON document --format json writes; with another --format it
    is refused, naming both."""
    assert main(["compare", "--top", "4", "--json", "-q"]) == 0
    a = capsys.readouterr().out
    assert main(["compare", "--top", "4", "--format", "json", "-q"]) == 0
    assert a == capsys.readouterr().out and json.loads(a)["format"].startswith("gtheory.experiments.ComparisonTable")
    assert main(["compare", "--json", "--format", "latex", "-q"]) == 2
    assert "--json is --format json; it contradicts --format latex" in capsys.readouterr().err


@pytest.mark.parametrize("name, begins", [("t.tex", "\\begin{table}"), ("t.md", "| run |"), ("t.csv", "run,"),
                                          ("t.json", "{"), ("t.txt", "run")])
def test_the_format_follows_the_out_extension(tmp_path, name, begins):
    """Without --format, --out's extension chooses it (.tex LaTeX, .md Markdown, .csv, .json; else text); a given
    --format that another known extension contradicts is refused (.txt takes any)."""
    out = tmp_path / name
    assert main(["compare", "--top", "3", "--baseline", "NEnm", "--out", str(out), "-q"]) == 0
    assert out.read_text().lstrip().startswith(begins)
    agrees = name.endswith((".md", ".txt"))
    assert main(["compare", "--top", "3", "--baseline", "NEnm", "--out", str(out), "--format", "md", "-q"]) == \
        (0 if agrees else 2)
    if agrees:
        assert out.read_text().startswith("| run |")


def test_latex_pairs_writes_each_measures_pair_table(capsys):
    assert main(["compare", "--top", "3", "--measure", "nDCG@10", "--measure", "AP", "--format", "latex", "--pairs",
                 "-q"]) == 0
    out = capsys.readouterr().out
    assert out.count("\\begin{table}") == 3 and out.count("$\\bar d$") == 2  # the runs table, then one per measure


def test_one_run_is_refused_in_the_datas_terms(tmp_path, capsys):
    from conftest import toy_runs

    runs, qrels = toy_runs(tmp_path)
    for f in sorted(runs.iterdir())[1:]:
        f.unlink()
    assert main(["compare", "--runs", str(runs), "--qrels", str(qrels)]) == 2
    err = capsys.readouterr().err
    assert "the data has only 1 system" in err and "`scores" not in err


def test_an_unknown_run_gets_the_closest_name(tmp_path, capsys):
    """A --baseline or --run that is a prefix of a run's name (the file's extension left out) or a typo of one gets
    "did you mean"; a name far from all gets none; a run given twice is named."""
    X = _matrix(m=3).rename(index={"run0": "COMPL_EN_Run.1.dat", "run1": "KISTI_EN_Run.2.dat"})
    path = tmp_path / "s.csv"
    X.to_csv(path)
    for argv, want in ((["--baseline", "COMPL_EN_Run.1"], "did you mean 'COMPL_EN_Run.1.dat'?"),
                       (["--run", "KISTI_EN_Rum.2.dat", "--run", "run2"], "did you mean 'KISTI_EN_Run.2.dat'?"),
                       (["--run", "run2", "--run", "run2"], "lists a system twice: 'run2'")):
        assert main(["compare", str(path), *argv, "-q"]) == 2
        assert want in capsys.readouterr().err
    assert main(["compare", str(path), "--baseline", "zzzz", "-q"]) == 2
    assert "did you mean" not in capsys.readouterr().err


def test_a_score_files_measures_answer_to_their_trec_eval_spellings(tmp_path, capsys):
    """A scores CSV of `gtheory evaluate` holds AP and nDCG@10: --measure map and ndcg_cut_10 find them (the names'
    grammar, as from runs), on compare, gstudy and plan alike."""
    path = tmp_path / "scores.csv"
    assert main(["evaluate", "--measure", "AP", "--measure", "nDCG@10", "--out", str(path), "-q"]) == 0
    assert main(["compare", str(path), "--measure", "map", "--measure", "ndcg_cut_10", "--top", "3", "--json", "-q"]) == 0
    alias = json.loads(capsys.readouterr().out)
    assert main(["compare", str(path), "--measure", "AP", "--measure", "nDCG@10", "--top", "3", "--json", "-q"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert alias["means"]["rows"] == plain["means"]["rows"]
    assert main(["gstudy", str(path), "--measure", "MAP", "-q"]) == 0 and "(AP)" in capsys.readouterr().out
    assert main(["plan", str(path), "--measure", "mrr", "--min-diff", "0.05", "-q"]) == 2  # RR is not in the file
    assert "has no measure 'mrr'" in capsys.readouterr().err


def test_an_out_name_of_another_format_is_refused_unless_format_is_given(tmp_path, capsys):
    """--out t.xlsx without --format would hold the text table under a spreadsheet's name: refused, naming the
    formats; with --format the name is the user's choice; no extension is text."""
    assert main(["compare", "--top", "3", "--out", str(tmp_path / "t.xlsx"), "-q"]) == 2
    assert "compare writes text (.txt), LaTeX (.tex)" in capsys.readouterr().err and not (tmp_path / "t.xlsx").exists()
    assert main(["compare", "--top", "3", "--out", str(tmp_path / "t.xlsx"), "--format", "csv", "-q"]) == 0
    assert (tmp_path / "t.xlsx").read_text().startswith("letter,run,")
    assert main(["compare", "--top", "3", "--out", str(tmp_path / "plain"), "-q"]) == 0
    assert (tmp_path / "plain").read_text().lstrip().startswith("run")
