"""``gtheory budget``: how many topics at which pool depth, and what do their judgments cost?

Examples::

    gtheory budget --measure nDCG@10 --depths 10 20 50 100 --target 0.8          # the embedded TREC-9 runs
    gtheory budget --runs runs/ --qrels qrels.txt --measure AP --depths 10 50 100 --out budget.csv
    gtheory budget --measure nDCG@10 --bootstrap 1000 --seed 1 --workers 2 --out budget.json --plot budget.png
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ._data import ALPHA_HELP, LEVEL_HELP, POWER_HELP, SEED_HELP, TARGET_HELP
from . import UsageError
from ._measures import OneMeasure, add_relevance_level_arg
from ._data import add_data_args, add_quiet_arg, check_shape, drop_missed_topics, load_judged, positive_int
from ._outputs import add_raw_csv_arg, check_output_path, save_figure, write_csv_output
from ._common import check_least, check_option, emit_json, seed_rule
from ._errors import in_option_names

__all__ = ["register", "run"]

_EPILOG = """\
For each pool depth d the pilot is re-evaluated under the depth-d pool: the judgments of the documents
some run retrieved at rank <= d are kept, every other judgment is forgotten (an unjudged document counts
as non-relevant, as in the original evaluation). Each row then reports

  judged/topic   judged documents per topic in the depth-d pool (the judging cost of one topic)
  coverage       share of the retrieved documents at ranks <= d that the original qrels judged; below 1 the
                 cost is a lower bound (a deeper pool than the original one cannot be priced)
  var_*          the G-study's variance components: system, topic, and residual = V_E
  *_topics       topics needed for Phi >= --target, Erho2 >= --target, and for a paired t-test to detect
                 --min-diff with --power at --alpha (Sakai's topic set size design, sigma^2 = V_E)
  *_cost         topics x judged documents per topic

and the cheapest (topics, depth) for each requirement: the depth of least cost (Sakai, Information
Retrieval Journal 2016, section 6). With --bootstrap B, systems and topics are resampled B times (the
same resamples at every depth) for the interval of the topics needed for Phi and the share of resamples
in which each depth is the cheapest. The docs page "How many topics?" (docs/topics.md) explains the rows.
"""

#: the Python API's parameter names in messages → the options of this command
_OPTIONS = {"measure": "--measure", "depths": "--depths", "min_diff": "--min-diff", "target": "--target",
            "power": "--power", "alpha": "--alpha", "bootstrap": "--bootstrap", "seed": "--seed", "level": "--level"}


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "budget",
        help="topics x pool depth: topics needed and judging cost at each depth, the cheapest per requirement",
        description=("How many topics at which pool depth? Re-evaluate the pilot under shallower pools and report, "
                     "per depth, the variance components, the topics needed for Phi, Erho2 and a paired t-test, "
                     "the judging cost, and the cheapest (topics, depth) for each requirement."),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_data_args(p)
    add_quiet_arg(p)
    add_relevance_level_arg(p)
    p.add_argument("--measure", action=OneMeasure, default="nDCG@10", metavar="NAME",
                   help='the measure (ir_measures syntax: "nDCG@10", AP, P@10, ...; default nDCG@10)')
    p.add_argument("--depths", nargs="+", type=int, default=[5, 10, 20, 30, 50, 100],
                   metavar="D", help="pool depths, each at most the runs' depth (default 5 10 20 30 50 100)")
    p.add_argument("--target", type=float, default=0.95, help=TARGET_HELP)
    p.add_argument("--min-diff", type=float, default=0.05, metavar="D",
                   help="the difference the paired t-test must detect (default 0.05)")
    p.add_argument("--power", type=float, default=0.8, help=POWER_HELP)
    p.add_argument("--alpha", type=float, default=0.05, help=ALPHA_HELP)
    p.add_argument("--bootstrap", type=int, default=0, metavar="N",
                   help="resamples of systems and topics for the interval of the topics for Phi and the share of "
                        "resamples in which each depth is the cheapest (default 0: none; 1000 is usual; at least 10)")
    p.add_argument("--seed", type=int, default=None, help=SEED_HELP)
    p.add_argument("--level", type=float, default=0.95, help=LEVEL_HELP)
    p.add_argument("--workers", type=positive_int("--workers"), default=1, metavar="N",
                   help="evaluate the depths in N processes (default 1: in this process); the numbers do not "
                        "depend on it. Each process receives the judged runs, so it pays off only with idle cores")
    p.add_argument("--out", metavar="FILE", default=None,
                   help="also write the result: FILE.json (the whole result, readable by "
                        "experiments.TopicBudget.from_json) or FILE.csv (the table); '-' is standard output, "
                        "with --out-format")
    p.add_argument("--out-format", choices=["json", "csv"], default=None,
                   help="the format of --out when its name does not end in .json or .csv (e.g. '-', /dev/stdout)")
    add_raw_csv_arg(p)
    p.add_argument("--json", action="store_true",
                   help="print the result as JSON (the document of --out FILE.json) instead of a table")
    p.add_argument("--plot", metavar="OUT.png", default=None, help="also save a chart of the cost against the depth")
    return p


def _out_format(args: argparse.Namespace) -> str | None:
    if args.out is None:
        if args.out_format is not None:
            raise UsageError("--out-format applies to --out; give --out FILE.")
        return None
    suffix = Path(args.out).suffix.lower()
    by_name = {".json": "json", ".csv": "csv"}.get(suffix)
    if args.out_format is not None:
        if by_name is not None and by_name != args.out_format:
            raise UsageError(f"--out {args.out} ends in {suffix} but --out-format is {args.out_format}; "
                             "give one format.")
        return args.out_format
    if by_name is None:
        raise UsageError(f"--out {args.out}: the name must end in .json (the whole result) or .csv (the table), "
                         "or give --out-format json|csv.")
    return by_name


def _validate(args: argparse.Namespace) -> str | None:
    for option, param in (("--target", "target"), ("--power", "power"), ("--alpha", "alpha"), ("--level", "level"),
                          ("--min-diff", "min_diff"), ("--depths", "depths")):
        check_option(option, param, getattr(args, param))  # the API's rules (gtheory.kit.params)
    from experiments.budget import check_requirement

    try:
        check_requirement(power=args.power, alpha=args.alpha)  # the API's rule between the two
    except ValueError as exc:
        raise in_option_names(exc, _OPTIONS) from None
    if args.bootstrap != 0:
        check_least("--bootstrap", args.bootstrap, 10, " (0 for none)")
    elif args.seed is not None:
        raise UsageError("--seed is the seed of the --bootstrap resamples; without --bootstrap B nothing is random. "
                         "Give --bootstrap 1000 (or drop --seed).")
    check_option("--seed", "seed", args.seed, seed_rule())
    if args.json and args.out == "-":
        raise UsageError("--json and --out - both write standard output; give --out a file name.")
    from ._measures import check_measure_names

    check_measure_names([args.measure])  # before any run is read
    fmt = _out_format(args)
    for option, path in (("--out", args.out), ("--plot", args.plot)):
        if path:
            check_output_path(path, option, args=args, quiet=args.quiet, binary=option == "--plot")
    return fmt


def run(args: argparse.Namespace) -> int:
    fmt = _validate(args)
    from experiments.budget import topic_depth_budget

    judged = drop_missed_topics(load_judged(args), "budget")
    check_shape(judged)
    from ._measures import check_measure_names

    check_measure_names([args.measure], judged.subset(systems=[0]))  # a parameter the data refuse: ERR(max_grade=1)
    if max(args.depths) > judged.depth:
        raise UsageError(f"--depths must be at most the runs' depth ({judged.depth}); got {max(args.depths)}. "
                         f"Read deeper runs with --depth, or drop the deeper pool depths.")
    where = (f"runs in {' '.join(args.runs)} (qrels {args.qrels})" if args.runs
             else f"judgments {args.judged}" if args.judged else "the embedded TREC-9 Web runs")
    from gtheory.kit.checks import stderr_is_terminal

    progress = bool(args.progress) or stderr_is_terminal()  # a line per depth; into pipes and logs only if asked
    pool = None
    if args.workers > 1:
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(max_workers=min(args.workers, len(set(args.depths))))
    try:
        result = topic_depth_budget(judged, args.measure, depths=args.depths, min_diff=args.min_diff,
                                    target=args.target, power=args.power, alpha=args.alpha,
                                    bootstrap=args.bootstrap, seed=0 if args.seed is None else args.seed,
                                    level=args.level, progress=progress, executor=pool)
    except (ValueError, TypeError) as exc:
        raise in_option_names(exc, _OPTIONS) from None
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    source = f"{args.measure} over {where}"
    if fmt == "json":
        emit_json(result.to_dict(), args.out)
    elif fmt == "csv":
        write_csv_output(result.table, args.out, args, index=False)
    if args.out and args.out != "-" and not args.quiet:  # a note: the file is the result
        print(f"budget written to {args.out}", file=sys.stderr)
    if args.json:
        emit_json(result.to_dict())
    elif args.out != "-":
        print(f"{source}\n")
        print(result.summary())
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        ax = result.plot()
        ax.figure.tight_layout()
        save_figure(ax.figure, args.plot)
        plt.close(ax.figure)
        if not args.quiet:
            print(f"plot written to {args.plot}", file=sys.stderr)
    return 0
