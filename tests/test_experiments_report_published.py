"""Tests of experiments/report/published.py: the transcription of Kanoulas & Aslam (2009)'s TREC 9 numbers is consistent
with what the paper's definitions imply (Kendall distances obey the triangle inequality, the stability-optimal
discount needs the fewest topics), and the docstring's arithmetic holds."""
from __future__ import annotations

import itertools

import pytest

from experiments.report.published import PUBLISHED_TREC9 as PUB


def test_table4_is_a_complete_set_of_kendall_taus_that_obey_the_triangle_inequality():
    tau = PUB["table4_kendall_tau"]
    names = ("zipf", "linear", "log2", "optimal")
    assert {frozenset(k) for k in tau} == {frozenset(p) for p in itertools.combinations(names, 2)}
    t = {frozenset(k): v for k, v in tau.items()}
    assert all(-1 <= v <= 1 for v in t.values())
    # (1 - τ)/2 is the normalised Kendall distance (the fraction of discordant pairs, no ties): a metric, so a
    # mistyped entry would likely break d(a, c) <= d(a, b) + d(b, c)
    d = {k: (1 - v) / 2 for k, v in t.items()}
    for a, b, c in itertools.permutations(names, 3):
        assert d[frozenset((a, c))] <= d[frozenset((a, b))] + d[frozenset((b, c))] + 1e-12, (a, b, c)


def test_table1_the_optimal_discount_needs_the_fewest_topics():
    # the optimal discount maximises Φ(1), and Φ(n) = nΦ(1)/(1 + (n-1)Φ(1)) increases with Φ(1): fewest topics
    t1 = PUB["table1_topics_needed"]
    assert t1["optimal"] == min(t1.values())
    assert set(t1) == {"zipf", "linear", "log2", "optimal"} and all(isinstance(v, int) and v > 0 for v in t1.values())
    assert PUB["table1_phi"] == PUB["table3_phi"] == 0.90


def test_docstring_ratio_of_topics_at_0_95_and_0_90():
    # topics needed n = target (1 - Φ1) / ((1 - target) Φ1): the ratio at 0.95 vs 0.90 is independent of Φ1
    ratio = (0.95 / 0.05) / (0.90 / 0.10)
    assert ratio == pytest.approx(0.95 * 0.1 / (0.05 * 0.9))
    assert f"{ratio:.1f}" == "2.1" and "≈ 2.1" in __import__("experiments.report.published").report.published.__doc__


def test_table2_ratios_are_at_least_one_for_the_constrained_optima():
    # constrained gains are non-decreasing in grade, so highly relevant / relevant >= 1
    t2 = PUB["table2_gain_ratio"]
    assert sorted(t2) == [3, 10, 20, 100, 200]
    for k, row in t2.items():
        assert set(row) == {"unconstrained", "constrained", "joint"}
        assert row["constrained"] >= 1 and row["joint"] >= 1, k
