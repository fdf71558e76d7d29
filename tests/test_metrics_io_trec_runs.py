"""Tests of metrics/io/trec_runs.py: reading run files — trec_eval's ordering and its ties, the real-file quirks,
repeated docnos and malformed lines."""
from __future__ import annotations

import lzma

import pytest

from metrics.io.trec_lines import TrecFormatError
from metrics.io.trec_runs import read_run, read_runs

from conftest import shared
from test_metrics_io_trec_lines import write

RUN = """\
1 Q0 d1 1 0.5 tag
1 Q0 d2 2 0.9 tag
1 Q0 d3 3 0.5 tag
1 Q0 d4 4 0.7 tag
2 Q0 e1 0 2.0 tag
"""


@pytest.mark.parametrize("name", ["r.txt", "r.gz", "r.xz"])
def test_compressed_files_read_alike(tmp_path, name):
    run = read_run(write(tmp_path, name, RUN))
    assert run.name == "r"
    assert run.docno.tolist() == ["d2", "d4", "d3", "d1", "e1"]


def test_trec_eval_order_score_desc_then_docno_desc(tmp_path):
    # d1 and d3 tie at 0.5: trec_eval breaks ties by docno descending -> d3 before d1; the rank column is ignored
    run = read_run(write(tmp_path, "r", RUN))
    assert run.docno.tolist() == ["d2", "d4", "d3", "d1", "e1"]
    assert run.rank.tolist() == [1, 2, 3, 4, 1]


def test_input_tie_order(tmp_path):
    run = read_run(write(tmp_path, "r", RUN), ties="input")
    assert run.docno.tolist() == ["d2", "d4", "d1", "d3", "e1"]


def test_rank_tie_policy_uses_rank_column(tmp_path):
    run = read_run(write(tmp_path, "r", RUN), ties="rank")
    assert run.docno.tolist() == ["d1", "d2", "d3", "d4", "e1"]


@pytest.mark.parametrize("q0", ["Q0", "q0", "0"])
def test_second_column_variants_accepted(tmp_path, q0):
    run = read_run(write(tmp_path, "r", f"1 {q0} a 1 1.0 t\n1 {q0} b 2 0.5 t\n"))
    assert run.docno.tolist() == ["a", "b"]


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("1 Q0 a 1 1.0 t\n1 Q0 b 2 0.5\n", 2, "5 columns, expected 6"),
        ("1 Q0 a 1 1.0 t x\n", 1, "7 columns, expected 6"),
        ("1 Q0 a 1 1.0 t\n1 Q0 b 2 abc t\n", 2, "score 'abc' is not a number"),
        ("1 Q0 a 1 nan t\n", 1, "score 'nan' is not finite"),
        ("1 Q0 a 1 1.0 t\n1 Q0 b 2 -inf t\n", 2, "score '-inf' is not finite"),
        ("1 Q0 a 1 1.0 t\n1 Q0 b 2 0.5 t\n1 Q0 a 3 0.1 t\n", 3, "docno 'a' appears twice for topic '1' \\(first at line 1\\)"),
    ],
)
def test_malformed_run_lines_name_file_line_problem(tmp_path, text, line, message):
    p = write(tmp_path, "bad.run", text)
    with pytest.raises(TrecFormatError, match=message) as err:
        read_run(p)
    assert err.value.line == line
    assert err.value.path == str(p)
    assert str(err.value).startswith(f"{p}, line {line}: ")


def test_duplicates_first_keeps_first_occurrence(tmp_path):
    p = write(tmp_path, "r", "1 Q0 a 1 0.1 t\n1 Q0 b 2 0.5 t\n1 Q0 a 3 0.9 t\n")
    run = read_run(p, duplicates="first")
    assert run.docno.tolist() == ["b", "a"]
    assert run.score.tolist() == [0.5, 0.1]
    assert run.duplicates_dropped == 1


def test_same_docno_in_two_topics_is_not_a_duplicate(tmp_path):
    run = read_run(write(tmp_path, "r", "1 Q0 a 1 1 t\n2 Q0 a 1 1 t\n"))
    assert len(run) == 2


def test_bad_options(tmp_path):
    p = write(tmp_path, "r", RUN)
    with pytest.raises(ValueError, match="`ties` must be one of"):
        read_run(p, ties="random")
    with pytest.raises(ValueError, match="`duplicates` must be"):
        read_run(p, duplicates="last")


def test_read_runs_directory_names_and_uniqueness(tmp_path):
    d = tmp_path / "runs"
    d.mkdir()
    write(d, "input.sysA.gz", RUN)
    write(d, "sysB.txt", RUN)
    rs = read_runs(d)
    assert rs.names == ["sysA", "sysB"]
    write(d, "sysB.xz", RUN)
    with pytest.raises(ValueError, match="two run files give the system name 'sysB'"):
        read_runs(d)


def test_real_runs_match_trec_eval_order():
    """TREC-9 run with many score ties: our order equals pytrec_eval's parse + trec_eval's sort rule."""
    import pytrec_eval

    f = shared("trec9-web-wt10g", "runs_full_xz", "CWI0000.xz")
    run = read_run(f)
    with lzma.open(f, "rt") as fh:
        ref = pytrec_eval.parse_run(fh)
    for topic in ("451", "477", "500"):
        docs = ref[topic]
        expected = sorted(docs, key=lambda d: (docs[d], d), reverse=True)  # score desc, docno desc
        got = run.docno[run.topic == topic].tolist()
        assert got == expected


@pytest.mark.parametrize("workers", [1, 2])
def test_a_run_file_with_several_tags_is_reported(tmp_path, capsys, workers):
    # two runs pasted into one file are one system to trec_eval and here; judge reports the file and its tags (the
    # byte reader, and the string reader that a token wider than 64 bytes selects), and the CLI prints a note
    import metrics
    from experiments.cli import main

    runs = tmp_path / "runs"
    runs.mkdir()
    write(runs, "pasted", "1 Q0 a 1 1.0 runA\n1 Q0 b 2 0.5 runA\n2 Q0 a 1 1.0 runB\n")
    write(runs, "wide", f"1 Q0 {'x' * 80} 1 1.0 tagZ\n2 Q0 b 1 1.0 tagY\n2 Q0 c 2 0.5 tagZ\n")  # the string reader
    write(runs, "one", "1 Q0 a 1 1.0 r\n2 Q0 b 1 1.0 r\n")
    qrels = write(tmp_path, "qrels", "1 0 a 1\n2 0 b 1\n")
    j = metrics.judge(runs, qrels, workers=workers, progress=False)
    assert j.report["mixed_tags"] == {"pasted": ["runA", "runB"], "wide": ["tagY", "tagZ"]}  # "one" has one tag
    assert "run files with several run tags (read as one system per file): pasted (2), wide (2)" in j.summary()
    assert main(["evaluate", "--runs", str(runs), "--qrels", str(qrels), "--measure", "P@1"]) == 0
    err = capsys.readouterr().err
    assert "note: 2 run files (pasted (runA, runB), wide (tagY, tagZ)) hold several run tags" in err
    assert main(["evaluate", "--runs", str(runs), "--qrels", str(qrels), "--measure", "P@1", "--quiet"]) == 0
    assert "run tags" not in capsys.readouterr().err
