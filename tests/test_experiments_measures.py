"""Tests of experiments/_measures.py: the incompleteness study's measures (names through metrics.parse_measure,
callables), their normalisation to a name -> measure mapping and the checks of what a measure returns."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import metrics
from experiments._measures import _check_measures, _resolve_measure, _scores


@pytest.fixture(scope="module")
def judged():
    # 3 systems x 2 topics; d0 grade 2, d1 grade 1, the rest 0; s2 does not rank d0 at all
    qrels = {"1": {"d0": 2, "d1": 1, "d2": 0, "d3": 0}, "2": {"d0": 2, "d1": 1, "d2": 0, "d3": 0}}
    runs = {"s0": {"1": {"d0": 3.0, "d1": 2.0, "d2": 1.0}, "2": {"d1": 3.0, "d0": 2.0, "d2": 1.0}},
            "s1": {"1": {"d2": 3.0, "d1": 2.0, "d0": 1.0}, "2": {"d0": 3.0, "d9": 2.0, "d1": 1.0}},
            "s2": {"1": {"d3": 3.0, "d2": 2.0, "d1": 1.0}, "2": {"d2": 3.0, "d1": 2.0}}}
    return metrics.judge(runs, qrels, progress=False)


def test_check_measures_normalises_to_a_mapping():
    def my_measure(j):
        return None

    assert _check_measures("AP") == {"AP": "AP"}
    assert _check_measures(["AP", my_measure]) == {"AP": "AP", "my_measure": my_measure}
    assert _check_measures({1: "P@5"}) == {"1": "P@5"}
    assert _check_measures(my_measure) == {"my_measure": my_measure}
    with pytest.raises(ValueError, match=re.escape("`measures` must not be empty.")):
        _check_measures([])
    with pytest.raises(TypeError, match="`measures` must be a name, a callable, .*; got int"):
        _check_measures(3)


def test_a_name_is_evaluated_on_plain_and_condensed_lists(judged):
    fn = _resolve_measure("P@2", "p")
    # P@2 by hand: relevant (grade > 0) among the first two ranks
    plain = fn(judged, False).to_numpy()
    np.testing.assert_array_equal(plain, [[1.0, 1.0], [0.5, 0.5], [0.0, 0.5]])
    # condensed: d9 (unjudged) is removed from s1's topic 2, so d1 moves up to rank 2
    condensed = fn(judged, True).to_numpy()
    np.testing.assert_array_equal(condensed, [[1.0, 1.0], [0.5, 1.0], [0.0, 0.5]])


def test_a_callable_receives_the_condensed_runs(judged):
    seen = []

    def unjudged(j):
        seen.append(j)
        return pd.DataFrame((j.grades == metrics.UNJUDGED).sum(axis=-1), index=list(j.systems), columns=list(j.topics))

    fn = _resolve_measure(unjudged, "n")
    np.testing.assert_array_equal(fn(judged, False).to_numpy(), [[0, 0], [0, 1], [0, 0]])  # d9 in s1's topic 2
    np.testing.assert_array_equal(fn(judged, True).to_numpy(), [[0, 0], [0, 0], [0, 0]])  # removed when condensed
    assert seen[0] is judged and seen[1] is not judged


def test_unknown_names_and_other_objects_are_refused_before_any_work():
    with pytest.raises(ValueError):
        _resolve_measure("nDCG@twenty", "x")
    with pytest.raises(TypeError, match=re.escape("`measures['k']` must be a measure name (e.g. 'nDCG@20', 'AP') or "
                                                  "a callable f(judged) -> systems x topics DataFrame; got int.")):
        _resolve_measure(5, "k")


def test_a_primed_name_is_refused_with_the_plain_name_to_use(judged):
    # the plain pass of the study asks for the full lists, which the primed name contradicts
    with pytest.raises(ValueError, match=r"name the plain measure \(e.g. 'AP', not \"AP'\"\)"):
        _resolve_measure("AP'", "ap")(judged, False)


def test_scores_reorders_rows_and_checks_shape_and_finiteness(judged):
    frame = pd.DataFrame([[0.3, 0.4], [0.1, 0.2], [0.5, 0.6]], index=["s1", "s0", "s2"], columns=["1", "2"])
    np.testing.assert_array_equal(_scores(lambda j, c: frame, judged, False, "m"),
                                  [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]])  # the tensor's system order
    with pytest.raises(ValueError, match=re.escape("measure 'm' returned shape (2, 2); expected (n_systems, "
                                                   "n_topics) = (3, 2).")):
        _scores(lambda j, c: np.zeros((2, 2)), judged, False, "m")
    with pytest.raises(metrics.FixableError) as exc:
        _scores(lambda j, c: np.array([[0.1, np.nan]] * 3), judged, False, "m")
    assert exc.value.param == "judged" and exc.value.fix == {"missing": "zero"}
    assert "measure 'm' returned NaN or infinite scores" in str(exc.value)
