"""metrics.trecio, the public front of the TREC readers: every name it had before it was split into
metrics/trec_lines.py, trec_runs.py and trec_qrels.py (tested in tests/test_metrics_trec_*.py) is importable from it
and is the concept module's object."""
from __future__ import annotations

import importlib

import metrics
import metrics.trecio as trecio


def test_every_public_name_is_importable_from_the_front():
    home = {"trec_lines": ["TrecFormatError", "PathLike", "utf16_kind", "natural_topic_order"],
            "trec_qrels": ["Qrels", "read_qrels"],
            "trec_runs": ["Run", "RunSet", "read_run", "read_runs", "check_read_options", "duplicate_error", "DUP_FIX",
                          "DUP_EFFECT", "Ties"]}
    for module, names in home.items():
        m = importlib.import_module(f"metrics.{module}")
        assert all(getattr(trecio, n) is getattr(m, n) for n in names), module
    assert set(trecio.__all__) <= {n for names in home.values() for n in names}
    for name in ("Qrels", "Run", "RunSet", "TrecFormatError", "read_qrels", "read_run", "read_runs"):
        assert getattr(metrics, name) is getattr(trecio, name)  # the package's lazy names: the same objects
