"""Tests of gtheory.gstudy (crossed systems × topics G-study / D-study).

External references used:
* Brennan (2001) synthetic data set 1 (p × i) — published components, MS, SS, df, Eρ², Φ and the
  D-study at 5/10/15/20 items (transcribed in GeneralizIT's fixtures; see the data SOURCE.txt).
* Brennan (2001) Table 6.2 (synthetic set 4 analysed as p × i, 10 persons × 12 items) — numbers
  as asserted in gt4ireval's tests/testthat/test.gstudy.R.
* statsmodels: ``anova_lm(ols("score ~ C(system) + C(topic)", df).fit())`` (type I, balanced)
  and ``MixedLM`` REML with crossed variance components.
* a 3 × 2 matrix worked by hand (see test_hand_computed).
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import gtheory
from gtheory import NegativeVarianceWarning, gstudy

from conftest import load_matrix, shared

BRENNAN = ("gtheory-textbook", "brennan2001_via_GeneralizIT")
MATRICES = ("score-matrices", "sigir2018-simulation")


def published(value: float, pub: str) -> None:
    """Assert ``value`` rounds to the published number ``pub`` (given as printed, e.g. '.0574')."""
    decimals = len(pub.split(".")[1]) if "." in pub else 0
    assert abs(value - float(pub)) <= 0.5 * 10.0**-decimals + 1e-12, (value, pub)


@pytest.fixture(scope="module")
def synthetic1() -> pd.DataFrame:
    return pd.read_csv(shared(*BRENNAN, "synthetic1_p_x_i.csv"), index_col=0)


@pytest.fixture(scope="module")
def synthetic4_pxi() -> pd.DataFrame:
    # gt4ireval's `synthetic4`: Brennan's synthetic set 4 recast as 10 persons x 12 items
    return pd.read_csv(shared(*BRENNAN, "synthetic4_p_x_r_nested_in_t.csv"), index_col=0)


def trec(name: str) -> pd.DataFrame:
    return gtheory.read_scores(shared(*MATRICES, name), orientation="topics-by-systems")


TREC_FILES = ["web2010_ndcg20.csv", "web2013_ap.csv", "web2014_err20.csv", "robust2004_ap.csv"]
SM_FILES = ["web2010_ndcg20.csv", "web2011_ap.csv", "web2013_ap.csv", "web2014_err20.csv"]


# ----------------------------------------------------------------- published numbers
def test_brennan_synthetic1_gstudy(synthetic1):
    g = gstudy(synthetic1)
    assert (g.n_systems, g.n_topics) == (10, 12)
    assert (g.df_system, g.df_topic, g.df_residual) == (9, 11, 99)
    published(g.var_system, ".0574")
    published(g.var_topic, ".0754")
    published(g.var_residual, ".1269")
    published(g.ms_system, ".8157")
    published(g.ms_topic, ".8811")
    published(g.ms_residual, ".1269")
    published(g.ss_system, "7.3417")
    published(g.ss_topic, "9.6917")
    published(g.ss_residual, "12.5583")
    published(g.erho2(), ".844")
    published(g.phi(), ".773")


@pytest.mark.parametrize(
    "n, erho2, phi", [(5, ".693", ".586"), (10, ".819", ".740"), (15, ".871", ".810"), (20, ".901", ".850")]
)
def test_brennan_synthetic1_dstudy(synthetic1, n, erho2, phi):
    # Brennan's D-study values were computed from rounded components: several are one unit off
    # in the 3rd decimal from the exact values (SOURCE.txt notes .694/.587 at n=5), so the
    # tolerance here is one unit of the last published digit.
    g = gstudy(synthetic1)
    assert abs(g.erho2(n) - float(erho2)) <= 1e-3 + 1e-12
    assert abs(g.phi(n) - float(phi)) <= 1e-3 + 1e-12
    # ...and the exact values follow from the published (4-decimal) components to 3 decimals
    vs, vt, ve = 0.0574, 0.0754, 0.1269
    assert g.erho2(n) == pytest.approx(vs / (vs + ve / n), abs=5e-4)
    assert g.phi(n) == pytest.approx(vs / (vs + (vt + ve) / n), abs=5e-4)


def test_brennan_table_6_2_synthetic4_as_pxi(synthetic4_pxi):
    # gt4ireval test.gstudy.R, "Table 6.2 on page 182"
    g = gstudy(synthetic4_pxi)
    assert (g.n_systems, g.n_topics) == (10, 12)
    published(g.var_system, ".6258")
    published(g.var_topic, ".8840")
    published(g.var_residual, "2.7872")
    published(g.ms_system, "10.2963")
    published(g.ms_topic, "11.6273")
    published(g.ms_residual, "2.7872")


def test_drop_lowest_matches_gt4ireval(synthetic4_pxi):
    # gt4ireval: gstudy(synthetic4, drop = .3)$n.s == 7 ("2nd and 3rd are tied"); drop = .2 -> 9
    assert gstudy(synthetic4_pxi, drop_lowest=0.3).n_systems == 7
    g = gstudy(synthetic4_pxi, drop_lowest=0.2)
    assert g.n_systems == 9
    means = synthetic4_pxi.mean(axis=1)
    assert g.dropped_systems == (str(means.idxmin()),)
    # estimating on the kept rows directly gives the same result
    kept = synthetic4_pxi.loc[[int(s) for s in g.systems]]
    assert gstudy(kept).var_system == pytest.approx(g.var_system, rel=1e-14)


@pytest.mark.parametrize(("name", "k", "drop"), [("web2013_p20", 20, 0.2), ("web2011_p10", 10, 0.55),
                                                 ("robust2004_p10", 10, 0.65)])
def test_drop_lowest_keeps_ties_of_exact_arithmetic_together(name, k, drop):
    # P@k means of two systems with as many relevant documents retrieved are equal, but summed from different
    # per-topic values the floats differ in the last bits (web2013 P@20: 0.277 and 0.27699999999999997), and the
    # quantile fell between them: one was dropped, its tie kept. Reference: the integer counts of relevant documents.
    scores = load_matrix(name)
    hits = np.rint(scores.to_numpy() * k).astype(np.int64)
    assert np.array_equal(hits / k, scores.to_numpy())
    totals = hits.sum(axis=1)
    want = scores.index[totals >= np.quantile(totals, drop)]
    means = scores.to_numpy().mean(axis=1)
    assert list(scores.index[means >= np.quantile(means, drop)]) != list(want)  # rounding splits a tie here
    g = gstudy(scores, drop_lowest=drop)
    assert list(g.systems) == list(want)
    assert gstudy(scores.loc[want]).var_system == pytest.approx(g.var_system, rel=1e-12)


def test_hand_computed():
    # X = [[1, 2], [2, 2.5], [4, 5]]: system means 1.5, 2.25, 4.5; topic means 7/3, 19/6;
    # grand mean 2.75. SS_s = 2*(1.5625+.25+3.0625) = 9.75, SS_t = 3*2*(5/12)^2 = 25/24,
    # SS_tot = 10.875, SS_res = 1/12 (df 2). sigma2_s = (4.875 - 1/24)/2 = 29/12,
    # sigma2_t = (25/24 - 1/24)/3 = 1/3, sigma2_st = 1/24.
    # Erho2(1) = (29/12)/(29/12 + 1/24) = 58/59; Phi(1) = 58/(58 + 8 + 1) = 58/67.
    g = gstudy(np.array([[1.0, 2.0], [2.0, 2.5], [4.0, 5.0]]))
    assert g.ss_system == pytest.approx(9.75, rel=1e-14)
    assert g.ss_topic == pytest.approx(25 / 24, rel=1e-14)
    assert g.ss_residual == pytest.approx(1 / 12, rel=1e-13)
    assert g.var_system == pytest.approx(29 / 12, rel=1e-14)
    assert g.var_topic == pytest.approx(1 / 3, rel=1e-14)
    assert g.var_residual == pytest.approx(1 / 24, rel=1e-13)
    assert g.erho2(1) == pytest.approx(58 / 59, rel=1e-14)
    assert g.phi(1) == pytest.approx(58 / 67, rel=1e-14)
    assert g.phi(4) == pytest.approx(4 * 58 / 9 / (1 + 4 * 58 / 9), rel=1e-14)


# ----------------------------------------------------------------- statsmodels agreement
def _long(X: pd.DataFrame) -> pd.DataFrame:
    return X.rename_axis(index="system", columns="topic").stack().rename("score").reset_index()


@pytest.mark.parametrize("name", SM_FILES)
def test_statsmodels_anova_agreement(name):
    import statsmodels.api as sm
    from statsmodels.formula.api import ols

    X = trec(name)
    g = gstudy(X)
    # reference: sm.stats.anova_lm(ols("score ~ C(system) + C(topic)", data).fit()) (type I)
    table = sm.stats.anova_lm(ols("score ~ C(system) + C(topic)", data=_long(X)).fit())
    ref = table.rename(index={"C(system)": "system", "C(topic)": "topic", "Residual": "system:topic,e"})
    comp = g.components
    for src in ("system", "topic", "system:topic,e"):
        assert comp.at[src, "df"] == ref.at[src, "df"]
        assert comp.at[src, "ss"] == pytest.approx(ref.at[src, "sum_sq"], rel=1e-10)
        assert comp.at[src, "ms"] == pytest.approx(ref.at[src, "mean_sq"], rel=1e-10)
    ms = ref["mean_sq"]
    nt, ns = X.shape[1], X.shape[0]
    assert g.var_system_raw == pytest.approx((ms["system"] - ms["system:topic,e"]) / nt, rel=1e-10)
    assert g.var_topic_raw == pytest.approx((ms["topic"] - ms["system:topic,e"]) / ns, rel=1e-10)
    assert g.var_residual == pytest.approx(ms["system:topic,e"], rel=1e-10)


@pytest.mark.parametrize("which", ["synthetic1", "trec-subset"])
def test_statsmodels_mixedlm_reml_agreement(which, synthetic1):
    import statsmodels.api as sm

    X = synthetic1 if which == "synthetic1" else trec("web2010_ndcg20.csv").iloc[:15, :12]
    g = gstudy(X)
    assert not (g.clipped_system or g.clipped_topic)  # REML = ANOVA only without boundary cases
    data = _long(X).assign(group=1)
    # reference: MixedLM.from_formula("score ~ 1", groups="group", re_formula="0",
    #   vc_formula={"system": "0 + C(system)", "topic": "0 + C(topic)"}).fit(reml=True, method=["bfgs"])
    # (REML optimum equals the ANOVA estimates on balanced data with positive estimates; the
    # tolerance is the optimiser's, measured ~1e-10)
    model = sm.MixedLM.from_formula(
        "score ~ 1", groups="group", re_formula="0",
        vc_formula={"system": "0 + C(system)", "topic": "0 + C(topic)"}, data=data,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = model.fit(reml=True, method=["bfgs"], gtol=1e-12)
    vc = dict(zip(model.exog_vc.names, fit.vcomp))
    assert vc["system"] == pytest.approx(g.var_system, rel=1e-7)
    assert vc["topic"] == pytest.approx(g.var_topic, rel=1e-7)
    assert fit.scale == pytest.approx(g.var_residual, rel=1e-7)


# ----------------------------------------------------------------- invariances, identities
@pytest.mark.parametrize("name", TREC_FILES)
def test_invariances(name):
    X = trec(name)
    g = gstudy(X)
    rng = np.random.default_rng(7)
    perm = X.iloc[rng.permutation(X.shape[0]), rng.permutation(X.shape[1])]
    gp = gstudy(perm)
    gc = gstudy(X + 3.5)
    gs = gstudy(X * 7.0)
    for f in ("var_system", "var_topic", "var_residual", "ms_system", "ms_topic", "ms_residual"):
        assert getattr(gp, f) == pytest.approx(getattr(g, f), rel=1e-12), f
        assert getattr(gc, f) == pytest.approx(getattr(g, f), rel=1e-9), f
        assert getattr(gs, f) == pytest.approx(49.0 * getattr(g, f), rel=1e-12), f
    n = np.array([1, 5, 25, 50, 100, 1000])
    for other in (gp, gc, gs):
        np.testing.assert_allclose(other.phi(n), g.phi(n), rtol=1e-9)
        np.testing.assert_allclose(other.erho2(n), g.erho2(n), rtol=1e-9)


@pytest.mark.parametrize("name", TREC_FILES)
def test_erho2_at_least_phi_and_monotone(name):
    g = gstudy(trec(name))
    n = np.arange(1, 500)
    e, p = g.erho2(n), g.phi(n)
    assert np.all(e >= p)
    assert np.all(np.diff(p) > 0) and np.all(np.diff(e) > 0)
    # Φ(n) is a monotone function of the n=1 ratio: Φ(n) = nΦ(1) / (1 + (n-1)Φ(1))
    p1 = g.phi(1)
    np.testing.assert_allclose(p, n * p1 / (1 + (n - 1) * p1), rtol=1e-12)


@pytest.mark.parametrize("name", TREC_FILES)
@pytest.mark.parametrize("coef", ["phi", "erho2"])
def test_topics_needed_inverts(name, coef):
    g = gstudy(trec(name))
    f = g.phi if coef == "phi" else g.erho2
    for target in (0.5, 0.8, 0.9, 0.95, 0.99):
        t = g.topics_needed(target, coef)
        assert f(t.n) >= target
        assert t.n == 1 or f(t.n - 1) < target
        assert f(t.n_exact) == pytest.approx(target, rel=1e-12)
        assert t.n_low <= t.n <= t.n_high


def test_topics_needed_for_ratio_is_the_gstudy_rule(synthetic4_pxi):
    g = gstudy(synthetic4_pxi)
    for coef, ratio in (("phi", g.phi_ratio), ("erho2", g.erho2_ratio)):
        for target in (0.5, 0.8, 0.9, 0.95):
            assert g.topics_needed(target, coef, level=None).n == gtheory.topics_needed_for_ratio(ratio, target)
    with pytest.raises(ValueError, match=r"`target` must be a probability strictly in \(0, 1\); got 1.0"):
        gtheory.topics_needed_for_ratio(0.5, 1.0)


def test_topics_needed_interval_matches_coefficient_interval(synthetic4_pxi):
    g = gstudy(synthetic4_pxi)
    t = g.topics_needed(0.9, "phi", level=0.9)
    low_at = g.interval("phi", [t.n_high, t.n_high - 1], level=0.9).low
    high_at = g.interval("phi", [t.n_low, t.n_low - 1], level=0.9).high
    assert low_at[0] >= 0.9 > low_at[1]      # n_high: fewest topics whose *lower* bound reaches 0.9
    assert high_at[0] >= 0.9 > high_at[1]    # n_low: fewest topics whose *upper* bound reaches 0.9


def test_vectorised_and_scalar(synthetic1):
    g = gstudy(synthetic1)
    n = np.array([[1, 2], [10, 100]])
    assert g.phi(n).shape == (2, 2)
    assert isinstance(g.phi(10), float)
    assert g.phi(n)[1, 0] == g.phi(10)
    assert g.phi() == g.phi(12)


def test_full_precision_for_ndcg_scale_variances():
    # scores of order 1e-3 give components of order 1e-7: nothing may be rounded away
    rng = np.random.default_rng(3)
    X = 1e-3 * (rng.normal(size=(40, 1)) + rng.normal(size=(1, 30)) + rng.normal(size=(40, 30)))
    g, g_big = gstudy(X), gstudy(X * 1e3)
    assert 0 < g.var_system < 1e-5
    assert g.var_system == pytest.approx(g_big.var_system * 1e-6, rel=1e-12)
    assert g.phi(30) == pytest.approx(g_big.phi(30), rel=1e-12)


# ----------------------------------------------------------------- negative estimates
def test_negative_variance_warns_and_clips():
    # topic means all equal and strong interaction -> MS_t < MS_res -> negative sigma2(topic)
    X = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [0.5, 0.5, 0.5], [1.0, 0.0, 0.5]])
    with pytest.warns(NegativeVarianceWarning) as record:
        g = gstudy(X)
    assert {str(w.message).split(" = ")[0] for w in record} == {
        "negative estimate of σ²(system)", "negative estimate of σ²(topic)"}
    assert g.clipped_topic and g.var_topic == 0.0 and g.var_topic_raw < 0
    assert g.components.at["topic", "variance_raw"] == g.var_topic_raw
    assert g.phi(3) == pytest.approx(g.var_system / (g.var_system + g.var_residual / 3))
    assert "negative estimate set to 0" in g.summary()


def test_no_warning_when_all_positive(synthetic1):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gstudy(synthetic1)


# ----------------------------------------------------------------- degenerate input
@pytest.mark.parametrize(
    "scores, match",
    [
        (np.ones((1, 5)), r"1 system\(s\)"),
        (np.ones((5, 1)), r"1 topic\(s\)"),
        (np.full((4, 6), 0.3), r"all scores are equal"),
        (np.arange(5.0), r"must be 2-D"),
        (np.zeros((2, 3, 4)), r"must be 2-D"),
        (np.tile(np.arange(4.0), (3, 1)), r"vary only between topics"),
    ],
)
def test_degenerate_input(scores, match):
    with pytest.raises(ValueError, match=match):
        gstudy(scores)


def test_nan_and_inf_named():
    X = pd.DataFrame(np.random.default_rng(0).random((4, 3)), index=pd.Index(["a", "X", "c", "d"], name="system"),
                     columns=["450", "451", "452"])
    X.iloc[1, 1] = np.nan
    X.iloc[2, 2] = np.nan
    X.iloc[3, 0] = np.nan
    with pytest.raises(ValueError, match=r"3 NaN values \(first at system 'X', topic '451'\)"):
        gstudy(X)
    X = X.fillna(0.0)
    X.iloc[0, 0] = np.inf
    with pytest.raises(ValueError, match=r"1 infinite value \(first at system 'a', topic '450'\)"):
        gstudy(X)


def test_bad_types_and_options(synthetic1):
    with pytest.raises(TypeError, match="`scores` must be"):
        gstudy({"a": 1})
    with pytest.raises(TypeError):
        gstudy([["a", "b"], ["c", "d"]])
    with pytest.raises(ValueError, match="`drop_lowest` must be a fraction"):
        gstudy(synthetic1, drop_lowest=1.0)
    with pytest.raises(ValueError, match="leaves 1 system"):
        gstudy(np.array([[1.0, 2.0], [3.0, 5.0], [3.5, 1.0]]) , drop_lowest=0.99)
    g = gstudy(synthetic1)
    with pytest.raises(ValueError, match="`n_topics` must be positive"):
        g.phi(0)
    with pytest.raises(ValueError, match="`target` must be"):
        g.topics_needed(1.0)
    with pytest.raises(ValueError, match="`coefficient` must be"):
        g.topics_needed(0.9, "rho")
    with pytest.raises(ValueError, match="`level` must be"):
        g.interval("phi", 10, level=95)


def test_zero_system_variance_needs_infinite_topics():
    X = np.array([[0.0, 1.0, 0.2], [1.0, 0.0, 0.3], [0.5, 0.5, 0.1]])  # equal system means
    with pytest.warns(NegativeVarianceWarning):
        g = gstudy(X)
    assert g.var_system == 0 and g.phi(100) == 0
    assert math.isinf(g.topics_needed(0.9).n)


# ----------------------------------------------------------------- inputs, presentation
def test_dataframe_labels_kept_and_csv_path_accepted(tmp_path, synthetic1):
    g = gstudy(synthetic1)
    assert g.systems[0] == "1" and g.topics[:2] == ("i1", "i2")
    p = tmp_path / "s.csv"
    synthetic1.to_csv(p)
    g2 = gstudy(p, orientation="systems-by-topics")
    assert g2.var_system == pytest.approx(g.var_system, rel=1e-14)


def test_dstudy_table_and_summary(synthetic4_pxi):
    g = gstudy(synthetic4_pxi)
    d = g.dstudy([5, 12, 40], level=0.8)
    assert list(d.index) == [5, 12, 40]
    assert d.loc[12, "phi"] == g.phi(12)
    assert d.loc[12, "erho2_low"] == pytest.approx(g.interval("erho2", 12, 0.8).low)
    s = g.summary()
    assert str(g) == s
    for token in ("system:topic,e", "Eρ²", "Φ", "Topics needed for 0.95", "Feldt", "Arteaga"):
        assert token in s
    assert "0.6258" in s or "0.625758" in s


def test_result_is_frozen(synthetic1):
    g = gstudy(synthetic1)
    with pytest.raises(AttributeError):
        g.var_system = 1.0  # type: ignore[misc]


# ---------------------------------------------------------------- issue 12 items 5 and 10
def test_gstudy_with_noise_level_system_variance_is_prompt_and_says_why():
    # three identical systems but one cell: σ²(system) = (MS_s − MS_st)/n_t is 0 in exact arithmetic and
    # 2.8e-23 in floating point, next to σ²(topic) = 0.08: a ratio of noise that used to hang topics_needed
    a = np.random.default_rng(0).random(40)
    x = np.vstack([a, a, a])
    x[2, 0] += 1e-4
    with warnings.catch_warnings():
        warnings.simplefilter("error", gtheory.NegativeVarianceWarning)  # noise must not warn
        g = gstudy(x)
    assert g.var_system == 0.0 and 0 < abs(g.var_system_raw) < 1e-20
    need = g.topics_needed(0.95, "phi")
    assert need.n == math.inf and need.reason == "σ²(system) = 0: Φ is 0 for every number of topics"
    assert need.reason in str(need)
    assert "∞" in g.summary()


def test_negative_variance_warning_has_a_relative_tolerance():
    # exactly additive data: σ²(system:topic) is 0 up to rounding; −1e-33 is not a negative estimate
    s = np.linspace(0.1, 0.5, 6)[:, None]
    t = np.linspace(0.0, 0.3, 9)[None, :]
    x = s + t
    with warnings.catch_warnings():
        warnings.simplefilter("error", gtheory.NegativeVarianceWarning)
        g = gstudy(x)
    assert g.var_residual == 0.0 and abs(g.var_residual_raw) < 1e-15
    # a genuinely negative estimate still warns
    rng = np.random.default_rng(1)
    noisy = rng.normal(0, 1, (5, 30)) + rng.normal(0, 1, (1, 30))
    with pytest.warns(gtheory.NegativeVarianceWarning, match=r"σ²\(system\)"):
        gstudy(noisy - noisy.mean(axis=1, keepdims=True))


def test_labelled_gstudy_is_gstudy_of_the_frame():
    """labelled_gstudy (the command line's G-study of computed scores, without pandas) gives what gstudy gives for the
    frame wrapping the array, field for field (C and Fortran layouts), and the same errors. The numbers are equal to
    rounding, not to the last bit: the frame's sums of squares are pandas' reductions, whose order differs between
    pandas releases (2.0 and 3.x differ in the last bit here); 1e-12 relative is a hundred times the rounding of sums
    of 108 squares."""
    import dataclasses

    from gtheory.gstudy import labelled_gstudy

    rng = np.random.default_rng(3)
    x = rng.normal(0, 0.1, (12, 1)) + rng.normal(0, 0.2, (1, 9)) + rng.normal(0, 0.1, (12, 9))
    systems, topics = [f"run{i}" for i in range(12)], [str(t) for t in range(9)]
    for a in (np.ascontiguousarray(x), np.asfortranarray(x)):
        for drop in (0.0, 0.25):
            frame = pd.DataFrame(a, index=systems, columns=topics, copy=False)
            want = gstudy(frame, orientation="systems-by-topics", drop_lowest=drop)
            got = labelled_gstudy(a, systems, topics, drop_lowest=drop)
            for f in dataclasses.fields(want):
                if f.name != "scores":
                    g, w = getattr(got, f.name), getattr(want, f.name)
                    if isinstance(w, float):
                        assert g == pytest.approx(w, rel=1e-12, abs=1e-15), f.name
                    else:
                        assert g == w, f.name
    bad = {"a summary label": (x, [*systems[:-1], "mean"], topics), "a repeated topic": (x, systems, [*topics[:-1], "0"]),
           "a NaN": (np.where(np.eye(12, 9) > 0, np.nan, x), systems, topics), "one topic": (x[:, :1], systems, ["0"])}
    for what, (a, s, t) in bad.items():
        with pytest.raises(ValueError) as want:
            gstudy(pd.DataFrame(a, index=s, columns=t), orientation="systems-by-topics")
        with pytest.raises(ValueError) as got:
            labelled_gstudy(a, s, t)
        assert str(got.value) == str(want.value), what
