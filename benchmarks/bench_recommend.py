"""Benchmark: ``optimize.recommend`` on the embedded TREC-9 Web runs (all 104 systems x 50 topics).

Run:  python benchmarks/bench_recommend.py  [--repeat 5] [--out benchmarks/results/recommend.txt]

The issue's budget is 60 s for ``recommend`` at cut-off 100 on TREC-9 on 2 cores. Side by side, same data,
same process, ``--repeat`` runs each (in turn, so a slow spell of the machine hits all alike), CPU and wall
seconds, median with min–max:

1. ``recommend(judged, 100, what="discount")`` with its defaults (10 outer x 4 inner halvings, 5 families,
   3 regularised vectors) — the budgeted call;
2. the same at cut-off 10 and for the gains;
3. for scale, one ``optimize.cross_validate`` (10 splits, 2 starts: a single tuned candidate, no inner
   selection) at cut-off 100 — the ratio says what the nested procedure costs relative to the check it replaces.
"""
from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

import metrics
import optimize


def run(fns: dict, repeat: int) -> dict:
    times = {k: ([], []) for k in fns}
    for _ in range(repeat):
        for k, fn in fns.items():
            c, w = time.process_time(), time.perf_counter()
            fn()
            times[k][0].append(time.process_time() - c)
            times[k][1].append(time.perf_counter() - w)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    j = metrics.load_trec9()
    fns = {
        "recommend discount@100 (budget 60 s)": lambda: optimize.recommend(j, 100, progress=False),
        "recommend discount@10": lambda: optimize.recommend(j, 10, progress=False),
        "recommend gain@100": lambda: optimize.recommend(j, 100, what="gain", progress=False),
        "cross_validate discount@100 (10 splits, 2 starts)": lambda: optimize.cross_validate(j, cutoff=100),
    }
    times = run(fns, args.repeat)
    lines = [f"optimize.recommend on TREC-9 ({j.n_systems} systems x {j.n_topics} topics); {args.repeat} runs each",
             f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
             f"Python {platform.python_version()}, NumPy {np.__version__}",
             f"{'call':<52} {'CPU s median [min-max]':>26} {'wall s median [min-max]':>26}"]
    base = np.median(times["cross_validate discount@100 (10 splits, 2 starts)"][1])
    for k, (cpu, wall) in times.items():
        lines.append(f"{k:<52} {np.median(cpu):>8.2f} [{min(cpu):.2f}-{max(cpu):.2f}]      "
                     f"{np.median(wall):>8.2f} [{min(wall):.2f}-{max(wall):.2f}]   x{np.median(wall) / base:.2f} wall "
                     "of cross_validate")
    rec = optimize.recommend(j, 100, progress=False)
    lines.append(f"verdict at nDCG@100: {rec.verdict}")
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    main()
