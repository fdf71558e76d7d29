"""Comparison benchmark: Fisher's randomisation test over all pairs of runs, experiments.compare against ranx.

    pip install ranx                      # the alternative (it brings numba)
    python benchmarks/bench_compare.py [--quick] [--repeat 5]
    python benchmarks/bench_compare.py --corrected [--repeat 7]     # the corrected table only

``--corrected``: the cost of a multiple-comparison correction (issue: a corrected table should cost what an
uncorrected one does). The 8 best TREC-9 runs by nDCG@10 (28 pairs) x 50 topics, Fisher's randomisation test with
1,000 permutations: ``compare(..., correction="holm")`` against the same call without a correction, and against
ranx's ``compute_statistical_significance(..., "fisher", 1000)`` on the same runs (ranx offers no correction, so its
side is the uncorrected test: the comparison is generous to ranx). Result in benchmarks/results/compare_corrected.txt.

The work: the per-topic nDCG@10 of the TREC-9 Web runs (metrics.load_trec9(), 50 topics, trec_eval's scores), every
pair of runs tested with Fisher's paired randomisation test with 10,000 permutations, p-values out.

* gtheory: ``experiments.compare(scores, test="randomization", n_resamples=10000)`` (all pairs: one shared
  matrix of random signs, one matrix product per block of pairs; p = (k+1)/(B+1)).
* ranx: ``ranx.statistical_tests.compute_statistical_significance(names, scores, "fisher", 10000)`` — exactly what
  ``ranx.compare(qrels, runs, metrics, stat_test="fisher", n_permutations=10000)`` runs after evaluating the runs
  (it tests every ordered pair, i.e. each pair twice, as ranx.compare does). numba's JIT compilation is a one-time
  cost of each new process (ranx caches it on disk, ``cache=True``): timed apart, as "first call".

Same cores: numba is limited to one thread (NUMBA_NUM_THREADS=1, set before ranx is imported) and BLAS to one thread
on both sides. Workloads: the 30 best runs (435 pairs) on both sides with the full repetitions; all 104 runs (5,356
pairs) with the full repetitions for gtheory and one ranx call (a ranx call takes minutes there).
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # before numba is imported: the same single core on both sides

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import Timing, finish, header, measure, one_core, parser, ratio  # noqa: E402

import metrics  # noqa: E402
from experiments import compare  # noqa: E402

B = 10_000


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


def _ranx_side(scores):
    from ranx.statistical_tests import compute_statistical_significance

    names = [str(s) for s in scores.index]
    table = {name: {"ndcg@10": scores.loc[name].to_numpy(dtype=np.float64)} for name in names}
    return lambda: compute_statistical_significance(names, table, "fisher", B, 0.05, 42)


def _ranx_fisher(scores, n_permutations):
    from ranx.statistical_tests import compute_statistical_significance

    names = [str(s) for s in scores.index]
    table = {name: {"ndcg@10": scores.loc[name].to_numpy(dtype=np.float64)} for name in names}
    return lambda: compute_statistical_significance(names, table, "fisher", n_permutations, 0.05, 42)


def corrected(args) -> None:
    lines = header("corrected-table benchmark (benchmarks/bench_compare.py --corrected)", args)
    judged = metrics.load_trec9()
    scores = metrics.evaluate(judged, ["nDCG@10"])["nDCG@10"]
    top = scores.loc[scores.mean(axis=1).sort_values(ascending=False).index[:8]]
    perms = 1000
    fns = {"none": lambda: compare(top, test="randomization", n_resamples=perms, seed=0),
           "holm": lambda: compare(top, test="randomization", n_resamples=perms, seed=0, correction="holm")}
    try:
        import ranx  # noqa: F401
        have_ranx = True
    except ImportError:
        have_ranx = False
        lines.append("ranx is not installed (pip install ranx): its side is skipped")
    with one_core():
        if have_ranx:
            import numba

            lines.append(f"numba {numba.__version__}, NUMBA_NUM_THREADS={os.environ['NUMBA_NUM_THREADS']}; "
                         f"ranx {_version('ranx')}")
            fns["ranx"] = _ranx_fisher(top, perms)
            fns["ranx"]()  # numba's JIT compilation (or its on-disk cache), not timed
        # the order of the interleaved contenders matters at the millisecond scale (the first of each round pays for
        # what the previous round left, ranx's allocations): half the rounds in each order, pooled
        t = measure(fns, repeat=(args.repeat + 1) // 2)
        swapped = measure({k: fns[k] for k in ("holm", "none", *(["ranx"] if have_ranx else []))},
                          repeat=args.repeat // 2)
        for k in t:
            t[k].cpu.extend(swapped[k].cpu)
            t[k].wall.extend(swapped[k].wall)
    lines += [f"TREC-9 nDCG@10, 8 best runs (28 pairs) x 50 topics, randomisation test, {perms} permutations "
              "(half the rounds in each order of the two compare calls):",
              f"  compare(correction=None):   {t['none'].text()}",
              f"  compare(correction='holm'): {t['holm'].text()}",
              f"  ratio holm / none: {ratio(t['holm'], t['none'])}"]
    if have_ranx:
        lines += [f"  ranx compute_statistical_significance('fisher', {perms}) (no correction): {t['ranx'].text()}",
                  f"  ratio ranx / compare(holm): {ratio(t['ranx'], t['holm'])}"]
    finish("compare_corrected", lines, args)


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--corrected", action="store_true", help="only the corrected-table benchmark")
    args = ap.parse_args()
    if args.corrected:
        return corrected(args)
    lines = header("comparison benchmark (benchmarks/bench_compare.py)", args)
    try:
        import ranx  # noqa: F401
    except ImportError:
        sys.exit("ranx is not installed: pip install ranx (the alternative this benchmark compares with)")
    import numba

    judged = metrics.load_trec9()
    scores = metrics.evaluate(judged, ["nDCG@10"])["nDCG@10"]
    top = scores.loc[scores.mean(axis=1).sort_values(ascending=False).index[: (10 if args.quick else 30)]]
    lines.append(f"numba {numba.__version__}, NUMBA_NUM_THREADS={os.environ['NUMBA_NUM_THREADS']}; "
                 f"ranx {_version('ranx')}")
    with one_core():
        ranx_small = _ranx_side(top)
        c0, w0 = time.process_time(), time.perf_counter()
        ranx_small()  # first call of the process: numba's JIT compilation (or loading its on-disk cache)
        first = Timing([time.process_time() - c0], [time.perf_counter() - w0])
        ours = lambda: compare(top, test="randomization", n_resamples=B, seed=0)  # noqa: E731
        t = measure({"gtheory": ours, "ranx": ranx_small}, repeat=args.repeat)
        P = len(top) * (len(top) - 1) // 2
        lines += [f"TREC-9 nDCG@10, {len(top)} best runs ({P} pairs) x 50 topics, {B} permutations:",
                  f"  experiments.compare(test='randomization'): {t['gtheory'].text()}",
                  f"  ranx compute_statistical_significance:     {t['ranx'].text()}",
                  f"  ranx first call (incl. numba JIT compile):{first.text()}",
                  f"  ratio ranx / gtheory: {ratio(t['ranx'], t['gtheory'])}", ""]
        # agreement: both estimate the same p-values with independent draws; each has a Monte Carlo standard error
        # sqrt(p(1-p)/B) <= 0.005, so their difference has one <= 0.0071 and the largest of P differences is
        # expected below ~4 of those
        ref = ranx_small()
        mine = ours().table
        diffs = [abs(ref[frozenset([str(a), str(b)])]["ndcg@10"]["p_value"] - p)
                 for a, b, p in zip(mine["a"], mine["b"], mine["p"])]
        lines.append(f"  largest |p(ranx) - p(gtheory)| over the pairs: {max(diffs):.4f} "
                     f"(independent Monte Carlo estimates: standard error of a difference <= 0.0071 at B = {B})")
        lines.append("")
        if not args.quick:
            allp = _ranx_side(scores)
            full = measure({"gtheory": lambda: compare(scores, test="randomization", n_resamples=B, seed=0)},
                           repeat=args.repeat)["gtheory"]
            c0, w0 = time.process_time(), time.perf_counter()
            allp()
            r = Timing([time.process_time() - c0], [time.perf_counter() - w0])
            P = len(scores) * (len(scores) - 1) // 2
            lines += [f"TREC-9 nDCG@10, all {len(scores)} runs ({P} pairs) x 50 topics, {B} permutations:",
                      f"  experiments.compare(test='randomization'): {full.text()}",
                      f"  ranx compute_statistical_significance (1 call): {r.text('s')}",
                      f"  ratio ranx / gtheory: {ratio(r, full)}"]
    finish("compare", lines, args)


if __name__ == "__main__":
    main()
