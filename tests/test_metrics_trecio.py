"""Reading TREC qrels and runs: trec_eval's ordering, the real-file quirks, and malformed input errors."""
from __future__ import annotations

import gzip
import lzma
from pathlib import Path

import numpy as np
import pytest

import metrics
from metrics import TrecFormatError, read_qrels, read_run, read_runs

from conftest import shared


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    if name.endswith(".gz"):
        with gzip.open(p, "wt") as fh:
            fh.write(text)
    elif name.endswith(".xz"):
        with lzma.open(p, "wt") as fh:
            fh.write(text)
    else:
        p.write_text(text)
    return p


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


def test_blank_lines_skipped_and_line_numbers_kept(tmp_path):
    p = write(tmp_path, "r", "1 Q0 a 1 1 t\n\n1 Q0 b 2 x t\n")
    with pytest.raises(TrecFormatError, match=r"r, line 3: score 'x' is not a number"):
        read_run(p)


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


def test_empty_and_missing_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_qrels(tmp_path / "nope")
    with pytest.raises(TrecFormatError, match="holds no judgments"):
        read_qrels(write(tmp_path, "q", "\n"))
    with pytest.raises(TrecFormatError, match="cannot read or decompress"):
        read_run(_corrupt_xz(tmp_path))


def _corrupt_xz(tmp_path: Path) -> Path:
    p = tmp_path / "broken.xz"
    p.write_bytes(b"not xz at all")
    return p


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


@pytest.mark.parametrize("score", ["1_000", "\u0663", "１"])
def test_scores_need_c_float_syntax(tmp_path, score):
    """trec_eval reads scores with atof: Python-only spellings (underscores, non-ASCII digits) are errors."""
    p = write(tmp_path, "r", f"1 Q0 a 1 1.0 t\n1 Q0 b 2 {score} t\n")
    with pytest.raises(TrecFormatError, match=r"line 2: score .* is not a number"):
        read_run(p)


def test_only_ascii_whitespace_separates_columns(tmp_path):
    # a no-break space inside a docno is part of the docno, as in trec_eval (which splits on ASCII whitespace)
    run = read_run(write(tmp_path, "r", "1 Q0 a\u00a0b 1 1.0 t\n1\tQ0\tc\t2\t0.5\tt\r\n"))
    assert run.docno.tolist() == ["a\u00a0b", "c"]
