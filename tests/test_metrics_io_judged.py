"""The judged-grade tensor: sentinels, qrels counts, document ids, subsetting, judgment removal, condensed lists, the
summary (judging itself: test_metrics_io_judge.py; save/load: test_metrics_io_saved.py)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import metrics
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


def test_qrels_counts_R_and_N(small):
    assert small.n_relevant().tolist() == [2, 1, 1]
    # the -1 grade is pooled-but-unjudged in trec_eval: not in N
    assert small.n_nonrelevant().tolist() == [1, 1, 0]
    assert small.level_counts.sum() == 7


def test_doc_ids_point_at_the_right_judgments(small):
    s, t, r = np.nonzero(small.doc_ids >= 0)
    flat = small.qrels_offsets[t] + small.doc_ids[s, t, r]
    assert np.array_equal(small.qrels_level[flat], small.grades[s, t, r])


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
    import metrics.io.judged as mj

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
