"""``gtheory gstudy``: G-study / D-study of a per-topic score matrix.

Examples::

    gtheory gstudy web2013_ap.csv --orientation topics-by-systems --n-topics 10 25 50 100 --target 0.95
    gtheory evaluate --measure nDCG@10 --measure AP --out scores.csv && gtheory gstudy scores.csv --measure AP
    gtheory gstudy --runs runs/ --qrels qrels.txt --measure nDCG@100
"""
from __future__ import annotations

import argparse
import math
import sys
import warnings
from pathlib import Path
from typing import Any

from ._data import LEVEL_HELP, ORIENTATION_HELP, TARGET_HELP
from . import UsageError
from ._ndcg import add_ndcg_args
from ._measures import OneMeasure, add_relevance_level_arg, same_measure
from ._data import (UNBALANCED, add_data_args, add_quiet_arg, check_shape, drop_missed_topics, drop_unreturned_topics,
                    load_judged)
from ._common import check_option, emit_json
from ._outputs import check_output_path, save_figure
from ._errors import in_option_names

__all__ = ["register", "run"]

_EPILOG = """\
The CSV is either wide (one row per system or per topic, a header of labels, an optional first
column of row labels) or long (columns system, topic, score). With --orientation auto the layout
is recognised from the header, by the rule of the Python API: a first column named 'topic' (or
'query', 'qid', 'Topic ID', ...) means rows are topics; 'system' or 'run' (or 'sysid', 'run_id')
means rows are systems; labels that all look like system names (sys1, run_a, ...) on one side mean
that side holds the systems. Anything else is refused: give --orientation. A first column is taken
as row labels when its cells are not numbers or its header is empty or names an id ('id', 'Topic ID',
'sysid'); distinct whole numbers under another header beside fractional scores are refused, naming
the column. The TREC matrices of the SIGIR 2018 simulation study are topics-by-systems.

The long CSV of 'gtheory evaluate' (columns system, topic, measure, score) is read as it is: with
one measure in the file that one is studied; with several, --measure NAME picks one. So is its wide
CSV of several measures (--format wide; columns labelled MEASURE:topic, e.g. AP:451).

Instead of a CSV, the data options compute the score matrix with the metrics package: --runs
DIR|FILES --qrels FILE (or --judged TENSOR.npz; neither: the embedded TREC-9 Web runs), --measure
any measure of 'gtheory evaluate' (default nDCG@10, as evaluate), --gain and --discount for nDCG, or
--tuning TUNING.json for the nDCG of a saved tuning (its gain, discount and cut-off; default measure
nDCG@ its cut-off). A tuning JSON given as --discount contributes only its discount (a warning says so
when its gain differs from --gain).

Output: the ANOVA table (df, SS, MS, variance components), Eρ² and Φ for each --n-topics with
confidence intervals (Feldt 1965; Arteaga et al. 1982), and the number of topics needed for
--target. Negative variance estimates are set to 0 and reported on stderr.
"""


def _orientation(text: str) -> str:
    """The canonical spelling of a layout (the library's vocabulary: 'topics x systems' is topics-by-systems);
    anything else unchanged, for argparse's choices to refuse. A canonical spelling (the default "auto") returns
    at once (the layout module's import costs part of a second of every command's start-up)."""
    if text in ("auto", "systems-by-topics", "topics-by-systems", "long"):
        return text
    from gtheory.gstudy import canonical_orientation as _canonical_orientation

    try:
        return _canonical_orientation(text)
    except ValueError:
        return text


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "gstudy",
        help="how stable is a metric? variance components, Φ, Eρ², topics needed",
        description=(
            "G-study and D-study of a systems x topics score matrix (generalizability theory, "
            "crossed random-effects design; Brennan 2001, Kanoulas & Aslam 2009)."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("scores", metavar="SCORES.csv", nargs="?", default=None,
                   help="per-topic scores of each system (CSV); or use --runs and --qrels")
    p.add_argument("--orientation", default="auto", type=_orientation,
                   choices=["auto", "systems-by-topics", "topics-by-systems", "long"],
                   help=ORIENTATION_HELP)
    p.add_argument("--n-topics", nargs="+", type=float, metavar="N", default=None,
                   help="D-study numbers of topics (default: 10 25 50 100 and the file's)")
    p.add_argument("--target", type=float, default=0.95,
                   help=TARGET_HELP)
    p.add_argument("--level", type=float, default=0.95,
                   help=LEVEL_HELP)
    p.add_argument("--drop-lowest", type=float, default=0.0, metavar="F",
                   help="drop this fraction of lowest-mean systems first (e.g. 0.25)")
    p.add_argument("--measure", action=OneMeasure, default=None, metavar="NAME",
                   help="with a CSV that has a measure column or MEASURE:topic columns: the measure to study (needed when it holds several); "
                        "with the data options: the measure to compute, e.g. nDCG@100, AP (default nDCG@10)")
    add_ndcg_args(p)
    add_data_args(p)
    p.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")
    p.add_argument("--plot", metavar="OUT.png", default=None,
                   help="also save a plot of Φ and Eρ² against the number of topics")
    add_quiet_arg(p)
    add_relevance_level_arg(p)
    add_top_arg(p)
    return p


#: the Python API's parameter names in messages → the options of this command
_OPTIONS = {"scores": "the scores", "measure": "--measure", "orientation": "--orientation",
            "drop_lowest": "--drop-lowest", "n_topics": "--n-topics", "level": "--level", "target": "--target",
            "missing": "--missing"}



def _check_fraction(name: str, value: float, *, closed_low: bool = False) -> None:
    ok = (0.0 <= value < 1.0) if closed_low else (0.0 < value < 1.0)
    if not ok:
        interval = "[0, 1)" if closed_low else "(0, 1)"
        raise UsageError(f"--{name} must be in {interval}; got {value:g}.")


def _in_cli_terms(text: str) -> str:
    """The G-study's summary with its Python words in the command's: ``(drop_lowest=0.25)`` is ``--drop-lowest
    0.25``; the unbalanced study's intervals come from its ``.bootstrap()`` method, which the command line has
    not."""
    import re

    text = re.sub(r"\(drop_lowest=([^)]*)\)", r"(--drop-lowest \1)", text)
    return text.replace("(point estimates; intervals: .bootstrap())",
                        "(point estimates; intervals: gtheory.gstudy(..., missing=...).bootstrap() in Python)")


def _scores_from_data(args: argparse.Namespace, nd: dict[str, Any]) -> tuple[Any, list[str], list[str]]:
    """The score matrix of --measure over the data options: (systems x topics array, systems, topics)."""
    from ._ndcg import compute

    judged = load_judged(args)
    if args.missing not in UNBALANCED:  # reml/henderson keep the topics and estimate from the scored cells
        judged = drop_missed_topics(judged, "gstudy", quiet=args.quiet)
    else:  # ... but a topic no run returns has no scored cell at all: it is left out, with a note
        judged = drop_unreturned_topics(judged, "gstudy", args.missing, quiet=args.quiet)
    check_shape(judged)
    return (compute(judged, nd["measures"][0], nd["gain"], nd["discount"], False, nd["tuning"], command="gstudy",
                    quiet=args.quiet), list(judged.systems), list(judged.topics))


def run(args: argparse.Namespace) -> int:
    import gtheory

    args.allow_unbalanced = True  # --missing reml/henderson
    data_given = any(getattr(args, a) is not None for a in ("runs", "qrels", "judged"))
    if args.scores is not None and data_given:
        raise UsageError("give either SCORES.csv or the data options (--runs/--qrels, --judged), not both.")

    check_option("--target", "target", args.target)  # the API's rules (gtheory.kit.params)
    check_option("--level", "level", args.level)
    _check_fraction("drop-lowest", args.drop_lowest, closed_low=True)
    if args.n_topics is not None and any(not (n > 0 and math.isfinite(n)) for n in args.n_topics):
        raise UsageError(f"--n-topics must be positive numbers; got {' '.join(f'{n:g}' for n in args.n_topics)}.")
    if args.plot:
        check_output_path(args.plot, "--plot", args=args, quiet=args.quiet)
    n_topics = None
    if args.n_topics is not None:
        n_topics = [int(n) if float(n).is_integer() else n for n in args.n_topics]

    nd = None
    if args.scores is None:
        from ._measures import DEFAULT_MEASURE, resolve_measures

        nd = resolve_measures(args, [args.measure or ("nDCG" if args.tuning else DEFAULT_MEASURE)], command="gstudy")
    else:
        for opt in ("gain", "discount", "tuning"):
            if getattr(args, opt) is not None:
                raise UsageError(f"--{opt} applies to nDCG computed from runs (--runs/--qrels, --judged); "
                                 f"{args.scores} holds scores already.")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", gtheory.NegativeVarianceWarning)
        warnings.simplefilter("always", gtheory.MissingCellsWarning)
        if nd is not None:
            measure = nd["measures"][0]
            if nd["tuning"] is not None:
                measure += f" (--tuning {args.tuning})"
            where = (f"runs in {' '.join(args.runs)} (qrels {args.qrels})" if args.runs
                     else f"judgments {args.judged}" if args.judged else "the embedded TREC-9 Web runs")
            source = f"{measure} over {where}"
            plot_measure = measure
            x, systems, topics = _scores_from_data(args, nd)  # an array: no pandas on this path
        else:
            try:
                scores = gtheory.read_scores(args.scores, orientation=args.orientation, measure=args.measure,
                                             same_measure=same_measure,
                                             allow_missing=args.missing in UNBALANCED)
            except (ValueError, TypeError) as exc:
                raise in_option_names(exc, _OPTIONS) from None
            m = scores.attrs.get("measure")
            source = f"{args.scores} ({m})" if m else str(args.scores)
            plot_measure = str(m) if m else f"the scores in {Path(args.scores).name}"
            check_shape(scores)
        from gtheory.gstudy import labelled_gstudy

        missing = args.missing if args.missing in UNBALANCED else "error"
        try:
            if nd is not None:
                g = labelled_gstudy(x, systems, topics, drop_lowest=args.drop_lowest, missing=missing)
            else:
                g = gtheory.gstudy(scores, orientation="systems-by-topics", drop_lowest=args.drop_lowest,
                                   missing=missing)
                x = scores.to_numpy(dtype=float)
                systems, topics = [str(s) for s in scores.index], [str(t) for t in scores.columns]
        except (ValueError, TypeError) as exc:
            raise in_option_names(exc, _OPTIONS) from None
    for w in caught:
        print(f"gtheory gstudy: warning: {w.message}", file=sys.stderr)

    # no normal-theory intervals for an unbalanced G-study; gtheory.gstudy.unbalanced is loaded only when one was made
    # (importing it to ask costs scipy.optimize, half a second of start-up)
    unbalanced = sys.modules.get("gtheory.gstudy.unbalanced")
    level = None if unbalanced is not None and isinstance(g, unbalanced.UnbalancedGStudy) else args.level
    import numpy as np

    dropped = set(getattr(g, "dropped_systems", ()))
    kept = [i for i, s in enumerate(systems) if s not in dropped]
    # the runs kept in column order, as the frame of their rows held them (the same sums to the last bit)
    extra = competitive_answer(np.asfortranarray(x[kept]), [systems[i] for i in kept], topics, args.target,
                               top=args.top, all_runs=g,
                               study=lambda rows, labels: labelled_gstudy(rows, labels, topics, missing=missing))
    if args.json:
        emit_json({"source": source, **g.summary_dict(n_topics, target=args.target, level=level), **extra["json"]})
    else:
        print(f"{source}\n")
        print(_in_cli_terms(g.summary(n_topics, target=args.target, level=level)))
        print("\n" + "\n".join(extra["lines"]))

    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        ax = g.plot(level=level, target=args.target,
                    n_max=int(max(n_topics)) if n_topics else None,
                    title=f"D-study of {plot_measure}: {g.n_systems} systems × {g.n_topics} topics")
        ax.figure.tight_layout()
        save_figure(ax.figure, args.plot)  # written beside it and renamed: never a truncated image
        plt.close(ax.figure)
        if not args.quiet:
            print(f"plot written to {args.plot}", file=sys.stderr)
    return 0


#: help of ``--top``, the same on every subcommand that takes it
TOP_HELP = ("the competitive systems: the N best runs by mean (of the first measure). compare tests only them; gstudy "
            "and plan show the topics needed for them beside all runs' (default there: all but the lowest quarter, "
            "as TREC analyses drop the bottom 25%% of runs)")


def add_top_arg(p: Any) -> None:
    """``--top N`` (:data:`TOP_HELP`)."""
    p.add_argument("--top", type=int, metavar="N", default=None, help=TOP_HELP)


def competitive_answer(x: Any, systems: list[str], topics: list[str], target: float, *, top: int | None, study: Any,
                       all_runs: Any) -> dict[str, Any]:
    """:func:`gtheory.gstudy.outliers.competitive_answer` for gstudy and plan (the systems x topics array ``x`` and
    its labels): ``{"lines": text lines, "json": keys of the --json document}``; --top out of range is a usage
    error."""
    from gtheory.gstudy import competitive_answer as answer

    n = len(systems)
    if top is not None and not 2 <= top <= n:
        raise UsageError(f"--top must be from 2 to the number of runs ({n}); got {top}.")
    a = answer(x, systems, topics, target, top=top, study=study, all_runs=all_runs)
    return {"lines": a.lines(), "json": a.to_dict()}
