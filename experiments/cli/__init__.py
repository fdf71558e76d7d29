"""The ``gtheory`` command line.

Each subcommand lives in its own module in this package and exposes

* ``register(subparsers) -> argparse.ArgumentParser`` — add the subparser (with a ``--help`` that teaches), and
* ``run(args) -> int`` — do the work and return the exit code.

Errors that are the user's (bad file, bad option) are raised as :class:`UsageError`, or by the library as
``ValueError`` / ``OSError`` (a :class:`gtheory.ParameterError` names its parameter, shown as the option of the
subcommand's ``_OPTIONS`` table; a fix carried as data, :mod:`gtheory.kit.errors`, is worded with the options), and printed as one line on stderr without a traceback; exit code 2. Any other
exception is a bug, not a usage error: one line with a hint to rerun with ``--traceback``; exit code 1.
``--traceback`` (or ``GTHEORY_DEBUG=1``) shows the traceback. Every output goes through the package's one writer
(:mod:`gtheory.kit.output`): a regular file (or a new path) is written atomically (a temporary file beside it,
renamed at the end); an existing device, named pipe or ``/dev/stdout`` is written through and never replaced;
``-`` is standard output for text outputs (the command's own messages then go to stderr). Ctrl-C prints
"interrupted; nothing written to ..." (or the outputs that were completed, and those written through that may
hold part of their output) and exits with 130.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings
from typing import Sequence

__all__ = ["main", "build_parser", "UsageError", "SUBCOMMANDS"]

#: subcommand modules, in the order ``--help`` lists them
SUBCOMMANDS: tuple[str, ...] = ("demo", "judge", "evaluate", "gstudy", "plan", "budget", "tune", "recommend", "check", "robustness", "report", "sweep", "compare")

EXIT_OK = 0
EXIT_FAILURE = 1  # the work ran but did not succeed (e.g. an optimiser that did not converge under --strict)
EXIT_USAGE = 2  # bad input or options
EXIT_INTERRUPTED = 130  # Ctrl-C (SIGINT), as shells report 128 + 2


class UsageError(Exception):
    """An error caused by the user's input; printed without a traceback."""


def _version() -> str:
    """The installed distribution's version (importlib.metadata); "unknown" when run from an uninstalled tree."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gtheory")
    except PackageNotFoundError:
        return "unknown"


class _Version(argparse.Action):
    """``--version``: the installed version, looked up only when asked (importlib.metadata costs ~40 ms of every
    command's start-up otherwise)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: object, values: object,
                 option_string: str | None = None) -> None:
        print(f"gtheory {_version()}")
        parser.exit()


class _Parser(argparse.ArgumentParser):
    """The parser of ``gtheory`` and of each subcommand: an option is taken only as spelled in full (no
    abbreviations: ``--run`` is not ``--runs``, an abbreviation that would change meaning as options are added)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]


def _unknown_options(parser: argparse.ArgumentParser, extra: list[str], command: str) -> str:
    """What argparse's "unrecognized arguments" leaves out: which of ``extra`` are not options of ``command``,
    with the options of the same start (``--run``: ``--runs``) when there are some."""
    import difflib

    known = [o for a in parser._actions for o in a.option_strings if o.startswith("--")]
    said = []
    for token in extra:
        if not token.startswith("--") or token == "--":
            continue
        name = token.split("=", 1)[0]
        near = [o for o in known if o.startswith(name)] or difflib.get_close_matches(name, known, n=3, cutoff=0.75)
        said.append(f"{name} is not an option of {command}" + (f" (did you mean {' or '.join(near)}?)" if near else ""))
    return "".join(f"; {x}" for x in said)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="gtheory",
        description=(
            "How stable is an IR evaluation metric, and which nDCG gain/discount makes it as stable as the "
            "data allow (generalizability theory; Kanoulas & Aslam, CIKM 2009)."
        ),
        epilog="Run 'gtheory demo' for an end-to-end study on the embedded TREC-9 Web data.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    parser.add_argument("--traceback", action="store_true",
                        help="show the Python traceback of an error (also after the subcommand's options)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:  # a subcommand not written yet
            if exc.name == f"{__name__}.{name}":
                continue
            raise
        p = module.register(sub)
        p.set_defaults(_run=module.run, _parser=p, _options=getattr(module, "_OPTIONS", {}))
    return parser


def _cli_warning(args: argparse.Namespace):
    """``warnings.showwarning`` for a subcommand: ``gtheory <command>: warning: <message>``, with the library's
    parameter names and fixes in the command's options (as errors), instead of Python's file:line format. Each
    line is printed once: the same warning raised again (for each --measure) says nothing new, and whether Python's
    own once-per-place rule repeats it depends on whether other code changed the warning filters in between."""
    printed: set[str] = set()

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        from ._errors import in_option_names

        text = in_option_names(message, getattr(args, "_options", {}) or {}) if isinstance(message, Warning) else message
        out = f"gtheory {args.command}: warning: {text}"
        if out not in printed:
            printed.add(out)
            print(out, file=sys.stderr)
    return show


#: the attributes of the parsed arguments that are one file or directory path, with their options
_PATH_OPTIONS = (("out", "--out"), ("plot", "--plot"), ("qrels", "--qrels"), ("judged", "--judged"),
                 ("tuning", "--tuning"), ("discount", "--discount"), ("scores", "SCORES.csv"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    traceback = "--traceback" in argv[:argv.index("--")] if "--" in argv else "--traceback" in argv
    if traceback:
        argv.remove("--traceback")
    args, extra = parser.parse_known_args(argv)
    if extra:
        # argparse would report these with the top-level usage; the subcommand's is the useful one
        owner = getattr(args, "_parser", None) or parser
        where = args.command if getattr(args, "_parser", None) else "gtheory"
        owner.error(f"unrecognized arguments: {' '.join(extra)}{_unknown_options(owner, extra, where)}")
    if not getattr(args, "_run", None):
        parser.print_help()
        return EXIT_USAGE
    for attr, option in _PATH_OPTIONS:  # `--out ""` was taken as no --out: the output went elsewhere, silently
        value = getattr(args, attr, None)
        if isinstance(value, str) and not value.strip():  # one error line and exit 2, as every input error
            fix = ("give a discount name (log2, zipf, ...) or a file of weights" if attr == "discount"
                   else "give a path ('-' is standard output where the option takes it)")
            print(f"gtheory {args.command}: error: {option} {value!r}: an empty file name; {fix}.", file=sys.stderr)
            return EXIT_USAGE
    from ._outputs import COMMAND, OUTPUTS
    from ._outputs import STDOUT

    OUTPUTS.clear()
    COMMAND[0] = f"gtheory {args.command}"
    try:
        if getattr(args, "relevance_level", None) is not None:  # -l: rel=L on the binary --measure names
            from ._measures import apply_relevance_level

            args._run = _with(apply_relevance_level, args._run)
        if getattr(args, "_given_measure", None):  # a second --measure of gstudy, plan or budget: refused first
            from ._measures import check_one_measure

            args._run = _with(check_one_measure, args._run)
        return _run(args, traceback)
    finally:
        if STDOUT[0] is not None:  # an output was `-`: give standard output back
            sys.stdout, STDOUT[0] = STDOUT[0], None


def _with(first, run):
    """``run`` preceded by ``first(args)`` (so that its errors are reported as the subcommand's)."""
    def both(args: argparse.Namespace) -> int:
        first(args)
        return run(args)
    return both


def _run(args: argparse.Namespace, traceback: bool) -> int:
    """Run the subcommand of the parsed ``args``; errors to one line on stderr and an exit code."""
    from ._outputs import interrupted_message
    from ._outputs import STDOUT

    try:
        with warnings.catch_warnings():  # a library warning the subcommand does not print itself: one CLI line
            warnings.showwarning = _cli_warning(args)
            return int(args._run(args) or 0)
    except BrokenPipeError:  # e.g. piped into `head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, (STDOUT[0] if STDOUT[0] is not None else sys.stdout).fileno())
        return EXIT_OK
    except KeyboardInterrupt:  # Ctrl-C: a file output is atomic, so each one is complete or untouched
        print(interrupted_message(args.command), file=sys.stderr)
        return EXIT_INTERRUPTED
    except (UsageError, ValueError, OSError) as exc:  # the user's input; ParameterError is a ValueError
        if traceback or os.environ.get("GTHEORY_DEBUG"):
            raise
        from ._errors import in_option_names

        msg = exc if isinstance(exc, UsageError) else in_option_names(exc, args._options)
        print(f"gtheory {args.command}: error: {msg}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # a bug: say so in one line, exit 1 (not 2: the input was not at fault)
        if traceback or os.environ.get("GTHEORY_DEBUG"):
            raise
        text = " ".join(str(exc).split()) or "(no message)"
        print(f"gtheory {args.command}: internal error: {type(exc).__name__}: {text}; rerun with --traceback "
              "to see where, and please report it.", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
