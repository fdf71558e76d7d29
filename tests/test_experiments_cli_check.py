"""Tests of ``gtheory check`` (experiments/cli/check.py) on a small saved subset of the embedded TREC-9 data."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import metrics
import optimize
from experiments.cli import main
from experiments import check_configurations  # moved from experiments.cli.check (CHANGELOG)


@pytest.fixture(scope="module")
def subset(embedded_trec9, tmp_path_factory) -> str:
    """12 systems x 20 topics of TREC-9 saved as a tensor for --judged."""
    path = tmp_path_factory.mktemp("check") / "subset.npz"
    embedded_trec9.subset(systems=np.arange(0, 104, 8)[:12], topics=np.arange(20)).save(path)
    return str(path)


def test_check_json_happy_path(subset, capsys):
    rc = main(["check", "--judged", subset, "--cutoff", "10", "--n-resamples", "50", "--top-k", "8", "--json", "--quiet"])
    out = capsys.readouterr()
    assert rc == 0
    doc = json.loads(out.out)
    assert doc["cutoff"] == 10 and doc["n_systems"] == 12 and doc["n_topics"] == 20
    names = [c["configuration"] for c in doc["configurations"]]
    assert names == ["tuned discount", "zipf", "linear", "log2"]
    ref = doc["configurations"][0]
    assert ref["kendall_tau"] == pytest.approx(1.0) and ref["rmse"] == pytest.approx(0.0)
    for c in doc["configurations"]:
        assert 0 <= c["phi"] <= 1 and -1 <= c["kendall_tau"] <= 1
        assert c["n_pairs"] == 8 * 7 // 2 and 0 <= c["power"] <= 1
        assert c["swap_topics"] == 10
    # the tuned discount maximises Φ on these data
    assert ref["phi"] >= max(c["phi"] for c in doc["configurations"][1:]) - 1e-9
    assert out.err == ""  # --quiet
    # counts are JSON integers, gain keys are the grades as written in qrels ("1", not "1.0")
    for c in doc["configurations"]:
        for key in ("n_pairs", "n_significant", "swap_topics", "topics_needed"):
            assert type(c[key]) is int or (key == "topics_needed" and c[key] is None), (key, c[key])  # inf: null
    assert '"n_pairs": 28,' in out.out and '"swap_topics": 10,' in out.out
    assert list(doc["gain"]) == ["0", "1", "2"]


def test_check_against_is_validated_before_tuning(subset, capsys, monkeypatch):
    def no_tuning(*a, **kw):
        raise AssertionError("tuning started before --against was validated")

    monkeypatch.setattr(optimize, "optimize_discount", no_tuning)
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    assert main(["check", "--judged", subset, "--cutoff", "10", "--against", "log2", "foo"]) == 2
    err = capsys.readouterr().err
    assert "--against 'foo': unknown discount family 'foo'" in err and "tuning the discount" not in err


def test_check_saved_tuning_table_and_progress(subset, tmp_path, capsys):
    judged = metrics.JudgedRuns.load(subset)
    tuning = optimize.optimize_gain(judged, discount="log2", cutoff=10, starts=1)
    tpath = tmp_path / "tuning.json"
    tuning.to_json(str(tpath))
    rc = main(["check", "--judged", subset, "--tuning", str(tpath), "--against", "log2", "exponential+log2",
               "--n-resamples", "30", "--top-k", "6"])
    out = capsys.readouterr()
    assert rc == 0
    assert "tuned gain" in out.out and "exponential+log2" in out.out and "nDCG@10" in out.out
    assert "[1/3]" in out.err and "[3/3]" in out.err  # progress indicator on stderr


def test_check_configurations_same_ranking():
    rng = np.random.default_rng(0)
    base = pd.DataFrame(rng.random((8, 20)) * 0.5 + np.linspace(0.4, 0, 8)[:, None])
    t = check_configurations({"a": base, "b": base ** 2}, "a", n_resamples=50, top_k=5)
    assert float(t.loc["b", "kendall_tau"]) == 1.0
    assert list(t.index) == ["a", "b"]


def test_check_configurations_a_generator_seed():
    rng = np.random.default_rng(1)
    base = pd.DataFrame(rng.random((8, 20)) * 0.5 + np.linspace(0.4, 0, 8)[:, None])
    configs = {"a": base, "b": base ** 2}
    # a Generator gives one seed, drawn from it, used for every configuration: the same table as that int seed
    seed = int(np.random.default_rng(3).integers(2**63))
    pd.testing.assert_frame_equal(
        check_configurations(configs, "a", n_resamples=40, top_k=5, seed=np.random.default_rng(3)),
        check_configurations(configs, "a", n_resamples=40, top_k=5, seed=seed))


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--tuning", "/nonexistent/tuning.json"], "no such tuning file"),
        (["--against", "foo+bar"], "--against 'foo+bar'"),
        (["--against", "a+b+c"], "GAIN+DISCOUNT"),
        (["--n-resamples", "0"], "--n-resamples must be an integer >= 1; got 0"),
        (["--cutoff", "5000"], "exceeds the run depth"),
    ],
)
def test_check_bad_input_exit_2_one_line(subset, capsys, extra, message):
    cutoff = [] if "--cutoff" in extra else ["--cutoff", "10"]
    rc = main(["check", "--judged", subset, "--quiet", *cutoff, *extra])
    err = capsys.readouterr().err
    assert rc == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_check_rejects_a_file_that_is_not_a_tuning(subset, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"hello": 1}')
    rc = main(["check", "--judged", subset, "--tuning", str(bad), "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2 and "not a tuning" in err and "Traceback" not in err


def test_check_tuning_shorter_than_cutoff(subset, tmp_path, capsys):
    judged = metrics.JudgedRuns.load(subset)
    tpath = tmp_path / "t5.json"
    optimize.optimize_discount(judged, gain="linear", cutoff=5, starts=1).to_json(str(tpath))
    rc = main(["check", "--judged", subset, "--tuning", str(tpath), "--cutoff", "10", "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2 and "discount length 5" in err
