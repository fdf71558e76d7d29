"""Tests of metrics/io/trec_qrels.py: reading qrels files (``qid iter docno grade``) — malformed lines, real and
negative grades kept, trec_eval's reading of grades."""
from __future__ import annotations

import pytest

from metrics.io.trec_qrels import Qrels, read_qrels
from metrics.io.trec_lines import TrecFormatError

from test_metrics_io_trec_lines import write


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("1 0 a 1\n1 0 b\n", 2, "3 columns, expected 4"),
        ("1 0 a 1\n1 0 b x\n", 2, "grade 'x' is not a number"),
        ("1 0 a inf\n", 1, "grade 'inf' is not finite"),
        ("1 0 a 1\n1 0 a 2\n", 2, "docno 'a' is judged twice for topic '1' \\(first at line 1\\)"),
    ],
)
def test_malformed_qrels(tmp_path, text, line, message):
    p = write(tmp_path, "q", text)
    with pytest.raises(TrecFormatError, match=message) as err:
        read_qrels(p)
    assert err.value.line == line


def test_qrels_keep_negative_and_real_grades(tmp_path):
    q = read_qrels(write(tmp_path, "q", "1 0 a -1\n1 0 b 0.5\n1 0 c 2\n"))
    assert q.grade.tolist() == [-1.0, 0.5, 2.0]


def test_empty_and_missing_qrels(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_qrels(tmp_path / "nope")
    with pytest.raises(TrecFormatError, match="holds no judgments"):
        read_qrels(write(tmp_path, "q", "\n"))


@pytest.mark.parametrize("name", ["q.txt", "q.gz", "q.xz"])
def test_qrels_rows_lines_and_trec_eval_grades(tmp_path, name):
    q = read_qrels(write(tmp_path, name, "451 0 d1 1\n\n451 0 d2 1e1\n9 0 d1 0\n"))
    assert isinstance(q, Qrels) and len(q) == 3 and q.path == str(tmp_path / name)
    assert q.topic.tolist() == ["451", "451", "9"] and q.line.tolist() == [1, 3, 4]
    assert q.grade.tolist() == [1.0, 10.0, 0.0]
    assert q.grade_atol.tolist() == [1.0, 1.0, 0.0]  # C's atol reads "1e1" as 1 (trec_eval's grade)
    assert q.topics == ["9", "451"]  # natural order
    assert q.summary_frame().loc["451"].sum() == 2
