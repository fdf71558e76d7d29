"""``gtheory gstudy``: G-study / D-study of a per-topic score matrix.

Examples::

    gtheory gstudy web2013_ap.csv --orientation topics-by-systems --n-topics 10 25 50 100 --target 0.95
    gtheory gstudy --runs runs/ --qrels qrels.txt --measure nDCG@100
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sys
import warnings
from typing import Any

from . import UsageError

__all__ = ["register", "run"]

_EPILOG = """\
The CSV is either wide (one row per system or per topic, a header of labels, an optional first
column of row labels) or long (columns system, topic, score). With --orientation auto the layout
is recognised from the header: a first column named 'topic' (or 'query', 'qid') means rows are
topics; 'system' or 'run' means rows are systems; headers that all look like system names
(sys1, run_a, ...) mean columns are systems. The TREC matrices in score-matrices/ are
topics-by-systems.

Instead of a CSV, --runs DIR --qrels FILE computes the score matrix with the metrics package
(--measure nDCG or nDCG@k, --gain, --discount as in metrics.ndcg).

Output: the ANOVA table (df, SS, MS, variance components), Eρ² and Φ for each --n-topics with
confidence intervals (Feldt 1965; Arteaga et al. 1982), and the number of topics needed for
--target. Negative variance estimates are set to 0 and reported on stderr.
"""


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
    p.add_argument("--orientation", default="auto",
                   choices=["auto", "systems-by-topics", "topics-by-systems", "long"],
                   help="layout of the CSV (default: auto)")
    p.add_argument("--n-topics", nargs="+", type=float, metavar="N", default=None,
                   help="D-study numbers of topics (default: 10 25 50 100 and the file's)")
    p.add_argument("--target", type=float, default=0.95,
                   help="target Φ / Eρ² for the number of topics needed (default 0.95)")
    p.add_argument("--level", type=float, default=0.95,
                   help="confidence level of the intervals (default 0.95)")
    p.add_argument("--drop-lowest", type=float, default=0.0, metavar="F",
                   help="drop this fraction of lowest-mean systems first (e.g. 0.25)")
    p.add_argument("--runs", metavar="DIR", default=None,
                   help="directory of TREC run files (with --qrels) to score with --measure")
    p.add_argument("--qrels", metavar="FILE", default=None, help="TREC qrels file (with --runs)")
    p.add_argument("--measure", default="nDCG", help="nDCG or nDCG@k (default nDCG: full list)")
    p.add_argument("--gain", default="linear", help="nDCG gain: linear, exponential, binary (default linear)")
    p.add_argument("--discount", default="log2", help="nDCG discount, e.g. log2, zipf, 'rbp(p=0.8)' (default log2)")
    p.add_argument("--depth", type=int, default=1000, help="ranks of each run to judge (default 1000)")
    p.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")
    p.add_argument("--plot", metavar="OUT.png", default=None,
                   help="also save a plot of Φ and Eρ² against the number of topics")
    return p


def _check_fraction(name: str, value: float, *, closed_low: bool = False) -> None:
    ok = (0.0 <= value < 1.0) if closed_low else (0.0 < value < 1.0)
    if not ok:
        interval = "[0, 1)" if closed_low else "(0, 1)"
        raise UsageError(f"--{name} must be in {interval}; got {value:g}.")


def _finite(x: float) -> float | None:
    return None if (x is None or (isinstance(x, float) and not math.isfinite(x))) else x


_MEASURE = re.compile(r"^ndcg(?:@(\d+))?$", re.IGNORECASE)


def _scores_from_runs(args: argparse.Namespace) -> Any:
    """Score matrix (systems x topics DataFrame) of --measure over --runs and --qrels."""
    m = _MEASURE.match(args.measure.strip())
    if not m:
        raise UsageError(f"--measure must be nDCG or nDCG@k (k a positive integer); got {args.measure!r}.")
    cutoff = int(m.group(1)) if m.group(1) else None
    if cutoff == 0:
        raise UsageError("--measure nDCG@k needs k >= 1.")
    import metrics

    judged = metrics.judge(metrics.read_runs(args.runs), args.qrels, depth=args.depth)
    return metrics.ndcg(judged, gain=args.gain, discount=args.discount, cutoff=cutoff)


def run(args: argparse.Namespace) -> int:
    import gtheory

    if (args.runs is None) != (args.qrels is None):
        raise UsageError("--runs and --qrels go together.")
    if (args.scores is None) == (args.runs is None):
        raise UsageError("give either SCORES.csv or --runs DIR --qrels FILE (not both).")

    _check_fraction("target", args.target)
    _check_fraction("level", args.level)
    _check_fraction("drop-lowest", args.drop_lowest, closed_low=True)
    if args.n_topics is not None and any(not (n > 0 and math.isfinite(n)) for n in args.n_topics):
        raise UsageError(f"--n-topics must be positive numbers; got {args.n_topics}.")
    n_topics = None
    if args.n_topics is not None:
        n_topics = [int(n) if float(n).is_integer() else n for n in args.n_topics]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", gtheory.NegativeVarianceWarning)
        if args.runs is not None:
            source = f"{args.measure} over runs in {args.runs} (qrels {args.qrels})"
            scores = _scores_from_runs(args)
        else:
            source = str(args.scores)
            scores = args.scores
        g = gtheory.gstudy(scores, orientation=args.orientation, drop_lowest=args.drop_lowest)
    for w in caught:
        print(f"gtheory gstudy: warning: {w.message}", file=sys.stderr)

    if args.json:
        d = g.dstudy(n_topics, level=args.level)
        out = {
            "source": source,
            "n_systems": g.n_systems,
            "n_topics": g.n_topics,
            "dropped_systems": list(g.dropped_systems),
            "grand_mean": g.grand_mean,
            "components": {
                src: {k: (bool(v) if k == "clipped" else float(v)) for k, v in row.items()}
                for src, row in g.components.iterrows()
            },
            "dstudy": [{"n_topics": float(n), **{k: float(v) for k, v in row.items()}}
                       for n, row in d.iterrows()],
            "topics_needed": {
                c: {k: _finite(v) for k, v in vars(g.topics_needed(args.target, c, level=args.level)).items()}
                for c in ("erho2", "phi")
            },
            "level": args.level,
        }
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        print(f"{source}\n")
        print(g.summary(n_topics, target=args.target, level=args.level))

    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        ax = g.plot(level=args.level, target=args.target,
                    n_max=int(max(n_topics)) if n_topics else None)
        ax.figure.tight_layout()
        ax.figure.savefig(args.plot, dpi=150)
        plt.close(ax.figure)
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0
