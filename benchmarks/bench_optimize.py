"""Benchmark: stability-optimal discount on TREC-9 — analytic vs finite-difference gradients, and 1000 ranks.

Run:  /work/venv/bin/python benchmarks/bench_optimize.py  [--out benchmarks/results/optimize.txt]

Side by side in one run, on the embedded TREC-9 Web runs (104 systems x 50 topics), gains 0/1/2:

1. nDCG@100 discount, SLSQP (default increments form, and the paper's literal Fig. 1 form) from the log2 start: exact gradient
   (``jac=True``) vs SciPy's two-point finite differences (``jac=None``), same options. Reports
   wall time (best of ``--repeat``), evaluations and the Φ(1) reached.
2. The same problem with L-BFGS-B on the increments parametrisation and with the cvxpy solver.
3. nDCG@1000 (1000 variables): ``optimize.optimize_discount`` with its defaults (4 starts, L-BFGS-B).
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import scipy

import metrics
import optimize
from optimize.cvx import solve_cvx
from optimize.objective import Problem
from optimize.slsqp import solve_lbfgsb, solve_slsqp


def timed(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    lines = [
        "bench_optimize: stability-optimal nDCG discount on TREC-9 (104 systems x 50 topics, gains 0/1/2)",
        f"python {sys.version.split()[0]}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"{platform.machine()}, {os.cpu_count()} cores",
        "",
    ]
    j = metrics.load_trec9()
    p = Problem(j, 100, "discount", gain=[0, 1, 2])
    x0 = p.normalise(metrics.discount_vector("log2", 100))
    t_an, r_an = timed(lambda: solve_slsqp(p, x0, formulation="increments"), args.repeat)
    t_fd, r_fd = timed(lambda: solve_slsqp(p, x0, jac=False, formulation="increments"), 1 if args.repeat < 2 else 2)
    t_anp, r_anp = timed(lambda: solve_slsqp(p, x0, formulation="paper"), args.repeat)
    t_fdp, r_fdp = timed(lambda: solve_slsqp(p, x0, jac=False, formulation="paper"), 1 if args.repeat < 2 else 2)
    t_lb, r_lb = timed(lambda: solve_lbfgsb(p, x0), args.repeat)
    t_cv, r_cv = timed(lambda: solve_cvx(p, x0), 1)
    lines.append("nDCG@100 discount (100 variables), start log2:")
    lines.append(f"  {'solver':<34}{'seconds':>9}{'evals':>8}{'Phi(1) reached':>20}{'Phi(50)':>9}  converged")
    for name, t, r in [("SLSQP increments, exact gradient", t_an, r_an), ("SLSQP increments, finite diff.", t_fd, r_fd),
                       ("SLSQP paper form, exact gradient", t_anp, r_anp),
                       ("SLSQP paper form, finite diff.", t_fdp, r_fdp),
                       ("L-BFGS-B on increments, exact", t_lb, r_lb), ("cvxpy SCP (Clarabel QPs)", t_cv, r_cv)]:
        phi50 = 50 * (r.fun / (1 - r.fun)) / (1 + 50 * r.fun / (1 - r.fun))
        lines.append(f"  {name:<34}{t:9.3f}{r.nfev:8d}{r.fun:20.14f}{phi50:9.5f}  {r.success}")
    lines.append(f"  speed-up exact vs finite-difference SLSQP (increments form): {t_fd / t_an:.1f}x "
                 f"(Phi(1) difference exact - fd = {r_an.fun - r_fd.fun:+.2e})")
    lines.append(f"  speed-up exact vs finite-difference SLSQP (paper Fig. 1 form, the default): {t_fdp / t_anp:.1f}x "
                 f"(Phi(1) difference exact - fd = {r_anp.fun - r_fdp.fun:+.2e})")
    lines.append("")
    t0 = time.perf_counter()
    t = optimize.optimize_discount(j, [0, 1, 2], 1000)
    el = time.perf_counter() - t0
    lines.append("nDCG@1000 discount (1000 variables), optimize.optimize_discount defaults "
                 f"({t.solver}, {t.starts} starts):")
    lines.append(f"  {el:.2f} s total, {t.nfev} evaluations, {t.n_agree}/{t.starts} starts agree within "
                 f"{t.agree_tol:g}, Phi(1) = {t.phi_1:.12f}, Phi(50) = {t.phi:.5f}, converged: {t.success}")
    lines.append(f"  start values: " + ", ".join(f"{k} {v:.12f}" for k, v in t.start_values.items()))
    text = "\n".join(lines)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
