"""gtheory.kit.compressed: the one table of compressed formats, told by leading bytes (not by the file's name)."""
from __future__ import annotations

import bz2
import gzip
import lzma

import pytest

from gtheory.kit.compressed import compression


@pytest.mark.parametrize("compress, name", [(gzip.compress, "gzip"), (bz2.compress, "bzip2"),
                                            (lzma.compress, "xz")])
def test_each_format_is_told_by_its_leading_bytes_and_its_opener_reads_it(tmp_path, compress, name):
    text = b"451 Q0 doc1 1 2.5 run\n"
    p = tmp_path / "run.txt"  # no suffix: the bytes decide
    p.write_bytes(compress(text))
    opener, found = compression(p.read_bytes()[:6])
    assert found == name
    with opener(p, "rb") as fh:
        assert fh.read() == text


@pytest.mark.parametrize("head", [b"451 Q0", b"", b"BZh", b"BZhx r", b"BZh0 d", b"\x1f", b"PK\x03\x04"])
def test_anything_else_is_plain(head):
    # text, an empty file, "BZh" without bzip2's block-size digit 1-9 (a run whose topic starts "BZh"), a lone byte,
    # a zip archive (refused by the readers by name, not opened here)
    assert compression(head) is None
