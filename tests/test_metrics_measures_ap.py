"""Tests of metrics/measures/ap.py: average precision AP and its condensed-list form AP′.

References: the definition of trec_eval ``m_map.c`` (sum of the precisions at the ranks of the relevant
documents, divided by R, the relevant documents of the topic; ``map_cut`` divides by R too) worked by hand and in
plain Python; trec_eval itself through pytrec_eval (``RelevanceEvaluator(qrels, {"map", "map_cut_5"})``, and with
``judged_docs_only_flag=True`` for AP′) on random one-topic runs (hypothesis). trec_eval parity on real runs is in
test_metrics_parity.py.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import metrics
from metrics import average_precision
from metrics._toy import single_topic
from tiny_collection import one_topic  # noqa: E402

J = single_topic([[1, 0, None, 2, 0, 1], [None, None], []], qrels=[2, 1, 1, 1, 0, 0])  # R = 4


def test_average_precision_by_hand():
    # relevant at ranks 1, 4, 6: (1/1 + 2/4 + 3/6) / 4
    assert average_precision(J).iloc[0, 0] == pytest.approx((1 + 0.5 + 0.5) / 4, abs=1e-15)
    assert average_precision(J, cutoff=4).iloc[0, 0] == pytest.approx((1 + 0.5) / 4, abs=1e-15)  # map_cut: still / R
    # AP′: condensed 1, 0, 2, 0, 1 → (1 + 2/3 + 3/5) / 4
    assert average_precision(J, judged_only=True).iloc[0, 0] == pytest.approx((1 + 2 / 3 + 3 / 5) / 4, abs=1e-15)
    assert average_precision(J, relevance_level=2).iloc[0, 0] == pytest.approx(1 / 4, abs=1e-15)  # R = 1, at rank 4
    assert average_precision(J)["1"].tolist()[1:] == [0.0, 0.0]


def test_perfect_and_empty_rankings():
    # 1 exactly when the R relevant documents come first; 0 (not NaN) when the topic has no relevant document
    assert average_precision(single_topic([[1, 1, 0, None]], qrels=[1, 1, 0])).iloc[0, 0] == 1.0
    assert average_precision(single_topic([[0, None]], qrels=[0, 0])).iloc[0, 0] == 0.0


def test_missing_policy_and_errors():
    e = single_topic([[1], []], qrels=[1], missing="exclude")
    out = average_precision(e)
    assert out.iloc[0, 0] == 1.0 and np.isnan(out.iloc[1, 0])
    assert out.index.name == "system" and out.columns.name == "topic"
    with pytest.raises(ValueError, match=r"`cutoff` must be an integer >= 1 or None; got float 2.5"):
        average_precision(J, cutoff=2.5)
    with pytest.raises(TypeError, match="`relevance_level` must be a finite number"):
        average_precision(J, relevance_level="1")
    with pytest.raises(TypeError, match="`judged` must be a metrics.JudgedRuns"):
        average_precision(np.zeros((2, 2)))
    with pytest.raises(TypeError, match="`judged_only` must be True or False"):
        average_precision(J, judged_only="yes")


def _ap(grades: list, R: int, k: int | None = None) -> Fraction:
    """AP from its definition, in exact arithmetic: (1/R) Σ over relevant ranks r ≤ k of (relevant in 1..r) / r."""
    total, hits = Fraction(0), 0
    for r, g in enumerate(grades[:k] if k else grades, start=1):
        if g is not None and g >= 1:
            hits += 1
            total += Fraction(hits, r)
    return total / R if R else Fraction(0)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(0, 2)), min_size=1, max_size=15),
       st.integers(0, 4), st.one_of(st.none(), st.integers(1, 20)))
def test_matches_the_definition_in_exact_arithmetic(grades, extra_relevant, k):
    # the qrels hold every graded entry of the list plus `extra_relevant` relevant documents not retrieved
    qrels = [g for g in grades if g is not None] + [1] * extra_relevant
    if not qrels:
        qrels = [0]
    j = single_topic([grades], qrels=qrels)
    R = sum(1 for g in qrels if g >= 1)
    # a sum of at most 15 terms in (0, 1] and one division: within 16 ulp of the exact value, 1e-14 covers it
    assert average_precision(j, cutoff=k).iloc[0, 0] == pytest.approx(float(_ap(grades, R, k)), abs=1e-14)
    condensed = [g for g in grades if g is not None]
    assert average_precision(j, judged_only=True).iloc[0, 0] == pytest.approx(float(_ap(condensed, R)), abs=1e-14)


@pytest.mark.filterwarnings("ignore::metrics.LowCoverageWarning")  # random qrels judge few documents, by design
@settings(max_examples=60, deadline=None)
@given(one_topic(), st.booleans())
def test_matches_trec_eval_on_random_lists(case, judged_only):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ranked, judged = case
    run = {"q": {d: float(len(ranked) - i) for i, d in enumerate(ranked)}}  # distinct scores: no tie rule involved
    qrels = {"q": judged}
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"map", "map_cut_5"},
                                         judged_docs_only_flag=judged_only).evaluate(run)["q"]
    j = metrics.judge(run, qrels)
    # the same running sum in the same order, then one division: 1e-12 leaves room for trec_eval's accumulation
    assert average_precision(j, judged_only=judged_only).iloc[0, 0] == pytest.approx(ref["map"], abs=1e-12)
    if not judged_only:
        assert average_precision(j, cutoff=5).iloc[0, 0] == pytest.approx(ref["map_cut_5"], abs=1e-12)
