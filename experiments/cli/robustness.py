"""``gtheory robustness``: how robust is a measure to incomplete judgments?

Examples::

    gtheory robustness --measure "nDCG@100" --measure AP --fractions 1 0.5 0.3 0.1 --seeds 5 --condensed
    gtheory robustness --runs runs/ --qrels qrels.txt --measure AP --out study.csv --plot study.png
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from typing import Any

from . import EXIT_FAILURE, UsageError
from ._common import (add_data_args, check_output_path, check_shape, drop_missed_topics, emit_json, in_option_names,
                      load_judged, output_file, save_figure)

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
With --condensed each measure is also computed on the condensed lists (unjudged documents
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
                        "repeat for several (default nDCG@100)")
    p.add_argument("--fractions", nargs="+", type=float, metavar="F",
                   default=[1.0, 0.7, 0.5, 0.3, 0.2, 0.1, 0.05],
                   help="fractions of the judgments to keep, in (0, 1] (default 1 .7 .5 .3 .2 .1 .05)")
    p.add_argument("--seeds", type=int, default=5, metavar="N", help="random reductions per fraction (default 5)")
    p.add_argument("--condensed", action="store_true",
                   help="also evaluate the condensed lists (unjudged documents removed: AP', nDCG')")
    p.add_argument("--test", choices=["bootstrap", "t", "wilcoxon", "none"], default="bootstrap",
                   help="significance test for discriminative power and accuracy (default bootstrap; "
                        "'none' skips both and is much faster)")
    p.add_argument("--B", type=int, default=1000, help="bootstrap replicates (default 1000)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--top-k", type=int, default=None, metavar="K",
                   help="test significance only among the K best systems with the full qrels")
    p.add_argument("--threshold", type=float, default=0.9, help="tau level of the knee, in [-1, 1] (default 0.9)")
    p.add_argument("--rounding", choices=["ceil", "round", "floor"], default="ceil",
                   help="how f*R and f*N become counts (default ceil, as Bompada et al.)")
    p.add_argument("--relevance-level", type=float, default=1.0,
                   help="grades >= this are relevant when sampling; it must lie above the lowest grade of the "
                        "qrels and at most at the highest (default 1)")
    p.add_argument("--out", metavar="FILE.csv", default=None, help="write the per-seed results as CSV")
    p.add_argument("--plot", metavar="OUT.png", default=None,
                   help="save a figure: tau, mean score, discriminative power and accuracy vs fraction")
    p.add_argument("--json", action="store_true", help="print the summary as JSON instead of a table")
    p.add_argument("--quiet", action="store_true",
                   help="print nothing on standard output and no progress on stderr (progress is one line per "
                        "measure x fraction x seed)")
    return p


def _validate(args: argparse.Namespace) -> None:
    bad = [f for f in args.fractions if not (0.0 < f <= 1.0) or math.isnan(f)]
    if bad:
        raise UsageError(f"--fractions must be in (0, 1] (shares of the judgments kept); got {bad[0]:g}.")
    if len(set(args.fractions)) != len(args.fractions):
        raise UsageError(f"--fractions must be distinct; got {' '.join(f'{f:g}' for f in args.fractions)}.")
    if args.seeds < 1:
        raise UsageError(f"--seeds must be a positive integer; got {args.seeds}.")
    if args.B < 1:
        raise UsageError(f"--B must be a positive integer; got {args.B}.")
    if not (0.0 < args.alpha < 1.0):
        raise UsageError(f"--alpha must be in (0, 1); got {args.alpha:g}.")
    if args.top_k is not None and args.top_k < 2:
        raise UsageError(f"--top-k must be at least 2; got {args.top_k}.")
    if not -1.0 <= args.threshold <= 1.0:  # also NaN
        raise UsageError(f"--threshold is a level of Kendall's tau, in [-1, 1]; got {args.threshold:g}.")
    if args.json and args.quiet:
        raise UsageError("--json and --quiet exclude each other.")
    for option, path in (("--out", args.out), ("--plot", args.plot)):
        if path:
            check_output_path(path, option, args=args, quiet=args.quiet)  # before loading and computing


def _check_relevance_level(level: float, judged: Any) -> None:
    """The sampling splits the judged documents into relevant (grade >= level) and non-relevant: both must exist."""
    grades = sorted({float(g) for g in judged.levels})
    if len(grades) < 2 or not grades[0] < level <= grades[-1]:  # also NaN
        shown = " ".join(f"{g:g}" for g in grades)
        raise UsageError(
            f"--relevance-level must split the qrels grades ({shown}) into relevant (>= it) and non-relevant: "
            f"a value in ({grades[0]:g}, {grades[-1]:g}]; got {level:g}." if len(grades) > 1 else
            f"--relevance-level: the qrels have only the grade {shown}; sampling needs relevant and non-relevant "
            "documents."
        )


def _curve_name(measure: str, condensed: bool) -> str:
    return f"{measure} (condensed)" if condensed else measure


def run(args: argparse.Namespace) -> int:
    _validate(args)
    from experiments import knee, summarize_study

    judged = drop_missed_topics(load_judged(args), "robustness")
    check_shape(judged)
    _check_relevance_level(args.relevance_level, judged)
    measures = args.measure or ["nDCG@100"]
    t0 = time.perf_counter()

    def say(msg: str) -> None:  # one line per measure x fraction x seed, on stderr
        print(f"[{time.perf_counter() - t0:6.1f} s] robustness {msg}", file=sys.stderr, flush=True)

    test = None if args.test == "none" else args.test
    df = _study(
        judged,
        {m: m for m in measures},
        fractions=args.fractions,
        seeds=args.seeds,
        judged_only=(False, True) if args.condensed else (False,),
        test=test,
        alpha=args.alpha,
        B=args.B,
        top_k=args.top_k,
        relevance_level=args.relevance_level,
        rounding=args.rounding,
        progress=None if args.quiet else say,
    )
    values = ["judged_kept", "tau", "tau_ap", "mean_reduced", "drift"] + (["power", "accuracy"] if test else [])
    summary = summarize_study(df, values)
    knees = knee(df, args.threshold)
    undefined = _untied_curves(df)

    if args.out:
        with output_file(args.out, newline="") as fh:
            df.to_csv(fh, index=False)
        print(f"per-seed results written to {args.out}", file=sys.stderr)
    if args.plot:
        _plot(df, args.plot, args.threshold, test is not None)
        print(f"plot written to {args.plot}", file=sys.stderr)

    n_curves = df.groupby(["measure", "condensed"], sort=False).ngroups
    if len(undefined) == n_curves:  # nothing but τ = nan: an error, not a table
        print(f"gtheory robustness: error: {_undefined_message(undefined)}; nothing to report.", file=sys.stderr)
        return EXIT_FAILURE
    for name in undefined:
        print(f"gtheory robustness: warning: {_undefined_message([name])}; its τ and τ_AP are shown as nan.",
              file=sys.stderr)
    if args.json:
        emit_json(_as_json(judged, args, df, summary, knees, values))
    elif not args.quiet:
        print(_as_text(judged, args, summary, knees, values, test))
    return EXIT_FAILURE if undefined else 0


def _untied_curves(df: Any) -> list[str]:
    """The curves (measure, condensed) whose τ is NaN for every fraction and seed: every system has the same
    mean with the full qrels, so there is no ranking to compare with (Kendall's τ is 0/0)."""
    out = []
    for (measure, condensed), block in df.groupby(["measure", "condensed"], sort=False):
        if block["tau"].isna().all():
            out.append(_curve_name(measure, condensed))
    return out


def _undefined_message(names: list[str]) -> str:
    return (f"Kendall's τ is undefined for {', '.join(names)}: every system has the same mean score with the full "
            "qrels (identical runs, as far as the judgments see), so there is no system ranking to compare")


#: the Python API's parameter names in messages → the options of this command
_OPTIONS = {"fractions": "--fractions", "seeds": "--seeds", "top_k": "--top-k", "B": "--B", "alpha": "--alpha",
            "relevance_level": "--relevance-level", "rounding": "--rounding", "measures": "--measure",
            "threshold": "--threshold"}


def _study(*args: Any, **kwargs: Any) -> Any:
    from experiments import incompleteness_study

    try:
        return incompleteness_study(*args, **kwargs)
    except (ValueError, TypeError) as exc:
        raise in_option_names(exc, _OPTIONS) from None


def _as_json(judged, args, df, summary, knees, values) -> dict:
    curves = []
    for (measure, condensed), block in summary.groupby(level=[0, 1], sort=False):
        k = knees[(knees.measure == measure) & (knees.condensed == condensed)].iloc[0]
        rows = []
        for (_, _, f), r in block.iterrows():
            row = {"fraction": float(f)}
            for v in values:
                row[v] = float(r[(v, "mean")])
                row[f"{v}_sd"] = float(r[(v, "std")])
            rows.append(row)
        curves.append({
            "measure": measure,
            "condensed": bool(condensed),
            "knee": float(k.knee),
            "tau_at_knee": float(k.value_at_knee),
            "rows": rows,
        })
    return {
        "n_systems": judged.n_systems,
        "n_topics": judged.n_topics,
        "fractions": sorted(set(map(float, args.fractions)), reverse=True),
        "seeds": args.seeds,
        "test": df.attrs["test"],
        "alpha": args.alpha,
        "threshold": args.threshold,
        "rounding": args.rounding,
        "curves": curves,
    }


_HEAD = {"judged_kept": "judged", "tau": "tau", "tau_ap": "tau_AP", "mean_reduced": "mean",
         "drift": "drift", "power": "power", "accuracy": "accuracy"}


def _as_text(judged, args, summary, knees, values, test) -> str:
    lines = [
        f"Incomplete judgments: {judged.n_systems} systems x {judged.n_topics} topics, {args.seeds} seed(s) per "
        f"fraction; at least 1 relevant (grade >= {args.relevance_level:g}) and 10 non-relevant judged documents "
        "kept per topic",
        "Compared with the same measure on the full qrels; mean over seeds (± sd)"
        + (f"; significance: {test}, alpha={args.alpha:g}" if test else ""),
    ]
    for (measure, condensed), block in summary.groupby(level=[0, 1], sort=False):
        lines += ["", _curve_name(measure, condensed)]
        lines.append("       f " + "".join(f"{_HEAD[v]:>17}" for v in values))
        for (_, _, f), r in block.iterrows():
            cells = []
            for v in values:
                m, s = r[(v, "mean")], r[(v, "std")]
                s = 0.0 if s != s else s  # one seed: no sd
                cells.append(f"{m:>9.4f} ± {s:<5.3f}" if v != "judged_kept" else f"{m:>17.4f}")
            lines.append(f"  {f:>6.3g} " + "".join(cells))
        k = knees[(knees.measure == measure) & (knees.condensed == condensed)].iloc[0]
        if math.isnan(k.knee):
            lines.append(f"  knee (tau >= {args.threshold:g}): none in the fractions given")
        else:
            lines.append(f"  knee (tau >= {args.threshold:g}): f = {k.knee:g} (tau = {k.value_at_knee:.4f})")
    return "\n".join(lines)


def _plot(df, path: str, threshold: float, with_tests: bool) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from experiments import plot_discriminative_power, plot_mean_drift, plot_tau_vs_fraction

    n = 4 if with_tests else 2
    fig, axes = plt.subplots(1, n, figsize=(4.6 * n, 3.8))
    plot_tau_vs_fraction(df, threshold=threshold, ax=axes[0], title="ranking agreement")
    plot_mean_drift(df, ax=axes[1], title="mean score")
    if with_tests:
        plot_discriminative_power(df, ax=axes[2], title="discriminative power")
        plot_tau_vs_fraction(df, value="accuracy", threshold=None, ax=axes[3], title="significance agreement")
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)
