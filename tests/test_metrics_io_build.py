"""Tests of metrics/io/_build.py: the internals of :func:`metrics.judge` — the qrels index, judging one run into
rows, the tensor builder and the progress report.

References: the qrels and runs written out here, whose judged grades per rank are worked out by hand (the ranks
follow trec_eval's order: score descending); plain Python ``==`` on bytes for the padded-word comparison
(hypothesis).
"""
from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from metrics import judge, read_qrels, read_run
from metrics.io import _build

QRELS = "1 0 a 2\n1 0 b 1\n1 0 c 0\n2 0 d 1\n2 0 e 0\n"
RUN = "1 Q0 a 1 0.9 r\n1 Q0 x 2 0.8 r\n1 Q0 b 3 0.7 r\n2 Q0 d 1 0.5 r\n2 Q0 e 2 0.4 r\n"


@pytest.fixture
def qrels(tmp_path):
    (tmp_path / "q").write_text("10 0 z 1\n" + QRELS)  # topic 10 first in the file: natural order puts it last
    return read_qrels(tmp_path / "q")


def test_qrels_index_groups_judgments_by_topic_in_natural_order(qrels):
    qi = _build.index_qrels(qrels, None)
    assert qi.topics == ("1", "2", "10")
    assert qi.offsets.tolist() == [0, 3, 5, 6]
    assert qi.levels.tolist() == [0.0, 1.0, 2.0]
    assert qi.docno.tolist() == ["a", "b", "c", "d", "e", "z"]  # file order within a topic
    assert qi.levels[qi.row_level].tolist() == [2.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    assert qi.row_id.tolist() == [0, 1, 2, 0, 1, 0] and qi.row_topic.tolist() == [0, 0, 0, 1, 1, 2]
    assert qi.key_index is not None and qi.id_dtype == np.int16
    only = _build.index_qrels(qrels, ["2"])
    assert only.topics == ("2",) and only.docno.tolist() == ["d", "e"]
    with pytest.raises(ValueError, match=r"`topics` not in the qrels: \['7'\]"):
        _build.index_qrels(qrels, ["2", "7"])


def test_hash_and_string_lookups_agree(qrels):
    qi = _build.index_qrels(qrels, None)
    tpos = np.array([0, 0, 0, 1, 2, 1])
    docs = ["a", "x", "c", "e", "z", "a"]  # x is not judged; a is judged for topic 1 only
    want = [0, -1, 2, 4, 5, -1]
    by_string = qi.rows_of(tpos, np.array(docs, dtype=object), None)
    padded = np.array([d.encode() for d in docs], dtype="S8")
    from metrics.io._columns import hash_rows

    by_hash = qi.rows_of(tpos, padded, hash_rows(padded))
    assert by_string.tolist() == want and by_hash.tolist() == want


def test_judge_run_and_the_tensor_builder(qrels, tmp_path):
    (tmp_path / "r").write_text(RUN)
    qi = _build.index_qrels(qrels, None)
    rows = _build.judge_run(read_run(tmp_path / "r"), qi, depth=1000)
    # topic 1 ranks a (grade 2), x (unjudged), b (grade 1); topic 2 ranks d (1), e (0); topic 10 nothing
    assert rows.tpos.tolist() == [0, 0, 0, 1, 1] and rows.r0.tolist() == [0, 1, 2, 0, 1]
    assert rows.code.tolist() == [2, _build.UNJUDGED, 1, 1, 0] and rows.doc_id.tolist() == [0, -1, 1, 0, 1]
    assert rows.n_retrieved.tolist() == [3, 2, 0] and rows.depth == 3 and rows.beyond_depth == 0
    tb = _build.TensorBuilder(2, qi, depth=1000)
    tb.add(1, rows)  # the second system only
    grades, ids, n_ret = tb.arrays()
    assert grades.shape == (2, 3, 3)
    assert (grades[0] == _build.ABSENT).all() and (ids[0] == -1).all()  # never filled: absent everywhere
    assert grades[1, 0].tolist() == [2, -1, 1] and grades[1, 1].tolist() == [1, 0, -2] and n_ret[1].tolist() == [3, 2, 0]
    # a shallower depth cuts ranks and counts what was cut
    cut = _build.judge_run(read_run(tmp_path / "r"), qi, depth=1)
    assert cut.r0.tolist() == [0, 0] and cut.beyond_depth == 3


def test_the_builder_grows_for_a_deeper_run(qrels, tmp_path):
    (tmp_path / "short").write_text("1 Q0 a 1 0.9 s\n")
    (tmp_path / "long").write_text(RUN)
    qi = _build.index_qrels(qrels, None)
    tb = _build.TensorBuilder(2, qi, depth=1000)
    tb.add(0, _build.judge_run(read_run(tmp_path / "short"), qi, 1000))
    assert tb.grades.shape == (2, 3, 1)
    tb.add(1, _build.judge_run(read_run(tmp_path / "long"), qi, 1000))
    assert tb.grades.shape == (2, 3, 3)
    assert tb.grades[0, 0].tolist() == [2, -2, -2]  # the first run's rows kept, padded as absent


def test_build_equals_judge_of_the_files(qrels, tmp_path):
    for n in "ab":
        (tmp_path / n).write_text(RUN.replace(" r\n", f" {n}\n"))
    (tmp_path / "q").write_text("10 0 z 1\n" + QRELS)
    qi = _build.index_qrels(qrels, None)
    files = [tmp_path / "a", tmp_path / "b"]
    tb, pieces = _build.build(_build.judge_files(files, qi, 1000, "trec_eval", "error", workers=1), 2, qi, 1000,
                              _build.Progress(2, False))
    j = judge(files, tmp_path / "q", workers=1)
    assert np.array_equal(tb.grades, j.grades) and np.array_equal(tb.doc_ids, j.doc_ids)
    assert len(pieces) == 2 and pieces[0].tpos.size == 0  # report pieces carry no rows


def test_progress_messages_to_a_callable_and_a_bar_only_when_asked(monkeypatch):
    said = []
    p = _build.Progress(2, said.append)  # a callable gets one message per run
    p.update(), p.update(), p.close()
    assert said == ["judging runs: 1/2", "judging runs: 2/2"]
    assert _build.Progress(5, False).bar is None and _build.Progress(1, True).bar is None  # one run: no bar
    monkeypatch.setattr("sys.stderr", io.StringIO())
    bar = _build.Progress(3, True)
    assert bar.bar is not None
    bar.update()
    bar.close()


def test_progress_bar_on_stderr_only_when_asked(tmp_path, capsys, monkeypatch):
    from metrics.io import _build

    (tmp_path / "q").write_text(QRELS)
    for n in "ab":
        (tmp_path / n).write_text(RUN)
    monkeypatch.setattr(_build.Progress.__init__, "__defaults__", ("judging runs", 0.0))  # show at once
    judge([tmp_path / "a", tmp_path / "b"], tmp_path / "q", workers=1, progress=True)
    assert "judging runs" in capsys.readouterr().err
    judge([tmp_path / "a", tmp_path / "b"], tmp_path / "q", workers=1, progress=False)
    assert capsys.readouterr().err == ""
    # the default, "auto": captured stderr is not a terminal (as a pipe or a CI log), so no bar
    judge([tmp_path / "a", tmp_path / "b"], tmp_path / "q", workers=1)
    assert capsys.readouterr().err == ""


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.binary(min_size=1, max_size=20).filter(lambda b: 0 not in b),
                          st.binary(min_size=1, max_size=20).filter(lambda b: 0 not in b)), min_size=1, max_size=8),
       st.sampled_from([8, 16, 24]), st.sampled_from([8, 16, 24]))
def test_equal_padded_is_bytes_equality(pairs, wa, wb):
    # tokens hold no NUL byte; zero-padded to two different widths they compare equal exactly when the bytes are
    pairs = [(a[:wa], b[:wb]) for a, b in pairs]
    a = np.array([p[0] for p in pairs], dtype=f"S{wa}")
    b = np.array([p[1] for p in pairs], dtype=f"S{wb}")
    assert _build._equal_padded(a, b).tolist() == [x == y for x, y in pairs]
    assert _build._equal_padded(a, a).all()
