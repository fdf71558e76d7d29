"""Shared pieces of the CLI subcommands: the data options and loading them."""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
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
        return judged
    if not args.runs or not args.qrels:
        raise UsageError("--runs and --qrels go together (or give neither to use the embedded TREC-9 data)")
    runs: Any = args.runs[0] if len(args.runs) == 1 and Path(args.runs[0]).is_dir() else args.runs
    for r in args.runs:
        if not Path(r).exists():
            raise UsageError(f"no such run file or directory: {r}")
    quiet = bool(getattr(args, "quiet", False))
    try:
        judged = metrics.judge(runs, args.qrels, depth=args.depth, missing=args.missing,
                               duplicates=args.duplicates, progress=not quiet)
    except ValueError as exc:  # also metrics.TrecFormatError: "<file>, line <n>: <problem>"
        raise in_option_names(exc, {"depth": "--depth", "missing": "--missing", "duplicates": "--duplicates"},
                              _READ_ADVICE) from None
    dropped = judged.report.get("duplicates_dropped") or {}
    if dropped and not quiet:
        total = sum(dropped.values())
        print(f"gtheory: note: --duplicates first: dropped {total} repeated line{'s' * (total != 1)} in "
              f"{_listed([f'{k} ({v})' for k, v in dropped.items()], 'run')}.", file=sys.stderr)
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


def check_output_path(path: str | Path, option: str, *, directory: bool = False) -> Path:
    """Refuse, before any computation, an output path that cannot be written; return it as a :class:`Path`.

    ``option`` is the CLI option that gave ``path`` (``"--out"``, ``"--plot"``); every message is one line
    naming it and the path, e.g. ``--out nodir/x.csv: directory 'nodir' does not exist``. Nothing is created.

    For a file (the default): ``path`` must not be a directory, an existing file must be writable, and
    otherwise its parent directory must exist and be writable. With ``directory=True`` (an output directory
    the subcommand creates, as ``report --out``): ``path`` must not be an existing file, and its nearest
    existing ancestor must be a writable directory (the missing levels are created later).

    Raises
    ------
    UsageError
        When the path cannot be written.
    """
    p = Path(path)
    where = f"{option} {path}"
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
        return p
    if p.is_dir():
        raise UsageError(f"{where}: is a directory; give a file name in it.")
    if p.exists():
        if not os.access(p, os.W_OK):
            raise UsageError(f"{where}: the file is not writable.")
        return p
    parent = p.parent  # Path("x.csv").parent is Path(".")
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
        Path(path).write_text(text + "\n", encoding="utf-8")
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
