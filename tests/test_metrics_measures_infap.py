"""infAP: a direct transcription of trec_eval's loop (m_infap.c) as the reference on random lists, and its
reductions — infAP = AP with complete judgments, infAP′ = AP′. Parity with pytrec_eval's infAP (with and without
negative grades) is in test_metrics_parity.py.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import average_precision, inferred_ap
from metrics.measures.infap import INFAP_EPSILON
from metrics._toy import single_topic


def infap_loop(ranked, R: int, eps: float = 1e-5) -> float:
    """trec_eval m_infap.c, line by line: None = not in the pool, -1 = pooled but unjudged, 0 nonrel, ≥ 1 rel."""
    nonrel = rel = pool_unj = 0
    total = 0.0
    for j, g in enumerate(ranked):
        if g is None:
            continue
        if g < 0:
            pool_unj += 1
            continue
        if g < 1:
            nonrel += 1
        else:
            rel += 1
            if j == 0:
                total += 1.0
            else:
                fj = float(j)
                total += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((rel - 1 + nonrel + pool_unj) / fj) * (
                    (rel - 1 + eps) / (rel - 1 + nonrel + 2 * eps)
                )
    return total / R if R else 0.0


@settings(max_examples=150, deadline=None)
@given(
    ranked=st.lists(st.one_of(st.none(), st.sampled_from([-1, 0, 0, 1, 2])), max_size=30),
    unretrieved=st.lists(st.sampled_from([-1, 0, 1, 2]), max_size=5),
)
def test_matches_trec_eval_loop(ranked, unretrieved):
    qrels = [g for g in ranked if g is not None] + unretrieved
    R = sum(1 for g in qrels if g >= 1)
    j = single_topic([ranked], qrels=qrels)
    assert inferred_ap(j).iloc[0, 0] == pytest.approx(infap_loop(ranked, R), abs=1e-13)
    condensed = [g for g in ranked if g is not None and g >= 0]
    assert inferred_ap(j, judged_only=True).iloc[0, 0] == pytest.approx(infap_loop(condensed, R), abs=1e-13)


@settings(max_examples=60, deadline=None)
@given(ranked=st.lists(st.sampled_from([0, 1, 2]), max_size=30), unretrieved=st.lists(st.sampled_from([0, 1]), max_size=5))
def test_complete_judgments_give_ap_up_to_epsilon(ranked, unretrieved):
    """Every retrieved document judged: the estimate (a + ε)/(a + b + 2ε) is the precision a/(a + b) up to O(ε)."""
    j = single_topic([ranked], qrels=ranked + unretrieved)
    assert inferred_ap(j).iloc[0, 0] == pytest.approx(average_precision(j).iloc[0, 0], abs=5 * INFAP_EPSILON)


def test_hand_computed_example():
    # ranks: rel, not pooled, pooled-unjudged, nonrel, rel; R = 2
    j = single_topic([[1, None, -1, 0, 1]], qrels=[1, 1, 0, -1])
    e = 1e-5
    second = 1 / 5 + (4 / 5) * ((1 + 1 + 1) / 4) * ((1 + e) / (1 + 1 + 2 * e))
    assert inferred_ap(j).iloc[0, 0] == pytest.approx((1 + second) / 2, abs=1e-15)
