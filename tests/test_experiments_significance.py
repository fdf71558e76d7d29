"""Tests of the significance tests over system pairs (the bootstrap test and discriminative power: experiments.discriminative; the
classical and randomised tests of experiments.compare.pairwise_tests are in tests/test_experiments_compare_pairwise_tests.py).

References: straightforward per-pair loops written here (Sakai 2006's bootstrap test and estimated
difference, Carterette 2012's randomised Tukey HSD), and scipy.stats.ttest_rel / scipy.stats.wilcoxon
called pair by pair.
"""
from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from scipy import stats  # noqa: E402

from experiments import (  # noqa: E402
    DiscriminativePower,
    bootstrap_asl,
    discriminative_power,
    paired_ttest,
    plot_asl_curves,
    wilcoxon_test,
)
from conftest import load_matrix  # noqa: E402


def distinct_systems(frame: pd.DataFrame, k: int) -> pd.DataFrame:
    """The first k systems with pairwise-distinct score vectors (TREC has duplicate runs)."""
    return frame.drop_duplicates().iloc[:k]


# --------------------------------------------------------------------------------------------------
# reference: the bootstrap test as a user would write it, one pair and one replicate at a time


#: |t*| within this relative distance below |t| ties with it (gtheory.kit.ties.TIE_REL, documented)
TIE = 1e-9


def bootstrap_loop(scores: np.ndarray, B: int, seed: int, alpha: float | None = None):
    m, n = scores.shape
    idx = np.random.default_rng(seed).integers(0, n, size=(B, n))  # the documented shared draw
    t_obs, asl, crit = [], [], []
    for i in range(m):
        for j in range(i + 1, m):
            z = scores[i] - scores[j]
            t = z.mean() / (z.std(ddof=1) / math.sqrt(n))
            w = z - z.mean()
            t_star, mean_star = [], []
            for b in range(B):
                wb = w[idx[b]]
                with np.errstate(divide="ignore", invalid="ignore"):  # constant resample: t = +-inf
                    t_star.append(wb.mean() / (wb.std(ddof=1) / math.sqrt(n)))
                mean_star.append(wb.mean())
            t_star = np.abs(np.array(t_star))
            t_obs.append(t)
            asl.append(np.sum(t_star >= abs(t) * (1 - TIE)) / B)  # ties up to rounding count
            if alpha is not None:
                # Sakai (2006): the replicate with the (B alpha)-th largest |t*| -> its |mean(w*)|
                b_crit = np.argsort(-t_star, kind="stable")[math.ceil(B * alpha) - 1]
                crit.append(abs(mean_star[b_crit]))
    return np.array(t_obs), np.array(asl), np.array(crit)


def test_bootstrap_asl_matches_per_pair_loop_on_real_data():
    scores = distinct_systems(load_matrix("web2011_ndcg20"), 7)
    table = bootstrap_asl(scores, n_resamples=300, seed=42)
    t_ref, asl_ref, _ = bootstrap_loop(scores.to_numpy(), B=300, seed=42)
    np.testing.assert_allclose(table["t"], t_ref, rtol=1e-10)
    np.testing.assert_array_equal(table["asl"], asl_ref)
    # pair bookkeeping: row order of numpy.triu_indices, mean_diff = mean(a) - mean(b)
    assert len(table) == 21
    assert table.loc[0, "system_a"] == scores.index[0] and table.loc[0, "system_b"] == scores.index[1]
    means = scores.mean(axis=1)
    np.testing.assert_allclose(
        table["mean_diff"], means.loc[table["system_a"]].to_numpy() - means.loc[table["system_b"]].to_numpy()
    )
    assert table.attrs["n_resamples"] == 300 and table.attrs["n_topics"] == scores.shape[1]


def test_observed_t_is_the_paired_t_statistic():
    scores = distinct_systems(load_matrix("web2012_ap"), 6).to_numpy()
    table = bootstrap_asl(scores, n_resamples=10, seed=0)
    I, J = np.triu_indices(6, 1)
    # reference: scipy.stats.ttest_rel(x, y).statistic, pair by pair
    expected = [stats.ttest_rel(scores[i], scores[j]).statistic for i, j in zip(I, J)]
    np.testing.assert_allclose(table["t"], expected, rtol=1e-10)


def test_same_seed_same_numbers_and_generator_seeds():
    scores = np.random.default_rng(3).random((6, 30))
    a = bootstrap_asl(scores, n_resamples=200, seed=7)
    b = bootstrap_asl(scores, n_resamples=200, seed=7)
    pd.testing.assert_frame_equal(a, b)
    c = bootstrap_asl(scores, n_resamples=200, seed=np.random.default_rng(7))
    pd.testing.assert_frame_equal(a, c)
    d = bootstrap_asl(scores, n_resamples=200, seed=8)
    assert not np.array_equal(a["asl"], d["asl"])


def test_bootstrap_agrees_with_t_test_on_clear_cut_pairs():
    scores = load_matrix("web2010_ndcg20").drop_duplicates()
    table = bootstrap_asl(scores, n_resamples=1000, seed=0)
    X = scores.to_numpy()
    I, J = np.triu_indices(len(X), 1)
    p = np.array([stats.ttest_rel(X[i], X[j]).pvalue for i, j in zip(I, J)])
    clear_yes = p < 1e-3
    clear_no = p > 0.3
    assert clear_yes.sum() >= 20 and clear_no.sum() >= 20  # the check has teeth
    assert np.all(table["asl"].to_numpy()[clear_yes] < 0.05)
    assert np.all(table["asl"].to_numpy()[clear_no] > 0.05)
    # and overall the two tests mostly agree at alpha = 0.05
    assert np.mean((table["asl"].to_numpy() < 0.05) == (p < 0.05)) > 0.9


def test_top_k_keeps_the_best_systems_in_best_first_order():
    scores = load_matrix("web2013_ap").drop_duplicates()
    table = bootstrap_asl(scores, n_resamples=100, seed=1, top_k=8)
    best = scores.loc[scores.mean(axis=1).sort_values(ascending=False, kind="stable").index[:8]]
    _, asl_ref, _ = bootstrap_loop(best.to_numpy(), B=100, seed=1)
    np.testing.assert_array_equal(table["asl"], asl_ref)
    assert table.loc[0, "system_a"] == best.index[0]
    assert (table["mean_diff"] > 0).all()  # best-first order: a is always ahead of b
    with pytest.raises(ValueError, match=r"`top_k` must not exceed the number of systems"):
        bootstrap_asl(scores, top_k=1000)


@pytest.mark.parametrize(("name", "k"), [("web2013_p10", 8), ("web2012_p10", 5), ("web2010_p10", 3)])
def test_top_k_ties_at_the_cut_go_in_input_order_not_by_rounding(name, k):
    # P@10 means tie whenever two systems retrieve as many relevant documents in their top 10s, but as floats
    # they can differ in the last bits: the top k was then decided by rounding, not by input order as documented.
    # Reference: the integer counts of relevant documents, sorted stably.
    scores = load_matrix(name)
    hits = np.rint(scores.to_numpy() * 10).astype(int)
    assert np.array_equal(hits / 10, scores.to_numpy())
    want = list(scores.index[np.argsort(-hits.sum(axis=1), kind="stable")[:k]])
    by_float = list(scores.index[np.argsort(-scores.to_numpy().mean(axis=1), kind="stable")[:k]])
    assert set(want) != set(by_float)  # the case has teeth: rounding picks another system
    table = paired_ttest(scores, top_k=k)
    assert list(dict.fromkeys([*table.system_a, *table.system_b])) == want
    dp = discriminative_power(scores, n_resamples=200, seed=0, top_k=k)
    assert dp.n_significant == discriminative_power(scores.loc[want], n_resamples=200, seed=0).n_significant


def test_degenerate_pairs():
    rng = np.random.default_rng(0)
    x = rng.random(20)
    scores = np.vstack([x, x, x + 0.1, rng.random(20)])
    table = bootstrap_asl(scores, n_resamples=200, seed=0).set_index(["system_a", "system_b"])
    assert table.loc[(0, 1), "t"] == 0.0 and table.loc[(0, 1), "asl"] == 1.0  # identical systems
    assert np.isinf(table.loc[(0, 2), "t"]) and table.loc[(0, 2), "asl"] == 0.0  # constant shift


# --------------------------------------------------------------------------------------------------
# discriminative power


def test_discriminative_power_matches_loop_and_sakais_estimated_difference():
    scores = distinct_systems(load_matrix("web2014_ndcg20"), 8)
    result = discriminative_power(scores, alpha=0.05, n_resamples=400, seed=5)
    t_ref, asl_ref, crit_ref = bootstrap_loop(scores.to_numpy(), B=400, seed=5, alpha=0.05)
    assert isinstance(result, DiscriminativePower)
    np.testing.assert_array_equal(result.table["asl"], asl_ref)
    assert result.n_pairs == 28
    assert result.n_significant == int(np.sum(asl_ref < 0.05))
    assert result.power == pytest.approx(np.mean(asl_ref < 0.05))
    np.testing.assert_allclose(result.table["critical_diff"], crit_ref, rtol=1e-9)
    assert result.estimated_difference == pytest.approx(crit_ref.max(), rel=1e-9)
    # same seed -> same ASLs as bootstrap_asl
    np.testing.assert_array_equal(result.table["asl"], bootstrap_asl(scores, n_resamples=400, seed=5)["asl"])
    text = str(result)
    assert f"{result.n_significant}/28" in text and "estimated difference required" in text


def test_discriminative_power_validates_alpha():
    scores = np.random.default_rng(0).random((3, 10))
    with pytest.raises(ValueError, match=r"`alpha` must be a probability strictly in \(0, 1\); got 1.5"):
        discriminative_power(scores, alpha=1.5)
    with pytest.raises(TypeError, match=r"`alpha` must be a probability strictly in"):
        discriminative_power(scores, alpha="0.05")


# --------------------------------------------------------------------------------------------------
# plot and validation


def test_plot_asl_curves_draws_sorted_asls_per_metric():
    ndcg = load_matrix("web2010_ndcg20")
    ap = load_matrix("web2010_ap")
    curves = {
        "nDCG@20": bootstrap_asl(ndcg, n_resamples=200, seed=0, top_k=10),
        "AP": discriminative_power(ap, n_resamples=200, seed=0, top_k=10),
        "t-test": paired_ttest(ap, top_k=10),
    }
    fig, ax = plt.subplots()
    assert plot_asl_curves(curves, ax=ax, alpha=0.05, title="TREC Web 2010") is ax
    lines = ax.get_lines()
    np.testing.assert_array_equal(lines[0].get_ydata(), np.sort(curves["nDCG@20"]["asl"]))
    np.testing.assert_array_equal(lines[1].get_ydata(), np.sort(curves["AP"].table["asl"]))
    np.testing.assert_array_equal(lines[2].get_ydata(), np.sort(curves["t-test"]["p_value"]))
    np.testing.assert_array_equal(lines[0].get_xdata(), np.arange(1, 46))
    assert [t.get_text() for t in ax.get_legend().get_texts()][:3] == list(curves)
    plt.close(fig)
    with pytest.raises(TypeError, match="`curves` must be a non-empty mapping"):
        plot_asl_curves([curves["AP"]])
    with pytest.raises(ValueError, match=r"needs an 'asl' or 'p_value' column"):
        plot_asl_curves({"x": pd.DataFrame({"a": [1.0]})})


def test_score_matrix_validation():
    good = np.random.default_rng(0).random((3, 10))
    with pytest.raises(ValueError, match=r"`scores` must be a 2-D systems x topics matrix \(it needs per-topic scores\)"):
        bootstrap_asl(good.mean(axis=1))
    bad = good.copy()
    bad[2, 4] = np.nan
    with pytest.raises(ValueError, match=r"`scores` contains 1 NaN .*first at system 2, topic 4"):
        bootstrap_asl(bad)
    with pytest.raises(ValueError, match=r"`n_resamples` must be an integer >= 1; got 0"):
        bootstrap_asl(good, n_resamples=0)
    with pytest.raises(TypeError, match=r"`seed` must be a non-negative integer, None, a numpy.random.Generator or a numpy.random.SeedSequence; got str 'x'"):
        bootstrap_asl(good, seed="x")
    with pytest.raises(ValueError, match=r"at least 2 topics"):
        paired_ttest(good[:, :1])
    frame = pd.DataFrame(good, index=pd.Index(["a", "b", "c"], name="system")).assign(name="x")
    with pytest.raises(TypeError, match=r"columns 'name' are not numeric"):
        wilcoxon_test(frame)


# --------------------------------------------------------------------------------------------------
# bit-for-bit guard for the vectorised bootstrap (any speed-up must leave every t and ASL unchanged)


def bootstrap_exact_reference(scores: np.ndarray, B: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Per pair: t = mean(z) sqrt(n) / sd(z) (0/0 -> 0, c/0 -> +-inf), ASL = #{b: |t(w*_b)| >= (1 - TIE)|t|} / B.

    Replicate b takes topics idx[b] of the shared draw idx = rng.integers(0, n, size=(B, n));
    its sums are taken as count-weighted sums (count of each topic in idx[b]), as documented.
    """
    m, n = scores.shape
    idx = np.random.default_rng(seed).integers(0, n, size=(B, n))
    counts = np.stack([np.bincount(row, minlength=n) for row in idx]).astype(float)  # B x n
    t_all, asl_all = [], []
    for i in range(m):
        for j in range(i + 1, m):
            z = scores[i] - scores[j]
            scale = np.abs(z).max()
            tol = 1e-10 * scale
            zbar = z.mean()
            w = z - zbar
            sd = math.sqrt(max((w * w).sum() / (n - 1), 0.0))
            if abs(zbar) <= tol:
                t = 0.0
            elif sd <= tol:
                t = math.copysign(math.inf, zbar)
            else:
                t = zbar * math.sqrt(n) / sd
            hits = 0
            for b in range(B):
                s1 = float(counts[b] @ w)
                s2 = float(counts[b] @ (w * w))
                mean = s1 / n
                sd_b = math.sqrt(max((s2 - s1 * mean) / (n - 1), 0.0))
                if abs(mean) <= tol:
                    tb = 0.0
                elif sd_b <= tol:
                    tb = math.inf
                else:
                    tb = abs(mean * math.sqrt(n) / sd_b)
                if not math.isfinite(t) or t == 0.0:  # degenerate pair: exact comparison
                    hits += tb >= abs(t)
                else:  # ties up to rounding count as exceeding
                    hits += tb >= abs(t) * (1 - TIE)
            t_all.append(t)
            asl_all.append(hits / B)
    return np.array(t_all), np.array(asl_all)


@pytest.fixture(scope="module")
def trec9_ndcg20(trec9) -> np.ndarray:
    from metrics import ndcg

    return ndcg(trec9.judged, cutoff=20).to_numpy()


def test_bootstrap_asl_bit_for_bit_on_trec9_and_degenerate_pairs(trec9_ndcg20):
    rng = np.random.default_rng(11)
    x = rng.random(30)
    degenerate = np.vstack([x, x, x + 0.25, x - 0.125, rng.random(30), np.full(30, 0.5), np.full(30, 0.5)])
    # TREC-9 nDCG@20: 14 real systems (incl. duplicate runs if any) x 50 topics, 91 pairs
    real = trec9_ndcg20[:14]
    for scores, B, seed in [(real, 300, 3), (degenerate, 200, 0), (trec9_ndcg20[:, :7], 50, 1)]:
        table = bootstrap_asl(scores, n_resamples=B, seed=seed)
        t_ref, asl_ref = bootstrap_exact_reference(scores, B, seed)
        assert np.array_equal(table["t"].to_numpy(), t_ref)  # exact, not approximately
        assert np.array_equal(table["asl"].to_numpy(), asl_ref)
    table = bootstrap_asl(degenerate, n_resamples=200, seed=0).set_index(["system_a", "system_b"])
    assert table.loc[(0, 1), "t"] == 0.0 and table.loc[(0, 1), "asl"] == 1.0  # identical
    assert table.loc[(0, 2), "t"] == -math.inf and table.loc[(0, 2), "asl"] == 0.0  # constant shift
    assert table.loc[(5, 6), "t"] == 0.0 and table.loc[(5, 6), "asl"] == 1.0  # constant, identical


def exact_asl_integer_scores(grades: np.ndarray, B: int, seed: int) -> tuple[np.ndarray, int]:
    """ASLs in exact (integer) arithmetic for integer-valued scores, and the number of exact ties |t*| = |t|.

    For a sample x_1..x_n with sums S1, S2: t^2 = S1^2 (n-1) / (n S2 - S1^2) (the studentised mean of
    bootstrap_asl's Notes). The resampled centred differences scaled by n, n z_j - sum(z), are integers, so every
    comparison |t*| >= |t| is a comparison of Python integers: ties are decided exactly, not by rounding.
    """
    m, n = grades.shape
    idx = np.random.default_rng(seed).integers(0, n, size=(B, n))
    asl, ties = [], 0
    for i in range(m):
        for j in range(i + 1, m):
            d = [int(v) for v in grades[i] - grades[j]]
            D1, D2 = sum(d), sum(v * v for v in d)
            num_t, den_t = D1 * D1 * (n - 1), n * D2 - D1 * D1  # t^2 = num_t / den_t
            w = [n * v - D1 for v in d]
            hits = 0
            for b in range(B):
                ws = [w[k] for k in idx[b]]
                s1, s2 = sum(ws), sum(v * v for v in ws)
                num_b, den_b = s1 * s1 * (n - 1), n * s2 - s1 * s1
                if D1 == 0:  # t = 0: every replicate has |t*| >= 0
                    hits += 1
                elif s1 == 0:  # t* = 0 < |t|
                    continue
                elif den_b == 0:  # |t*| = inf
                    hits += 1
                elif den_t != 0:  # |t| = inf is reached only by |t*| = inf
                    hits += num_b * den_t >= num_t * den_b
                    ties += num_b * den_t == num_t * den_b
            asl.append(hits / B)
    return np.array(asl), ties


@pytest.mark.parametrize("n, top, seed", [(8, 2, 0), (8, 1, 5), (12, 4, 7), (15, 3, 8)])  # the old rounding-decided test missed ties in 3
def test_bootstrap_asl_counts_exact_ties_on_discrete_scores(n, top, seed):
    # P@10-like scores (multiples of 1/top): a replicate whose |t*| equals |t| in exact arithmetic is common, and
    # must count as exceeding (|t*| >= |t|) whatever rounding does to it; checked against integer arithmetic
    rng = np.random.default_rng(seed)
    grades = rng.integers(0, top + 1, size=(6, n))
    asl_ref, ties = exact_asl_integer_scores(grades, B=300, seed=seed)
    table = bootstrap_asl(grades / top, n_resamples=300, seed=seed)
    assert ties > 0  # the data has exact ties, so the check has teeth
    np.testing.assert_array_equal(table["asl"].to_numpy(), asl_ref)
    power = discriminative_power(grades / top, n_resamples=300, seed=seed)
    np.testing.assert_array_equal(power.table["asl"].to_numpy(), asl_ref)
