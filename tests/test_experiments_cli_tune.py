"""``gtheory tune`` (experiments/cli/tune.py)."""
from __future__ import annotations

import json

import numpy as np
import pytest

import optimize
from experiments.cli import main


def test_tune_discount_writes_json_matching_the_api(embedded_trec9, tmp_path, capsys):
    out = tmp_path / "t.json"
    assert main(["tune", "--what", "discount", "--cutoff", "10", "--starts", "1", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Stability-optimal nDCG@10" in text and "topics needed" in text
    t = optimize.Tuning.from_json(str(out))
    ref = optimize.optimize_discount(embedded_trec9, gain="linear", cutoff=10, starts=1)
    np.testing.assert_allclose(t.discount, ref.discount, atol=1e-12)
    assert t.evaluate(embedded_trec9).phi() == pytest.approx(t.phi(), abs=1e-10)


def test_tune_gain_json_output(capsys):
    assert main(["tune", "--what", "gain", "--cutoff", "10", "--starts", "1", "--json", "--unconstrained"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["what"] == "gain" and d["monotone_gain"] is False and abs(sum(d["gain"]) - 1) < 1e-12


def test_strict_failure_exit_code(monkeypatch, capsys):
    import optimize.solvers.tune as tune

    real = tune.solve_slsqp
    monkeypatch.setattr(tune, "solve_slsqp", lambda p, x0: real(p, x0, maxiter=1))
    assert main(["tune", "--cutoff", "30", "--starts", "1", "--solver", "slsqp", "--strict", "--quiet"]) == 1
    assert "did not converge" in capsys.readouterr().err


def test_usage_errors(capsys):
    assert main(["tune", "--runs", "x"]) == 2
    assert "--runs and --qrels go together" in capsys.readouterr().err
    assert main(["tune", "--cutoff", "0"]) == 2


def test_seed_must_be_non_negative_and_the_error_names_it(capsys):
    assert main(["tune", "--seed", "-1", "--cutoff", "5", "--starts", "1"]) == 2
    err = capsys.readouterr().err
    assert "--seed must be a non-negative integer; got -1" in err


def test_unwritable_out_fails_before_tuning(tmp_path, monkeypatch, capsys):
    import optimize.solvers.tune as tune

    def boom(*a, **k):  # pragma: no cover - must not be reached
        raise AssertionError("tuned before checking --out")

    monkeypatch.setattr(tune, "_tune", boom)
    assert main(["tune", "--cutoff", "5", "--out", str(tmp_path / "no-such-dir" / "t.json")]) == 2
    err = capsys.readouterr().err
    assert "--out" in err and f"directory '{tmp_path / 'no-such-dir'}' does not exist" in err
    assert main(["tune", "--cutoff", "5", "--out", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        import os

        if not os.access(ro, os.W_OK):  # (root can write anywhere)
            assert main(["tune", "--cutoff", "5", "--out", str(ro / "t.json")]) == 2
            assert "not writable" in capsys.readouterr().err
    finally:
        ro.chmod(0o700)
    assert not (tmp_path / "no-such-dir").exists()


def test_gain_takes_numbers_per_grade_like_evaluate(embedded_trec9, tmp_path, capsys):
    out = tmp_path / "t.json"
    assert main(["tune", "--cutoff", "10", "--starts", "1", "--gain", "0", "1", "3", "--out", str(out), "--quiet"]) == 0
    t = optimize.Tuning.from_json(str(out))
    ref = optimize.optimize_discount(embedded_trec9, gain=[0, 1, 3], cutoff=10, starts=1)
    np.testing.assert_allclose(t.discount, ref.discount, atol=1e-12)
    np.testing.assert_allclose(t.gain, [0, 0.25, 0.75], atol=1e-15)
    assert t.gain_family is None
    assert main(["tune", "--cutoff", "10", "--starts", "1", "--gain", "exponential", "--quiet"]) == 0
    assert main(["tune", "--cutoff", "10", "--gain", "0", "x"]) == 2
    assert "--gain takes one family name or numbers per grade" in capsys.readouterr().err
