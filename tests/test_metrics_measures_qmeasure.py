"""Q-measure and R-measure: reduction to AP / R-precision at β = 0 (checked against pytrec_eval's map/Rprec on real
runs), Sakai's binary-relevance property (Q = AP iff no relevant document below rank R, else Q > AP), and hand
computation of the blended ratio.

References: Sakai (2007), IP&M 43, §2.2; Sakai & Kando (2008), IRJ 11, §3.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytrec_eval = pytest.importorskip("pytrec_eval")

from metrics import average_precision, q_measure, r_measure, r_precision
from metrics._toy import single_topic


@pytest.mark.parametrize("judged_only", [False, True])
def test_beta_zero_is_trec_eval_ap_and_rprec(dl19, judged_only):
    """β = 0: BR(r) = count(r)/r, so Q = AP and R-measure = R-precision — compared with trec_eval's map and Rprec."""
    ev = pytrec_eval.RelevanceEvaluator(dl19.trec_qrels, {"map", "Rprec"}, judged_docs_only_flag=judged_only)
    q = q_measure(dl19.judged, beta=0, judged_only=judged_only)
    rm = r_measure(dl19.judged, beta=0, judged_only=judged_only)
    worst, n = 0.0, 0
    for system, run in dl19.trec_runs.items():
        for topic, vals in ev.evaluate(run).items():
            worst = max(worst, abs(q.loc[system, topic] - vals["map"]), abs(rm.loc[system, topic] - vals["Rprec"]))
            n += 1
    assert n > 1000 and worst <= 1e-9


def test_graded_q_and_r_measure_by_hand():
    """Grades 0-2, linear gains; list 0, 2, None, 1, 0, 1 against qrels {2, 1, 1, 0, 0}: R = 3, cg* = 2, 3, 4, 4, …"""
    j = single_topic([[0, 2, None, 1, 0, 1]], qrels=[2, 1, 1, 0, 0])
    # relevant at ranks 2, 4, 6: cg = 2, 3, 4; count = 1, 2, 3
    br2 = (2 + 1) / (3 + 2)
    br4 = (3 + 2) / (4 + 4)
    br6 = (4 + 3) / (4 + 6)
    assert q_measure(j).iloc[0, 0] == pytest.approx((br2 + br4 + br6) / 3, abs=1e-15)
    # β = 2 doubles the gain terms
    q2 = ((2 * 2 + 1) / (2 * 3 + 2) + (2 * 3 + 2) / (2 * 4 + 4) + (2 * 4 + 3) / (2 * 4 + 6)) / 3
    assert q_measure(j, beta=2).iloc[0, 0] == pytest.approx(q2, abs=1e-15)
    # R-measure = BR(R = 3): cg(3) = 2, count(3) = 1, cg*(3) = 4
    assert r_measure(j).iloc[0, 0] == pytest.approx((2 + 1) / (4 + 3), abs=1e-15)
    # Q′ on the condensed list 0, 2, 1, 0, 1: relevant at ranks 2, 3, 5
    qc = ((2 + 1) / (3 + 2) + (3 + 2) / (4 + 3) + (4 + 3) / (4 + 5)) / 3
    assert q_measure(j, judged_only=True).iloc[0, 0] == pytest.approx(qc, abs=1e-15)
    # exponential gains 2^x - 1: grade 2 → 3, grade 1 → 1; cg* = 3, 4, 5
    qe = ((3 + 1) / (4 + 2) + (4 + 2) / (5 + 4) + (5 + 3) / (5 + 6)) / 3
    assert q_measure(j, gain="exponential").iloc[0, 0] == pytest.approx(qe, abs=1e-15)


binary = st.lists(st.sampled_from([0, 1, None]), max_size=25)


@settings(max_examples=80, deadline=None)
@given(ranked=binary, unretrieved=st.integers(0, 4), beta=st.sampled_from([0.5, 1.0, 3.0]))
def test_binary_q_equals_ap_iff_no_relevant_below_rank_r(ranked, unretrieved, beta):
    """Sakai (2007): with one relevance grade, Q = AP if no relevant document lies below rank R, Q > AP otherwise;
    R-measure = R-precision."""
    qrels = [g for g in ranked if g is not None] + [1] * unretrieved
    R = qrels.count(1)
    j = single_topic([ranked], qrels=qrels)
    q, ap = q_measure(j, beta=beta).iloc[0, 0], average_precision(j).iloc[0, 0]
    late = any(g == 1 and i + 1 > R for i, g in enumerate(ranked))
    if late:
        assert q > ap
    else:
        assert q == pytest.approx(ap, abs=1e-12)
    assert r_measure(j, beta=beta).iloc[0, 0] == pytest.approx(r_precision(j).iloc[0, 0], abs=1e-12)


def test_errors_and_degenerate_topics():
    j = single_topic([[0, None]], qrels=[0, 0])
    assert q_measure(j).iloc[0, 0] == 0.0 and r_measure(j).iloc[0, 0] == 0.0
    with pytest.raises(ValueError, match="`beta` must be a finite number ≥ 0; got -1"):
        q_measure(j, beta=-1)
    with pytest.raises(ValueError, match="non-negative gains"):
        q_measure(single_topic([[1]], qrels=[1]), gain={1: -2.0})
    e = single_topic([[1], []], qrels=[1], missing="exclude")
    assert np.isnan(q_measure(e).iloc[1, 0]) and q_measure(e).iloc[0, 0] == 1.0
