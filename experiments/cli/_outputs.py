"""Outputs of the CLI subcommands: checked before any work (writable, not an input, not given twice), written
atomically (a temporary file beside the output renamed over it), and recorded so that Ctrl-C can say what was
written."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from . import UsageError

#: the outputs of the running subcommand, in the order they were checked: [option, path, written?]
OUTPUTS: list[list[Any]] = []
#: the running subcommand's name (set by :func:`experiments.cli.main`), for notes on stderr
COMMAND = ["gtheory"]

#: attributes of the parsed arguments that name input files or directories, with their options
_INPUT_OPTIONS = (("runs", "--runs"), ("qrels", "--qrels"), ("judged", "--judged"), ("scores", "SCORES.csv"),
                  ("tuning", "--tuning"), ("discount", "--discount"))


def _inputs(args: argparse.Namespace | None) -> list[tuple[str, Path]]:
    """(option, path) of every input file or directory named on the command line that exists."""
    if args is None:
        return []
    out = []
    for attr, option in _INPUT_OPTIONS:
        value = getattr(args, attr, None)
        for v in (value if isinstance(value, (list, tuple)) else [value]):
            if isinstance(v, (str, os.PathLike)) and Path(v).exists():
                out.append((option, Path(v)))
    return out


def _same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are one file: :func:`os.path.samefile` when both exist (symbolic and hard links
    included), else the resolved paths."""
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
        return a.resolve() == b.resolve()
    except OSError:
        return False


def _inside(child: Path, parent: Path) -> bool:
    try:
        child.resolve().relative_to(parent.resolve())
        return True
    except ValueError:
        return False


def _refuse_inputs(p: Path, where: str, args: argparse.Namespace | None, directory: bool) -> None:
    """Refuse an output that is one of the inputs (or a directory output that holds one), or another output."""
    for option, src in _inputs(args):
        if _same_file(p, src):
            raise UsageError(f"{where}: is the input {option} {src}; writing there would destroy it. "
                             "Choose another output path.")
        if src.is_dir() and p.exists() and not directory and p.parent.exists() and \
                _same_file(p.parent, src):
            raise UsageError(f"{where}: is a file of the input directory {option} {src}; writing there would "
                             "replace it. Choose another output path.")
        if directory and _inside(src, p):
            raise UsageError(f"{where}: holds the input {option} {src}; the report directory is replaced as a "
                             "whole. Choose another output directory.")
    for option, other, _ in OUTPUTS:
        if _same_file(p, Path(other)) or (directory and _inside(Path(other), p)):
            raise UsageError(f"{where}: is also the output of {option}; give each output its own path.")


def mark_written(path: str | Path) -> None:
    """Record that the output ``path`` is complete (shown by :func:`interrupted_message`)."""
    for entry in OUTPUTS:
        if _same_file(Path(entry[1]), Path(path)):
            entry[2] = True


def interrupted_message(command: str) -> str:
    """What an interrupted subcommand tells the user: which outputs are complete, and that the others were
    not written (every output is atomic: it is complete or absent, an existing one left as it was)."""
    done = [str(p) for _, p, ok in OUTPUTS if ok]
    todo = [str(p) for _, p, ok in OUTPUTS if not ok]
    text = f"gtheory {command}: interrupted"
    if done:
        text += f"; wrote {', '.join(done)}"
    if todo:
        text += f"; nothing written to {', '.join(todo)}"
    elif not done:
        text += "; nothing written"
    return text


def output_file(path: str | Path, mode: str = "w", *, newline: str | None = None) -> Any:
    """An atomic ``open`` of an output (:func:`metrics._atomic.atomic_open`) that records it as written."""
    from metrics._atomic import atomic_open

    return atomic_open(path, mode, newline=newline, on_commit=mark_written)


def output_path(path: str | Path) -> Any:
    """A temporary path beside an output, renamed over it at the end (:func:`metrics._atomic.atomic_path`)."""
    from metrics._atomic import atomic_path

    return atomic_path(path, on_commit=mark_written)


def save_figure(fig: Any, path: str | Path, *, dpi: int = 150) -> None:
    """``fig.savefig`` to ``path`` atomically, in the format its suffix names (``.png``, ``.svg``, ``.pdf``;
    PNG without a suffix); recorded as written."""
    suffix = Path(path).suffix.lstrip(".").lower()
    with output_path(path) as tmp:  # a temporary file beside it, renamed: never a truncated image
        fig.savefig(tmp, dpi=dpi, format=suffix or "png")


def check_output_path(path: str | Path, option: str, *, directory: bool = False,
                      args: argparse.Namespace | None = None, quiet: bool = False) -> Path:
    """Refuse, before any computation, an output path that cannot be written; return it as a :class:`Path`.

    ``option`` is the CLI option that gave ``path`` (``"--out"``, ``"--plot"``); every message is one line
    naming it and the path, e.g. ``--out nodir/x.csv: directory 'nodir' does not exist``. Nothing is created.

    For a file (the default): ``path`` must not be a directory, an existing file must be writable, and
    otherwise its parent directory must exist and be writable. With ``directory=True`` (an output directory
    the subcommand creates, as ``report --out``): ``path`` must not be an existing file, and its nearest
    existing ancestor must be a writable directory (the missing levels are created later).

    With ``args`` (the parsed command line), an output that is one of the inputs (--runs file or a file of the
    --runs directory, --qrels, --judged, SCORES.csv, --tuning, --discount; compared by :func:`os.path.samefile`, so
    symbolic and hard links count) is refused, as is a directory output holding an input, or an output given
    twice. An existing output is replaced when the command ends — atomically (see :mod:`metrics._atomic`) — and
    a note on stderr says so (unless ``quiet``). The output is recorded in :data:`OUTPUTS`.

    Raises
    ------
    UsageError
        When the path cannot be written or is an input.
    """
    p = Path(path)
    where = f"{option} {path}"
    _refuse_inputs(p, where, args, directory)
    _check_writable(p, where, directory)
    if p.exists() and not quiet:
        what = "directory" if directory else "file"
        print(f"{COMMAND[0]}: note: {option} {path}: the existing {what} will be replaced when the command "
              "completes.", file=sys.stderr)
    OUTPUTS.append([option, str(path), False])
    return p


def _check_writable(p: Path, where: str, directory: bool) -> Path:
    if directory:
        if p.exists() and not p.is_dir():
            raise UsageError(f"{where}: is a file, not a directory.")
        probe = p
        while not probe.exists():
            if probe.parent == probe:
                break
            probe = probe.parent
        if probe.exists() and not probe.is_dir():
            raise UsageError(f"{where}: '{probe}' is a file, not a directory.")
        if not os.access(probe, os.W_OK | os.X_OK):
            raise UsageError(f"{where}: directory '{probe}' is not writable.")
        parent = p.resolve().parent  # the new directory is built beside the old one and renamed over it
        if p.exists() and not os.access(parent, os.W_OK | os.X_OK):
            raise UsageError(f"{where}: directory '{parent}' is not writable (the report is written beside "
                             f"{p.name} and renamed).")
        return p
    if p.is_dir():
        raise UsageError(f"{where}: is a directory; give a file name in it.")
    if p.exists() and not os.access(p, os.W_OK):
        raise UsageError(f"{where}: the file is not writable.")
    parent = p.parent  # Path("x.csv").parent is Path("."); the output is written to a temporary file there
    if not parent.exists():
        raise UsageError(f"{where}: directory '{parent}' does not exist.")
    if not parent.is_dir():
        raise UsageError(f"{where}: '{parent}' is not a directory.")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{where}: directory '{parent}' is not writable.")
    return p
