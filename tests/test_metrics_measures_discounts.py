"""Tests of metrics/measures/discounts.py: the discount families of nDCG (discount_vector) and discount files (read_discount).

References: each family's formula as published, evaluated here in plain Python at chosen ranks — log2
(trec_eval, Burges et al. 2005: 1/log2(r + 1)), Järvelin & Kekäläinen 2002 (1 for r < b, 1/log_b r after), Zipf
(1/r), Kanoulas & Aslam 2009 Fig. 2's linear ((k + 1 - r)/k), RBP's p^(r-1) (Moffat & Zobel 2008); read_discount:
weights per rank from .txt/.csv/.json/.npy, errors naming the file and the place."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import metrics
from metrics import discount_vector


def test_reads_every_format_to_the_same_vector(embedded_trec9, tmp_path):
    w = [1.0, 0.5, 0.25]
    (tmp_path / "d.txt").write_text("1\n0.5 0.25\n", encoding="utf-8")
    (tmp_path / "d.csv").write_text("1,0.5,0.25\n", encoding="utf-8")
    (tmp_path / "d.json").write_text(json.dumps(w), encoding="utf-8")
    (tmp_path / "t.json").write_text(json.dumps({"discount": w, "gain": [0, 1]}), encoding="utf-8")
    np.save(tmp_path / "d.npy", np.array(w))
    for name in ("d.txt", "d.csv", "d.json", "t.json", "d.npy"):
        got = metrics.read_discount(tmp_path / name)
        assert got.dtype == np.float64 and got.tolist() == w, name
    # the vector is a discount of metrics.ndcg: equal to giving the numbers
    j = embedded_trec9.subset(topics=range(5))
    a = metrics.ndcg(j, discount=metrics.read_discount(tmp_path / "d.txt"), cutoff=3)
    b = metrics.ndcg(j, discount=w, cutoff=3)
    assert np.array_equal(a.to_numpy(), b.to_numpy())


@pytest.mark.parametrize("name, text, message", [
    ("bad.txt", "1\n0.5 x\n", "bad.txt: weight 'x' at line 2 is not a number."),
    ("neg.csv", "1,-2\n", "neg.csv: weight '-2' at line 1 must be a finite non-negative number."),
    ("zero.txt", "0 0\n", "zero.txt: all weights are 0."),
    ("obj.json", '{"gain": [1]}', "obj.json: a JSON object needs a 'discount' key"),
    ("d.xml", "1", "unknown file type '.xml'"),
    # float() reads "1_0" as 10 and "٣" as 3; no other tool reads these weights so
    ("under.txt", "1_0 0.5\n", "under.txt: weight '1_0' at line 1 is not a number."),
    ("digits.txt", "1 \u0663\n", "digits.txt: weight '\u0663' at line 1 is not a number."),
    ("s.json", '["1", "1_0"]', "s.json: weight '1_0' at position 2 is not a number."),
    # a decimal comma: "0,5" was split into the two weights 0 and 5
    ("comma.txt", "1\n0,5\n0,25\n", "comma.txt: line 2 reads '0,5': one number with a decimal comma per line"),
    # a JSON integer past double precision was an internal OverflowError
    ("huge.json", "[1" + "0" * 400 + ", 1]", "huge.json: weight 100"),
])
def test_errors_name_the_file_and_the_place(tmp_path, name, text, message):
    (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as err:
        metrics.read_discount(str(tmp_path / name))
    assert message in str(err.value) and str(err.value).startswith(str(tmp_path / name))


def test_comma_separated_weights_are_still_read(tmp_path):
    (tmp_path / "rows.csv").write_text("1,0.5\n0.25,0\n", encoding="utf-8")
    (tmp_path / "one.csv").write_text("1,0\n", encoding="utf-8")  # one line: a comma separates
    assert metrics.read_discount(tmp_path / "rows.csv").tolist() == [1.0, 0.5, 0.25, 0.0]
    assert metrics.read_discount(tmp_path / "one.csv").tolist() == [1.0, 0.0]


# ------------------------------------------------------------------------------------------ discount_vector
@pytest.mark.parametrize("spec, expected", [
    # rank 1, 2, 3, 4, 8 from the published formulas (math module, scalar by scalar)
    ("log2", [1.0, 1 / math.log2(3), 0.5, 1 / math.log2(5), 1 / math.log2(9)]),
    ("zipf", [1.0, 0.5, 1 / 3, 0.25, 0.125]),
    ("none", [1.0] * 5),
    ("rbp(p=0.5)", [1.0, 0.5, 0.25, 0.125, 0.5 ** 7]),
    ("rbp", [1.0, 0.8, 0.64, 0.8 ** 3, 0.8 ** 7]),  # p = 0.8 by default
    ("jarvelin", [1.0, 1.0, 1 / math.log2(3), 0.5, 1 / 3]),  # b = 2: 1/log2 r from r = 2 on (log2 2 = 1)
    ("jarvelin(b=3)", [1.0, 1.0, 1.0, 1 / math.log(4, 3), 1 / math.log(8, 3)]),
    ("linear(k=4)", [1.0, 0.75, 0.5, 0.25, 0.0]),  # (k + 1 - r)/k, 0 after k
])
def test_families_from_their_formulas(spec, expected):
    ranks = [1, 2, 3, 4, 8]
    d = discount_vector(spec, 8)
    assert d.dtype == np.float64 and d.shape == (8,)
    # the library computes the same closed forms with NumPy's vectorised log/power: a few ulp apart at most
    np.testing.assert_allclose(d[np.array(ranks) - 1], expected, rtol=1e-14, atol=0)


def test_linear_takes_k_from_the_cutoff_unless_given():
    np.testing.assert_array_equal(discount_vector("linear", 5, cutoff=4), discount_vector("linear(k=4)", 5))
    assert discount_vector("linear(k=2)", 3, cutoff=10).tolist() == [1.0, 0.5, 0.0]  # its own k wins
    with pytest.raises(ValueError, match=r"the linear discount \(k \+ 1 - r\)/k needs its k") as err:
        discount_vector("linear", 5)
    assert err.value.fix == {"cutoff": ...}


def test_a_vector_is_used_as_is_and_padded_with_zeros():
    assert discount_vector([3.0, 2.0], 4).tolist() == [3.0, 2.0, 0.0, 0.0]  # ranks beyond it weigh 0
    assert discount_vector(np.array([3.0, 2.0, 1.0]), 2).tolist() == [3.0, 2.0]
    assert discount_vector("log2", 0).shape == (0,)


@pytest.mark.parametrize("spec, n, exc, message", [
    ("rbp(p=0)", 3, ValueError, r"`p` of the RBP discount must be in \(0, 1\]; got 0.0"),
    ("rbp(p=1.5)", 3, ValueError, r"`p` of the RBP discount must be in \(0, 1\]; got 1.5"),
    ("jarvelin(b=1)", 3, ValueError, r"`b` of the Järvelin discount must be > 1; got 1.0"),
    ("jarvelin(b=inf)", 3, ValueError, r"`b` of the Järvelin discount must be a finite number > 1"),
    ("cubic", 3, ValueError, r"unknown discount family 'cubic'; known: log2, jarvelin\(b=…\)"),
    ("log2", -1, ValueError, r"`n` must be non-negative; got -1"),
    ([[1.0, 0.5]], 3, ValueError, r"a discount vector must be 1-D and non-empty"),
    ([], 3, ValueError, r"a discount vector must be 1-D and non-empty"),
    ([1.0, float("nan")], 3, ValueError, r"`discount` \(weights per rank\) must hold finite numbers; got nan at position 1"),
])
def test_errors_name_the_parameter(spec, n, exc, message):
    with pytest.raises(exc, match=message):
        discount_vector(spec, n)


@settings(max_examples=50, deadline=None)
@given(st.floats(0.01, 1.0), st.integers(1, 60))
def test_rbp_is_geometric_and_jarvelin_never_above_one(p, n):
    # RBP: d_{r+1}/d_r = p at every rank (the geometric series of Moffat & Zobel); one multiplication's rounding
    d = discount_vector(f"rbp(p={p!r})", n)
    assert d[0] == 1.0
    np.testing.assert_allclose(d[1:] / d[:-1], p, rtol=1e-12)
    # every family is positive, at most 1 and non-increasing over ranks 1..n
    for spec in ("log2", "zipf", f"jarvelin(b={1 + p!r})"):
        w = discount_vector(spec, n)
        assert (w > 0).all() and (w <= 1).all() and (np.diff(w) <= 0).all()
