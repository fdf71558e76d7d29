"""Benchmark: topic_set_size and plan on the whole grid of issue 34, exact and Nagata, each call timed.

Run:  python benchmarks/bench_plan_grid.py  [--quick] [--out benchmarks/results/plan_grid.txt]

The grid: α ∈ {.05, .01} × power ∈ {.8, .9} × min_diff ∈ {.02, .05, .1, .5, 1.5} × σ² ∈ {1e-6, .004, .01, .02, .05}
(100 cells). For each cell: ``topic_set_size`` for the paired t-test, the two-sample t-test and the ANOVA of 3 and
10 systems, exact and Nagata (800 calls), and ``plan`` on a 10 × 30 pilot whose residual variance V_E is exactly
σ² (all 7 rows, each test row three times for its interval), exact and Nagata (200 calls). Reported: the slowest
and the median call of each, and how many exact sizes differ from R's smallest n (the integer search of
tests/test_gtheory_topics_topic_set_size.py on R's own powers, one Rscript call; skipped without Rscript). The test suite
runs the topic_set_size grid and a thinned plan grid; this script is the whole plan grid, too slow for CI (~10 s).
"""
from __future__ import annotations

import math
import shutil
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _timing import finish, header, one_core, parser  # noqa: E402

import gtheory  # noqa: E402


def pilot(v: float, seed: int = 0, m: int = 10, n: int = 30) -> np.ndarray:
    """A pilot whose V_E is exactly ``v`` (as tests/test_gtheory_topics_plan.py builds it)."""
    rng = np.random.default_rng(seed)
    e = rng.normal(size=(m, n))
    e -= e.mean(axis=1, keepdims=True)
    e -= e.mean(axis=0, keepdims=True)
    e *= math.sqrt(v / (np.sum(e**2) / ((m - 1) * (n - 1))))
    return 0.4 + np.linspace(-0.2, 0.2, m)[:, None] + rng.normal(0, 0.15, (1, n)) + e


def main(argv: list[str] | None = None) -> int:
    from test_gtheory_topics_topic_set_size import GRID, GRID_M, _R_GRID  # the grid and R's integer search, once

    args = parser(__doc__.splitlines()[0], repeat=1).parse_args(argv)
    grid = GRID[:10] if args.quick else GRID
    lines = header("topic_set_size and plan on the grid of issue 34 (benchmarks/bench_plan_grid.py)", args)
    lines[2] = "timing: every call once (wall seconds, perf_counter), after one warm-up call; BLAS limited to 1 thread"
    r_rows = None
    if shutil.which("Rscript"):
        cells = ", ".join(f"c({a}, {p}, {d}, {v})" for a, p, d, v in grid)
        out = subprocess.run(["Rscript", "-e", _R_GRID % (cells, ", ".join(map(str, GRID_M)))], capture_output=True,
                             text=True, timeout=600, check=True).stdout
        r_rows = [[float(x) for x in line.split()] for line in out.strip().splitlines()]
    methods = [("paired-t", None), ("two-sample-t", None)] + [("anova", m) for m in GRID_M]
    times: dict[str, list[float]] = {"topic_set_size exact": [], "topic_set_size nagata": [], "plan exact": [],
                                     "plan nagata": []}
    differ = nagata_t_differ = 0
    nagata_anova_rel = 0.0
    with one_core(), warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
        gtheory.plan(pilot(0.02), min_diff=0.05)  # warm-up: imports
        for k, (a, p, d, v) in enumerate(grid):
            for j, (method, m) in enumerate(methods):
                for approximation in ("exact", "nagata"):
                    t0 = time.perf_counter()
                    res = gtheory.topic_set_size(v, method=method, min_diff=d, alpha=a, power=p, n_systems=m,
                                                 approximation=approximation)
                    times[f"topic_set_size {approximation}"].append(time.perf_counter() - t0)
                    if r_rows is not None:
                        n_r = r_rows[k][j]
                        if approximation == "exact":
                            differ += res.n != n_r
                        elif method == "anova":
                            if abs(res.n - n_r) > 1:  # beyond one topic: relative
                                nagata_anova_rel = max(nagata_anova_rel, abs(res.n - n_r) / n_r)
                        else:
                            nagata_t_differ += res.n != n_r
            x = pilot(v)
            for approximation in ("exact", "nagata"):
                t0 = time.perf_counter()
                gtheory.plan(x, min_diff=d, alpha=a, power=p, approximation=approximation)
                times[f"plan {approximation}"].append(time.perf_counter() - t0)
    lines.append(f"{'function':<24} {'calls':>6} {'median':>10} {'slowest':>10}")
    for name, ts in times.items():
        lines.append(f"{name:<24} {len(ts):>6} {statistics.median(ts) * 1e3:>8.2f}ms {max(ts) * 1e3:>8.2f}ms")
    lines.append("")
    if r_rows is None:
        lines.append("R not installed: no comparison")
    else:
        total = len(grid) * len(methods)
        lines.append(f"exact sizes different from R's smallest n: {differ} of {total}; Nagata t-test sizes different "
                     f"from R's: {nagata_t_differ} of {2 * len(grid)}; Nagata ANOVA sizes: within 1 topic or "
                     f"{100 * nagata_anova_rel:.1f} % of R's (Sakai's tabulated λ)")
    finish("plan_grid", lines, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
