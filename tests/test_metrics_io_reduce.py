"""Tests of metrics/io/reduce.py: reduced qrels by Buckley & Voorhees' stratified sampling.

Independent references used here:
* the sampling formula min(count, max(minimum, ceil(f * count))) written out per topic in plain Python
  (Buckley & Voorhees, SIGIR 2004, §3; Bompada et al., SIGIR 2007, §4);
* the reduced qrels are written to a temporary qrels file and a few TREC-9 runs are re-judged from scratch
  with ``metrics.judge`` (no reuse of the tensor's document ids), then every measure is compared;
* uniform inclusion within a stratum: a chi-squared test over many seeds.
"""
from __future__ import annotations

import glob
import math

import numpy as np
import pandas as pd
import pytest
import scipy.stats

import metrics
from metrics import UNJUDGED, JudgedRuns, reduce_qrels, reduction_mask
from conftest import shared
from tiny_collection import synthetic  # noqa: E402

FRACTIONS = (1.0, 0.7, 0.5, 0.3, 0.2, 0.1, 0.05)


def expected_kept(count: int, f: float, minimum: int) -> int:
    """Buckley & Voorhees / Bompada: min(count, max(minimum, ceil(f * count))), in plain Python."""
    need = math.ceil(round(f * count, 9))
    return min(count, max(minimum, need))


def per_topic_counts(j: JudgedRuns, mask: np.ndarray) -> tuple[list[int], list[int]]:
    rel, non = [], []
    for t in range(j.n_topics):
        lo, hi = j.qrels_offsets[t], j.qrels_offsets[t + 1]
        g = j.levels[j.qrels_level[lo:hi]]
        m = mask[lo:hi]
        rel.append(int((m & (g >= 1)).sum()))
        non.append(int((m & (g < 1)).sum()))
    return rel, non


# ------------------------------------------------------------------------------------------ sampling
@pytest.mark.parametrize("f", FRACTIONS)
def test_minimums_and_counts_synthetic(f):
    j = synthetic()
    mask = reduction_mask(j, f, seed=3)
    rel, non = per_topic_counts(j, mask)
    R, N = per_topic_counts(j, np.ones_like(mask))
    assert R == [0, 1, 3, 40, 7] and N == [5, 3, 30, 200, 12]  # -2 counts as non-relevant
    assert rel == [expected_kept(r, f, 1) for r in R]
    assert non == [expected_kept(n, f, 10) for n in N]


@pytest.mark.parametrize("f", [0.5, 0.1, 0.05])
def test_minimums_and_counts_trec9(embedded_trec9, f):
    r = reduce_qrels(embedded_trec9, f, seed=11)
    R, N = embedded_trec9.n_relevant(), embedded_trec9.n_nonrelevant()
    assert r.n_relevant().tolist() == [expected_kept(int(x), f, 1) for x in R]
    assert r.n_nonrelevant().tolist() == [expected_kept(int(x), f, 10) for x in N]
    assert (r.n_relevant() >= np.minimum(R, 1)).all() and (r.n_nonrelevant() >= np.minimum(N, 10)).all()


def test_rounding_options_and_minimums_keywords():
    j = synthetic()
    R, N = [0, 1, 3, 40, 7], [5, 3, 30, 200, 12]
    rel, non = per_topic_counts(j, reduction_mask(j, 0.3, seed=0, rounding="floor", min_relevant=2, min_nonrelevant=0))
    assert rel == [min(r, max(2, math.floor(0.3 * r + 1e-9))) for r in R]
    assert non == [math.floor(0.3 * n + 1e-9) for n in N]
    rel, _ = per_topic_counts(j, reduction_mask(j, 0.3, seed=0, rounding="round", min_relevant=0))
    assert rel == [0, 0, 1, 12, 2]  # 0.3 * (0, 1, 3, 40, 7) = 0, .3, .9, 12, 2.1 rounded half up


def test_relevance_level_moves_grade_1_to_nonrelevant():
    j = synthetic()
    mask = reduction_mask(j, 0.05, seed=0, relevance_level=2)
    # topic 3: 10 grade-2 docs are "relevant" (keep max(1, ceil(.5)) = 1), 230 others (keep max(10, ceil(11.5)) = 12)
    lo, hi = j.qrels_offsets[3], j.qrels_offsets[4]
    g = j.levels[j.qrels_level[lo:hi]]
    m = mask[lo:hi]
    assert (m & (g >= 2)).sum() == 1 and (m & (g < 2)).sum() == 12


def test_nested_across_fractions(embedded_trec9):
    masks = reduction_mask(embedded_trec9, list(FRACTIONS), seed=5)
    for big, little in zip(masks[:-1], masks[1:]):
        assert (little <= big).all() and little.sum() < big.sum()
    # same through the tensors: judged positions at f = 0.1 are judged (same grade) at f = 0.3
    r1, r3 = reduce_qrels(embedded_trec9, 0.1, seed=5), reduce_qrels(embedded_trec9, 0.3, seed=5)
    j1, j3 = r1.grades >= 0, r3.grades >= 0
    assert (j1 <= j3).all()
    assert np.array_equal(r1.levels[r1.grades[j1]], r3.levels[r3.grades[j1]])
    assert np.array_equal(r3.levels[r3.grades[j3]], embedded_trec9.levels[embedded_trec9.grades[j3]])


def test_proportions_close_to_f(embedded_trec9):
    R, N = embedded_trec9.n_relevant(), embedded_trec9.n_nonrelevant()
    for f in (0.7, 0.5, 0.3, 0.1):
        mask = reduction_mask(embedded_trec9, f, seed=2)
        rel, non = per_topic_counts(embedded_trec9, mask)
        big = R >= 50
        assert np.all(np.abs(np.array(rel)[big] / R[big] - f) <= 1 / R[big] + 1e-12)
        assert np.all(np.abs(np.array(non) / N - f) <= np.maximum(1 / N, 10 / N) + 1e-12)
        assert abs(mask.mean() - f) < 0.01


def test_inclusion_is_uniform_within_a_stratum():
    # topic 3 has 200 non-relevant documents; at f = 0.3 each should be kept with probability 60/200
    j = synthetic()
    lo = j.qrels_offsets[3]
    non = lo + 40 + np.arange(200)
    hits = np.zeros(200)
    n_seeds = 400
    for s in range(n_seeds):
        hits += reduction_mask(j, 0.3, seed=s)[non]
    p = 60 / 200
    z = (hits / n_seeds - p) / math.sqrt(p * (1 - p) / n_seeds)
    assert np.abs(z).max() < 4.5  # no document favoured (Bonferroni over 200 docs)
    chi2 = float((z ** 2).sum())
    assert scipy.stats.chi2.sf(chi2, df=200) > 1e-4


def test_seeds_reproducible_and_distinct(embedded_trec9):
    a = reduction_mask(embedded_trec9, 0.3, seed=7)
    assert np.array_equal(a, reduction_mask(embedded_trec9, 0.3, seed=7))
    assert np.array_equal(a, reduction_mask(embedded_trec9, 0.3, seed=np.random.default_rng(7)))
    b = reduction_mask(embedded_trec9, 0.3, seed=8)
    assert not np.array_equal(a, b) and a.sum() == b.sum()
    r1, r2 = reduce_qrels(embedded_trec9, 0.3, seed=7), reduce_qrels(embedded_trec9, 0.3, seed=7)
    assert np.array_equal(r1.grades, r2.grades) and np.array_equal(r1.doc_ids, r2.doc_ids)


def test_fraction_one_is_identity(embedded_trec9):
    r = reduce_qrels(embedded_trec9, 1.0, seed=3)
    assert np.array_equal(r.grades, embedded_trec9.grades)
    assert np.array_equal(r.doc_ids, embedded_trec9.doc_ids)
    assert np.array_equal(r.qrels_level, embedded_trec9.qrels_level)
    assert r.report["reduction"]["fraction"] == 1.0


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(fraction=0.0), ValueError, r"`fraction` must be a number in \(0, 1\]"),
        (dict(fraction=1.5), ValueError, r"`fraction` must be a number in \(0, 1\] \(the share of judgments kept\); got 1.5"),
        (dict(fraction="half"), TypeError, "`fraction` must be a number"),
        (dict(fraction=0.5, rounding="up"), ValueError, "`rounding` must be one of"),
        (dict(fraction=0.5, min_relevant=-1), ValueError, "`min_relevant` must be an integer >= 0"),
        (dict(fraction=0.5, seed="x"), TypeError, "`seed` must be a non-negative integer, None"),
    ],
)
def test_reduce_qrels_errors(embedded_trec9, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        reduce_qrels(embedded_trec9, **kwargs)


def test_reduce_qrels_rejects_non_tensor():
    with pytest.raises(TypeError, match="`judged` must be a metrics.JudgedRuns"):
        reduce_qrels(np.zeros((3, 3)), 0.5)


# --------------------------------------------------------------- tensor path vs re-judging from scratch
def test_reduced_tensor_equals_rejudged_reduced_qrels_file(tmp_path):
    trec9_dir = shared("trec9-web-wt10g")
    QRELS = trec9_dir / "qrels.trec9.web.451-500.txt"
    runs = sorted(glob.glob(f"{trec9_dir}/runs_full_xz/*.xz"))[::26][:4]
    full = metrics.judge(runs, QRELS, workers=1)
    mask = reduction_mask(full, 0.2, seed=4)

    # qrels lines in the tensor's judged-document order: topics in natural order, file order within a topic
    q = metrics.read_qrels(QRELS)
    topic_pos = pd.Index(list(full.topics)).get_indexer(q.topic)
    order = np.argsort(topic_pos, kind="stable")
    assert np.array_equal(q.grade[order], full.levels[full.qrels_level])  # the mapping lines up
    kept = order[mask]
    lines = [f"{t} 0 {d} {int(g)}" for t, d, g in zip(q.topic[kept], q.docno[kept], q.grade[kept])]
    path = tmp_path / "qrels.reduced.txt"
    path.write_text("\n".join(lines) + "\n")

    rejudged = metrics.judge(runs, path, workers=1)
    reduced = reduce_qrels(full, 0.2, seed=4)
    assert rejudged.systems == reduced.systems and rejudged.topics == reduced.topics
    assert np.array_equal(rejudged.n_relevant(), reduced.n_relevant())
    for m in ("AP", "P@10", "nDCG@100", "nDCG", "Bpref", "infAP", "RBP(p=0.8)"):
        for cond in (False, True):
            a = metrics.evaluate(reduced, m, judged_only=cond)
            b = metrics.evaluate(rejudged, m, judged_only=cond)
            np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), rtol=0, atol=1e-12, err_msg=f"{m} {cond}")


def test_fraction_rows_in_the_order_given_and_each_equal_to_its_own_draw():
    # one random order per seed serves every fraction: row i of a multi-fraction mask is the mask of fractions[i]
    j = synthetic()
    both = reduction_mask(j, [0.1, 0.5], seed=9)
    assert both.shape == (2, j.qrels_level.size) and both.dtype == bool
    assert np.array_equal(both[0], reduction_mask(j, 0.1, seed=9))
    assert np.array_equal(both[1], reduction_mask(j, 0.5, seed=9))
    assert (both[0] <= both[1]).all()


def test_report_records_the_reduction():
    j = synthetic()
    r = reduce_qrels(j, 0.3, seed=4, min_relevant=2, rounding="floor")
    assert r.report["reduction"] == {"fraction": 0.3, "seed": 4, "relevance_level": 1, "min_relevant": 2,
                                     "min_nonrelevant": 10, "rounding": "floor"}
    # a Generator is not recorded as a seed (it cannot be written down)
    assert reduce_qrels(j, 0.3, seed=np.random.default_rng(4)).report["reduction"]["seed"] is None
    # dropped judgments become unjudged where a run retrieved them; kept ones keep their grade
    kept = r.grades >= 0
    assert np.array_equal(r.levels[r.grades[kept]], j.levels[j.grades[kept]])
    assert ((j.grades >= 0) & ~kept <= (r.grades == UNJUDGED)).all()


from metrics._toy import single_topic  # noqa: E402
from metrics.io.judged import check_judged  # noqa: E402
from metrics.io.reduce import check_fractions, reduction_mask, reduction_masks, stratify  # noqa: E402

def test_check_fractions_sorts_descending_and_names_the_parameter():
    assert check_fractions([0.1, 1, 0.5]) == (1.0, 0.5, 0.1)
    with pytest.raises(TypeError, match=r"`fractions` must be a sequence of numbers in \(0, 1\]; got 0.5"):
        check_fractions(0.5)
    with pytest.raises(ValueError, match=r"`fractions` must be distinct; got \[0.5, 0.5\]"):
        check_fractions([0.5, 0.5])
    with pytest.raises(ValueError, match=r"`fractions` must be a number in \(0, 1\]") as caught:
        check_fractions([0.5, 0])
    assert caught.value.param == "fractions"  # each fraction by the parameter table's rule of `fraction`
    with pytest.raises(ValueError, match="`fractions` must not be empty"):
        check_fractions([])


def test_check_judged():
    # (the sampling's relevance_level, min_relevant, min_nonrelevant and rounding are the parameter table's:
    # tests/test_gtheory_kit_params.py)
    with pytest.raises(TypeError, match="`judged` must be a metrics.JudgedRuns"):
        check_judged([[1]])


def test_strata_count_each_topics_relevant_and_nonrelevant_judgments():
    # one topic, qrels grades 2, 1, 0, 0, -2 at relevance level 1: R = 2, N = 3 (the -2 is a judgment of
    # non-relevance for the sampling)
    j = single_topic([[2]], qrels=[2, 1, 0, 0, -2])
    st = stratify(j, np.random.default_rng(0), 1.0)
    assert st.counts.tolist() == [2, 3]
    levels = j.levels[j.qrels_level]
    assert st.stratum.tolist() == [0 if g >= 1 else 1 for g in levels]
    for k in (0, 1):  # ranks within each stratum are a permutation of 0..count-1
        assert sorted(st.rank[st.stratum == k].tolist()) == list(range(st.counts[k]))


def test_reduction_masks_are_reduction_mask():
    j = single_topic([[1, 0, 1]], qrels=[1] * 30 + [0] * 60)
    fr = check_fractions([0.5, 0.2])
    masks = reduction_masks(j, stratify(j, np.random.default_rng(3), 1.0), fr, 1, 10, "ceil")
    assert np.array_equal(masks, reduction_mask(j, list(fr), seed=3))
    assert masks.sum(axis=1).tolist() == [15 + 30, 6 + 12]  # ceil(f R) + ceil(f N)
