"""Reproduction of Kanoulas & Aslam (CIKM 2009), TREC 9 rows of Tables 1-3 and the shapes of Figs. 2-3.

Tolerances: the embedded data has 104 of the paper's 105 TREC-9 runs and the paper's optimiser
settings are unknown. For the *standard* discounts (no optimiser involved) our topics-needed differ
from the published ones by 1-3 topics (42/30/27 vs 45/31/29), which is the data difference alone;
we allow ±3 topics everywhere. Table 2 prints ratios to one decimal, so we require ours to round to
the published value or lie within 0.06 of it. See docs/reproduction-trec9.md.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import gtheory
import metrics
import optimize
from experiments.report.published import PUBLISHED_TREC9 as PUB


def _needed(j, gain, discount, target):
    X = metrics.ndcg(j, gain=gain, discount=discount, cutoff=100).to_numpy()
    return gtheory.gstudy(X).topics_needed(target, level=None).n


@pytest.fixture(scope="module")
def opt_discount(embedded_trec9):
    return optimize.optimize_discount(embedded_trec9, gain=[0, 1, 2], cutoff=100, starts=2)


def test_table1_topics_needed_matches_phi_0_90(embedded_trec9, opt_discount):
    published = PUB["table1_topics_needed"]
    ours90 = {d: _needed(embedded_trec9, [0, 1, 2], d, 0.90) for d in ("zipf", "linear", "log2")}
    ours90["optimal"] = opt_discount.topics_needed(0.90).n
    ours95 = {d: _needed(embedded_trec9, [0, 1, 2], d, 0.95) for d in ("zipf", "linear", "log2")}
    ours95["optimal"] = opt_discount.topics_needed(0.95).n
    for k, v in published.items():
        assert abs(ours90[k] - v) <= 3, (k, ours90[k], v)
        assert ours95[k] > v + 15   # the caption's 0.95 would need about twice as many topics
    assert ours90["optimal"] < ours90["log2"] < ours90["linear"] < ours90["zipf"]  # published order


@pytest.mark.parametrize("k", sorted(PUB["table2_gain_ratio"]))
def test_table2_gain_ratios(embedded_trec9, k):
    unc, con, joint = (PUB["table2_gain_ratio"][k][c] for c in ("unconstrained", "constrained", "joint"))

    def close(ours, pub):
        return round(ours, 1) == pub or abs(ours - pub) <= 0.06

    u = optimize.optimize_gain(embedded_trec9, discount="log2", cutoff=k, monotone=False, starts=2)
    c = optimize.optimize_gain(embedded_trec9, discount="log2", cutoff=k, starts=2)
    jt = optimize.optimize_joint(embedded_trec9, cutoff=k, starts=2)
    assert close(u.gain_ratios[2.0], unc) and close(c.gain_ratios[2.0], con)
    assert close(jt.gain_ratios[2.0], joint), jt.gain_ratios
    assert c.n_agree == 2 and jt.success


def test_table3_gain_efficiency(embedded_trec9):
    published = PUB["table3_topics_needed"]
    for g, v in published.items():
        if g == "optimal":
            continue
        assert abs(_needed(embedded_trec9, g, "log2", 0.90) - v) <= 3
    t = optimize.optimize_gain(embedded_trec9, discount="log2", cutoff=100, starts=2)
    # the paper's optimal (30) needs more topics than its linear (29) — impossible in sample;
    # ours never needs more than the standard gains
    assert t.topics_needed(0.90).n <= _needed(embedded_trec9, "linear", "log2", 0.90)
    assert abs(t.topics_needed(0.90).n - published["optimal"]) <= 3


def test_figure2_optimal_discount_flatter_than_log(opt_discount):
    d = opt_discount.discount
    log = metrics.discount_vector("log2", 100)
    log = log / log.sum()
    assert d[0] < log[0] and d[-1] > log[-1]               # less steep: lower head, heavier tail
    ratio = d / d[0]
    assert ratio[9] >= 0.3 and np.ptp(ratio[10:]) < 0.05   # top ~10 ranks matter, the rest nearly constant


def test_figure3_unconstrained_not_monotone(embedded_trec9):
    u = optimize.optimize_discount(embedded_trec9, gain=[0, 1, 2], cutoff=20, monotone=False, starts=2)
    assert np.sum(np.diff(u.discount) > 1e-6) >= 3
