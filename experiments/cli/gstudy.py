"""``gtheory gstudy``: G-study / D-study of a per-topic score matrix.

Examples::

    gtheory gstudy web2013_ap.csv --orientation topics-by-systems --n-topics 10 25 50 100 --target 0.95
    gtheory evaluate --measure nDCG@10 --measure AP --out scores.csv && gtheory gstudy scores.csv --measure AP
    gtheory gstudy --runs runs/ --qrels qrels.txt --measure nDCG@100
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from typing import Any

import numpy as np

from . import UsageError
from ._common import add_data_args, check_shape, load_judged

__all__ = ["register", "run"]

_EPILOG = """\
The CSV is either wide (one row per system or per topic, a header of labels, an optional first
column of row labels) or long (columns system, topic, score). With --orientation auto the layout
is recognised from the header: a first column named 'topic' (or 'query', 'qid') means rows are
topics; 'system' or 'run' means rows are systems; headers that all look like system names
(sys1, run_a, ...) mean columns are systems. The TREC matrices in score-matrices/ are
topics-by-systems.

The long CSV of 'gtheory evaluate' (columns system, topic, measure, score) is read as it is: with
one measure in the file that one is studied; with several, --measure NAME picks one.

Instead of a CSV, the data options compute the score matrix with the metrics package: --runs
DIR|FILES --qrels FILE (or --judged TENSOR.npz; neither: the embedded TREC-9 Web runs), --measure
any measure of 'gtheory evaluate' (default nDCG, the full list), --gain and --discount for nDCG.

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
    p.add_argument("--measure", default=None, metavar="NAME",
                   help="with a CSV that has a measure column: the measure to study (needed when it holds several); "
                        "with the data options: the measure to compute, e.g. nDCG@100, AP (default nDCG)")
    p.add_argument("--gain", nargs="+", default=["linear"],
                   help="nDCG gain: linear, exponential, binary or numbers per grade (default linear)")
    p.add_argument("--discount", default="log2", help="nDCG discount, e.g. log2, zipf, 'rbp(p=0.8)' (default log2)")
    add_data_args(p)
    p.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")
    p.add_argument("--plot", metavar="OUT.png", default=None,
                   help="also save a plot of Φ and Eρ² against the number of topics")
    p.add_argument("--quiet", action="store_true",
                   help="print nothing on standard output and no notes on stderr (warnings still); use with --plot")
    return p


def _check_fraction(name: str, value: float, *, closed_low: bool = False) -> None:
    ok = (0.0 <= value < 1.0) if closed_low else (0.0 < value < 1.0)
    if not ok:
        interval = "[0, 1)" if closed_low else "(0, 1)"
        raise UsageError(f"--{name} must be in {interval}; got {value:g}.")


def _finite(x: float) -> float | None:
    return None if (x is None or (isinstance(x, float) and not math.isfinite(x))) else x


_MEASURE_COLUMN = "measure"
#: the other columns of a long CSV with a measure column, with the synonyms gtheory.read_scores accepts
_LONG_ROLES = {"system": ("system", "run", "runid", "run_id"), "topic": ("topic", "query", "qid", "query_id", "topic_id"),
               "score": ("score", "value")}


def read_score_csv(path: str, *, orientation: str = "auto", measure: str | None = None) -> Any:
    """The systems x topics DataFrame of a score CSV, including the long CSV of ``gtheory evaluate``.

    A long CSV with a ``measure`` column (``system,topic,measure,score``) is filtered to one measure:
    the only one in the file, or ``measure`` (compared case-insensitively) when there are several. Every
    other file goes to :func:`gtheory.read_scores` unchanged.
    """
    import gtheory
    import pandas as pd

    from pathlib import Path

    if not Path(path).is_file():
        raise FileNotFoundError(f"score file {str(path)!r} does not exist.")
    if orientation in ("auto", "long"):
        header = pd.read_csv(path, nrows=0, encoding="utf-8-sig")
        lower = {str(c).strip().lower(): c for c in header.columns}
        cols = {role: next((lower[n] for n in names if n in lower), None) for role, names in _LONG_ROLES.items()}
        if _MEASURE_COLUMN in lower and all(cols.values()):
            cols[_MEASURE_COLUMN] = lower[_MEASURE_COLUMN]
            df = pd.read_csv(path, encoding="utf-8-sig", dtype={cols["system"]: str, cols["topic"]: str,
                                                                  cols[_MEASURE_COLUMN]: str})
            names = list(dict.fromkeys(df[cols[_MEASURE_COLUMN]].astype(str).str.strip()))
            listed = ", ".join(names)
            if measure is None:
                if len(names) != 1:
                    raise UsageError(f"{path} holds {len(names)} measures ({listed}); choose one with "
                                     f"--measure NAME.")
                chosen = names[0]
            else:
                hits = [n for n in names if n.lower() == measure.strip().lower()]
                if not hits:
                    raise UsageError(f"{path} has no measure {measure!r}; it holds {listed}.")
                chosen = hits[0]
            df = df[df[cols[_MEASURE_COLUMN]].astype(str).str.strip() == chosen]
            key = [cols["system"], cols["topic"]]
            dup = df[df.duplicated(key, keep=False)]
            if len(dup):
                s_, t_ = dup.iloc[0][key[0]], dup.iloc[0][key[1]]
                raise UsageError(f"{path}: more than one {chosen} score for system {s_!r}, topic {t_!r}.")
            X = df.pivot(index=key[0], columns=key[1], values=cols["score"])
            X = X.reindex(index=list(dict.fromkeys(df[key[0]])), columns=list(dict.fromkeys(df[key[1]])))
            n_missing = int(X.isna().sum().sum())
            if n_missing:
                i, j = map(int, np.argwhere(X.isna().to_numpy())[0])
                raise UsageError(f"{path}: {n_missing} system/topic pairs have no {chosen} score (first: system "
                                 f"{X.index[i]!r}, topic {X.columns[j]!r}); a G-study needs a complete matrix.")
            X.index.name, X.columns.name = "system", "topic"
            X.attrs["measure"] = chosen
            return X.astype(float)
    if measure is not None:
        raise UsageError(f"--measure {measure!r} selects a measure of a long CSV with a 'measure' column; "
                         f"{path} has none.")
    return gtheory.read_scores(path, orientation=orientation)


def _scores_from_data(args: argparse.Namespace) -> Any:
    """Score matrix (systems x topics DataFrame) of --measure over the data options."""
    from .evaluate import compute, parse_discount, parse_gain

    judged = load_judged(args)
    check_shape(judged)
    return compute(judged, args.measure or "nDCG", parse_gain(args.gain), parse_discount(args.discount),
                   judged_only=False)


def run(args: argparse.Namespace) -> int:
    import gtheory

    data_given = any(getattr(args, a) is not None for a in ("runs", "qrels", "judged"))
    if args.scores is not None and data_given:
        raise UsageError("give either SCORES.csv or the data options (--runs/--qrels, --judged), not both.")
    if args.quiet and args.json:
        raise UsageError("--json and --quiet exclude each other.")

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
        if args.scores is None:
            measure = args.measure or "nDCG"
            where = (f"runs in {' '.join(args.runs)} (qrels {args.qrels})" if args.runs
                     else f"judgments {args.judged}" if args.judged else "the embedded TREC-9 Web runs")
            source = f"{measure} over {where}"
            scores = _scores_from_data(args)
        else:
            scores = read_score_csv(args.scores, orientation=args.orientation, measure=args.measure)
            m = scores.attrs.get("measure")
            source = f"{args.scores} ({m})" if m else str(args.scores)
            check_shape(scores)
        g = gtheory.gstudy(scores, orientation="systems-by-topics", drop_lowest=args.drop_lowest)
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
    elif not args.quiet:
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
        if not args.quiet:
            print(f"plot written to {args.plot}", file=sys.stderr)
    return 0
