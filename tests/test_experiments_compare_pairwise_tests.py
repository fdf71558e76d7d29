"""Tests for experiments.compare.pairwise_tests: the paired t-test and Wilcoxon test against scipy.stats pair by pair, and
the randomised Tukey HSD (Carterette 2012) against a per-trial loop and an integer-arithmetic reference."""
from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
import scipy
from scipy import stats

import experiments

_OLD_SCIPY = tuple(int(x) for x in scipy.__version__.split(".")[:2]) < (1, 13)


def scipy_wilcoxon(d: np.ndarray, method: str, correction: bool = True):
    """The reference: ``scipy.stats.wilcoxon(d, method=method, correction=correction)`` of one row of differences, on
    every supported SciPy (before 1.13 the normal approximation is named ``"approx"``)."""
    if _OLD_SCIPY and method == "asymptotic":
        method = "approx"
    return stats.wilcoxon(d, method=method, correction=correction)


def r_rule(d: np.ndarray) -> str:
    """R's ``wilcox.test`` default, written out: ``exact <- (n < 50)`` (n the non-zero differences) and no zero or tie
    (``if (exact && !TIES && !ZEROES)``), the normal approximation otherwise. Not scipy's ``"auto"``, which takes the
    exact distribution at n = 50 too (and runs a permutation test for 13 or fewer tied differences)."""
    clean = bool(np.all(d != 0)) and np.unique(np.abs(d)).size == d.size
    return "exact" if clean and d.size < 50 else "asymptotic"


from experiments import paired_ttest, tukey_hsd_randomised, wilcoxon_test
from experiments.compare import pairwise_tests
from experiments.compare.pairwise_tests import __all__ as PAIRWISE
from conftest import load_matrix


def distinct_systems(frame: pd.DataFrame, k: int) -> pd.DataFrame:
    """The first k systems with pairwise-distinct score vectors (TREC has duplicate runs)."""
    return frame.drop_duplicates().iloc[:k]


def test_the_tests_are_importable_from_experiments_as_the_same_objects():
    for name in PAIRWISE:
        assert getattr(experiments, name) is getattr(pairwise_tests, name)


@pytest.mark.parametrize(
    ("name", "n_topics"),
    [
        ("web2011_ap", None),  # continuous scores, 50 topics: normal approximation (R; scipy's auto: exact)
        ("web2011_ap", 49),  # continuous scores, 49 topics: exact
        ("web2012_p10", None),  # many ties and zeros: normal approximation
        ("web2014_p10", 12),  # small sample: exact without ties/zeros, else normal approximation
        ("robust2004_ap", None),  # 249 topics: normal approximation
    ],
)
def test_paired_ttest_and_wilcoxon_match_scipy_pair_by_pair(name, n_topics):
    scores = distinct_systems(load_matrix(name), 7).iloc[:, :n_topics]
    X = scores.to_numpy()
    units = np.rint(X * (10 if "_p10" in name else 10_000))
    assert np.allclose(units / (10 if "_p10" in name else 10_000), X, rtol=0, atol=1e-12)
    I, J = np.triu_indices(len(X), 1)
    tt = paired_ttest(scores)
    wx = wilcoxon_test(scores)
    hows: list[str] = []
    for row, (i, j) in enumerate(zip(I, J)):
        # references: scipy.stats.ttest_rel(X[i], X[j]); scipy.stats.wilcoxon(X[i], X[j])
        ref_t = stats.ttest_rel(X[i], X[j])
        # the differences in exact arithmetic, integers (the files hold P@10 in tenths, AP with 4 decimals), so that
        # their zeros and ties are the data's, not rounding's
        d = units[i] - units[j]
        how = r_rule(d)
        hows.append(how)
        ref_w = scipy_wilcoxon(d, how)
        assert tt.loc[row, "t"] == pytest.approx(ref_t.statistic, rel=1e-10)
        assert tt.loc[row, "p_value"] == pytest.approx(ref_t.pvalue, rel=1e-8)
        assert wx.loc[row, "statistic"] == pytest.approx(ref_w.statistic)
        assert wx.loc[row, "p_value"] == pytest.approx(ref_w.pvalue, rel=1e-8)
    if name == "web2011_ap":  # AP, 4 decimals: most pairs without zeros or ties, so the topic count decides
        assert ("exact" in hows) == (len(X[0]) < 50)
    # identical systems: no evidence of a difference
    dup = np.vstack([X[0], X[0], X[1]])
    assert paired_ttest(dup).loc[0, "p_value"] == 1.0
    assert wilcoxon_test(dup).loc[0, "p_value"] == 1.0


@pytest.mark.parametrize("name", ["web2013_p10", "web2012_p10"])
def test_wilcoxon_sees_the_ties_and_zeros_of_exact_arithmetic(name):
    # P@10 differences equal in exact arithmetic differ in the last bits (0.3 - 0.1 vs 0.5 - 0.3), so scipy ranked
    # them apart: on web2013 P@10, 549 of 561 p-values differed from the test on the exact differences (up to 0.37)
    # and 16 decisions at 0.05 flipped. Reference: scipy.stats.wilcoxon on the differences in tenths (integers).
    scores = load_matrix(name)
    tenths = np.rint(scores.to_numpy() * 10)
    assert np.array_equal(tenths / 10, scores.to_numpy())
    I, J = np.triu_indices(len(tenths), 1)
    wx = wilcoxon_test(scores)
    want_p, want_w = np.ones(len(I)), np.zeros(len(I))
    for k, (i, j) in enumerate(zip(I, J)):
        d = tenths[i] - tenths[j]
        if (d == 0).all():
            continue
        ref = scipy_wilcoxon(d, r_rule(d))  # 50 topics: always the normal approximation (R's n < 50)
        want_p[k], want_w[k] = ref.pvalue, ref.statistic
    np.testing.assert_allclose(wx["p_value"], want_p, rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(wx["statistic"], want_w, rtol=1e-12)


def tukey_loop(scores: np.ndarray, B: int, seed: int) -> np.ndarray:
    """Carterette (2012): permute each topic's scores across systems; p = share of ranges >= |diff|."""
    rng = np.random.default_rng(seed)
    m, n = scores.shape
    ranges = []
    for _ in range(B):
        permuted = np.empty_like(scores)
        for k in range(n):
            permuted[:, k] = rng.permutation(scores[:, k])
        means = permuted.mean(axis=1)
        ranges.append(means.max() - means.min())
    ranges = np.array(ranges)
    means = scores.mean(axis=1)
    I, J = np.triu_indices(m, 1)
    return np.array([np.mean(ranges >= abs(means[i] - means[j])) for i, j in zip(I, J)])


def test_randomised_tukey_hsd_agrees_with_loop_simulation():
    scores = distinct_systems(load_matrix("web2012_ndcg20"), 8)
    table = tukey_hsd_randomised(scores, n_resamples=3000, seed=0)
    reference = tukey_loop(scores.to_numpy(), B=3000, seed=123)  # independent draws
    # both are empirical CDFs of the range at the same points: max gap ~ KS distance (99.9%: 0.05)
    assert np.max(np.abs(table["p_value"].to_numpy() - reference)) < 0.05
    # the family-wise test is more conservative than the per-pair t-test
    assert np.all(table["p_value"].to_numpy() >= paired_ttest(scores)["p_value"].to_numpy() - 0.05)
    pd.testing.assert_frame_equal(table, tukey_hsd_randomised(scores, n_resamples=3000, seed=0))


def exact_tukey_p_integer_scores(grades: np.ndarray, B: int, seed: int) -> tuple[np.ndarray, int]:
    """Randomised Tukey HSD p-values in integer arithmetic (the same documented permutations, system SUMS instead of
    means: the range comparison is scale-free), and the number of exact ties range = |difference|."""
    from experiments._validation import pair_indices  # the documented pair order

    rng = np.random.default_rng(seed)
    m, n = grades.shape
    base = grades.T.astype(np.int64)
    block = max(1, (1 << 21) // (m * n))  # the documented blocks of permutations
    ranges = np.empty(B, dtype=np.int64)
    for start in range(0, B, block):
        k = min(block, B - start)
        sums = rng.permuted(np.broadcast_to(base, (k, n, m)), axis=2).sum(axis=1)
        ranges[start:start + k] = sums.max(axis=1) - sums.min(axis=1)
    I, J = pair_indices(m)
    total = grades.sum(axis=1)
    d = np.abs(total[I] - total[J])
    return np.array([(ranges >= x).sum() / B for x in d]), int(sum((ranges == x).sum() for x in d))


@pytest.mark.parametrize("top, seed", [(1, 0), (2, 1), (3, 2), (10, 3)])
def test_tukey_hsd_randomised_counts_exact_ties_on_discrete_scores(top, seed):
    # a permutation among tied scores leaves the means as they are: ranges equal to an observed difference in exact
    # arithmetic are common with discrete scores and must count (q >= d); the rounding-decided test missed 1-6 per set
    grades = np.random.default_rng(seed).integers(0, top + 1, size=(5, 12))
    p_ref, ties = exact_tukey_p_integer_scores(grades, B=500, seed=seed)
    assert ties > 0
    p = tukey_hsd_randomised(grades / top, n_resamples=500, seed=seed)["p_value"].to_numpy()
    np.testing.assert_array_equal(p, p_ref)
