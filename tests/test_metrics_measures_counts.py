"""NumRel, NumRet, NumRelRet and Judged@k (metrics.measures.counts): hand-computed cases and Judged@k against ir_measures'
``judged`` provider on real runs. trec_eval parity of the counts (``num_rel``, ``num_ret``, ``num_rel_ret``; plain,
-J, -l 2) is in test_metrics_parity.py.

Reference call (ir_measures 0.4)::

    ir_measures.judged.iter_calc([ir_measures.Judged @ k], qrels, run)
"""
from __future__ import annotations

import numpy as np
import pytest

from metrics import evaluate, judged_at_k, num_rel, num_rel_ret, num_ret
from metrics._toy import single_topic

J = single_topic([[2, 0, None, 1, -1, None], [0, 1], []], qrels=[2, 1, 1, 0, 0, -1])


def test_counts_hand_computed():
    assert num_rel(J)["1"].tolist() == [3.0, 3.0, 3.0]  # grades >= 1; the same for every system
    assert num_rel(J, relevance_level=2)["1"].tolist() == [1.0, 1.0, 1.0]
    assert num_ret(J)["1"].tolist() == [6.0, 2.0, 0.0]
    # condensed: unjudged and grade -1 (pooled but unjudged, trec_eval -J) dropped
    assert num_ret(J, judged_only=True)["1"].tolist() == [3.0, 2.0, 0.0]
    assert num_rel_ret(J)["1"].tolist() == [2.0, 1.0, 0.0]
    assert num_rel_ret(J, relevance_level=2)["1"].tolist() == [1.0, 0.0, 0.0]


def test_judged_at_k_hand_computed():
    # grade -1 has a qrels entry: judged (as ir_measures looks documents up in the qrels)
    assert judged_at_k(J, cutoff=3)["1"].tolist() == [2 / 3, 1.0, 0.0]
    assert judged_at_k(J, cutoff=5)["1"].tolist() == [0.8, 1.0, 0.0]
    assert judged_at_k(J)["1"].tolist() == [4 / 6, 1.0, 0.0]  # whole list
    assert judged_at_k(J, cutoff=10)["1"].tolist() == [4 / 6, 1.0, 0.0]  # divided by min(k, length)


def test_names_in_evaluate():
    assert evaluate(J, "NumRelRet").equals(num_rel_ret(J))
    assert evaluate(J, "num_rel_ret").attrs["measure"] == "NumRet(rel=1)"  # ir_measures' canonical spelling
    assert evaluate(J, "NumRet(rel=2)").equals(num_rel_ret(J, relevance_level=2))
    assert evaluate(J, "num_ret").equals(num_ret(J))
    assert evaluate(J, "NumRet'").equals(num_ret(J, judged_only=True))
    assert evaluate(J, "NumRel(rel=2)").equals(num_rel(J, relevance_level=2))
    assert evaluate(J, "Judged@3").equals(judged_at_k(J, cutoff=3))
    # Judged@k describes the original list: judged_only does not turn it into 1
    assert evaluate(J, "Judged@3", judged_only=True).equals(judged_at_k(J, cutoff=3))
    with pytest.raises(ValueError, match="measure Judged has no condensed-list form"):
        evaluate(J, "Judged'@3")
    with pytest.raises(ValueError, match=r"measure NumRel takes no cut-off"):
        evaluate(J, "NumRel@10")


def test_exclude_gives_nan_for_unreturned_topics():
    j = single_topic([[1, None], []], qrels=[1], missing="exclude")
    for f in (num_rel, num_ret, num_rel_ret, judged_at_k):
        out = f(j)["1"]
        assert np.isfinite(out.iloc[0]) and np.isnan(out.iloc[1])


def test_errors():
    with pytest.raises(ValueError, match="`cutoff` must be an integer >= 1 or None; got 0"):
        judged_at_k(J, cutoff=0)
    with pytest.raises(TypeError, match="`judged_only` must be True or False"):
        num_rel(J, judged_only="yes")
    with pytest.raises(ValueError, match="`relevance_level` must be a finite number > 0"):
        num_rel_ret(J, relevance_level=-1)


@pytest.mark.parametrize("collection", ["trec9", "dl19"])
def test_judged_at_k_matches_ir_measures(collection, request):
    """ir_measures ranks tied scores by docno ascending, trec_eval (and metrics.judge) by docno descending; the runs
    given to ir_measures are rescored 1/rank in trec_eval's order (float32 score, then docno, both descending), so
    both rank the same documents and the comparison checks the measure, not the tie rule."""
    ir_measures = pytest.importorskip("ir_measures")
    c = request.getfixturevalue(collection)
    j = c.judged
    ks = (1, 10, 100, 1000)
    ours = evaluate(j, [f"Judged@{k}" for k in ks] + [ir_measures.Judged])
    checked = 0
    for system in j.systems:
        run = {}
        for q, docs in c.trec_runs[system].items():
            order = sorted(docs.items(), key=lambda x: (np.float32(x[1]), x[0]), reverse=True)
            run[q] = {d: 1.0 / (i + 1) for i, (d, _) in enumerate(order)}
        measures = [ir_measures.Judged @ k for k in ks] + [ir_measures.Judged]
        for m in ir_measures.judged.iter_calc(measures, c.trec_qrels, run):
            if m.query_id in j.topics:
                got = float(ours[str(m.measure)].loc[system, m.query_id])
                assert got == pytest.approx(m.value, abs=1e-12), (system, m.query_id, str(m.measure))
                checked += 1
    assert checked >= 0.9 * len(ks + (None,)) * j.n_systems * j.n_topics
    assert (ours["Judged@1000"].to_numpy() < 1).any()  # unjudged documents are there to count
