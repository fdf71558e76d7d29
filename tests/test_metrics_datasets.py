"""The embedded TREC-9 tensor equals a fresh build from the NIST runs and qrels in the shared data."""
from __future__ import annotations

import numpy as np

import metrics
from conftest import shared


def test_embedded_trec9_equals_fresh_build():
    d = shared("trec9-web-wt10g")
    shipped = metrics.load_trec9()
    fresh = metrics.judge(d / "runs_full_xz", d / "qrels.trec9.web.451-500.txt", depth=1000)
    assert shipped.shape == (104, 50, 1000)
    assert shipped.systems == fresh.systems and shipped.topics == fresh.topics
    for name in ("grades", "doc_ids", "levels", "qrels_level", "qrels_offsets", "n_retrieved"):
        assert np.array_equal(getattr(shipped, name), getattr(fresh, name)), name
    # the qrels counts stated in SOURCE.txt: 0: 67,453; 1: 2,371; 2: 246
    assert shipped.level_counts.sum(axis=0).tolist() == [67453, 2371, 246]


def test_embedded_trec9_reproduces_nist_map():
    """Independent check: MAP from the tensor vs NIST's published MAP (trec-browser), 4 decimals."""
    import pandas as pd

    pub = pd.read_csv(shared("trec9-web-wt10g", "published_summaries_trec-browser.csv"))
    j = metrics.load_trec9()
    rel = j.level_values((j.levels >= 1).astype(float))  # binary relevance per rank
    ranks = np.arange(1, j.depth + 1)
    prec = np.cumsum(rel, axis=-1) / ranks
    ap = (prec * rel).sum(axis=-1) / np.maximum(j.n_relevant()[None, :], 1)
    ours = pd.Series(ap.mean(axis=1), index=list(j.systems))
    col = "map" if "map" in pub.columns else None
    if col is None:  # long format: run, measure, value
        pub = pub[pub["measure"] == "map"].set_index("run")["value"]
    else:
        pub = pub.set_index(pub.columns[0])[col]
    pub = pub.astype(float)
    common = [r for r in pub.index if r in ours.index]
    assert len(common) >= 100
    assert np.max(np.abs(ours[common] - pub[common])) <= 5e-5
