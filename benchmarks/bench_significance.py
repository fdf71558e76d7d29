"""Significance benchmark: Sakai's bootstrap ASL over all system pairs against its floor and the per-pair loop.

    python benchmarks/bench_significance.py [--quick] [--repeat 5] [--n-resamples 1000]

Workloads: TREC-9 nDCG@100 (metrics.load_trec9(): 104 systems = 5,356 pairs x 50 topics) and the first 100 systems x
50 topics of the TREC 2004 Robust AP matrix (4,950 pairs). B = 1000 replicates, seed 0.

The floor. For every pair p and replicate b the test needs s1 = sum of the resampled centred differences w* and
s2 = sum of their squares: with C the B x n matrix of how often each topic was drawn, s1 = C W^T and s2 = C (W o W)^T,
two (B x n) @ (n x P) products = 4 B n P flops (1.07 GFLOP for TREC-9). The floor is the time of exactly those
products on this machine, at the same BLAS threads (1), at the best of three blockings (all pairs at once, 128 or
256 pairs per block); whatever bootstrap_asl spends beyond it is the O(B P) test on the sums, the setup and the
result table.

The per-pair loop is what a user writes from Sakai (2006) with NumPy (B t-statistics per pair at once, the same
resampled topics); it must give identical ASLs. Every other test is timed too (median of the repetitions).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import DATA, finish, header, measure, one_core, parser, ratio  # noqa: E402

import metrics  # noqa: E402
from experiments import (  # noqa: E402
    bootstrap_asl,
    discriminative_power,
    paired_ttest,
    swap_rates,
    tukey_hsd_randomised,
    wilcoxon_test,
)

ROBUST = DATA / "score-matrices" / "sigir2018-simulation" / "robust2004_ap.csv"


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
            asl.append(np.mean(np.abs(tb) >= abs(t) * (1 - 1e-9)))  # ties up to rounding count (as bootstrap_asl)
    return np.array(asl)


def floor_products(n: int, P: int, B: int, repeat: int):
    """Time of the two products C W^T and C (W o W)^T alone, best blocking; returns (Timing, blocking)."""
    rng = np.random.default_rng(0)
    C = rng.integers(0, 3, (B, n)).astype(np.float64)
    W = rng.random((P, n))
    W2 = W * W
    CT = np.ascontiguousarray(C.T)

    def blocked(block):
        def run():
            for s in range(0, P, block):
                W[s:s + block] @ CT
                W2[s:s + block] @ CT
        return run

    t = measure({"all pairs at once": lambda: (C @ W.T, C @ W2.T), "128 per block": blocked(128),
                 "256 per block": blocked(256)}, repeat=repeat)
    best = min(t, key=lambda k: t[k].cpu_med)
    return t[best], best


def workload(name: str, scores: np.ndarray, B: int, args, lines: list[str], loop: bool) -> None:
    m, n = scores.shape
    P = m * (m - 1) // 2
    table = bootstrap_asl(scores, n_resamples=B, seed=0)
    floor, blocking = floor_products(n, P, B, args.repeat)
    fns = {"ours": lambda: bootstrap_asl(scores, n_resamples=B, seed=0)}
    if loop:
        fns["loop"] = lambda: per_pair_loop(scores, B, 0)
    t = measure(fns, repeat=args.repeat)
    flops = 4 * B * n * P
    lines += [
        f"{name}: {m} systems ({P} pairs) x {n} topics, B = {B}",
        f"  floor: the products C W^T, C (W o W)^T = 4 B n P = {flops / 1e9:.2f} GFLOP, alone ({blocking}): "
        f"{floor.text()}  = {flops / floor.cpu_med / 1e9:.1f} GFLOP/s",
        f"  experiments.bootstrap_asl (whole call, incl. table):      {t['ours'].text()}",
        f"  bootstrap_asl / floor: {t['ours'].cpu_med / floor.cpu_med:.2f}x CPU, "
        f"{t['ours'].wall_med / floor.wall_med:.2f}x wall (target <= 1.5x)",
    ]
    if loop:
        asl_loop = per_pair_loop(scores, B, 0)
        tv = table["t"].to_numpy()
        degenerate = ~np.isfinite(tv) | (tv == 0)  # the loop's t is 0/0 = NaN for identical runs
        same = np.array_equal(table["asl"].to_numpy()[~degenerate], asl_loop[~degenerate])
        lines += [
            f"  per-pair loop (NumPy over B inside, as a user writes it): {t['loop'].text()}",
            f"  ratio loop / bootstrap_asl: {ratio(t['loop'], t['ours'])}; identical ASLs: {same} "
            f"(all but {int(degenerate.sum())} degenerate pairs: identical runs)",
        ]
    lines.append("")


def main(argv: list[str] | None = None) -> None:
    ap = parser(__doc__)
    ap.add_argument("--n-resamples", dest="B", type=int, default=1000, metavar="B")
    args = ap.parse_args(argv)
    if args.quick:
        args.repeat = min(args.repeat, 3)
    lines = header("significance benchmark (benchmarks/bench_significance.py)", args)
    j = metrics.load_trec9()
    trec9 = metrics.ndcg(j, gain=[0, 1, 2], discount="log2", cutoff=100).to_numpy()
    if args.quick:
        trec9 = trec9[:40]
    robust = None
    if ROBUST.exists():
        frame = pd.read_csv(ROBUST).set_index("topic").T  # systems x topics
        robust = frame.iloc[:100, :50].to_numpy()
    with one_core():
        workload("TREC-9 nDCG@100", trec9, args.B, args, lines, loop=not args.quick)
        if robust is not None and not args.quick:
            workload("Robust 2004 AP (first 100 systems, 50 topics)", robust, args.B, args, lines, loop=False)
        s = trec9
        others = measure({
            "dp": lambda: discriminative_power(s, alpha=0.05, n_resamples=args.B, seed=0),
            "tukey": lambda: tukey_hsd_randomised(s, n_resamples=args.B, seed=0),
            "t": lambda: paired_ttest(s),
            "w": lambda: wilcoxon_test(s),
            "swap": lambda: swap_rates(s, n_resamples=args.B, seed=0),
        }, repeat=args.repeat)
    dp = discriminative_power(s, alpha=0.05, n_resamples=args.B, seed=0)
    lines += [
        f"Other tests on TREC-9 nDCG@100 ({s.shape[0]} systems), B = {args.B}:",
        f"  discriminative_power (ASL + Sakai's estimated difference) {others['dp'].text()}  "
        f"(power {dp.power:.3f}, estimated difference {dp.estimated_difference:.3f})",
        f"  tukey_hsd_randomised                                      {others['tukey'].text()}",
        f"  paired_ttest (scipy.stats.ttest_rel, axis=1)              {others['t'].text()}",
        f"  wilcoxon_test (scipy.stats.wilcoxon, axis=1)              {others['w'].text()}",
        f"  swap_rates (default sizes)                                {others['swap'].text()}",
    ]
    finish("significance", lines, args)


if __name__ == "__main__":
    main()
