"""metrics.read_discount: weights per rank from .txt/.csv/.json/.npy, errors naming the file and the place."""
from __future__ import annotations

import json

import numpy as np
import pytest

import metrics


def test_reads_every_format_to_the_same_vector(tmp_path):
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
    j = metrics.load_trec9().subset(topics=range(5))
    a = metrics.ndcg(j, discount=metrics.read_discount(tmp_path / "d.txt"), cutoff=3)
    b = metrics.ndcg(j, discount=w, cutoff=3)
    assert np.array_equal(a.to_numpy(), b.to_numpy())


@pytest.mark.parametrize("name, text, message", [
    ("bad.txt", "1\n0.5 x\n", "bad.txt: weight 'x' at line 2 is not a number."),
    ("neg.csv", "1,-2\n", "neg.csv: weight '-2' at line 1 must be a finite non-negative number."),
    ("zero.txt", "0 0\n", "zero.txt: all weights are 0."),
    ("obj.json", '{"gain": [1]}', "obj.json: a JSON object needs a 'discount' key"),
    ("d.xml", "1", "unknown file type '.xml'"),
])
def test_errors_name_the_file_and_the_place(tmp_path, name, text, message):
    (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as err:
        metrics.read_discount(str(tmp_path / name))
    assert message in str(err.value) and str(err.value).startswith(str(tmp_path / name))
