"""experiments.compare.systems (compare()): each test against an independent reference (scipy.stats, statsmodels, brute-force
enumeration), the corrections against statsmodels' multipletests, the effect sizes against statsmodels' ANOVA, the
outputs (LaTeX, Markdown, CSV, JSON) and the command line."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

from experiments import bootstrap_asl, tukey_hsd_randomised
from experiments.compare import Comparison, compare
from experiments.compare.systems import residual_variance


def _matrix(m=5, n=30, seed=0, shift=(0.3, 0.0, 0.05, 0.1, 0.0)):
    rng = np.random.default_rng(seed)
    X = rng.random((m, n)) * 0.6 + np.asarray(shift[:m])[:, None]
    return _named(pd.DataFrame(X, index=[f"run{i}" for i in range(m)], columns=[f"q{j}" for j in range(n)]))


def _named(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows are systems, columns topics, said by the axis names (unnamed labelled tables are refused as ambiguous)."""
    return frame.rename_axis(index="system", columns="topic")


def _pairs(c: Comparison, X: pd.DataFrame):
    for r in c.table.itertuples(index=False):
        yield r, X.loc[r.a].to_numpy(), X.loc[r.b].to_numpy()


# ------------------------------------------------------------------------------------------ p-values vs scipy


def test_t_test_equals_scipy_ttest_rel_with_its_interval():
    X = _matrix()
    c = compare(X, test="t", alpha=0.1)
    assert len(c.table) == 10
    for r, a, b in _pairs(c, X):
        ref = stats.ttest_rel(a, b)
        # the same formula evaluated in a different order: agreement to a few ulps of the t statistic
        assert r.statistic == pytest.approx(ref.statistic, rel=1e-10)
        assert r.p == pytest.approx(ref.pvalue, rel=1e-9)
        lo, hi = ref.confidence_interval(confidence_level=0.9)
        assert (r.ci_lo, r.ci_hi) == pytest.approx((lo, hi), rel=1e-9)
        assert r.diff == pytest.approx(a.mean() - b.mean(), abs=1e-15)


def test_wilcoxon_equals_scipy_per_pair():
    X = _matrix(n=25)
    c = compare(X, test="wilcoxon")
    for r, a, b in _pairs(c, X):
        ref = stats.wilcoxon(a, b)  # continuous scores: no ties, exact null distribution for n <= 50
        assert r.p == pytest.approx(ref.pvalue, rel=1e-12)
        assert r.statistic == ref.statistic


def test_sign_test_equals_scipy_binomtest_including_zero_differences():
    X = _matrix(n=20)
    X.iloc[1, :6] = X.iloc[0, :6]  # six zero differences for the pair (run0, run1): dropped by the sign test
    c = compare(X, test="sign")
    for r, a, b in _pairs(c, X):
        d = a - b
        k, nz = int((d > 0).sum()), int((d != 0).sum())
        assert r.statistic == k
        assert r.p == pytest.approx(stats.binomtest(k, nz, 0.5).pvalue, rel=1e-12)


def _brute_randomization(d: np.ndarray) -> float:
    obs = abs(d.sum())
    hits = sum(abs(np.dot(s, d)) >= obs - 1e-12 for s in itertools.product((1, -1), repeat=len(d)))
    return hits / 2 ** len(d)


def test_exact_randomization_equals_brute_force_enumeration():
    X = _matrix(m=4, n=10)
    c = compare(X, test="randomization", n_resamples=2 ** 10)
    assert c.exact and c.n_resamples == 2 ** 10
    for r, a, b in _pairs(c, X):
        assert r.p == pytest.approx(_brute_randomization(a - b), abs=1e-15)


def test_exact_randomization_counts_ties_of_exact_arithmetic():
    # P@10-like scores (multiples of 0.1): sums that are equal in exact arithmetic differ in the last bits; the
    # reference works in integers (tenths), where there is no rounding
    rng = np.random.default_rng(3)
    T = rng.integers(0, 11, size=(3, 12))
    X = _named(pd.DataFrame(T / 10.0, index=["a", "b", "c"]))
    c = compare(X, test="randomization", n_resamples=2 ** 12)
    for r in c.table.itertuples(index=False):
        d = T[["abc".index(r.a)]][0] - T["abc".index(r.b)]
        obs = abs(int(d.sum()))
        hits = sum(abs(int(np.dot(s, d))) >= obs for s in itertools.product((1, -1), repeat=12))
        assert r.p == hits / 2 ** 12


def test_monte_carlo_randomization_within_binomial_error_of_exact():
    X = _matrix(m=4, n=15, shift=(0.1, 0.0, 0.02, 0.05))
    B = 4000
    c = compare(X, test="randomization", n_resamples=B, seed=7)
    assert not c.exact
    exact = compare(X, test="randomization", n_resamples=2 ** 15)
    assert exact.exact
    for p_mc, p_ex in zip(c.table["p"], exact.table["p"]):
        # (k+1)/(B+1) with k ~ Binomial(B, p): 5 standard errors plus the +1 bias bound
        assert abs(p_mc - p_ex) <= 5 * np.sqrt(p_ex * (1 - p_ex) / B) + 2.0 / B
        assert p_mc > 0  # never zero (Phipson & Smyth)


def test_bootstrap_equals_bootstrap_asl_same_seed():
    X = _matrix()
    c = compare(X, test="bootstrap", n_resamples=500, seed=11)
    ref = bootstrap_asl(X, n_resamples=500, seed=11)
    assert list(zip(c.table["a"], c.table["b"])) == list(zip(ref["system_a"], ref["system_b"]))
    np.testing.assert_array_equal(c.table["p"].to_numpy(), ref["asl"].to_numpy())


def test_tukey_hsd_matches_the_existing_implementation():
    X = _matrix()
    c = compare(X, test="tukey-hsd", n_resamples=400, seed=5)
    ref = tukey_hsd_randomised(X, n_resamples=400, seed=5)
    np.testing.assert_array_equal(c.table["p"].to_numpy(), ref["p_value"].to_numpy())
    np.testing.assert_array_equal(c.table["p_adjusted"].to_numpy(), ref["p_value"].to_numpy())
    with pytest.raises(ValueError, match="family-wise"):
        compare(X, test="tukey-hsd", correction="holm")


# ------------------------------------------------------------------------------------------ corrections, effects


def test_sakai_effect_size_uses_the_anova_residual_variance():
    import statsmodels.api as sm
    from statsmodels.formula.api import ols

    X = _matrix(m=4, n=12)
    long = X.stack().rename("score").rename_axis(["system", "topic"]).reset_index()
    fit = ols("score ~ C(system) + C(topic)", data=long).fit()
    ve = sm.stats.anova_lm(fit).loc["Residual", "mean_sq"]
    assert residual_variance(X.to_numpy()) == pytest.approx(ve, rel=1e-10)
    c = compare(X, test="t")
    np.testing.assert_allclose(c.table["effect_size"], c.table["diff"] / np.sqrt(ve), rtol=1e-10)
    dz = compare(X, test="t", effect_size="dz")
    for r, a, b in _pairs(dz, X):
        assert r.effect_size == pytest.approx((a - b).mean() / (a - b).std(ddof=1), rel=1e-10)


def test_residual_variance_is_translation_invariant():
    X = _matrix(m=4, n=12).to_numpy()
    # doubly centred sums of squares: an offset of 1e6 costs at most ~1e6 * eps relative precision
    assert residual_variance(X + 1e6) == pytest.approx(residual_variance(X), rel=1e-6)


# ------------------------------------------------------------------------------------------ baseline and selection


def test_baseline_pairs_each_run_with_the_baseline_and_keeps_it_under_top_k():
    X = _matrix()
    c = compare(X, baseline="run1", top_k=2)
    assert set(c.table["b"]) == {"run1"}
    assert "run1" in c.means.index and len(c.table) == 2
    full = compare(X, baseline="run1")
    assert list(full.table["a"]) == ["run0", "run2", "run3", "run4"]
    with pytest.raises(ValueError, match="baseline"):
        compare(X, baseline="nope")
    with pytest.raises(ValueError, match="test"):
        compare(X, test="z")


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["t", "sign", "wilcoxon", "randomization"]))
def test_p_values_are_probabilities_and_symmetric_in_the_pair(seed, test):
    rng = np.random.default_rng(seed)
    X = _named(pd.DataFrame(np.round(rng.random((3, 9)), 1), index=["a", "b", "c"]))
    c = compare(X, test=test, n_resamples=512)
    assert ((c.table["p"] >= 0) & (c.table["p"] <= 1)).all()
    Y = X.loc[["c", "b", "a"]]
    c2 = compare(Y, test=test, n_resamples=512)
    p1 = {frozenset((r.a, r.b)): r.p for r in c.table.itertuples()}
    p2 = {frozenset((r.a, r.b)): r.p for r in c2.table.itertuples()}
    for k in p1:
        assert p1[k] == pytest.approx(p2[k], abs=1e-12)


def test_real_scores_from_metrics_evaluate_follow_trec_eval_and_scipy(embedded_trec9):
    import metrics

    judged = embedded_trec9
    res = metrics.evaluate(judged, ["AP"])
    ap = res["AP"]
    top = ap.mean(axis=1).sort_values(ascending=False).index[:4]
    c = compare(ap, systems=list(top), test="t", correction="holm")
    for r, a, b in _pairs(c, ap):
        assert r.p == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-9)


# ------------------------------------------------------------------------------------------ outputs


# ------------------------------------------------------------------------------------------ command line








# ------------------------------------------------------------------------------------------ units and labels
# (issue 34, class 6: the same scores x 1e160 gave a t-test p of 1 and a bootstrap p of 0; x 1e-155 raised)

_UNIT_X = _matrix(m=4, n=14, seed=11)
_UNIT_REF = {}


def _unit_ref(test):
    if test not in _UNIT_REF:
        _UNIT_REF[test] = compare(_UNIT_X, test=test, correction=None if test == "tukey-hsd" else "holm",
                                  n_resamples=300, seed=5)
    return _UNIT_REF[test]


@settings(max_examples=30, deadline=None)
@given(k=st.integers(-150, 150), test=st.sampled_from(["t", "wilcoxon", "sign", "randomization", "bootstrap",
                                                      "tukey-hsd"]))
def test_p_values_effect_sizes_and_intervals_do_not_depend_on_the_units(k, test):
    # every statistic is computed on standardised scores: scaling by 10^k changes each score by one rounding
    # (relative 2^-53), so unit-free numbers agree to 1e-12 and locations scale by 10^k to 1e-12
    ref = _unit_ref(test)
    c = compare(_UNIT_X * 10.0 ** k, test=test, correction=None if test == "tukey-hsd" else "holm",
                n_resamples=300, seed=5)
    for col in ("p", "p_adjusted", "effect_size"):
        np.testing.assert_allclose(c.table[col], ref.table[col], rtol=1e-12, atol=0)
    assert list(c.table["significant"]) == list(ref.table["significant"])
    for col in ("mean_a", "mean_b", "diff", "ci_lo", "ci_hi"):
        np.testing.assert_allclose(c.table[col] / 10.0 ** k, ref.table[col], rtol=1e-12, atol=0)
    from experiments.compare.registry import test_named

    scale = 10.0 ** k if test_named(test).statistic_in_units else 1.0  # a mean difference, or unit-free
    np.testing.assert_allclose(c.table["statistic"] / scale, ref.table["statistic"], rtol=1e-12)
    assert c.min_detectable_difference / 10.0 ** k == pytest.approx(ref.min_detectable_difference, rel=1e-12)
    assert c.residual_variance / 10.0 ** (2 * k) == pytest.approx(ref.residual_variance, rel=1e-12)


def test_scores_in_huge_or_tiny_units_give_the_unscaled_p_values_without_errors():
    ref = compare(_UNIT_X, test="t").table["p"]
    for k in (160, -155, 300, -300):
        np.testing.assert_allclose(compare(_UNIT_X * 10.0 ** k, test="t").table["p"], ref, rtol=1e-12)
        np.testing.assert_allclose(compare(_UNIT_X * 10.0 ** k, test="bootstrap", n_resamples=500).table["p"],
                                   compare(_UNIT_X, test="bootstrap", n_resamples=500).table["p"], rtol=1e-12)


def test_systems_differing_by_exact_constants_have_no_residual_variance_and_say_so():
    base = np.round(np.random.default_rng(3).random(10), 1)  # P@10-like tenths
    X = _named(pd.DataFrame(base + np.array([[0.0], [0.1], [0.3]]), index=["a", "b", "c"],
                            columns=[f"q{j}" for j in range(10)]))
    with pytest.warns(UserWarning, match="V_E = 0"):
        c = compare(X)
    assert c.residual_variance == 0.0
    es = c.table.set_index(["a", "b"])["effect_size"]
    assert np.all(np.isinf(es)) and np.all(np.sign(es) == np.sign(c.table.set_index(["a", "b"])["diff"]))
    assert np.isnan(c.min_detectable_difference) and "power 0.8" not in c.summary()
    np.testing.assert_allclose(c.table["ci_hi"] - c.table["ci_lo"], 0.0, atol=0)  # s_d = 0: no spread


def test_identical_systems_detect_nothing_with_power():
    row = np.random.default_rng(4).random(12)
    X = _named(pd.DataFrame([row, row], index=["a", "b"], columns=[f"q{j}" for j in range(12)]))
    with pytest.warns(UserWarning, match="V_E = 0"):
        c = compare(X)
    r = c.table.iloc[0]
    assert r.p == 1.0 and r["diff"] == 0.0 and np.isnan(r.effect_size) and not r.significant
    assert "power 0.8" not in c.summary() and "0.000 with power" not in c.summary()


def test_labels_that_print_alike_are_refused_naming_both():
    X = _named(pd.DataFrame(np.random.default_rng(5).random((2, 10)), index=pd.Index([1, "1"], dtype=object),
                            columns=[f"q{j}" for j in range(10)]))
    with pytest.raises(ValueError, match=r"1 \(int\), '1' \(str\)"):
        compare(X)


def test_systems_as_one_string_is_refused_not_split_into_characters():
    with pytest.raises(TypeError, match=r"systems=\['run0'\]"):
        compare(_matrix(), systems="run0")


def test_a_topic_given_twice_is_refused_with_a_clear_message():
    X = _named(pd.DataFrame(np.random.default_rng(6).random((2, 3)), index=["a", "b"], columns=["q1", "q1", "q2"]))
    with pytest.raises(ValueError, match="duplicate topic labels: 'q1'"):
        compare(X)


# ------------------------------------------------------------------------------------------ resamples and limits
# (issue 34, classes 7 and 8)


def test_too_few_resamples_for_holm_warn_with_the_count_needed():
    # 20 runs, 190 pairs: Holm's first threshold 0.05/190 = 2.6e-4 is below 1/1001
    rng = np.random.default_rng(7)
    X = _named(pd.DataFrame(rng.random((20, 20)) * 0.2 + np.linspace(0, 0.8, 20)[:, None],
                            index=[f"r{i}" for i in range(20)], columns=[f"q{j}" for j in range(20)]))
    with pytest.warns(UserWarning, match=r"cannot give a p-value below 1/1001.*no pair can come out") as rec:
        c = compare(X, test="randomization", correction="holm", n_resamples=1000)
    w = next(r.message for r in rec if "n_resamples" in str(r.message))
    need = w.fix["n_resamples"]
    assert 1 / (need + 1) <= 0.05 / 190 < 1 / need  # the fewest that reach the threshold
    assert c.n_significant == 0  # what the warning is about: nothing can pass Holm's first step
    import warnings as _w

    with _w.catch_warnings():
        _w.simplefilter("error")  # enough resamples: no warning, and the clear differences come out
        c2 = compare(X, test="randomization", correction="holm", n_resamples=need)
    assert c2.n_significant > 0
    with pytest.warns(UserWarning, match="the pairs that need it cannot"):  # BH: only the smallest p-values
        compare(X, test="randomization", correction="bh", n_resamples=1000)


def test_too_few_topics_for_an_exact_test_warn_that_more_topics_are_needed():
    # 6 topics: the exact Wilcoxon and sign tests cannot go below 2/2^6 = 0.031, above Holm's 0.05/3
    X = _matrix(m=3, n=6, seed=12, shift=(0.6, 0.0, 0.3))
    for test in ("wilcoxon", "sign"):
        with pytest.warns(UserWarning, match=r"with 6 topics the .* cannot give a p-value below 0.0312"):
            compare(X, test=test, correction="holm")


def test_n_resamples_beyond_the_limit_is_refused_up_front_not_a_memory_error():
    from gtheory.kit.errors import ParameterError

    with pytest.raises(ParameterError, match=r"n_resamples.*100000000"):
        compare(_matrix(), test="randomization", n_resamples=10 ** 9)


def test_exact_randomisation_at_25_topics():
    X = _matrix(m=3, n=25, seed=8)
    c = compare(X, test="randomization", n_resamples=2 ** 25)
    assert c.exact and c.n_resamples == 2 ** 25
    assert np.all(c.table["p"] * 2 ** 24 == np.rint(c.table["p"] * 2 ** 24))  # multiples of 2/2^25
