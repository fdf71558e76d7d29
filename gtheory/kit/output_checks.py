"""Outputs checked before any work, and the record of one command's outputs (beside :mod:`gtheory.kit.output`, the
one writer): the checks a caller runs on every output path before it computes anything, so that a bad path fails
in a second, not after an hour, and never destroys an input.

* :func:`check_writable` — a file output's directory exists and can be written, an existing file can be replaced;
  a directory output is not a file and its nearest existing ancestor can be written;
* :func:`check_through` — an existing device, FIFO or ``/dev/stdout`` (written through, never replaced) can be
  written; a socket is refused;
* :func:`refuse_inputs` — an output that is one of the inputs (compared by :func:`os.path.samefile`: symbolic and
  hard links count), a file of an input directory, a directory output holding an input, or another output;
* :class:`OutputLog` — the outputs of one command in the order they were checked, which of them are complete
  (:meth:`OutputLog.mark_written`, the ``on_commit`` of the writer), and what an interrupted command says about
  them (:meth:`OutputLog.interrupted`: a regular file is complete or untouched; one written through may hold part
  of its output).

Every refusal is an :class:`~gtheory.kit.output.OutputError` whose message starts with ``where`` (``"--out x.csv"``,
a parameter and its value): one line naming the output and the problem. Nothing here creates or changes a file.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any, Iterable, Sequence, Tuple, Union

from .output import OutputError, target_kind

__all__ = ["same_file", "in_directory", "inside", "refuse_inputs", "check_writable", "check_through",
           "written_through", "OutputLog"]

PathLike = Union[str, "os.PathLike[str]"]


def same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are one file: :func:`os.path.samefile` when both exist (symbolic and hard links
    included), else the resolved paths."""
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
        return a.resolve() == b.resolve()
    except OSError:
        return False


def in_directory(p: Path, directory: Path) -> bool:
    """Whether ``p`` is (or would be) a file of ``directory``: by its own path, or through a symbolic link (also a
    dangling one: the output would be created there) or a hard link (an output written through a link to a run
    file would replace the run; a new file there would be read as a run next time)."""
    if p.parent.exists() and same_file(p.parent, directory):
        return True
    if p.resolve().parent.exists() and same_file(p.resolve().parent, directory):
        return True
    if not p.exists():
        return False
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return False
    return any(same_file(p, Path(e.path)) for e in entries)


def inside(child: Path, parent: Path) -> bool:
    """Whether ``child`` is ``parent`` or lies below it (resolved paths)."""
    try:
        child.resolve().relative_to(parent.resolve())
        return True
    except ValueError:
        return False


def refuse_inputs(p: Path, where: str, inputs: Iterable[Tuple[str, Path]], outputs: Iterable[Sequence[Any]],
                  directory: bool) -> None:
    """Refuse the output ``p`` when it is one of the ``inputs`` ((name, path) pairs of existing inputs), a file of an
    input directory, a directory output holding an input, or one of the ``outputs`` already claimed ((name, path,
    ...) rows, as an :class:`OutputLog` holds)."""
    for option, src in inputs:
        if same_file(p, src):
            raise OutputError(f"{where}: is the input {option} {src}; writing there would destroy it. "
                              "Choose another output path.")
        if src.is_dir() and not directory and in_directory(p, src):
            raise OutputError(f"{where}: is a file of the input directory {option} {src}; writing there would "
                              "replace it, or add a file that the next read of the directory takes for a run. "
                              "Choose another output path.")
        if directory and inside(src, p):
            raise OutputError(f"{where}: holds the input {option} {src}; the report directory is replaced as a "
                              "whole. Choose another output directory.")
    for option, other, *_ in outputs:
        if same_file(p, Path(other)) or (directory and inside(Path(other), p)):
            raise OutputError(f"{where}: is also the output of {option}; give each output its own path.")


def check_through(p: Path, where: str, directory: bool) -> None:
    """An existing device, FIFO or ``/dev/stdout``: written through, so only the target itself must be writable."""
    if directory:
        raise OutputError(f"{where}: is not a directory (a device, a pipe or a file descriptor).")
    try:
        mode = os.stat(p).st_mode
    except OSError:
        return  # /dev/fd/N of a closed descriptor: the writer says so
    if stat.S_ISSOCK(mode):
        raise OutputError(f"{where}: is a socket, not a file; give a file name, or '-' for standard output.")
    if not os.access(p, os.W_OK):
        raise OutputError(f"{where}: is not writable.")


def check_writable(p: Path, where: str, directory: bool) -> Path:
    """A file output (``directory=False``): not a directory, an existing file writable, else its parent an
    existing writable directory. A directory output, which the caller creates beside the old one and renames over
    it: not an existing file, its nearest existing ancestor a writable directory, and an existing one's parent
    writable. Returns ``p``."""
    if directory:
        if p.exists() and not p.is_dir():
            raise OutputError(f"{where}: is a file, not a directory.")
        probe = p
        while not probe.exists():
            if probe.parent == probe:
                break
            probe = probe.parent
        if probe.exists() and not probe.is_dir():
            raise OutputError(f"{where}: '{probe}' is a file, not a directory.")
        if not os.access(probe, os.W_OK | os.X_OK):
            raise OutputError(f"{where}: directory '{probe}' is not writable.")
        parent = p.resolve().parent  # the new directory is built beside the old one and renamed over it
        if p.exists() and not os.access(parent, os.W_OK | os.X_OK):
            raise OutputError(f"{where}: directory '{parent}' is not writable (the report is written beside "
                              f"{p.name} and renamed).")
        return p
    if p.is_dir():
        raise OutputError(f"{where}: is a directory; give a file name in it.")
    if p.exists() and not os.access(p, os.W_OK):
        raise OutputError(f"{where}: the file is not writable.")
    parent = p.parent  # Path("x.csv").parent is Path("."); the output is written to a temporary file there
    if not parent.exists():
        raise OutputError(f"{where}: directory '{parent}' does not exist.")
    if not parent.is_dir():
        raise OutputError(f"{where}: '{parent}' is not a directory.")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{where}: directory '{parent}' is not writable.")
    return p


def written_through(path: PathLike) -> bool:
    """Whether ``path`` is an output written through (standard output, a device, a FIFO): not atomic."""
    try:
        return target_kind(path, dash=True) in ("stdout", "fd", "special")
    except OSError:
        return False


class OutputLog(list):
    """The outputs of one command, in the order they were checked: rows ``[name, path, written]`` (a list, so that a
    caller can clear it between commands and read its rows)."""

    def claim(self, name: str, path: PathLike) -> None:
        """Record the output ``path`` of ``name`` (an option, a parameter), not written yet."""
        self.append([name, str(path), False])

    def mark_written(self, path: PathLike) -> None:
        """Record that the output ``path`` is complete (the writer's ``on_commit``)."""
        for entry in self:
            if same_file(Path(entry[1]), Path(path)):
                entry[2] = True

    def interrupted(self, who: str) -> str:
        """What ``who`` (``"gtheory evaluate"``) tells the user when interrupted: which outputs are complete, and that
        the others were not written (an output to a regular file is atomic: it is complete or absent, an existing
        one left as it was; one written through to standard output, a device or a FIFO may hold part of it)."""
        done = [str(p) for _, p, ok in self if ok]
        todo = [str(p) for _, p, ok in self if not ok and not written_through(str(p))]
        part = [str(p) for _, p, ok in self if not ok and written_through(str(p))]
        text = f"{who}: interrupted"
        if done:
            text += f"; wrote {', '.join(done)}"
        if todo:
            text += f"; nothing written to {', '.join(todo)}"
        if part:
            text += f"; {', '.join(part)} may hold part of the output (not a regular file: written through)"
        if not (done or todo or part):
            text += "; nothing written"
        return text
