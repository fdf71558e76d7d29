"""The certified optimality bound of the TREC-9 discount problems (docs/optimize.md, "How far from the global optimum?").

Tunes the monotone discount of nDCG@k (linear gains, 104 runs, 50 topics; ``optimize.optimize_discount`` defaults),
solves the Shor relaxation with SCS and certifies the bound from the dual (``optimize.solvers.certificate.certify``), then prints
one row of the table in docs/optimize.md and writes ``benchmarks/results/bound_trec9_k<k>.json``.

    OMP_NUM_THREADS=1 python benchmarks/bound_trec9.py --cutoff 10            # about 10 minutes on one core
    OMP_NUM_THREADS=1 python benchmarks/bound_trec9.py --cutoff 20 --max-iters 1500 --warm-seconds 600
    OMP_NUM_THREADS=1 python benchmarks/bound_trec9.py --cutoff 100 --method dual-search --seconds 2400

An SCS run stopped by ``--max-iters`` still gives a valid bound: the certificate charges the dual's infeasibility
(a looser bound, never a wrong one); ``--warm-seconds`` then improves its multipliers by ``dual_search``.
"""
from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np

import metrics
import optimize
from optimize.solvers import bound as B
from optimize.solvers import certificate as K
from optimize.solvers.objective import Problem

RESULTS = Path(__file__).resolve().parent / "results"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cutoff", type=int, required=True)
    ap.add_argument("--topics", type=int, default=50, help="the first N topics (default all 50)")
    ap.add_argument("--max-iters", type=int, default=20000)
    ap.add_argument("--eps", type=float, default=1e-7)
    ap.add_argument("--repair-iters", type=int, default=300, help="repair() steps after SCS (method sdp)")
    ap.add_argument("--warm-seconds", type=float, default=0.0,
                    help="method sdp: then run dual_search from SCS's multipliers (λ = tuned + 0.01) this long")
    ap.add_argument("--save", type=Path, help="also save the multipliers (npz) for re-certification")
    ap.add_argument("--method", choices=("sdp", "dual-search"), default="sdp",
                    help="sdp: SCS then certify its dual; dual-search: no SDP solve, optimize.solvers.certificate.dual_search")
    ap.add_argument("--seconds", type=float, default=3600, help="time budget of --method dual-search")
    ap.add_argument("--iters", type=int, default=100000, help="iteration limit of --method dual-search")
    args = ap.parse_args()
    j = metrics.load_trec9()
    if args.topics < len(j.topics):
        j = j.subset(topics=list(j.topics)[: args.topics])
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tuned = optimize.optimize_discount(j, gain="linear", cutoff=args.cutoff)
    t_tune = time.perf_counter() - t0
    p = Problem(j, args.cutoff, "discount", gain="linear")
    P, Q, active = K.quadratic_forms(p)
    C = K._topic_blocks(p)[1][active]
    scale = float(np.max(np.abs(Q)))
    P, Q = P / scale, Q / scale
    t0 = time.perf_counter()
    if args.method == "dual-search":
        status, relaxed, t_sdp, charge = "no SDP solve", float("nan"), 0.0, float("nan")
        bound, lam = K.dual_search(P, Q, C, tuned.fun, iters=args.iters, seconds=args.seconds,
                                   log=lambda line: print(line, flush=True))
        floor = K._denominator_floor(Q, C)
        t_cert = time.perf_counter() - t0
    else:
        status, relaxed, Z, mult, sel = B._solve(P, Q, C, "SCS", args.eps, args.max_iters, verbose=True)
        t_sdp = time.perf_counter() - t0
        if mult is None:
            raise SystemExit(f"SCS failed: {status}")
        if args.save:
            np.savez(args.save, P=P, Q=Q, C=C, Z=Z, lam=mult[0], mu0=mult[1], gamma=mult[2],
                     kappa=mult[3] if mult[3] is not None else np.zeros(0), N=mult[4])
        t0 = time.perf_counter()
        bound, charge, floor = K.certify(P, Q, C, K.dual_matrix(P, Q, C, *mult, sel), mult[0])
        repaired = K.certified_bound(P, Q, C, mult, sel, repair_iters=args.repair_iters)
        bound = min(bound, repaired)
        if args.warm_seconds > 0:
            searched = K.dual_search(P, Q, C, tuned.fun, start=tuned.fun + 0.01, iters=10**6,
                                     seconds=args.warm_seconds, warm=mult, sel=sel,
                                     log=lambda line: print(line, flush=True))[0]
            bound = min(bound, searched)
        t_cert = time.perf_counter() - t0
    row = dict(cutoff=args.cutoff, topics=len(j.topics), size=P.shape[0] + 1, method=args.method, status=status, tuned=tuned.fun,
               relaxed=relaxed, bound=bound, gap=bound - tuned.fun, charge=charge, floor=floor, seconds_tune=t_tune,
               seconds_sdp=t_sdp, seconds_certify=t_cert, max_iters=args.max_iters, scs_eps=args.eps)
    print(json.dumps(row, indent=1))
    how = "dual search (no SDP solve)" if args.method == "dual-search" else f"SCS ({status}) + certificate"
    print(f"| discount, nDCG@{args.cutoff}, {len(j.topics)} topics | {row['size']} | {how} | "
          f"{t_sdp + t_cert:.0f} s | {tuned.fun:.6f} | {relaxed:.6f} | {bound:.6f} | {bound - tuned.fun:.1e} |")
    RESULTS.mkdir(exist_ok=True)
    from gtheory.kit.jsonio import json_text

    json_text(row, str(RESULTS / f"bound_trec9_k{args.cutoff}_t{len(j.topics)}_{args.method}.json"))


if __name__ == "__main__":
    main()
