"""Tests for experiments.agreement.

References: scipy.stats.kendalltau (tau-b); a hand-computed tau_AP example; brute-force evaluations of
the tau_AP definitions (Yilmaz et al. 2008; Urbano & Marrero 2017) written as plain loops here; and the
values published in the test suite of Urbano's R package ircor (julian-urbano/ircor,
tests/testthat/test_tauAP.R with the data of tests/testthat/helper_data.R).
"""
from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from scipy import stats  # noqa: E402

from experiments import kendall_tau, plot_mean_scatter, rmse, tau_ap, tau_matrix  # noqa: E402
from conftest import load_matrix  # noqa: E402


# --------------------------------------------------------------------------------------------------
# reference implementations: the definitions, as loops


def tau_ap_definition(a, b):
    """Yilmaz et al. (2008): tau_AP = 2/(m-1) sum_{i=2..m} C(i)/(i-1) - 1, positions from b (no ties)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    order = sorted(range(len(b)), key=lambda i: -b[i])
    return tau_ap_of_order(a, order)


def tau_ap_of_order(a, order):
    m = len(order)
    total = 0.0
    for pos in range(1, m):
        item = order[pos]
        correct = sum(1 for above in order[:pos] if a[above] > a[item])
        total += correct / pos
    return 2.0 / (m - 1) * total - 1.0


def tau_ap_a_definition(a, b):
    """Urbano & Marrero's tau_AP,a: the mean of tau_AP over every ordering of b's tie groups."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    groups = [list(np.flatnonzero(b == v)) for v in sorted(set(b), reverse=True)]
    values = []
    for choice in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = [item for group in choice for item in group]
        values.append(tau_ap_of_order(a, order))
    return float(np.mean(values))


def tau_ap_b_definition(a, b):
    """Urbano & Marrero's tau_AP,b: mean of both directions of
    2/|{i: p_i > 1}| sum_{p_i > 1} #{j above i's group in y, above i in x} / (p_i - 1) - 1."""
    def one_way(x, y):
        m = len(x)
        total, count = 0.0, 0
        for i in range(m):
            p = 1 + sum(1 for j in range(m) if y[j] > y[i])
            if p == 1:
                continue
            count += 1
            total += sum(1 for j in range(m) if y[j] > y[i] and x[j] > x[i]) / (p - 1)
        return 2.0 / count * total - 1.0

    return (one_way(a, b) + one_way(b, a)) / 2.0


# --------------------------------------------------------------------------------------------------
# Kendall tau


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kendall_tau_matches_scipy_with_and_without_ties(seed):
    rng = np.random.default_rng(seed)
    a = rng.random(40)
    b = a + rng.normal(0, 0.3, 40)
    # reference: scipy.stats.kendalltau(a, b, variant="b").statistic
    assert kendall_tau(a, b) == pytest.approx(stats.kendalltau(a, b, variant="b").statistic, abs=1e-12)
    a_t, b_t = np.round(a, 1), np.round(b, 1)  # many ties
    assert kendall_tau(a_t, b_t) == pytest.approx(
        stats.kendalltau(a_t, b_t, variant="b").statistic, abs=1e-12
    )


def test_kendall_tau_on_real_matrices_averages_over_topics():
    ap = load_matrix("web2010_ap")
    ndcg = load_matrix("web2010_ndcg20")
    expected = stats.kendalltau(ap.mean(axis=1), ndcg.mean(axis=1), variant="b").statistic
    assert kendall_tau(ap, ndcg) == pytest.approx(expected, abs=1e-12)
    assert kendall_tau(ap.to_numpy(), ndcg.mean(axis=1).to_numpy()) == pytest.approx(expected, abs=1e-12)


def test_kendall_tau_aligns_pandas_by_label():
    ap = load_matrix("web2011_ap")
    p10 = load_matrix("web2011_p10")
    shuffled = p10.sample(frac=1.0, random_state=0)
    assert kendall_tau(ap, shuffled) == pytest.approx(kendall_tau(ap, p10), abs=1e-12)
    # positionally misaligned numpy input gives a different (wrong) answer: alignment really happened
    assert kendall_tau(ap.to_numpy(), shuffled.to_numpy()) != pytest.approx(kendall_tau(ap, p10))


def test_kendall_tau_all_ties_is_nan_like_scipy():
    assert np.isnan(kendall_tau([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]))
    assert np.isnan(stats.kendalltau([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]).statistic)


# --------------------------------------------------------------------------------------------------
# tau_AP


def test_tau_ap_hand_computed_example():
    # items A..E; a (reference) ranks A > B > C > D > E; b ranks B, A, C, E, D.
    # Positions by b: 2: A, above {B}: B is below A in a -> C = 0 -> 0/1
    #                 3: C, above {B, A}: both above C in a   -> 2/2
    #                 4: E, above {B, A, C}: all above E       -> 3/3
    #                 5: D, above {B, A, C, E}: E is below D   -> 3/4
    # tau_AP = 2/(5-1) * (0 + 1 + 1 + 0.75) - 1 = 0.375; Kendall tau = (8 - 2)/10 = 0.6
    a = [5, 4, 3, 2, 1]
    b = [4, 5, 3, 1, 2]
    assert tau_ap(a, b) == pytest.approx(0.375, abs=1e-12)
    assert kendall_tau(a, b) == pytest.approx(0.6, abs=1e-12)
    # an error at the top costs more than the same error at the bottom
    assert tau_ap(a, [4, 5, 3, 2, 1]) < tau_ap(a, [5, 4, 3, 1, 2])


@pytest.mark.parametrize("seed", range(5))
def test_tau_ap_matches_definition_without_ties(seed):
    rng = np.random.default_rng(seed)
    a = rng.random(25)
    b = a + rng.normal(0, 0.25, 25)
    assert tau_ap(a, b) == pytest.approx(tau_ap_definition(a, b), abs=1e-12)
    # tau_AP,b without ties is the mean of the two directions
    expected_b = (tau_ap_definition(a, b) + tau_ap_definition(b, a)) / 2
    assert tau_ap(a, b, variant="b") == pytest.approx(expected_b, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_tau_ap_a_is_expectation_over_tie_orderings(seed):
    rng = np.random.default_rng(seed)
    a = rng.permutation(9).astype(float)  # reference: no ties
    b = rng.integers(0, 4, 9).astype(float)  # compared: tie groups of various sizes
    assert tau_ap(a, b, variant="a") == pytest.approx(tau_ap_a_definition(a, b), abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_tau_ap_b_matches_definition_with_ties(seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 5, 12).astype(float)
    b = rng.integers(0, 5, 12).astype(float)
    assert tau_ap(a, b, variant="b") == pytest.approx(tau_ap_b_definition(a, b), abs=1e-12)
    assert tau_ap(a, b, variant="b") == pytest.approx(tau_ap(b, a, variant="b"), abs=1e-12)


# Urbano's ircor test suite (tests/testthat/helper_data.R, test_tauAP.R), tolerance 5e-5 as there.
IRCOR = {
    "set1": dict(
        x=[0.897, 0.372, 0.908, 0.898, 0.661, 0.062, 0.177, 0.384, 0.498, 0.992],
        y=[0.82, 0.406, 0.817, 0.953, 0.673, 0.073, 0.364, 0.547, 0.589, 0.988],
        x_ties=[0.9, 0.4, 0.9, 0.9, 0.7, 0.1, 0.2, 0.4, 0.5, 1],
        y_ties=[0.8, 0.4, 0.8, 1, 0.7, 0.1, 0.4, 0.5, 0.6, 1],
        tauAP=0.8519, tauAP_a_yties=0.7454, tauAP_b=0.8333, tauAP_b_ties=0.7321,
    ),
    "set2": dict(
        x=[0.266, 0.573, 0.202, 0.945, 0.629, 0.206, 0.687, 0.77, 0.718, 0.38],
        y=[0.263, 0.843, 0.728, 0.928, 0.08, 0.114, 0.467, 0.641, 0.973, 0.644],
        x_ties=[0.3, 0.6, 0.2, 0.9, 0.6, 0.2, 0.7, 0.8, 0.7, 0.4],
        y_ties=[0.3, 0.8, 0.7, 0.9, 0.1, 0.1, 0.5, 0.6, 1, 0.6],
        tauAP=0.2504, tauAP_a_yties=0.2692, tauAP_b=0.2880, tauAP_b_ties=0.297,
    ),
    "set3": dict(
        x=[0.185, 0.573, 0.944, 0.129, 0.468, 0.553, 0.761, 0.405, 0.976, 0.445],
        y=[0.845, 0.272, 0.275, 0.924, 0.605, 0.334, 0.162, 0.872, 0.018, 0.25],
        x_ties=[0.2, 0.6, 0.9, 0.1, 0.5, 0.6, 0.8, 0.4, 1, 0.4],
        y_ties=[0.8, 0.3, 0.3, 0.9, 0.6, 0.3, 0.2, 0.9, 0, 0.2],
        tauAP=-0.6971, tauAP_a_yties=-0.5558, tauAP_b=-0.668, tauAP_b_ties=-0.7047,
    ),
}


@pytest.mark.parametrize("name", sorted(IRCOR))
def test_tau_ap_matches_ircor_published_values(name):
    d = IRCOR[name]
    assert tau_ap(d["x"], d["y"]) == pytest.approx(d["tauAP"], abs=5e-5)  # tauAP(x, y)
    assert tau_ap(d["x"], d["y_ties"], variant="a") == pytest.approx(d["tauAP_a_yties"], abs=5e-5)
    assert tau_ap(d["x"], d["y"], variant="b") == pytest.approx(d["tauAP_b"], abs=5e-5)
    assert tau_ap(d["x_ties"], d["y_ties"], variant="b") == pytest.approx(d["tauAP_b_ties"], abs=5e-5)
    assert tau_ap(d["y_ties"], d["x_ties"], variant="b") == pytest.approx(d["tauAP_b_ties"], abs=5e-5)


def test_tau_ap_identical_and_reversed_rankings():
    a = np.arange(10.0)
    assert tau_ap(a, a) == 1.0 and tau_ap(a, a, variant="b") == 1.0
    assert tau_ap(a, -a) == -1.0 and tau_ap(a, -a, variant="b") == -1.0


@pytest.mark.parametrize("n", [2, 3, 49, 104, 500])
def test_tau_ap_exactly_one_for_identical_rankings(n):
    # n = 104 random means gave 1.0000000000000022 (harmonic partial sums); identical rankings must give
    # exactly 1.0, tied or not, and every value must lie in [-1, 1]
    rng = np.random.default_rng(n)
    for _ in range(5):
        x = rng.random(n)
        assert tau_ap(x, x) == 1.0 and tau_ap(x, 2 * x + 1, variant="a") == 1.0
        assert tau_ap(x, x, variant="b") == 1.0
        ties = np.round(x, 1)
        if np.unique(ties).size > 1:
            assert tau_ap(ties, ties, variant="b") == 1.0
        else:  # one tie group: no ranking to compare
            assert np.isnan(tau_ap(ties, ties, variant="b"))
        for y in (rng.random(n), x + rng.normal(0, 0.05, n), ties):
            for v in ("a", "b"):
                r = tau_ap(x, y, variant=v)
                assert np.isnan(r) if v == "b" and np.unique(y).size == 1 else -1.0 <= r <= 1.0


def test_tau_ap_variant_a_rejects_ties_in_reference():
    with pytest.raises(ValueError, match=r"`a` must have no tied mean scores for variant='a'.*variant='b'"):
        tau_ap([0.3, 0.3, 0.1], [0.3, 0.2, 0.1])
    with pytest.raises(ValueError, match=r"`variant` must be one of 'a', 'b'; got 'c'"):
        tau_ap([0.3, 0.2, 0.1], [0.3, 0.2, 0.1], variant="c")


# --------------------------------------------------------------------------------------------------
# RMSE, tau matrix, plot


def test_rmse_matches_formula_on_real_data():
    ap = load_matrix("web2012_ap")
    ndcg = load_matrix("web2012_ndcg20")
    expected = np.sqrt(np.mean((ap.mean(axis=1) - ndcg.mean(axis=1)) ** 2))
    assert rmse(ap, ndcg) == pytest.approx(expected, rel=1e-12)
    # a matrix against itself: 0 up to the rounding of two system means of the same n_topics numbers (summed in
    # another order when the systems are aligned), at most n_topics * eps * max|x|, not exactly 0
    assert rmse(ap, ap) <= ap.shape[1] * np.finfo(float).eps * np.abs(ap.to_numpy()).max()


def exact_tenths_rank(matrix: pd.DataFrame) -> np.ndarray:
    """Dense ranks of the system means of scores that are multiples of 0.1, in exact rational arithmetic."""
    from fractions import Fraction

    sums = [sum(Fraction(v).limit_denominator(10) for v in row) for row in matrix.to_numpy()]
    levels = sorted(set(sums))
    return np.array([levels.index(x) for x in sums])


def test_kendall_tau_sees_means_equal_up_to_rounding_as_ties():
    # 0.1 + 0.2 + 0.3 != 0.3 + 0.3 + 0.0 in floating point; both systems have mean 0.2
    a = np.array([[0.1, 0.2, 0.3], [0.3, 0.3, 0.0], [0.5, 0.5, 0.5], [0.0, 0.0, 0.1]])
    assert a[0].mean() != a[1].mean()
    b = np.array([[0.4], [0.3], [0.2], [0.1]])
    expected = stats.kendalltau([1, 1, 2, 0], [3, 2, 1, 0], variant="b").statistic  # systems 0 and 1 tie in a
    assert kendall_tau(a, b) == pytest.approx(expected, abs=1e-15)
    assert tau_ap(b, a, variant="a") == pytest.approx(tau_ap(b, np.array([[0.2], [0.2], [0.5], [1 / 30]])), abs=1e-15)


def test_tau_matrix_entries_are_pairwise_correlations():
    configs = {name: load_matrix(f"web2013_{name}") for name in ("ap", "ndcg20", "err20", "p10")}
    table = tau_matrix(configs)
    assert list(table.index) == list(configs) == list(table.columns)
    # P@10 scores are tenths: their means are ranked in exact arithmetic (equal means tie; 4 of the 32 float means
    # differ from another only by rounding, and scipy's tau on the float means ranks them); the others as computed
    ranks = {name: (exact_tenths_rank(m) if name == "p10" else m.mean(axis=1)) for name, m in configs.items()}
    for r, c in itertools.product(configs, configs):
        expected = 1.0 if r == c else stats.kendalltau(ranks[r], ranks[c], variant="b").statistic
        assert table.loc[r, c] == pytest.approx(expected, abs=1e-12)
    assert table.loc["ap", "p10"] != pytest.approx(stats.kendalltau(
        configs["ap"].mean(axis=1), configs["p10"].mean(axis=1), variant="b").statistic, abs=1e-6)

    # tau_AP,b symmetric; tau_AP,a: rows are the reference
    tab_b = tau_matrix(configs, method="tau_ap", variant="b")
    np.testing.assert_allclose(tab_b.to_numpy(), tab_b.to_numpy().T)
    x = pd.Series([0.9, 0.5, 0.4, 0.1], index=list("wxyz"))
    y = pd.Series([0.5, 0.9, 0.4, 0.1], index=list("wxyz"))
    tab_a = tau_matrix({"x": x, "y": y}, method="tau_ap", variant="a")
    assert tab_a.loc["x", "y"] == pytest.approx(tau_ap_definition(x.to_numpy(), y.to_numpy()))
    assert tab_a.loc["y", "x"] == pytest.approx(tau_ap_definition(y.to_numpy(), x.to_numpy()))


def test_tau_matrix_validates_configurations():
    with pytest.raises(TypeError, match="`configurations` must be a mapping"):
        tau_matrix([np.ones(3), np.ones(3)])
    with pytest.raises(ValueError, match="at least 2 entries"):
        tau_matrix({"only": np.arange(3.0)})
    a = pd.Series([0.1, 0.2, 0.3], index=["s1", "s2", "s3"])
    b = pd.Series([0.1, 0.2, 0.3], index=["s1", "s2", "s4"])
    with pytest.raises(ValueError, match=r"must cover the same systems; 1 systems in .* are missing"):
        tau_matrix({"a": a, "b": b})


def test_plot_mean_scatter_reports_tau_and_rmse():
    ap = load_matrix("web2014_ap")
    ndcg = load_matrix("web2014_ndcg20")
    fig, ax = plt.subplots()
    out = plot_mean_scatter(ap, ndcg, ax=ax, labels=("AP", "nDCG@20"), title="TREC Web 2014")
    assert out is ax
    tau = stats.kendalltau(ap.mean(axis=1), ndcg.mean(axis=1), variant="b").statistic
    err = np.sqrt(np.mean((ap.mean(axis=1) - ndcg.mean(axis=1)) ** 2))
    legend = " ".join(t.get_text() for t in ax.get_legend().get_texts())
    assert f"{tau:.3f}" in legend and f"{err:.4f}" in legend
    assert ax.get_xlabel() == "mean score (AP)" and ax.get_ylabel() == "mean score (nDCG@20)"
    offsets = ax.collections[0].get_offsets()
    np.testing.assert_allclose(offsets[:, 0], ap.mean(axis=1).to_numpy())
    np.testing.assert_allclose(offsets[:, 1], ndcg.mean(axis=1).to_numpy())
    plt.close(fig)
    with pytest.raises(ValueError, match="`labels` must be two strings"):
        plot_mean_scatter(ap, ndcg, labels="AP")


# --------------------------------------------------------------------------------------------------
# input validation


def test_inputs_are_validated_with_named_parameters():
    a = pd.DataFrame(np.random.default_rng(0).random((4, 5)), index=pd.Index(["s1", "s2", "s3", "s4"], name="system"))
    b = a.rename(index={"s1": "x1", "s2": "x2", "s3": "x3"})
    with pytest.raises(ValueError, match=r"`a` and `b` must cover the same systems; 3 systems in `a` are missing from `b`: 's1', 's2', 's3'"):
        kendall_tau(a, b)
    with pytest.raises(ValueError, match=r"`a` and `b` must cover the same systems; got 3 systems in `a` and 4 in `b`"):
        kendall_tau(np.ones(3), np.arange(4.0))
    bad = a.copy()
    bad.iloc[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"`b` contains 1 NaN value \(first at system 's2', topic 2\); drop or impute"):
        rmse(a, bad)
    with pytest.raises(TypeError, match="`a` must be a systems x topics matrix"):
        kendall_tau("scores", a)
    with pytest.raises(ValueError, match="`a` must be 2-D .* or 1-D .*; got 3-D"):
        kendall_tau(np.ones((2, 2, 2)), np.ones(2))
    with pytest.raises(ValueError, match="at least 2 systems"):
        kendall_tau([0.5], [0.5])
