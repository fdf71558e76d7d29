"""gtheory.kit.output_checks: outputs checked before any work (an input is never an output, through links too; a
missing or read-only directory is named) and the record of one command's outputs. The reference is the file system
itself: links made here, permissions set here, ``os.path.samefile``."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from gtheory.kit.output import OutputError
from gtheory.kit.output_checks import OutputLog, check_through, check_writable, in_directory, refuse_inputs, same_file


def test_same_file_sees_symbolic_and_hard_links_and_new_paths(tmp_path):
    f = tmp_path / "runs.txt"
    f.write_text("x")
    (tmp_path / "soft").symlink_to(f)
    os.link(f, tmp_path / "hard")
    assert same_file(f, tmp_path / "soft") and same_file(f, tmp_path / "hard")
    assert same_file(tmp_path / "new.csv", tmp_path / "." / "new.csv")  # neither exists: the resolved paths
    assert not same_file(f, tmp_path / "other.csv")


def test_a_file_of_an_input_directory_is_found_through_links(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a").write_text("run")
    elsewhere = tmp_path / "out"
    elsewhere.mkdir()
    os.link(runs / "a", elsewhere / "hard")
    (elsewhere / "dangling").symlink_to(runs / "new")
    assert in_directory(runs / "b.csv", runs)
    assert in_directory(elsewhere / "hard", runs) and in_directory(elsewhere / "dangling", runs)
    assert not in_directory(elsewhere / "c.csv", runs)


def test_an_output_that_is_an_input_or_another_output_is_refused_naming_both(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d 1\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    inputs = [("--qrels", qrels), ("--runs", runs)]
    with pytest.raises(OutputError, match=r"^--out q: is the input --qrels .*qrels.txt; writing there would destroy"):
        refuse_inputs(qrels, "--out q", inputs, [], directory=False)
    with pytest.raises(OutputError, match="is a file of the input directory --runs"):
        refuse_inputs(runs / "x.csv", "--out x", inputs, [], directory=False)
    with pytest.raises(OutputError, match="holds the input --qrels"):
        refuse_inputs(tmp_path, "--out d", inputs, [], directory=True)
    log = OutputLog()
    log.claim("--plot", tmp_path / "f.png")
    with pytest.raises(OutputError, match=r"^--out f: is also the output of --plot; give each output its own"):
        refuse_inputs(tmp_path / "f.png", "--out f", inputs, log, directory=False)
    refuse_inputs(tmp_path / "fine.csv", "--out fine", inputs, log, directory=False)  # nothing to refuse


def test_a_missing_directory_or_a_directory_given_as_a_file_is_named(tmp_path):
    with pytest.raises(OutputError, match=r"^--out nodir/x.csv: directory 'nodir' does not exist\.$"):
        check_writable(Path("nodir/x.csv"), "--out nodir/x.csv", directory=False)
    with pytest.raises(OutputError, match="is a directory; give a file name in it"):
        check_writable(tmp_path, "--out d", directory=False)
    (tmp_path / "f").write_text("")
    with pytest.raises(OutputError, match="is a file, not a directory"):
        check_writable(tmp_path / "f", "--out f", directory=True)
    assert check_writable(tmp_path / "report" / "deeper", "--out r", directory=True) == tmp_path / "report" / "deeper"
    with pytest.raises(OutputError, match="is not a directory"):
        check_through(Path(os.devnull), "--out /dev/null", directory=True)
    check_through(Path(os.devnull), "--out /dev/null", directory=False)  # a writable device: written through


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="permissions: POSIX, not as root")
def test_a_read_only_directory_is_named(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        with pytest.raises(OutputError, match=f"directory '{ro}' is not writable"):
            check_writable(ro / "x.csv", "--out x", directory=False)
        with pytest.raises(OutputError, match=f"directory '{ro}' is not writable"):
            check_writable(ro / "report", "--out r", directory=True)
    finally:
        ro.chmod(0o700)


def test_the_log_says_what_an_interrupt_left(tmp_path):
    log = OutputLog()
    assert log.interrupted("gtheory x") == "gtheory x: interrupted; nothing written"
    log.claim("--out", tmp_path / "a.csv")
    log.claim("--plot", tmp_path / "b.png")
    log.claim("--json", os.devnull)
    log.mark_written(tmp_path / "." / "a.csv")  # the same file by another spelling
    assert log.interrupted("gtheory x") == (
        f"gtheory x: interrupted; wrote {tmp_path / 'a.csv'}; nothing written to {tmp_path / 'b.png'}; "
        f"{os.devnull} may hold part of the output (not a regular file: written through)")
    assert [row[2] for row in log] == [True, False, False]
