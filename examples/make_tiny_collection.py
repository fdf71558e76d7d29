"""Write the tiny example collection the docs use (``examples/runs/`` and ``examples/qrels.txt``).

Derived from the TREC-9 Web data embedded in the package (``metrics.load_trec9()``): 6 of the 104 runs, the first
8 topics, the top 20 documents of each ranking, in TREC format. A judged document keeps its grade and gets the name
``d<topic>-<n>`` (``n`` its index in the embedded judgments); an unjudged one is named after the run and rank. The
qrels hold every relevant document of those topics (so the ideal ranking is the collection's) and the non-relevant
judged documents the tiny runs retrieve. Deterministic: running it again writes the same files.

    python examples/make_tiny_collection.py            # writes beside this script
    python examples/make_tiny_collection.py --out DIR
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import metrics

SYSTEMS = (0, 20, 40, 60, 80, 100)  # indices into the 104 runs
TOPICS = 8
DEPTH = 20


def write(out: Path) -> None:
    j = metrics.load_trec9()
    (out / "runs").mkdir(parents=True, exist_ok=True)
    grades, ids = j.grades, j.doc_ids
    keep: list[set[int]] = [set() for _ in range(TOPICS)]
    for s in SYSTEMS:
        lines = []
        for t in range(TOPICS):
            for r in range(DEPTH):
                i = int(ids[s, t, r])
                if i >= 0:
                    keep[t].add(i)
                doc = f"d{j.topics[t]}-{i}" if i >= 0 else f"u{j.topics[t]}-{j.systems[s]}-{r + 1}"
                lines.append(f"{j.topics[t]} Q0 {doc} {r + 1} {DEPTH - r} {j.systems[s]}\n")
        (out / "runs" / f"{j.systems[s]}.txt").write_text("".join(lines))
    rows = []
    for t in range(TOPICS):
        level = j.qrels_level[j.qrels_offsets[t]:j.qrels_offsets[t + 1]]
        grade = np.asarray(j.levels)[level]
        for i in sorted(keep[t] | set(np.flatnonzero(grade > 0).tolist())):
            rows.append(f"{j.topics[t]} 0 d{j.topics[t]}-{i} {int(grade[i])}\n")
    (out / "qrels.txt").write_text("".join(rows))
    print(f"wrote {len(SYSTEMS)} runs ({TOPICS} topics, top {DEPTH}) to {out / 'runs'} and {len(rows)} judgments "
          f"to {out / 'qrels.txt'}")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    write(p.parse_args().out)
