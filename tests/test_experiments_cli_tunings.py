"""Tests of experiments/cli/_tunings.py: reading a --tuning file and refusing a failed tuning."""
from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

import optimize
from experiments.cli import UsageError
from experiments.cli._tunings import load_tuning, refuse_failed


@pytest.fixture(scope="module")
def tuning(embedded_trec9):
    j = embedded_trec9.subset(systems=range(0, 104, 10), topics=range(12))
    return optimize.optimize_discount(j, gain="linear", cutoff=5, starts=1)


def test_a_written_tuning_is_read_back(tuning, tmp_path):
    path = tmp_path / "t.json"
    tuning.to_json(path)
    t = load_tuning(str(path))
    np.testing.assert_array_equal(t.discount, tuning.discount)
    assert t.cutoff == 5 and t.success


def test_a_failed_tuning_is_refused_unless_allowed(tuning, tmp_path):
    failed = replace(tuning, success=False, message="did not converge")
    path = tmp_path / "f.json"
    failed.to_json(path)
    with pytest.raises(UsageError, match=re.escape(f"--tuning {path}: this tuning failed (")) as exc:
        load_tuning(str(path))
    assert "did not converge" in str(exc.value) and "give --allow-failed to use it anyway" in str(exc.value)
    assert not load_tuning(str(path), allow_failed=True).success
    with pytest.raises(UsageError, match=re.escape("--discount x.json: this tuning failed")):
        refuse_failed(failed, "x.json", "--discount", False)
    refuse_failed(tuning, "x.json", "--discount", False)  # a successful tuning passes


@pytest.mark.parametrize("make, message", [
    (lambda d: d, "is a directory; give a tuning JSON written by 'gtheory tune --out'."),
    (lambda d: d / "none.json", "no such file."),
    (lambda d: (d / "x.json", (d / "x.json").write_text('{"a": 1}'))[0], "not a tuning written by 'gtheory tune --out'"),
    (lambda d: (d / "y.json", (d / "y.json").write_text("not json"))[0], "not a tuning written by 'gtheory tune --out'"),
])
def test_other_files_are_one_clear_error(tmp_path, make, message):
    path = make(tmp_path)
    with pytest.raises(UsageError, match=re.escape(f"--tuning {path}: {message}")):
        load_tuning(str(path))
