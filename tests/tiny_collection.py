"""Independent references shared by the test files, worked out here without the package: a tiny collection with its
nDCG by hand, Φ from the two-way ANOVA mean squares (Brennan 2001), central differences for gradients, and one
random judged topic for hypothesis (the trec_eval parity properties)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import metrics
from metrics import ABSENT, UNJUDGED, JudgedRuns


def tiny(seed: int = 0, S: int = 5, T: int = 6, D: int = 8):
    """``(judged, G, ideal)``: S systems ranking D documents on T topics against random 0-2 grades (every topic
    has a grade-2 document), with ``G[s, t, r]`` the grade at rank r + 1 and ``ideal[t]`` the grades sorted
    down, worked out here from the scores (distinct, so no tie rule matters) without the package."""
    rng = np.random.default_rng(seed)
    grades = rng.integers(0, 3, (T, D))
    grades[:, 0] = 2
    scores = rng.random((S, T, D)) + np.linspace(0.0, 1.5, S)[:, None, None] * grades[None] / 2  # better systems
    qrels = {f"t{t}": {f"d{i}": int(grades[t, i]) for i in range(D)} for t in range(T)}
    runs = {f"s{s}": {f"t{t}": {f"d{i}": float(scores[s, t, i]) for i in range(D)} for t in range(T)}
            for s in range(S)}
    judged = metrics.judge(runs, qrels, progress=False)
    assert judged.systems == tuple(runs) and judged.topics == tuple(qrels)
    order = np.argsort(-scores, axis=-1)
    G = np.take_along_axis(np.broadcast_to(grades, (S, T, D)), order, axis=-1).astype(float)
    ideal = -np.sort(-grades, axis=-1).astype(float)
    return judged, G, ideal


def ndcg_by_hand(G, ideal, gain, discount):
    """nDCG_st = sum_r gain[G_str] d_r / sum_r gain[ideal_tr] d_r for a gain per grade and a discount per rank."""
    k = len(discount)
    gain = np.asarray(gain, dtype=float)
    return (gain[G[..., :k].astype(int)] @ discount) / (gain[ideal[:, :k].astype(int)] @ discount)


def mean_squares_by_hand(X) -> tuple[float, float, float]:
    """(MS_s, MS_t, MS_st) of a systems × topics matrix: the two-way ANOVA without replication (Brennan 2001)."""
    S, T = X.shape
    m, ms, mt = X.mean(), X.mean(axis=1), X.mean(axis=0)
    MSs = T * ((ms - m) ** 2).sum() / (S - 1)
    MSt = S * ((mt - m) ** 2).sum() / (T - 1)
    MSe = ((X - ms[:, None] - mt[None, :] + m) ** 2).sum() / ((S - 1) * (T - 1))
    return MSs, MSt, MSe


def components_by_hand(X, clip: bool = False) -> tuple[float, float, float]:
    """(σ²_s, σ²_t, σ²_e) from the expected mean squares; ``clip`` sets negative estimates to 0 (the G-study
    convention)."""
    S, T = X.shape
    MSs, MSt, MSe = mean_squares_by_hand(X)
    v = ((MSs - MSe) / T, (MSt - MSe) / S, MSe)
    return tuple(max(x, 0.0) for x in v) if clip else v


def phi1_by_hand(X):
    """Φ(1) = σ²_s / (σ²_s + σ²_t + σ²_e), raw (unclipped)."""
    vs, vt, ve = components_by_hand(X)
    return vs / (vs + vt + ve)


def phi_n_by_hand(X, n):
    """Φ(n) with negative components set to 0 (the G-study convention cross_validate and check document)."""
    vs, vt, ve = components_by_hand(X, clip=True)
    return vs / (vs + (vt + ve) / n)


def fd_grad(f, x, h=1e-5):
    """Richardson-extrapolated central differences: error O(h^4)."""
    g = np.empty_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = 1.0
        d1 = (f(x + h * e) - f(x - h * e)) / (2 * h)
        d2 = (f(x + 2 * h * e) - f(x - 2 * h * e)) / (4 * h)
        g[i] = (4 * d1 - d2) / 3
    return g


# one topic: a ranked list of distinct documents (scores descending = list order) and grades for some documents
DOCS = [f"d{i:02d}" for i in range(30)]


@st.composite
def one_topic(draw):
    ranked = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=15, unique=True))
    judged = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(0, 2), min_size=1, max_size=20))
    if not any(g >= 1 for g in judged.values()):  # pytrec_eval drops a topic without a relevant document
        judged[draw(st.sampled_from(DOCS))] = 1
    if not set(ranked) & set(judged):  # judge() refuses runs that retrieved no judged document at all
        judged[draw(st.sampled_from(ranked))] = draw(st.integers(0, 2))
    return ranked, judged


def synthetic() -> JudgedRuns:
    """Five topics with (relevant, non-relevant) = (0, 5), (1, 3), (3, 30), (40, 200), (7, 12).

    Grades 0/1/2 and -2 (a "spam" judgment in topic 4, which must count as non-relevant). Two systems
    retrieve the first judged documents of each topic, then one unjudged document.
    """
    per_topic = [
        [0] * 5,
        [1] + [0] * 3,
        [2, 1, 1] + [0] * 30,
        [1] * 30 + [2] * 10 + [0] * 200,
        [1] * 7 + [0] * 10 + [-2] * 2,
    ]
    levels = np.array([-2.0, 0.0, 1.0, 2.0])
    code = {v: i for i, v in enumerate(levels)}
    qrels_level = np.array([code[float(g)] for t in per_topic for g in t], dtype=np.int8)
    offsets = np.r_[0, np.cumsum([len(t) for t in per_topic])].astype(np.int64)
    S, T, K = 2, len(per_topic), 6
    grades = np.full((S, T, K), ABSENT, dtype=np.int8)
    ids = np.full((S, T, K), -1, dtype=np.int32)
    for s in range(S):
        for t, qs in enumerate(per_topic):
            n = min(len(qs), K - 1)
            docs = np.arange(n) if s == 0 else np.arange(len(qs) - n, len(qs))
            grades[s, t, :n] = [code[float(qs[d])] for d in docs]
            ids[s, t, :n] = docs
            grades[s, t, n] = UNJUDGED
    return JudgedRuns(
        grades=grades, doc_ids=ids, levels=levels, qrels_level=qrels_level, qrels_offsets=offsets,
        systems=("a", "b"), topics=tuple(str(t) for t in range(T)),
        n_retrieved=np.full((S, T), K, dtype=np.int32),
    )


def interrupted_at_rename(monkeypatch, write) -> None:
    """Call ``write()`` with ``os.replace`` raising KeyboardInterrupt — Ctrl-C at the rename that ends an atomic
    write — and expect the interrupt to propagate; ``os.replace`` is restored afterwards."""
    import os

    import pytest

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    try:
        with pytest.raises(KeyboardInterrupt):
            write()
    finally:
        monkeypatch.undo()
