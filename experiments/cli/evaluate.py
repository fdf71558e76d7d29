"""``gtheory evaluate``: the per-run table of any measures (as trec_eval prints), or their per-topic scores as CSV.

Examples::

    gtheory evaluate --runs runs/ --qrels qrels.txt --measure nDCG@10 --measure AP            # per-run table
    gtheory evaluate --runs runs/ --qrels qrels.txt --measure nDCG@10 --measure AP --out scores.csv
    gtheory evaluate --measure AP --means --out means.csv                 # the per-run rows as CSV
    gtheory evaluate --measure "nDCG@100" --gain 0 1 3 --discount zipf        # embedded TREC-9
    gtheory tune --what joint --cutoff 20 --out t.json && gtheory evaluate --tuning t.json
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

from ._data import add_data_args, add_quiet_arg, add_sort_arg, load_judged
from ._outputs import add_raw_csv_arg, check_output_path, write_csv_output
from ._common import emit_json
from . import UsageError
from ._measures import DEFAULT_MEASURE, run_order, add_relevance_level_arg, resolve_measures
from ._ndcg import add_ndcg_args, compute

def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "evaluate",
        help="score runs with any measure (nDCG with any gain/discount, AP, P@k, bpref, infAP, RBP, Q, ...)",
        description=(
            "Score every system on every topic. Without --out: the per-run table (trec_eval's 'all' rows, the "
            "mean over topics). With --out (or --per-topic, --json, --format): the per-topic scores as CSV (long: "
            "system,topic,measure,score; or wide: systems x topics); --means writes the per-run rows instead. "
            "Numbers agree with trec_eval where trec_eval has the measure."
        ),
        epilog=(
            "Measures use ir_measures names where one exists (nDCG@10, AP, P@10, R@100, RR@10, ERR@20, "
            "Judged@10, Success@10, NumRelRet, Rprec, Bpref, infAP, RBP(p=0.8), ...); trec_eval names work too "
            "(ndcg_cut.10, P.10, recall.100, map, recip_rank). For nDCG, --gain and --discount choose the gain per grade and the discount per "
            "rank: --gain linear|exponential|binary or numbers per grade (--gain 0 1 3); --discount "
            "log2|zipf|linear|none|'jarvelin(b=2)'|'rbp(p=0.8)' or a JSON/.npy file of weights per rank. "
            "--tuning FILE (written by 'gtheory tune --out') applies a tuning's gain, discount and cut-off "
            "(default measure: nDCG@ its cut-off); a tuning JSON given as --discount contributes only its discount."
        ),
    )
    add_data_args(p)
    p.add_argument("--measure", action="append", default=None, metavar="NAME",
                   help=f"measure to compute; repeat for several (default {DEFAULT_MEASURE})")
    add_ndcg_args(p)
    p.add_argument("--judged-only", action="store_true", help="condensed lists: drop unjudged documents first")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--means", action="store_true",
                      help="write the per-run rows (trec_eval's 'all' rows: the mean over topics; totals for "
                           "NumRet/NumRel/NumRelRet) as CSV system,num_q,<measure>... (or JSON with --json)")
    what.add_argument("--per-topic", action="store_true",
                      help="write the per-topic rows (the default with --out, --json or --format)")
    p.add_argument("--format", choices=["long", "wide"], default=None,
                   help="layout of the per-topic CSV (default long)")
    p.add_argument("--out", metavar="FILE.csv", default=None,
                   help="write here instead of standard output ('-' is standard output; a device or named pipe "
                        "is written through)")
    add_raw_csv_arg(p)
    p.add_argument("--json", action="store_true",
                   help="write JSON records instead of CSV (long: one {system, topic, measure, score} per cell; "
                        "wide: one per system; --means: one per system)")
    add_quiet_arg(p)
    add_relevance_level_arg(p)
    add_sort_arg(p)
    return p


#: the --out extensions of the CSV evaluate writes; .json chooses --json
_CSV_NAMES = (".csv", ".txt")


def _format_from_name(args: argparse.Namespace) -> None:
    """--out's extension, as compare reads it: ``.json`` is --json; a name evaluate cannot write (``.tex``, ``.md``,
    ``.xlsx``) is refused, since the file would be CSV under a name that says otherwise."""
    from pathlib import Path

    ext = Path(args.out).suffix.lower()
    if args.out == "-" or not ext:
        return
    if ext == ".json":
        args.json = True
        return
    if ext in _CSV_NAMES and not args.json:
        return
    what = "JSON (--json)" if args.json else "CSV (or JSON with --json)"
    raise UsageError(f"--out {args.out}: evaluate writes {what}, not {ext} (plain, uncompressed); name the file "
                     f"{'.json' if args.json else '.csv or .json'} (the paper tables are compare's: gtheory compare "
                     "--out table.tex).")


def run(args: argparse.Namespace) -> int:
    import metrics

    if args.means and args.format is not None:
        raise UsageError("--format lays out the per-topic rows; --means writes one row per run.")
    if args.out:  # first whether the path may be written at all (an input is refused as such), then its name
        check_output_path(args.out, "--out", args=args, quiet=args.quiet)
        _format_from_name(args)
    default = ["nDCG"] if args.tuning else [DEFAULT_MEASURE]  # with --tuning: nDCG at the tuned cut-off
    nd = resolve_measures(args, args.measure or default, command="evaluate")
    judged = load_judged(args)
    scores = {name: compute(judged, name, nd["gain"], nd["discount"], args.judged_only, nd["tuning"])
              for name in nd["measures"]}
    order = run_order(scores, args.sort)
    per_topic = args.per_topic or (not args.means and (args.out or args.json or args.format))
    if not per_topic and not args.means:  # the terminal's view: trec_eval's per-run table (no pandas needed)
        systems = list(judged.systems)
        print(metrics.measures.evaluation_summary({name: a[order] for name, a in scores.items()},
                                                  [systems[i] for i in order]))
        return 0
    import pandas as pd

    ev = metrics.Evaluation({name: metrics.measures.as_frame(a, judged).iloc[order] for name, a in scores.items()})
    if args.means:
        out = ev.means()
        out.insert(0, "num_q", ev.num_q())
        wide = True
    elif (args.format or "long") == "long":
        out, wide = ev.per_topic(), False
    else:
        out = pd.concat([df.add_prefix(f"{name}:") if len(ev) > 1 else df for name, df in ev.items()], axis=1)
        wide = True
    if args.json:
        records = (out.reset_index() if wide else out).to_dict(orient="records")
        emit_json(records, args.out)  # NaN (--missing exclude) is written as null; atomic with --out
    else:  # a file: atomically; a device, FIFO, `-` or standard output: written through; text cells made safe
        write_csv_output(out, args.out, args, index=wide, float_format="%.10g")
    if args.out and not args.quiet:  # a note: the file is the result
        print(f"wrote {len(out)} rows to {args.out}", file=sys.stderr)
    return 0
