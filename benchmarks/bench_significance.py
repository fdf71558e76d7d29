"""Significance benchmark: the vectorised Sakai bootstrap vs the per-pair loop a user would write.

Workload (the issue's target, <= 2 s on a 2-core machine): 100 systems (4,950 pairs) x 50 topics x
B = 1000 replicates -- the first 100 systems and first 50 topics of the TREC 2004 Robust AP matrix in
../shared/data/score-matrices/sigir2018-simulation (random data if that is missing).

The loop baseline is what one writes from Sakai (2006) with NumPy: for each pair, resample the
centred differences with the same ``idx`` matrix (``w[idx]``, B x n) and compute B t-statistics at
once. Both sides run once, on the same data and the same seed; the script checks they give identical
ASLs and prints the ratio. Also timed once: discriminative_power (adds Sakai's estimated difference),
the randomised Tukey HSD (B = 1000), paired t-test, Wilcoxon, and the swap method (5 topic-set sizes,
B = 1000). Writes the table to benchmarks/results/significance.txt.

    python benchmarks/bench_significance.py [--systems 100] [--topics 50] [--B 1000]
"""
from __future__ import annotations

import argparse
import math
import os
import platform
import time
from pathlib import Path

import numpy as np
import pandas as pd

from experiments import (
    bootstrap_asl,
    discriminative_power,
    paired_ttest,
    swap_rates,
    tukey_hsd_randomised,
    wilcoxon_test,
)

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1] / "shared" / "data" / "score-matrices" / "sigir2018-simulation" / "robust2004_ap.csv"


def load(systems: int, topics: int) -> tuple[np.ndarray, str]:
    if DATA.exists():
        frame = pd.read_csv(DATA).set_index("topic").T  # systems x topics
        if frame.shape[0] >= systems and frame.shape[1] >= topics:
            return frame.iloc[:systems, :topics].to_numpy(), f"{DATA.name} (first {systems} systems, {topics} topics)"
    rng = np.random.default_rng(0)
    return rng.random((systems, topics)) * 0.5 + rng.random((systems, 1)) * 0.3, "random"


def per_pair_loop(scores: np.ndarray, B: int, seed: int) -> np.ndarray:
    m, n = scores.shape
    idx = np.random.default_rng(seed).integers(0, n, size=(B, n))
    asl = []
    for i in range(m):
        for j in range(i + 1, m):
            z = scores[i] - scores[j]
            w = z - z.mean()
            wb = w[idx]  # B x n bootstrap samples of the shifted differences
            with np.errstate(divide="ignore", invalid="ignore"):  # identical runs give 0/0
                t = z.mean() / (z.std(ddof=1) / math.sqrt(n))
                tb = wb.mean(axis=1) / (wb.std(axis=1, ddof=1) / math.sqrt(n))
            asl.append(np.mean(np.abs(tb) >= abs(t)))
    return np.array(asl)


def timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t0, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", type=int, default=100)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--B", type=int, default=1000)
    args = ap.parse_args()
    scores, source = load(args.systems, args.topics)
    m, n = scores.shape
    pairs = m * (m - 1) // 2
    bootstrap_asl(scores[:3], B=10)  # import/warm-up outside the timings

    t_ours, table = timed(bootstrap_asl, scores, B=args.B, seed=0)
    t_loop, asl_loop = timed(per_pair_loop, scores, args.B, 0)
    # the loop's t is 0/0 = NaN for identical runs (ASL 0); bootstrap_asl defines t = 0, ASL = 1 there
    degenerate = ~np.isfinite(table["t"].to_numpy()) | (table["t"].to_numpy() == 0)
    same = np.array_equal(table["asl"].to_numpy()[~degenerate], asl_loop[~degenerate])
    t_dp, dp = timed(discriminative_power, scores, alpha=0.05, B=args.B, seed=0)
    t_tukey, _ = timed(tukey_hsd_randomised, scores, B=args.B, seed=0)
    t_t, _ = timed(paired_ttest, scores)
    t_w, _ = timed(wilcoxon_test, scores)
    t_swap, _ = timed(swap_rates, scores, B=args.B, seed=0)

    lines = [
        f"# significance benchmark (Python {platform.python_version()}, NumPy {np.__version__}, "
        f"{os.cpu_count()} CPUs, {time.strftime('%Y-%m-%d')})",
        f"data: {source}: {m} systems ({pairs} pairs) x {n} topics, B = {args.B}; one run each",
        f"per-pair loop (NumPy over B inside, as a user would write): {t_loop:8.3f} s",
        f"experiments.bootstrap_asl (vectorised over pairs and B):    {t_ours:8.3f} s",
        f"ratio loop / vectorised: {t_loop / t_ours:.1f}x; identical ASLs: {same} "
        f"(all but {int(degenerate.sum())} degenerate pairs: identical runs); target <= 2 s: "
        f"{'met' if t_ours <= 2 else 'MISSED'}",
        f"discriminative_power (ASL + Sakai's estimated difference):  {t_dp:8.3f} s "
        f"(power {dp.power:.3f}, estimated difference {dp.estimated_difference:.3f})",
        f"tukey_hsd_randomised (B = {args.B}):                        {t_tukey:8.3f} s",
        f"paired_ttest (scipy.stats.ttest_rel, axis=1):               {t_t:8.3f} s",
        f"wilcoxon_test (scipy.stats.wilcoxon, axis=1):               {t_w:8.3f} s",
        f"swap_rates (default sizes, B = {args.B}):                   {t_swap:8.3f} s",
    ]
    text = "\n".join(lines)
    print(text)
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "significance.txt").write_text(text + "\n")


if __name__ == "__main__":
    main()
