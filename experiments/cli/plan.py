"""``gtheory plan``: how many topics does a collection need? Every established answer side by side.

Examples::

    gtheory plan --runs runs/ --qrels qrels.txt --measure nDCG@10 --min-diff 0.05
    gtheory plan web2013_ap.csv --orientation topics-by-systems --min-diff 0.05 --target 0.9 --json
    gtheory plan --measure AP --min-diff 0.03 --power 0.9 --plot plan.png        # the embedded TREC-9 runs
"""
from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Any

from ._data import ALPHA_HELP, LEVEL_HELP, ORIENTATION_HELP, POWER_HELP, SEED_HELP, TARGET_HELP
from . import UsageError
from ._ndcg import add_ndcg_args
from ._measures import OneMeasure, add_relevance_level_arg, same_measure
from .gstudy import _orientation, add_top_arg, competitive_answer
from ._data import add_data_args, add_quiet_arg, check_shape, drop_missed_topics, load_judged
from ._outputs import check_output_path, save_figure
from ._common import emit_json
from ._errors import in_option_names

__all__ = ["register", "run"]

_EPILOG = """\
One pilot systems x topics score matrix (a CSV, or --measure computed over the data options as in
'gtheory gstudy'), one row per way of answering "how many topics?":

  G-theory Phi / Erho2   topics for the dependability / generalizability coefficient to reach --target
                         (interval: Arteaga et al. / Feldt confidence bounds of the single-topic ratio)
  expected tau           topics for the expected Kendall tau between two topic sets' rankings to reach
                         --tau, through Urbano, Marrero & Martin's (SIGIR 2013) empirical fit tau = Erho2^2.847
  paired t-test          topics for a two-sided paired t-test to detect --min-diff with --power at --alpha
  two-sample t-test      the same unpaired, topics per system (Sakai, ICTIR 2018)
  ANOVA                  one-way ANOVA of all the pilot's systems, best - worst >= --min-diff (least
                         favourable configuration)
  CI width               expected width of the CI of a paired difference <= --ci-width (default --min-diff)

The test rows are Sakai's topic set size design (IRJ 2016), exact (noncentral t and F) or with
--approximation nagata as Sakai's Excel tools; their within-system variance is the residual mean square
of the two-way ANOVA (--variance residual) or the pooled within-system variance (--variance pooled),
and their interval is the size at both ends of that variance's confidence interval. 'at pilot' is what
the pilot's own number of topics achieves. The docs page "How many topics?" (docs/topics.md) says when
each answer applies and why they differ.
"""


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "plan",
        help="how many topics? G-theory, expected tau, power of t-tests/ANOVA and CI width side by side",
        description=("How many topics does a test collection need? G-theory (Phi, Erho2), Urbano et al.'s "
                     "expected tau, and Sakai's topic set size design (paired and two-sample t-test, one-way "
                     "ANOVA, CI width) on one pilot score matrix."),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("scores", metavar="SCORES.csv", nargs="?", default=None,
                   help="per-topic scores of each system (CSV); or use --runs and --qrels")
    p.add_argument("--orientation", default="auto", type=_orientation,
                   choices=["auto", "systems-by-topics", "topics-by-systems", "long"], help=ORIENTATION_HELP)
    p.add_argument("--measure", action=OneMeasure, default=None, metavar="NAME",
                   help="with a CSV of several measures: the one to plan for; with the data options: the measure to "
                        "compute, e.g. nDCG@10, AP (default nDCG@10, as every subcommand)")
    p.add_argument("--min-diff", type=float, default=None, metavar="D",
                   help="(required) the difference between systems the tests must detect (ANOVA: best - worst)")
    p.add_argument("--target", type=float, default=0.95, help=TARGET_HELP)
    p.add_argument("--tau", type=float, default=0.9, help="target expected Kendall tau (default 0.9)")
    p.add_argument("--alpha", type=float, default=0.05, help=ALPHA_HELP)
    p.add_argument("--power", type=float, default=0.8, help=POWER_HELP)
    p.add_argument("--ci-width", type=float, default=None, metavar="W",
                   help="largest expected width of the CI of a paired difference (default --min-diff)")
    p.add_argument("--level", type=float, default=0.95, help=LEVEL_HELP)
    p.add_argument("--variance", choices=["residual", "pooled"], default="residual",
                   help="within-system variance of the test rows (default residual)")
    p.add_argument("--approximation", choices=["exact", "nagata"], default="exact",
                   help="exact noncentral t/F (default) or Nagata's approximations as Sakai's Excel tools")
    p.add_argument("--curves", action="store_true",
                   help="also the data-based row: tau between disjoint random topic sets of the pilot, extrapolated "
                        "(takes seconds)")
    p.add_argument("--repeats", type=int, default=50, help="pairs of topic sets per size with --curves (default 50)")
    p.add_argument("--seed", type=int, default=0, help=SEED_HELP)
    add_ndcg_args(p)
    add_data_args(p)
    p.add_argument("--json", action="store_true", help="print the plan as JSON instead of a table")
    add_quiet_arg(p)
    add_relevance_level_arg(p)
    add_top_arg(p)
    p.add_argument("--plot", metavar="OUT.png", default=None, help="also save a chart of the topics per method")
    return p


#: the Python API's parameter names in messages → the options of this command
_OPTIONS = {"scores": "the scores", "measure": "--measure", "orientation": "--orientation", "min_diff": "--min-diff",
            "target": "--target", "tau": "--tau", "alpha": "--alpha", "power": "--power", "ci_width": "--ci-width",
            "level": "--level", "variance": "--variance", "approximation": "--approximation",
            "repeats": "--repeats", "seed": "--seed", "curves": "--curves"}


def run(args: argparse.Namespace) -> int:
    import gtheory

    if args.min_diff is None:
        raise UsageError("--min-diff is required: the difference between systems the tests must detect "
                         "(e.g. --min-diff 0.05).")
    data_given = any(getattr(args, a) is not None for a in ("runs", "qrels", "judged"))
    if args.scores is not None and data_given:
        raise UsageError("give either SCORES.csv or the data options (--runs/--qrels, --judged), not both.")
    if args.plot:
        check_output_path(args.plot, "--plot", args=args, quiet=args.quiet)
    if args.scores is None:
        from ._measures import DEFAULT_MEASURE
        from ._ndcg import compute
        from ._measures import resolve_measures

        nd = resolve_measures(args, [args.measure or ("nDCG" if args.tuning else DEFAULT_MEASURE)], command="plan")
        judged = drop_missed_topics(load_judged(args), "plan")
        check_shape(judged)
        measure = nd["measures"][0]
        where = (f"runs in {' '.join(args.runs)} (qrels {args.qrels})" if args.runs
                 else f"judgments {args.judged}" if args.judged else "the embedded TREC-9 Web runs")
        source = f"{measure} over {where}"
        # an array in judged's order (no pandas on this path): the layout the frame wrapping it would have
        scores = compute(judged, measure, nd["gain"], nd["discount"], False, nd["tuning"], command="plan")
        systems, topics = list(judged.systems), list(judged.topics)
    else:
        for opt in ("gain", "discount", "tuning"):
            if getattr(args, opt) is not None:
                raise UsageError(f"--{opt} applies to nDCG computed from runs (--runs/--qrels, --judged); "
                                 f"{args.scores} holds scores already.")
        try:
            scores = gtheory.read_scores(args.scores, orientation=args.orientation, measure=args.measure,
                                         same_measure=same_measure)
        except (ValueError, TypeError) as exc:
            raise in_option_names(exc, _OPTIONS) from None
        m = scores.attrs.get("measure")
        source = f"{args.scores} ({m})" if m else str(args.scores)
        check_shape(scores)
        systems, topics = [str(s) for s in scores.index], [str(t) for t in scores.columns]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", gtheory.NegativeVarianceWarning)
        try:
            if args.scores is None:  # the checks gtheory.plan makes of a frame, on the array and its labels
                from gtheory.gstudy import checked_matrix

                checked_matrix(scores, systems, topics)
            result = gtheory.plan(scores, min_diff=args.min_diff, target=args.target, tau=args.tau, alpha=args.alpha,
                                  power=args.power, ci_width=args.ci_width, level=args.level,
                                  variance=args.variance, approximation=args.approximation,
                                  curves=args.curves, repeats=args.repeats, seed=args.seed)
        except (ValueError, TypeError) as exc:
            raise in_option_names(exc, _OPTIONS) from None
        # the outlying runs, and the G-study topics needed by the competitive systems beside all runs'
        x = scores if args.scores is None else scores.to_numpy(dtype=float)
        extra = competitive_answer(x, systems, topics, args.target, top=args.top, study=None, all_runs=None)
    for w in caught:  # the library's parameters in the options' words (`curves=True` is --curves)
        print(f"gtheory plan: warning: {in_option_names(w.message, _OPTIONS)}", file=sys.stderr)
    if args.json:
        emit_json({"source": source, **result.to_dict(), **extra["json"]})
    else:
        print(f"{source}\n")
        print(result.summary())
        print("\n" + "\n".join(extra["lines"]))
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        ax = result.plot(title=f"How many topics? {Path(str(source)).name if args.scores else source}")
        ax.figure.tight_layout()
        save_figure(ax.figure, args.plot)
        plt.close(ax.figure)
        if not args.quiet:
            print(f"plot written to {args.plot}", file=sys.stderr)
    return 0
