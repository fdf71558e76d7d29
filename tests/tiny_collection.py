"""A tiny collection with an independent nDCG and Φ, shared by the optimize test files (worked out here from the
scores and grades without the package: the reference the solvers' optima are checked against)."""
from __future__ import annotations

import numpy as np

import metrics


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
