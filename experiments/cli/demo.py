"""``gtheory demo``: the tuning study of Kanoulas & Aslam (CIKM 2009) on the embedded TREC-9 Web data, end to end.

Steps: load the embedded judged-grade tensor; G-study of nDCG@100 (gains 0/1/2) with the Zipf, linear and log
discounts; tune the discount for stability (Φ); tune the gain ratio; compare system rankings (Kendall τ) and report
how many topics each configuration needs. ``gtheory report`` writes the full study with figures.
"""
from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any

from ._data import CUTOFF_HELP, TARGET_HELP
from ._data import add_data_args, add_quiet_arg, check_shape, drop_missed_topics, load_judged
from ._common import emit_json


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "demo",
        help="end-to-end tuning study on the embedded TREC-9 Web data (a few seconds)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_data_args(p)
    p.add_argument("--cutoff", type=int, default=100, help=CUTOFF_HELP)
    p.add_argument("--target", type=float, default=0.95, help=TARGET_HELP)
    p.add_argument("--splits", type=int, default=10, help="topic splits of the out-of-sample check (default 10)")
    add_quiet_arg(p)
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    return p


def _say(args: argparse.Namespace, msg: str) -> None:
    if not args.quiet and not args.json:
        print(msg, flush=True)


#: the parameters of :func:`experiments.demo_study` → the options of this command (a ParameterError names one)
_OPTIONS = {"cutoff": "--cutoff", "target": "--target", "n_splits": "--splits"}


def run(args: argparse.Namespace) -> int:
    from experiments.study import check_demo_parameters, demo_study

    check_demo_parameters(args.cutoff, args.target, args.splits)  # before loading: a typo fails at once
    judged = drop_missed_topics(load_judged(args), "demo")
    check_shape(judged)
    # warnings of the library (negative variance estimates, optimisers that did not converge) go to stderr in
    # the CLI's format, once per message, after the work -- not as Python warnings with a source line
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        study = demo_study(judged, cutoff=args.cutoff, target=args.target, n_splits=args.splits, progress=lambda m: _say(args, m))
    _warn(caught)
    if args.json:
        emit_json(study.to_dict())
        return 0
    print(study.summary() if study.verdict else "\n" + study.summary())  # the verdict opens the output
    _say(args, "\nThe first table is in-sample (tuned and measured on the same topics); the out-of-sample lines are "
         "the honest gain. `gtheory report` writes the whole study with figures.")
    _say(args, f"done in {study.seconds:.1f} s")
    return 0


#: at most this many warnings of one kind are printed; the rest are counted
_MAX_WARNINGS = 3


def _warn(caught: list) -> None:
    by_kind: dict[str, list[str]] = {}
    for w in caught:
        msgs = by_kind.setdefault(w.category.__name__, [])
        if str(w.message) not in msgs:
            msgs.append(str(w.message))
    for msgs in by_kind.values():
        for m in msgs[:_MAX_WARNINGS]:
            print(f"gtheory demo: warning: {m}", file=sys.stderr)
        if len(msgs) > _MAX_WARNINGS:
            print(f"gtheory demo: warning: ... and {len(msgs) - _MAX_WARNINGS} more like these", file=sys.stderr)
