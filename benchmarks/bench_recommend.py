"""Benchmark: ``optimize.recommend`` on the embedded TREC-9 Web runs (all 104 systems x 50 topics): time and memory.

    python benchmarks/bench_recommend.py [--quick] [--repeat 5] [--only discount@1000,...] [--baseline DIR]

Rows (each with its defaults: 10 outer x 4 inner halvings, every family, 3 regularised vectors):

* ``discount@100`` (the budget: 15 s on 2 cores, the 5 reseedings included; they run in 2 forked processes, so
  the parent's CPU seconds leave out the children's — read the wall time), the same in one process, and with one
  seed, ``discount@1000`` (the deepest identified cut-off; with
  3 outer x 2 inner halvings, since the previous dense engine needs minutes for the default 10 x 4 there),
  ``discount@10``, ``gain@100``, ``joint@100`` (gains and discount together);
* for scale, one ``optimize.cross_validate`` (10 splits, 2 starts) at cut-off 100.

Every run is a fresh Python process that loads the data, resets its peak resident memory (``/proc/self/clear_refs``)
and then times the one call: CPU (process) and wall seconds, and the peak resident memory *above* what the process
held when the call started (VmHWM − VmRSS; what the call itself needed at its worst). ``recommend`` limits BLAS to
one thread itself (``optimize.solvers._threads``), and the children are also started with one BLAS/OpenMP thread, so every
side runs on one core.

``--baseline DIR``: the same rows run from another copy of the package (e.g. ``git archive`` of an earlier commit
unpacked into DIR), interleaved with this tree's runs (each repetition runs every row on both sides in turn), so the
two are compared side by side on the same machine state; ratios are baseline / this tree.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import Timing, finish, header, parser  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

CALLS = {
    "discount@100": "optimize.recommend(j, cutoff=100, progress=False)",
    "discount@100 (5 seeds in one process)": "optimize.recommend(j, cutoff=100, n_jobs=1, progress=False)",
    "discount@100 (1 seed)": "optimize.recommend(j, cutoff=100, n_seeds=1, progress=False)",
    "discount@1000 (3 x 2 splits)": "optimize.recommend(j, cutoff=1000, n_splits=3, n_inner=2, n_seeds=1, progress=False)",
    "discount@10": "optimize.recommend(j, cutoff=10, progress=False)",
    "gain@100": "optimize.recommend(j, cutoff=100, what='gain', progress=False)",
    "joint@100": "optimize.recommend(j, cutoff=100, what='joint', progress=False)",
    "cross_validate@100": "optimize.cross_validate(j, cutoff=100)",
}
QUICK = {  # --quick: the same calls with fewer splits (checks the script, not for the record)
    "discount@100": "optimize.recommend(j, cutoff=100, n_splits=2, n_inner=2, progress=False)",
    "discount@1000 (3 x 2 splits)": "optimize.recommend(j, cutoff=1000, n_splits=2, n_inner=2, progress=False)",
    "joint@100": "optimize.recommend(j, cutoff=100, what='joint', n_splits=2, n_inner=2, progress=False)",
}

CHILD = r"""
import json, sys, time
import metrics, optimize

def status(key):
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) * 1024 for line in fh if line.startswith(key + ":"))

j = metrics.load_trec9()
try:
    with open("/proc/self/clear_refs", "w") as fh:  # reset VmHWM to the current resident size
        fh.write("5")
    reset = True
except OSError:
    reset = False
rss0 = status("VmRSS")
c, w = time.process_time(), time.perf_counter()
out = CALL
c, w = time.process_time() - c, time.perf_counter() - w
verdict = getattr(out, "verdict", "")
from threadpoolctl import threadpool_info
blas = sorted(f"{i['internal_api']} {i['num_threads']}" for i in threadpool_info())
print(json.dumps(dict(cpu=c, wall=w, peak=status("VmHWM") - rss0, reset=reset, verdict=verdict, blas=blas)))
"""


def run_child(tree: Path, call: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1", MPLBACKEND="Agg")
    out = subprocess.run([sys.executable, "-c", CHILD.replace("CALL", call)], env=env, cwd=str(tree),
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{call} failed in {tree}:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    ap = parser(__doc__)
    ap.add_argument("--only", default=None, help="comma-separated rows, e.g. discount@1000,joint@100")
    ap.add_argument("--baseline", type=Path, default=None, help="another copy of the package to compare against")
    args = ap.parse_args(argv)
    calls = dict(CALLS, **QUICK) if args.quick else dict(CALLS)
    if args.quick:
        args.repeat = min(args.repeat, 3)
        calls = {k: v for k, v in calls.items() if k in QUICK}
    if args.only:
        wanted = [s.strip() for s in args.only.split(",")]
        calls = {k: v for k, v in calls.items() if k.split()[0] in wanted}
    sides = {"this tree": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    lines = header("optimize.recommend on TREC-9, 104 systems x 50 topics (benchmarks/bench_recommend.py)", args)
    runs = {(s, k): [] for s in sides for k in calls}
    for _ in range(args.repeat):
        for k, call in calls.items():
            for s, tree in sides.items():
                runs[(s, k)].append(run_child(tree, call))
                r = runs[(s, k)][-1]
                print(f"{k} [{s}]: CPU {r['cpu']:.2f} s, wall {r['wall']:.2f} s, peak {r['peak'] / 1e6:.1f} MB",
                      file=sys.stderr, flush=True)
    lines += ["each run a fresh process; peak = resident memory above the process's size when the call started",
              f"sides: this tree{'; baseline = the package copy in ' + args.baseline.name if args.baseline else ''}", ""]
    for k, call in calls.items():
        lines.append(f"{k}: {call}")
        for s in sides:
            r = runs[(s, k)]
            t = Timing([x["cpu"] for x in r], [x["wall"] for x in r])
            peaks = [x["peak"] / 1e6 for x in r]
            lines.append(f"  {s:<10} {t.text('s')}  peak {statistics.median(peaks):7.1f} MB "
                         f"[{min(peaks):.1f}–{max(peaks):.1f}]")
        if args.baseline:
            a, b = runs[("baseline", k)], runs[("this tree", k)]
            ta = Timing([x["cpu"] for x in a], [x["wall"] for x in a])
            tb = Timing([x["cpu"] for x in b], [x["wall"] for x in b])
            pa = statistics.median(x["peak"] for x in a)
            pb = statistics.median(x["peak"] for x in b)
            same = {x["verdict"] for x in a} == {x["verdict"] for x in b}
            lines.append(f"  baseline / this tree: {ta.cpu_med / tb.cpu_med:.2f}x CPU, {ta.wall_med / tb.wall_med:.2f}x "
                         f"wall, {pa / max(pb, 1):.2f}x peak memory; same verdict: {same}")
        verdicts = {x["verdict"] for x in runs[("this tree", k)]}
        if verdicts != {""}:
            lines.append(f"  verdict: {' | '.join(sorted(verdicts))}")
        lines.append("")
    pools = sorted({", ".join(x["blas"]) for r in runs.values() for x in r})
    lines.append(f"BLAS thread pools in the children after the call (library, threads): {' | '.join(pools)}")
    finish("recommend", lines, args)


if __name__ == "__main__":
    main()
