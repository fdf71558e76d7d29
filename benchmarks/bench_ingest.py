"""Ingest benchmark: building the judged-grade tensor from .xz runs vs parsing the same files with pytrec_eval.

The alternative a user would pick: open each run with ``lzma.open`` and call ``pytrec_eval.parse_run`` (dicts of
dicts), plus ``pytrec_eval.parse_qrel``. Both sides are measured in one run, on the same files, best of ``--repeat``.
Writes the table to benchmarks/results/ingest.txt.

    python benchmarks/bench_ingest.py [--data ../shared/data/trec9-web-wt10g] [--repeat 2]
"""
from __future__ import annotations

import argparse
import lzma
import os
import platform
import time
from pathlib import Path

import pytrec_eval

import metrics

HERE = Path(__file__).resolve().parent
DEFAULT = HERE.parents[1] / "shared" / "data" / "trec9-web-wt10g"


def pytrec_parse(files, qrels_path):
    with open(qrels_path) as fh:
        pytrec_eval.parse_qrel(fh)
    out = {}
    for f in files:
        with lzma.open(f, "rt") as fh:
            out[f] = pytrec_eval.parse_run(fh)
    return out


def ours(files, qrels_path):
    return metrics.judge(files, qrels_path, depth=1000)


def best(fn, *args, repeat=2):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    files = sorted((args.data / "runs_full_xz").iterdir())
    qrels = next(args.data.glob("qrels*"))
    t_ref = best(pytrec_parse, files, qrels, repeat=args.repeat)
    t_ours = best(ours, files, qrels, repeat=args.repeat)
    j = ours(files, qrels)
    lines = [
        f"# ingest benchmark ({platform.python_version()}, {os.cpu_count()} CPUs, {time.strftime('%Y-%m-%d')})",
        f"data: {args.data.name}: {len(files)} runs, tensor {j.shape}",
        f"pytrec_eval parse_run + parse_qrel into dicts (lzma.open, 1 thread): {t_ref:8.2f} s",
        f"metrics.judge(files, qrels) -> JudgedRuns ({os.cpu_count()} worker processes): {t_ours:8.2f} s",
        f"ratio pytrec_eval / ours: {t_ref / t_ours:.2f}x",
    ]
    text = "\n".join(lines)
    print(text)
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "ingest.txt").write_text(text + "\n")


if __name__ == "__main__":
    main()
