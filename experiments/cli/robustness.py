"""``gtheory robustness``: how robust is a measure to incomplete judgments?

Examples::

    gtheory robustness --measure "nDCG@100" --measure AP --fractions 1 0.5 0.3 0.1 --seeds 5 --judged-only
    gtheory robustness --runs runs/ --qrels qrels.txt --measure AP --out study.csv --plot study.png
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from typing import Any

from ._data import ALPHA_HELP
from . import EXIT_FAILURE, UsageError
from ._measures import add_relevance_level_arg
from ._common import SEEDS_HELP, check_option, emit_json, seeds_option
from ._data import add_data_args, add_quiet_arg, add_resamples_arg, check_shape, drop_missed_topics, load_judged
from ._outputs import add_raw_csv_arg, check_output_path, save_figure, write_csv_output
from ._errors import in_option_names

__all__ = ["register", "run"]

_EPILOG = """\
The qrels are reduced per topic to a fraction f of the judged relevant and of the judged
non-relevant documents, keeping at least 1 relevant and 10 non-relevant (Buckley & Voorhees 2004,
as in Bompada et al. 2007 and Sakai & Kando 2008): ceil(f*R) and ceil(f*N) documents of one random
order per seed, so the reduced qrels are nested across f. Each measure is recomputed on the reduced
judgments and compared with the same measure on the full qrels:

  tau       Kendall's tau between the system rankings (Voorhees: >= 0.9 means equivalent)
  tau_AP    AP rank correlation (top-weighted), the full-qrels ranking as the truth
  drift     mean score with the reduced qrels minus the mean score with the full qrels
  power     discriminative power: share of system pairs significant at --alpha (Sakai 2006)
  accuracy  share of system pairs whose significance decision (incl. direction) is unchanged
            (Bompada et al.'s confusion matrix)

The knee is the lowest f from which the mean tau over seeds stays >= --threshold.
With --judged-only each measure is also computed on the condensed lists (unjudged documents
removed first: AP', nDCG'; Sakai 2007). Numbers are means over the seeds (± standard deviation).

When every system has the same mean score with the full qrels (e.g. identical runs), there is no
ranking to compare and tau is undefined: that is an error (exit 1, nothing printed on standard
output) when it holds for every measure, and a warning (exit 1, the table shows nan) when it holds
for some. Output files (--out, --plot) are still written.
"""


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "robustness",
        help="robustness to incomplete judgments: tau vs fraction of qrels kept, knee, drift, power",
        description=(
            "Reduce the qrels to fractions of the judgments (Buckley & Voorhees sampling) and measure how "
            "far each measure's system ranking, mean values and significance decisions move."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_data_args(p)
    p.add_argument("--measure", action="append", default=None, metavar="NAME",
                   help='measure name (ir_measures syntax: "nDCG@100", AP, P@10, Bpref, infAP, ...); '
                        "repeat for several (default nDCG@10, as every subcommand)")
    p.add_argument("--fractions", nargs="+", type=float, metavar="F",
                   default=[1.0, 0.7, 0.5, 0.3, 0.2, 0.1, 0.05],
                   help="fractions of the judgments to keep, in (0, 1] (default 1 .7 .5 .3 .2 .1 .05)")
    p.add_argument("--seeds", nargs="+", type=int, default=None, metavar="N",
                   help=f"random reductions per fraction: {SEEDS_HELP} (default 5)")
    p.add_argument("--judged-only", action="store_true",
                   help="also evaluate the condensed lists (unjudged documents removed: AP', nDCG')")
    p.add_argument("--test", choices=["bootstrap", "t", "wilcoxon", "none"], default="bootstrap",
                   help="significance test for discriminative power and accuracy (default bootstrap; "
                        "'none' skips both and is much faster)")
    add_resamples_arg(p, 1000, "bootstrap replicates (default 1000)")
    p.add_argument("--alpha", type=float, default=0.05, help=ALPHA_HELP)
    p.add_argument("--top-k", type=int, default=None, metavar="K",
                   help="test significance only among the K best systems with the full qrels")
    p.add_argument("--threshold", type=float, default=0.9, help="tau level of the knee, in [-1, 1] (default 0.9)")
    p.add_argument("--rounding", choices=["ceil", "round", "floor"], default="ceil",
                   help="how f*R and f*N become counts (default ceil, as Bompada et al.)")
    add_relevance_level_arg(p)
    p.add_argument("--out", metavar="FILE.csv", default=None, help="write the per-seed results as CSV ('-': standard output)")
    add_raw_csv_arg(p)
    p.add_argument("--plot", metavar="OUT.png", default=None,
                   help="save a figure: tau, mean score, discriminative power and accuracy vs fraction")
    p.add_argument("--json", action="store_true", help="print the summary as JSON instead of a table")
    add_quiet_arg(p)  # progress is one line per measure x fraction x seed
    return p


def _validate(args: argparse.Namespace) -> None:
    bad = [f for f in args.fractions if not (0.0 < f <= 1.0) or math.isnan(f)]
    if bad:
        raise UsageError(f"--fractions must be in (0, 1] (shares of the judgments kept); got {bad[0]:g}.")
    if len(set(args.fractions)) != len(args.fractions):
        raise UsageError(f"--fractions must be distinct; got {' '.join(f'{f:g}' for f in args.fractions)}.")
    args.seeds = seeds_option(args.seeds, 5)
    for option, param, value in (("--n-resamples", "n_resamples", args.n_resamples), ("--alpha", "alpha", args.alpha),
                                 ("--top-k", "top_k", args.top_k)):
        check_option(option, param, value)  # the API's rules (gtheory.kit.params)
    if not -1.0 <= args.threshold <= 1.0:  # also NaN
        raise UsageError(f"--threshold is a level of Kendall's tau, in [-1, 1]; got {args.threshold:g}.")
    from ._measures import check_measure_names

    check_measure_names(args.measure or [])  # before any run is read
    for option, path in (("--out", args.out), ("--plot", args.plot)):
        if path:
            check_output_path(path, option, args=args, quiet=args.quiet)  # before loading and computing


def run(args: argparse.Namespace) -> int:
    _validate(args)
    from experiments.incomplete import robustness_study

    judged = drop_missed_topics(load_judged(args), "robustness")
    check_shape(judged)
    from ._measures import DEFAULT_MEASURE

    measures = args.measure or [DEFAULT_MEASURE]
    from ._measures import check_measure_names

    check_measure_names(measures, judged.subset(systems=[0]))  # a parameter the data refuse: ERR(max_grade=1)
    t0 = time.perf_counter()

    def say(msg: str) -> None:  # one line per measure x fraction x seed, on stderr
        print(f"[{time.perf_counter() - t0:6.1f} s] robustness {msg}", file=sys.stderr, flush=True)

    test = None if args.test == "none" else args.test
    try:
        study = robustness_study(judged, measures, fractions=args.fractions, seeds=args.seeds,
                                 judged_only=args.judged_only, test=test, alpha=args.alpha, n_resamples=args.n_resamples, top_k=args.top_k,
                                 relevance_level=1.0 if args.relevance_level is None else args.relevance_level, rounding=args.rounding,
                                 threshold=args.threshold, progress=False if args.quiet else say)
    except (ValueError, TypeError) as exc:
        raise in_option_names(exc, _OPTIONS) from None
    df = study.results
    undefined = study.undefined_curves()

    if args.out:
        write_csv_output(df, args.out, args, index=False)
        if not args.quiet:
            print(f"per-seed results written to {args.out}", file=sys.stderr)
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig = study.plot()
        save_figure(fig, args.plot)
        plt.close(fig)
        if not args.quiet:
            print(f"plot written to {args.plot}", file=sys.stderr)

    n_curves = df.groupby(["measure", "judged_only"], sort=False).ngroups
    if len(undefined) == n_curves:  # nothing but τ = nan: an error, not a table
        print(f"gtheory robustness: error: {_undefined_message(undefined)}; nothing to report.", file=sys.stderr)
        return EXIT_FAILURE
    for name in undefined:
        print(f"gtheory robustness: warning: {_undefined_message([name])}; its τ and τ_AP are shown as nan.",
              file=sys.stderr)
    if args.json:
        emit_json(study.to_dict())
    else:
        print(study.summary())
    return EXIT_FAILURE if undefined else 0


def _undefined_message(names: list[str]) -> str:
    return (f"Kendall's τ is undefined for {', '.join(names)}: every system has the same mean score with the full "
            "qrels (identical runs, as far as the judgments see), so there is no system ranking to compare")


#: the Python API's parameter names in messages → the options of this command
_OPTIONS = {"fractions": "--fractions", "seeds": "--seeds", "top_k": "--top-k", "n_resamples": "--n-resamples", "alpha": "--alpha",
            "relevance_level": "--relevance-level", "rounding": "--rounding", "measures": "--measure",
            "threshold": "--threshold"}
