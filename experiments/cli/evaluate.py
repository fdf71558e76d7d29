"""``gtheory evaluate``: per-topic scores of any measure, as CSV.

Examples::

    gtheory evaluate --runs runs/ --qrels qrels.txt --measure nDCG@10 --measure AP --out scores.csv
    gtheory evaluate --measure "nDCG@100" --gain 0 1 3 --discount zipf        # embedded TREC-9
    gtheory tune --what joint --cutoff 20 --out t.json && gtheory evaluate --tuning t.json
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

import pandas as pd

from ._common import add_data_args, check_output_path, emit_json, load_judged, output_file
from ._measures import resolve_measures
from ._ndcg import (  # noqa: F401 - the nDCG options are shared with tune, check, gstudy and recommend
    NDCG_OPTIONS, add_ndcg_args, compute, ndcg_cutoff, parse_discount, parse_gain,
)
from ._tunings import add_allow_failed, load_tuning, refuse_failed  # noqa: F401 - as above

def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "evaluate",
        help="per-topic scores of a measure (nDCG with any gain/discount, AP, P@k, bpref, infAP, RBP, Q, ...)",
        description=(
            "Score every system on every topic and write a CSV (long: system,topic,measure,score; or wide: "
            "systems x topics). Numbers agree with trec_eval where trec_eval has the measure."
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
                   help="measure to compute; repeat for several (default nDCG@10)")
    add_ndcg_args(p)
    p.add_argument("--judged-only", action="store_true", help="condensed lists: drop unjudged documents first")
    p.add_argument("--format", choices=["long", "wide"], default="long", help="CSV layout (default long)")
    p.add_argument("--out", metavar="FILE.csv", default=None, help="write here instead of standard output")
    p.add_argument("--json", action="store_true",
                   help="write JSON records instead of CSV (long: one {system, topic, measure, score} per cell; "
                        "wide: one per system)")
    p.add_argument("--quiet", action="store_true",
                   help="no coverage line and no progress bar on stderr (warnings are still printed)")
    return p


def run(args: argparse.Namespace) -> int:
    if args.out:
        check_output_path(args.out, "--out", args=args)
    default = ["nDCG"] if args.tuning else ["nDCG@10"]  # with --tuning: nDCG at the tuned cut-off
    nd = resolve_measures(args, args.measure or default, command="evaluate")
    judged = load_judged(args)
    frames = []
    for name in nd["measures"]:
        df = compute(judged, name, nd["gain"], nd["discount"], args.judged_only, nd["tuning"])
        if args.format == "long":
            # every cell, NaN (--missing exclude) included: DataFrame.stack drops NaN before pandas 3
            long = pd.DataFrame({df.index.name: df.index.repeat(df.shape[1]),
                                 df.columns.name: list(df.columns) * len(df), "score": df.to_numpy().ravel()})
            long.insert(2, "measure", name)
            frames.append(long)
        else:
            frames.append(df.add_prefix(f"{name}:") if len(nd["measures"]) > 1 else df)
    out = pd.concat(frames, ignore_index=True) if args.format == "long" else pd.concat(frames, axis=1)
    if args.json:
        records = (out.reset_index() if args.format == "wide" else out).to_dict(orient="records")
        emit_json(records, args.out)  # NaN (--missing exclude) is written as null; atomic with --out
    elif args.out:
        with output_file(args.out, newline="") as fh:  # a temporary file renamed at the end
            out.to_csv(fh, index=args.format == "wide", float_format="%.10g")
    else:
        out.to_csv(sys.stdout, index=args.format == "wide", float_format="%.10g")
    if args.out:
        print(f"wrote {len(out)} rows to {args.out}", file=sys.stderr)
    return 0
