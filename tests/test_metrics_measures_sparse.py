"""The sparse "relevant cells" path of nDCG (metrics.measures.sparse) against the dense definition.

References, independent of the library's code: nDCG written out per ranked list in plain Python (DCG as the sum of
discount × gain over the ranks, IDCG over the ideal ranking built by sorting the topic's judged gains), on
hand-computed cases and on random tensors (hypothesis); the tuning matrices against the dense matrices they replace;
gradients against finite differences; and the memory bound (no cells × cut-off float64 array).
"""
from __future__ import annotations

import math
import sys
import pickle
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import metrics
from metrics import ABSENT, UNJUDGED, JudgedRuns, dcg_parts, ndcg
from metrics.measures.sparse import ideal_dcg, relevant_cells
from metrics._toy import single_topic
from optimize.solvers.objective import Problem, identified_depth


# ----------------------------------------------------------------------------------------- references
def _reference(j: JudgedRuns, gain: dict, disc: np.ndarray, cutoff: int | None, judged_only: bool):
    """DCG (S, T) and IDCG (T,) from the definition, list by list (grades ≤ -1 carry no gain)."""
    levels = j.levels
    g_of = {i: (0.0 if math.trunc(lv) < 0 else float(gain.get(float(lv), 0.0))) for i, lv in enumerate(levels)}
    w = lambda r: float(disc[r]) if r < disc.size else 0.0  # noqa: E731  (rank r + 1)
    S, T, K = j.shape
    dcg = np.zeros((S, T))
    idcg = np.zeros(T)
    for t in range(T):
        judged_gains = [g_of[c] for c in j.qrels_level[j.qrels_offsets[t]:j.qrels_offsets[t + 1]].tolist()]
        ideal = sorted((x for x in judged_gains if x > 0), reverse=True)
        if cutoff is not None:
            ideal = ideal[:cutoff]
        idcg[t] = sum(w(r) * x for r, x in enumerate(ideal))
        for s in range(S):
            codes = [c for c in j.grades[s, t].tolist() if c != ABSENT]
            if judged_only:
                codes = [c for c in codes if c != UNJUDGED and math.trunc(levels[c]) >= 0]
            if cutoff is not None:
                codes = codes[:cutoff]
            dcg[s, t] = sum(w(r) * (0.0 if c == UNJUDGED else g_of[c]) for r, c in enumerate(codes))
    return dcg, idcg


def _random_judged(rng: np.random.Generator, S: int, T: int, K: int, levels: list[float]) -> JudgedRuns:
    """A tensor whose lists hold each judged document at most once (so nDCG ≤ 1 for decreasing discounts)."""
    L = len(levels)
    per_topic = [rng.integers(0, 4, size=L) for _ in range(T)]
    grades = np.full((S, T, K), ABSENT, dtype=np.int8)
    for t in range(T):
        pool = np.repeat(np.arange(L), per_topic[t])
        for s in range(S):
            n = int(rng.integers(0, K + 1))
            docs = list(rng.permutation(pool)[: int(rng.integers(0, pool.size + 1))])
            docs += [UNJUDGED] * max(0, n - len(docs))
            rng.shuffle(docs)
            grades[s, t, : len(docs[:K])] = docs[:K]
    qrels_level = np.concatenate([np.repeat(np.arange(L), c) for c in per_topic]).astype(np.int8)
    offsets = np.r_[0, np.cumsum([c.sum() for c in per_topic])].astype(np.int64)
    return JudgedRuns(
        grades=grades,
        doc_ids=np.where(grades >= 0, 0, -1).astype(np.int32),
        levels=np.asarray(levels, dtype=np.float64),
        qrels_level=qrels_level,
        qrels_offsets=offsets,
        systems=tuple(f"s{i}" for i in range(S)),
        topics=tuple(f"t{i}" for i in range(T)),
        n_retrieved=(grades != ABSENT).sum(axis=-1).astype(np.int32),
    )


# ----------------------------------------------------------------------------------------- hand-computed
def test_hand_computed_single_topic():
    # qrels: grades 2, 1, 1, 0; run: 1, unjudged, 2, 0, 1
    j = single_topic([[1, None, 2, 0, 1]], qrels=[2, 1, 1, 0])
    d = 1 / np.log2(np.arange(2, 7))
    dcg, idcg = dcg_parts(j, gain="linear", discount="log2")
    assert dcg[0, 0] == pytest.approx(1 * d[0] + 2 * d[2] + 1 * d[4], abs=1e-15)
    assert idcg[0] == pytest.approx(2 * d[0] + 1 * d[1] + 1 * d[2], abs=1e-15)
    dcg3, idcg3 = dcg_parts(j, gain=[0, 1, 3], discount="zipf", cutoff=3)
    assert dcg3[0, 0] == pytest.approx(1 + 3 / 3, abs=1e-15)
    assert idcg3[0] == pytest.approx(3 + 1 / 2 + 1 / 3, abs=1e-15)
    # grade 0 with a non-zero gain (a vector indexed by grade): judged non-relevant documents count too
    dcg0, idcg0 = dcg_parts(j, gain=[1, 2, 3], discount="none", cutoff=4)
    assert dcg0[0, 0] == pytest.approx(2 + 3 + 1, abs=1e-15)
    assert idcg0[0] == pytest.approx(3 + 2 + 2 + 1, abs=1e-15)
    # the condensed list drops the unjudged document: 1, 2, 0, 1
    dj, _ = dcg_parts(j, gain="linear", discount="zipf", judged_only=True)
    assert dj[0, 0] == pytest.approx(1 + 2 / 2 + 1 / 4, abs=1e-15)


def test_discounted_counts_by_hand():
    j = single_topic([[2, 1, None, 1], [0, 2]], qrels=[2, 1, 1, 0])
    rc = relevant_cells(j)
    d = np.array([1.0, 0.5, 0.25, 0.125])
    np.testing.assert_array_equal(rc.discounted_counts(2, d), [1.0, 0.5])  # level code 2 = grade 2
    np.testing.assert_array_equal(rc.discounted_counts(1, d), [0.5 + 0.125, 0.0])
    np.testing.assert_array_equal(rc.discounted_counts(1, d[:2]), [0.5, 0.0])  # cut-off 2
    cell, rank = rc.entries(1)
    assert cell.tolist() == [0, 0] and rank.tolist() == [1, 3]
    # IDCG with gains 0, 1, 2: the ideal list has gains 2, 1, 1 -> 2 * 1 + 1 * 0.5 + 1 * 0.25
    assert ideal_dcg(j.level_counts, np.array([0.0, 1.0, 2.0]), d).tolist() == [2.75]
    assert ideal_dcg(j.level_counts, np.array([0.0, 1.0, 2.0]), d[:2]).tolist() == [2.5]  # cut-off 2


# ------------------------------------------------------------------------------------------ random tensors
@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.tuples(st.integers(1, 4), st.integers(1, 3), st.integers(1, 12)),
    levels=st.sampled_from([[0.0, 1.0, 2.0], [-1.0, 0.0, 1.0, 3.0], [0.0, 0.5, 2.0], [1.0], [-2.0, 0.0, 1.0]]),
    cutoff=st.one_of(st.none(), st.integers(1, 15)),
    judged_only=st.booleans(),
)
def test_sparse_equals_dense_definition(seed, shape, levels, cutoff, judged_only):
    rng = np.random.default_rng(seed)
    j = _random_judged(rng, *shape, levels)
    # gains: any real values, also for grade 0 and negative ones; the pooled-unjudged grades get 0 regardless
    gain = {lv: float(v) for lv, v in zip(levels, np.round(rng.normal(size=len(levels)), 2))}
    gain[max(levels)] = abs(gain[max(levels)]) + 0.1  # a relevant grade with positive gain
    if rng.random() < 0.3:
        gain[levels[0]] = 0.0
    disc = np.round(rng.random(int(rng.integers(1, 16))), 3)
    disc[rng.random(disc.size) < 0.2] = 0.0
    dcg, idcg = dcg_parts(j, gain=gain, discount=disc, cutoff=cutoff, judged_only=judged_only)
    ref_dcg, ref_idcg = _reference(j, gain, disc, cutoff, judged_only)
    np.testing.assert_allclose(dcg, ref_dcg, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(idcg, ref_idcg, rtol=1e-12, atol=1e-12)
    nd = ndcg(j, gain=gain, discount=disc, cutoff=cutoff, judged_only=judged_only).to_numpy()
    ref = np.where(ref_idcg > 0, ref_dcg / np.where(ref_idcg > 0, ref_idcg, 1), 0.0)
    np.testing.assert_allclose(nd, ref, rtol=1e-12, atol=1e-12)


def test_many_configurations_on_one_tensor_reuse_caches_correctly():
    """The per-level counts and patterns are cached per tensor: a long loop of configurations (more than the caches
    hold) gives the definition's numbers at every step."""
    rng = np.random.default_rng(5)
    j = _random_judged(rng, 5, 3, 20, [0.0, 1.0, 2.0])
    for i in range(60):
        k = [None, 3, 7, 20, 25][i % 5]
        gain = {0.0: 0.0, 1.0: float(rng.random()), 2.0: 1.0 + float(rng.random())}
        disc = rng.random(int(rng.integers(1, 30)))
        got = dcg_parts(j, gain=gain, discount=disc, cutoff=k)
        ref = _reference(j, gain, disc, k, False)
        np.testing.assert_allclose(got[0], ref[0], rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(got[1], ref[1], rtol=1e-12, atol=1e-13)


def test_trec9_matches_dense_tensor_path(embedded_trec9):
    j = embedded_trec9
    for kw in (dict(cutoff=100), dict(cutoff=1000, gain="exponential", discount="zipf"), dict(),
               dict(cutoff=20, gain=[1, 2, 3]), dict(cutoff=10, judged_only=True, discount="rbp(p=0.9)")):
        v = j.condensed() if kw.get("judged_only") else j
        g = metrics.gain_vector(kw.get("gain", "linear"), v.levels)
        k = kw.get("cutoff")
        kr = v.depth if k is None else min(k, v.depth)
        d = metrics.discount_vector(kw.get("discount", "log2"), max(kr, k or v.depth, 1000), cutoff=k)
        dense = v.level_values(g, ranks=kr) @ d[:kr]
        dcg, _ = dcg_parts(j, **kw)
        np.testing.assert_allclose(dcg, dense, rtol=1e-13, atol=1e-12)


# ----------------------------------------------------------------------------------------------- tuning
@pytest.mark.parametrize("what", ["discount", "gain", "joint"])
def test_tuning_matrices_equal_the_dense_ones(what):
    # the first seed whose tensor has a topic with more relevant documents than its depth: columns past it are 0
    j = next(x for x in (_random_judged(np.random.default_rng(s), 6, 4, 4, [0.0, 1.0, 2.0]) for s in range(100))
             if identified_depth(x) > x.depth)
    k = identified_depth(j)
    p = Problem(j, k, what, gain=[0, 1, 3], discount="log2")
    S, T, K = j.shape
    if what == "discount":
        dense = np.zeros((S * T, k))
        dense[:, :K] = j.level_values(np.array([0.0, 1.0, 3.0])).reshape(S * T, K)
        A = p._A.toarray() if hasattr(p._A, "toarray") else p._A
        np.testing.assert_array_equal(A, dense)
    elif what == "joint":
        for lv, M in zip(p.positive, p._M):
            dense = np.zeros((S * T, k))
            dense[:, :K] = (j.grades == lv).reshape(S * T, K)
            np.testing.assert_array_equal(M.toarray() if hasattr(M, "toarray") else M, dense)
    else:
        d = p.fixed_discount
        for lv, C in zip(p.positive, p._C):
            np.testing.assert_allclose(C, (j.grades == lv).astype(float) @ d[:K], rtol=1e-14, atol=1e-14)


def _fd_grad(f, x, h=1e-5):
    g = np.empty_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (4 * (f(x + e) - f(x - e)) / (2 * h) - (f(x + 2 * e) - f(x - 2 * e)) / (4 * h)) / 3
    return g


@pytest.mark.parametrize("what", ["discount", "gain", "joint"])
def test_gradient_on_random_tensor_matches_finite_differences(what):
    rng = np.random.default_rng(3)
    j = _random_judged(rng, 8, 5, 12, [0.0, 1.0, 2.0])
    p = Problem(j, 12, what, gain=[0, 1, 2])
    x = p.normalise(rng.random(p.n) + 0.2)
    if p.block("gain"):
        x[p.block("gain").slice] = [0.3, 0.7]
    _, g = p.value_and_grad(x)
    fd = _fd_grad(p.value, x)
    assert np.max(np.abs(g - fd)) <= 1e-6 * np.max(np.abs(fd))
    # and the tuned scores are the public nDCG
    gl, d = p.split(x)
    X = ndcg(j, gain={float(a): float(b) for a, b in zip(p.levels, gl)}, discount=d, cutoff=12).to_numpy()
    np.testing.assert_allclose(p.scores(x), X, rtol=0, atol=1e-13)


# ----------------------------------------------------------------------------------------------- memory
def test_ndcg_at_full_depth_allocates_no_cells_by_cutoff_array():
    rng = np.random.default_rng(0)
    S, T, K = 40, 50, 1000
    grades = np.where(rng.random((S, T, K)) < 0.03, rng.integers(1, 3, (S, T, K)), UNJUDGED).astype(np.int8)
    counts = np.tile([200, 30, 20], (T, 1))
    j = JudgedRuns(
        grades=grades, doc_ids=np.zeros((S, T, K), np.int16), levels=np.array([0.0, 1.0, 2.0]),
        qrels_level=np.concatenate([np.repeat(np.arange(3), c) for c in counts]).astype(np.int8),
        qrels_offsets=np.r_[0, np.cumsum(counts.sum(axis=1))].astype(np.int64),
        systems=tuple(map(str, range(S))), topics=tuple(map(str, range(T))),
        n_retrieved=np.full((S, T), K, np.int32),
    )
    dense_bytes = S * T * K * 8  # what level_values(...) @ d allocated: 16 MB here
    tracemalloc.start()
    try:
        X = ndcg(j, gain=[0, 1, 2], discount="log2", cutoff=K).to_numpy()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 0.25 * dense_bytes, (peak, dense_bytes)
    assert X.shape == (S, T) and np.all((X >= 0) & (X <= 1))


def test_cache_is_not_pickled_with_the_tensor():
    j = single_topic([[1, 0, 2]], qrels=[2, 1, 0])
    j.level_counts  # the tensor's own cached property (pickled with it, as before)
    before = len(pickle.dumps(j))
    ndcg(j, cutoff=2)
    assert len(pickle.dumps(j)) == before
    j2 = pickle.loads(pickle.dumps(j))
    np.testing.assert_array_equal(ndcg(j2, cutoff=2).to_numpy(), ndcg(j, cutoff=2).to_numpy())


@pytest.mark.parametrize("levels", [[0.0, 1.0, 2.0], [-2.0, -1.0, 0.0, 1.0, 3.0], [-1.0, 0.5, 2.0]])
def test_parsed_gain_specifications_equal_gain_vector_bit_for_bit(levels):
    """The per-view gain fast path / memo gives gain_vector's exact vector, and gain_vector's errors."""
    from metrics.measures.discounts import discount_vector
    from metrics.measures.gains import gain_vector

    rc = relevant_cells(_random_judged(np.random.default_rng(3), 2, 3, 5, levels))
    specs = ["linear", "exponential(base=3)", "binary(level=2)", [0, 1, 5, 9], (0.0, -0.0, 2.5, 7.0, 1e300),
             np.array([0.0, 1.0, 1.5, 4.0]), np.array([1, 2, 3, 4], dtype=np.int8), [0, 1, 2, 3, float("nan")],
             {0.5: 1.0, 1.0: 2.0, 2.0: 3.0, 3.0: 4.0}, lambda x: np.maximum(x, 0) ** 2]
    for spec in specs + specs:  # the second pass hits the memo
        try:
            want = gain_vector(spec, rc.levels)
        except ValueError as e:
            with pytest.raises(ValueError, match=None) as got:
                rc.gains(spec)
            assert str(got.value) == str(e)
            continue
        got = rc.gains(spec)
        assert got.tobytes() == want.tobytes(), spec
    for bad in [[1.0], [0.0, float("inf"), 1.0, 2.0], [[0, 1, 2, 3]], ["a", "b"], "exponential(base=1)"]:
        with pytest.raises(ValueError) as e:
            gain_vector(bad, rc.levels)
        with pytest.raises(ValueError) as got:
            rc.gains(bad)
        assert str(got.value) == str(e.value)
    for disc, n, cutoff in [("log2", 7, None), ("rbp(p=0.5)", 4, 4), ("linear", 3, 3), ([1.0, 0.5], 4, None)]:
        for _ in range(2):
            assert rc.discount(disc, n, cutoff).tobytes() == discount_vector(disc, n, cutoff=cutoff).tobytes()
    with pytest.raises(ValueError, match="needs its k"):
        rc.discount("linear", 3, None)


@pytest.mark.filterwarnings("ignore::metrics.FractionalGradeWarning")
@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_a_huge_integer_grade_is_no_index_and_no_cast_warning():
    # grade 1e20 equals its rounding but is no int64: the cast warned "invalid value" and gave a garbage index
    runs = {"s1": {"1": {"a": 2.0, "b": 1.0}}, "s2": {"1": {"a": 1.0, "b": 2.0}}}
    j = metrics.judge(runs, {"1": {"a": 1e20, "b": 1}}, progress=False)
    scores = ndcg(j, cutoff=2).to_numpy()
    assert scores[0, 0] == pytest.approx(1.0) and 0 < scores[1, 0] < 1  # linear gain: a first is the ideal
    with pytest.raises(ValueError, match="grade"):  # a vector of gains per grade cannot cover grade 1e20
        ndcg(j, gain=[0, 1, 2], cutoff=2)


import scipy.sparse as sp  # noqa: E402

from metrics.measures.sparse import RelevantCells, matvec  # noqa: E402

def test_matvec_is_the_csr_product():
    rng = np.random.default_rng(1)
    A = sp.random(40, 30, density=0.2, format="csr", random_state=2, dtype=np.float64)
    x = rng.random(30)
    # the same products summed in the same row order: equal to rounding (1e-12 on values of order 1)
    np.testing.assert_allclose(matvec(A, x), A @ x, rtol=0, atol=1e-12)


def test_relevant_cells_built_once_per_tensor():
    j = single_topic([[1, 0, None, 2]], qrels=[2, 1, 0])
    rc = relevant_cells(j)
    assert isinstance(rc, RelevantCells) and relevant_cells(j) is rc
    assert (rc.n_systems, rc.n_topics) == (1, 1) and rc.levels.tolist() == [0.0, 1.0, 2.0]
    assert relevant_cells(j, judged_only=True) is not rc


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), shape=st.tuples(st.integers(1, 5), st.integers(1, 4), st.integers(1, 30)),
       k=st.integers(1, 40))
def test_discounted_counts_numpy_and_csr_paths_agree_bit_for_bit(seed, shape, k):
    # the first counts of a view are np.bincount of the entries (no scipy.sparse import), later ones the CSR kernel:
    # both add each cell's terms in rank order from 0, so the numbers must be identical, not merely close
    rng = np.random.default_rng(seed)
    j = _random_judged(rng, *shape, [0.0, 1.0, 2.0, 3.0])
    d = rng.random(k) * 10.0 ** rng.integers(-8, 8, size=k)  # magnitudes far apart: a reordered sum would differ
    by_numpy = RelevantCells(j)
    assert "scipy.sparse" in sys.modules  # imported above: force the NumPy path through the counter instead
    by_numpy._n_counts = -10**9  # below the hand-over threshold for good
    import metrics.measures.sparse as ms
    for code in range(4):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(ms, "sys", type("NoSciPy", (), {"modules": {}})())  # "scipy.sparse" not loaded
            a = by_numpy.discounted_counts(code, d)
        b = matvec(RelevantCells(j).pattern(code, k), np.ascontiguousarray(d))
        assert a.view(np.int64).tolist() == b.view(np.int64).tolist()
