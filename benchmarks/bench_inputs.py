"""In-memory inputs benchmark: ``metrics.judge`` on run files vs the same runs and qrels already in memory.

Same work on every side: the DL 2019 passage runs (all 37, 43 topics) judged to depth 1000, one process
(``workers=1`` for the files, so every side uses one core). The in-memory forms are built once beforehand (that is
the user's cost, not ours): a long pandas DataFrame (``query_id, doc_id, score, run``), pytrec_eval dicts
(``{system: {qid: {docid: score}}}``) and ir_measures ``ScoredDoc`` / ``Qrel`` named tuples (what ir_datasets
yields). CPU and wall time, median of ``--repeat`` (default 5) with min–max, and each side's ratio to the files.
Writes the table to benchmarks/results/inputs.txt.

    python benchmarks/bench_inputs.py [--data ../shared/data/trec-dl-2019-passage] [--repeat 5]
"""
from __future__ import annotations

import argparse
import lzma
import os
import platform
import statistics
import time
from pathlib import Path

import pandas as pd

import metrics

HERE = Path(__file__).resolve().parent
DEFAULT = HERE.parents[1] / "shared" / "data" / "trec-dl-2019-passage"


def measure(fn, repeat: int) -> tuple[list[float], list[float]]:
    cpu, wall = [], []
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return cpu, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    import ir_measures
    import pytrec_eval

    files = sorted(p for p in (args.data / "runs_judged_full_xz").iterdir() if not p.name.startswith("."))
    qrels = next(args.data.glob("qrels*"))
    ref = metrics.judge(files, qrels, workers=1)
    frames = []
    dicts = {}
    for name, f in zip(ref.systems, files):
        with lzma.open(f, "rt") as fh:
            dicts[name] = pytrec_eval.parse_run(fh)
        with lzma.open(f, "rt") as fh:
            df = pd.read_csv(fh, sep=r"\s+", header=None, names=["query_id", "q0", "doc_id", "rank", "score", "tag"],
                             dtype={"query_id": str, "doc_id": str})
        frames.append(df[["query_id", "doc_id", "score"]].assign(run=name))
    long = pd.concat(frames, ignore_index=True)
    qdf = pd.read_csv(qrels, sep=r"\s+", header=None, names=["query_id", "it", "doc_id", "relevance"],
                      dtype={"query_id": str, "doc_id": str})[["query_id", "doc_id", "relevance"]]
    with open(qrels) as fh:
        qdict = pytrec_eval.parse_qrel(fh)
    tuples = {s: [ir_measures.ScoredDoc(q, d, sc) for q, docs in dicts[s].items() for d, sc in docs.items()]
              for s in ref.systems}
    qtuples = list(ir_measures.read_trec_qrels(str(qrels)))
    sides = {
        "run files (.xz) + qrels file": lambda: metrics.judge(files, qrels, workers=1),
        "DataFrame + DataFrame": lambda: metrics.judge(long, qdf),
        "pytrec_eval dicts": lambda: metrics.judge(dicts, qdict),
        "ScoredDoc / Qrel named tuples": lambda: metrics.judge(tuples, qtuples),
    }
    for fn in sides.values():  # every side builds the identical tensor
        assert fn().fingerprint == ref.fingerprint
    results = {k: measure(fn, args.repeat) for k, fn in sides.items()}
    base_cpu = statistics.median(results["run files (.xz) + qrels file"][0])
    base_wall = statistics.median(results["run files (.xz) + qrels file"][1])
    lines = [
        f"# in-memory inputs benchmark ({platform.python_version()}, {os.cpu_count()} CPUs, one process, "
        f"{time.strftime('%Y-%m-%d')})",
        f"# {len(files)} DL 2019 runs x {ref.n_topics} topics, {len(long)} rows; median of {args.repeat} (min-max); "
        "ratio = side / files",
        f"{'input':32} {'CPU s':>22} {'wall s':>22} {'CPU ratio':>10} {'wall ratio':>10}",
    ]
    for k, (cpu, wall) in results.items():
        lines.append(
            f"{k:32} {statistics.median(cpu):7.2f} ({min(cpu):5.2f}-{max(cpu):5.2f}) "
            f"{statistics.median(wall):7.2f} ({min(wall):5.2f}-{max(wall):5.2f}) "
            f"{statistics.median(cpu) / base_cpu:10.2f} {statistics.median(wall) / base_wall:10.2f}"
        )
    text = "\n".join(lines) + "\n"
    print(text, end="")
    out = HERE / "results" / "inputs.txt"
    out.write_text(text)


if __name__ == "__main__":
    main()
