"""``gtheory tune`` (experiments/cli/tune.py)."""
from __future__ import annotations

import json

import numpy as np
import pytest

import metrics
import optimize
from experiments.cli import main


def test_tune_discount_writes_json_matching_the_api(tmp_path, capsys):
    out = tmp_path / "t.json"
    assert main(["tune", "--what", "discount", "--cutoff", "10", "--starts", "1", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Stability-optimal nDCG@10" in text and "topics needed" in text
    t = optimize.Tuning.from_json(str(out))
    ref = optimize.optimize_discount(metrics.load_trec9(), "linear", 10, starts=1)
    np.testing.assert_allclose(t.discount, ref.discount, atol=1e-12)
    assert t.evaluate(metrics.load_trec9()).phi() == pytest.approx(t.phi, abs=1e-10)


def test_tune_gain_json_output(capsys):
    assert main(["tune", "--what", "gain", "--cutoff", "10", "--starts", "1", "--json", "--unconstrained"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["what"] == "gain" and d["monotone_gain"] is False and abs(sum(d["gain"]) - 1) < 1e-12


def test_strict_failure_exit_code(monkeypatch, capsys):
    import optimize.tune as tune

    real = tune.solve_slsqp
    monkeypatch.setattr(tune, "solve_slsqp", lambda p, x0: real(p, x0, maxiter=1))
    assert main(["tune", "--cutoff", "30", "--starts", "1", "--solver", "slsqp", "--strict", "--quiet"]) == 1
    assert "did not converge" in capsys.readouterr().err


def test_usage_errors(capsys):
    assert main(["tune", "--runs", "x"]) == 2
    assert "--runs and --qrels go together" in capsys.readouterr().err
    assert main(["tune", "--cutoff", "0"]) == 2
