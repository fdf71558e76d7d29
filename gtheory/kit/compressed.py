"""Input files: the first check of every reader (:func:`existing_file`), and compressed files told by their leading
bytes whatever their name: the one table the readers of runs and qrels (:mod:`metrics.io.trec_lines`), of saved
tensors (:mod:`metrics.io.saved`) and of score files (:func:`gtheory.read_scores`) share.

>>> import gzip
>>> compression(gzip.compress(b"1 Q0 d 1 1.0 r")[:6])[1], compression(b"1 Q0 d"), compression(b"BZh")
('gzip', None, None)
"""
from __future__ import annotations

import bz2
import gzip
import lzma
import os
from pathlib import Path
from typing import Any, Callable

__all__ = ["compression", "existing_file", "MAGIC"]

#: leading bytes of the compressed formats the readers open: (magic, opener, name); bzip2's "BZh" is followed by
#: its block size, a digit 1-9
MAGIC: tuple[tuple[bytes, Callable[..., Any], str], ...] = (
    (b"\x1f\x8b", gzip.open, "gzip"), (b"BZh", bz2.open, "bzip2"), (b"\xfd7zXZ\x00", lzma.open, "xz"))


def compression(head: bytes) -> tuple[Callable[..., Any], str] | None:
    """``(opener, name)`` of the compressed format whose magic bytes ``head`` (a file's first 6 bytes or more)
    starts with, or ``None`` for anything else (plain text)."""
    for magic, opener, name in MAGIC:
        if head.startswith(magic) and (magic != b"BZh" or (len(head) > 3 and 0x31 <= head[3] <= 0x39)):
            return opener, name
    return None


def existing_file(path: Any, *, if_directory: str) -> Path:
    """``path`` as a :class:`~pathlib.Path` if it names something other than a directory; else
    ``FileNotFoundError`` (saying so when it is a dangling symbolic link, and where it points) or
    ``IsADirectoryError`` with the message ``if_directory`` (``{path}`` replaced by the path)."""
    p = Path(path)
    if not p.exists():
        if p.is_symlink():
            raise FileNotFoundError(f"no such file: {p} is a dangling symbolic link (-> {os.readlink(p)})")
        raise FileNotFoundError(f"no such file: {p}")
    if p.is_dir():
        raise IsADirectoryError(if_directory.format(path=p))
    return p
