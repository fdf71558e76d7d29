"""Tests of metrics/measures/_ranked.py: the shared pieces of the rank-based measures — argument checks, per-rank relevance,
the sparse view of relevant documents and the per-cell sums.

References: trec_eval's conventions (``form_res_rels.c``: relevant at grade ≥ level; grades ≤ -1 pooled but
unjudged, neither relevant nor judged non-relevant) on lists written out here, and plain Python loops over the
same tensors for the vectorised helpers (hypothesis).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from metrics.measures._ranked import (as_frame, at_relevant, cell_sum, evaluated_list,
                             level_mask, list_length, nonrelevant_levels, relevance_at_ranks, relevant_levels,
                             safe_divide, within_cell_cumsum)
from metrics import average_precision, precision
from metrics._toy import single_topic


def test_relevant_and_nonrelevant_levels_follow_trec_eval():
    j = single_topic([[2, -1, 0, None, 1]], qrels=[-1, 0, 1, 2])
    assert j.levels.tolist() == [-1.0, 0.0, 1.0, 2.0]
    assert relevant_levels(j, 1.0).tolist() == [False, False, True, True]
    assert nonrelevant_levels(j, 1.0).tolist() == [False, True, False, False]  # -1: pooled but unjudged
    assert nonrelevant_levels(j, 2.0).tolist() == [False, True, True, False]
    rel = level_mask(j, relevant_levels(j, 1.0))
    assert rel[0, 0].tolist() == [True, False, False, False, True]  # unjudged (None) is not relevant
    assert level_mask(j, relevant_levels(j, 1.0), unjudged=True)[0, 0, 3]
    assert list_length(j).tolist() == [[5]]


def test_relevance_at_ranks_cuts_and_condenses():
    j = single_topic([[1, None, 1, 0]], qrels=[1, 1, 0])
    v, rel, rl = relevance_at_ranks(j, cutoff=2, relevance_level=1, judged_only=False)
    assert v is j and rl == 1.0 and rel[0, 0].tolist() == [True, False]
    v, rel, _ = relevance_at_ranks(j, cutoff=None, relevance_level=1, judged_only=True)
    assert rel[0, 0, :3].tolist() == [True, True, False]  # condensed: the unjudged document removed
    assert evaluated_list(j, False) is j


def _j():
    return single_topic([[1]], qrels=[1])


@pytest.mark.parametrize("call, exc, param, rule", [
    # the measures' rules are the parameter table's (gtheory.kit.params), checked before the body runs
    (lambda: average_precision(_j(), relevance_level=0), ValueError, "relevance_level", "a finite number > 0"),
    (lambda: average_precision(_j(), relevance_level=float("nan")), ValueError, "relevance_level", "> 0"),
    (lambda: average_precision(_j(), relevance_level=True), TypeError, "relevance_level", "a finite number > 0"),
    (lambda: average_precision(_j(), cutoff=0), ValueError, "cutoff", "an integer >= 1 or None"),
    (lambda: average_precision(_j(), cutoff=True), ValueError, "cutoff", "an integer >= 1 or None"),
    (lambda: precision(_j(), cutoff=None), ValueError, "cutoff", "an integer >= 1"),  # required by P@k
])
def test_parameter_rules_of_the_measures(call, exc, param, rule):
    with pytest.raises(exc) as caught:
        call()
    assert caught.value.param == param and rule in caught.value.rule and f"`{param}`" in str(caught.value)


@pytest.mark.parametrize("call, exc, message", [
    (lambda: evaluated_list("judged", False), TypeError, r"`judged` must be a metrics.JudgedRuns"),
    (lambda: evaluated_list(single_topic([[1]], qrels=[1]), 1), TypeError, r"`judged_only` must be True or False"),
])
def test_checks(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_accepted_arguments_are_cleaned():
    j = single_topic([[1, 0]], qrels=[1, 0])
    assert average_precision(j, cutoff=np.int64(1), relevance_level=np.int8(1)).equals(
        average_precision(j, cutoff=1, relevance_level=1.0))
    assert precision(j, cutoff=np.int64(2)).iloc[0, 0] == 0.5


def test_safe_divide_and_as_frame():
    assert safe_divide([1.0, 2.0, 0.0], [2.0, 0.0, 0.0]).tolist() == [0.5, 0.0, 0.0]  # trec_eval: x/0 is 0
    e = single_topic([[1], []], qrels=[1], missing="exclude", systems=["a", "b"], topic="7")
    f = as_frame(np.array([[0.5], [0.0]]), e)
    assert f.index.tolist() == ["a", "b"] and f.columns.tolist() == ["7"]
    assert f.iloc[0, 0] == 0.5 and np.isnan(f.iloc[1, 0])  # not returned, excluded: NaN


bool_tensors = st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 6)).flatmap(
    lambda shape: st.lists(st.booleans(), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))).map(
        lambda v: np.array(v, dtype=bool).reshape(shape)))


@settings(max_examples=150, deadline=None)
@given(bool_tensors, st.data())
def test_sparse_helpers_equal_plain_loops(rel, data):
    other = np.array(data.draw(st.lists(st.booleans(), min_size=rel.size, max_size=rel.size)), dtype=bool).reshape(rel.shape)
    cell, r, (count_rel, count_other) = at_relevant(rel, rel, other)
    S, T, K = rel.shape
    want = [(s * T + t, k, rel[s, t, :k + 1].sum(), other[s, t, :k + 1].sum())
            for s in range(S) for t in range(T) for k in range(K) if rel[s, t, k]]
    assert list(zip(cell.tolist(), r.tolist(), count_rel.tolist(), count_other.tolist())) == want
    # per-cell sums and running sums of the 1/(rank) terms, against loops (values summed in the same order:
    # bincount and cumsum add left to right as the loop does, so they agree to rounding, 1e-12)
    values = 1.0 / (r + 1.0)
    sums = cell_sum(cell, values, rel.shape)
    for s in range(S):
        for t in range(T):
            assert sums[s, t] == pytest.approx(sum(1.0 / (k + 1) for k in range(K) if rel[s, t, k]), abs=1e-12)
    running = within_cell_cumsum(cell, values)
    expect, last, acc = [], None, 0.0
    for c, v in zip(cell.tolist(), values.tolist()):
        acc = v if c != last else acc + v
        last = c
        expect.append(acc)
    np.testing.assert_allclose(running, expect, rtol=0, atol=1e-12)
