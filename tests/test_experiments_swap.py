"""Tests for experiments.swap.

Reference: a direct, slow simulation of the swap method (Voorhees & Buckley 2002; Sakai 2007) written
as plain loops over trials and system pairs, drawing the topic subsets as swap_rates documents; and a
hand-built swap table for min_difference_for_swap_rate (Ahlgren & Grönqvist 2008, §6.1).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from experiments import DEFAULT_SWAP_BINS, min_difference_for_swap_rate, swap_rates
from experiments.swap import _draw_subsets
from conftest import load_matrix


def jittered(name: str, k: int, seed: int = 0) -> pd.DataFrame:
    """k distinct real systems plus a 1e-7 jitter, so no difference of means sits exactly on a bin edge."""
    frame = load_matrix(name).drop_duplicates().iloc[:k]
    return frame + np.random.default_rng(seed).uniform(0, 1e-7, frame.shape)


def swap_loop(scores: np.ndarray, sizes, edges, B: int, seed: int, sampling: str) -> pd.DataFrame:
    """The swap method, one trial and one pair at a time."""
    rng = np.random.default_rng(seed)
    m, n = scores.shape
    n_bins = len(edges) - 1
    rows = []
    for c in sizes:
        if sampling == "without_replacement":
            keys = rng.random((B, n))
            subsets = []
            for b in range(B):
                order = np.argsort(keys[b])
                subsets.append((order[:c], order[c:2 * c]))
        else:
            first = rng.integers(0, n, size=(B, c))
            u = rng.random((B, c))
            subsets = []
            for b in range(B):
                free = sorted(set(range(n)) - set(first[b].tolist()))
                second = np.array([free[int(u[b, k] * len(free))] for k in range(c)])
                assert not set(second) & set(first[b])  # disjoint topic sets
                subsets.append((first[b], second))
        comparisons = [0] * n_bins
        swaps = [0] * n_bins
        max_mean = max(scores[i, q].mean() for q1, q2 in subsets for q in (q1, q2) for i in range(m))
        for q1, q2 in subsets:
            for i in range(m):
                for j in range(i + 1, m):
                    d1 = scores[i, q1].mean() - scores[j, q1].mean()
                    d2 = scores[i, q2].mean() - scores[j, q2].mean()
                    k = 0
                    while k + 1 < n_bins and abs(d1) >= edges[k + 1]:
                        k += 1
                    comparisons[k] += 1
                    swaps[k] += (d1 > 0 and d2 < 0) or (d1 < 0 and d2 > 0)
        for k in range(n_bins):
            rows.append((c, edges[k], comparisons[k], swaps[k], max_mean))
    return pd.DataFrame(rows, columns=["topic_set_size", "bin_lower", "n_comparisons", "n_swaps", "max_mean"])


@pytest.mark.parametrize("sampling", ["without_replacement", "bootstrap"])
def test_swap_rates_match_direct_simulation(sampling):
    scores = jittered("web2010_ap", 6)
    edges = [0, 0.005, 0.01, 0.02, 0.04, 0.08, np.inf]
    table = swap_rates(scores, topic_set_sizes=[5, 12, 24], bins=edges, n_resamples=120, seed=11, sampling=sampling)
    reference = swap_loop(scores.to_numpy(), [5, 12, 24], edges, B=120, seed=11, sampling=sampling)
    pd.testing.assert_frame_equal(
        table[["topic_set_size", "bin_lower", "n_comparisons", "n_swaps", "max_mean"]], reference,
        check_dtype=False, rtol=1e-12,
    )
    # Sakai 2007's columns (ii)-(iii): the highest mean observed and min difference / that mean
    md = min_difference_for_swap_rate(table, 0.05)
    highest = reference.groupby("topic_set_size")["max_mean"].first()
    np.testing.assert_allclose(md["max_mean"], highest.loc[md.index], rtol=1e-12)
    np.testing.assert_allclose(md["relative_difference"], md["min_difference"] / highest.loc[md.index], rtol=1e-12)
    expected_rate = reference["n_swaps"] / reference["n_comparisons"].where(reference["n_comparisons"] > 0)
    np.testing.assert_allclose(table["swap_rate"], expected_rate)
    assert table.attrs == {"n_resamples": 120, "sampling": sampling, "n_topics": 48, "n_pairs": 15}


def test_swap_rates_converge_to_the_enumerated_swap_probability():
    # an independent reference (not the same draws replayed): with sampling without replacement every ordered pair
    # of disjoint topic subsets of size c is equally likely, so the swap rate of a bin converges to the rate over all
    # C(n, c) C(n - c, c) such pairs, enumerated here
    from itertools import combinations

    rng = np.random.default_rng(4)
    scores = rng.random((3, 7)) + np.array([[0.1], [0.0], [0.05]])
    c, edges = 2, [0.0, 0.1, 0.3, np.inf]
    comparisons = np.zeros(3)
    swaps = np.zeros(3)
    topics = range(7)
    for q1 in combinations(topics, c):
        for q2 in combinations([t for t in topics if t not in q1], c):
            m1, m2 = scores[:, list(q1)].mean(axis=1), scores[:, list(q2)].mean(axis=1)
            for i, j in [(0, 1), (0, 2), (1, 2)]:
                d1, d2 = m1[i] - m1[j], m2[i] - m2[j]
                k = np.searchsorted(edges, abs(d1), side="right") - 1
                comparisons[k] += 1
                swaps[k] += d1 * d2 < 0
    expected = swaps / comparisons
    B = 4000
    table = swap_rates(scores, topic_set_sizes=[c], bins=edges, n_resamples=B, seed=2)
    for k, row in enumerate(table.itertuples()):
        r = expected[k]
        # the 3 pairs of a trial share its subsets: at least n_comparisons / 3 independent draws; 5 standard errors
        tol = 5 * np.sqrt(max(r * (1 - r), 1e-4) * 3 / row.n_comparisons)
        assert abs(row.swap_rate - r) <= tol, (k, row.swap_rate, r)
        assert row.n_comparisons / (3 * B) == pytest.approx(comparisons[k] / comparisons.sum(), abs=0.05)


def test_default_bins_sizes_and_bookkeeping():
    scores = load_matrix("web2013_ndcg20")  # 34 systems x 50 topics
    table = swap_rates(scores, n_resamples=50, seed=0)
    assert sorted(table["topic_set_size"].unique()) == [5, 10, 15, 20, 25]
    per_size = table.groupby("topic_set_size")
    assert (per_size["n_comparisons"].sum() == 50 * 34 * 33 // 2).all()
    assert (per_size.size() == len(DEFAULT_SWAP_BINS) - 1).all()
    first = table[table.topic_set_size == 5]
    assert first["bin"].iloc[0] == pd.Interval(0.0, 0.01, closed="left")
    assert first["bin_upper"].iloc[-1] == np.inf
    assert ((table["n_swaps"] <= table["n_comparisons"]) & (table["n_swaps"] >= 0)).all()


def test_swap_rate_falls_with_difference_and_topic_set_size():
    # Voorhees & Buckley's two findings, on real data: larger differences and larger topic sets swap less
    scores = load_matrix("robust2004_ap").drop_duplicates()
    table = swap_rates(scores, topic_set_sizes=[10, 50, 120], bins=[0, 0.02, 0.05, np.inf], n_resamples=100, seed=3)
    rates = table.pivot(index="topic_set_size", columns="bin_lower", values="swap_rate")
    assert (rates.diff(axis=1).iloc[:, 1:] < 0).all().all()  # across bins
    assert (rates.diff(axis=0).iloc[1:] < 0).all().all()  # across sizes


def test_bootstrap_subsets_are_disjoint_and_sized():
    rng = np.random.default_rng(0)
    first, second = _draw_subsets(rng, 30, 15, 200, "bootstrap")
    assert first.shape == second.shape == (200, 15)
    for q1, q2 in zip(first, second):
        assert not set(q1) & set(q2)
    first, second = _draw_subsets(rng, 30, 15, 200, "without_replacement")
    for q1, q2 in zip(first, second):
        assert len(set(q1) | set(q2)) == 30


def test_min_difference_on_hand_built_table():
    # size 10: rates 0.40, 0.20, 0.04, 0.06, 0.03, 0.00 -> the 0.06 bin offends, so delta = 0.04
    #   (bin 4); comparisons from there on: 100 + 50 = 150 of 1000, swaps 3 + 0 -> 3/150
    # size 20: rates 0.30, 0.05, 0.02, empty, 0.01, 0.00 -> delta = 0.01 (bin 1)
    # size 30: the last non-empty bin offends -> no difference is enough -> NaN
    lower = [0.0, 0.01, 0.02, 0.03, 0.04, 0.05]
    rows = []
    for c, comparisons, swaps in [
        (10, [400, 250, 100, 100, 100, 50], [160, 50, 4, 6, 3, 0]),
        (20, [300, 300, 200, 0, 100, 100], [90, 15, 4, 0, 1, 0]),
        (30, [500, 300, 100, 50, 30, 20], [200, 60, 4, 2, 1, 2]),
    ]:
        rows += [(c, lo, n, s) for lo, n, s in zip(lower, comparisons, swaps)]
    table = pd.DataFrame(rows, columns=["topic_set_size", "bin_lower", "n_comparisons", "n_swaps"])
    result = min_difference_for_swap_rate(table, rate=0.05)
    assert result.loc[10, "min_difference"] == 0.04
    assert result.loc[10, "swap_rate_above"] == pytest.approx(3 / 150)
    assert result.loc[10, "share_of_comparisons"] == pytest.approx(150 / 1000)
    assert result.loc[20, "min_difference"] == 0.01  # 15/300 = 0.05 is "at or below"
    assert result.loc[20, "share_of_comparisons"] == pytest.approx(700 / 1000)
    assert np.isnan(result.loc[30, "min_difference"])
    # a looser rate admits smaller differences
    assert min_difference_for_swap_rate(table, rate=0.25).loc[10, "min_difference"] == 0.01
    # without swap_rates' max_mean column there is no highest mean, hence no relative difference
    assert result[["max_mean", "relative_difference"]].isna().all().all()
    # Sakai 2007 (IP&M 43(2)), NTCIR-3 Chinese, Relaxed-AveP: 0.11 / 0.5392 = 20 %
    sakai = min_difference_for_swap_rate(table.assign(max_mean=0.5392), rate=0.25)
    assert sakai.loc[10, "max_mean"] == 0.5392
    assert sakai.loc[10, "relative_difference"] == pytest.approx(0.01 / 0.5392)


def test_min_difference_on_real_data_shrinks_with_topic_set_size():
    table = swap_rates(load_matrix("web2011_ap").drop_duplicates(), n_resamples=200, seed=0)
    result = min_difference_for_swap_rate(table)
    finite = result["min_difference"].dropna()
    assert len(finite) >= 3
    assert finite.is_monotonic_decreasing
    # every bin at or beyond the reported difference really has a swap rate <= 5%
    for c, delta in finite.items():
        beyond = table[(table.topic_set_size == c) & (table.bin_lower >= delta) & (table.n_comparisons > 0)]
        assert (beyond["swap_rate"] <= 0.05).all()


def test_swap_validation():
    scores = np.random.default_rng(0).random((4, 20))
    with pytest.raises(ValueError, match=r"`topic_set_sizes` must not exceed half the number of topics \(20 // 2 = 10\).*\[11\]"):
        swap_rates(scores, topic_set_sizes=[5, 11])
    with pytest.raises(ValueError, match=r"`bins` edges must start at 0 and increase strictly"):
        swap_rates(scores, bins=[0.01, 0.02])
    with pytest.raises(ValueError, match=r"`sampling` must be one of 'without_replacement', 'bootstrap'"):
        swap_rates(scores, sampling="jackknife")
    with pytest.raises(TypeError, match=r"`topic_set_sizes` must be an integer"):
        swap_rates(scores, topic_set_sizes=[2.5])
    with pytest.raises(TypeError, match=r"`swaps` must be the DataFrame returned by swap_rates\(\)"):
        min_difference_for_swap_rate(scores)
    with pytest.raises(ValueError, match=r"lacks columns \['n_swaps'\]"):
        min_difference_for_swap_rate(pd.DataFrame(columns=["topic_set_size", "bin_lower", "n_comparisons"]))
    # a bin width works too
    widths = swap_rates(scores, topic_set_sizes=5, bins=0.1, n_resamples=10)
    assert widths["bin_lower"].tolist()[:2] == [0.0, 0.1]


@pytest.mark.parametrize("sampling", ["without_replacement", "bootstrap"])
@pytest.mark.parametrize("top, seed", [(1, 0), (3, 2), (10, 3)])
def test_tied_means_of_discrete_scores_are_not_swaps(sampling, top, seed):
    # P@10-like scores: two systems' subset means tie in exact arithmetic in many trials (a tie is not a swap);
    # the reference decides every sign with integer sums (the documented subsets, drawn by the loop above)
    grades = np.random.default_rng(seed).integers(0, top + 1, size=(6, 30))
    sizes, B = [5, 10], 150
    rng = np.random.default_rng(seed)
    expected, ties = {}, 0
    for c in sizes:
        if sampling == "without_replacement":
            keys = rng.random((B, 30))
            subsets = [(np.argsort(keys[b])[:c], np.argsort(keys[b])[c:2 * c]) for b in range(B)]
        else:
            first, u = rng.integers(0, 30, size=(B, c)), rng.random((B, c))
            subsets = []
            for b in range(B):
                free = sorted(set(range(30)) - set(first[b].tolist()))
                subsets.append((first[b], np.array([free[int(u[b, k] * len(free))] for k in range(c)])))
        swaps = 0
        for q1, q2 in subsets:
            s1, s2 = grades[:, q1].sum(axis=1), grades[:, q2].sum(axis=1)  # exact integers
            for i in range(6):
                for j in range(i + 1, 6):
                    d1, d2 = int(s1[i] - s1[j]), int(s2[i] - s2[j])
                    swaps += d1 * d2 < 0
                    ties += d1 == 0 or d2 == 0
        expected[c] = swaps
    assert ties > 0
    table = swap_rates(grades / top, topic_set_sizes=sizes, n_resamples=B, seed=seed, sampling=sampling)
    assert table.groupby("topic_set_size").n_swaps.sum().to_dict() == expected


@pytest.mark.parametrize("sampling", ["without_replacement", "bootstrap"])
def test_differences_on_a_bin_edge_in_exact_arithmetic_are_binned_at_it(sampling):
    # P@10-like scores over 25-topic subsets: mean differences are multiples of 1/250, so 0.02, 0.04, ... sit exactly
    # on the default edges; in floats they were as often just below (0.019999999999999997) and counted a bin lower
    # (7 % of all comparisons on web2013 P@10). Reference: bins decided with integer sums (the documented subsets).
    grades = np.random.default_rng(5).integers(0, 11, size=(6, 50))
    top, n, c, B, seed = 10, 50, 25, 60, 1
    rng = np.random.default_rng(seed)
    if sampling == "without_replacement":
        keys = rng.random((B, n))
        subsets = [(np.argsort(keys[b])[:c], np.argsort(keys[b])[c:2 * c]) for b in range(B)]
    else:
        first, u = rng.integers(0, n, size=(B, c)), rng.random((B, c))
        subsets = []
        for b in range(B):
            free = sorted(set(range(n)) - set(first[b].tolist()))
            subsets.append((first[b], np.array([free[int(u[b, k] * len(free))] for k in range(c)])))
    n_bins = len(DEFAULT_SWAP_BINS) - 1  # edges k/100, k = 0..20, then inf
    want = np.zeros(n_bins, dtype=int)
    on_edge = 0
    for q1, _ in subsets:
        s1 = grades[:, q1].sum(axis=1)  # exact integers; a mean difference is |s_i - s_j| / (c * top)
        for i in range(6):
            for j in range(i + 1, 6):
                hundredths = 100 * abs(int(s1[i] - s1[j]))  # |d| >= k/100  <=>  100 |s_i - s_j| >= k c top
                want[min(hundredths // (c * top), n_bins - 1)] += 1
                on_edge += hundredths % (c * top) == 0 and hundredths > 0
    assert on_edge > 0
    table = swap_rates(grades / top, topic_set_sizes=[c], n_resamples=B, seed=seed, sampling=sampling)
    assert table.n_comparisons.tolist() == want.tolist()
