"""gtheory.io, the public front of the score-matrix input: every name it had before it was split into
gtheory/score_layout.py, score_csv.py and score_matrix.py (tested in tests/test_gtheory_score_*.py) is importable
from it and is the concept module's object, as is the package's."""
from __future__ import annotations

import gtheory
import gtheory.io as front
from gtheory import score_csv, score_layout, score_matrix


def test_every_public_name_is_importable_from_the_front():
    assert front.__all__ == ["read_scores", "as_score_matrix", "ScoreInput", "Orientation"]
    assert front.read_scores is score_csv.read_scores is gtheory.read_scores
    assert front.as_score_matrix is score_matrix.as_score_matrix is gtheory.as_score_matrix
    assert front.ScoreInput is score_matrix.ScoreInput and front.Orientation is score_layout.Orientation


def test_the_front_reads_a_file_as_the_reader_does(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("system,t1,t2\nsys1,0.1,0.5\nsys2,0.3,0.2\n")
    x, systems, topics = front.as_score_matrix(path)
    assert systems == ["sys1", "sys2"] and topics == ["t1", "t2"] and x.tolist() == [[0.1, 0.5], [0.3, 0.2]]
