"""Tests of metrics/_toy.py: ``single_topic``, the hand-written judged lists of the examples and tests.

Reference: the tensor's documented encoding (level codes into ``levels``; -1 unjudged, -2 absent; one judged-
document id per qrels entry), read back entry by entry, and :func:`metrics.judge` of the same lists written as a
run and qrels in memory.
"""
from __future__ import annotations

import numpy as np
import pytest

import metrics
from metrics import ABSENT, UNJUDGED
from metrics._toy import single_topic


def test_encoding():
    j = single_topic([[2, 0, None, 2], [0], []], qrels=[0, 2, 2, 1], systems=["a", "b", "c"], topic="451")
    assert j.systems == ("a", "b", "c") and j.topics == ("451",) and j.levels.tolist() == [0.0, 1.0, 2.0]
    assert j.grades[0, 0].tolist() == [2, 0, UNJUDGED, 2]
    assert j.grades[1, 0].tolist() == [0, ABSENT, ABSENT, ABSENT] and (j.grades[2, 0] == ABSENT).all()
    assert j.n_retrieved.ravel().tolist() == [4, 1, 0]
    # each judged entry points at a distinct qrels document of its grade (ids index the qrels list)
    ids = j.doc_ids[0, 0]
    assert ids.tolist() == [1, 0, -1, 2] and j.qrels_level[[1, 0, 2]].tolist() == [2, 0, 2]
    assert j.n_relevant().tolist() == [3] and j.qrels_offsets.tolist() == [0, 4]
    assert single_topic([[1]], qrels=[1]).systems == ("s0",)


def test_more_documents_of_a_grade_than_the_qrels_hold_is_an_error():
    with pytest.raises(ValueError, match=r"list 0 retrieves more documents of grade 2.0 than the qrels hold"):
        single_topic([[2, 2]], qrels=[2, 1])


def test_equals_judge_of_the_same_lists():
    # run: a (grade 1), x (unjudged), b (grade 0); qrels a:1, b:0, c:1
    j = metrics.judge({"r": {"q": {"a": 3.0, "x": 2.0, "b": 1.0}}}, {"q": {"a": 1, "b": 0, "c": 1}})
    toy = single_topic([[1, None, 0]], qrels=[1, 0, 1], systems=["r"], topic="q")
    assert np.array_equal(toy.levels, j.levels)
    assert np.array_equal(toy.grades, j.grades)
    for m in ("AP", "P@2", "nDCG", "Bpref"):
        np.testing.assert_array_equal(metrics.evaluate(toy, m).to_numpy(), metrics.evaluate(j, m).to_numpy())
