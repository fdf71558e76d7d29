"""Reciprocal rank (metrics.measures.rr) by hand, after trec_eval's m_recip_rank.c: 1 / (rank of the first document with grade
≥ relevance_level), 0 if there is none; RR@k looks at the top k only. trec_eval parity on real runs (recip_rank, and
RR@k against recip_rank on truncated runs) is in test_metrics_parity.py."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics import evaluate, reciprocal_rank
from metrics._toy import single_topic

# None = unjudged (retrieved, not in the qrels); lists shorter than the longest end in absent ranks
LISTS = [
    [0, None, 1, 2],  # s0: first relevant at rank 3 (grade 2 at rank 4)
    [None, None, 0],  # s1: no relevant document, list ends at rank 3
    [None, 2],  # s2: relevant at rank 2 behind an unjudged document
    [],  # s3: topic not returned
    [0, 1],  # s4: relevant (grade 1) at rank 2
]
J = single_topic(LISTS, qrels=[2, 1, 1, 0, 0])


def rr(j, **kw) -> list[float]:
    return reciprocal_rank(j, **kw)["1"].tolist()


def test_reciprocal_rank_by_hand():
    assert rr(J) == [1 / 3, 0.0, 1 / 2, 0.0, 1 / 2]  # exactly trec_eval's 1.0 / (i + 1)
    assert rr(J, relevance_level=2) == [1 / 4, 0.0, 1 / 2, 0.0, 0.0]
    # condensed lists (trec_eval -J): s0 → 0, 1, 2; s1 → 0; s2 → 2; s4 unchanged
    assert rr(J, judged_only=True) == [1 / 2, 0.0, 1.0, 0.0, 1 / 2]
    assert rr(J, judged_only=True, relevance_level=2) == [1 / 3, 0.0, 1.0, 0.0, 0.0]


def test_cutoff_by_hand():
    assert rr(J, cutoff=1) == [0.0, 0.0, 0.0, 0.0, 0.0]
    assert rr(J, cutoff=2) == [0.0, 0.0, 1 / 2, 0.0, 1 / 2]
    assert rr(J, cutoff=3) == [1 / 3, 0.0, 1 / 2, 0.0, 1 / 2]
    assert rr(J, cutoff=1, judged_only=True) == [0.0, 0.0, 1.0, 0.0, 0.0]  # cut after condensing, as map_cut -J
    assert rr(J, cutoff=2, judged_only=True) == [1 / 2, 0.0, 1.0, 0.0, 1 / 2]
    assert rr(J, cutoff=1000) == rr(J)  # a cut-off past the deepest list changes nothing


def test_no_relevant_documents_and_negative_grades():
    assert rr(single_topic([[0, 0, None]], qrels=[0, 0, 0])) == [0.0]  # R = 0: 0, not NaN
    # grade -1: pooled but unjudged (trec_eval) — not relevant, keeps its rank, dropped by -J
    pooled = single_topic([[-1, 1]], qrels=[-1, 1])
    assert rr(pooled) == [0.5] and rr(pooled, judged_only=True) == [1.0]
    # a grade in (-1, 0) is judged non-relevant: kept by -J
    frac = single_topic([[-0.5, 1]], qrels=[-0.5, 1])
    assert rr(frac) == [0.5] and rr(frac, judged_only=True) == [0.5]


def test_missing_topic_policy():
    e = single_topic([[1], []], qrels=[1], missing="exclude")
    out = reciprocal_rank(e)
    assert out.iloc[0, 0] == 1.0 and np.isnan(out.iloc[1, 0])
    assert out.index.name == "system" and out.columns.name == "topic" and list(out.index) == ["s0", "s1"]


def test_evaluate_names():
    pd.testing.assert_frame_equal(evaluate(J, "RR"), reciprocal_rank(J), check_exact=True)
    for name in ("RR@10", "recip_rank@10", "MRR@10"):
        pd.testing.assert_frame_equal(evaluate(J, name), reciprocal_rank(J, cutoff=10), check_exact=True)
    pd.testing.assert_frame_equal(evaluate(J, "recip_rank"), reciprocal_rank(J), check_exact=True)
    pd.testing.assert_frame_equal(
        evaluate(J, "RR(rel=2)@10"), reciprocal_rank(J, cutoff=10, relevance_level=2), check_exact=True
    )
    pd.testing.assert_frame_equal(evaluate(J, "RR'@2"), reciprocal_rank(J, cutoff=2, judged_only=True),
                                  check_exact=True)
    assert evaluate(J, "RR(rel=2)@10").attrs["measure"] == "RR(rel=2)@10"


def test_bad_arguments_give_the_usual_errors():
    for bad in (0, -1, 2.5, True, "10"):
        with pytest.raises(ValueError, match=r"`cutoff` must be an integer >= 1 or None; got "):
            reciprocal_rank(J, cutoff=bad)
    with pytest.raises(ValueError, match=r"the cut-off in 'RR@0' must be a positive integer; got '0'"):
        evaluate(J, "RR@0")
    with pytest.raises(ValueError, match=r"the cut-off in 'recip_rank@-3' must be a positive integer; got '-3'"):
        evaluate(J, "recip_rank@-3")
    with pytest.raises(ValueError, match=r"`relevance_level` must be a finite number > 0"):
        reciprocal_rank(J, relevance_level=0)
    with pytest.raises(TypeError, match="`judged` must be a metrics.JudgedRuns"):
        reciprocal_rank(np.zeros((2, 2)))
    with pytest.raises(TypeError, match="`judged_only` must be True or False"):
        reciprocal_rank(J, judged_only="yes")


def test_many_topics_at_once_equal_one_at_a_time(dl19):
    """Vectorised over systems × topics: a few cells of DL 2019 against the same cell alone."""
    j = dl19.judged
    full = reciprocal_rank(j, cutoff=10, relevance_level=2).to_numpy()
    for s, t in [(0, 0), (5, 17), (36, 42)]:
        cell = j.subset(systems=[s], topics=[t])
        assert reciprocal_rank(cell, cutoff=10, relevance_level=2).iloc[0, 0] == full[s, t]
    assert "reciprocal_rank" in metrics.__all__


def test_tie_order_against_ir_measures(dl19, tmp_path):
    """docs/measures.md, "RR, ties and ir_measures": ir_measures' RR@k (MS MARCO script: score descending, docno
    ascending) differs from ours (trec_eval: float32 score descending, docno descending) exactly where a tie decides
    the first relevant document — 2 cells of DL 2019 at rel=2 —; untied scores (1/rank in trec_eval's order) give
    ir_measures our numbers, and files sorted by docno ascending within ties, read with ties="input", give ours
    ir_measures' numbers.

    Reference call (ir_measures 0.4): ``ir_measures.iter_calc([ir_measures.RR(rel=2)@10], qrels, run)``."""
    ir_measures = pytest.importorskip("ir_measures")
    measure = ir_measures.RR(rel=2) @ 10
    ours = evaluate(dl19.judged, measure)

    def ir(run: dict) -> dict:
        return {m.query_id: m.value for m in ir_measures.iter_calc([measure], dl19.trec_qrels, run)}

    differ, ref = [], {}
    for system in dl19.judged.systems:
        run = dl19.trec_runs[system]
        ref[system] = ir(run)
        differ += [(system, t) for t, v in ref[system].items() if abs(ours.loc[system, t] - v) > 1e-12]
        untied = {q: {d: 1.0 / (i + 1) for i, (d, _) in enumerate(
            sorted(docs.items(), key=lambda x: (np.float32(x[1]), x[0]), reverse=True))} for q, docs in run.items()}
        assert all(abs(ours.loc[system, t] - v) <= 1e-12 for t, v in ir(untied).items())
    assert sorted(differ) == [("bm25base_ax_p", "1114646"), ("bm25tuned_ax_p", "1114646")]
    # ir_measures' order here: sorted files (score descending, docno ascending), ties="input"
    files = []
    for system in sorted({s for s, _ in differ}):
        lines = [f"{q} Q0 {d} {i + 1} {score!r} {system}\n" for q, docs in dl19.trec_runs[system].items()
                 for i, (d, score) in enumerate(sorted(docs.items(), key=lambda x: (-x[1], x[0])))]
        files.append(tmp_path / system)
        files[-1].write_text("".join(lines))
    theirs = evaluate(metrics.judge(files, dl19.qrels, ties="input"), measure)
    for system in theirs.index:
        assert all(abs(theirs.loc[system, t] - v) <= 1e-12 for t, v in ref[system].items())
