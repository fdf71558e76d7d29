"""Ingest benchmark: TREC run files -> judged-grade tensor, side by side with pytrec_eval and with the parse floor.

Same work, same output, same cores on both sides: one process each (``metrics.judge(..., workers=1)`` vs
pytrec_eval's ``parse_qrel`` + ``parse_run``, which is single-threaded). Each row alternates the two sides
``--repeat`` times (default 5) in this process and reports the median CPU and wall time with min-max, and the ratio
of medians (> 1: ours is faster). The machine's load average is recorded before and after.

Rows (TREC-9 Web: 104 runs x 50 topics x 1000):

* plain text: the runs decompressed once into a temporary directory; ours builds the whole tensor, pytrec_eval
  parses qrels and runs into its dicts.
* xz: the files as distributed. The floor is ``lzma`` decompression plus pandas' C CSV reader (``engine="c"``,
  whitespace-separated) on the decompressed bytes: reading without building anything.
* end to end: files -> the first nDCG@100 systems x topics matrix; pytrec_eval parses and evaluates
  ``ndcg_cut.100`` for every run.
* memory (``--memory``): peak resident memory of ``judge`` (in a fresh process, above what it held before) against
  the final tensor (``grades`` + ``doc_ids``), on a synthetic collection of 500 systems x 250 topics x depth 1000
  written by ``benchmarks/make_synthetic.py`` (about 5 GB of text, generated on first use).

    python benchmarks/bench_ingest.py [--quick] [--repeat 5] [--memory] [--data DIR]

``--quick`` uses the first 20 runs (the ratios, not the totals, are what to compare). Writes
benchmarks/results/ingest.txt (``ingest-quick.txt`` with ``--quick``).
"""
from __future__ import annotations

import argparse
import gc
import io
import json
import lzma
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytrec_eval

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import metrics  # noqa: E402

DEFAULT = HERE.parents[1] / "shared" / "data" / "trec9-web-wt10g"


# ----------------------------------------------------------------------------------------------- the two sides
def pytrec_parse(files, qrels):
    with open(qrels) as fh:
        q = pytrec_eval.parse_qrel(fh)
    runs = {}
    for f in files:
        opener = lzma.open if str(f).endswith(".xz") else open
        with opener(f, "rt") as fh:
            runs[f] = pytrec_eval.parse_run(fh)
    return q, runs


def ours_parse(files, qrels):
    return metrics.judge(files, qrels, workers=1, progress=False)


def floor_xz(files, qrels):
    """Decompress and tokenise every file with pandas' C reader; nothing is built from it."""
    for f in files:
        data = lzma.open(f).read()
        pd.read_csv(io.BytesIO(data), sep=r"\s+", header=None, engine="c")


def pytrec_ndcg(files, qrels):
    q, runs = pytrec_parse(files, qrels)
    ev = pytrec_eval.RelevanceEvaluator(q, {"ndcg_cut.100"})
    return {f: ev.evaluate(r) for f, r in runs.items()}


def ours_ndcg(files, qrels):
    return metrics.ndcg(ours_parse(files, qrels), cutoff=100)


# ----------------------------------------------------------------------------------------------- timing
def measure(sides: dict, args: tuple, repeat: int) -> dict:
    """CPU and wall seconds of each side, ``repeat`` times, the sides alternating."""
    out = {k: {"cpu": [], "wall": []} for k in sides}
    for _ in range(repeat):
        for name, fn in sides.items():
            gc.collect()
            c0, w0 = time.process_time(), time.perf_counter()
            fn(*args)
            out[name]["cpu"].append(time.process_time() - c0)
            out[name]["wall"].append(time.perf_counter() - w0)
    return out


def _fmt(xs: list[float]) -> str:
    return f"{statistics.median(xs):7.2f} s [{min(xs):.2f}-{max(xs):.2f}]"


def _row(title: str, t: dict, ours: str, other: str) -> list[str]:
    c = statistics.median(t[other]["cpu"]) / statistics.median(t[ours]["cpu"])
    w = statistics.median(t[other]["wall"]) / statistics.median(t[ours]["wall"])
    return [
        f"{title}",
        f"  {ours:<34} CPU {_fmt(t[ours]['cpu'])}   wall {_fmt(t[ours]['wall'])}",
        f"  {other:<34} CPU {_fmt(t[other]['cpu'])}   wall {_fmt(t[other]['wall'])}",
        f"  ratio {other} / {ours}: CPU {c:.2f}x, wall {w:.2f}x",
    ]


# ----------------------------------------------------------------------------------------------- memory
_MEMORY_CHILD = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[3])
import metrics
def rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
base = rss()
c0, w0 = time.process_time(), time.perf_counter()
j = metrics.judge(sys.argv[1], sys.argv[2], workers=1, progress=False)
cpu, wall = time.process_time() - c0, time.perf_counter() - w0
with open("/proc/self/status") as fh:  # VmHWM: this address space's peak (ru_maxrss may keep the forking parent's)
    peak = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmHWM:"))
print(json.dumps(dict(shape=j.shape, base=base, peak=peak, grades=j.grades.nbytes, doc_ids=j.doc_ids.nbytes,
                      id_dtype=str(j.doc_ids.dtype), cpu=cpu, wall=wall)))
"""


def memory_rows(synthetic: Path) -> list[str]:
    if not (synthetic / "qrels.txt").exists():
        subprocess.run([sys.executable, str(HERE / "make_synthetic.py"), "--out", str(synthetic)], check=True)
    res = subprocess.run([sys.executable, "-c", _MEMORY_CHILD, str(synthetic / "runs"), str(synthetic / "qrels.txt"),
                          str(HERE.parent)], check=True, capture_output=True, text=True)
    m = json.loads(res.stdout)
    final = m["grades"] + m["doc_ids"]
    extra = m["peak"] - m["base"]
    return [
        f"memory, synthetic {m['shape'][0]} systems x {m['shape'][1]} topics x depth {m['shape'][2]} "
        f"(plain text, 1 process)",
        f"  final tensor: grades {m['grades'] / 1e6:.0f} MB + doc_ids ({m['id_dtype']}) {m['doc_ids'] / 1e6:.0f} MB "
        f"= {final / 1e6:.0f} MB",
        f"  judge peak resident memory above the process's {m['base'] / 1e6:.0f} MB before it: {extra / 1e6:.0f} MB "
        f"= {extra / final:.2f}x the final tensor",
        f"  judge time: CPU {m['cpu']:.1f} s, wall {m['wall']:.1f} s",
    ]


# ----------------------------------------------------------------------------------------------- main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT, help="a collection folder with runs_full_xz/ and qrels*")
    ap.add_argument("--repeat", type=int, default=5, help="timings per side (default 5; the median is reported)")
    ap.add_argument("--quick", action="store_true", help="the first 20 runs only")
    ap.add_argument("--memory", action="store_true", help="also the memory row on 500 x 250 x 1000 synthetic runs")
    ap.add_argument("--synthetic", type=Path, default=Path(tempfile.gettempdir()) / "gtheory-synthetic-500x250x1000")
    args = ap.parse_args()
    if args.repeat < 5:
        ap.error("--repeat must be at least 5 (a median of 5 or more)")
    xz = sorted((args.data / "runs_full_xz").iterdir())
    if args.quick:
        xz = xz[:20]
    qrels = next(args.data.glob("qrels*"))
    load0 = os.getloadavg()
    lines = [
        f"# ingest benchmark ({platform.python_version()}, numpy {np.__version__}, pytrec_eval "
        f"{getattr(pytrec_eval, '__version__', '?')}, {os.cpu_count()} CPUs, {time.strftime('%Y-%m-%d %H:%M')})",
        f"data: {args.data.name}: {len(xz)} runs; one process on each side; median of {args.repeat} [min-max], "
        "sides alternating",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        plain = []
        for f in xz:
            p = Path(tmp) / f.name.removesuffix(".xz")
            p.write_bytes(lzma.open(f).read())
            plain.append(p)
        j = ours_parse(plain, qrels)
        ref = ours_parse(xz, qrels)
        assert np.array_equal(j.grades, ref.grades)
        lines.append(f"tensor {j.shape}")
        t = measure({"metrics.judge (1 worker)": ours_parse, "pytrec_eval parse": pytrec_parse}, (plain, qrels),
                    args.repeat)
        lines += _row("parse, plain text", t, "metrics.judge (1 worker)", "pytrec_eval parse")
        t = measure({"metrics.judge (1 worker)": ours_parse, "floor: lzma + pandas C reader": floor_xz,
                     "pytrec_eval parse": pytrec_parse}, (xz, qrels), args.repeat)
        lines += _row("parse, xz", t, "metrics.judge (1 worker)", "floor: lzma + pandas C reader")
        lines += _row("parse, xz", t, "metrics.judge (1 worker)", "pytrec_eval parse")[2:]
        t = measure({"judge + ndcg(cutoff=100)": ours_ndcg, "pytrec_eval parse + ndcg_cut.100": pytrec_ndcg},
                    (plain, qrels), args.repeat)
        lines += _row("end to end: files -> nDCG@100 matrix, plain text", t, "judge + ndcg(cutoff=100)",
                      "pytrec_eval parse + ndcg_cut.100")
    if args.memory:
        lines += memory_rows(args.synthetic)
    load1 = os.getloadavg()
    lines.append(f"load average (1, 5, 15 min) before: {', '.join(f'{x:.2f}' for x in load0)}; "
                 f"after: {', '.join(f'{x:.2f}' for x in load1)}")
    text = "\n".join(lines)
    print(text)
    (HERE / "results").mkdir(exist_ok=True)
    name = "ingest-quick.txt" if args.quick else "ingest.txt"
    (HERE / "results" / name).write_text(text + "\n")


if __name__ == "__main__":
    main()
