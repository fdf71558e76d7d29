"""Outputs of :mod:`metrics` — a thin, lazily importing front of the package's one writer,
:mod:`gtheory.kit.output`.

A regular file (or a new path) is written to a temporary file beside it, flushed to the disk and renamed over it
at the end, so it is complete or untouched (Ctrl-C included); a symbolic link is written through. An existing
target that is not a regular file — a device such as ``/dev/null``, a named pipe, ``/dev/stdout`` — is written
through and never replaced. A missing or read-only directory is refused with an error naming it. The rules are
documented in :mod:`gtheory.kit.output`.

``import metrics`` does not load :mod:`gtheory`: each function here imports the kit when it is called.

Example
-------
>>> import os, tempfile
>>> from metrics._atomic import atomic_open
>>> d = tempfile.mkdtemp()
>>> with atomic_open(os.path.join(d, "scores.csv"), "w") as fh:
...     _ = fh.write("system,topic,score\\n")
>>> sorted(os.listdir(d))
['scores.csv']
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Any, Callable, ContextManager, Union

__all__ = ["atomic_path", "atomic_open", "atomic_write_text", "atomic_directory"]

PathLike = Union[str, "os.PathLike[str]"]


def atomic_path(path: PathLike, *, on_commit: Callable[[Path], None] | None = None) -> ContextManager[Path]:
    """:func:`gtheory.kit.output.output_path`: a path to write to whose content becomes ``path`` at the end."""
    from gtheory.kit.output import output_path

    return output_path(path, on_commit=on_commit)


def atomic_open(path: PathLike, mode: str = "w", *, encoding: str | None = "utf-8", newline: str | None = None,
                on_commit: Callable[[Path], None] | None = None) -> ContextManager[IO[Any]]:
    """:func:`gtheory.kit.output.open_output`: ``open(path, mode)`` (``"w"`` or ``"wb"``) for an output."""
    from gtheory.kit.output import open_output

    return open_output(path, mode, encoding=encoding, newline=newline, on_commit=on_commit)


def atomic_write_text(path: PathLike, text: str, *, encoding: str = "utf-8",
                      on_commit: Callable[[Path], None] | None = None) -> None:
    """:func:`gtheory.kit.output.write_text`: write ``text`` to ``path``."""
    from gtheory.kit.output import write_text

    write_text(path, text, encoding=encoding, on_commit=on_commit)


def atomic_directory(path: PathLike, *, on_commit: Callable[[Path], None] | None = None) -> ContextManager[Path]:
    """:func:`gtheory.kit.output.output_directory`: a temporary directory that becomes ``path`` at the end."""
    from gtheory.kit.output import output_directory

    return output_directory(path, on_commit=on_commit)
