"""Tests of experiments/cli/_ndcg.py: the nDCG options parsed before any data is read, and the score matrix they
give (against nDCG computed by hand)."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

import metrics
from experiments.cli import UsageError
from experiments.cli._ndcg import compute, ndcg_cutoff, parse_discount, parse_gain


@pytest.mark.parametrize("name, expected", [("nDCG", (True, None)), ("nDCG@10", (True, 10)),
                                            ("ndcg_cut.20", (True, 20)), ("AP", (False, None)),
                                            ("P@5", (False, None)), ("no such measure", (False, None))])
def test_ndcg_cutoff(name, expected):
    assert ndcg_cutoff(name) == expected


def test_parse_gain():
    assert parse_gain(["exponential"]) == "exponential"
    assert parse_gain(["0", "1", "3.5"]) == [0.0, 1.0, 3.5]
    with pytest.raises(UsageError, match=re.escape("--gain takes one family name or numbers per grade; got '0 high'")):
        parse_gain(["0", "high"])
    with pytest.raises(UsageError, match=re.escape("--gain takes finite numbers per grade; got inf.")):
        parse_gain(["0", "1", "inf"])
    with pytest.raises(Exception, match="--gain"):  # an unknown family is refused now, naming the option
        parse_gain(["quadratic"])
    for odd in ("1_0", "\u0663", "\uff13"):  # float() reads these as 10 and 3: a silently different gain
        with pytest.raises(UsageError, match="--gain takes one family name or numbers per grade"):
            parse_gain(["0", odd, "2"])


def test_parse_discount_names_and_files(tmp_path):
    assert parse_discount("rbp(p=0.8)") == "rbp(p=0.8)"
    with pytest.raises(Exception, match="--discount"):
        parse_discount("rbp(p=2)")  # a bad parameter: refused before any data is read
    path = tmp_path / "w.json"
    path.write_text(json.dumps([1.0, 0.5, 0.25]))
    np.testing.assert_array_equal(parse_discount(str(path)), [1.0, 0.5, 0.25])
    with pytest.raises(UsageError, match=re.escape("--discount ")):
        parse_discount(str(tmp_path / "missing.npy"))


def test_a_failed_tuning_as_discount_is_refused_unless_allowed(tmp_path):
    doc = {"format": "gtheory.optimize.Tuning/1", "success": False, "message": "stopped", "discount": [1.0, 0.5]}
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(UsageError, match=re.escape(f"--discount {path}: this tuning failed (stopped)")):
        parse_discount(str(path))
    np.testing.assert_array_equal(parse_discount(str(path), allow_failed=True), [1.0, 0.5])


@pytest.fixture(scope="module")
def tiny():
    # one topic: d0 grade 2, d1 grade 1, d2 grade 0; system s ranks d2, d0, d1
    return metrics.judge({"s": {"1": {"d2": 3.0, "d0": 2.0, "d1": 1.0}}, "t": {"1": {"d0": 3.0, "d1": 2.0}}},
                         {"1": {"d0": 2, "d1": 1, "d2": 0}}, progress=False)


def test_compute_ndcg_by_hand(tiny):
    # linear gains, discount (1, 1/2, 1/4): DCG = 0 + 2/2 + 1/4 = 1.25, ideal 2 + 1/2 = 2.5 -> 0.5
    got = compute(tiny, "nDCG@3", "linear", np.array([1.0, 0.5, 0.25]), False)  # rows s, t (judged's order)
    assert got.shape == (2, 1) and tiny.systems == ("s", "t")
    assert got[0, 0] == pytest.approx(0.5, abs=1e-15) and got[1, 0] == pytest.approx(1.0)
    # gains per grade 0, 1, 3: DCG = 3/2 + 1/4, ideal 3 + 1/2 -> 0.5 again; with log2: (3/log2 3 + 1/2)/(3 + 1/log2 3)
    got = compute(tiny, "nDCG@3", [0.0, 1.0, 3.0], "log2", False)
    assert got[0, 0] == pytest.approx((3 / np.log2(3) + 0.5) / (3 + 1 / np.log2(3)), abs=1e-15)
    # another measure goes through metrics.evaluate's scores: P@2 of s = 1/2
    assert compute(tiny, "P@2", "linear", "log2", False)[0, 0] == 0.5


def test_compute_refuses_a_discount_vector_shorter_than_the_cutoff(tiny):
    with pytest.raises(UsageError, match=re.escape("--measure nDCG@3: the --discount vector has 2 weights, fewer "
                                                   "than the cut-off 3")):
        compute(tiny, "nDCG@3", "linear", np.array([1.0, 0.5]), False)


def test_compute_notes_a_cutoff_beyond_the_runs_depth(tiny, capsys):
    compute(tiny, "nDCG@10", "linear", "log2", False)
    assert "note: --measure nDCG@10 on runs 3 deep" in capsys.readouterr().err
    compute(tiny, "nDCG@10", "linear", "log2", False, quiet=True)
    assert capsys.readouterr().err == ""
