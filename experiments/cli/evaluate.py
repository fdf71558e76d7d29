"""``gtheory evaluate``: per-topic scores of any measure, as CSV.

Examples::

    gtheory evaluate --runs runs/ --qrels qrels.txt --measure nDCG@10 --measure AP --out scores.csv
    gtheory evaluate --measure "nDCG@100" --gain 0 1 3 --discount zipf        # embedded TREC-9
"""
from __future__ import annotations

import argparse
import re
import sys
from typing import Any

import pandas as pd

import metrics

from . import UsageError
from ._common import add_data_args, check_output_path, emit_json, load_judged

_NDCG = re.compile(r"^nDCG(?:@(\d+))?$", re.IGNORECASE)


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "evaluate",
        help="per-topic scores of a measure (nDCG with any gain/discount, AP, P@k, bpref, infAP, RBP, Q, ...)",
        description=(
            "Score every system on every topic and write a CSV (long: system,topic,measure,score; or wide: "
            "systems x topics). Numbers agree with trec_eval where trec_eval has the measure."
        ),
        epilog=(
            "Measures use ir_measures names where one exists (nDCG@10, AP, P@10, Rprec, Bpref, infAP, "
            "RBP(p=0.8), ...). For nDCG, --gain and --discount choose the gain per grade and the discount per "
            "rank: --gain linear|exponential|binary or numbers per grade (--gain 0 1 3); --discount "
            "log2|zipf|linear|none|'jarvelin(b=2)'|'rbp(p=0.8)' or a JSON/.npy file of weights per rank."
        ),
    )
    add_data_args(p)
    p.add_argument("--measure", action="append", default=None, metavar="NAME",
                   help="measure to compute; repeat for several (default nDCG@10)")
    p.add_argument("--gain", nargs="+", default=["linear"], help="nDCG gain family or numbers per grade")
    p.add_argument("--discount", default="log2", help="nDCG discount family or a file of weights per rank")
    p.add_argument("--judged-only", action="store_true", help="condensed lists: drop unjudged documents first")
    p.add_argument("--format", choices=["long", "wide"], default="long", help="CSV layout (default long)")
    p.add_argument("--out", metavar="FILE.csv", default=None, help="write here instead of standard output")
    p.add_argument("--json", action="store_true",
                   help="write JSON records instead of CSV (long: one {system, topic, measure, score} per cell; "
                        "wide: one per system)")
    return p


def parse_gain(values: list[str]) -> Any:
    if len(values) == 1 and not _is_number(values[0]):
        return values[0]
    if not all(_is_number(v) for v in values):
        raise UsageError(f"--gain takes one family name or numbers per grade; got {' '.join(values)!r}")
    return [float(v) for v in values]


def parse_discount(value: str) -> Any:
    from pathlib import Path

    p = Path(value)
    if p.suffix in (".json", ".npy", ".txt") and p.exists():
        import json

        import numpy as np

        if p.suffix == ".npy":
            return np.load(p)
        if p.suffix == ".json":
            obj = json.loads(p.read_text())
            return obj["discount"] if isinstance(obj, dict) else obj
        return np.loadtxt(p)
    return value


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def compute(judged: metrics.JudgedRuns, name: str, gain: Any, discount: Any, judged_only: bool) -> pd.DataFrame:
    m = _NDCG.match(name.strip())
    if m:
        cutoff = int(m.group(1)) if m.group(1) else None
        return metrics.ndcg(judged, gain=gain, discount=discount, cutoff=cutoff, judged_only=judged_only)
    if hasattr(metrics, "evaluate"):
        return metrics.evaluate(judged, name, judged_only=judged_only)
    raise UsageError(f"unknown measure {name!r}; known: nDCG, nDCG@k")


def run(args: argparse.Namespace) -> int:
    if args.out:
        check_output_path(args.out, "--out")
    judged = load_judged(args)
    gain, discount = parse_gain(args.gain), parse_discount(args.discount)
    frames = []
    for name in args.measure or ["nDCG@10"]:
        df = compute(judged, name, gain, discount, args.judged_only)
        if args.format == "long":
            long = df.stack().rename("score").reset_index()
            long.insert(2, "measure", name)
            frames.append(long)
        else:
            frames.append(df.add_prefix(f"{name}:") if len(args.measure or []) > 1 else df)
    out = pd.concat(frames, ignore_index=True) if args.format == "long" else pd.concat(frames, axis=1)
    target = args.out or sys.stdout
    if args.json:
        records = (out.reset_index() if args.format == "wide" else out).to_dict(orient="records")
        emit_json(records, args.out)  # NaN (--missing exclude) is written as null
    else:
        out.to_csv(target, index=args.format == "wide", float_format="%.10g")
    if args.out:
        print(f"wrote {len(out)} rows to {args.out}", file=sys.stderr)
    return 0
