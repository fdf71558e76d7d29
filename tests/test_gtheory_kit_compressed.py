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


def test_existing_file_names_what_is_wrong_with_the_path(tmp_path):
    from gtheory.kit.compressed import existing_file

    f = tmp_path / "runs.txt"
    f.write_text("x")
    assert existing_file(str(f), if_directory="{path}: a directory") == f
    with pytest.raises(IsADirectoryError, match=r"runs\.d: a directory$"):
        (tmp_path / "runs.d").mkdir()
        existing_file(tmp_path / "runs.d", if_directory="{path}: a directory")
    with pytest.raises(FileNotFoundError, match=r"^no such file: .*missing\.txt$"):
        existing_file(tmp_path / "missing.txt", if_directory="")
    (tmp_path / "link.txt").symlink_to(tmp_path / "gone.txt")
    with pytest.raises(FileNotFoundError, match=r"dangling symbolic link \(-> .*gone\.txt\)"):
        existing_file(tmp_path / "link.txt", if_directory="")
