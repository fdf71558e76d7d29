"""Tests of experiments/incomplete.py and experiments/incomplete_plots.py (incomplete judgments).

Independent references used here:
* Kendall's tau against ``scipy.stats.kendalltau`` (tau-b);
* Φ against ``gtheory.gstudy(...).phi``;
* the confusion matrix against a hand-built case whose decisions are worked out in the comments;
* the sampling itself (metrics/reduce.py) is tested in test_metrics_reduce.py.
"""
from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
import scipy.stats

import gtheory
import metrics
from metrics import ABSENT, UNJUDGED, JudgedRuns
from conftest import load_matrix
from experiments import (
    SignificanceConfusion,
    bootstrap_asl,
    incompleteness_study,
    knee,
    plot_discriminative_power,
    plot_mean_drift,
    plot_phi_vs_fraction,
    plot_tau_vs_fraction,
    reduce_qrels,
    reduction_mask,
    significance_confusion,
    summarize_study,
    tuned_stability_under_incompleteness,
    tau_ap,
)


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


# -------------------------------------------------------------------------------- confusion matrix
def _hand_built():
    """Five systems, 40 topics; zero-mean wiggles p_k keep equal-mean pairs far from significance.

    full:    A=.8 B=.5 C=.5 D=.2 E=.5        reduced: A=.5 B=.5 C=.8 D=.2 E=.5
    pair  full reduced  cell (rows full, cols reduced; order a>b, n.s., a<b)
    AB    a>b  n.s.     [0,1]
    AC    a>b  a<b      [0,2]   significant in opposite directions
    AD    a>b  a>b      [0,0]
    AE    a>b  n.s.     [0,1]
    BC    n.s. a<b      [1,2]
    BD    a>b  a>b      [0,0]
    BE    n.s. n.s.     [1,1]
    CD    a>b  a>b      [0,0]
    CE    n.s. a>b      [1,0]
    DE    a<b  a<b      [2,2]
    """
    t = np.arange(40)
    wig = np.array([0.02 * np.sin(2 * np.pi * k * t / 40 + k) for k in range(1, 6)])
    full = np.array([0.8, 0.5, 0.5, 0.2, 0.5])[:, None] + wig
    red = np.array([0.5, 0.5, 0.8, 0.2, 0.5])[:, None] + wig
    labels = list("ABCDE")
    labels = pd.Index(labels, name="system")
    return pd.DataFrame(full, index=labels), pd.DataFrame(red, index=labels)


@pytest.mark.parametrize("test", ["t", "bootstrap", "wilcoxon"])
def test_confusion_matrix_hand_built(test):
    full, red = _hand_built()
    cm = significance_confusion(full, red, test=test, n_resamples=500, seed=1)
    assert isinstance(cm, SignificanceConfusion)
    assert cm.matrix.to_numpy().tolist() == [[3, 2, 1], [1, 1, 1], [0, 0, 1]]
    assert cm.bompada.to_numpy().tolist() == [[1, 2], [2, 5]]
    assert cm.n_pairs == 10 and cm.sig_opposite == 1 and cm.sig_same == 4
    assert cm.false_positive == 2 and cm.false_negative == 2
    assert cm.accuracy == pytest.approx(0.5)  # (C11 + same-direction C22) / 10 = (1 + 4) / 10
    assert cm.tp_rate == pytest.approx(1 / 3) and cm.predicted_positive_rate == pytest.approx(1 / 3)
    assert cm.g_mean == pytest.approx(1 / 3)
    assert cm.tn_rate == pytest.approx(4 / 7)  # same direction among the 7 pairs significant with full qrels
    row = cm.table.set_index(["system_a", "system_b"]).loc[("A", "C")]
    assert row.decision_full == 1 and row.decision_reduced == -1
    assert "accuracy 0.5000" in cm.summary()


def test_confusion_identical_matrices_and_top_k():
    full, _ = _hand_built()
    cm = significance_confusion(full, full, test="bootstrap", n_resamples=200, seed=3)
    c = cm.matrix.to_numpy()
    assert (c == np.diag(np.diag(c))).all() and cm.accuracy == 1.0
    # top_k by the *full* means: A, then B, C, E tied at .5 (stable order), so A, B, C
    cm3 = significance_confusion(full, full[::-1], test="t", top_k=3)
    assert cm3.n_pairs == 3 and set(cm3.table.system_a) | set(cm3.table.system_b) == {"A", "B", "C"}


def test_confusion_top_k_ties_at_the_cut_go_in_input_order():
    # web2013 P@10: the 8th and 9th systems by mean tie in exact arithmetic (same number of relevant documents)
    # but not as floats; the documented rule (ties in input order) is checked against the integer counts
    full = load_matrix("web2013_p10")
    hits = np.rint(full.to_numpy() * 10).astype(int).sum(axis=1)
    want = set(full.index[np.argsort(-hits, kind="stable")[:8]])
    assert want != set(full.index[np.argsort(-full.to_numpy().mean(axis=1), kind="stable")[:8]])  # rounding differs
    cm = significance_confusion(full, full, test="t", top_k=8)
    assert set(cm.table.system_a) | set(cm.table.system_b) == want


def test_confusion_errors():
    full, red = _hand_built()
    with pytest.raises(ValueError, match="`test` must be one of"):
        significance_confusion(full, red, test="z")
    with pytest.raises(ValueError, match="must cover the same systems"):
        significance_confusion(full, red.iloc[:4])
    with pytest.raises(ValueError, match="`alpha` must lie strictly between 0 and 1"):
        significance_confusion(full, red, alpha=1.0)


def test_confusion_old_keyword_B_warns_and_gives_the_same_decisions():
    full, red = _hand_built()
    new = significance_confusion(full, red, test="bootstrap", n_resamples=200, seed=1)
    with pytest.warns(FutureWarning, match="`B` is now called `n_resamples`"):
        old = significance_confusion(full, red, test="bootstrap", B=200, seed=1)
    pd.testing.assert_frame_equal(old.table, new.table)
    # a Generator is one seed drawn from it, the same for both matrices: identical matrices, identical decisions
    same = significance_confusion(full, full, test="bootstrap", n_resamples=200, seed=np.random.default_rng(4))
    assert same.accuracy == 1.0


def test_study_old_keyword_B_warns_and_gives_the_same_rows(small):
    kw = dict(fractions=(1.0, 0.5), seeds=1, test="bootstrap", test_seed=3)
    new = incompleteness_study(small, ["AP"], n_resamples=50, **kw)
    with pytest.warns(FutureWarning, match=r"incompleteness_study\(\): `B` is now called `n_resamples`"):
        old = incompleteness_study(small, ["AP"], B=50, **kw)
    pd.testing.assert_frame_equal(old, new)
    assert new.attrs["n_resamples"] == 50


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


@pytest.mark.parametrize("level, match", [
    (5.0, r"`relevance_level` must split the qrels grades \(-2 0 1 2\) into relevant \(>= it\) and non-relevant: "
          r"a value in \(-2, 2\]; got 5\."),
    (-2.0, r"a value in \(-2, 2\]; got -2\."),
    (float("nan"), r"got nan\."),
])
def test_robustness_study_refuses_a_relevance_level_that_splits_nothing(level, match):
    from experiments import robustness_study

    with pytest.raises(gtheory.ParameterError, match=match) as exc:
        robustness_study(synthetic(), ["AP"], fractions=(1.0,), seeds=1, relevance_level=level)
    assert exc.value.param == "relevance_level"


def test_knee_hand_built():
    df = pd.DataFrame({
        "measure": ["a"] * 8 + ["b"] * 4,
        "judged_only": False,
        "fraction": [1, 1, .5, .5, .3, .3, .1, .1, 1, .5, .3, .1],
        "seed": [0, 1] * 4 + [0] * 4,
        "tau": [1, 1, .95, .91, .85, .87, .92, .93, .8, .95, .99, .99],
    })
    k = knee(df).set_index("measure")
    assert k.loc["a", "knee"] == 0.5 and k.loc["a", "value_at_knee"] == pytest.approx(0.93)
    assert math.isnan(k.loc["b", "knee"])  # below the threshold at f = 1 already
    assert knee(df, 0.85, aggregate="min").set_index("measure").loc["a", "knee"] == 0.1
    with pytest.raises(ValueError, match="`value` 'nope' is not a column"):
        knee(df, value="nope")


# -------------------------------------------------------------------------------- tuned stability
def test_tuned_stability_reference_rows_and_fake_tuner(small):
    zipf = metrics.discount_vector("zipf", 20)
    calls = []

    def tuner(j):
        calls.append(j.qrels_level.size)
        return zipf

    df = tuned_stability_under_incompleteness(
        small, (1.0, 0.3), seeds=[0, 1], cutoff=20, standard_discounts=("log2",), tune=tuner
    )
    assert len(df) == 2 * 2 * 3
    assert len(calls) == 1 + 2  # once on the full qrels, then once per reduced (f < 1) tensor
    full_log = gtheory.gstudy(metrics.ndcg(small, gain=[0, 1, 2], discount="log2", cutoff=20))
    one = df[df.fraction == 1.0]
    for _, r in one[one.discount == "log2"].iterrows():
        assert r.phi == pytest.approx(full_log.phi(50), abs=1e-12)
        assert r.erho2 == pytest.approx(full_log.erho2(50), abs=1e-12)
        assert r.topics_needed == full_log.topics_needed(0.95).n
        assert r.tau == 1.0
    # with a tuner that always returns zipf, tuned rows equal nDCG with the zipf vector
    red = reduce_qrels(small, 0.3, seed=1)
    g = gtheory.gstudy(metrics.ndcg(red, gain=[0, 1, 2], discount=zipf, cutoff=20))
    for on in ("reduced", "full"):
        r = df.query(f"tuned_on == '{on}' and fraction == 0.3 and seed == 1").iloc[0]
        assert r.phi == pytest.approx(g.phi(50), abs=1e-12)


def test_tuned_stability_with_optimizer(small):
    df = tuned_stability_under_incompleteness(
        small, (1.0, 0.2), seeds=1, cutoff=20, standard_discounts=("log2",), tune=True,
        tune_options={"starts": 1},
    )
    one = df[df.fraction == 1.0].set_index(["discount", "tuned_on"])
    # the tuned discount maximises Φ on the data it was tuned on
    assert one.loc[("tuned", "full"), "phi"] >= one.loc[("log2", ""), "phi"] - 1e-9
    red = df[df.fraction == 0.2].set_index(["discount", "tuned_on"])
    assert red.loc[("tuned", "reduced"), "phi"] >= red.loc[("tuned", "full"), "phi"] - 1e-6
    assert red.loc[("tuned", "reduced"), "phi"] >= red.loc[("log2", ""), "phi"] - 1e-6
    assert len(df.attrs["full_tuned_discount"]) == 20


def test_tuned_stability_errors(small):
    with pytest.raises(ValueError, match="nothing to evaluate"):
        tuned_stability_under_incompleteness(small, (1.0,), seeds=1, standard_discounts=(), tune=False)
    with pytest.raises(ValueError, match="`n_topics` must be a positive number"):
        tuned_stability_under_incompleteness(small, (1.0,), seeds=1, tune=False, n_topics=0)


# ------------------------------------------------------------------------------------------- plots
def test_plots(study_small, small):
    import matplotlib.pyplot as plt

    ax = plot_tau_vs_fraction(study_small)
    labels = ax.get_legend_handles_labels()[1]
    assert "AP" in labels and "AP′ (condensed)" in labels and "τ = 0.9" in labels
    assert ax.get_xlabel() == "fraction of judgments kept (f)" and "Kendall" in ax.get_ylabel()
    assert len(ax.lines) == 6 + 1
    ax = plot_tau_vs_fraction(study_small, value="accuracy", threshold=None, log_x=True)
    assert ax.get_xscale() == "log" and "accuracy" in ax.get_ylabel()
    ax = plot_mean_drift(study_small, value="drift")
    assert ax.get_legend() is not None and "mean score" in ax.get_ylabel()
    ax = plot_discriminative_power(study_small)
    y = ax.lines[0].get_ydata()
    assert np.all((0 <= y) & (y <= 1)) and "discriminative power" in ax.get_ylabel()
    tuned = tuned_stability_under_incompleteness(small, (1.0, 0.5), seeds=1, cutoff=20, tune=False)
    ax = plot_phi_vs_fraction(tuned, target=0.95)
    assert ax.get_legend_handles_labels()[1] == ["log2", "zipf", "linear", "target 0.95"]
    with pytest.raises(ValueError, match="no 'power' column"):
        plot_discriminative_power(study_small.drop(columns="power"))
    plt.close("all")


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


def test_tuned_stability_on_condensed_lists_shallower_than_the_cutoff():
    # at 10 % of TREC-9's judgments the condensed lists hold at most 75 documents: nDCG'@100 equals
    # nDCG'@75 for every discount, and the tuner works at that depth instead of failing (the
    # optimiser refuses to tune discounts of ranks that change no score)
    import metrics
    from experiments import tuned_stability_under_incompleteness
    from experiments.incomplete import reduce_qrels
    from optimize.objective import identified_depth

    j = metrics.load_trec9().subset(topics=list(range(12)))
    depth = identified_depth(reduce_qrels(j, 0.1, 0), judged_only=True)
    assert depth < 100
    df = tuned_stability_under_incompleteness(j, [0.1], seeds=1, standard_discounts=["log2"], cutoff=100,
                                              judged_only=True, tune_options={"starts": 1})
    assert set(df.discount) >= {"log2"} and len(df.discount.unique()) == 2
    assert (df.phi > 0).all()


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


def test_robustness_study_takes_judged_only_and_seeds_as_a_list(small):
    from experiments import robustness_study

    a = robustness_study(small, ["AP"], fractions=[1.0, 0.5], seeds=[0, 1], judged_only=True, test=None)
    assert set(a.results.judged_only) == {False, True} and sorted(set(a.results.seed)) == [0, 1] and a.seeds == 2
    with pytest.warns(FutureWarning, match="`condensed` is now `judged_only`"):
        b = robustness_study(small, ["AP"], fractions=[1.0, 0.5], seeds=2, condensed=True, test=None)
    pd.testing.assert_frame_equal(a.results, b.results)
