"""Runs and qrels from memory (metrics/io/inputs.py): every form gives the identical JudgedRuns as the files.

The reference is ``metrics.judge(<run files>, <qrels file>)`` on real shared collections; the in-memory forms are
built independently of this package's readers (pandas' CSV parser, pytrec_eval's parse_run/parse_qrel, ir_measures'
ScoredDoc/Qrel named tuples).
"""
from __future__ import annotations

import lzma
from collections import namedtuple

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics.io.inputs import InputFormatError

from conftest import SHARED, run_files

ir_measures = pytest.importorskip("ir_measures")
pytrec_eval = pytest.importorskip("pytrec_eval")

FIELDS = ("grades", "doc_ids", "levels", "qrels_level", "qrels_offsets", "n_retrieved")


def assert_identical(a: metrics.JudgedRuns, b: metrics.JudgedRuns) -> None:
    assert a.systems == b.systems and a.topics == b.topics and a.missing == b.missing
    for f in FIELDS:
        x, y = getattr(a, f), getattr(b, f)
        assert x.shape == y.shape and x.dtype == y.dtype, f
        np.testing.assert_array_equal(x, y, err_msg=f)
    assert a.fingerprint == b.fingerprint
    for key in ("run_topics_not_in_qrels", "qrels_topics_missing_from_run", "topics_without_relevant",
                "rows_beyond_depth"):
        assert a.report[key] == b.report[key], key


def read_frame(path) -> pd.DataFrame:
    """A run file as a DataFrame, parsed by pandas (not by metrics)."""
    with lzma.open(path, "rt") as fh:
        df = pd.read_csv(fh, sep=r"\s+", header=None, names=["query_id", "q0", "doc_id", "rank", "score", "tag"],
                         dtype={"query_id": str, "doc_id": str})
    return df[["query_id", "doc_id", "score"]]


@pytest.fixture(scope="module")
def data():
    if not SHARED.is_dir():
        pytest.skip("shared data not found")
    dl, dq = run_files("dl19")
    rb, rq = run_files("robust04")
    # DL 2019: 3 runs, one returning 5-50 documents per topic; Robust 2004: a run holding topic 672 (no qrels)
    sets = {"dl19": (dl[:3], dq), "robust04": (rb[:1], rq)}
    out = {}
    for name, (files, qrels) in sets.items():
        ref = metrics.judge(files, qrels)
        frames = {s: read_frame(f) for s, f in zip(ref.systems, files)}
        out[name] = (ref, files, qrels, frames)
    return out


def test_robust04_run_frame_with_a_topic_outside_the_qrels_gives_identical_judged_runs(data):
    ref, files, qrels, frames = data["robust04"]
    got = metrics.judge(frames[ref.systems[0]].assign(run=ref.systems[0]), qrels)
    assert_identical(got, ref)
    assert got.report["run_topics_not_in_qrels"] == {ref.systems[0]: ["672"]}


def test_dataframes_both_namings_and_shuffled_give_identical_judged_runs(data):
    ref, files, qrels, frames = data["dl19"]
    long = pd.concat([f.assign(run=s) for s, f in frames.items()], ignore_index=True)
    qdf = pd.read_csv(qrels, sep=r"\s+", header=None, names=["query_id", "it", "doc_id", "relevance"],
                      dtype={"query_id": str, "doc_id": str})[["query_id", "doc_id", "relevance"]]
    assert_identical(metrics.judge(long, qdf), ref)
    # this package's naming, rows shuffled (order does not matter under trec_eval ties), qrels shuffled too
    other = long.rename(columns={"query_id": "topic", "doc_id": "docno", "run": "system"})
    shuffled = other.sample(frac=1.0, random_state=0)
    q2 = qdf.rename(columns={"query_id": "topic", "doc_id": "docno", "relevance": "grade"})
    order = list(pd.unique(shuffled["system"]))  # systems in order of first appearance
    assert_identical(metrics.judge(shuffled, q2), ref.subset(systems=order))
    # qrels in another row order: the same grades; judged-document ids follow the qrels' order (as for a file)
    mixed = metrics.judge(long, qdf.sample(frac=1.0, random_state=1))
    np.testing.assert_array_equal(mixed.grades, ref.grades)
    np.testing.assert_array_equal(mixed.doc_ids >= 0, ref.doc_ids >= 0)
    assert mixed.fingerprint == ref.fingerprint  # the data are the same: the fingerprint ignores the qrels' order
    # via the readers and Qrels/Run.from_frame
    rs = metrics.read_runs(long)
    assert rs.names == list(ref.systems)
    assert_identical(metrics.judge(rs, metrics.Qrels.from_frame(qdf)), ref)
    one = metrics.Run.from_frame(frames[ref.systems[0]], name=ref.systems[0])
    assert_identical(metrics.judge([one], qrels), metrics.judge(files[:1], qrels))


def test_pytrec_eval_dicts_give_identical_judged_runs(data):
    ref, files, qrels, frames = data["dl19"]
    with open(qrels) as fh:
        qd = pytrec_eval.parse_qrel(fh)
    runs = {}
    for s, f in zip(ref.systems, files):
        with lzma.open(f, "rt") as fh:
            runs[s] = pytrec_eval.parse_run(fh)
    assert_identical(metrics.judge(runs, qd), ref)  # {system: {qid: {docid: score}}}
    s0 = ref.systems[0]
    single = metrics.judge(runs[s0], qd)  # {qid: {docid: score}}: one run named "run"
    assert single.systems == ("run",)
    np.testing.assert_array_equal(single.grades, metrics.judge(files[:1], qrels).grades)
    assert metrics.read_run(runs[s0], name=s0).name == s0
    assert len(metrics.read_qrels(qd)) == len(metrics.read_qrels(qrels))


class RanxRun:
    """A stand-in for ``ranx.Run`` (ranx 0.3, data_structures/run.py): the scores in ``run`` (a numba typed dict in
    ranx), a ``name`` and ``to_dict()`` giving ``{q_id: {doc_id: score}}``; no ``__iter__`` (ranx has none)."""

    def __init__(self, run: dict, name: str | None = None) -> None:
        self.run, self.name = run, name

    def to_dict(self) -> dict:
        return {q: dict(d) for q, d in self.run.items()}

    def __getitem__(self, q):
        return dict(self.run[q])

    def __len__(self) -> int:
        return len(self.run)


class RanxQrels:
    """A stand-in for ``ranx.Qrels``: ``qrels``, ``name`` and ``to_dict()``."""

    def __init__(self, qrels: dict, name: str | None = None) -> None:
        self.qrels, self.name = qrels, name

    def to_dict(self) -> dict:
        return {q: dict(d) for q, d in self.qrels.items()}


def test_ranx_objects_and_columns_give_identical_judged_runs(data):
    ref, files, qrels, frames = data["dl19"]
    with open(qrels) as fh:
        qd = pytrec_eval.parse_qrel(fh)
    runs = {}
    for s, f in zip(ref.systems, files):
        with lzma.open(f, "rt") as fh:
            runs[s] = pytrec_eval.parse_run(fh)
    ranx_runs = [RanxRun(r, name=s) for s, r in runs.items()]
    assert_identical(metrics.judge(ranx_runs, RanxQrels(qd)), ref)  # a list of named ranx Runs
    assert_identical(metrics.judge(dict(zip(runs, ranx_runs)), RanxQrels(qd)), ref)  # {name: ranx Run}
    s0 = ref.systems[0]
    one = metrics.judge(RanxRun(runs[s0], name=s0), RanxQrels(qd))  # one ranx Run keeps its name
    assert one.systems == (s0,)
    np.testing.assert_array_equal(one.grades, metrics.judge(files[:1], qrels).grades)
    assert metrics.judge(RanxRun(runs[s0]), qd).systems == ("run",)  # no name: the default one
    with pytest.raises(InputFormatError, match="distinct names"):
        metrics.judge([RanxRun(runs[s0]), RanxRun(runs[s0])], qd)
    # ranx's DataFrame columns (Run/Qrels.to_dataframe): q_id, doc_id, score; for qrels the score is the grade
    long = pd.concat([f.assign(run=s) for s, f in frames.items()], ignore_index=True).rename(columns={"query_id": "q_id"})
    qdf = pd.DataFrame([(q, d, g) for q, docs in qd.items() for d, g in docs.items()], columns=["q_id", "doc_id", "score"])
    assert_identical(metrics.judge(long, qdf), ref)
    # a run frame of ir_measures' naming is not taken for qrels: "score" is a grade only beside ranx's q_id
    with pytest.raises(InputFormatError, match="no grade"):
        metrics.read_qrels(frames[s0])


def test_ir_measures_named_tuples_give_identical_judged_runs(data):
    ref, files, qrels, frames = data["dl19"]
    qrels_tuples = list(ir_measures.read_trec_qrels(str(qrels)))
    assert type(qrels_tuples[0]).__name__ == "Qrel"
    runs = {s: (ir_measures.ScoredDoc(q, d, sc) for q, d, sc in f.itertuples(index=False))  # generators
            for s, f in frames.items()}
    assert_identical(metrics.judge(runs, iter(qrels_tuples)), ref)
    # one run as a bare generator, as metrics.judge(ds.scoreddocs_iter(), ds.qrels_iter()) passes it
    s0 = ref.systems[0]
    gen = (ir_measures.ScoredDoc(q, d, sc) for q, d, sc in frames[s0].itertuples(index=False))
    bare = metrics.judge(gen, iter(qrels_tuples))
    assert bare.systems == ("run",)
    np.testing.assert_array_equal(bare.grades, metrics.judge(files[:1], qrels).grades)
    # any named tuple with those field names (ir_measures not needed), as ir_datasets yields them
    Doc = namedtuple("GenericScoredDoc", ["query_id", "doc_id", "score"])
    s0 = ref.systems[0]
    docs = [Doc(*r) for r in frames[s0].itertuples(index=False)]
    got = metrics.judge({s0: docs}, qrels_tuples)
    assert_identical(got, metrics.judge(files[:1], qrels))


def test_ties_duplicates_and_rank_follow_the_file_rules(tmp_path):
    text = "1 Q0 a 1 2.0 t\n1 Q0 b 2 2.0 t\n1 Q0 c 3 2.00000001 t\n2 Q0 x 1 1 t\n1 Q0 a 4 0.5 t\n"
    path = tmp_path / "r.txt"
    path.write_text(text)
    df = pd.DataFrame([ln.split() for ln in text.splitlines()], columns=["query_id", "q0", "doc_id", "rank", "score",
                                                                          "tag"])
    df["score"] = df["score"].astype(float)
    df["rank"] = df["rank"].astype(int)
    with pytest.raises(InputFormatError, match=r"run DataFrame, row 4: docno 'a' appears twice for topic '1'"):
        metrics.read_run(df)
    with pytest.raises(metrics.TrecFormatError):  # one except catches files and memory alike
        metrics.read_run(df)
    for ties in ("trec_eval", "input", "rank"):
        f = metrics.read_run(path, ties=ties, duplicates="first")
        m = metrics.read_run(df, name="r", ties=ties, duplicates="first")
        assert list(m.docno) == list(f.docno) and list(m.rank) == list(f.rank), ties
        np.testing.assert_array_equal(m.score, f.score)
        assert m.duplicates_dropped == f.duplicates_dropped == 1
    # float32 tie of 2.0 and 2.00000001: docno descending, c > b > a
    assert list(metrics.read_run(path, duplicates="first").docno[:3]) == ["c", "b", "a"]

    # beyond float32's range: +inf as a C float (a tie, docno descending), no overflow warning (an error under
    # pyproject's filter); a frame and a file alike
    text = "1 Q0 a 1 1.0 t\n1 Q0 b 2 9.5e83 t\n1 Q0 c 3 2e50 t\n1 Q0 d 4 -1e300 t\n"
    path.write_text(text)
    df = pd.DataFrame([ln.split() for ln in text.splitlines()], columns=["query_id", "q0", "doc_id", "rank", "score",
                                                                          "tag"]).astype({"score": float})
    assert list(metrics.read_run(path).docno) == list(metrics.read_run(df, name="r").docno) == ["c", "b", "a", "d"]


@pytest.mark.parametrize(
    "frame, match",
    [
        (pd.DataFrame({"query_id": ["1"], "doc_id": ["a"]}), r"no score column: expected 'score'"),
        (pd.DataFrame({"query_id": [1.0], "doc_id": ["a"], "score": [1.0]}), r"row 0: topic .* is a float64 value"),
        (pd.DataFrame({"query_id": ["1", None], "doc_id": ["a", "b"], "score": [1.0, 2]}),
         r"row 1: topic is missing"),
        (pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [1.0, np.nan]}),
         r"row 1: score nan is not finite \(score must be a real number\)"),
        (pd.DataFrame({"query_id": ["1"], "doc_id": ["a b"], "score": [1.0]}), r"row 0: docno 'a b' holds whitespace"),
        (pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": ["x"]}), r"row 0: score 'x' is not a number"),
        # numeric strings are read as a file's are (C syntax): float() would take "1_0" as 10, "٣" as 3
        (pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": ["0.5", "1_0"]}),
         r"row 1: score '1_0' is not a number"),
        (pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": ["\u0663"]}), r"row 0: score '\u0663' is not a number"),
        (pd.DataFrame({"query_id": ["1"], "topic": ["1"], "doc_id": ["a"], "score": [1.0]}),
         r"both columns 'query_id' and 'topic'"),
    ],
)
def test_bad_run_frames_name_the_row(frame, match):
    with pytest.raises(InputFormatError, match=match):
        metrics.read_run(frame)


def test_bad_qrels_and_records_name_the_row():
    with pytest.raises(InputFormatError, match=r"qrels dict, \['1'\]\['a'\]: grade 'high' is not a number"):
        metrics.read_qrels({"1": {"a": "high"}})
    with pytest.raises(InputFormatError, match=r"qrels dict, \['1'\]\['a'\]: grade '1_0' is not a number"):
        metrics.read_qrels({"1": {"a": "1_0"}})  # was grade 10
    assert metrics.read_qrels({"1": {"a": "2", "b": " 1e0"}}).grade.tolist() == [2.0, 1.0]
    q = [ir_measures.Qrel("1", "a", 1), ir_measures.Qrel("1", "a", 2)]
    with pytest.raises(InputFormatError, match=r"qrels iterable, item 1: docno 'a' is judged twice for topic '1' "
                                               r"\(first at item 0\)"):
        metrics.read_qrels(q)
    with pytest.raises(InputFormatError, match=r"run iterable, item 1: expected a named tuple with fields query_id, "
                                               r"doc_id, score"):
        metrics.read_run([ir_measures.ScoredDoc("1", "a", 1.0), ("1", "b", 2.0)])
    with pytest.raises(InputFormatError, match=r"<memory>, row 'x': grade inf is not finite"):
        metrics.Qrels.from_frame(pd.DataFrame({"topic": ["1"], "docno": ["a"], "grade": [np.inf]}, index=["x"]))
    shuffled = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [1.0, np.nan]}, index=[7, 3])
    with pytest.raises(InputFormatError, match=r"run DataFrame, row 3: score nan"):  # the label, not the position
        metrics.read_run(shuffled)
    with pytest.raises(InputFormatError, match="holds no judgments"):
        metrics.read_qrels(pd.DataFrame({"query_id": [], "doc_id": [], "relevance": []}))
    with pytest.raises(TypeError, match="must be a pandas DataFrame"):
        metrics.Qrels.from_frame({"1": {"a": 1}})


def test_integer_ids_are_written_in_decimal_as_in_a_file():
    q = metrics.read_qrels(pd.DataFrame({"query_id": [451, 452], "doc_id": ["d1", "d2"], "relevance": [1, 0]}))
    assert list(q.topic) == ["451", "452"] and q.grade.dtype == np.float64
    r = metrics.read_run({451: {"d1": 1.0, "d3": 0.5}})
    j = metrics.judge(r if isinstance(r, list) else [r], q)
    assert j.topics == ("451", "452") and j.grades[0, 0, 0] == 1  # d1 judged relevant (level 1 of 0, 1)


from hypothesis import given, settings, strategies as st  # noqa: E402

_row = st.tuples(st.sampled_from(["1", "2", "10", "b"]), st.sampled_from(["d1", "d2", "D3", "d10", "é4", "x"]),
                 st.sampled_from([0.0, 1.0, 1.00000001, -2.5, 3.0]), st.integers(1, 5))


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(_row, min_size=1, max_size=25), ties=st.sampled_from(["trec_eval", "input", "rank"]))
def test_random_runs_rank_alike_from_a_file_and_from_memory(tmp_path_factory, rows, ties):
    """Ties (also float32 ties), duplicates ('first'), natural topic order, rank column: a DataFrame and a dict give
    the Run the file reader gives for the same lines."""
    path = tmp_path_factory.mktemp("r") / "r.txt"
    path.write_text("".join(f"{q} Q0 {d} {r} {s!r} t\n" for q, d, s, r in rows), encoding="utf-8")
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score", "rank"])
    f = metrics.read_run(path, ties=ties, duplicates="first")
    got = [metrics.read_run(frame, name="r", ties=ties, duplicates="first")]
    if ties != "rank":  # a dict has no rank column; it keeps the first score of a docno, as duplicates='first'
        d: dict = {}
        for q, doc, s, _ in rows:
            d.setdefault(q, {}).setdefault(doc, s)
        got.append(metrics.read_run(d, name="r", ties=ties))
    for m in got:
        assert list(m.topic) == list(f.topic) and list(m.docno) == list(f.docno) and list(m.rank) == list(f.rank)
        np.testing.assert_array_equal(m.score, f.score)
