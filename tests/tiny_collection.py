"""A tiny collection with an independent nDCG and Φ, shared by the optimize test files (worked out here from the
scores and grades without the package: the reference the solvers' optima are checked against)."""
from __future__ import annotations

import numpy as np

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


def phi1_by_hand(X):
    """Φ(1) = σ²_s / (σ²_s + σ²_t + σ²_e) from the two-way ANOVA mean squares (Brennan 2001), raw (unclipped)."""
    S, T = X.shape
    m, ms, mt = X.mean(), X.mean(axis=1), X.mean(axis=0)
    MSs = T * ((ms - m) ** 2).sum() / (S - 1)
    MSt = S * ((mt - m) ** 2).sum() / (T - 1)
    MSe = ((X - ms[:, None] - mt[None, :] + m) ** 2).sum() / ((S - 1) * (T - 1))
    vs, vt, ve = (MSs - MSe) / T, (MSt - MSe) / S, MSe
    return vs / (vs + vt + ve)


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
