"""A failed tuning (success=False) has consistent coefficients, warns when applied, and the CLI refuses it.

Regression tests of issue 12 items 4 and 5: on identical runs the tuning reported success=False with Eρ² = 0.63
(0.97 in the saved JSON) — a ratio of two rounding-noise components —, `Tuning.summary()` hung in the topics-needed
search, and `evaluate --tuning`, `check --tuning` and `Tuning.ndcg` applied it without a word.
"""
from __future__ import annotations

import json
import math
import time
import warnings

import pytest

import optimize
from experiments.cli import main


@pytest.fixture(scope="module")
def failed(embedded_trec9):
    """Three copies of one TREC-9 run at cut-off 100: σ²(system) and σ²(system:topic) are rounding noise
    (7.0e-35 and 9.5e-35, both positive: their ratio is 0.74, Eρ²(50) = 0.97 before the fix)."""
    same = embedded_trec9.subset(systems=[2, 2, 2], repeats=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optimize.OptimizationWarning)
        t = optimize.optimize_discount(same, gain="linear", cutoff=100, starts=1)
    return t, same


def _same_number(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == b


def test_failed_tuning_has_consistent_coefficients(failed):
    t, _ = failed
    assert not t.success and "indistinguishable" in t.message
    # rounding noise, of either sign (the sums of squares are centred: what is left is a few ulps of the data)
    assert abs(t.var_system) < 1e-30 and abs(t.var_residual) < 1e-30
    # Φ = σ²s / (σ²s + (σ²t + σ²st)/n) = 0; Eρ² = σ²s / (σ²s + σ²st/n) = 0/0: undefined
    assert t.phi() == 0.0 and t.phi_1 == 0.0
    assert math.isnan(t.erho2()) and math.isnan(t.erho2_1)
    back = optimize.Tuning.from_json(t.to_json())
    for mine, theirs in zip((back.phi(), back.erho2(), back.phi_1, back.erho2_1), (t.phi(), t.erho2(), t.phi_1, t.erho2_1)):
        assert _same_number(mine, theirs)
    assert json.loads(t.to_json())["erho2"] is None  # strict JSON: null, not 0.97


def test_failed_tuning_summary_and_topics_needed_return_promptly(failed):
    t, _ = failed
    t0 = time.perf_counter()
    assert t.topics_needed(0.95).n == math.inf and t.topics_needed(0.95, "erho2").n == math.inf
    # an undefined Eρ² (0/0) has no interval either: not bounds computed from mean squares of rounding noise
    need = t.topics_needed(0.95, "erho2")
    assert need.n_low == need.n_high == math.inf and "undefined" in need.reason
    text = t.summary()
    assert time.perf_counter() - t0 < 10.0  # used to hang in a k += 1 loop (a guard with room for a loaded machine)
    assert "CANNOT TUNE" in text and "σ²(system) = 0" in text


def test_applying_a_failed_tuning_warns(embedded_trec9, failed):
    t, same = failed
    with pytest.warns(optimize.FailedTuningWarning, match=r"applying a failed tuning \(CANNOT TUNE"):
        t.ndcg(same)
    with pytest.warns(optimize.FailedTuningWarning):
        t.evaluate(embedded_trec9.subset(systems=[0, 1, 2]))


def test_a_successful_tuning_does_not_warn(embedded_trec9):
    j = embedded_trec9.subset(systems=[0, 1, 2, 3], topics=list(range(10)))
    t = optimize.optimize_discount(j, gain="linear", cutoff=10, starts=1)
    assert t.success
    with warnings.catch_warnings():
        warnings.simplefilter("error", optimize.FailedTuningWarning)
        t.ndcg(j)


@pytest.fixture(scope="module")
def failed_json(failed, tmp_path_factory):
    path = tmp_path_factory.mktemp("failed") / "failed.json"
    failed[0].to_json(str(path))
    return str(path)


@pytest.mark.parametrize("argv", [
    ["evaluate", "--tuning"], ["gstudy", "--tuning"], ["check", "--tuning"], ["evaluate", "--discount"],
])
def test_cli_refuses_a_failed_tuning(failed_json, argv, capsys):
    assert main([*argv, failed_json]) == 2
    err = capsys.readouterr().err
    assert "this tuning failed" in err and "give --allow-failed to use it anyway" in err


def test_cli_allow_failed_uses_it_with_a_warning(failed_json, capsys):
    assert main(["evaluate", "--tuning", failed_json, "--allow-failed", "--measure", "nDCG@10", "--per-topic"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("system,topic,measure,score") and "warning: applying a failed tuning" in err
    assert main(["gstudy", "--tuning", failed_json, "--allow-failed", "--json"]) == 0
    assert "warning: applying a failed tuning" in capsys.readouterr().err


def test_cli_tune_on_identical_runs_returns_promptly(failed, tmp_path, capsys):
    # `gtheory tune --what discount` on identical runs never returned (topics needed for a ratio of noise)
    _, same = failed
    judged = tmp_path / "same.npz"
    same.save(judged)
    t0 = time.perf_counter()
    assert main(["tune", "--what", "discount", "--judged", str(judged), "--starts", "1",
                 "--out", str(tmp_path / "t.json")]) == 0
    assert time.perf_counter() - t0 < 30
    out, err = capsys.readouterr()
    assert "CANNOT TUNE" in out and "topics needed: Φ ≥ 0.95: inf" in out and "cannot tune nDCG@100" in err
    assert json.loads((tmp_path / "t.json").read_text())["success"] is False
