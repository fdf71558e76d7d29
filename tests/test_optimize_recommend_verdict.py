"""optimize.recommend.verdict: the verdict says which tier of the rule decided, on what evidence (the texts of real
recommendations are checked in tests/test_optimize_recommend*.py; here each branch on constructed decisions)."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from optimize.recommend.fixed import FixedDecision
from optimize.recommend.verdict import PHI_MEANING, fixed_clause, tier_reason, verdict


def _fixed(index: int) -> FixedDecision:
    return FixedDecision(names=("log2", "zipf", "linear"), phi=np.array([0.2, 0.3, 0.21]),
                         diff=np.array([0.0, 0.1, 0.01]), lo=np.array([math.nan, 0.04 if index else -0.01, -0.02]),
                         hi=np.array([math.nan, 0.15, 0.03]), share=np.array([math.nan, 0.999, 0.7]), index=index,
                         alpha=0.025, m=2, n_resamples=4000, alpha_swap=0.025,
                         p=np.array([math.nan, 0.004 if index else 0.03, 0.4]))


def _dec(**kw):
    d = dict(decided=True, adopt=False, tier=1, index=0, reference=0, alternative=3, wins=7, n_outer=10,
             agreement=5, runs=[None] * 5, fixed=_fixed(0))
    d.update(kw)
    return SimpleNamespace(**d)


CANDS = [SimpleNamespace(name=n) for n in ("log2", "zipf", "linear", "rbp(p)")]
FITTED = [(None, n) for n in ("log2", "zipf", "linear", "rbp(p=0.8)")]
ARGS = dict(base_spec="nDCG@10", label="rbp(p=0.8)", T=50, phi_b=0.9, phi_a=0.92, phi_lo=-0.01, phi_hi=0.03,
            saved=3.0, target=0.95, n_splits=10, min_wins=0.8, level=0.95)


def test_each_tier_is_named_with_its_evidence():
    keep = verdict(_dec(), CANDS, FITTED, measure="nDCG@10", **ARGS)
    assert keep.startswith("keep nDCG@10: no standard configuration is reliably better on all topics (tier 1: zipf ")
    assert "rbp(p=0.8) itself was better on 7/10" in keep and keep.endswith(PHI_MEANING + ".")
    one = verdict(_dec(adopt=True, index=1, reference=1, fixed=_fixed(1)), CANDS, FITTED, measure="nDCG(zipf)", **ARGS)
    assert one.startswith("switch to nDCG(zipf) instead of nDCG@10 (tier 1, fixed configurations on all topics): zipf")
    assert ("studentised topic-swap randomisation p = 0.004, needed ≤ 0.0125 (Bonferroni over 2 standards, 4000 swaps); "
            "95% paired-topic-bootstrap interval [+0.040, +0.150]") in one
    two = verdict(_dec(adopt=True, tier=2, index=3, reference=1, alternative=3, fixed=_fixed(1)), CANDS, FITTED,
                  measure=None, **ARGS)
    assert two.startswith("switch to the tuned configuration rbp(p=0.8)") and "(tier 2, tuned, compared with zipf" in two
    few = verdict(_dec(decided=False), CANDS, FITTED, measure="nDCG@10", **dict(ARGS, n_splits=3), min_splits=5)
    assert "too few splits to decide (3 outer splits; at least 5 are needed)" in few


def test_the_reason_names_the_deciding_tier():
    assert tier_reason(_dec(), CANDS, FITTED, 50, 0.95).startswith("tier 1 (fixed configurations, all topics): no ")
    assert tier_reason(_dec(adopt=True, index=1, reference=1, fixed=_fixed(1)), CANDS, FITTED, 50, 0.95).startswith(
        "tier 1 (fixed configurations, all topics): zipf is more stable than the baseline by the studentised")
    assert tier_reason(_dec(adopt=True, tier=2, index=3, reference=1), CANDS, FITTED, 50, 0.95).startswith("tier 2")
    assert tier_reason(_dec(decided=False), CANDS, FITTED, 50, 0.95).startswith("neither")
    # when keeping, the clause is about the standard nearest to being adopted: the smallest p-value
    assert fixed_clause(_dec(), 50, 0.95).startswith("zipf on all 50 topics Φ(1) 0.200 → 0.300 (+0.100; "
                                                     "studentised topic-swap randomisation p = 0.03, needed ≤ 0.0125")
