"""Tests of metrics/io/judge.py: judge() builds the tensor from run files, RunSets or memory — the report of missing
and unknown topics, the missing-topic policy, the depth and its warning, option checks, errors from worker
processes."""
from __future__ import annotations

import numpy as np
import pytest

import metrics
from conftest import shared
from metrics import judge, read_qrels, read_runs
from test_metrics_io_judged import QRELS, RUN_A, small  # noqa: F401  (the tensor of the judged tests, a fixture)


def test_report_counts_ignored_and_missing_topics(small):
    assert small.report["run_topics_not_in_qrels"] == {"A": ["9"]}
    assert small.report["qrels_topics_missing_from_run"] == {"A": ["3"], "B": ["2", "3"]}
    assert small.topics == ("1", "2", "3")
    assert small.retrieved.tolist() == [[True, True, False], [True, False, False]]


def test_missing_policy_zero_and_exclude(tmp_path, small):
    nd = metrics.ndcg(small)
    assert nd.loc["B", "2"] == 0.0
    ex = judge(read_runs(tmp_path / "runs"), read_qrels(tmp_path / "qrels"), missing="exclude")
    nd2 = metrics.ndcg(ex)
    assert np.isnan(nd2.loc["B", "2"]) and np.isnan(nd2.loc["A", "3"])
    assert nd2.loc["A", "1"] == nd.loc["A", "1"]
    with pytest.raises(ValueError, match="`missing` must be 'zero' or 'exclude'"):
        judge(read_runs(tmp_path / "runs"), read_qrels(tmp_path / "qrels"), missing="drop")


def test_depth_truncates(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN_A)
    j = judge([tmp_path / "r"], tmp_path / "q", depth=2, workers=1)
    assert j.depth == 2
    assert j.report["rows_beyond_depth"] == {"r": 1}
    with pytest.raises(ValueError, match="`depth` must be a positive integer"):
        judge([tmp_path / "r"], tmp_path / "q", depth=0)


def test_paths_and_runset_give_the_same_tensor():
    d = shared("trec-dl-2019-passage")
    files = sorted((d / "runs_judged_full_xz").iterdir())[:4]
    q = d / "qrels.dl19-passage.txt"
    a = judge(files, q)  # process pool path
    b = judge(read_runs(files), q)
    assert a.systems == b.systems and a.topics == b.topics
    assert np.array_equal(a.grades, b.grades) and np.array_equal(a.doc_ids, b.doc_ids)


def test_malformed_file_in_worker_process_names_file_and_line(tmp_path):
    """Errors raised in judge's worker processes reach the caller intact (TrecFormatError pickles)."""
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "good").write_text(RUN_A)
    (tmp_path / "bad").write_text("1 Q0 a 1 0.9 X\n1 Q0 b 2 nan X\n")
    with pytest.raises(metrics.TrecFormatError, match=r"bad, line 2: score 'nan' is not finite") as err:
        judge([tmp_path / "good", tmp_path / "bad"], tmp_path / "q", workers=2)
    assert err.value.line == 2


def test_judge_validates_options(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN_A)
    with pytest.raises(ValueError, match="`ties` must be one of"):
        judge([tmp_path / "r"], tmp_path / "q", ties="bogus")
    with pytest.raises(ValueError, match="`duplicates` must be 'error' or 'first'"):
        judge([tmp_path / "r"], tmp_path / "q", duplicates="last")
    with pytest.raises(ValueError, match="`depth` must be a positive integer"):
        judge([tmp_path / "r"], tmp_path / "q", depth=True)


@pytest.mark.filterwarnings("ignore::metrics.LowCoverageWarning")
def test_judge_warns_when_the_default_depth_cuts_a_run_and_an_explicit_depth_is_silent():
    import warnings

    import pandas as pd

    import metrics

    docs = [f"d{i}" for i in range(1005)]
    run = pd.DataFrame({"query_id": "1", "doc_id": docs, "score": -pd.Series(range(1005), dtype=float),
                        "run": "deep"})
    qrels = pd.DataFrame({"query_id": "1", "doc_id": ["d0", "d1003"], "relevance": [1, 1]})
    with pytest.warns(metrics.DepthWarning, match=r"5 row\(s\) ranked below 1000 were not read, in 1 run\(s\): deep "
                                                  r"\(5\)\. trec_eval without -M evaluates them.*pass depth=1000"):
        cut = metrics.judge(run, qrels)
    with warnings.catch_warnings():
        warnings.simplefilter("error", metrics.DepthWarning)
        same = metrics.judge(run, qrels, depth=1000)  # as trec_eval -M 1000: no warning
        deep = metrics.judge(run, qrels, depth=2000)
    assert cut.depth == same.depth == 1000 and (cut.grades == same.grades).all() and deep.depth == 1005
    assert cut.report["rows_beyond_depth"] == {"deep": 5}
    # recall@1005 sees the relevant document at rank 1004 only when it was read (as trec_eval without -M)
    import pytrec_eval

    ref = pytrec_eval.RelevanceEvaluator({"1": {"d0": 1, "d1003": 1}}, {"map"}).evaluate(
        {"1": {d: float(-i) for i, d in enumerate(docs)}})["1"]["map"]
    assert metrics.evaluate(deep, ["AP"])["AP"].iloc[0, 0] == pytest.approx(ref, abs=1e-12)
    assert metrics.evaluate(cut, ["AP"])["AP"].iloc[0, 0] == pytest.approx(0.5, abs=1e-12)
