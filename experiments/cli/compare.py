"""``gtheory compare``: significance tests between runs, corrected for multiple comparisons, as a paper's table.

Examples::

    gtheory compare --runs runs/ --qrels qrels.txt --measure nDCG@10 --measure AP --baseline bm25 --correction holm
    gtheory compare --measure nDCG@10 --measure P@10 --top 5 --test randomization --format latex     # TREC-9
    gtheory evaluate --measure AP --out ap.csv && gtheory compare ap.csv --top 8 --format md
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

from ._data import ALPHA_HELP, ORIENTATION_HELP, SEED_HELP
from . import UsageError
from ._measures import add_relevance_level_arg, same_measure
from .gstudy import _orientation, add_top_arg
from ._data import add_data_args, add_quiet_arg, add_sort_arg, check_shape, drop_missed_topics, load_judged
from ._common import check_option, seed_rule
from ._outputs import check_output_path, output_file
from ._errors import in_option_names
from ._ndcg import add_ndcg_args
from ._outputs import add_raw_csv_arg
from experiments.compare import CORRECTION_REGISTRY, TEST_REGISTRY, TESTS, corrections_help, tests_help
from gtheory.kit.render import one_line

__all__ = ["register", "run"]

#: the choices of --test and --correction: the registry's (experiments.compare.registry), never a copy
_TESTS = TESTS
_CORRECTIONS = ("none", *(c.name for c in CORRECTION_REGISTRY))

_EPILOG = f"""\
Every pair of runs (or every run against --baseline) is tested on the per-topic scores of each --measure
(the scores of 'gtheory evaluate', which agree with trec_eval). --test (randomization: exact when
2^topics <= --n-resamples, else Monte Carlo with p = (k+1)/(B+1)):
{tests_help()}
--correction adjusts the p-values over the pairs of each measure (statsmodels' multipletests):
{corrections_help()}
When the smallest p-value of a resampling test, 1/(B+1), is above the correction's smallest threshold, a
warning says how many --n-resamples it needs. Effect size: Sakai's difference / sqrt(V_E) (V_E the residual
variance of the two-way ANOVA) or Cohen's d_z (--effect-size dz). Intervals: paired t at level 1 - alpha,
per pair. Statistics are computed on standardised scores: the units of the scores do not matter.

Output (--format): text (the runs x measures table, then each measure's pairs with --pairs), latex (booktabs;
\\usepackage{{booktabs}}), md (Markdown), csv (the table, or the pairs with --pairs), json (everything).
With --baseline a significant cell is marked ▲ (better than the baseline) or ▼ (worse); without it each run
gets a letter and a cell lists the letters of the runs it is significantly better than. Best mean: bold.
"""

#: the output formats and the --out extensions that choose them
_FORMATS = {"text": (".txt",), "latex": (".tex",), "md": (".md", ".markdown"), "csv": (".csv",), "json": (".json",)}

_OPTIONS = {"scores": "SCORES.csv", "test": "--test", "correction": "--correction", "baseline": "--baseline",
            "alpha": "--alpha", "seed": "--seed", "n_resamples": "--n-resamples", "effect_size": "--effect-size",
            "top_k": "--top", "systems": "--run", "measure": "--measure", "orientation": "--orientation",
            "continuity_correction": "--no-continuity-correction"}


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "compare",
        help="significance tests between runs with multiple-comparison correction, effect sizes and a paper table",
        description=("Compare runs as IR papers do: paired tests per pair of runs (or against a baseline), "
                     "corrected p-values, effect sizes and intervals, and the runs x measures table."),
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("scores", metavar="SCORES.csv", nargs="?", default=None,
                   help="per-topic scores (a CSV of 'gtheory evaluate' or a systems x topics table); or use --runs and --qrels")
    p.add_argument("--orientation", default="auto", choices=["auto", "systems-by-topics", "topics-by-systems", "long"],
                   type=_orientation, help=ORIENTATION_HELP)
    p.add_argument("--measure", action="append", default=None, metavar="NAME",
                   help="measure to compare on; repeat for several (default nDCG@10)")
    add_ndcg_args(p)
    add_data_args(p)
    p.add_argument("--baseline", metavar="RUN", default=None, help="compare every run with this one")
    who_top = p.add_argument_group("which runs")
    add_top_arg(who_top)  # the baseline is always kept
    who_top.add_argument("--run", action="append", metavar="RUN", default=None, dest="systems",
                         help="only these runs (repeat), in this order")
    p.add_argument("--test", choices=_TESTS, default="t", help="the paired test (default t; list below)")
    p.add_argument("--correction", choices=_CORRECTIONS, default="none",
                   help="multiple-comparison correction over each measure's pairs (default none)")
    p.add_argument("--alpha", type=float, default=0.05, help=ALPHA_HELP)
    p.add_argument("--effect-size", choices=["sakai", "dz"], default="sakai", help="effect size (default sakai)")
    p.add_argument("--n-resamples", type=int, default=10000, metavar="N",
                   help="sign vectors / bootstrap replicates / permutations of the randomised tests (default 10000, "
                        "at most 100000000; memory does not grow with it)")
    p.add_argument("--no-continuity-correction", dest="continuity_correction", action="store_false",
                   help="Wilcoxon's normal approximation without the continuity correction (scipy's default; "
                        "with it by default, as R's wilcox.test)")
    p.add_argument("--seed", type=int, default=0, help=SEED_HELP)
    p.add_argument("--format", choices=list(_FORMATS), default=None,
                   help="output format (default: from --out's extension, .tex latex, .md md, .csv csv, .json json; "
                        "else text)")
    p.add_argument("--json", action="store_true",
                   help="write the comparisons' JSON document (the same as --format json; as --json of the other "
                        "subcommands)")
    add_raw_csv_arg(p)
    p.add_argument("--pairs", action="store_true",
                   help="also the per-pair tables (text, md, latex: after the runs table; csv: only the pairs)")
    p.add_argument("--out", metavar="FILE", default=None, help="write here instead of standard output")
    add_quiet_arg(p)
    add_relevance_level_arg(p)
    add_sort_arg(p)
    return p


def _scores(args: argparse.Namespace) -> dict[str, Any]:
    import gtheory

    if args.scores is not None:
        for opt in ("gain", "discount", "tuning"):
            if getattr(args, opt) is not None:
                raise UsageError(f"--{opt} applies to nDCG computed from runs; {args.scores} holds scores already.")
        names = args.measure or [None]
        out = {}
        for name in names:
            try:
                s = gtheory.read_scores(args.scores, orientation=args.orientation, measure=name,
                                         same_measure=same_measure)
            except (ValueError, TypeError) as exc:
                raise in_option_names(exc, _OPTIONS) from None
            out[str(name or s.attrs.get("measure") or "score")] = s
        return out
    import metrics

    from ._measures import resolve_measures
    from ._ndcg import compute

    from experiments._validation import LabelledMatrix

    nd = resolve_measures(args, args.measure or ["nDCG@10"], command="compare")
    # paired tests need every run scored on every topic: under --missing exclude the topics some run does not
    # return are dropped, with a note, as gstudy, plan and check do
    judged = drop_missed_topics(load_judged(args), "compare", quiet=args.quiet)
    check_shape(judged)  # in the data's terms: runs and topics, not a library's parameter
    systems, topics = list(judged.systems), list(judged.topics)
    # arrays with their labels, checked as their frames would be: no pandas on this path
    return {name: LabelledMatrix(metrics.measures.masked(compute(judged, name, nd["gain"], nd["discount"], False,
                                                                 nd["tuning"], command="compare", quiet=args.quiet),
                                                         judged), systems, topics)
            for name in nd["measures"]}


def run(args: argparse.Namespace) -> int:
    from experiments.compare import compare_measures

    data_given = any(getattr(args, a) is not None for a in ("runs", "qrels", "judged"))
    if args.scores is not None and data_given:
        raise UsageError("give either SCORES.csv or the data options (--runs/--qrels, --judged), not both.")
    if args.json:
        if args.format not in (None, "json"):
            raise UsageError(f"--json is --format json; it contradicts --format {args.format}: give one of them.")
        args.format = "json"
    from experiments.compare import N_RESAMPLES_RULE

    for option, param, value in (("--top", "top_k", args.top), ("--alpha", "alpha", args.alpha)):
        check_option(option, param, value)  # the API's rules (gtheory.kit.params)
    check_option("--n-resamples", "n_resamples", args.n_resamples, N_RESAMPLES_RULE)  # compare's own
    check_option("--seed", "seed", args.seed, seed_rule())
    if next(t for t in TEST_REGISTRY if t.name == args.test).controls_family and args.correction != "none":
        raise UsageError(f"--test {args.test} controls the family-wise error itself; drop --correction.")
    if args.out:  # first whether the path may be written at all (an input is refused as such), then its name
        check_output_path(args.out, "--out", args=args, quiet=args.quiet)
    _format_from_out(args)
    scores = _scores(args)
    systems, top = _order(scores, args)
    try:
        table = compare_measures(scores, test=args.test, correction=None if args.correction == "none" else args.correction,
                                 baseline=args.baseline, alpha=args.alpha, seed=args.seed,
                                 n_resamples=args.n_resamples, effect_size=args.effect_size,
                                 systems=systems, top_k=top,
                                 continuity_correction=args.continuity_correction)
    except (ValueError, TypeError) as exc:
        # the library's `scores` is SCORES.csv, or the scores computed from the runs (--runs/--qrels, --judged)
        raise _in_terms(exc, args) from None
    text = _render(table, args)
    if args.out:
        with output_file(args.out, newline="") as fh:
            fh.write(text)
        if not args.quiet:
            print(f"wrote {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def _format_from_out(args: argparse.Namespace) -> None:
    """--format and --out's name agree: without --format the name's extension chooses it (:data:`_FORMATS`; no
    extension, or standard output, is text) and an extension of no format is refused; a given --format that a known
    extension contradicts is refused (``.txt`` takes any)."""
    from pathlib import Path

    ext = Path(args.out).suffix.lower() if args.out and args.out != "-" else ""
    named = next((f for f, exts in _FORMATS.items() if ext in exts), None)
    if args.format is None:
        if ext and named is None:  # the file would hold text under a name that says otherwise
            raise UsageError(f"--out {args.out}: compare writes text (.txt), LaTeX (.tex), Markdown (.md), CSV (.csv) "
                             f"or JSON (.json), not {ext}; name the file so, or give --format.")
        args.format = named or "text"
    elif named not in (None, "text", args.format):
        raise UsageError(f"--out {args.out} names {named} but --format {args.format} asks for {args.format}: give one "
                         "of them, or a name that agrees.")


def _in_terms(exc: Exception, args: argparse.Namespace) -> UsageError:
    """A library error about ``compare_measures``' arguments in the command's terms: its `scores` (and a measure's
    `scores['AP']`) is SCORES.csv, or the runs' scores when they come from --runs/--qrels or --judged."""
    import re

    source, owner = ("SCORES.csv", "SCORES.csv's") if args.scores is not None else ("the runs", "the runs'")
    if isinstance(exc, (ValueError, TypeError)) and not getattr(exc, "fix", None):
        exc = type(exc)(re.sub(r"`scores\[(['\"])(.*?)\1\]`", lambda m: f"{owner} {m.group(2)}", str(exc)))
    return in_option_names(exc, {**_OPTIONS, "scores": source})


def _order(scores: dict[str, Any], args: argparse.Namespace) -> tuple[list[str] | None, int | None]:
    """The runs of the table and their order under --sort, as ``(systems, top_k)`` for compare_measures: --run's
    runs (or all) and, with --top, the N best of them by the first measure; listed by name (``name``: in the
    order the runs are read, or --run's order) or best first (``mean``). The baseline is added by compare_measures
    when --top leaves it out."""
    if args.sort == "name" and args.top is None:
        return args.systems, None
    import numpy as np

    from experiments._validation import LabelledMatrix, best_first

    first = next(iter(scores.values()))
    if isinstance(first, LabelledMatrix):  # computed scores (an array and its labels)
        values, index = np.asarray(first.values, dtype=float), list(first.systems)
    else:  # SCORES.csv's frame
        values, index = first.to_numpy(dtype=float), list(first.index)
    wanted = [str(s) for s in index] if args.systems is None else list(args.systems)
    labels = {str(s): s for s in index}
    if any(w not in labels for w in wanted):
        return args.systems, args.top  # compare_measures names the unknown run
    row = {str(s): i for i, s in enumerate(index)}
    with np.errstate(invalid="ignore"):  # a NaN score: compare_measures refuses it, in its words
        means = values[[row[w] for w in wanted]].mean(axis=1)
    chosen = [wanted[i] for i in best_first(means)]
    if args.top is not None:
        check_option("--top", "top_k", args.top)
        if args.top > len(chosen):
            return args.systems, args.top  # compare_measures refuses it, in its words
        chosen = chosen[:args.top]
    if args.sort == "name":
        chosen = [w for w in wanted if w in set(chosen)]
    return [labels[w] for w in chosen], None  # the labels as the scores hold them (a CSV's may be numbers)


def _render(table: Any, args: argparse.Namespace) -> str:
    fmt = args.format
    if fmt == "json":
        return table.to_json() + "\n"
    if fmt == "latex":
        text = table.to_latex()
        if args.pairs:
            text += "".join("\n" + c.to_latex() for c in table.comparisons.values())
        return text
    if fmt == "md":
        text = table.to_markdown()
        if args.pairs:
            text += "".join("\n" + c.to_markdown() for c in table.comparisons.values())
        return text
    if fmt == "csv":
        if not args.pairs:
            return table.to_csv(raw=args.raw_csv)
        import pandas as pd

        from experiments.compare import comparison_csv

        frames = [c.table.assign(measure=m)[["measure", *c.table.columns]] for m, c in table.comparisons.items()]
        return comparison_csv(pd.concat(frames, ignore_index=True), args.raw_csv)
    text = table.summary() + "\n"
    for m, c in table.comparisons.items():
        if args.pairs:  # the pairs table, whose title names the measure and the count of significant pairs
            text += "\n" + c.summary() + "\n"
        else:
            text += f"\n{one_line(m)}: {c.n_significant} of {c.n_pairs} pair{'s' * (c.n_pairs != 1)} significant"
    return text + ("\n" if not args.pairs else "")
