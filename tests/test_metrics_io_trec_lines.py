"""Tests of metrics/io/trec_lines.py: the lines of a TREC file, shared by the run and qrels readers — the file's bytes
(compressed, byte-order mark, NUL, UTF-16), columns split on ASCII whitespace, numbers in C syntax, the error that
names file and line."""
from __future__ import annotations

import bz2
import gzip
import lzma
import pickle
from pathlib import Path

import numpy as np
import pytest

from metrics import read_run
from metrics.io.trec_lines import TrecFormatError, _floats, _read_bytes, _tokenise, natural_topic_order, utf16_kind


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    if name.endswith(".gz"):
        with gzip.open(p, "wt") as fh:
            fh.write(text)
    elif name.endswith(".xz"):
        with lzma.open(p, "wt") as fh:
            fh.write(text)
    else:
        p.write_text(text)
    return p


# ------------------------------------------------------------------------------------------- bytes
def test_bytes_are_decompressed_and_lose_their_byte_order_mark(tmp_path):
    text = "1 Q0 a 1 1.0 t\n"
    for name in ("f.txt", "f.gz", "f.xz"):
        p = write(tmp_path, name, "\ufeff" + text)
        assert _read_bytes(p) == text.encode()  # the BOM is no part of the first topic id


def test_a_nul_byte_is_refused_with_its_line_and_offset(tmp_path):
    p = tmp_path / "r"
    p.write_bytes(b"\xef\xbb\xbf1 Q0 a 1 1 t\n1 Q0 b\x00c 2 1 t\n")
    with pytest.raises(TrecFormatError) as err:
        _read_bytes(p)
    # the offset counts the file's bytes as they are, BOM included: 3 + 13 bytes of line 1 + len("1 Q0 b") = 22
    assert err.value.line == 2 and "byte offset 22 (column 7 of the line)" in err.value.problem


def test_utf16_is_told_by_its_mark_or_its_nul_pattern():
    assert utf16_kind("1 0 a 1\n".encode("utf-16")) == "a UTF-16 byte-order mark"
    assert utf16_kind("1 0 a 1\n1 0 b 0\n".encode("utf-16-le")) == "NUL bytes between the characters"
    assert utf16_kind("1 0 a 1\n1 0 b 0\n".encode("utf-16-be")) == "NUL bytes between the characters"
    assert utf16_kind(b"1 0 a 1\n") == "" and utf16_kind(b"1 0 a\x00 1\n" * 20) == ""  # one stray NUL: not UTF-16


def test_missing_and_corrupt_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        _read_bytes(tmp_path / "nope")
    with pytest.raises(IsADirectoryError, match="expected a file, got a directory"):
        _read_bytes(tmp_path)
    with pytest.raises(TrecFormatError, match="cannot read or decompress"):
        read_run(_corrupt_xz(tmp_path))


def _corrupt_xz(tmp_path: Path) -> Path:
    p = tmp_path / "broken.xz"
    p.write_bytes(lzma.compress(b"1 Q0 a 1 1.0 t\n" * 100)[:-20])  # an xz file cut short
    return p


@pytest.mark.parametrize("name, pack", [("run", gzip.compress), ("run.txt", lzma.compress),
                                        ("run.xz", lambda b: b), ("run.gz", bz2.compress)])
def test_compression_is_told_by_the_leading_bytes_not_the_name(tmp_path, name, pack):
    # a gzip run saved without .gz was refused as "corrupt: a NUL byte", a plain run named .xz as undecompressable
    text = b"1 Q0 a 1 1.0 t\n1 Q0 b 2 0.5 t\n"
    p = tmp_path / name
    p.write_bytes(pack(text))
    assert _read_bytes(p) == text
    assert read_run(p).docno.tolist() == ["a", "b"]


@pytest.mark.parametrize("head, what", [(b"PK\x03\x04", "a zip archive"), (b"\x28\xb5\x2f\xfd", "zstd-compressed")])
def test_archives_that_are_not_read_are_named(tmp_path, head, what):
    p = tmp_path / "runs.bin"
    p.write_bytes(head + b"\0" * 40)
    with pytest.raises(TrecFormatError, match=f"the file is {what}"):
        _read_bytes(p)


# ------------------------------------------------------------------------------------------- columns, numbers
def test_tokens_and_their_line_numbers():
    tokens, lines = _tokenise("a b\n\nc\td\r\n  e f\n", 2, "f", "two columns")
    assert tokens == ["a", "b", "c", "d", "e", "f"] and lines.tolist() == [1, 3, 4]  # blank line 2 counted
    with pytest.raises(TrecFormatError, match=r"^f, line 2: 3 columns, expected 2 \(two columns\); the line reads 'c d e'"):
        _tokenise("a b\nc d e\n", 2, "f", "two columns")


def test_blank_lines_skipped_and_line_numbers_kept(tmp_path):
    p = write(tmp_path, "r", "1 Q0 a 1 1 t\n\n1 Q0 b 2 x t\n")
    with pytest.raises(TrecFormatError, match=r"r, line 3: score 'x' is not a number"):
        read_run(p)


def test_only_ascii_whitespace_separates_columns(tmp_path):
    # a no-break space inside a docno is part of the docno, as in trec_eval (which splits on ASCII whitespace)
    run = read_run(write(tmp_path, "r", "1 Q0 a\u00a0b 1 1.0 t\n1\tQ0\tc\t2\t0.5\tt\r\n"))
    assert run.docno.tolist() == ["a\u00a0b", "c"]


def test_numbers_in_c_syntax_name_the_first_bad_line():
    lines = np.array([4, 7, 9])
    assert _floats(["1", "-2.5e1", ".5"], lines, "f", "grade").tolist() == [1.0, -25.0, 0.5]
    with pytest.raises(TrecFormatError, match=r"^f, line 7: grade '1_0' is not a number$"):
        _floats(["1", "1_0", "x"], lines, "f", "grade")
    with pytest.raises(TrecFormatError, match=r"^f, line 9: grade 'inf' is not finite"):
        _floats(["1", "2", "inf"], lines, "f", "grade")


@pytest.mark.parametrize("score", ["1_000", "\u0663", "１"])
def test_scores_need_c_float_syntax(tmp_path, score):
    """trec_eval reads scores with atof: Python-only spellings (underscores, non-ASCII digits) are errors."""
    p = write(tmp_path, "r", f"1 Q0 a 1 1.0 t\n1 Q0 b 2 {score} t\n")
    with pytest.raises(TrecFormatError, match=r"line 2: score .* is not a number"):
        read_run(p)


# ------------------------------------------------------------------------------------------- topics, errors
def test_natural_topic_order():
    assert natural_topic_order(["10", "2", "2", "-1"]) == ["-1", "2", "10"]  # numerically, each once
    assert natural_topic_order(["b", "10", "a"]) == ["10", "a", "b"]  # not all integers: as strings


def test_the_error_names_file_and_line_and_survives_pickling():
    e = TrecFormatError("runs/a.txt", 12, "docno 'x' appears twice", counts={"runs/a.txt": 2},
                        fix={"duplicates": "first"}, fix_effect="keep only the first occurrence")
    assert str(e).startswith("runs/a.txt, line 12: docno 'x' appears twice")
    assert (e.path, e.line, e.problem, e.fix) == ("runs/a.txt", 12, "docno 'x' appears twice", {"duplicates": "first"})
    assert str(TrecFormatError("q", None, "empty")).startswith("q: empty")
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is TrecFormatError and str(back) == str(e) and back.counts == e.counts
