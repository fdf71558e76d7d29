"""Tests of the atomic side of gtheory/kit/output.py, the one writer of every output (metrics' included: its
``metrics/_atomic.py`` front is gone, ``Evaluation.to_csv`` writes through the kit) — a regular file is complete or
untouched (Ctrl-C included), permissions are those of a new file or kept, links and devices are written through.

References: the file system itself (``os.stat``, ``os.readlink``, directory listings) after each write.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from gtheory.kit.output import open_output as atomic_open
from gtheory.kit.output import output_directory as atomic_directory
from gtheory.kit.output import output_path as atomic_path
from gtheory.kit.output import write_text as atomic_write_text


def _left_over(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir() if p.name.startswith("."))


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_atomic_open_leaves_the_old_file_when_interrupted(tmp_path, error):
    target = tmp_path / "scores.csv"
    target.write_text("old\n")
    with pytest.raises(error):
        with atomic_open(target, "w") as fh:
            fh.write("new, half written")
            raise error()
    assert target.read_text() == "old\n" and _left_over(tmp_path) == []
    with atomic_open(target, "w") as fh:
        fh.write("new\n")
    assert target.read_text() == "new\n" and _left_over(tmp_path) == []


def test_atomic_path_keeps_the_suffix_and_the_permissions(tmp_path):
    target = tmp_path / "plot.png"
    with atomic_path(target) as tmp:
        assert tmp.parent == tmp_path and tmp.suffix == ".png" and tmp != target
        tmp.write_bytes(b"png")
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's 0600
    target.chmod(0o640)
    atomic_write_text(target, "again")
    assert target.stat().st_mode & 0o777 == 0o640  # a replaced file keeps its mode


def test_an_output_that_is_a_symbolic_link_is_written_through(tmp_path):
    from gtheory.kit.jsonio import write_text

    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "scores.csv"
    target.write_text("old\n")
    link = tmp_path / "scores.csv"
    link.symlink_to(target)
    for write, text in [(lambda: atomic_write_text(link, "new\n"), "new\n"), (lambda: write_text(link, "json"), "json")]:
        write()
        assert link.is_symlink() and os.readlink(link) == str(target)  # the link is kept ...
        assert target.read_text() == text  # ... and the file it names has the new content
        assert _left_over(tmp_path) == [] and _left_over(tmp_path / "real") == []
    dangling = tmp_path / "later.csv"
    dangling.symlink_to(tmp_path / "real" / "later.csv")
    atomic_write_text(dangling, "first\n")
    assert dangling.is_symlink() and (tmp_path / "real" / "later.csv").read_text() == "first\n"
    report = tmp_path / "real" / "report"
    report.mkdir()
    (report / "old.png").write_text("old")
    (tmp_path / "report").symlink_to(report)
    with atomic_directory(tmp_path / "report") as tmp:
        (tmp / "new.png").write_text("new")
    assert (tmp_path / "report").is_symlink() and sorted(os.listdir(report)) == ["new.png"]


def test_atomic_directory_replaces_the_whole_directory_or_nothing(tmp_path):
    out = tmp_path / "report"
    out.mkdir()
    (out / "old.png").write_text("old")
    with pytest.raises(KeyboardInterrupt):
        with atomic_directory(out) as tmp:
            (tmp / "new.png").write_text("new")
            raise KeyboardInterrupt
    assert sorted(os.listdir(out)) == ["old.png"] and _left_over(tmp_path) == []
    with atomic_directory(out) as tmp:
        (tmp / "new.png").write_text("new")
    assert sorted(os.listdir(out)) == ["new.png"] and _left_over(tmp_path) == []  # no mix of old and new


def test_on_commit_runs_once_with_the_final_path_and_not_on_failure(tmp_path):
    seen = []
    atomic_write_text(tmp_path / "a.txt", "x", on_commit=seen.append)
    assert seen == [tmp_path / "a.txt"] and (tmp_path / "a.txt").read_text() == "x"
    with pytest.raises(RuntimeError):
        with atomic_open(tmp_path / "b.txt", "w", on_commit=seen.append) as fh:
            fh.write("half")
            raise RuntimeError
    assert seen == [tmp_path / "a.txt"] and not (tmp_path / "b.txt").exists()


def test_binary_mode_and_encoding(tmp_path):
    with atomic_open(tmp_path / "b.bin", "wb") as fh:
        fh.write(b"\x00\xff")
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\xff"
    atomic_write_text(tmp_path / "l.txt", "é", encoding="latin-1")
    assert (tmp_path / "l.txt").read_bytes() == b"\xe9"


def test_a_device_is_written_through_never_replaced():
    before = os.stat("/dev/null")
    atomic_write_text("/dev/null", "discarded")
    after = os.stat("/dev/null")
    assert (before.st_ino, before.st_rdev) == (after.st_ino, after.st_rdev)


def test_a_missing_directory_is_named(tmp_path):
    with pytest.raises(OSError, match=str(tmp_path / "nowhere")):
        atomic_write_text(tmp_path / "nowhere" / "x.txt", "x")
