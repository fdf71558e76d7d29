"""The judged-grade tensor: sentinels, missing/unknown topics, depth, save/load, subsetting, judgment removal."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import metrics
from conftest import shared
from metrics import ABSENT, UNJUDGED, JudgedRuns, judge, read_qrels, read_runs

QRELS = """\
1 0 a 2
1 0 b 1
1 0 c 0
1 0 z -1
2 0 e 1
2 0 f 0
3 0 g 1
"""
RUN_A = """\
1 Q0 a 1 0.9 A
1 Q0 x 2 0.8 A
1 Q0 c 3 0.7 A
2 Q0 f 1 0.9 A
2 Q0 e 2 0.8 A
9 Q0 a 1 0.9 A
"""
RUN_B = """\
1 Q0 b 1 0.9 B
1 Q0 a 2 0.8 B
1 Q0 z 3 0.1 B
"""


@pytest.fixture()
def small(tmp_path: Path) -> JudgedRuns:
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "A").write_text(RUN_A)
    (tmp_path / "runs" / "B").write_text(RUN_B)
    (tmp_path / "qrels").write_text(QRELS)
    return judge(read_runs(tmp_path / "runs"), read_qrels(tmp_path / "qrels"))


def test_grades_and_sentinels(small):
    lv = list(small.levels)
    assert lv == [-1.0, 0.0, 1.0, 2.0]
    code = {g: i for i, g in enumerate(lv)}
    a = small.grades[0]
    assert a[0].tolist() == [code[2], UNJUDGED, code[0]]  # a, x (unjudged), c
    assert a[1].tolist() == [code[0], code[1], ABSENT]  # f, e
    assert a[2].tolist() == [ABSENT] * 3  # topic 3 missing from run A
    b = small.grades[1]
    assert b[0].tolist() == [code[1], code[2], code[-1]]
    assert small.grades.dtype == np.int8


def test_report_counts_ignored_and_missing_topics(small):
    assert small.report["run_topics_not_in_qrels"] == {"A": ["9"]}
    assert small.report["qrels_topics_missing_from_run"] == {"A": ["3"], "B": ["2", "3"]}
    assert small.topics == ("1", "2", "3")
    assert small.retrieved.tolist() == [[True, True, False], [True, False, False]]


def test_qrels_counts_R_and_N(small):
    assert small.n_relevant().tolist() == [2, 1, 1]
    # the -1 grade is pooled-but-unjudged in trec_eval: not in N
    assert small.n_nonrelevant().tolist() == [1, 1, 0]
    assert small.level_counts.sum() == 7


def test_doc_ids_point_at_the_right_judgments(small):
    s, t, r = np.nonzero(small.doc_ids >= 0)
    flat = small.qrels_offsets[t] + small.doc_ids[s, t, r]
    assert np.array_equal(small.qrels_level[flat], small.grades[s, t, r])


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


@pytest.mark.parametrize("suffix", [".npz", ".npz.xz"])
def test_save_load_roundtrip(small, tmp_path, suffix):
    p = tmp_path / ("t" + suffix)
    small.save(p)
    back = JudgedRuns.load(p)
    for name in ("grades", "doc_ids", "levels", "qrels_level", "qrels_offsets", "n_retrieved"):
        assert np.array_equal(getattr(back, name), getattr(small, name)), name
    assert back.systems == small.systems and back.topics == small.topics and back.missing == small.missing


def test_load_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        JudgedRuns.load(tmp_path / "none.npz")
    bad = tmp_path / "x.npz"
    np.savez(bad, a=np.arange(3))
    with pytest.raises(ValueError, match="not a JudgedRuns .npz file"):
        JudgedRuns.load(bad)


def test_subset_keeps_qrels_aligned(small):
    sub = small.subset(systems=["B"], topics=["3", "1"])
    assert sub.systems == ("B",) and sub.topics == ("3", "1")
    assert sub.level_counts.tolist() == [small.level_counts[2].tolist(), small.level_counts[0].tolist()]
    assert np.array_equal(sub.grades[0, 1], small.grades[1, 0])
    with pytest.raises(KeyError, match="unknown topics"):
        small.subset(topics=["42"])


def test_restrict_judgments_turns_dropped_docs_unjudged(small):
    keep = np.ones(small.qrels_level.size, dtype=bool)
    t1 = slice(small.qrels_offsets[0], small.qrels_offsets[1])
    # drop the judgment of doc 'a' (first judged doc of topic 1)
    keep[t1.start] = False
    red = small.restrict_judgments(keep)
    assert red.grades[0, 0, 0] == UNJUDGED and red.grades[1, 0, 1] == UNJUDGED
    assert red.level_counts[0].sum() == small.level_counts[0].sum() - 1
    s, t, r = np.nonzero(red.doc_ids >= 0)
    flat = red.qrels_offsets[t] + red.doc_ids[s, t, r]
    assert np.array_equal(red.qrels_level[flat], red.grades[s, t, r])
    same = small.restrict_judgments(np.ones_like(keep))
    assert np.array_equal(same.grades, small.grades) and np.array_equal(same.doc_ids, small.doc_ids)


def test_condensed_removes_unjudged(small):
    c = small.condensed()
    code = {g: i for i, g in enumerate(small.levels)}
    assert c.grades[0, 0].tolist()[:2] == [code[2], code[0]]
    assert (c.grades != UNJUDGED).all()
    assert c.retrieved.tolist() == small.retrieved.tolist()
    # run B: b, a, z(-1): the negative grade is dropped from the condensed list as trec_eval -J does
    assert c.grades[1, 0, :2].tolist() == [code[1], code[2]] and (c.grades[1, 0, 2:] == ABSENT).all()


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


def _condensed_by_sorting(j: JudgedRuns) -> tuple[np.ndarray, np.ndarray]:
    """The condensed lists written out directly: a stable sort that moves the dropped documents last, then the
    lists cut at the longest one's real documents (the construction ``condensed`` streams block by block)."""
    drop = (j.grades == UNJUDGED) | ((j.grades >= 0) & (j.levels[np.maximum(j.grades, 0)] <= -1))
    order = np.argsort(drop, axis=-1, kind="stable")
    g = np.take_along_axis(j.grades, order, axis=-1)
    d = np.take_along_axis(j.doc_ids, order, axis=-1)
    dropped = np.take_along_axis(drop, order, axis=-1)
    g[dropped], d[dropped] = ABSENT, -1
    keep = max(int((g != ABSENT).sum(axis=-1).max(initial=0)), 1)
    return g[..., :keep], d[..., :keep]


@pytest.mark.parametrize("block", [1, 7 * 30, 1 << 22])
def test_condensed_streams_the_same_lists_as_a_sort(monkeypatch, block):
    # random lists with unjudged, pooled-but-unjudged (grade -1) and absent documents, also absent slots before
    # real documents; blocks of one list, of a few systems and of everything
    import metrics.judged as mj

    monkeypatch.setattr(mj, "_CONDENSE_BLOCK", block)
    rng = np.random.default_rng(3)
    S, T, K = 9, 7, 30
    levels = np.array([-1.0, 0.0, 1.0, 2.0])
    grades = rng.choice(np.array([-2, -1, 0, 1, 2, 3], dtype=np.int8), size=(S, T, K), p=[.1, .4, .1, .2, .1, .1])
    grades[0, 0] = -1  # a list with nothing judged
    grades[1, :, 20:] = ABSENT  # short lists
    doc_ids = np.where(grades >= 0, rng.integers(0, 500, size=grades.shape), -1).astype(np.int16)
    counts = np.full((T, 4), 200)
    j = JudgedRuns(grades=grades, doc_ids=doc_ids, levels=levels,
                   qrels_level=np.tile(np.repeat(np.arange(4), 200), T).astype(np.int8),
                   qrels_offsets=np.r_[0, np.cumsum(counts.sum(axis=1))].astype(np.int64),
                   systems=tuple(map(str, range(S))), topics=tuple(map(str, range(T))),
                   n_retrieved=np.full((S, T), K, np.int32))
    c = j.condensed()
    g, d = _condensed_by_sorting(j)
    assert c.grades.dtype == np.int8 and c.doc_ids.dtype == np.int16
    np.testing.assert_array_equal(c.grades, g)
    np.testing.assert_array_equal(c.doc_ids, d)
    assert c.report["condensed"] and c.condensed() is c
    # nothing to drop: the same object
    clean = JudgedRuns(grades=np.where(grades == -1, 1, grades).astype(np.int8), doc_ids=doc_ids, levels=levels + 1,
                       qrels_level=j.qrels_level, qrels_offsets=j.qrels_offsets, systems=j.systems, topics=j.topics,
                       n_retrieved=j.n_retrieved)
    assert clean.condensed() is clean


def test_subset_refuses_a_repeated_selection_and_records_the_part_kept(embedded_trec9):

    j = embedded_trec9
    with pytest.raises(ValueError, match=r"`systems` selects 1 system\(s\) more than once \(first: 'CWI0000'\)"):
        j.subset(systems=[0, 0, 1])  # a system twice would count twice in every mean and G-study
    with pytest.raises(ValueError, match=r"`topics` selects 1 topic\(s\) more than once \(first: '451'\)"):
        j.subset(topics=["451", "452", "451"])
    copies = j.subset(systems=[0, 0, 1, 0], topics=[1, 1], repeats=True)  # a resample with replacement
    assert copies.systems == ("CWI0000", "CWI0000~2", "CWI0001", "CWI0000~3") and copies.topics == ("452", "452~2")
    assert (copies.grades[1] == copies.grades[0]).all() and (copies.grades[:, 1] == copies.grades[:, 0]).all()
    part = j.subset(systems=range(12)).subset(topics=range(10))
    assert part.report["subset"] == {"systems": [12, 104], "topics": [10, 50]}
    from experiments.report.settings import _label

    assert _label(part).endswith("(12 of 104 systems, 10 of 50 topics)")  # a report on it says it is a part


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


def test_summary_states_what_the_tensor_holds():
    # two runs, qrels topics 1 (grades 1, 2, 0) and 2 (grade 0 only); run b misses topic 1 and returns topic 9
    # (not in the qrels); counted by hand from the dicts below
    runs = {"a": {"1": {"d1": 3.0, "d2": 2.0}, "2": {"d1": 1.0}}, "b": {"2": {"d1": 1.0}, "9": {"x": 1.0}}}
    qrels = {"1": {"d1": 1, "d3": 2, "d4": 0}, "2": {"d1": 0}}
    j = metrics.judge(runs, qrels)
    text = j.summary()
    assert text.splitlines()[0] == "JudgedRuns: 2 systems x 2 topics x depth 2"
    assert "judgments per grade: 0: 2, 1: 1, 2: 1 (4 in all)" in text
    assert "relevant documents per topic (grade >= 1): mean 1.0, min 0, max 2" in text
    assert "runs that miss some qrels topics: 1 (b)" in text
    assert "run topics not in the qrels (ignored): b (1)" in text
    assert "topics without a relevant document: 2" in text
    assert j.coverage.one_line() in text and str(j) == text
    assert "excluded" in metrics.judge(runs, qrels, missing="exclude").summary()
