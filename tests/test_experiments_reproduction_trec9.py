"""Kanoulas & Aslam (CIKM 2009) on the embedded TREC-9 Web data: Table 4 (Kendall τ between the discounts) and
Figure 9 (discriminative power of the stability-optimal nDCG), as tests.

The published numbers come from :mod:`experiments.report.published`; docs/reproduction-trec9.md and docs/report.md record
the measured ones.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import experiments
import metrics
import optimize
from experiments.report.published import PUBLISHED_TREC9

DISCOUNTS = ("zipf", "linear", "log2")

#: |ours - published| allowed for a Table 4 τ. The embedded data has 104 of the paper's 105 runs, so the
#: paper's τ is ours with one run added. Dropping one run from ours moves a τ by at most 0.0052 (over all 104
#: runs and the six pairs), a spread (max - min over the runs dropped) of at most 0.0084 with the optimal
#: discount fixed and 0.0099 when it is re-tuned on each 103-run set (docs/reproduction-trec9.md, "Table 4").
#: The tolerance is twice that spread: the paper's optimiser (MATLAB) also differs from ours. Measured gaps:
#: 0.0025-0.0110.
TABLE4_TOLERANCE = 0.02


@pytest.fixture(scope="module")
def table4_means(embedded_trec9):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optimize.OptimizationWarning)
        opt = optimize.optimize_discount(embedded_trec9, gain=[0, 1, 2], cutoff=100, starts=2)
    scores = {d: metrics.ndcg(embedded_trec9, gain=[0, 1, 2], discount=d, cutoff=100) for d in DISCOUNTS}
    scores["optimal"] = opt.ndcg(embedded_trec9)
    return {k: v.to_numpy().mean(axis=1) for k, v in scores.items()}


def test_table4_kendall_tau_reproduced(table4_means):
    published = PUBLISHED_TREC9["table4_kendall_tau"]
    table = experiments.tau_matrix(table4_means)
    gaps = {}
    for (a, b), tau in published.items():
        gaps[a, b] = float(table.loc[a, b]) - tau
        assert abs(gaps[a, b]) <= TABLE4_TOLERANCE, (a, b, float(table.loc[a, b]), tau)
    # the six pairs come in the published order (zipf-linear lowest ... linear-optimal highest)
    assert sorted(published, key=published.get) == sorted(published, key=lambda p: table.loc[p])
    # ours are all a little higher than the paper's (one run fewer, and a slightly different optimum)
    assert 0 < min(gaps.values()) and max(gaps.values()) < 0.012


def test_table4_tolerance_is_twice_the_leave_one_run_out_spread(table4_means):
    # The tolerance above must stay justified by the data: the spread of each τ over the 104 leave-one-run-out
    # sets (optimal discount held fixed) is at most half of it.
    m = len(table4_means["zipf"])
    spreads = {}
    for a, b in PUBLISHED_TREC9["table4_kendall_tau"]:
        x, y = table4_means[a], table4_means[b]
        loo = [experiments.kendall_tau(np.delete(x, i), np.delete(y, i)) for i in range(m)]
        spreads[a, b] = max(loo) - min(loo)
    assert max(spreads.values()) <= TABLE4_TOLERANCE / 2, spreads
    assert max(spreads.values()) > 0.005  # ... and not vacuously small: one run does matter at this size


@pytest.fixture(scope="module")
def figure9_power(embedded_trec9):
    # Fig. 9: nDCG@20, top 30 systems by mean, Sakai's paired bootstrap with B = 1000 (as the paper), seed 0;
    # (a) optimal gain + optimal discount (jointly tuned), (b) linear + log, (c) exponential + log,
    # (d) linear + linear
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optimize.OptimizationWarning)
        joint = optimize.optimize_joint(embedded_trec9, cutoff=20, starts=2)
    configs = {
        "optimal": joint.ndcg(embedded_trec9),
        "linear+log2": metrics.ndcg(embedded_trec9, gain="linear", discount="log2", cutoff=20),
        "exponential+log2": metrics.ndcg(embedded_trec9, gain="exponential", discount="log2", cutoff=20),
        "linear+linear": metrics.ndcg(embedded_trec9, gain="linear", discount="linear", cutoff=20),
    }
    return {k: experiments.discriminative_power(v, 0.05, n_resamples=1000, seed=0, top_k=30) for k, v in configs.items()}


def test_figure9_stability_optimal_ndcg_is_not_more_discriminative(figure9_power):
    # The paper reads Fig. 9 as "the stability-optimal nDCG is the most discriminative". On the embedded data
    # (docs/report.md, "Figure 9"): all four variants tell apart 15-17 % of the 435 pairs; the optimal one
    # (67 pairs, 15.4 %) is within 0.012 of log (72, 16.6 %) and within 0.005 of linear+linear (69, 15.9 %).
    # Over 20 bootstrap seeds the optimal-minus-log difference is -0.004 ± 0.0065 (range -0.016 .. +0.007):
    # no gain beyond the resampling noise, and no loss either.
    p = {k: r.power for k, r in figure9_power.items()}
    assert all(r.n_pairs == 435 for r in figure9_power.values())  # 30 systems
    assert [r.n_significant for r in figure9_power.values()] == [67, 72, 73, 69]
    assert abs(p["optimal"] - p["linear+log2"]) <= 0.02          # within 3 sd of the seed-to-seed difference
    assert abs(p["optimal"] - p["linear+linear"]) <= 0.02
    assert max(p.values()) - min(p.values()) <= 0.02             # the four are indistinguishable here
    assert not p["optimal"] > max(v for k, v in p.items() if k != "optimal")  # the paper's claim does not hold
