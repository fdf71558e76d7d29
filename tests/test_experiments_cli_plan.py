"""Tests of the ``gtheory plan`` subcommand (experiments/cli/plan.py): the table and the JSON are gtheory.plan's."""
from __future__ import annotations

import json

import pytest

import gtheory
import metrics
from conftest import judged_against_runs, shared, toy_runs
from experiments.cli import SUBCOMMANDS, main


@pytest.fixture
def WEB() -> str:
    return str(shared("score-matrices", "sigir2018-simulation", "web2013_ap.csv"))


def test_registered():
    assert "plan" in SUBCOMMANDS


@pytest.mark.parametrize("options", [["--min-diff", "0.05"],
                                     ["--min-diff", "0.1", "--measure", "AP", "-l", "2", "--top", "3", "--json"]])
def test_judged_plan_without_pandas(tmp_path, capsys, options):
    """After `gtheory judge`, plan from --judged prints what --runs/--qrels prints (but for the line naming the
    source), without importing pandas (scipy.special stays: the chi-square quantiles and the F intervals)."""
    want, got, loaded = judged_against_runs(tmp_path, capsys, "plan", options,
                                            ("pandas", "scipy.stats", "scipy.optimize"))
    assert loaded == [] and got == want
    assert "How many topics?" in got or '"pilot_topics"' in got


def test_json_equals_the_api_on_a_csv(capsys, WEB):
    assert main(["plan", WEB, "--orientation", "topics-by-systems", "--min-diff", "0.05", "--target", "0.9",
                 "--json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out)
    x = gtheory.read_scores(WEB, orientation="topics-by-systems")
    p = gtheory.plan(x, min_diff=0.05, target=0.9)
    assert gtheory.TopicPlan.from_json(out) == p  # the command's document reads back as the plan, additions aside
    assert data["source"] == WEB
    from gtheory.gstudy.outliers import competitive_systems, outlying_runs

    # the CLI's additions beside the plan: the source, the outlying runs and the competitive systems' answer
    assert data.pop("outlying_runs") == json.loads(json.dumps(outlying_runs(x).to_dict()))
    competitive = data.pop("competitive")
    assert competitive["systems"] == list(competitive_systems(x)) and competitive["target"] == 0.9
    del data["source"]
    assert gtheory.TopicPlan.from_json(json.dumps(data)) == p


def test_table_from_the_embedded_runs(embedded_trec9, capsys):
    assert main(["plan", "--measure", "nDCG@10", "--min-diff", "0.05"]) == 0
    out = capsys.readouterr().out
    scores = metrics.evaluate(embedded_trec9, "nDCG@10")
    p = gtheory.plan(scores, min_diff=0.05)
    assert out.startswith("nDCG@10 over the embedded TREC-9 Web runs")
    for method in ("phi", "paired-t", "anova", "ci"):
        assert f" {int(p.topics(method))} " in out
    assert "paired t-test: power 0.8 for Δ ≥ 0.05" in out


def test_runs_and_qrels_and_plot(tmp_path, capsys):
    runs, qrels = toy_runs(tmp_path)
    out = tmp_path / "plan.png"
    assert main(["plan", "--runs", str(runs), "--qrels", str(qrels), "--measure", "P@5", "--min-diff", "0.1",
                 "--approximation", "nagata", "--plot", str(out)]) == 0
    assert "4 systems × 4 topics" in capsys.readouterr().out
    assert out.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("args, match", [
    (["--min-diff", "-1"], "--min-diff must be a positive"),
    (["--min-diff", "0.05", "--power", "0.01"], "--power must exceed --alpha"),
    (["--min-diff", "0.05", "--tau", "1.5"], "--tau must be a probability strictly in (0, 1); got 1.5"),
])
def test_bad_options_name_the_option(capsys, args, match):
    assert main(["plan", *args]) == 2
    assert match in capsys.readouterr().err


def test_min_diff_is_required(capsys):
    assert main(["plan"]) == 2
    assert "--min-diff is required" in capsys.readouterr().err


def test_curves_row(capsys, WEB):
    assert main(["plan", WEB, "--orientation", "topics-by-systems", "--min-diff", "0.05", "--curves", "--repeats",
                 "5", "--seed", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    x = gtheory.read_scores(WEB, orientation="topics-by-systems")
    c = gtheory.topic_curves(x, repeats=5, seed=1)
    row = next(r for r in data["table"]["rows"] if r[0] == "data-tau")
    assert row[2] == c.topics_for_tau(0.9)


def _write(path, x):
    import pandas as pd

    pd.DataFrame(x, index=[f"sys{i}" for i in range(x.shape[0])],
                 columns=[f"t{j}" for j in range(x.shape[1])]).to_csv(path)
    return str(path)


def test_additive_pilot_is_refused_not_an_internal_error(tmp_path, capsys):
    # regression (issue 34, class 3): V_E = 4.6e-33 from rounding gave "internal error" (FloatingPointError)
    import numpy as np

    x = np.array([0.1, 0.3, 0.5, 0.2])[:, None] + np.linspace(0.05, 0.6, 12)[None, :]
    assert main(["plan", _write(tmp_path / "s.csv", x), "--orientation", "systems-by-topics", "--min-diff", "2"]) == 2
    err = capsys.readouterr().err
    assert "V_E = 0" in err and "internal error" not in err and len(err.strip().splitlines()) == 1


def test_nagata_with_a_tiny_min_diff_answers_at_once(tmp_path, capsys):
    # regression (issue 34, class 4): --approximation nagata --min-diff 1e-5 ran for minutes
    import time

    import numpy as np

    rng = np.random.default_rng(0)
    x = 0.4 + rng.normal(0, 0.05, (8, 1)) + rng.normal(0, 0.15, (1, 30)) + rng.normal(0, 0.1, (8, 30))
    f = _write(tmp_path / "p.csv", x)
    t0 = time.perf_counter()
    assert main(["plan", f, "--orientation", "systems-by-topics", "--approximation", "nagata", "--min-diff", "1e-5",
                 "--json"]) == 0
    assert time.perf_counter() - t0 < 5  # measured 0.05 s; the bound is for a loaded machine
    rows = {r[0]: r for r in json.loads(capsys.readouterr().out)["table"]["rows"]}
    assert all(rows[m][2] is None for m in ("paired-t", "two-sample-t", "anova"))  # inf (beyond 1e9 topics) as null
