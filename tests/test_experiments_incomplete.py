"""Tests of experiments/incomplete.py (incomplete judgments). The confusion matrix, the knee and tuned stability,
the plots and the robustness study have their own files (test_experiments_confusion.py,
test_experiments_incomplete_knee.py, test_experiments_incomplete_plots.py, test_experiments_robustness.py).

Independent references used here:
* the reduced qrels are written to a temporary qrels file and a few TREC-9 runs are re-judged from scratch
  with ``metrics.judge`` (no reuse of the tensor's document ids), then every measure is compared;
* Kendall's tau against ``scipy.stats.kendalltau`` (tau-b);
* Φ against ``gtheory.gstudy(...).phi``;
* the sampling formula min(count, max(minimum, ceil(f * count))) written out per topic in plain Python.
"""
from __future__ import annotations

import glob
import math

import numpy as np
import pandas as pd
import pytest
import scipy.stats

import metrics
from metrics import ABSENT, UNJUDGED, JudgedRuns
from conftest import shared
from experiments import (
    bootstrap_asl,
    incompleteness_study,
    knee,
    reduce_qrels,
    reduction_mask,
    summarize_study,
    tau_ap,
)

FRACTIONS = (1.0, 0.7, 0.5, 0.3, 0.2, 0.1, 0.05)


@pytest.fixture(scope="module")
def trec9() -> JudgedRuns:
    return metrics.load_trec9()


@pytest.fixture(scope="module")
def small(trec9) -> JudgedRuns:
    """20 systems, all 50 topics: enough for rankings, fast enough for studies."""
    return trec9.subset(systems=np.arange(0, 104, 5)[:20])


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
def test_minimums_and_counts_trec9(trec9, f):
    r = reduce_qrels(trec9, f, seed=11)
    R, N = trec9.n_relevant(), trec9.n_nonrelevant()
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


def test_nested_across_fractions(trec9):
    masks = reduction_mask(trec9, list(FRACTIONS), seed=5)
    for big, little in zip(masks[:-1], masks[1:]):
        assert (little <= big).all() and little.sum() < big.sum()
    # same through the tensors: judged positions at f = 0.1 are judged (same grade) at f = 0.3
    r1, r3 = reduce_qrels(trec9, 0.1, seed=5), reduce_qrels(trec9, 0.3, seed=5)
    j1, j3 = r1.grades >= 0, r3.grades >= 0
    assert (j1 <= j3).all()
    assert np.array_equal(r1.levels[r1.grades[j1]], r3.levels[r3.grades[j1]])
    assert np.array_equal(r3.levels[r3.grades[j3]], trec9.levels[trec9.grades[j3]])


def test_proportions_close_to_f(trec9):
    R, N = trec9.n_relevant(), trec9.n_nonrelevant()
    for f in (0.7, 0.5, 0.3, 0.1):
        mask = reduction_mask(trec9, f, seed=2)
        rel, non = per_topic_counts(trec9, mask)
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


def test_seeds_reproducible_and_distinct(trec9):
    a = reduction_mask(trec9, 0.3, seed=7)
    assert np.array_equal(a, reduction_mask(trec9, 0.3, seed=7))
    assert np.array_equal(a, reduction_mask(trec9, 0.3, seed=np.random.default_rng(7)))
    b = reduction_mask(trec9, 0.3, seed=8)
    assert not np.array_equal(a, b) and a.sum() == b.sum()
    r1, r2 = reduce_qrels(trec9, 0.3, seed=7), reduce_qrels(trec9, 0.3, seed=7)
    assert np.array_equal(r1.grades, r2.grades) and np.array_equal(r1.doc_ids, r2.doc_ids)


def test_fraction_one_is_identity(trec9):
    r = reduce_qrels(trec9, 1.0, seed=3)
    assert np.array_equal(r.grades, trec9.grades)
    assert np.array_equal(r.doc_ids, trec9.doc_ids)
    assert np.array_equal(r.qrels_level, trec9.qrels_level)
    assert r.report["reduction"]["fraction"] == 1.0


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(fraction=0.0), ValueError, r"`fraction` must lie in \(0, 1\]"),
        (dict(fraction=1.5), ValueError, r"`fraction` must lie in \(0, 1\] \(the share of judgments kept\); got 1.5"),
        (dict(fraction="half"), TypeError, "`fraction` must be a number"),
        (dict(fraction=0.5, rounding="up"), ValueError, "`rounding` must be one of"),
        (dict(fraction=0.5, min_relevant=-1), ValueError, "`min_relevant` must be an integer >= 0"),
        (dict(fraction=0.5, seed="x"), TypeError, "`seed` must be a non-negative integer, None or a numpy.random.Generator"),
    ],
)
def test_reduce_qrels_errors(trec9, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        reduce_qrels(trec9, **kwargs)


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


# -------------------------------------------------------------------------------- confusion matrix


# ------------------------------------------------------------------------------------------- study
@pytest.fixture(scope="module")
def study_small(small):
    measures = {"nDCG@100": "nDCG@100", "AP": "AP", "P@10 (callable)": lambda j: metrics.evaluate(j, "P@10")}
    return incompleteness_study(small, measures, fractions=(1.0, 0.5, 0.1), seeds=2, test="bootstrap", B=300)


def test_study_shape_and_reference_rows(study_small, small):
    df = study_small
    assert len(df) == 3 * 2 * 3 * 2
    assert set(df.measure) == {"nDCG@100", "AP", "P@10 (callable)"}
    assert df.measure.unique().tolist() == ["nDCG@100", "AP", "P@10 (callable)"]  # order given
    for _, g in df.groupby(["measure", "judged_only"]):
        assert g.fraction.tolist() == [1.0, 1.0, 0.5, 0.5, 0.1, 0.1] and g.seed.tolist() == [0, 1] * 3
    one = df[df.fraction == 1.0]
    assert (one.tau == 1.0).all() and (one.tau_ap == 1.0).all()
    assert (one.drift == 0.0).all() and (one.rmse == 0.0).all() and (one.accuracy == 1.0).all()
    assert (one.power == one.power_full).all() and (one.ns_sig == 0).all() and (one.sig_ns == 0).all()
    assert (one.judged_kept == 1.0).all()
    # f = 1 power equals an independent all-pairs bootstrap on the full-qrels scores (same B, seed)
    for (m, cond), expected in {("AP", False): "AP", ("AP", True): "AP'"}.items():
        scores = metrics.evaluate(small, expected)
        asl = bootstrap_asl(scores, B=300, seed=0)["asl"].to_numpy()
        got = one[(one.measure == m) & (one.judged_only == cond)].power
        assert (got == np.mean(asl < 0.05)).all()


def test_study_rows_match_direct_computation(study_small, small):
    row = study_small.query("measure == 'AP' and judged_only and fraction == 0.1 and seed == 1").iloc[0]
    full = metrics.evaluate(small, "AP'").mean(axis=1).to_numpy()
    reduced = metrics.evaluate(reduce_qrels(small, 0.1, seed=1), "AP'").mean(axis=1).to_numpy()
    assert row.tau == pytest.approx(scipy.stats.kendalltau(full, reduced).statistic, abs=1e-12)
    assert row.drift == pytest.approx(reduced.mean() - full.mean(), abs=1e-12)
    assert row.rmse == pytest.approx(np.sqrt(np.mean((full - reduced) ** 2)), abs=1e-12)
    assert row.n_pairs == 20 * 19 // 2
    assert row.ns_ns + row.ns_sig + row.sig_ns + row.sig_same + row.sig_opposite == row.n_pairs


def test_study_plain_measure_loses_more_than_condensed(study_small):
    # Sakai & Kando: the plain AP ranking degrades faster than AP' under reduction; plain means drop
    s = summarize_study(study_small)
    assert s.loc[("AP", False, 0.1), ("tau", "mean")] < s.loc[("AP", True, 0.1), ("tau", "mean")]
    assert s.loc[("AP", False, 0.1), ("drift", "mean")] < 0


def test_study_deterministic_and_seed_sensitive(small):
    kw = dict(fractions=(1.0, 0.3), test="t")
    a = incompleteness_study(small, "nDCG@20", seeds=[4], **kw)
    b = incompleteness_study(small, "nDCG@20", seeds=[4], **kw)
    c = incompleteness_study(small, "nDCG@20", seeds=[5], **kw)
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a.mean_reduced.iloc[-1], c.mean_reduced.iloc[-1])


def test_study_errors(small):
    with pytest.raises(ValueError, match="`fractions` must lie in"):
        incompleteness_study(small, "AP", fractions=(1.0, 0.0))
    with pytest.raises(ValueError, match="`seeds` must be distinct"):
        incompleteness_study(small, "AP", seeds=[1, 1])
    with pytest.raises(TypeError, match=r"`measures\['x'\]` must be a measure name"):
        incompleteness_study(small, {"x": 3})
    with pytest.raises(ValueError, match="name the plain measure"):
        incompleteness_study(small, "AP'", fractions=(1.0,), test=None)
    with pytest.raises(ValueError, match="returned shape"):
        incompleteness_study(small, lambda j: np.zeros((2, 2)), test=None)


# -------------------------------------------------------------------------------- tuned stability


# ------------------------------------------------------------------------------------------- plots


def test_tau_ap_variant_is_the_same_for_plain_and_condensed_lists(trec9):
    # nDCG@10 on TREC-9: the plain full-qrels means have a tie (103 distinct of 104), the condensed ones none.
    # Both curves must use the same variant ("b", since "a" needs an untied reference), and f = 1 gives
    # exactly tau_AP = 1.
    plain = metrics.evaluate(trec9, "nDCG@10").to_numpy().mean(axis=1)
    cond = metrics.evaluate(trec9, "nDCG@10", judged_only=True).to_numpy().mean(axis=1)
    assert np.unique(plain).size < 104 == np.unique(cond).size
    df = incompleteness_study(trec9, "nDCG@10", fractions=[1.0, 0.3], seeds=1, test=None)
    assert set(df.judged_only) == {False, True} and set(df.tau_ap_variant) == {"b"}
    assert (df.loc[df.fraction == 1.0, "tau_ap"] == 1.0).all()
    assert df.tau_ap.between(-1.0, 1.0).all()
    # a measure without ties in either list type uses "a" for both
    ap = incompleteness_study(trec9, "AP", fractions=[1.0], seeds=1, test=None)
    assert set(ap.tau_ap_variant) == {"a"}


def test_tau_ap_variant_sees_means_tied_in_exact_arithmetic(trec9):
    # P@10 means are multiples of 1/500: two TREC-9 runs with the same number of relevant documents in their top 10
    # have equal means, but summed from different per-topic values the floats can differ in the last bits. The
    # study chose the variant with np.unique on the raw means ("a", untied) and tau_ap, which sees the tie, raised
    # "`a` must have no tied mean scores". Reference: the relevant counts, integers, with scipy's tau-b.
    p10 = metrics.evaluate(trec9, "P@10").to_numpy()
    hits = np.rint(p10 * 10).astype(int).sum(axis=1)
    means = p10.mean(axis=1)
    a, b = next((i, k) for i in range(len(hits)) for k in range(i + 1, len(hits))
                if hits[i] == hits[k] and means[i] != means[k])
    rest = [i for i in range(len(hits)) if hits[i] != hits[a] and i not in (a, b)]
    rest = [i for n, i in enumerate(rest) if hits[i] not in hits[rest[:n]]][:6]  # distinct totals: one tie only
    sub = trec9.subset(systems=[trec9.systems[i] for i in sorted([a, b, *rest])])
    df = incompleteness_study(sub, "P@10", fractions=[1.0, 0.5], seeds=[0], judged_only=False, test=None)
    assert list(df.tau_ap_variant) == ["b", "b"]
    assert df.tau_ap.iloc[0] == 1.0 and df.tau.iloc[0] == 1.0
    full = np.rint(metrics.evaluate(sub, "P@10").to_numpy() * 10).sum(axis=1)
    red = np.rint(metrics.evaluate(reduce_qrels(sub, 0.5, seed=0), "P@10").to_numpy() * 10).sum(axis=1)
    row = df.loc[df.fraction == 0.5].iloc[0]
    assert row.tau == pytest.approx(scipy.stats.kendalltau(full, red).statistic, abs=1e-12)
    assert row.tau_ap == pytest.approx(tau_ap(full.astype(float), red.astype(float), variant="b"), abs=1e-12)


def test_legacy_condensed_column_is_read_with_a_warning():
    # the study column was named `condensed` before it took the parameter's name `judged_only`
    new = pd.DataFrame({"measure": "AP", "judged_only": [False, False, True, True], "fraction": [1.0, 0.5] * 2,
                        "seed": 0, "tau": [1.0, 0.95, 1.0, 0.8]})
    old = new.rename(columns={"judged_only": "condensed"})
    with pytest.warns(FutureWarning, match="'condensed' is now named 'judged_only'"):
        got = knee(old)
    pd.testing.assert_frame_equal(got, knee(new))
    assert list(got.judged_only) == [False, True] and list(got.knee) == [0.5, 1.0]
    with pytest.warns(FutureWarning):
        pd.testing.assert_frame_equal(summarize_study(old), summarize_study(new))


def test_metrics_reduce_qrels_is_the_experiments_one(trec9):
    # the reduction is a JudgedRuns operation in metrics; experiments.reduce_qrels stays as its alias
    a = metrics.reduce_qrels(trec9, 0.3, seed=2)
    b = reduce_qrels(trec9, 0.3, seed=2)
    assert np.array_equal(a.grades, b.grades) and a.report["reduction"] == b.report["reduction"]
    assert np.array_equal(metrics.reduction_mask(trec9, 0.3, seed=np.random.default_rng(2)),
                          reduction_mask(trec9, 0.3, seed=np.random.default_rng(2)))


def test_progress_true_prints_on_stderr(small, capsys):
    incompleteness_study(small, "AP", fractions=[1.0, 0.5], seeds=1, judged_only=False, test=None, progress=True)
    err = capsys.readouterr().err.splitlines()
    assert err == ["[1/2] AP: f=1, seed 0", "[2/2] AP: f=0.5, seed 0"]


