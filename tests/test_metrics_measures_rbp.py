"""RBP and its residual: Sakai & Kando (2008) Table 1 (RBP of an ideal list), hand computation, and the residual's
promise — filling the unjudged documents in any way keeps RBP within [RBP, RBP + residual].

References: Moffat & Zobel (2008), ACM TOIS 27(1); Sakai & Kando (2008), IRJ 11, §3.3 and Table 1.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import evaluate, rbp, rbp_residual
from metrics._toy import single_topic


@pytest.mark.parametrize(
    "p, R, published",
    [(0.95, 10, 0.4013), (0.95, 100, 0.9941), (0.95, 1, 0.05), (0.8, 1, 0.2), (0.5, 1, 0.5)],
)
def test_ideal_list_matches_sakai_kando_table1(p, R, published):
    """An ideal binary list of R relevant documents: RBP = 1 - p^R (.4013 for R = 10, .9941 for R = 100; 1 - p for R = 1)."""
    j = single_topic([[1] * R], qrels=[1] * R + [0] * 5)
    got = float(rbp(j, p=p).iloc[0, 0])
    assert round(got, 4) == published
    assert got == pytest.approx(1 - p**R, abs=1e-12)


def test_graded_rbp_by_hand():
    """Gain / max gain with linear gains on grades 0-3: weights 1/3, 2/3, 1 (Sakai & Kando eq. 9)."""
    j = single_topic([[3, 0, None, 1, 2]], qrels=[3, 2, 1, 0])
    p = 0.8
    expected = (1 - p) * (1 + (1 / 3) * p**3 + (2 / 3) * p**4)
    assert rbp(j, p=p).iloc[0, 0] == pytest.approx(expected, abs=1e-15)
    # binary at level 2 (ir_measures' RBP(rel=2)): documents of grade 2 and 3 weigh 1
    assert evaluate(j, "RBP(p=0.8,rel=2)").iloc[0, 0] == pytest.approx((1 - p) * (1 + p**4), abs=1e-15)
    # cut-off 3 keeps ranks 1-3 only
    assert rbp(j, p=p, cutoff=3).iloc[0, 0] == pytest.approx((1 - p) * 1, abs=1e-15)
    # condensed list: 3, 0, 1, 2
    assert rbp(j, p=p, judged_only=True).iloc[0, 0] == pytest.approx((1 - p) * (1 + p**2 / 3 + 2 * p**3 / 3), abs=1e-15)


def test_residual_by_hand():
    """Unjudged at ranks 2 and 4 of a 5-document list: (1-p)(p + p^3) + p^5."""
    p = 0.6
    j = single_topic([[1, None, 0, None, 1], []], qrels=[1, 1, 0])
    res = rbp_residual(j, p=p)["1"].to_numpy()
    assert res[0] == pytest.approx((1 - p) * (p + p**3) + p**5, abs=1e-15)
    assert res[1] == 1.0  # nothing retrieved: nothing known
    assert rbp_residual(j, p=p, cutoff=3).iloc[0, 0] == pytest.approx((1 - p) * p + p**3, abs=1e-15)
    assert rbp_residual(j, p=p, judged_only=True).iloc[0, 0] == pytest.approx(p**3, abs=1e-15)
    # pooled-but-unjudged (negative grade) counts as unjudged
    k = single_topic([[1, -1]], qrels=[1, -1])
    assert rbp_residual(k, p=p).iloc[0, 0] == pytest.approx((1 - p) * p + p**2, abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(
    ranked=st.lists(st.one_of(st.none(), st.sampled_from([0, 1, 2])), min_size=1, max_size=20),
    fill=st.lists(st.sampled_from([0, 1, 2]), min_size=20, max_size=20),
    more=st.lists(st.sampled_from([0, 1, 2]), max_size=10),
    p=st.sampled_from([0.5, 0.8, 0.95]),
)
def test_any_completion_stays_within_the_residual(ranked, fill, more, p):
    """Judge the unjudged documents (any grade) and extend the list: RBP lands in [RBP, RBP + residual]."""
    judged_part = [g for g in ranked if g is not None]
    completed = [fill[i] if g is None else g for i, g in enumerate(ranked)] + more
    qrels = judged_part + [fill[i] for i, g in enumerate(ranked) if g is None] + more + [2]  # top grade 2 exists
    lo = float(rbp(single_topic([ranked], qrels=judged_part + [2]), p=p).iloc[0, 0])
    res = float(rbp_residual(single_topic([ranked], qrels=judged_part + [2]), p=p).iloc[0, 0])
    full = float(rbp(single_topic([completed], qrels=qrels), p=p).iloc[0, 0])
    assert lo - 1e-12 <= full <= lo + res + 1e-12


def test_argument_errors():
    j = single_topic([[1]], qrels=[1])
    with pytest.raises(ValueError, match=r"`p` \(persistence\) must be in \(0, 1\); got 1"):
        rbp(j, p=1)
    with pytest.raises(TypeError, match="`p` must be a number"):
        rbp(j, p="0.8")
    with pytest.raises(ValueError, match="`cutoff` must be an integer >= 1"):
        rbp(j, cutoff=0)
    with pytest.raises(ValueError, match="give either `rel`"):
        evaluate(j, "RBP(rel=1,gain=linear)")


def test_missing_topic_policy():
    j = single_topic([[1], []], qrels=[1], missing="exclude")
    assert np.isnan(rbp(j).iloc[1, 0]) and np.isnan(rbp_residual(j).iloc[1, 0])
