"""Shared pieces of the CLI subcommands: the data options and loading them."""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np

import metrics

from . import UsageError


def add_data_args(p: argparse.ArgumentParser) -> None:
    """``--runs DIR|FILE... --qrels FILE [--depth N]``; without them the embedded TREC-9 Web data is used."""
    g = p.add_argument_group("data (default: the embedded TREC-9 Web runs, 104 systems x 50 topics)")
    g.add_argument("--runs", nargs="+", metavar="RUNS", default=None,
                   help="a directory of TREC run files, or run files (plain, .gz, .xz)")
    g.add_argument("--qrels", metavar="FILE", default=None, help="TREC qrels file (needed with --runs)")
    g.add_argument("--judged", metavar="TENSOR.npz", default=None,
                   help="a judged-grade tensor saved with JudgedRuns.save (instead of --runs/--qrels)")
    g.add_argument("--depth", type=positive_int("--depth"), default=1000, action=_Given,
                   help="ranks of each run read with --runs (default 1000); the embedded data and --judged "
                        "tensors keep the depth they were judged to")
    g.add_argument("--grades", choices=["exact", "trec_eval"], default="exact", action=_Given,
                   help="real-valued grades in the --qrels: kept exactly (default; a note says so when some are "
                        "not integers) or truncated to integers as trec_eval does (trec_eval, for its numbers)")
    g.add_argument("--duplicates", choices=["error", "first"], default="error", action=_Given,
                   help="a docno listed twice for one topic of a run is an error naming every such file "
                        "(default) or only its first line is kept (first), with a note on stderr")
    g.add_argument("--missing", choices=["zero", "exclude"], default="zero", action=_Given,
                   help="a topic a run does not return scores 0 (default, like trec_eval -c) or is excluded (no "
                        "score; every subcommand but evaluate then drops the topic, with a note)")


class _Given(argparse.Action):
    """``store``, also recording that the user gave the option (``args._given_<dest>``), so that an option
    with a default can be refused where it does not apply instead of being silently ignored."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        setattr(namespace, self.dest, values)
        setattr(namespace, f"_given_{self.dest}", True)


def positive_int(option: str) -> Any:
    """An argparse ``type`` for a positive integer; the error names the option and the value."""
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a positive integer; got {text!r}") from None
        if v < 1:
            raise argparse.ArgumentTypeError(f"must be a positive integer; got {v}")
        return v

    parse.__name__ = option  # argparse names the type in some messages
    return parse


def load_judged(args: argparse.Namespace) -> metrics.JudgedRuns:
    """The judged runs of the data options: --runs/--qrels, --judged, or the embedded TREC-9 data.

    --depth applies to --runs only (a saved or embedded tensor cannot be re-read at another depth): with the
    others it is refused unless it equals the tensor's depth. --missing applies to all three.
    """
    if args.judged or (args.runs is None and args.qrels is None):
        if args.judged:
            if args.runs or args.qrels:
                raise UsageError("give either --judged or --runs/--qrels, not both")
            what = f"the --judged tensor {args.judged}"
            judged = metrics.JudgedRuns.load(args.judged)
        else:
            what = "the embedded TREC-9 data"
            judged = metrics.load_trec9()
        if getattr(args, "_given_duplicates", False):
            raise UsageError(f"--duplicates applies to run files read with --runs, not to {what}.")
        if getattr(args, "_given_depth", False) and args.depth != judged.depth:
            raise UsageError(f"--depth {args.depth}: {what} is judged to depth {judged.depth} and cannot be cut "
                             "here; --depth applies to --runs (evaluate fewer ranks with nDCG@k, P@k, ...).")
        if judged.missing != args.missing:
            from dataclasses import replace

            judged = replace(judged, missing=args.missing)  # the policy is applied when measures are computed
        levels = np.asarray(judged.levels)
        if getattr(args, "grades", "exact") == "trec_eval" and np.any(levels != np.trunc(levels)):
            raise UsageError(f"--grades trec_eval: {what} holds non-integer grades; judge the runs again from "
                             "--runs/--qrels with --grades trec_eval.")
        return judged
    if not args.runs or not args.qrels:
        raise UsageError("--runs and --qrels go together (or give neither to use the embedded TREC-9 data)")
    runs: Any = args.runs[0] if len(args.runs) == 1 and Path(args.runs[0]).is_dir() else args.runs
    for r in args.runs:
        if not Path(r).exists():
            raise UsageError(f"no such run file or directory: {r}")
    command = getattr(args, "command", None) or "gtheory"
    quiet = bool(getattr(args, "quiet", False))
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", metrics.LowCoverageWarning)
            warnings.simplefilter("always", metrics.FractionalGradeWarning)
            judged = metrics.judge(runs, args.qrels, depth=args.depth, missing=args.missing,
                                   grades=getattr(args, "grades", "exact"), duplicates=args.duplicates,
                                   progress=not quiet)
    except ValueError as exc:  # also metrics.TrecFormatError: "<file>, line <n>: <problem>"
        raise in_option_names(exc, {"depth": "--depth", "missing": "--missing", "duplicates": "--duplicates"},
                              _READ_ADVICE) from None
    for w in caught:  # the library's advice in the CLI's terms (--grades trec_eval, ...)
        msg = str(w.message).replace("pass grades='trec_eval' (CLI: --grades trec_eval)", "use --grades trec_eval")
        msg = msg.replace(" (grades='exact')", "").replace(
            " (judged_only=True)", " (--judged-only)" if hasattr(args, "judged_only") else "")
        print(f"gtheory {command}: warning: {msg}", file=sys.stderr)
    dropped = judged.report.get("duplicates_dropped") or {}
    if dropped and not quiet:
        total = sum(dropped.values())
        print(f"gtheory {command}: note: --duplicates first: dropped {total} repeated line{'s' * (total != 1)} in "
              f"{_listed([f'{k} ({v})' for k, v in dropped.items()], 'run')}.", file=sys.stderr)
    if not quiet:  # one line: what the qrels judge of what the runs retrieved
        print(f"gtheory {command}: {judged.coverage.one_line()}", file=sys.stderr)
    return judged


#: the reader's advice on run files, in terms of what a CLI user can do
_READ_ADVICE = {
    "pass duplicates='first' to keep only the first occurrence":
        "pass --duplicates first to keep only the first occurrence (or remove the repeated lines)",
    "read them with read_runs(names=...)":
        "a system's name is its run file's name (without .gz, .txt, ...): rename the files so that each is distinct",
}


#: advice of the Python API that every subcommand rewrites (:func:`in_option_names`): what the CLI user can do
CLI_ADVICE = {
    "`judged` uses missing='exclude'": "the data is read with --missing exclude",
    "judge with missing='zero' or subset the topics": "use --missing zero",
    "(a JudgedRuns with missing='exclude'?)": "(--missing exclude?)",
}


def in_option_names(exc: Exception | str, options: dict[str, str],
                    advice: dict[str, str] | None = None) -> UsageError:
    """``exc`` (or a message) from the Python API as a one-line CLI error in the terms of the options the user typed.

    Each `parameter` the message names in backticks becomes its option (``options`` maps the parameter, or a
    backticked phrase such as ``tune=True``, to the option: ``{"top_k": "--top-k"}``); a backticked name not in
    ``options`` is kept. ``advice`` maps phrases of the message that only a Python caller could follow
    (``"pass a mapping {grade: gain}"``) to what the CLI user can do instead; they are replaced verbatim, before
    the parameter names, as are the phrases of :data:`CLI_ADVICE`, which hold for every subcommand.
    """
    msg = str(exc)
    for phrase, instead in {**(advice or {}), **CLI_ADVICE}.items():
        msg = msg.replace(phrase, instead)
    msg = re.sub(r"`([^`\n]+)`", lambda m: options.get(m.group(1), m.group(0)), msg)
    return UsageError(" ".join(msg.split()))


def drop_missed_topics(judged: metrics.JudgedRuns, command: str, *, quiet: bool = False) -> metrics.JudgedRuns:
    """With ``--missing exclude``: ``judged`` without the topics some run does not return.

    Their scores are NaN (excluded), and a G-study, a tuning or a ranking comparison needs a complete systems x
    topics matrix, so the study uses the topics every run returns; a note on stderr names the dropped topics
    (unless ``quiet``). Fewer than 2 topics left is refused. Under ``--missing zero`` nothing changes.
    """
    if judged.missing != "exclude":
        return judged
    returned = np.asarray(judged.retrieved)
    complete = returned.all(axis=0)
    if complete.all():
        return judged
    topics = list(judged.topics)
    missed = [t for t, ok in zip(topics, complete) if not ok]
    kept = [t for t, ok in zip(topics, complete) if ok]
    if len(kept) < 2:
        raise UsageError(f"--missing exclude: only {len(kept)} of the {len(topics)} topics are returned by every "
                         "run; at least 2 are needed (--missing zero scores a topic a run does not return 0).")
    if not quiet:
        runs = [s for s, row in zip(judged.systems, returned) if not row.all()]
        print(f"gtheory {command}: note: --missing exclude: dropped {len(missed)} of {len(topics)} topics that "
              f"{_listed(runs, 'run')} {'does' if len(runs) == 1 else 'do'} not return (topic"
              f"{'s' * (len(missed) != 1)} {_listed(missed)}); the study uses the other {len(kept)}.",
              file=sys.stderr)
    return judged.subset(topics=kept)


def _listed(items: list, what: str = "", show: int = 10) -> str:
    """``a, b, c`` or ``a, ..., j and 7 more``; with ``what``: ``run a`` / ``3 runs (a, b, c)``."""
    text = ", ".join(map(str, items[:show])) + (f" and {len(items) - show} more" if len(items) > show else "")
    if not what:
        return text
    return f"{what} {text}" if len(items) == 1 else f"{len(items)} {what}s ({text})"


# ------------------------------------------------------------------------------------------- outputs
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


def check_shape(data: Any, *, min_systems: int = 2, min_topics: int = 2) -> None:
    """Refuse data too small for a study, in the user's terms (not a library's parameter names).

    ``data`` is a :class:`metrics.JudgedRuns` or a systems x topics matrix (DataFrame / array).
    """
    if hasattr(data, "n_systems"):
        n_s, n_t = int(data.n_systems), int(data.n_topics)
    else:
        n_s, n_t = (int(x) for x in data.shape)
    for n, least, what in ((n_s, min_systems, "system"), (n_t, min_topics, "topic")):
        if n < least:
            raise UsageError(f"the data has only {n} {what}{'s' * (n != 1)}; at least {least} are needed.")


def emit_json(obj: Any, path: str | Path | None = None) -> None:
    """Print ``obj`` as JSON (indent 2, one trailing newline): the ``--json`` output of every subcommand.

    The output is valid JSON (RFC 8259), readable by jq, JavaScript's ``JSON.parse`` and any strict parser:
    a number that is not finite — NaN, ``inf`` or ``-inf``, as a Python float, a NumPy scalar or an element of
    a NumPy array, at any depth of nested dicts, lists and tuples — is written as ``null``, never as the
    ``NaN`` / ``Infinity`` that :func:`json.dumps` writes by default.

    Non-ASCII text (Φ, Eρ², σ², ≤, labels and file names) is written as is, readable, unless standard
    output cannot encode it (e.g. a cp1252 pipe); then it is written as ``\\uXXXX`` escapes, the same
    JSON value. NumPy scalars and arrays become numbers and lists; any other object its ``str``.
    With ``path``, the same text is written to that file (UTF-8, non-ASCII as is) instead of standard output.
    """
    obj = _finite(obj)
    text = json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False, default=_default)
    if path is not None:
        from metrics._atomic import atomic_write_text

        atomic_write_text(path, text + "\n", on_commit=mark_written)
        return
    try:
        text.encode(getattr(sys.stdout, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        text = json.dumps(obj, indent=2, ensure_ascii=True, allow_nan=False, default=_default)
    sys.stdout.write(text + "\n")


def _finite(o: Any) -> Any:
    """``o`` with every non-finite float (also in NumPy scalars and arrays, at any depth) replaced by None."""
    if isinstance(o, float):  # also np.float64
        return o if math.isfinite(o) else None
    if isinstance(o, dict):
        return {k: _finite(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_finite(v) for v in o]
    if isinstance(o, np.ndarray):
        return _finite(o.tolist())
    if isinstance(o, np.floating):  # float32, longdouble (whose .item() stays a NumPy scalar)
        return float(o) if np.isfinite(o) else None
    if isinstance(o, np.generic):
        return o.item()
    return o


def _default(o: Any) -> Any:
    return str(o)
