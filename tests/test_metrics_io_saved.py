"""Tests of metrics/io/saved.py: the tensor's file format — JudgedRuns.save and JudgedRuns.load round trip, and
files that are not a saved tensor."""
from __future__ import annotations

import numpy as np
import pytest

from metrics import JudgedRuns
from test_metrics_io_judged import small  # noqa: F401  (the tensor of the judged tests, a fixture)


@pytest.mark.parametrize("suffix", [".npz", ".npz.xz"])
def test_save_load_roundtrip(small, tmp_path, suffix):
    p = tmp_path / ("t" + suffix)
    small.save(p)
    back = JudgedRuns.load(p)
    for name in ("grades", "doc_ids", "levels", "qrels_level", "qrels_offsets", "n_retrieved"):
        assert np.array_equal(getattr(back, name), getattr(small, name)), name
    assert back.systems == small.systems and back.topics == small.topics and back.missing == small.missing


def test_load_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        JudgedRuns.load(tmp_path / "none.npz")
    bad = tmp_path / "x.npz"
    np.savez(bad, a=np.arange(3))
    with pytest.raises(ValueError, match="not a JudgedRuns .npz file"):
        JudgedRuns.load(bad)
