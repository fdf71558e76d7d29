"""``gtheory judge``: read the runs and the qrels once and save the judged-grade tensor for the other subcommands.

Examples::

    gtheory judge --runs runs/ --qrels qrels.txt --out judged.npz
    gtheory evaluate --judged judged.npz --measure nDCG@10 --measure AP
    gtheory compare --judged judged.npz --baseline bm25 --correction holm
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

from . import UsageError
from ._data import add_data_args, add_quiet_arg, load_judged
from ._outputs import check_output_path

__all__ = ["register", "run"]

_EPILOG = """\
Reading the runs is the slow part of a session (seconds per command on a TREC collection); every subcommand
that reads runs takes --judged FILE instead of --runs/--qrels and gives the same numbers. The file is a
compressed NumPy archive (.npz; .npz.xz for LZMA, about 30 % smaller; no pickles) holding the grade of every
retrieved document and the qrels' grades, and a record of what it was judged from: every run file and the
qrels file (absolute path, size, SHA-256) and the options (--depth, --grades, --duplicates, --missing). A
subcommand given --judged warns once when one of those files is gone or changed since. --missing is kept with
the tensor: a subcommand given --judged uses it unless given --missing itself. The file is written atomically.
"""


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "judge",
        help="read runs and qrels once; save the judged tensor for --judged (a session reads the runs once)",
        description="Judge the runs against the qrels once and save the result for --judged.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_data_args(p, judged=False)
    p.add_argument("--out", metavar="JUDGED.npz", default=None,
                   help="(required) the file to write (.npz, or .npz.xz for LZMA); written atomically")
    add_quiet_arg(p)
    return p


def run(args: argparse.Namespace) -> int:
    from ._sources import record_sources

    if not args.runs or not args.qrels:
        raise UsageError("--runs and --qrels are needed: judge reads them once for --judged.")
    if args.out is None:
        raise UsageError("--out JUDGED.npz is needed: the file the other subcommands read with --judged.")
    if not (args.out.endswith(".npz") or args.out.endswith(".npz.xz")):
        raise UsageError(f"--out {args.out}: name the file .npz (or .npz.xz for LZMA), as --judged reads it.")
    check_output_path(args.out, "--out", args=args, quiet=args.quiet, binary=True)
    judged = load_judged(args)
    options = {"depth": args.depth, "grades": args.grades, "duplicates": args.duplicates, "missing": args.missing}
    judged.save(args.out, sources=record_sources(args.runs, args.qrels, options))
    from ._outputs import mark_written

    mark_written(args.out)
    if not args.quiet:  # a note: the file is the result
        print(f"wrote {judged.n_systems} runs x {judged.n_topics} topics (depth {judged.depth}) to {args.out}; "
              f"give --judged {args.out} to the other subcommands", file=sys.stderr)
    return 0

