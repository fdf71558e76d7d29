"""``gtheory recommend`` (and the verdict in ``gtheory tune`` / ``gtheory demo``): thin CLI over optimize.recommend."""
from __future__ import annotations

import json

import numpy as np
import pytest

import metrics
import optimize
from experiments.cli import main

FAST = ["--splits", "2", "--inner", "2", "--cutoff", "10", "--seeds", "1"]


def run_cli(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def small_judged(embedded_trec9, tmp_path_factory):
    j = embedded_trec9
    j = j.subset(systems=list(j.systems[:30]))
    path = tmp_path_factory.mktemp("rec") / "j.npz"
    j.save(path)
    return j, path


def test_recommend_matches_the_library_and_writes_a_tuning(small_judged, tmp_path, capsys):
    j, path = small_judged
    out_json = tmp_path / "rec.json"
    code, out, err = run_cli(["recommend", "--judged", str(path), *FAST, "--out", str(out_json)], capsys)
    assert code == 0
    rec = optimize.recommend(j, cutoff=10, n_splits=2, n_inner=2, n_seeds=1, progress=False)
    assert rec.verdict in out and "written to" in err
    assert optimize.Recommendation.from_json(out_json).verdict == rec.verdict
    assert not list(tmp_path.glob(".tmp-*"))  # the atomic write left no temporary file
    code, out, err = run_cli(["evaluate", "--judged", str(path), "--tuning", str(out_json)], capsys)
    assert code == 0 and "nDCG@10" in out


def test_recommend_quiet_and_json(small_judged, capsys):
    _, path = small_judged
    code, out, err = run_cli(["recommend", "--judged", str(path), *FAST, "--quiet"], capsys)
    # --quiet silences the notes and the progress, never the result (the same summary as without it)
    assert code == 0 and err == ""
    _, loud, _ = run_cli(["recommend", "--judged", str(path), *FAST], capsys)
    assert out == loud and any(w in out for w in ("keep ", "switch to "))
    code, out, _ = run_cli(["recommend", "--judged", str(path), *FAST, "--what", "gain", "--json"], capsys)
    d = json.loads(out)
    assert d["format"] == "gtheory.optimize.Recommendation/1" and d["what"] == "gain"


@pytest.mark.parametrize("args, match", [
    (["--splits", "1"], "--splits must be an integer >= 2; got 1."),
    (["--target", "1"], "--target must be a probability strictly in (0, 1); got 1"),
    (["--seed", "-2"], "--seed must be a non-negative integer"),
    (["--gain", "nope"], "--gain nope"),
])
def test_recommend_refuses_bad_options(args, match, capsys):
    code, _, err = run_cli(["recommend", *args], capsys)
    assert code == 2 and match in err


def test_recommend_refuses_out_equal_to_input(small_judged, capsys):
    _, path = small_judged
    before = path.read_bytes()
    code, _, err = run_cli(["recommend", "--judged", str(path), *FAST, "--out", str(path)], capsys)
    assert code == 2 and "is an input file" in err
    assert path.read_bytes() == before


def test_tune_prints_the_out_of_sample_caveat(small_judged, capsys):
    _, path = small_judged
    code, out, err = run_cli(["tune", "--judged", str(path), "--cutoff", "10", "--starts", "1"], capsys)
    assert code == 0 and "in-sample" in err and "gtheory recommend" in err


def test_demo_opens_with_the_verdict(small_judged, capsys):
    j, path = small_judged
    code, out, _ = run_cli(["demo", "--judged", str(path), "--quiet", "--splits", "2", "--cutoff", "10"], capsys)
    assert code == 0
    rec = optimize.recommend(j, cutoff=10, gain=[0.0, 1.0, 2.0], n_splits=2, progress=False)
    assert out.splitlines()[0] == f"Should I tune the nDCG@10 discount?  {rec.verdict}"


def test_recommend_joint_from_the_cli(small_judged, tmp_path, capsys):
    _, path = small_judged
    out_json = tmp_path / "joint.json"
    code, out, _ = run_cli(["recommend", "--judged", str(path), *FAST, "--what", "joint", "--quiet",
                            "--out", str(out_json)], capsys)
    # two splits cannot decide: the baseline, trec_eval's nDCG, is kept
    assert code == 0 and "keep nDCG(discount=log2,gain=linear)@10: too few splits to decide" in out
    t = optimize.Tuning.from_json(out_json)
    assert t.what == "joint" and t.discount.size == 10


def test_families_lambdas_penalty_and_min_wins_reach_the_library(capsys):
    import json as _json

    from experiments.cli import main as cli

    argv = ["recommend", "--cutoff", "10", "--families", "rbp", "power", "--lambdas", "0.5", "--penalty", "smooth",
            "--min-wins", "0.6", "--splits", "3", "--inner", "2", "--json"]
    assert cli(argv) == 0
    d = _json.loads(capsys.readouterr().out)
    assert [r["candidate"] for r in d["table"]] == ["log2", "zipf", "linear", "rbp(p)", "power(alpha)", "smooth(λ=0.5)"]
    assert d["min_wins"] == 0.6


def test_baseline_and_seeds_reach_the_library(small_judged, capsys):
    j, path = small_judged
    code, out, _ = run_cli(["recommend", "--judged", str(path), *FAST[:-2], "--seeds", "2", "--baseline",
                            "nDCG(discount=zipf)@10", "--json"], capsys)
    d = json.loads(out)
    assert code == 0 and d["baseline"] == "nDCG(discount=zipf,gain=linear)@10" and d["n_seeds"] == 2
    assert d["table"][0]["candidate"] == "zipf" and d["measure"] == d["baseline"]  # 2 splits: kept
    nd = metrics.ndcg(j, gain=dict(zip(d["levels"], d["gain_vector"])), discount=d["discount_vector"], cutoff=10)
    np.testing.assert_array_equal(nd.to_numpy(), metrics.ndcg(j, discount="zipf", cutoff=10).to_numpy())
    for args, message in ((["--baseline", "AP"], "--baseline must be an nDCG measure"),
                          (["--seeds", "0"], "--seeds must be a positive integer; got 0")):
        code, _, err = run_cli(["recommend", "--judged", str(path), *FAST[:-2], *args], capsys)
        assert code == 2 and message in err
    for option, value, message in [("--families", "nope", "--families for the discount must be among jarvelin"),
                                   ("--lambdas", "-1", "--lambdas must be non-negative numbers; got [-1.0]"),
                                   ("--min-wins", "1.5", "--min-wins must be a share in (0, 1]; got 1.5")]:
        assert main(["recommend", "--cutoff", "10", option, value, "--quiet"]) == 2
        assert message in capsys.readouterr().err
