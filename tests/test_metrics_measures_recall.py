"""R@k and Success@k (metrics.recall): hand-computed cases, relations to the other measures, and errors. trec_eval
parity (``recall_k``, ``success_k``; plain, -J, -l 2, negative grades) is in test_metrics_parity.py."""
from __future__ import annotations

import numpy as np
import pytest

from metrics import evaluate, recall, success
from metrics._toy import single_topic

J = single_topic([[2, 0, None, 1, 0, 1], [0, 1], []], qrels=[2, 1, 1, 0, 0, 0])  # R = 3 (grades >= 1)


def test_recall_hand_computed():
    assert recall(J, cutoff=1)["1"].tolist() == [1 / 3, 0.0, 0.0]
    assert recall(J, cutoff=4)["1"].tolist() == [2 / 3, 1 / 3, 0.0]
    assert recall(J, cutoff=100)["1"].tolist() == [1.0, 1 / 3, 0.0]  # a short list keeps what it has
    assert recall(J, cutoff=4, relevance_level=2)["1"].tolist() == [1.0, 0.0, 0.0]  # R = 1 at level 2
    # condensed list: 2, 0, 1, 0, 1 -> top 3 hold two relevant
    assert recall(J, cutoff=3, judged_only=True).iloc[0, 0] == pytest.approx(2 / 3)


def test_success_hand_computed():
    assert success(J, cutoff=1)["1"].tolist() == [1.0, 0.0, 0.0]
    assert success(J, cutoff=2)["1"].tolist() == [1.0, 1.0, 0.0]
    assert success(J, cutoff=1, relevance_level=2)["1"].tolist() == [1.0, 0.0, 0.0]


def test_topic_without_relevant_documents_scores_zero():
    j = single_topic([[0, None]], qrels=[0, 0])
    assert recall(j, cutoff=5).iloc[0, 0] == 0.0 and success(j, cutoff=5).iloc[0, 0] == 0.0


def test_relations_on_real_runs(embedded_trec9):
    """Success@k = [RR >= 1/k]; R@k * R = P@k * k; R@depth = NumRelRet / NumRel; both non-decreasing in k."""
    j = embedded_trec9.subset(systems=list(range(0, 104, 8)))
    rr = evaluate(j, "RR").to_numpy()
    R = j.n_relevant()[None, :]
    for k in (1, 5, 20, 100):
        assert np.array_equal(evaluate(j, f"Success@{k}").to_numpy(), (rr >= 1 / k).astype(float))
        assert np.allclose(evaluate(j, f"R@{k}").to_numpy() * R, evaluate(j, f"P@{k}").to_numpy() * k, atol=1e-12)
    assert np.allclose(
        recall(j, cutoff=j.depth).to_numpy() * R, evaluate(j, "NumRelRet").to_numpy(), atol=1e-9
    )
    r = np.stack([recall(j, cutoff=k).to_numpy() for k in (1, 10, 100, 1000)])
    assert (np.diff(r, axis=0) >= 0).all() and (r[-1] > r[0]).any()


def test_exclude_gives_nan_for_unreturned_topics():
    j = single_topic([[1], []], qrels=[1], missing="exclude")
    for f in (recall, success):
        out = f(j, cutoff=3)["1"]
        assert out.iloc[0] == 1.0 and np.isnan(out.iloc[1])


@pytest.mark.parametrize("f", [recall, success])
def test_errors(f):
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'cutoff'"):
        f(J)
    with pytest.raises(ValueError, match="`cutoff` must be an integer >= 1; got 0"):
        f(J, cutoff=0)
    with pytest.raises(ValueError, match="`relevance_level` must be a finite number > 0"):
        f(J, cutoff=3, relevance_level=0)
    with pytest.raises(TypeError, match="`judged` must be a metrics.JudgedRuns"):
        f(np.zeros((2, 2)), cutoff=3)
