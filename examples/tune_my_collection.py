"""Derive a stability-tuned nDCG configuration for a collection, save it, and evaluate with it.

    python examples/tune_my_collection.py                         # the embedded TREC-9 Web data
    python examples/tune_my_collection.py RUNS_DIR QRELS --cutoff 20 --out tuning.json
    python examples/tune_my_collection.py --quick                 # CI: nDCG@20, one optimiser start

Steps (Kanoulas & Aslam, CIKM 2009): judge the runs; tune the discount of nDCG@k for stability (Φ) on half the
topics; save the tuning as JSON; read it back and evaluate it, next to the usual log2 discount, on the held-out
half (an honest comparison: the tuning never saw those topics); compare the system rankings (Kendall τ).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import experiments
import gtheory
import metrics
import optimize


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="?", help="directory of TREC run files (default: the embedded TREC-9 Web tensor)")
    p.add_argument("qrels", nargs="?", help="TREC qrels file (with RUNS)")
    p.add_argument("--cutoff", type=int, default=100, help="nDCG cut-off k (default 100, as in the paper)")
    p.add_argument("--gain", default="linear", help="gain family kept fixed while the discount is tuned")
    p.add_argument("--out", default=None, help="where to write the tuning JSON (default: a temporary file)")
    p.add_argument("--quick", action="store_true", help="nDCG@20 and one optimiser start (for CI)")
    args = p.parse_args(argv)
    if (args.runs is None) != (args.qrels is None):
        p.error("give both RUNS and QRELS, or neither (the embedded TREC-9 data)")
    cutoff, starts = (20, 1) if args.quick else (args.cutoff, 2)
    t0 = time.perf_counter()

    # 1. the judged-grade tensor: systems x topics x ranks
    judged = metrics.load_trec9() if args.runs is None else metrics.judge(args.runs, args.qrels)
    print(f"data: {judged.n_systems} systems x {judged.n_topics} topics, grades {judged.levels.tolist()}")

    # 2. tune the discount on half of the topics (every other topic)
    train = judged.subset(topics=list(range(0, judged.n_topics, 2)))
    test = judged.subset(topics=list(range(1, judged.n_topics, 2)))
    tuning = optimize.optimize_discount(train, gain=args.gain, cutoff=cutoff, starts=starts)
    print(tuning.summary())

    # 3. save it as JSON and read it back (what you would keep with your evaluation scripts)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp()) / "tuning.json"
    tuning.to_json(str(out))
    loaded = optimize.Tuning.from_json(str(out))
    print(f"\nsaved the tuning to {out} ({out.stat().st_size} bytes)")

    # 4. evaluate on the held-out topics: tuned vs the standard log2 discount
    standard = metrics.ndcg(test, gain=args.gain, discount="log2", cutoff=cutoff)
    tuned = loaded.ndcg(test)
    g_std, g_tuned = gtheory.gstudy(standard), gtheory.gstudy(tuned)
    n = test.n_topics
    print(f"\nheld-out topics ({n}): nDCG@{cutoff}")
    print(f"  {'discount':<8} {'Phi(' + str(n) + ')':>9} {'Erho2':>7} {'topics for Phi>=0.95':>21}")
    for name, g in (("log2", g_std), ("tuned", g_tuned)):
        print(f"  {name:<8} {g.phi(n):9.4f} {g.erho2(n):7.4f} {g.topics_needed(0.95).n:>21}")
    tau = experiments.kendall_tau(standard.mean(axis=1), tuned.mean(axis=1))
    print(f"  Kendall tau between the two system rankings: {tau:.3f}")
    print(f"done in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
