"""Tests of experiments/robustness.py: the summarised incompleteness study (RobustnessStudy)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

import gtheory
import metrics
from metrics import JudgedRuns

from experiments import RobustnessStudy, robustness_study
from metrics import ABSENT, UNJUDGED


@pytest.fixture(scope="module")
def small() -> JudgedRuns:
    """20 systems, all 50 topics: enough for rankings, fast enough for studies."""
    return metrics.load_trec9().subset(systems=np.arange(0, 104, 5)[:20])


def synthetic() -> JudgedRuns:
    """Five topics with (relevant, non-relevant) = (0, 5), (1, 3), (3, 30), (40, 200), (7, 12).

    Grades 0/1/2 and -2 (a "spam" judgment in topic 4, which must count as non-relevant). Two systems
    retrieve the first judged documents of each topic, then one unjudged document.
    """
    per_topic = [
        [0] * 5,
        [1] + [0] * 3,
        [2, 1, 1] + [0] * 30,
        [1] * 30 + [2] * 10 + [0] * 200,
        [1] * 7 + [0] * 10 + [-2] * 2,
    ]
    levels = np.array([-2.0, 0.0, 1.0, 2.0])
    code = {v: i for i, v in enumerate(levels)}
    qrels_level = np.array([code[float(g)] for t in per_topic for g in t], dtype=np.int8)
    offsets = np.r_[0, np.cumsum([len(t) for t in per_topic])].astype(np.int64)
    S, T, K = 2, len(per_topic), 6
    grades = np.full((S, T, K), ABSENT, dtype=np.int8)
    ids = np.full((S, T, K), -1, dtype=np.int32)
    for s in range(S):
        for t, qs in enumerate(per_topic):
            n = min(len(qs), K - 1)
            docs = np.arange(n) if s == 0 else np.arange(len(qs) - n, len(qs))
            grades[s, t, :n] = [code[float(qs[d])] for d in docs]
            ids[s, t, :n] = docs
            grades[s, t, n] = UNJUDGED
    return JudgedRuns(
        grades=grades, doc_ids=ids, levels=levels, qrels_level=qrels_level, qrels_offsets=offsets,
        systems=("a", "b"), topics=tuple(str(t) for t in range(T)),
        n_retrieved=np.full((S, T), K, dtype=np.int32),
    )


@pytest.mark.parametrize("level, match", [
    (5.0, r"`relevance_level` must split the qrels grades \(-2 0 1 2\) into relevant \(>= it\) and non-relevant: "
          r"a value in \(-2, 2\]; got 5\."),
    (-2.0, r"a value in \(-2, 2\]; got -2\."),
    (float("nan"), r"got nan\."),
])
def test_robustness_study_refuses_a_relevance_level_that_splits_nothing(level, match):
    with pytest.raises(gtheory.ParameterError, match=match) as exc:
        robustness_study(synthetic(), ["AP"], fractions=(1.0,), seeds=1, relevance_level=level)
    assert exc.value.param == "relevance_level"


def test_robustness_study_takes_judged_only_and_seeds_as_a_list(small):
    a = robustness_study(small, ["AP"], fractions=[1.0, 0.5], seeds=[0, 1], judged_only=True, test=None)
    assert set(a.results.judged_only) == {False, True} and sorted(set(a.results.seed)) == [0, 1] and a.seeds == 2
    with pytest.warns(FutureWarning, match="`condensed` is now `judged_only`"):
        b = robustness_study(small, ["AP"], fractions=[1.0, 0.5], seeds=2, condensed=True, test=None)
    pd.testing.assert_frame_equal(a.results, b.results)
