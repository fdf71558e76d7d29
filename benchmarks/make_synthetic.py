"""Generate a synthetic TREC collection (plain-text runs and qrels) of any size, for ingest and memory benchmarks.

Every topic has a universe of ``--universe`` documents (docno ``D<topic>-<k>``), of which ``--judged`` are judged
(grades 0, 1, 2 with probabilities 0.6, 0.3, 0.1). Each system ranks ``--depth`` documents of the universe per topic
with 4-decimal scores in descending order (so scores tie, as in real runs). Lines are built as byte arrays with NumPy
(fixed-width fields), so even 500 systems x 250 topics x depth 1000 (125 M lines, about 5 GB) take a minute or two.
The output directory is not part of the repository; the default is a ``synthetic`` folder in the system's temporary
directory.

    python benchmarks/make_synthetic.py --systems 500 --topics 250 --depth 1000 [--out DIR] [--seed 0]
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np


def _digits(values: np.ndarray, width: int) -> np.ndarray:
    """(n, width) ASCII digits of non-negative integers, zero padded."""
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    return ((values[:, None] // powers) % 10 + 48).astype(np.uint8)


def _lines(fields: list[np.ndarray | bytes], n: int) -> bytes:
    """Concatenate per-line fields (arrays (n, w) of bytes, or constant bytes) into one text."""
    parts = []
    for f in fields:
        if isinstance(f, bytes):
            parts.append(np.broadcast_to(np.frombuffer(f, dtype=np.uint8), (n, len(f))))
        else:
            parts.append(f)
    return np.ascontiguousarray(np.hstack(parts)).tobytes()


def generate(out: Path, systems: int, topics: int, depth: int, universe: int, judged: int, seed: int) -> Path:
    """Write ``out/qrels.txt`` and ``out/runs/sys<NNN>``; returns ``out``."""
    if not (depth <= universe and judged <= universe):
        raise ValueError("`depth` and `judged` must not exceed `universe`")
    rng = np.random.default_rng(seed)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    tw, kw = len(str(topics)), len(str(universe - 1))
    topic_ids = np.arange(1, topics + 1)
    # qrels: the first `judged` documents of a random permutation of each topic's universe
    keys = rng.random((topics, universe)).argsort(axis=1)[:, :judged]
    grades = rng.choice(3, size=(topics, judged), p=[0.6, 0.3, 0.1])
    n = topics * judged
    t = _digits(np.repeat(topic_ids, judged), tw)
    text = _lines([t, b" 0 D", t, b"-", _digits(keys.ravel(), kw), b" ", _digits(grades.ravel(), 1), b"\n"], n)
    (out / "qrels.txt").write_bytes(text)
    sw, rw = len(str(systems)), len(str(depth))
    n = topics * depth
    t = _digits(np.repeat(topic_ids, depth), tw)
    ranks = _digits(np.tile(np.arange(1, depth + 1), topics), rw)
    for s in range(systems):
        docs = rng.random((topics, universe)).argpartition(depth - 1, axis=1)[:, :depth]
        score = -np.sort(-rng.integers(0, 10_000, size=(topics, depth)), axis=1)
        tag = f" sys{s:0{sw}d}\n".encode()
        text = _lines([t, b" Q0 D", t, b"-", _digits(docs.ravel(), kw), b" ", ranks, b" 0.",
                       _digits(score.ravel(), 4), tag], n)
        (out / "runs" / f"sys{s:0{sw}d}").write_bytes(text)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", type=int, default=500)
    ap.add_argument("--topics", type=int, default=250)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--universe", type=int, default=5000, help="documents per topic (default 5000)")
    ap.add_argument("--judged", type=int, default=1500, help="judged documents per topic (default 1500)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "synthetic")
    a = ap.parse_args()
    out = generate(a.out, a.systems, a.topics, a.depth, a.universe, a.judged, a.seed)
    print(f"wrote {out}/qrels.txt and {a.systems} runs in {out}/runs")


if __name__ == "__main__":
    main()
