"""Atomic outputs: a file or a directory appears complete, or not at all.

Every output of the package (CSV, JSON, figures, reports, ``.npz`` tensors) is written to a temporary file (or
directory) in the directory of the target and renamed over it at the end with :func:`os.replace`, which is atomic on
POSIX and Windows within one file system. An error or an interrupt (Ctrl-C: ``KeyboardInterrupt``) before the end
removes the temporary file and leaves the target as it was: no truncated PNG, no half-written CSV, no report that
mixes old and new files.

This module lives in :mod:`metrics`, the package every other one imports (``gtheory`` writes no files), so that
:meth:`metrics.JudgedRuns.save`, :meth:`optimize.Tuning.to_json`, :func:`experiments.report.write_report` and the
command line share one implementation.

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
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Callable, Iterator, Union

__all__ = ["atomic_path", "atomic_open", "atomic_write_text", "atomic_directory"]

PathLike = Union[str, "os.PathLike[str]"]


def _resolved(path: PathLike) -> Path:
    """The file a write to ``path`` changes: a symbolic link is written through (as the shell's ``>`` does), so the
    link stays a link and the file it points to gets the new content; the temporary file goes beside that file."""
    target = Path(path)
    return Path(os.path.realpath(target)) if target.is_symlink() else target


def _sync(tmp: Path) -> None:
    """Flush ``tmp``'s data to the disk before it is renamed over the target, so that a crash right after the
    rename cannot leave an empty or partial file under the target's name."""
    fd = os.open(tmp, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _publish_mode(tmp: Path, target: Path, *, directory: bool = False) -> None:
    """Give the temporary file the permissions of the file it replaces, or the usual ones for a new file
    (``mkstemp`` creates it readable by its owner only)."""
    try:
        mode = target.stat().st_mode & 0o7777 if target.exists() and not directory else None
    except OSError:
        mode = None
    if mode is None:
        mode = (0o777 if directory else 0o666) & ~_umask()
    os.chmod(tmp, mode)


@contextmanager
def atomic_path(path: PathLike, *, on_commit: Callable[[Path], None] | None = None) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; when the block ends without an exception it replaces ``path``.

    The temporary name keeps the suffix of ``path`` (``.report.png.k2j3.tmp.png``), so writers that choose a
    format by suffix (matplotlib's ``savefig``) write the right one. On any exception, ``KeyboardInterrupt``
    included, the temporary file is removed and ``path`` is untouched; the exception propagates. ``on_commit``
    is called with ``path`` after the rename. A ``path`` that is a symbolic link is written through: its target file
    is replaced and the link kept.
    """
    target = _resolved(path)
    fd, name = tempfile.mkstemp(dir=target.parent if str(target.parent) else ".", prefix=f".{target.name}.",
                                suffix=".tmp" + "".join(target.suffixes[-1:]))
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        _publish_mode(tmp, target)
        _sync(tmp)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if on_commit is not None:
        on_commit(Path(path))


@contextmanager
def atomic_open(path: PathLike, mode: str = "w", *, encoding: str | None = "utf-8", newline: str | None = None,
                on_commit: Callable[[Path], None] | None = None) -> Iterator[IO[Any]]:
    """``open(path, mode)`` that writes a temporary file renamed over ``path`` at the end (see :func:`atomic_path`).

    ``mode`` is ``"w"`` (text, ``encoding``) or ``"wb"`` (binary).
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"`mode` must be 'w' or 'wb'; got {mode!r}.")
    with atomic_path(path, on_commit=on_commit) as tmp:
        if mode == "wb":
            with open(tmp, "wb") as fh:
                yield fh
        else:
            with open(tmp, "w", encoding=encoding, newline=newline) as fh:
                yield fh


def atomic_write_text(path: PathLike, text: str, *, encoding: str = "utf-8",
                      on_commit: Callable[[Path], None] | None = None) -> None:
    """Write ``text`` to ``path`` atomically (:func:`atomic_open`)."""
    with atomic_open(path, "w", encoding=encoding, on_commit=on_commit) as fh:
        fh.write(text)


@contextmanager
def atomic_directory(path: PathLike, *, on_commit: Callable[[Path], None] | None = None) -> Iterator[Path]:
    """Yield a new temporary directory beside ``path``; at the end it becomes ``path``, replacing a previous one.

    Files are written into the yielded directory. When the block ends without an exception, an existing
    ``path`` is moved aside, the new directory renamed to ``path`` and the old one removed: the target holds
    either the old files or the new ones, never a mix. On any exception (``KeyboardInterrupt`` included) the
    temporary directory is removed and ``path`` is untouched. Missing parent directories are created. A ``path``
    that is a symbolic link to a directory is written through (the link stays, the directory it names is replaced).
    """
    target = _resolved(path)
    if target.exists() and not target.is_dir():
        raise NotADirectoryError(f"{target} exists and is not a directory.")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"))
    try:
        yield tmp
        _publish_mode(tmp, target, directory=True)
        if target.exists():
            old = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".old"))
            os.rmdir(old)  # a free name beside the target
            os.replace(target, old)
            try:
                os.replace(tmp, target)
            except BaseException:
                os.replace(old, target)  # put the old one back
                raise
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if on_commit is not None:
        on_commit(Path(path))
