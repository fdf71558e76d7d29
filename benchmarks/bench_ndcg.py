"""nDCG benchmark on TREC-9 (104 runs x 50 topics): metrics.ndcg (sparse relevant cells) vs pytrec_eval and vs the
dense tensor path it replaced, per configuration, in a 1000-configuration sweep, end to end from the run files,
and the memory of nDCG@1000 on a 500 x 250 x 1000 synthetic tensor.

    python benchmarks/bench_ndcg.py [--quick] [--repeat 5] [--memory-only] [--baseline DIR]

The memory rows also measure the condensed lists of nDCG' (``judged_only=True``): ``JudgedRuns.condensed`` and
nDCG'@1000 on the same synthetic tensor; ``--baseline DIR`` runs that row from another copy of the package too.

Same work, same output on both sides: every row computes the same systems x topics matrix (the script checks the
numbers agree) on one core (BLAS 1 thread; pytrec_eval is single-threaded C). pytrec_eval takes the grade as the
gain and log2 as the discount, so its rows use log2; a new gain vector means new qrels and a new evaluator there.
"today" is the dense path of the previous release, kept here as a function: map gains onto the whole
(systems, topics, ranks) tensor, then a matrix-vector product with the discount. End-to-end rows count the one-time
ingest (files -> first nDCG@100 matrix) with one worker on both sides.
"""
from __future__ import annotations

import gc
import lzma
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import DATA, finish, header, measure, one_core, parser, ratio  # noqa: E402

import metrics  # noqa: E402
from metrics.measures.discounts import discount_vector  # noqa: E402
from metrics.measures.gains import gain_vector  # noqa: E402
from metrics.measures.ndcg import ideal_gains  # noqa: E402

TREC9 = DATA / "trec9-web-wt10g"
QRELS = TREC9 / "qrels.trec9.web.451-500.txt"


def dense_ndcg(judged, gain="linear", discount="log2", cutoff=None):
    """The previous release's nDCG (dense): gains of every (system, topic, rank) @ discount; same definition."""
    j = judged
    g = gain_vector(gain, j.levels)
    k_run = j.depth if cutoff is None else min(int(cutoff), j.depth)
    k_ideal = int(j.level_counts[:, g > 0].sum(axis=1).max(initial=0)) if cutoff is None else int(cutoff)
    k_ideal = min(k_ideal, int(j.level_counts.sum(axis=1).max(initial=0)))
    d = discount_vector(discount, max(k_run, k_ideal), cutoff=cutoff)
    dcg = j.level_values(g, ranks=k_run) @ d[:k_run]
    idcg = ideal_gains(j, g, k_ideal) @ d[:k_ideal]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(idcg[None, :] > 0, dcg / np.where(idcg > 0, idcg, 1.0)[None, :], 0.0)


def pytrec_matrix(results: list[dict], systems, topics, measure_name: str) -> np.ndarray:
    out = np.zeros((len(systems), len(topics)))
    for i, res in enumerate(results):
        for t, row in res.items():
            if t in topics:
                out[i, topics.index(t)] = row[measure_name]
    return out


MEMORY_SCRIPT = textwrap.dedent("""
    import resource, sys, time, tracemalloc
    import numpy as np
    import metrics
    def hwm():  # peak resident memory of this process (VmHWM; ru_maxrss would include the parent's before exec)
        try:
            for line in open("/proc/self/status"):
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
        except OSError:
            pass
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    S, T, K = map(int, sys.argv[1:4])
    rng = np.random.default_rng(0)
    grades = np.empty((S, T, K), dtype=np.int8)
    for s in range(S):  # about 2.5 % relevant, 10 % judged non-relevant, the rest unjudged
        u = rng.random((T, K), dtype=np.float32)
        grades[s] = np.where(u < 0.015, 1, np.where(u < 0.025, 2, np.where(u < 0.125, 0, -1)))
    counts = np.tile([500, 40, 25], (T, 1))
    j = metrics.JudgedRuns(
        grades=grades, doc_ids=np.broadcast_to(np.int16(0), (S, T, K)),  # ids are not used by nDCG: no memory
        levels=np.array([0.0, 1.0, 2.0]),
        qrels_level=np.concatenate([np.repeat(np.arange(3), c) for c in counts]).astype(np.int8),
        qrels_offsets=np.r_[0, np.cumsum(counts.sum(axis=1))].astype(np.int64),
        systems=tuple(map(str, range(S))), topics=tuple(map(str, range(T))),
        n_retrieved=np.full((S, T), K, np.int32))
    rss0 = hwm()
    tracemalloc.start()
    c, w = time.process_time(), time.perf_counter()
    X = metrics.ndcg(j, gain=[0, 1, 2], discount="log2", cutoff=K).to_numpy()
    c, w = time.process_time() - c, time.perf_counter() - w
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    c2, w2 = time.process_time(), time.perf_counter()
    metrics.ndcg(j, gain=[0, 1, 3], discount="zipf", cutoff=K)
    c2, w2 = time.process_time() - c2, time.perf_counter() - w2
    rss1 = hwm()
    print(grades.nbytes, peak, rss0, rss1, c, w, c2, w2, float(X.mean()))
""")


def memory_row(S: int, T: int, K: int) -> list[str]:
    out = subprocess.run([sys.executable, "-c", MEMORY_SCRIPT, str(S), str(T), str(K)],
                         capture_output=True, text=True, check=True)
    tensor, peak, rss0, rss1, c, w, c2, w2, mean = map(float, out.stdout.split())
    dense = S * T * K * 8
    return [
        f"nDCG@{K} on a synthetic {S} x {T} x {K} tensor (int8 grades {tensor / 1e6:.0f} MB; 2.5 % relevant), own process:",
        f"  peak memory allocated during ndcg (tracemalloc): {peak / 1e6:8.1f} MB = {peak / tensor:.2f}x the tensor; "
        f"the dense path's cells x cutoff float64 array alone would be {dense / 1e6:.0f} MB (not run)",
        f"  process peak resident memory {rss0 / 1e6:.0f} MB before ndcg (tensor built), {rss1 / 1e6:.0f} MB after "
        f"(+{(rss1 - rss0) / 1e6:.0f} MB)",
        f"  first call (builds the sparse view): CPU {c:.2f} s, wall {w:.2f} s; a second configuration: "
        f"CPU {c2:.3f} s, wall {w2:.3f} s; mean nDCG {mean:.4f}",
    ]


CONDENSED_SCRIPT = textwrap.dedent("""
    import sys, time, tracemalloc
    import numpy as np
    import metrics
    S, T, K = map(int, sys.argv[1:4])
    rng = np.random.default_rng(0)
    grades = np.empty((S, T, K), dtype=np.int8)
    doc_ids = np.empty((S, T, K), dtype=np.int16)
    for s in range(S):  # as the nDCG memory row: 2.5 % relevant, 10 % judged non-relevant, the rest unjudged
        u = rng.random((T, K), dtype=np.float32)
        grades[s] = np.where(u < 0.015, 1, np.where(u < 0.025, 2, np.where(u < 0.125, 0, -1)))
        doc_ids[s] = np.where(grades[s] >= 0, rng.integers(0, 565, size=(T, K), dtype=np.int16), -1)
    counts = np.tile([500, 40, 25], (T, 1))
    j = metrics.JudgedRuns(
        grades=grades, doc_ids=doc_ids, levels=np.array([0.0, 1.0, 2.0]),
        qrels_level=np.concatenate([np.repeat(np.arange(3), c) for c in counts]).astype(np.int8),
        qrels_offsets=np.r_[0, np.cumsum(counts.sum(axis=1))].astype(np.int64),
        systems=tuple(map(str, range(S))), topics=tuple(map(str, range(T))),
        n_retrieved=np.full((S, T), K, np.int32))
    tracemalloc.start()
    c, w = time.process_time(), time.perf_counter()
    cj = j.condensed()
    c, w = time.process_time() - c, time.perf_counter() - w
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    c2, w2 = time.process_time(), time.perf_counter()
    X = metrics.ndcg(j, gain=[0, 1, 2], discount="log2", cutoff=K, judged_only=True).to_numpy()
    c2, w2 = time.process_time() - c2, time.perf_counter() - w2
    peak2 = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    out = cj.grades.nbytes + cj.doc_ids.nbytes
    print(grades.nbytes + doc_ids.nbytes, out, cj.shape[2], peak, c, w, peak2, c2, w2, float(X.mean()))
""")


def condensed_rows(S: int, T: int, K: int, trees: dict[str, Path]) -> list[str]:
    """Memory and time of ``JudgedRuns.condensed`` (the nDCG' lists) and of nDCG'@K, each tree in its own process."""
    lines = [f"Condensed lists (judged_only=True, nDCG'@{K}) on a synthetic {S} x {T} x {K} tensor (int8 grades, int16 "
             "document ids; 87.5 % unjudged), own process per side, one run each; peak = tracemalloc peak during the call:"]
    for name, tree in trees.items():
        env = dict(__import__("os").environ, PYTHONPATH=str(tree), OPENBLAS_NUM_THREADS="1")
        out = subprocess.run([sys.executable, "-c", CONDENSED_SCRIPT, str(S), str(T), str(K)], env=env, cwd=str(tree),
                             capture_output=True, text=True, check=True)
        tensor, cond, keep, peak, c, w, peak2, c2, w2, mean = map(float, out.stdout.split())
        lines += [
            f"  {name}: condensed() peak {peak / 1e6:8.1f} MB = {peak / tensor:.2f}x the tensor ({tensor / 1e6:.0f} MB; "
            f"the condensed lists themselves {cond / 1e6:.0f} MB, depth {keep:.0f}); CPU {c:.2f} s, wall {w:.2f} s",
            f"  {name}: then nDCG'@{K} (judged_only=True) peak {peak2 / 1e6:.1f} MB, CPU {c2:.2f} s, wall {w2:.2f} s; "
            f"mean nDCG' {mean:.6f}",
        ]
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = parser(__doc__)
    ap.add_argument("--memory-only", action="store_true",
                    help="only the memory rows, written to benchmarks/results/ndcg_memory.txt")
    ap.add_argument("--baseline", type=Path, default=None,
                    help="another copy of the package: the condensed-lists row runs it too (side by side)")
    args = ap.parse_args(argv)
    if args.quick:
        args.repeat = min(args.repeat, 3)
    size = (100, 50, 1000) if args.quick else (500, 250, 1000)
    trees = {"this tree": Path(__file__).resolve().parents[1]}
    if args.baseline:
        trees[f"baseline ({args.baseline.name})"] = args.baseline.resolve()
    if args.memory_only:
        lines = header("nDCG memory rows (benchmarks/bench_ndcg.py --memory-only)", args)
        lines.insert(-1, "memory rows: one run per side, each in its own process (the repetitions above do not apply)")
        lines += memory_row(*size) + [""] + condensed_rows(*size, trees)
        finish("ndcg_memory", lines, args)
        return
    lines = header("nDCG benchmark (benchmarks/bench_ndcg.py)", args)
    import pytrec_eval

    from experiments import sweep
    sweep_module = sys.modules["experiments.sweep.tasks"]  # where the sweep's tasks compute nDCG (ndcg_values)

    files = sorted((TREC9 / "runs_full_xz").iterdir())
    if args.quick:
        files = files[:12]
    with open(QRELS) as fh:
        qrel = pytrec_eval.parse_qrel(fh)
    runs = []
    for f in files:
        with lzma.open(f, "rt") as fh:
            runs.append(pytrec_eval.parse_run(fh))
    full = metrics.load_trec9()
    j = full.subset(systems=[f.name.removesuffix(".xz") for f in files]) if args.quick else full
    topics = list(j.topics)
    qrel3 = {t: {d: (0, 1, 3)[g] if g >= 0 else g for d, g in docs.items()} for t, docs in qrel.items()}

    def pytrec(q, m="ndcg_cut.100"):
        ev = pytrec_eval.RelevanceEvaluator(q, {m})
        return [ev.evaluate(r) for r in runs]

    with one_core():
        # ------------------------------------------------------------------ same output checks
        key = "ndcg_cut_100"
        ref = pytrec_matrix(pytrec(qrel), j.systems, topics, key)
        ours = metrics.ndcg(j, gain="linear", discount="log2", cutoff=100).to_numpy()
        ref3 = pytrec_matrix(pytrec(qrel3), j.systems, topics, key)
        ours3 = metrics.ndcg(j, gain=[0, 1, 3], discount="log2", cutoff=100).to_numpy()
        dense3 = dense_ndcg(j, gain=[0, 1, 3], discount="log2", cutoff=100)
        diff = max(np.abs(ref - ours).max(), np.abs(ref3 - ours3).max())
        lines.append(f"TREC-9: {len(files)} runs x {len(topics)} topics (metrics.load_trec9(); the same runs parsed by "
                     f"pytrec_eval). Max |ours - pytrec_eval| over both nDCG@100 matrices: {diff:.1e}; "
                     f"max |ours - today (dense)|: {np.abs(ours3 - dense3).max():.1e}")
        lines.append("")

        # ------------------------------------------------------------------ one configuration, data in memory
        t = measure({
            "pytrec": lambda: pytrec(qrel),
            "pytrec_new": lambda: pytrec(qrel3),
            "ours": lambda: metrics.ndcg(j, gain="linear", discount="log2", cutoff=100),
            "ours_new": lambda: metrics.ndcg(j, gain=[0, 1, 3], discount="log2", cutoff=100),
            "dense_new": lambda: dense_ndcg(j, gain=[0, 1, 3], discount="log2", cutoff=100),
        }, repeat=args.repeat)
        lines += [
            "nDCG@100, one configuration, data in memory on both sides (log2 discount on both sides):",
            f"  pytrec_eval, qrels gains 0/1/2 (evaluator + {len(files)} runs)   {t['pytrec'].text()}",
            f"  pytrec_eval, new gains 0/1/3 (remapped qrels + evaluator)  {t['pytrec_new'].text()}",
            f"  today: dense tensor path, gains 0/1/3                      {t['dense_new'].text('us')}",
            f"  metrics.ndcg, gains 0/1/2                                  {t['ours'].text('us')}",
            f"  metrics.ndcg, gains 0/1/3                                  {t['ours_new'].text('us')}",
            f"  ratio pytrec_eval / metrics.ndcg, same gains:  {ratio(t['pytrec'], t['ours'])}",
            f"  ratio pytrec_eval / metrics.ndcg, new gains:   {ratio(t['pytrec_new'], t['ours_new'])}",
            "",
        ]

        # ------------------------------------------------------------------ per configuration, all distinct
        n_conf = 50
        confs = [([0, 1, 1 + 0.1 * i], f"rbp(p={0.5 + 0.009 * i:.3f})") for i in range(n_conf)]
        for k in (100, 1000):
            t = measure({
                "dense": lambda k=k: [dense_ndcg(j, gain=g, discount=d, cutoff=k) for g, d in confs],
                "ours": lambda k=k: [metrics.ndcg(j, gain=g, discount=d, cutoff=k) for g, d in confs],
            }, repeat=args.repeat)
            per = {key: v.scaled(1 / n_conf) for key, v in t.items()}
            worst = max(np.abs(metrics.ndcg(j, gain=g, discount=d, cutoff=k).to_numpy()
                               - dense_ndcg(j, gain=g, discount=d, cutoff=k)).max() for g, d in confs[:5])
            lines += [
                f"nDCG@{k} per configuration, {n_conf} distinct (gain, discount) configurations in turn "
                f"(no result reused; max |diff| {worst:.1e}):",
                f"  today: dense tensor path      {per['dense'].text('us')}",
                f"  metrics.ndcg (sparse)         {per['ours'].text('us')}",
                f"  ratio today / sparse:         {ratio(per['dense'], per['ours'])}",
            ]
            if k == 100:
                t_py = measure({"p": lambda: pytrec(qrel3)}, repeat=args.repeat)["p"]
                lines.append(f"  ratio pytrec_eval (new gains, log2) / sparse per configuration: {ratio(t_py, per['ours'])}")
            lines.append("")

        # ------------------------------------------------------------------ 1000-configuration sweep
        cutoffs = [5, 10, 20, 30, 50, 100, 200, 500, 1000, None]
        gains = {f"0-1-{1 + 0.5 * i:g}": [0, 1, 1 + 0.5 * i] for i in range(10)}
        discounts = ["log2", "zipf", "linear(k=1000)", "none", "rbp(p=0.5)", "rbp(p=0.8)", "rbp(p=0.95)",
                     "jarvelin(b=2)", "jarvelin(b=10)", "jarvelin(b=100)"]
        if args.quick:
            cutoffs, gains = cutoffs[::3], dict(list(gains.items())[:4])
        n_points = len(cutoffs) * len(gains) * len(discounts)
        sparse_values = sweep_module.ndcg_values

        def dense_values(judged, *, gain, discount, cutoff, judged_only):
            return dense_ndcg(judged, gain=gain, discount=discount, cutoff=cutoff)

        def run_sweep(values):
            sweep_module.ndcg_values = values
            try:
                return sweep(j, cutoffs=cutoffs, gains=gains, discounts=discounts, max_workers=1)
            finally:
                sweep_module.ndcg_values = sparse_values

        a, b = run_sweep(sparse_values), run_sweep(dense_values)
        num = ["var_system", "var_topic", "var_residual", "phi", "erho2", "mean"]
        same = np.abs(a[num].to_numpy() - b[num].to_numpy()).max()
        t = measure({"dense": lambda: run_sweep(dense_values), "ours": lambda: run_sweep(sparse_values)},
                    repeat=args.repeat)
        lines += [
            f"experiments.sweep, {n_points} configurations ({len(cutoffs)} cut-offs x {len(gains)} gains x "
            f"{len(discounts)} discounts, G-study + Kendall tau each), one process; max |diff| of the numbers {same:.1e}:",
            f"  today: nDCG by the dense path       {t['dense'].text('s')}",
            f"  sparse, gains share discounted counts {t['ours'].text('s')}",
            f"  ratio: {ratio(t['dense'], t['ours'])}; target <= 2 s: "
            f"{'met' if t['ours'].wall_med <= 2 and t['ours'].cpu_med <= 2 else 'MISSED'} (CPU and wall medians)",
            "",
        ]

        # ------------------------------------------------------------------ end to end, one worker
        def e2e_pytrec():
            with open(QRELS) as fh:
                q = pytrec_eval.parse_qrel(fh)
            rs = []
            for f in files:
                with lzma.open(f, "rt") as fh:
                    rs.append(pytrec_eval.parse_run(fh))
            ev = pytrec_eval.RelevanceEvaluator(q, {"ndcg_cut.100"})
            return [ev.evaluate(r) for r in rs]

        def e2e_ours():
            jj = metrics.judge(files, QRELS, workers=1)
            return jj, metrics.ndcg(jj, cutoff=100)

        jj, m = e2e_ours()
        e2e_diff = np.abs(pytrec_matrix(e2e_pytrec(), jj.systems, list(jj.topics), key) - m.to_numpy()).max()
        gc.collect()
        t = measure({"pytrec": e2e_pytrec, "ours": e2e_ours}, repeat=args.repeat)
        lines += [
            f"End to end, {len(files)} xz run files + qrels -> first nDCG@100 matrix, 1 worker on both sides "
            f"(max |diff| {e2e_diff:.1e}):",
            f"  pytrec_eval parse_qrel + parse_run (lzma) + evaluate  {t['pytrec'].text('s')}",
            f"  metrics.judge(workers=1) + metrics.ndcg               {t['ours'].text('s')}",
            f"  ratio pytrec_eval / ours: {ratio(t['pytrec'], t['ours'])}",
            "",
        ]
    lines += memory_row(*size) + [""] + condensed_rows(*size, trees)
    finish("ndcg", lines, args)


if __name__ == "__main__":
    main()
