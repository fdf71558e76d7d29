"""Tests of gtheory.io.read_scores (CSV layouts, orientation, and errors naming file and line)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gtheory import gstudy, read_scores

MATRICES = Path("/work/shared/data/score-matrices/sigir2018-simulation")


def test_trec_matrices_are_topics_by_systems():
    # web files: header of system names, no label column; 48 topic rows x 88 systems
    X = read_scores(MATRICES / "web2010_ap.csv")
    ref = pd.read_csv(MATRICES / "web2010_ap.csv")
    assert X.shape == (ref.shape[1], ref.shape[0])
    assert list(X.index[:2]) == ["sys1", "sys2"]
    np.testing.assert_array_equal(X.to_numpy(), ref.to_numpy().T)
    assert X.equals(read_scores(MATRICES / "web2010_ap.csv", orientation="topics-by-systems"))


def test_label_column_detected():
    X = read_scores(MATRICES / "robust2004_p10.csv")
    ref = pd.read_csv(MATRICES / "robust2004_p10.csv", index_col="topic")
    assert X.shape == (110, 249)
    assert X.columns[0] == "301"
    np.testing.assert_array_equal(X.to_numpy(), ref.to_numpy().T)


def test_long_and_wide_agree(tmp_path):
    X = read_scores(MATRICES / "web2014_ndcg20.csv")
    p = tmp_path / "long.csv"
    X.stack().rename("score").reset_index()[["topic", "score", "system"]].to_csv(p, index=False)
    L = read_scores(p)
    pd.testing.assert_frame_equal(L, X)
    w = tmp_path / "wide.csv"
    X.to_csv(w)  # first column "system"
    pd.testing.assert_frame_equal(read_scores(w), X)
    assert gstudy(p).var_system == pytest.approx(gstudy(X).var_system, rel=1e-14)


def _write(tmp_path, text: str) -> Path:
    p = tmp_path / "bad.csv"
    p.write_text(text)
    return p


@pytest.mark.parametrize(
    "text, kwargs, match",
    [
        ("system,t1,t2\na,1,2\nb,3\n", {}, r"bad\.csv, line 3: expected 3 fields"),
        ("system,t1,t2\na,1,2\nb,3,x\n", {}, r"line 3: cannot read 'x' in column 't2'"),
        ("system,t1,t2\na,1,2\nb,,4\n", {}, r"line 3: missing score in column 't1'"),
        ("system,t1,t2\na,1,inf\nb,3,4\n", {}, r"line 2: non-finite score 'inf'"),
        ("system,topic,score\na,1,0.5\na,1,0.7\n", {}, r"line 3: duplicate score for system 'a', topic '1' \(first given on line 2\)"),
        ("system,topic,score\na,1,0.5\nb,2,0.7\n", {}, r"2 system/topic pairs have no score"),
        ("x1,x2\n1,2\n3,4\n", {}, r"line 1: cannot tell whether rows are systems or topics"),
        ("system,t1,t1\na,1,2\n", {}, r"column label 't1' appears more than once"),
        ("", {}, r"the file is empty"),
        ("system,t1\n", {}, r"a header but no data rows"),
        ("a,b\n1,2\n", {"orientation": "long"}, r"long format needs a system column"),
    ],
)
def test_bad_csv_errors(tmp_path, text, kwargs, match):
    with pytest.raises(ValueError, match=match):
        read_scores(_write(tmp_path, text), **kwargs)


def test_missing_file_and_bad_orientation(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        read_scores(tmp_path / "nope.csv")
    with pytest.raises(ValueError, match="`orientation` must be one of"):
        read_scores(MATRICES / "web2010_ap.csv", orientation="rows")


def test_explicit_orientation_for_ambiguous_file(tmp_path):
    p = _write(tmp_path, "x1,x2,x3\n1,2,3\n3,4,6\n")
    X = read_scores(p, orientation="systems-by-topics")
    assert X.shape == (2, 3) and list(X.columns) == ["x1", "x2", "x3"]
    Y = read_scores(p, orientation="topics-by-systems")
    assert Y.shape == (3, 2)
