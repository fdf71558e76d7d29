"""Tests of gtheory/gstudy/score_csv.py: read_scores (CSV layouts, orientation, and errors naming file and line)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gtheory import gstudy, read_scores

from conftest import shared


def matrix(name: str) -> Path:
    """A SIGIR 2018 simulation score matrix (skips the test when the shared data is not there)."""
    return shared("score-matrices", "sigir2018-simulation", name)


def test_trec_matrices_are_topics_by_systems():
    # web files: header of system names, no label column; 48 topic rows x 88 systems
    X = read_scores(matrix("web2010_ap.csv"))
    ref = pd.read_csv(matrix("web2010_ap.csv"))
    assert X.shape == (ref.shape[1], ref.shape[0])
    assert list(X.index[:2]) == ["sys1", "sys2"]
    np.testing.assert_array_equal(X.to_numpy(), ref.to_numpy().T)
    assert X.equals(read_scores(matrix("web2010_ap.csv"), orientation="topics-by-systems"))


def test_label_column_detected():
    X = read_scores(matrix("robust2004_p10.csv"))
    ref = pd.read_csv(matrix("robust2004_p10.csv"), index_col="topic")
    assert X.shape == (110, 249)
    assert X.columns[0] == "301"
    np.testing.assert_array_equal(X.to_numpy(), ref.to_numpy().T)


def test_long_and_wide_agree(tmp_path):
    X = read_scores(matrix("web2014_ndcg20.csv"))
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
        read_scores(matrix("web2010_ap.csv"), orientation="rows")


def test_explicit_orientation_for_ambiguous_file(tmp_path):
    p = _write(tmp_path, "x1,x2,x3\n1,2,3\n3,4,6\n")
    X = read_scores(p, orientation="systems-by-topics")
    assert X.shape == (2, 3) and list(X.columns) == ["x1", "x2", "x3"]
    Y = read_scores(p, orientation="topics-by-systems")
    assert Y.shape == (3, 2)


# ---- long CSV with a measure column (system, topic, measure, score: gtheory evaluate / metrics.evaluate)
_TWO_MEASURES = (
    "system,topic,measure,score\n"
    "a,1,nDCG@10,0.5\na,2,nDCG@10,0.6\nb,1,nDCG@10,0.1\nb,2,nDCG@10,0.4\n"
    "a,1,AP,0.25\na,2,AP,0.35\nb,1,AP,0.05\nb,2,AP,0.15\n"
)


def test_long_csv_with_measures_is_filtered_to_one(tmp_path):
    p = _write(tmp_path, _TWO_MEASURES)
    ap = read_scores(p, measure="AP")
    expected = pd.DataFrame([[0.25, 0.35], [0.05, 0.15]], index=pd.Index(["a", "b"], name="system"),
                            columns=pd.Index(["1", "2"], name="topic"))
    pd.testing.assert_frame_equal(ap, expected)
    assert ap.attrs["measure"] == "AP"
    assert read_scores(p, measure="ap").attrs["measure"] == "AP"  # the one match ignoring case
    ndcg = read_scores(p, measure="nDCG@10", orientation="long")
    assert ndcg.loc["b", "2"] == 0.4 and ndcg.attrs["measure"] == "nDCG@10"


def test_long_csv_with_one_measure_needs_no_measure(tmp_path):
    p = _write(tmp_path, "run,qid,measure,value\na,1,AP,0.1\na,2,AP,0.3\nb,1,AP,0.6\nb,2,AP,0.7\n")
    X = read_scores(p)
    assert X.attrs["measure"] == "AP" and X.to_numpy().tolist() == [[0.1, 0.3], [0.6, 0.7]]
    assert gstudy(p).grand_mean == pytest.approx(0.425, rel=1e-14)


def test_measure_column_without_a_score_column_is_still_the_score(tmp_path):
    # the long layout before measure columns: "measure" holding the numbers
    X = read_scores(_write(tmp_path, "system,topic,measure\na,1,0.5\na,2,0.7\nb,1,0.1\nb,2,0.2\n"))
    assert X.to_numpy().tolist() == [[0.5, 0.7], [0.1, 0.2]] and "measure" not in X.attrs


@pytest.mark.parametrize(
    "text, kwargs, match",
    [
        (_TWO_MEASURES, {}, r"bad\.csv: the file holds 2 measures \(nDCG@10, AP\); choose one by name with "
                            r"`measure` \(e\.g\. `measure` 'nDCG@10'\)\."),
        (_TWO_MEASURES, {"measure": "P@5"}, r"bad\.csv: the file has no measure 'P@5'; it holds nDCG@10, AP\."),
        ("system,topic,measure,score\na,1,AP,0.1\na,1,ap,0.2\n", {"measure": "Ap"},
         r"`measure` 'Ap' matches 2 measures ignoring case \(AP, ap\); give the exact name"),
        ("system,topic,measure,score\na,1,AP,0.1\na,2,,0.2\n", {}, r"bad\.csv, line 3: empty measure name"),
        ("system,topic,measure,score\na,1,AP,0.1\na,2,AP\n", {}, r"bad\.csv, line 3: expected 4 fields"),
        ("system,topic,measure,score\na,1,AP,0.1\na,2,AP,0.2\nb,1,AP,0.3\nb,1,P@5,0.3\n", {"measure": "AP"},
         r"1 system/topic pairs have no AP score \(first: system 'b', topic '2'\)"),
        ("system,topic,measure,score\na,1,AP,0.1\na,1,AP,0.2\na,1,P@5,0.3\n", {"measure": "AP"},
         r"line 3: duplicate AP score for system 'a', topic '1' \(first given on line 2\)"),
        ("system,topic,score\na,1,0.1\n", {"measure": "AP"},
         r"bad\.csv: `measure` 'AP' selects a measure of a long CSV with a 'measure' column"),
        ("system,t1,t2\na,1,2\nb,3,4\n", {"measure": "AP"}, r"bad\.csv: `measure` 'AP' .* the file has neither"),
    ],
)
def test_measure_errors_name_the_file_and_the_measures(tmp_path, text, kwargs, match):
    with pytest.raises(ValueError, match=match):
        read_scores(_write(tmp_path, text), **kwargs)


def test_measure_of_the_wrong_type(tmp_path):
    with pytest.raises(TypeError, match="`measure` must be a measure name"):
        read_scores(_write(tmp_path, _TWO_MEASURES), measure=["AP"])


def test_wide_csv_with_measure_prefixed_columns(tmp_path):
    # gtheory evaluate --format wide --measure nDCG@10 --measure AP: columns MEASURE:topic
    p = tmp_path / "wide.csv"
    p.write_text("system,nDCG@10:1,nDCG@10:2,AP:1,AP:2\na,0.1,0.2,0.5,0.6\nb,0.3,0.4,0.7,0.8\n")
    with pytest.raises(ValueError, match=r"wide\.csv: the file holds 2 measures \(nDCG@10, AP\)"):
        read_scores(p)
    X = read_scores(p, measure="ap")
    assert X.attrs["measure"] == "AP" and list(X.columns) == ["1", "2"]
    np.testing.assert_array_equal(X.to_numpy(), [[0.5, 0.6], [0.7, 0.8]])
    assert read_scores(p, measure="nDCG@10").to_numpy()[1, 1] == 0.4
    with pytest.raises(ValueError, match="has no measure 'P@10'; it holds nDCG@10, AP"):
        read_scores(p, measure="P@10")
    one = tmp_path / "one.csv"  # one measure prefix: read as that measure
    one.write_text("system,AP:1,AP:2\na,0.5,0.6\nb,0.7,0.8\n")
    assert read_scores(one).attrs["measure"] == "AP" and list(read_scores(one).columns) == ["1", "2"]
    plain = tmp_path / "plain.csv"  # no MEASURE:topic labels: measure= is refused, naming both layouts
    plain.write_text("system,1,2\na,0.5,0.6\nb,0.7,0.8\n")
    with pytest.raises(ValueError, match="MEASURE:topic column labels; the file has neither"):
        read_scores(plain, measure="AP")


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz"])
def test_compressed_csv_is_read(tmp_path, suffix):
    # a .csv.gz was refused as "not UTF-8 text (invalid start byte at byte 1)"
    import bz2
    import gzip
    import lzma

    text = "system,1,2\na,0.5,0.6\nb,0.7,0.9\n"
    plain = tmp_path / "s.csv"
    plain.write_text(text)
    packed = tmp_path / f"s.csv{suffix}"
    packed.write_bytes({".gz": gzip, ".bz2": bz2, ".xz": lzma}[suffix].compress(text.encode()))
    assert read_scores(packed).equals(read_scores(plain))


def test_truncated_compressed_csv_names_the_file(tmp_path):
    import gzip

    p = tmp_path / "t.csv.gz"
    p.write_bytes(gzip.compress(b"system,1,2\na,0.5,0.6\n" * 50)[:30])
    with pytest.raises(ValueError, match=r"t\.csv\.gz: cannot read the file \(gzip\): "):
        read_scores(p)


# ---- hostile cells and labels: never a silently different number or a made-up topic or system
@pytest.mark.parametrize("cell", ["1_0", "\u0663", "\uff13", "1,000", "0,5", "0x10"])
def test_scores_need_c_number_syntax_as_the_trec_readers(tmp_path, cell):
    # float() reads "1_0" as 10 and "٣" (Arabic-Indic three) as 3: no other tool reads these cells so
    p = _write(tmp_path, f'system,t1,t2\na,"{cell}",0.2\nb,0.3,0.4\n')
    with pytest.raises(ValueError, match=r"bad\.csv, line 2: cannot read .* in column 't1' as a number"):
        read_scores(p)


@pytest.mark.parametrize("text, line, label", [
    ("system,t1,t2,all\na,0.1,0.3,0.2\nb,0.3,0.6,0.45\nc,0.2,0.2,0.2\n", 1, "all"),        # a mean column
    ("system,t1,t2\na,0.1,0.3\nb,0.3,0.6\nMean,0.2,0.45\n", 4, "Mean"),                    # a mean row (system)
    ("topic,a,b\n1,0.1,0.3\n2,0.3,0.5\naverage,0.2,0.4\n", 4, "average"),                  # topics x systems
    ("system,topic,score\na,1,0.1\na,2,0.3\na,all,0.2\nb,1,0.3\nb,2,0.5\nb,all,0.4\n", 4, "all"),  # trec_eval -q
])
def test_summary_rows_and_columns_are_not_read_as_topics_or_systems(tmp_path, text, line, label):
    with pytest.raises(ValueError, match=rf"bad\.csv, line {line}: a (topic|system) labelled '{label}', which "
                                         "names a summary"):
        read_scores(_write(tmp_path, text))


def test_per_run_means_of_gtheory_evaluate_are_not_a_score_matrix(tmp_path):
    # the --means CSV (system,num_q,<measure>) was read as a 2-topic matrix whose topics were the count and the mean
    p = _write(tmp_path, "system,num_q,nDCG@10\nsys0,8,0.56\nsys1,8,0.63\nsys2,8,0.54\n")
    with pytest.raises(ValueError, match=r"line 1: a topic labelled 'num_q': this is a table of per-run means"):
        read_scores(p)


def test_a_repeated_row_label_names_both_lines_and_the_long_layout(tmp_path):
    p = _write(tmp_path, "runid,qid,ndcg\na,1,0.1\na,2,0.2\nb,1,0.3\nb,2,0.4\n")
    with pytest.raises(ValueError, match=r"line 3: row label 'a' appears more than once \(first on line 2\)\. "
                                         r".*name its score column 'score'"):
        read_scores(p)
    fixed = _write(tmp_path, "runid,qid,score\na,1,0.1\na,2,0.2\nb,1,0.3\nb,2,0.4\n")
    assert read_scores(fixed).to_numpy().tolist() == [[0.1, 0.2], [0.3, 0.4]]


def test_same_measure_reads_another_spelling_of_a_files_measure(tmp_path):
    """With ``same_measure``, a measure the file spells otherwise is found (long and wide files), after the exact
    and the case-insensitive matches; two names it accepts are refused as ambiguous; without it, the file's names
    only."""
    long = tmp_path / "long.csv"
    long.write_text("system,topic,measure,score\n" + "".join(
        f"s{i},t{j},{m},{(i + 1) * (j + 2) / 10 + k}\n" for k, m in enumerate(("AP", "nDCG@10"))
        for i in range(3) for j in range(4)))
    wide = tmp_path / "wide.csv"
    wide.write_text("system," + ",".join(f"{m}:t{j}" for m in ("AP", "nDCG@10") for j in range(4)) + "\n" + "".join(
        f"s{i}," + ",".join(str((i + 1) * (j + 2) / 10 + k) for k in range(2) for j in range(4)) + "\n"
        for i in range(3)))
    aliases = {"map": "AP", "ndcg_cut_10": "nDCG@10"}

    def same(wanted: str, name: str) -> bool:
        return aliases.get(wanted) == name

    for path in (long, wide):
        for wanted, name in aliases.items():
            got = read_scores(path, measure=wanted, same_measure=same)
            pd.testing.assert_frame_equal(got, read_scores(path, measure=name))
            assert got.attrs["measure"] == name
            with pytest.raises(ValueError, match=f"no measure '{wanted}'"):
                read_scores(path, measure=wanted)
        with pytest.raises(ValueError, match="is 2 of the file's measures"):
            read_scores(path, measure="x", same_measure=lambda w, n: True)
        assert read_scores(path, measure="ap", same_measure=lambda w, n: False).attrs["measure"] == "AP"  # case first
