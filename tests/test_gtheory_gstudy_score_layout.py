"""Tests of gtheory/gstudy/score_layout.py. The one rule of every score-matrix input (issue 21 "the API silently transposes a common layout"; issue 20 items
3 and 7): named axes are honoured, an unnamed labelled table is refused unless its orientation is given or its
labels tell, a score CSV's id column is recognised by position and content, a MultiIndex is refused with the fix.
"""
from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import experiments
import gtheory
from experiments.cli import main

# random matrices: an estimate of σ² ≈ 0 below 0 happens and is not the point here
pytestmark = pytest.mark.filterwarnings("ignore::gtheory.NegativeVarianceWarning")


def _matrix(n_s: int = 7, n_t: int = 9, seed: int = 0) -> pd.DataFrame:
    """Systems x topics with distinct system variance, labelled but with unnamed axes."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 0.1, (n_s, 1)) + rng.normal(0, 0.2, (1, n_t)) + rng.normal(0, 0.05, (n_s, n_t)) + 0.5
    return pd.DataFrame(x, index=[f"S{i}" for i in range(n_s)], columns=[str(401 + j) for j in range(n_t)])


def _same(a: gtheory.GStudy, b: gtheory.GStudy) -> None:
    assert (a.n_systems, a.n_topics) == (b.n_systems, b.n_topics)
    for k in ("var_system_raw", "var_topic_raw", "var_residual_raw"):
        # the same numbers summed in another order: float64 rounding of sums of <= 64 squares of size <= 1
        assert getattr(a, k) == pytest.approx(getattr(b, k), rel=1e-12, abs=1e-14)


# ---- issue 21: an unnamed topics x systems frame is never silently transposed

def test_read_csv_index_col_of_a_topics_by_systems_file_is_refused_then_read_as_told(tmp_path):
    m = _matrix()
    path = tmp_path / "gt4ireval.csv"
    m.T.to_csv(path)  # topics x systems, the first header empty (as R's write.csv and gt4ireval)
    frame = pd.read_csv(path, index_col=0)  # 9 topics x 7 systems, axes unnamed
    assert frame.index.name is None and frame.columns.name is None
    with pytest.raises(gtheory.ParameterError, match=r"has unnamed axes.*orientation='systems x topics' or "
                                                     r"'topics x systems'") as err:
        gtheory.gstudy(frame)
    assert err.value.param == "orientation"
    ref = gtheory.gstudy(m.rename_axis(index="system", columns="topic"))
    _same(gtheory.gstudy(frame, orientation="topics x systems"), ref)
    _same(gtheory.gstudy(frame, orientation="topics-by-systems"), ref)  # the older spelling
    _same(gtheory.gstudy(frame, orientation="topics_by_systems"), ref)  # a Python-identifier spelling
    for wrong in ("topics_systems", "by", "topics by systems by"):
        with pytest.raises(gtheory.ParameterError, match="`orientation` must be one of"):
            gtheory.gstudy(frame, orientation=wrong)
    _same(gtheory.gstudy(frame.rename_axis(index="topic")), ref)
    _same(gtheory.gstudy(frame.rename_axis(index="Topic ID")), ref)  # a synonym
    # read_scores refuses the same file and reads it when told; the CLI says the same
    with pytest.raises(gtheory.ParameterError, match="cannot tell whether rows are systems or topics"):
        gtheory.read_scores(path)
    _same(gtheory.gstudy(gtheory.read_scores(path, orientation="topics x systems")), ref)
    assert main(["gstudy", str(path), "--quiet"]) == 2
    assert main(["gstudy", str(path), "--orientation", "topics x systems", "--json"]) == 0


def test_experiments_apply_the_same_rule():
    m = _matrix()
    named = m.rename_axis(index="system", columns="topic")
    with pytest.raises(ValueError, match=r"has unnamed axes.*df.rename_axis"):
        experiments.kendall_tau(m.T, named)
    assert experiments.kendall_tau(named.T, named) == pytest.approx(1.0)


def test_what_can_be_told_for_certain():
    m = _matrix()
    ref = gtheory.gstudy(m.to_numpy())
    # labels that all look like system names on one axis: that axis holds the systems
    runs = m.set_axis([f"run{i}" for i in range(len(m))], axis=0)
    _same(gtheory.gstudy(runs.T), ref)
    _same(gtheory.gstudy(runs), ref)
    # no labels at all: the array it wraps (rows = systems), as documented for arrays
    _same(gtheory.gstudy(pd.DataFrame(m.to_numpy())), ref)
    # a first column of row labels named by its header (pd.read_csv without index_col)
    flat = m.T.rename_axis("topic").reset_index()
    _same(gtheory.gstudy(flat), ref)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n_s=st.integers(2, 8), n_t=st.integers(2, 8))
def test_transpose_with_layout_is_the_same_study(seed, n_s, n_t):
    m = _matrix(n_s, n_t, seed)
    a = gtheory.gstudy(m, orientation="systems x topics")
    _same(gtheory.gstudy(m.T, orientation="topics x systems"), a)
    _same(gtheory.gstudy(m.to_numpy().T, orientation="topics x systems"), a)
    _same(gtheory.gstudy(m.rename_axis(index="system").T), a)
    assert a.systems == tuple(m.index) and a.topics == tuple(m.columns)
    for frame in (m, m.T):  # unnamed and labelled: never guessed
        with pytest.raises(gtheory.ParameterError, match="unnamed axes"):
            gtheory.gstudy(frame)


def test_orientation_spellings_and_contradictions():
    m = _matrix().rename_axis(index="system", columns="topic")
    for spelling in ("systems x topics", "Systems × Topics", "systems-by-topics", "systems by topics"):
        assert gtheory.gstudy(m, orientation=spelling).n_systems == 7
    with pytest.raises(ValueError, match="contradicts the axis names"):
        gtheory.gstudy(m, orientation="topics x systems")
    with pytest.raises(gtheory.ParameterError, match="`orientation` must be one of 'auto', 'systems x topics'"):
        gtheory.gstudy(m, orientation="rows")


# ---- issue 20 item 7: a MultiIndex is refused with the fix, not a pandas TypeError

def test_multiindex_rows_or_columns_are_refused_with_the_fix():
    rng = np.random.default_rng(0)
    long = pd.DataFrame({"system": np.repeat(["a", "b", "c"], 8), "kind": np.tile(np.repeat(["x", "y"], 4), 3),
                         "topic": np.tile([1, 2, 3, 4], 6), "score": rng.random(24)})
    wide = long.pivot_table(index=["system", "kind"], columns="topic", values="score")
    for frame, axis in ((wide, "rows"), (wide.T, "columns")):
        with pytest.raises(ValueError, match=rf"2-level index on its {axis} \(levels \['system', 'kind'\].*df.xs"):
            gtheory.gstudy(frame)
        with pytest.raises(ValueError, match=rf"2-level index on its {axis}"):
            experiments.kendall_tau(frame, frame)
    # following the advice works
    one = wide.xs("x", level="kind")
    assert gtheory.gstudy(one).n_systems == 3
    # a (system, topic) index is a long table, as before
    assert gtheory.gstudy(long[long.kind == "x"].set_index(["system", "topic"])[["score"]]).n_topics == 4


# ---- issue 20 item 3: a score CSV's id column is not read as scores

def _topics_by_systems_csv(tmp_path, header: str, name: str = "s.csv"):
    m = _matrix(12, 30, seed=3)
    t = m.T.copy()
    t.index = [int(c) for c in t.index]  # numeric topic ids 401..430
    path = tmp_path / name
    t.rename_axis(header).to_csv(path)
    return path, m


@pytest.mark.parametrize("header", ["Topic ID", "topic_no", "qid"])
def test_numeric_topic_ids_under_an_id_header_are_labels(tmp_path, header):
    path, m = _topics_by_systems_csv(tmp_path, header)
    by_hand = gtheory.gstudy(pd.read_csv(path).drop(columns=header).to_numpy(), orientation="topics x systems")
    for argv in ([], ["--orientation", "topics-by-systems"]):
        g = gtheory.gstudy(gtheory.read_scores(path, **({"orientation": "topics-by-systems"} if argv else {})))
        assert g.var_system == pytest.approx(by_hand.var_system, rel=1e-12)
        assert g.n_systems == 12 and g.topics[0] == "401"
    # the command line: the same σ²(system) as with the id column dropped by hand
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["gstudy", str(path), "--orientation", "topics-by-systems", "--json"]) == 0
    doc = json.loads(out.getvalue())
    assert (doc["n_systems"], doc["n_topics"]) == (12, 30)
    assert doc["components"]["system"]["variance_raw"] == pytest.approx(by_hand.var_system_raw, rel=1e-12)


def test_sysid_header_of_a_systems_by_topics_csv(tmp_path):
    m = _matrix(6, 10, seed=4)
    path = tmp_path / "s.csv"
    m.set_axis(range(101, 107), axis=0).rename_axis("sysid").to_csv(path)
    g = gtheory.gstudy(path)
    assert (g.n_systems, g.n_topics) == (6, 10) and g.systems[0] == "101"
    assert g.var_system == pytest.approx(gtheory.gstudy(m.to_numpy()).var_system, rel=1e-12)


def test_doubtful_first_column_is_refused_naming_it(tmp_path):
    path, _ = _topics_by_systems_csv(tmp_path, "T")  # ids under a header that names nothing
    with pytest.raises(ValueError, match=r"s\.csv, line 1: column 1 \('T'\) holds distinct whole numbers "
                                         r"\(401, 402, 403, \.\.\.\) while the other columns hold fractional scores"):
        gtheory.read_scores(path, orientation="topics-by-systems")
    assert main(["gstudy", str(path), "--orientation", "topics-by-systems", "--quiet"]) == 2
    with pytest.raises(ValueError, match=r"first column 'T' holds distinct whole numbers"):
        gtheory.gstudy(pd.read_csv(path))
    # an id-like header over fractional numbers: refused too
    bad = tmp_path / "b.csv"
    bad.write_text("docid,sys1,sys2\n0.5,0.1,0.2\n0.25,0.3,0.4\n")
    with pytest.raises(ValueError, match=r"column 1 \('docid'\) has an id-like header"):
        gtheory.read_scores(bad)


def test_integer_scores_everywhere_are_still_scores(tmp_path):
    # counts (num_rel_ret) in every column: a first column of distinct integers is no evidence of ids
    p = tmp_path / "counts.csv"
    p.write_text("sys1,sys2,sys3\n3,5,1\n7,2,2\n4,4,0\n")
    X = gtheory.read_scores(p)
    assert X.shape == (3, 3) and list(X.index) == ["sys1", "sys2", "sys3"]


# ---- the rule's parts, one by one (gtheory/gstudy/score_layout.py)

def test_role_names():
    from gtheory.gstudy.score_layout import _axis_role

    for name in ("system", "Systems", "run_id", "RunID", "sysid", "Person", " run "):
        assert _axis_role(name) == "system", name
    for name in ("topic", "Topic ID", "query_id", "qid", "items", "topic_no"):
        assert _axis_role(name) == "topic", name
    for name in ("score", "id", "x", "", "systemic", None, 3):
        assert _axis_role(name) is None, name


def test_orientation_spellings_are_one_layout():
    from gtheory.gstudy.score_layout import canonical_orientation

    for spelling, layout in (("systems x topics", "systems-by-topics"), ("System × Topic", "systems-by-topics"),
                             ("Topics by Systems", "topics-by-systems"), ("LONG", "long"), ("auto", "auto")):
        assert canonical_orientation(spelling) == layout
    for bad in ("rows", None, 1):
        with pytest.raises(gtheory.ParameterError) as err:
            canonical_orientation(bad)
        assert err.value.param == "orientation"


def test_a_first_column_of_labels_or_of_scores():
    from gtheory.gstudy.score_layout import _first_column_doubt, _first_column_is_labels

    ids = np.array([401.0, 402.0, 403.0])
    assert _first_column_is_labels("anything", None)  # cells that are not numbers are labels
    assert _first_column_is_labels("", ids) and _first_column_is_labels("Unnamed: 0", ids)
    assert _first_column_is_labels("Topic ID", ids) and _first_column_is_labels("docid", ids)
    assert not _first_column_is_labels("sys1", np.array([0.3, 0.1]))
    # distinct whole numbers under a header that names nothing, beside fractional scores: asked, never guessed
    assert "distinct whole numbers" in _first_column_doubt("T", ids, lambda: False)
    assert _first_column_doubt("T", ids, lambda: True) is None  # integer scores everywhere: scores
    assert "not distinct ids" in _first_column_doubt("id", np.array([1.0, 1.0, 2.0]), lambda: False)
    assert _first_column_doubt("topic", ids, lambda: False) is None


def test_what_the_rows_of_a_wide_table_are():
    from gtheory.gstudy.score_layout import _Ambiguous, _rows_are

    m = _matrix(3, 4)
    assert _rows_are(m.rename_axis(index="topic"), "auto", "m") == "topic"  # 1. axis names
    assert _rows_are(m.rename_axis(columns="run"), "auto", "m") == "topic"
    assert _rows_are(m, "topics-by-systems", "m") == "topic"  # 2. orientation
    with pytest.raises(ValueError, match="contradicts the axis names"):
        _rows_are(m.rename_axis(index="system"), "topics-by-systems", "m")
    runs = m.set_axis(["run_a", "run_b", "run_c"], axis=0)
    assert _rows_are(runs, "auto", "m") == "system" and _rows_are(runs.T, "auto", "m") == "topic"  # 3. labels
    assert _rows_are(pd.DataFrame(m.to_numpy()), "auto", "m") == "system"  # 4. no labels: as an array
    with pytest.raises(_Ambiguous, match="has unnamed axes") as err:  # 5. otherwise never guessed
        _rows_are(m, "auto", "m")
    assert err.value.param == "orientation"
    with pytest.raises(ValueError, match="names both its index and its columns 'topic'"):
        _rows_are(m.rename_axis(index="topic", columns="query"), "auto", "m")



@pytest.mark.parametrize("text, rows_said", [
    ("run,sys1,sys2,sys3\n401,0.1,0.2,0.4\n402,0.3,0.5,0.2\n403,0.6,0.1,0.3\n", "systems"),  # topics x systems, misnamed
    ("topic,401,402,403\nsys1,0.1,0.3,0.6\nsys2,0.2,0.5,0.1\nsys3,0.4,0.2,0.3\n", "topics"),  # systems x topics, misnamed
])
def test_a_name_contradicted_by_system_like_labels_is_refused_not_transposed(tmp_path, text, rows_said):
    # the name alone decided: the G-study ran on the transposed matrix (system and topic variance swapped)
    p = tmp_path / "s.csv"
    p.write_text(text)
    with pytest.raises(ValueError, match=f"line 1: the axis names .* say the rows are {rows_said}, but the .* labels "
                                         "'sys1', 'sys2', 'sys3' look like system names"):
        gtheory.read_scores(p)
    # told explicitly (orientation agreeing with the name), the file is read as the name says
    said = "systems-by-topics" if rows_said == "systems" else "topics-by-systems"
    assert gtheory.read_scores(p, orientation=said).shape == (3, 3)
    frame = _matrix().rename_axis(index="topic")  # the same rule for frames: rows S0.. are not system-like here
    assert gtheory.gstudy(frame).n_systems == 9


from gtheory.gstudy.score_layout import canonical_orientation  # noqa: E402  (the public building block)

def test_an_unknown_orientation_is_a_parameter_error_listing_the_spellings():
    with pytest.raises(gtheory.ParameterError, match=r"`orientation` must be one of 'auto', 'systems x topics'.*"
                                                     r"got 'diagonal'") as err:
        canonical_orientation("diagonal")
    assert err.value.param == "orientation"
