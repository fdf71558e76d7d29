"""Per-configuration nDCG benchmark: metrics.ndcg on the judged tensor vs pytrec_eval ndcg_cut on parsed runs.

Both sides start from data already in memory (pytrec_eval: the parsed run and qrels dicts;
ours: the JudgedRuns tensor built once) and compute nDCG@100 for every system and topic of TREC-9 (104 runs × 50
topics). One configuration = one gain vector + one discount; for pytrec_eval a new gain vector means new qrels
(trec_eval takes the grade as the gain), so its per-configuration cost includes building the evaluator.
Measured side by side in one run, best of ``--repeat``; writes benchmarks/results/ndcg.txt.

    python benchmarks/bench_ndcg.py [--repeat 3]
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
DATA = HERE.parents[1] / "shared" / "data" / "trec9-web-wt10g"


def best(fn, repeat):
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    files = sorted((DATA / "runs_full_xz").iterdir())
    with open(DATA / "qrels.trec9.web.451-500.txt") as fh:
        qrel = pytrec_eval.parse_qrel(fh)
    runs = []
    for f in files:
        with lzma.open(f, "rt") as fh:
            runs.append(pytrec_eval.parse_run(fh))
    judged = metrics.judge(files, DATA / "qrels.trec9.web.451-500.txt")

    def ref_same_gain():
        ev = pytrec_eval.RelevanceEvaluator(qrel, {"ndcg_cut.100"})
        for r in runs:
            ev.evaluate(r)

    def ref_new_gain():
        q = {t: {d: (0, 1, 3)[g] if g >= 0 else g for d, g in docs.items()} for t, docs in qrel.items()}
        ev = pytrec_eval.RelevanceEvaluator(q, {"ndcg_cut.100"})
        for r in runs:
            ev.evaluate(r)

    def ours_log():
        metrics.ndcg(judged, gain=[0, 1, 2], discount="log2", cutoff=100)

    def ours_new_gain():
        metrics.ndcg(judged, gain=[0, 1, 3], discount="zipf", cutoff=100)

    t_ref = best(ref_same_gain, args.repeat)
    t_ref_g = best(ref_new_gain, args.repeat)
    t_ours = best(ours_log, args.repeat)
    t_ours_g = best(ours_new_gain, args.repeat)
    lines = [
        f"# nDCG per-configuration benchmark ({platform.python_version()}, {os.cpu_count()} CPUs, {time.strftime('%Y-%m-%d')})",
        f"TREC-9: {len(files)} runs x 50 topics, nDCG@100, data in memory on both sides",
        f"pytrec_eval ndcg_cut.100 (build evaluator, evaluate 104 runs):     {t_ref * 1e3:9.1f} ms",
        f"pytrec_eval with a new gain vector (remapped qrels + evaluator):    {t_ref_g * 1e3:9.1f} ms",
        f"metrics.ndcg(gain=[0,1,2], discount='log2', cutoff=100):            {t_ours * 1e3:9.1f} ms",
        f"metrics.ndcg(gain=[0,1,3], discount='zipf', cutoff=100):            {t_ours_g * 1e3:9.1f} ms",
        f"ratio (same gain)  pytrec_eval / ours: {t_ref / t_ours:7.1f}x",
        f"ratio (new gain)   pytrec_eval / ours: {t_ref_g / t_ours_g:7.1f}x",
    ]
    text = "\n".join(lines)
    print(text)
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "ndcg.txt").write_text(text + "\n")


if __name__ == "__main__":
    main()
