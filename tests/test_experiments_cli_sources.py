"""Tests of the record of a tensor's sources (experiments/cli/_sources.py)."""
from __future__ import annotations

import os

from experiments.cli._sources import changed_sources, record_sources, sources_warning


def _files(tmp_path):
    d = tmp_path / "runs"
    d.mkdir()
    (d / "a.txt").write_text("1 Q0 x 1 1 a\n")
    (d / "b.txt").write_text("1 Q0 y 1 1 b\n")
    (d / ".hidden").write_text("not a run\n")  # as metrics.judge, hidden files are not runs
    q = tmp_path / "qrels.txt"
    q.write_text("1 0 x 1\n")
    return d, q


def test_record_lists_the_files_judge_reads_with_size_and_hash(tmp_path):
    import hashlib

    d, q = _files(tmp_path)
    rec = record_sources([str(d)], str(q), {"depth": 5})
    assert [os.path.basename(e["path"]) for e in rec["runs"]] == ["a.txt", "b.txt"]
    assert rec["qrels"]["sha256"] == hashlib.sha256(q.read_bytes()).hexdigest()
    assert rec["qrels"]["size"] == len(q.read_bytes()) and rec["options"] == {"depth": 5}
    assert changed_sources(rec) == [] and sources_warning("j.npz", rec) is None
    assert sources_warning("j.npz", None) is None and sources_warning("j.npz", {}) is None


def test_each_kind_of_change_is_named(tmp_path):
    d, q = _files(tmp_path)
    rec = record_sources([str(d / "a.txt"), str(d / "b.txt")], str(q), {})
    os.utime(d / "a.txt", ns=(5, 5))  # touched, same bytes: not a change (the hash decides)
    assert changed_sources(rec) == []
    (d / "b.txt").write_text("1 Q0 z 1 1 b\n")  # same size, other bytes
    os.utime(d / "b.txt", ns=(7, 7))
    (d / "a.txt").write_text("longer now\n" * 3)
    q.unlink()
    got = changed_sources(rec)
    assert got == [f"{d / 'a.txt'} changed (size 13 → 33 bytes)", f"{d / 'b.txt'} changed (another SHA-256)",
                   f"qrels {q} is gone"]
    text = sources_warning("j.npz", rec)
    assert text.startswith("--judged j.npz was judged from files that changed since: ") and "gtheory judge" in text
