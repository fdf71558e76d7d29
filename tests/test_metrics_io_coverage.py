"""Judgment coverage (metrics/io/coverage.py): mismatched runs and qrels are refused, low coverage warns, and the
coverage numbers equal an independent count (pandas: trec_eval's order, top k, merge with the qrels)."""
from __future__ import annotations

import json
import lzma
import warnings

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics.io.coverage import InputMismatchError, LowCoverageWarning

from conftest import SHARED, run_files


def read_frame(path) -> pd.DataFrame:
    with lzma.open(path, "rt") as fh:
        return pd.read_csv(fh, sep=r"\s+", header=None, names=["query_id", "q0", "doc_id", "rank", "score", "tag"],
                           dtype={"query_id": str, "doc_id": str})[["query_id", "doc_id", "score"]]


@pytest.fixture(scope="module")
def dl():
    if not SHARED.is_dir():
        pytest.skip("shared data not found")
    files, qrels = run_files("dl19")
    files = files[:3]
    judged = metrics.judge(files, qrels)
    qdf = pd.read_csv(qrels, sep=r"\s+", header=None, names=["query_id", "it", "doc_id", "relevance"],
                      dtype={"query_id": str, "doc_id": str})[["query_id", "doc_id", "relevance"]]
    frames = {s: read_frame(f) for s, f in zip(judged.systems, files)}
    return judged, files, qrels, qdf, frames


def test_dl2019_runs_with_trec9_qrels_are_refused_naming_topics_of_both_sides(dl):
    _, files, _, _, _ = dl
    _, trec9_qrels = run_files("trec9")
    with pytest.raises(InputMismatchError, match=r"the runs and the qrels share no topic: the runs' topics are "
                                                 r"19335, .*\(43 topics\), the qrels' 451, 452, .*\(50 topics\)"):
        metrics.judge(files, trec9_qrels)


def test_docnos_with_a_prefix_the_qrels_lack_are_refused_with_the_prefix(dl):
    judged, _, qrels, qdf, frames = dl
    prefixed = {s: f.assign(doc_id="msmarco-passage-" + f["doc_id"]) for s, f in frames.items()}
    with pytest.raises(InputMismatchError, match=r"no run retrieved a single judged document .*e\.g\. run "
                                                 r"'ICT-BERT2' ranks 'msmarco-passage-\d+' at rank 1 for topic "
                                                 r"'19335', where the qrels judge .*carry a prefix "
                                                 r"'msmarco-passage-' the qrels lack"):
        metrics.judge(prefixed, qrels)
    # run files against qrels whose docnos carry a prefix: the example is read back from the first run file
    _, files, _, _, _ = dl
    with pytest.raises(InputMismatchError, match=r"the qrels' docnos carry a prefix 'D' the run lacks"):
        metrics.judge(files, qdf.assign(doc_id="D" + qdf["doc_id"]))


def test_one_mismatched_run_and_low_overall_coverage_warn(dl):
    judged, _, qrels, qdf, frames = dl
    s1 = judged.systems[1]
    bad = {**frames, s1: frames[s1].assign(doc_id="p" + frames[s1]["doc_id"])}
    with pytest.warns(LowCoverageWarning, match=rf"1 of 3 runs retrieved no judged document \({s1}\)"):
        got = metrics.judge(bad, qrels)
    assert got.coverage.n_judged[1, -1] == 0 and got.coverage.n_judged[0, -1] > 0
    # a run whose topics are all outside the qrels: the warning says so
    other = {**frames, s1: frames[s1].assign(query_id="9" + frames[s1]["query_id"])}
    with pytest.warns(LowCoverageWarning, match=rf"\({s1} returns no qrels topic\)"):
        metrics.judge(other, qrels)
    # a tenth of the judgments kept: under half of the top-10 documents judged
    few = qdf.sample(frac=0.1, random_state=0)
    with pytest.warns(LowCoverageWarning, match=r"only \d+\.\d% of the documents the runs retrieved in their top 10 "
                                               r"are judged"):
        metrics.judge(frames, few)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LowCoverageWarning)
        metrics.judge(frames, qdf)  # the real data: no warning


def test_coverage_equals_an_independent_count(dl):
    judged, _, _, qdf, frames = dl
    cov = judged.coverage
    assert cov.cutoffs == (1, 5, 10, 20, 50)  # the tensor is 50 deep (the deepest of these runs)
    judged_pairs = set(zip(qdf["query_id"], qdf["doc_id"]))
    qtopics = set(qdf["query_id"])
    for i, (s, f) in enumerate(frames.items()):
        # trec_eval's order: score descending, ties by docno descending
        f = f[f["query_id"].isin(qtopics)].sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
        f = f.assign(r=f.groupby("query_id").cumcount() + 1)
        hit = np.array([(q, d) in judged_pairs for q, d in zip(f["query_id"], f["doc_id"])])
        for c, k in enumerate(cov.cutoffs):
            top = (f["r"] <= k).to_numpy()
            assert cov.n_retrieved[i, c] == top.sum() and cov.n_judged[i, c] == (top & hit).sum(), (s, k)
    np.testing.assert_allclose(cov.overall, cov.n_judged.sum(0) / cov.n_retrieved.sum(0))
    assert cov.topics_not_retrieved == () and cov.run_topics_not_in_qrels == ()
    assert cov.at(10) == pytest.approx(float(cov.overall[2]))
    with pytest.raises(ValueError, match="one of the cut-offs"):
        cov.at(7)
    line = cov.one_line()
    assert line.startswith("coverage: 3 runs x 43 topics, judged share of retrieved documents ")
    assert "lowest" in line
    assert "@50" in cov.summary() and "overall" in cov.summary()
    frame = cov.to_frame()
    assert list(frame.columns) == ["system", "cutoff", "retrieved", "judged", "share"] and len(frame) == 15


def test_coverage_survives_save_load_and_subset_and_json(dl, tmp_path):
    judged = dl[0]
    judged.save(tmp_path / "j.npz")
    loaded = metrics.JudgedRuns.load(tmp_path / "j.npz")
    a, b = judged.coverage, loaded.coverage
    np.testing.assert_array_equal(a.n_retrieved, b.n_retrieved)
    np.testing.assert_array_equal(a.n_judged, b.n_judged)
    assert b.run_topics_not_in_qrels is None and "unknown" in b.summary()
    assert loaded.fingerprint == judged.fingerprint
    sub = judged.subset(systems=[judged.systems[2]])
    np.testing.assert_array_equal(sub.coverage.n_judged[0], a.n_judged[2])
    assert sub.fingerprint != judged.fingerprint
    text = a.to_json()
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    back = metrics.Coverage.from_json(text)
    np.testing.assert_array_equal(back.n_judged, a.n_judged)
    assert back.one_line() == a.one_line() and back.systems == a.systems
    assert "<table>" in a._repr_html_() and repr(a).startswith("Coverage(coverage: 3 runs")
    with pytest.raises(ValueError, match="not a gtheory metrics.Coverage JSON document"):
        metrics.Coverage.from_json('{"format": "other"}')
    import matplotlib

    matplotlib.use("Agg")
    ax = a.plot()
    assert len(ax.lines) == 4


def cli(capsys, *args: str) -> tuple[int, str, str]:
    from experiments.cli import main

    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_prints_one_coverage_line_and_refuses_mismatch(dl, capsys):
    _, files, qrels, _, _ = dl
    args = ["evaluate", "--runs", *map(str, files), "--qrels", str(qrels), "--measure", "P@10"]
    code, out, err = cli(capsys, *args)
    assert code == 0, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gtheory evaluate: coverage: 3 runs x 43 topics, judged share")
    code, quiet_out, quiet_err = cli(capsys, *args, "--quiet")
    assert code == 0 and quiet_err == "" and quiet_out == out
    _, trec9_qrels = run_files("trec9")
    code, out, err = cli(capsys, "evaluate", "--runs", *map(str, files), "--qrels", str(trec9_qrels),
                         "--measure", "nDCG@10")
    assert code == 2 and out == ""
    assert "share no topic" in err and "exceeds the run depth" not in err
