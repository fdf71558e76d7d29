"""Outputs of the CLI subcommands: checked before any work (writable, not an input, not given twice:
:mod:`gtheory.kit.output_checks`), written by the package's one writer (:mod:`gtheory.kit.output`: atomically for
a regular file — a temporary file beside it renamed over it —, written through for a device, a FIFO or
``/dev/stdout``; ``-`` is standard output for text outputs), and recorded so that Ctrl-C can say what was written.
CSV outputs neutralise text cells that a spreadsheet would run as formulas unless ``--raw-csv`` is given. What is
the command line's own lives here: the options that name inputs, ``-`` as standard output (the command's messages
then go to stderr), the messages as usage errors."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from gtheory.kit.output_checks import OutputLog

from . import UsageError

#: the outputs of the running subcommand, in the order they were checked: [option, path, written?]
OUTPUTS: OutputLog = OutputLog()
#: the running subcommand's name (set by :func:`experiments.cli.main`), for notes on stderr
COMMAND = ["gtheory"]
#: the real standard output while an output is ``-`` (:func:`check_output_path` then sends the command's own
#: messages to stderr, so that standard output holds only that output); :func:`experiments.cli.main` restores it
STDOUT: list[Any] = [None]

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


def mark_written(path: str | Path) -> None:
    """Record that the output ``path`` is complete (shown by :func:`interrupted_message`)."""
    OUTPUTS.mark_written(path)


def interrupted_message(command: str) -> str:
    """What an interrupted subcommand tells the user: which outputs are complete, and that the others were
    not written (:meth:`gtheory.kit.output_checks.OutputLog.interrupted`)."""
    return OUTPUTS.interrupted(f"gtheory {command}")


def output_file(path: str | Path, mode: str = "w", *, newline: str | None = None) -> Any:
    """``open`` of an output (:func:`gtheory.kit.output.open_output`: atomic for a regular file, written through
    for a device, FIFO or ``/dev/stdout``; ``-`` is standard output) that records it as written."""
    from gtheory.kit.output import open_output

    return open_output(path, mode, newline=newline, on_commit=mark_written, stdout=_stdout())


def output_path(path: str | Path) -> Any:
    """A path to write an output to, whose content becomes ``path`` at the end
    (:func:`gtheory.kit.output.output_path`); recorded as written."""
    from gtheory.kit.output import output_path as _output_path

    return _output_path(path, on_commit=mark_written, stdout=_stdout())


def output_text(path: str | Path, text: str) -> None:
    """Write ``text`` to the output ``path`` (:func:`output_file`); recorded as written."""
    with output_file(path) as fh:
        fh.write(text)


def _stdout() -> Any:
    return STDOUT[0] if STDOUT[0] is not None else sys.stdout


def add_raw_csv_arg(p: Any) -> None:
    """``--raw-csv``: write text cells of a CSV output as they are (see :func:`write_csv_output`)."""
    p.add_argument("--raw-csv", action="store_true",
                   help="write text cells of the CSV as they are; by default a name or id starting with = + - @, "
                        "a tab or a carriage return gets a leading ' so that a spreadsheet does not run it as a "
                        "formula (OWASP)")


def write_csv_output(frame: Any, path: str | Path | None, args: argparse.Namespace, **to_csv: Any) -> None:
    """``frame`` as CSV to the output ``path`` (standard output when None), text cells neutralised against formula
    injection unless ``--raw-csv`` (:func:`gtheory.kit.output.write_csv`); recorded as written."""
    from gtheory.kit.output import write_csv

    raw = bool(getattr(args, "raw_csv", False))
    if path is None:
        write_csv(frame, _stdout(), raw=raw, **to_csv)
    else:
        write_csv(frame, path, raw=raw, on_commit=mark_written, stdout=_stdout(), **to_csv)


#: the image formats Matplotlib's standard backends write (``FigureCanvasBase.get_supported_filetypes``); --plot's
#: suffix is checked against them before anything is computed
PLOT_FORMATS = ("png", "pdf", "svg", "svgz", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp", "gif", "pgf", "raw",
                "rgba", "avif")


def save_figure(fig: Any, path: str | Path, *, dpi: int = 150) -> None:
    """``fig.savefig`` to ``path`` (atomically for a regular file; written through for a device, FIFO or ``-``),
    in the format its suffix names (``.png``, ``.svg``, ``.pdf``; PNG without a suffix); recorded as written."""
    suffix = Path(path).suffix.lstrip(".").lower()
    try:
        with output_path(path) as tmp:  # a temporary file, renamed or copied through: never a truncated image
            fig.savefig(tmp, dpi=dpi, format=suffix or "png")
    except ValueError as exc:  # a format this Matplotlib release does not write (avif before 3.10, ...)
        raise UsageError(f"--plot {path}: {exc}") from None


def check_output_path(path: str | Path, option: str, *, directory: bool = False,
                      args: argparse.Namespace | None = None, quiet: bool = False, binary: bool | None = None) -> Path:
    """Refuse, before any computation, an output path that cannot be written; return it as a :class:`Path`.

    ``option`` is the CLI option that gave ``path`` (``"--out"``, ``"--plot"``); every message is one line
    naming it and the path, e.g. ``--out nodir/x.csv: directory 'nodir' does not exist``. Nothing is created.

    For a file (the default): ``path`` must not be a directory, an existing file must be writable, and
    otherwise its parent directory must exist and be writable. With ``directory=True`` (an output directory
    the subcommand creates, as ``report --out``): ``path`` must not be an existing file, and its nearest
    existing ancestor must be a writable directory (the missing levels are created later).

    ``-`` is standard output: accepted for a file output (the command's own messages then go to stderr, so
    that standard output holds only this output), refused for a directory and, when standard output is a
    terminal, for a ``binary`` output (default: ``option == "--plot"``). An existing device, FIFO or
    ``/dev/stdout`` is written through (never replaced); a socket is refused.

    With ``args`` (the parsed command line), an output that is one of the inputs (--runs file or a file of the
    --runs directory, --qrels, --judged, SCORES.csv, --tuning, --discount; compared by :func:`os.path.samefile`, so
    symbolic and hard links count) is refused, as is a directory output holding an input, or an output given
    twice. An existing regular file is replaced when the command ends — atomically (see
    :mod:`gtheory.kit.output`) — and a note on stderr says so (unless ``quiet`` or ``args.quiet``). The output is recorded in
    :data:`OUTPUTS`.

    Raises
    ------
    UsageError
        When the path cannot be written or is an input.
    """
    from gtheory.kit.output import OutputError, target_kind
    from gtheory.kit.output_checks import check_through, check_writable, refuse_inputs

    p = Path(path)
    where = f"{option} {path}"
    binary = option == "--plot" if binary is None else binary
    quiet = quiet or bool(getattr(args, "quiet", False))  # --quiet: no note, whichever subcommand asks
    kind = target_kind(path, dash=True)
    if kind == "stdout":
        _claim_stdout(where, option, directory, binary)
        OUTPUTS.claim(option, path)
        return p
    try:
        refuse_inputs(p, where, _inputs(args), OUTPUTS, directory)
        (check_through if kind in ("fd", "special") else check_writable)(p, where, directory)
    except OutputError as exc:
        raise UsageError(str(exc)) from None
    suffix = p.suffix.lstrip(".").lower()
    if option == "--plot" and suffix and suffix not in PLOT_FORMATS:  # before any work, not Matplotlib's at the end
        raise UsageError(f"{where}: .{suffix} is not an image format Matplotlib writes; use .png, .pdf or .svg (or "
                         f"{', '.join('.' + f for f in PLOT_FORMATS[3:])}).")
    if kind in ("regular", "directory") and not quiet:
        what = "directory" if directory else "file"
        print(f"{COMMAND[0]}: note: {option} {path}: the existing {what} will be replaced when the command "
              "completes.", file=sys.stderr)
    OUTPUTS.claim(option, path)
    return p


def _claim_stdout(where: str, option: str, directory: bool, binary: bool) -> None:
    """``-``: standard output becomes this output's; the command's own messages go to stderr from now on."""
    if directory:
        raise UsageError(f"{where}: this output is a directory of files; standard output cannot hold it. "
                         "Give a directory name.")
    for other, path, _ in OUTPUTS:
        if path == "-":
            raise UsageError(f"{where}: standard output is also the output of {other}; give each output its own "
                             "path.")
    stream = STDOUT[0] if STDOUT[0] is not None else sys.stdout
    if binary:
        try:
            tty = stream.isatty()
        except (AttributeError, ValueError, OSError):
            tty = False
        if tty:
            raise UsageError(f"{where}: standard output is a terminal, which cannot show an image; redirect it "
                             "(> plot.png) or give a file name.")
    if STDOUT[0] is None:
        STDOUT[0] = sys.stdout
        sys.stdout = sys.stderr
