"""Tests of metrics/measures/precision.py: P@k and R-precision.

References: the definitions of trec_eval ``m_P.c`` (P_k = relevant in the top k / k, also for shorter lists) and
``m_Rprec.c`` (relevant in the top min(R, n) / R), worked by hand on small lists; trec_eval itself through
pytrec_eval (``RelevanceEvaluator(qrels, {"P_5", "P_10", "Rprec"})``) on random one-topic runs (hypothesis).
trec_eval parity on real runs is in test_metrics_parity.py.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import metrics
from metrics import precision, r_precision
from metrics._toy import single_topic
from tiny_collection import one_topic  # noqa: E402

J = single_topic([[1, 0, None, 2, 0, 1], [None, None], []], qrels=[2, 1, 1, 1, 0, 0])  # R = 4


def test_precision_by_hand():
    assert precision(J, cutoff=1)["1"].tolist() == [1.0, 0.0, 0.0]
    assert precision(J, cutoff=4)["1"].tolist() == [0.5, 0.0, 0.0]
    assert precision(J, cutoff=10)["1"].tolist() == [0.3, 0.0, 0.0]  # shorter list: still divided by 10
    assert precision(J, cutoff=2, relevance_level=2).iloc[0, 0] == 0.0
    assert precision(J, cutoff=3, judged_only=True).iloc[0, 0] == pytest.approx(2 / 3)  # condensed: 1, 0, 2


def test_r_precision_by_hand():
    assert r_precision(J)["1"].tolist() == [0.5, 0.0, 0.0]  # top 4: 1, 0, -, 2
    assert r_precision(J, judged_only=True).iloc[0, 0] == 0.5  # condensed top 4: 1, 0, 2, 0
    assert r_precision(J, relevance_level=2).iloc[0, 0] == 0.0  # R = 1, rank 1 has grade 1
    short = single_topic([[1, 1]], qrels=[1, 1, 1, 1, 1])  # two retrieved of R = 5
    assert r_precision(short).iloc[0, 0] == pytest.approx(2 / 5)


def test_no_relevant_document_gives_zero_not_nan():
    # trec_eval's Rprec is 0 when R = 0 (no division by zero); P@k counts no relevant document
    none = single_topic([[0, 0, None]], qrels=[0, 0])
    assert r_precision(none).iloc[0, 0] == 0.0 and precision(none, cutoff=3).iloc[0, 0] == 0.0


def test_missing_policy_and_errors():
    e = single_topic([[1], []], qrels=[1], missing="exclude")
    for f in (lambda j: precision(j, cutoff=1), r_precision):
        out = f(e)
        assert out.iloc[0, 0] == 1.0 and np.isnan(out.iloc[1, 0])
        assert out.index.name == "system" and out.columns.name == "topic"
    with pytest.raises(ValueError, match=r"`cutoff` must be an integer >= 1; got 0"):
        precision(J, cutoff=0)
    with pytest.raises(ValueError, match=r"`cutoff` must be an integer >= 1; got None"):
        precision(J, cutoff=None)
    with pytest.raises(ValueError, match=r"`relevance_level` must be a finite number > 0"):
        r_precision(J, relevance_level=0)
    with pytest.raises(TypeError, match="`judged` must be a metrics.JudgedRuns"):
        precision(np.zeros((2, 2)))


@pytest.mark.filterwarnings("ignore::metrics.LowCoverageWarning")  # random qrels judge few documents, by design
@settings(max_examples=60, deadline=None)
@given(one_topic())
def test_matches_trec_eval_on_random_lists(case):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ranked, judged = case
    run = {"q": {d: float(len(ranked) - i) for i, d in enumerate(ranked)}}  # distinct scores: no tie rule involved
    qrels = {"q": judged}
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"P_5", "P_10", "Rprec"}).evaluate(run)["q"]
    j = metrics.judge(run, qrels)
    # both are a count divided by an integer, each computed with one IEEE division: equal to the last bit
    # up to the float the C code accumulates in, so 1e-12 is a wide margin
    assert precision(j, cutoff=5).iloc[0, 0] == pytest.approx(ref["P_5"], abs=1e-12)
    assert precision(j, cutoff=10).iloc[0, 0] == pytest.approx(ref["P_10"], abs=1e-12)
    assert r_precision(j).iloc[0, 0] == pytest.approx(ref["Rprec"], abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(0, 1)), min_size=1, max_size=12), st.integers(1, 15))
def test_precision_is_the_count_over_k_and_monotone_in_the_list(grades, k):
    # P@k from its definition in plain Python: relevant among the first k entries, divided by k
    qrels = [1] * 12 + [0] * 12  # enough judged documents of each grade for any list
    j = single_topic([grades], qrels=qrels)
    want = sum(1 for g in grades[:k] if g == 1) / k
    assert precision(j, cutoff=k).iloc[0, 0] == want
    # the condensed list drops the unjudged entries (None) and keeps the order
    cond = [g for g in grades if g is not None]
    assert precision(j, cutoff=k, judged_only=True).iloc[0, 0] == sum(cond[:k]) / k
