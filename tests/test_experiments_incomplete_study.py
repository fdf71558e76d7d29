"""Tests of experiments/incomplete/study.py (incomplete judgments). The confusion matrix, the knee and tuned
stability, the plots and the robustness study have their own files (test_experiments_incomplete_confusion.py,
test_experiments_incomplete_knee.py, test_experiments_incomplete_plots.py, test_experiments_incomplete_robustness.py).

Independent references used here:
* Kendall's tau against ``scipy.stats.kendalltau`` (tau-b);
* Φ against ``gtheory.gstudy(...).phi``;
* the sampling itself (metrics/io/reduce.py) is tested in test_metrics_io_reduce.py.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats

import metrics
from metrics import JudgedRuns, reduce_qrels
from experiments import (
    bootstrap_asl,
    incompleteness_study,
    summarize_study,
    tau_ap,
)

FRACTIONS = (1.0, 0.7, 0.5, 0.3, 0.2, 0.1, 0.05)


@pytest.fixture(scope="module")
def small(embedded_trec9) -> JudgedRuns:
    """20 systems, all 50 topics: enough for rankings, fast enough for studies."""
    return embedded_trec9.subset(systems=np.arange(0, 104, 5)[:20])


# ------------------------------------------------------------------------------------------- study
@pytest.fixture(scope="module")
def study_small(small):
    measures = {"nDCG@100": "nDCG@100", "AP": "AP", "P@10 (callable)": lambda j: metrics.evaluate(j, "P@10")}
    return incompleteness_study(small, measures, fractions=(1.0, 0.5, 0.1), seeds=2, test="bootstrap", n_resamples=300)


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
        asl = bootstrap_asl(scores, n_resamples=300, seed=0)["asl"].to_numpy()
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
    with pytest.raises(ValueError, match=r"`fractions` must be a number in \(0, 1\]"):
        incompleteness_study(small, "AP", fractions=(1.0, 0.0))
    with pytest.raises(ValueError, match="`seeds` must be a number of seeds >= 1 .*distinct"):
        incompleteness_study(small, "AP", seeds=[1, 1])
    with pytest.raises(TypeError, match=r"`measures\['x'\]` must be a measure name"):
        incompleteness_study(small, {"x": 3})
    with pytest.raises(ValueError, match="name the plain measure"):
        incompleteness_study(small, "AP'", fractions=(1.0,), test=None)
    with pytest.raises(ValueError, match="returned shape"):
        incompleteness_study(small, lambda j: np.zeros((2, 2)), test=None)


# -------------------------------------------------------------------------------- tuned stability


# ------------------------------------------------------------------------------------------- plots


def test_tau_ap_variant_is_the_same_for_plain_and_condensed_lists(embedded_trec9):
    # nDCG@10 on TREC-9: the plain full-qrels means have a tie (103 distinct of 104), the condensed ones none.
    # Both curves must use the same variant ("b", since "a" needs an untied reference), and f = 1 gives
    # exactly tau_AP = 1.
    plain = metrics.evaluate(embedded_trec9, "nDCG@10").to_numpy().mean(axis=1)
    cond = metrics.evaluate(embedded_trec9, "nDCG@10", judged_only=True).to_numpy().mean(axis=1)
    assert np.unique(plain).size < 104 == np.unique(cond).size
    df = incompleteness_study(embedded_trec9, "nDCG@10", fractions=[1.0, 0.3], seeds=1, test=None)
    assert set(df.judged_only) == {False, True} and set(df.tau_ap_variant) == {"b"}
    assert (df.loc[df.fraction == 1.0, "tau_ap"] == 1.0).all()
    assert df.tau_ap.between(-1.0, 1.0).all()
    # a measure without ties in either list type uses "a" for both
    ap = incompleteness_study(embedded_trec9, "AP", fractions=[1.0], seeds=1, test=None)
    assert set(ap.tau_ap_variant) == {"a"}


def test_tau_ap_variant_sees_means_tied_in_exact_arithmetic(embedded_trec9):
    # P@10 means are multiples of 1/500: two TREC-9 runs with the same number of relevant documents in their top 10
    # have equal means, but summed from different per-topic values the floats can differ in the last bits. The
    # study chose the variant with np.unique on the raw means ("a", untied) and tau_ap, which sees the tie, raised
    # "`a` must have no tied mean scores". Reference: the relevant counts, integers, with scipy's tau-b.
    p10 = metrics.evaluate(embedded_trec9, "P@10").to_numpy()
    hits = np.rint(p10 * 10).astype(int).sum(axis=1)
    means = p10.mean(axis=1)
    a, b = next((i, k) for i in range(len(hits)) for k in range(i + 1, len(hits))
                if hits[i] == hits[k] and means[i] != means[k])
    rest = [i for i in range(len(hits)) if hits[i] != hits[a] and i not in (a, b)]
    rest = [i for n, i in enumerate(rest) if hits[i] not in hits[rest[:n]]][:6]  # distinct totals: one tie only
    sub = embedded_trec9.subset(systems=[embedded_trec9.systems[i] for i in sorted([a, b, *rest])])
    df = incompleteness_study(sub, "P@10", fractions=[1.0, 0.5], seeds=[0], judged_only=False, test=None)
    assert list(df.tau_ap_variant) == ["b", "b"]
    assert df.tau_ap.iloc[0] == 1.0 and df.tau.iloc[0] == 1.0
    full = np.rint(metrics.evaluate(sub, "P@10").to_numpy() * 10).sum(axis=1)
    red = np.rint(metrics.evaluate(reduce_qrels(sub, 0.5, seed=0), "P@10").to_numpy() * 10).sum(axis=1)
    row = df.loc[df.fraction == 0.5].iloc[0]
    assert row.tau == pytest.approx(scipy.stats.kendalltau(full, red).statistic, abs=1e-12)
    assert row.tau_ap == pytest.approx(tau_ap(full.astype(float), red.astype(float), variant="b"), abs=1e-12)


def test_progress_true_prints_on_stderr(small, capsys):
    incompleteness_study(small, "AP", fractions=[1.0, 0.5], seeds=1, judged_only=False, test=None, progress=True)
    err = capsys.readouterr().err.splitlines()
    assert err == ["[1/2] AP: f=1, seed 0", "[2/2] AP: f=0.5, seed 0"]
