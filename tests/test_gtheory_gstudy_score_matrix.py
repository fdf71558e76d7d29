"""Tests of gtheory/gstudy/score_matrix.py: gtheory.gstudy / as_score_matrix on DataFrames: axis names, long tables,
ambiguous layouts, overflow.

Regression tests of issue 12 item 3: a transposed matrix whose index is named ``topic`` was analysed as
systems x topics, a long table with numeric ids as a 5200 x 3 matrix, and scores x 1e160 gave NaN
components with Φ = 1.0.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import gtheory
import metrics
from gtheory.gstudy import score_csv, score_matrix


@pytest.fixture(scope="module")
def ap(embedded_trec9):
    """TREC-9 AP, systems x topics (index 'system', columns 'topic'), from the embedded data."""
    j = embedded_trec9
    return metrics.evaluate(j, "AP")


@pytest.fixture(scope="module")
def reference(ap):
    return gtheory.gstudy(ap.to_numpy())  # rows = systems, as an unnamed array


def _same(g, ref):
    assert g.n_systems == ref.n_systems and g.n_topics == ref.n_topics
    assert g.var_system == pytest.approx(ref.var_system, rel=1e-12)
    assert g.var_residual == pytest.approx(ref.var_residual, rel=1e-12)
    assert g.phi() == pytest.approx(ref.phi(), rel=1e-12)


def test_transposed_frame_with_named_axes_is_turned_back(ap, reference):
    t = ap.T  # index 'topic', columns 'system'
    assert t.index.name == "topic"
    g = gtheory.gstudy(t)
    _same(g, reference)
    assert g.systems == tuple(ap.index) and g.topics == tuple(ap.columns)
    # either name alone is enough
    _same(gtheory.gstudy(t.rename_axis(columns=None)), reference)
    _same(gtheory.gstudy(t.rename_axis(index=None)), reference)
    # ir_measures-style names
    _same(gtheory.gstudy(t.rename_axis(index="query_id", columns="run_id")), reference)


def test_orientation_applies_to_frames_and_must_not_contradict_names(ap, reference):
    unnamed = ap.T.rename_axis(index=None, columns=None)
    _same(gtheory.gstudy(unnamed, orientation="topics-by-systems"), reference)
    _same(gtheory.gstudy(ap.T.to_numpy(), orientation="topics-by-systems"), reference)
    with pytest.raises(ValueError, match="`orientation`='systems-by-topics' contradicts the axis names"):
        gtheory.gstudy(ap.T, orientation="systems-by-topics")
    with pytest.raises(ValueError, match="names both its index and its columns 'topic'"):
        gtheory.gstudy(ap.rename_axis(index="topic"))


def test_long_frames(ap, reference):
    long = ap.stack().rename("score").reset_index()  # system, topic, score
    assert list(long.columns) == ["system", "topic", "score"]
    g = gtheory.gstudy(long)
    _same(g, reference)
    assert g.systems == tuple(ap.index) and g.topics == tuple(ap.columns)
    # the order of the rows does not matter
    _same(gtheory.gstudy(long.sample(frac=1.0, random_state=0)), reference)
    # numeric ids in named columns: still one score per row, not a 5200 x 3 matrix
    numeric = long.assign(system=pd.factorize(long["system"])[0], topic=long["topic"].astype(int))
    _same(gtheory.gstudy(numeric), reference)
    # a (system, topic) index
    _same(gtheory.gstudy(long.set_index(["system", "topic"])), reference)


def test_ir_measures_long_frame_and_measure_filter(ap, reference):
    im = ap.stack().rename("value").reset_index().rename(columns={"system": "run_id", "topic": "query_id"})
    im.insert(2, "measure", "AP")
    _same(gtheory.gstudy(im), reference)  # one measure: that one
    two = pd.concat([im, im.assign(measure="P@10", value=im["value"] ** 2)], ignore_index=True)
    with pytest.raises(ValueError, match=r"long table of 2 measures \(AP, P@10\); choose one with `measure`"):
        gtheory.gstudy(two)
    _same(gtheory.gstudy(two, measure="AP"), reference)
    _same(gtheory.gstudy(two, measure="ap"), reference)  # case-insensitive when unique
    with pytest.raises(ValueError, match="`measure`='nDCG'"):
        gtheory.gstudy(two, measure="nDCG")
    with pytest.raises(ValueError, match="has none"):
        gtheory.gstudy(im.drop(columns="measure"), measure="AP")


def test_long_frame_errors(ap):
    long = ap.stack().rename("score").reset_index()
    with pytest.raises(ValueError, match=r"repeated system/topic pair.*first: system 'CWI0000', topic '451'"):
        gtheory.gstudy(pd.concat([long, long.iloc[:1]]))
    with pytest.raises(ValueError, match=r"1 system/topic pairs missing \(first: system 'CWI0000', topic '451'\)"):
        gtheory.gstudy(long.iloc[1:])


def test_unnamed_long_table_is_refused_with_the_fix(ap):
    long = ap.stack().rename("score").reset_index()
    unnamed = pd.DataFrame({"a": pd.factorize(long["system"])[0], "b": long["topic"].astype(int),
                            "c": long["score"]})
    with pytest.raises(ValueError, match=r"5200 rows x 3 columns\) looks like a long table.*"
                                         r"df.columns = \['system', 'topic', 'score'\]"):
        gtheory.gstudy(unnamed)
    with pytest.raises(ValueError, match=r"5200 x 3 array\) looks like a long table"):
        gtheory.gstudy(unnamed.to_numpy())
    # stated explicitly, the caller gets the matrix they asked for
    g = gtheory.gstudy(unnamed, orientation="systems-by-topics")
    assert (g.n_systems, g.n_topics) == (5200, 3)


def test_ordinary_unnamed_matrices_are_unchanged():
    rng = np.random.default_rng(3)
    x = rng.random((30, 4)) + np.linspace(0, 1, 30)[:, None] + np.array([0.0, 0.5, 1.0, 2.0])
    _same(gtheory.gstudy(pd.DataFrame(x)), gtheory.gstudy(x))


@pytest.mark.parametrize("factor", [1e160, 1e-170])
def test_overflowing_or_underflowing_scores_are_refused(factor):
    x = np.random.default_rng(0).random((10, 8))
    with pytest.raises(ValueError, match="rescale the scores"):
        gtheory.gstudy(x * factor)
    # within range, the coefficients do not depend on the scale
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
        assert gtheory.gstudy(x * 1e100).phi() == pytest.approx(gtheory.gstudy(x).phi(), rel=1e-9)


@pytest.mark.parametrize("axis, label", [("columns", "all"), ("columns", "Mean"), ("index", "total")])
def test_a_summary_row_or_column_of_a_frame_is_refused(ap, axis, label):
    # a mean column read as one more topic would lower the interaction and raise Φ: a silent wrong number
    frame = ap.iloc[:5, :6].copy()
    if axis == "columns":
        frame[label] = frame.mean(axis=1)
    else:
        frame.loc[label] = frame.mean(axis=0)
    with pytest.raises(ValueError, match=f"a (topic|system) labelled '{label}', which names a summary"):
        gtheory.gstudy(frame)


def test_a_csv_path_is_read_as_the_reader_reads_it(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("system,t1,t2\nsys1,0.1,0.5\nsys2,0.3,0.2\n")
    x, systems, topics = gtheory.as_score_matrix(path)
    assert systems == ["sys1", "sys2"] and topics == ["t1", "t2"] and x.tolist() == [[0.1, 0.5], [0.3, 0.2]]
    assert gtheory.as_score_matrix is score_matrix.as_score_matrix and gtheory.read_scores is score_csv.read_scores


from gtheory.gstudy.score_matrix import coerce_matrix, frame_to_matrix  # noqa: E402  (the public building blocks)

def test_coerce_matrix_long_wide_and_array_agree():
    want = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])  # systems a, b × topics 1, 2, 3
    long = pd.DataFrame({"system": ["a"] * 3 + ["b"] * 3, "topic": ["1", "2", "3"] * 2, "score": want.ravel()})
    x, systems, topics, labelled = coerce_matrix(long)
    assert labelled and list(systems) == ["a", "b"] and list(topics) == ["1", "2", "3"]
    np.testing.assert_array_equal(x, want)
    wide = long.pivot(index="topic", columns="system", values="score")  # topics × systems, axes named
    x2, s2, t2, _ = coerce_matrix(wide)
    np.testing.assert_array_equal(x2, want)
    assert list(s2) == ["a", "b"] and list(t2) == ["1", "2", "3"]
    x3, s3, t3, labelled3 = coerce_matrix(want)  # an array is systems × topics
    np.testing.assert_array_equal(x3, want)
    assert not labelled3 and list(s3) == [0, 1] and list(t3) == [0, 1, 2]
    frame = frame_to_matrix(long, "auto", None, "scores")
    assert frame.index.name == "system" and frame.columns.name == "topic"
    np.testing.assert_array_equal(frame.to_numpy(), want)


def test_coerce_matrix_refuses_nan_unless_allowed():
    x = np.array([[0.1, np.nan], [0.3, 0.4], [0.5, 0.6]])
    with pytest.raises(ValueError, match="NaN"):
        coerce_matrix(x)
    got, *_ = coerce_matrix(x, allow_nan=True)
    assert np.isnan(got[0, 1]) and got[2, 1] == 0.6
