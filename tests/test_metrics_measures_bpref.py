"""bpref family and RankEff: Ahlgren & Grönqvist (2008)'s worked examples and identities, hand-computed cases.

References: Ahlgren & Grönqvist (2008), IP&M 44, §4-5, Table 4 and appendix; Sakai & Kando (2008), IRJ 11, §2
(RankEff = bpref_N); trec_eval ``m_bpref.c`` (parity with pytrec_eval is in test_metrics_parity.py).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import bpref, bpref_10, bpref_n, bpref_r, rank_eff
from metrics._toy import single_topic

# Table 4: n = 30 judged documents, r = 2 relevant; positions 16-29 hold non-relevant documents for both methods
M1 = [1] + [0] * 12 + [1] + [0] * 16  # relevant at ranks 1 and 14
M2 = [1] + [0] * 28 + [1]  # relevant at ranks 1 and 30
TABLE4 = single_topic([M1, M2], qrels=[1, 1] + [0] * 28, systems=["M1", "M2"])


def test_table4_bpref10_is_half_for_both_methods():
    # paper: bpref-10(M1) = ½(1 - 0/12 + 1 - 12/12) = 0.500 = bpref-10(M2)
    got = bpref_10(TABLE4)["1"]
    assert got["M1"] == pytest.approx(0.5, abs=5e-4) and got["M2"] == pytest.approx(0.5, abs=5e-4)
    assert got["M1"] == got["M2"] == 0.5


def test_table4_rankeff_separates_the_methods():
    # paper: RankEff(M1) = (28 + 16) / (2 × 28) ≈ 0.786; RankEff(M2) = (28 + 0) / (2 × 28) = 0.500
    got = rank_eff(TABLE4)["1"]
    assert round(got["M1"], 3) == 0.786 and got["M1"] == pytest.approx(44 / 56, abs=1e-15)
    assert got["M2"] == 0.5


def test_six_document_example_practical_definition():
    """§4.2: 2 relevant + 4 non-relevant judged; M1 retrieves all six, M2 four; relevant at ranks 1, 2 in both.

    Without the practical definition RankEff(M2) would be 0.5; with it both are 1.
    """
    j = single_topic([[1, 1, 0, 0, 0, 0], [1, 1, 0, 0]], qrels=[1, 1, 0, 0, 0, 0])
    assert rank_eff(j)["1"].tolist() == [1.0, 1.0]


def _top_r_pairs(ranked: list[int], r: int) -> float:
    """Ahlgren & Grönqvist eq. 6 from its definition: Σ_{d ∈ R} Ī_r(d) / (r·r), counted pair by pair.

    I_r: the r highest-ranked judged non-relevant documents; Ī_r(d): those ranked below relevant document d.
    """
    nonrel_positions = [i for i, g in enumerate(ranked) if g == 0][:r]
    total = 0
    for i, g in enumerate(ranked):
        if g == 1:
            total += sum(1 for p in nonrel_positions if p > i)
    return total / (r * r)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from([0, 1, None]), max_size=30), st.data())
def test_bpref_is_rankeff_restricted_to_top_r_nonrelevant(ranked, data):
    """Eq. 6: bpref = RankEff over the top-r judged non-relevant documents (every relevant retrieved, N ≥ r)."""
    r = sum(1 for g in ranked if g == 1)
    n = sum(1 for g in ranked if g == 0)
    if r == 0 or n < r:
        return
    unretrieved_nonrel = data.draw(st.integers(0, 5))
    j = single_topic([ranked], qrels=[1] * r + [0] * (n + unretrieved_nonrel))
    expected = _top_r_pairs([g for g in ranked if g is not None], r)
    assert bpref_r(j).iloc[0, 0] == pytest.approx(expected, abs=1e-12)
    assert bpref(j).iloc[0, 0] == pytest.approx(expected, abs=1e-12)  # N ≥ R: trec_eval's min(N, R) = R


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from([0, 1, None]), max_size=30), st.lists(st.sampled_from([0, 1]), max_size=6))
def test_rankeff_from_its_definition_and_equal_to_bpref_n(ranked, unretrieved):
    """Eq. 5 counted pair by pair (unretrieved non-relevant documents rank below every retrieved one)."""
    qrels = [g for g in ranked if g is not None] + unretrieved
    R, N = qrels.count(1), qrels.count(0)
    j = single_topic([ranked], qrels=qrels)
    judged = [g for g in ranked if g is not None]
    below = sum(
        sum(1 for g2 in judged[i + 1 :] if g2 == 0) + unretrieved.count(0) for i, g in enumerate(judged) if g == 1
    )
    if R == 0:
        expected = 0.0
    elif N == 0:
        expected = judged.count(1) / R
    else:
        expected = below / (R * N)
    assert rank_eff(j).iloc[0, 0] == pytest.approx(expected, abs=1e-12)
    assert bpref_n(j).iloc[0, 0] == pytest.approx(expected, abs=1e-12)  # Sakai & Kando: RankEff = bpref_N


def test_trec_eval_bpref_by_hand_when_n_smaller_than_r():
    """trec_eval divides by min(N, R): R = 3, N = 1 gives terms 1, 1 - 1/1 = 0, 0 → 1/3; bpref_R gives (1 + 2/3 + 2/3)/3."""
    j = single_topic([[1, 0, 1, None, 1]], qrels=[1, 1, 1, 0])
    assert bpref(j).iloc[0, 0] == pytest.approx(1 / 3, abs=1e-15)
    assert bpref_r(j).iloc[0, 0] == pytest.approx((1 + 2 / 3 + 2 / 3) / 3, abs=1e-15)
    assert bpref_10(j).iloc[0, 0] == pytest.approx((1 + 12 / 13 + 12 / 13) / 3, abs=1e-15)
    assert bpref_n(j).iloc[0, 0] == pytest.approx((1 + 0 + 0) / 3, abs=1e-15)


def test_bpref10_does_not_always_satisfy_swap():
    """Appendix, Prop. 3: swapping a relevant document with a non-relevant one ranked below the top R + 10 leaves
    bpref-10 unchanged, while RankEff rises."""
    before = [1] + [0] * 12 + [0, 1]  # R = 2: the top 12 non-relevant are all above the second relevant
    after = [1] + [0] * 12 + [1, 0]
    j = single_topic([before, after], qrels=[1, 1] + [0] * 13)
    b10 = bpref_10(j)["1"].to_numpy()
    assert b10[0] == b10[1]
    re = rank_eff(j)["1"].to_numpy()
    assert re[1] > re[0]


def test_no_relevant_documents_scores_zero_and_relevance_level():
    j = single_topic([[0, None, 0]], qrels=[0, 0, 0])
    for f in (bpref, bpref_10, bpref_r, bpref_n, rank_eff):
        assert f(j).iloc[0, 0] == 0.0
    g = single_topic([[1, 2, 0]], qrels=[1, 2, 0])  # rel=2: one relevant (rank 2), N = 2 (grades 0 and 1), one above
    assert bpref(g, relevance_level=2).iloc[0, 0] == pytest.approx(1 - 1 / 1)
    assert rank_eff(g, relevance_level=2).iloc[0, 0] == pytest.approx(1 / 2)
    with pytest.raises(ValueError, match="`relevance_level` must be a finite number > 0"):
        bpref(g, relevance_level=0)


def test_negative_grades_are_neither_relevant_nor_nonrelevant():
    """trec_eval skips pooled-but-unjudged documents (grade < 0) in bpref and leaves them out of N."""
    j = single_topic([[-1, 1, 0, 1]], qrels=[1, 1, 0, -1, -1])  # R = 2, N = 1
    assert bpref(j).iloc[0, 0] == pytest.approx((1 + (1 - 1 / 1)) / 2)
    assert rank_eff(j).iloc[0, 0] == pytest.approx((1 + 0) / 2)
    assert np.isclose(bpref(j).iloc[0, 0], bpref(single_topic([[1, 0, 1]], qrels=[1, 1, 0])).iloc[0, 0])
