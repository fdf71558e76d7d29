"""Tests of experiments/_validation.py: score arguments read by their axis names, as gtheory.gstudy reads them
(issue 12, item 3), through the public functions; and the helpers themselves (as_scores, align_pair, best_first,
keep_top_k, pair_indices) against hand-made cases."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import experiments
from experiments._validation import align_pair, as_scores, best_first, keep_top_k, pair_indices


def _matrix(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.random((6, 9)) + np.linspace(0, 1, 6)[:, None]      # systems differ
    return pd.DataFrame(x, index=[f"s{i}" for i in range(6)], columns=[f"t{j}" for j in range(9)]).rename_axis(
        index="system", columns="topic")


def test_transposed_frame_named_topic_is_read_as_systems_by_topics():
    m = _matrix()
    ref = experiments.discriminative_power(m, n_resamples=200, seed=1)
    got = experiments.discriminative_power(m.T, n_resamples=200, seed=1)     # index named 'topic' now
    assert m.T.index.name == "topic"
    pd.testing.assert_frame_equal(got.table, ref.table)
    assert got.n_topics == 9


def test_long_frame_is_pivoted():
    m = _matrix(1)
    long = m.stack().rename("score").reset_index()                 # columns system, topic, score
    assert experiments.kendall_tau(long, m) == pytest.approx(1.0)
    irm = long.rename(columns={"system": "run_id", "topic": "query_id", "score": "value"})
    assert experiments.kendall_tau(irm, m) == pytest.approx(1.0)


def test_unnamed_long_looking_frame_is_refused_with_the_fix():
    m = _matrix(2)
    long = m.stack().reset_index(drop=False)
    long.columns = [0, 1, 2]
    long[0] = long[0].str[1:].astype(int)
    long[1] = long[1].str[1:].astype(int)
    with pytest.raises(ValueError, match="looks like a long table"):
        experiments.discriminative_power(long, n_resamples=50, seed=0)


def test_as_scores_reads_arrays_frames_and_means():
    s = as_scores(np.array([[1.0, 2.0], [3.0, 5.0]]), "x")
    assert not s.labelled and list(s.systems) == [0, 1] and list(s.topics) == [0, 1]
    np.testing.assert_array_equal(s.means, [1.5, 4.0])
    f = as_scores(_matrix(), "x")
    assert f.labelled and list(f.systems) == [f"s{i}" for i in range(6)] and len(f.topics) == 9
    m = as_scores(pd.Series([0.2, 0.4, 0.1], index=["a", "b", "c"]), "means")
    assert m.topics is None and m.labelled
    np.testing.assert_array_equal(m.means, [0.2, 0.4, 0.1])
    np.testing.assert_array_equal(m.take(np.array([2, 0])).values, [0.1, 0.2])


@pytest.mark.parametrize("x, kwargs, error, message", [
    ("scores", {}, TypeError, "`x` must be a systems x topics matrix (ndarray or DataFrame) or per-system means "
                              "(1-D array or Series); got str."),
    (np.ones(3), {"require_matrix": True}, ValueError, "`x` must be a 2-D systems x topics matrix (it needs "
                                                       "per-topic scores); got a 1-D array of length 3."),
    (np.ones(3), {"allow_means": False}, ValueError, "(1-D input is not accepted here)"),
    (np.ones((2, 2, 2)), {}, ValueError, "`x` must be 2-D (systems x topics) or 1-D (per-system means); got 3-D"),
    (np.ones(1), {}, ValueError, "`x` must cover at least 2 systems (rows); got 1."),
    (pd.Series([1.0, 2.0, 3.0], index=["a", "b", "a"]), {}, ValueError, "`x` has duplicate system labels: 'a'."),
    (np.array([1.0, np.inf, 2.0]), {}, ValueError, "`x` contains 1 NaN or infinite value(s) (first at system 1)"),
    (pd.Series(["a", "b"], dtype=object), {}, TypeError, "`x` must hold numeric scores; got dtype object."),
])
def test_as_scores_refusals_name_the_parameter_and_the_rule(x, kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        as_scores(x, "x", **kwargs)


def test_align_pair_by_label_and_by_position():
    a = as_scores(pd.Series([1.0, 2.0, 3.0], index=["x", "y", "z"]), "a")
    b = as_scores(pd.Series([30.0, 10.0, 20.0], index=["z", "x", "y"]), "b")
    _, b2 = align_pair(a, b)
    np.testing.assert_array_equal(b2.values, [10.0, 20.0, 30.0])  # in a's order, by label
    c = as_scores(np.array([7.0, 8.0, 9.0]), "c")
    a3, c3 = align_pair(a, c)
    assert list(c3.systems) == ["x", "y", "z"] and c3.labelled  # by position, a's labels
    np.testing.assert_array_equal(c3.values, [7.0, 8.0, 9.0])
    d = as_scores(pd.Series([1.0, 2.0, 3.0], index=["x", "y", "w"]), "d")
    with pytest.raises(ValueError, match=re.escape("`a` and `d` must cover the same systems; 1 systems in `a` are "
                                                   "missing from `d`: 'z'; 1 systems in `d` are missing from `a`: 'w'.")):
        align_pair(a, d, ("a", "d"))
    with pytest.raises(ValueError, match=re.escape("got 3 systems in `a` and 2 in `b`")):
        align_pair(a, as_scores(np.array([1.0, 2.0]), "b"))


def test_best_first_and_keep_top_k_break_rounding_ties_by_input_order():
    # 0.1 + 0.2 differs from 0.3 in the last bit: a tie up to rounding, so input order decides
    means = np.array([0.3, 0.1 + 0.2, 0.5, 0.2])
    assert means[0] != means[1]
    np.testing.assert_array_equal(best_first(means), [2, 0, 1, 3])
    np.testing.assert_array_equal(best_first(means[[1, 0, 2, 3]]), [2, 0, 1, 3])
    s = as_scores(pd.Series(means, index=list("abcd")), "s")
    assert list(keep_top_k(s, 2).systems) == ["c", "a"]
    assert keep_top_k(s, None) is s
    with pytest.raises(ValueError, match=re.escape("`top_k` must not exceed the number of systems (4); got 5.")):
        keep_top_k(s, 5)


def test_pair_indices_are_all_pairs_in_row_major_order():
    i, j = pair_indices(4)
    assert list(zip(i.tolist(), j.tolist())) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    assert len(pair_indices(10)[0]) == 10 * 9 // 2


# ------------------------------------------------------------------ Labels: what compare asks of an index, without pandas

from hypothesis import given, settings, strategies as st  # noqa: E402

from experiments._validation import Labels  # noqa: E402

_LABEL = st.one_of(st.integers(-3, 3), st.sampled_from(["1", "a", "b", "", "a b"]))


@settings(max_examples=40, deadline=None)
@given(items=st.lists(_LABEL, max_size=8), probes=st.lists(_LABEL, max_size=6), picks=st.data())
def test_labels_answer_as_a_pandas_index_does(items, probes, picks):
    """Membership, positions, selection by positions and slices, and append agree with pandas.Index on labels of
    mixed types (``1`` and ``"1"`` differ); positions where pandas has them (distinct labels)."""
    lab, idx = Labels(items), pd.Index(items, dtype=object)
    assert len(lab) == len(idx) and list(lab) == list(idx) and lab.tolist() == items
    for p in probes:
        assert (p in lab) == (p in idx)
    if idx.is_unique:
        assert lab.get_indexer(probes).tolist() == idx.get_indexer(pd.Index(probes, dtype=object)).tolist()
        for p in probes:
            if p in idx:
                assert lab.get_loc(p) == idx.get_loc(p)
            else:
                with pytest.raises(KeyError):
                    lab.get_loc(p)
    if items:
        pos = picks.draw(st.lists(st.integers(0, len(items) - 1), max_size=5))
        assert list(lab[np.array(pos, dtype=np.intp)]) == list(idx[np.array(pos, dtype=np.intp)])
        assert lab[pos[0] if pos else 0] == idx[pos[0] if pos else 0]
    assert list(lab[1:3]) == list(idx[1:3])
    assert list(lab.append(probes)) == list(idx.append(pd.Index(probes, dtype=object)))
    assert list(lab[np.array([], dtype=np.intp)]) == []


def test_a_labelled_matrix_is_its_frame_outside_compare():
    """compare keeps a LabelledMatrix as arrays; every other function reads it as its labelled frame (the same
    result as the frame); labels that are not strings and cells that are not numbers are refused by name."""
    from experiments._validation import LabelledMatrix

    x = np.random.default_rng(0).random((3, 6))
    lm = LabelledMatrix(x, ["a", "b", "c"], list("pqrstu"))
    pd.testing.assert_frame_equal(experiments.paired_ttest(lm), experiments.paired_ttest(lm.frame()))
    with pytest.raises(TypeError, match="labels must be strings; got 1"):
        experiments.compare(LabelledMatrix(x, [1, 2, 3], list("pqrstu")))
    with pytest.raises(TypeError, match="must hold real numbers only"):
        experiments.compare(LabelledMatrix(np.full((3, 6), "x"), ["a", "b", "c"], list("pqrstu")))
    assert list(Labels(["a", "b", "c"])[np.array([True, False, True])]) == ["a", "c"]  # a mask, as an index


def test_a_labelled_matrix_holds_real_numbers_and_a_mask_fits():
    from experiments._validation import LabelledMatrix

    for bad in (np.array([[1, 2, 3], [3, "4", 1]], dtype=object), np.ones((2, 3), dtype=bool),
                np.ones((2, 3), dtype=complex)):
        with pytest.raises(TypeError, match="real numbers only"):
            experiments.compare(LabelledMatrix(bad, ["x", "y"], ["1", "2", "3"]))
    with pytest.raises(IndexError, match="must have 3 entries"):
        Labels(["a", "b", "c"])[np.array([True, False])]
