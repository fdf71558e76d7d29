"""Hostile inputs to the readers (issue 20): family parameters, odd topic ids, trec_eval's atol grades, NUL bytes,
UTF-16 files, dangling links, damaged saved tensors and JSON, ``judge(None, ...)``.

Each regression test fails on the code before the fix (a silent wrong number or a traceback) and passes now; the
property tests check that valid files round-trip and that random hostile bytes give only the documented errors.
"""
from __future__ import annotations

import io
import math
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metrics
from experiments.cli import main
from metrics import TrecFormatError
from metrics.io.trec_lines import natural_topic_order

RUN_A = b"1 Q0 d1 1 3.0 a\n1 Q0 d2 2 2.0 a\n2 Q0 d3 1 1.0 a\n2 Q0 d1 2 0.5 a\n"
RUN_B = b"1 Q0 d2 1 3.0 b\n1 Q0 d1 2 2.0 b\n2 Q0 d1 1 1.0 b\n2 Q0 d3 2 0.5 b\n"
QRELS = b"1 0 d1 2\n1 0 d2 1\n2 0 d3 1\n2 0 d1 0\n"


@pytest.fixture
def data(tmp_path: Path) -> tuple[Path, Path]:
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.txt").write_bytes(RUN_A)
    (runs / "b.txt").write_bytes(RUN_B)
    (tmp_path / "qrels.txt").write_bytes(QRELS)
    return runs, tmp_path / "qrels.txt"


def cli(capsys, *argv: str) -> tuple[int, str]:
    """Exit code and stderr of the ``gtheory`` command line run in this process."""
    code = main(list(argv))
    return code, capsys.readouterr().err


def one_clear_line(code: int, err: str) -> str:
    """A usage error: exit 2, one line, no traceback and no 'internal error'."""
    assert code == 2, err
    lines = [ln for ln in err.strip().splitlines() if "error" in ln]
    assert len(lines) == 1 and "Traceback" not in err and "internal error" not in err, err
    return lines[0]


# ------------------------------------------------------------------------------ item 2: family parameters
BAD_DISCOUNTS = ["linear(k=nan)", "linear(k=inf)", "linear(k=-inf)", "linear(k=0.5)", "jarvelin(b=nan)",
                 "jarvelin(b=inf)", "jarvelin(b=1)", "rbp(p=nan)", "rbp(p=inf)", "rbp(p=0)", "rbp(p=1.5)",
                 "linear(nan)", "jarvelin(NaN)"]
BAD_GAINS = ["binary(level=nan)", "binary(level=inf)", "exponential(base=nan)", "exponential(base=inf)",
             "exponential(base=1)", "binary(level=-inf)"]


@pytest.mark.parametrize("spec", BAD_DISCOUNTS)
def test_non_finite_or_out_of_range_discount_parameters_are_refused_naming_the_parameter(spec):
    param = {"linear": "k", "jarvelin": "b", "rbp": "p"}[spec.split("(")[0]]
    with pytest.raises(ValueError, match=f"`{param}`") as e:
        metrics.discount_vector(spec, 10)
    assert e.value.param == param  # the CLI names its option from this, not from the wording


@pytest.mark.parametrize("spec", BAD_GAINS)
def test_non_finite_or_out_of_range_gain_parameters_are_refused_naming_the_parameter(spec):
    param = {"binary": "level", "exponential": "base"}[spec.split("(")[0]]
    with pytest.raises(ValueError, match=f"`{param}`") as e:
        metrics.gain_vector(spec, np.array([0.0, 1.0, 2.0]))
    assert e.value.param == param


def test_valid_family_parameters_still_give_their_vectors():
    # the formulas of the module docstrings, at hand-picked points
    assert np.allclose(metrics.discount_vector("linear(k=4)", 5), [1, 0.75, 0.5, 0.25, 0])
    assert np.allclose(metrics.discount_vector("rbp(p=1)", 3), [1, 1, 1])
    assert np.allclose(metrics.discount_vector("jarvelin(b=3)", 4), [1, 1, 1, 1 / math.log(4, 3)])
    assert metrics.gain_vector("binary(level=2)", np.array([0.0, 1.0, 2.0])).tolist() == [0, 0, 1]


@pytest.mark.parametrize("measure", ["RBP(p=1e999)", "nDCG(discount=jarvelin,b=1e999)", "Q(beta=-1e999)",
                                     "P(rel=1e400)@10"])
def test_a_measure_string_with_an_infinite_parameter_is_refused(measure):
    with pytest.raises(ValueError, match="finite"):
        metrics.parse_measure(measure)


def test_gain_and_discount_vectors_with_nan_are_refused():
    with pytest.raises(ValueError, match="`gain`"):
        metrics.gain_vector([0.0, 1.0, float("nan")], np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="`discount`"):
        metrics.discount_vector([1.0, float("inf")], 2)


@pytest.mark.parametrize("option, value", [("--discount", "linear(k=nan)"), ("--discount", "jarvelin(b=nan)"),
                                           ("--discount", "linear(k=inf)"), ("--gain", "binary(level=nan)")])
def test_cli_refuses_non_finite_family_parameters_in_one_line(capsys, data, option, value):
    runs, qrels = data
    line = one_clear_line(*cli(capsys, "evaluate", "--runs", str(runs), "--qrels", str(qrels), option, value,
                               "--quiet"))
    assert f"{option} {value}" in line
    assert capsys.readouterr().out == ""  # no scores were written


# ------------------------------------------------------------------------------ item 4: topic ids
def test_topic_order_never_raises_and_keeps_numeric_order_for_integers():
    assert natural_topic_order(["10", "2", "-1", "1"]) == ["-1", "1", "2", "10"]  # as before
    assert natural_topic_order(["10", "2", "²"]) == sorted(["10", "2", "²"])  # '²'.isdigit() but not int()
    assert natural_topic_order(["--5", "3"]) == ["--5", "3"]
    assert natural_topic_order(["007", "7", "10"]) == ["007", "7", "10"]  # equal values: by their text


@pytest.mark.parametrize("tid", ["²", "--5", "٣", "+-1"])
def test_odd_topic_ids_are_read_and_judged(tmp_path, tid):
    (tmp_path / "r.txt").write_text(f"{tid} Q0 d1 1 1.0 r\n5 Q0 d2 1 1.0 r\n", encoding="utf-8")
    (tmp_path / "q.txt").write_text(f"{tid} 0 d1 1\n5 0 d2 0\n", encoding="utf-8")
    j = metrics.judge([tmp_path / "r.txt"], tmp_path / "q.txt", workers=1, progress=False)
    assert set(j.topics) == {tid, "5"}
    ap = metrics.evaluate(j, "AP")
    assert float(ap.loc["r", tid]) == 1.0 and float(ap.loc["r", "5"]) == 0.0


def test_a_cutoff_that_only_looks_like_digits_is_a_measure_error():
    with pytest.raises(metrics.measures.registry.MeasureError):
        metrics.parse_measure("nDCG@²")


# ------------------------------------------------------------------------------ item 5: trec_eval's atol
@pytest.mark.parametrize("text, value", [("1e1", 1), ("2.5e1", 2), (" 3x", 3), ("+7", 7), ("-1.9", -1), (".5", 0),
                                         ("-0.5", 0), ("", 0), ("x1", 0), ("1E-1", 1), ("\t-2e3", -2),
                                         ("99999999999999999999", 2**63 - 1), ("-99999999999999999999", -(2**63))])
def test_c_atol_reads_as_glibc_atol(text, value):
    # the C standard: skip isspace, optional sign, decimal digits up to the first other character; glibc's strtol
    # clamps to LONG_MIN/LONG_MAX (LP64)
    from metrics.io._grades import c_atol

    assert c_atol(text) == value


def test_grades_trec_eval_reads_exponent_grades_with_atol(tmp_path):
    (tmp_path / "r.txt").write_bytes(b"1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n1 Q0 d3 3 1 r\n")
    (tmp_path / "q.txt").write_bytes(b"1 0 d1 1e1\n1 0 d2 2.5e1\n1 0 d3 3\n")
    te = metrics.judge([tmp_path / "r.txt"], tmp_path / "q.txt", grades="trec_eval", workers=1, progress=False)
    assert te.levels.tolist() == [1.0, 2.0, 3.0]  # atol: 1e1 -> 1, 2.5e1 -> 2 (not 10 and 25)
    with pytest.warns(metrics.FractionalGradeWarning, match="exponent"):
        exact = metrics.judge([tmp_path / "r.txt"], tmp_path / "q.txt", workers=1, progress=False)
    assert exact.levels.tolist() == [3.0, 10.0, 25.0]
    # nDCG@3 with linear gains under trec_eval's reading: gains 1, 2, 3 at ranks 1..3 against the ideal 3, 2, 1
    d = 1 / np.log2(np.arange(2, 5))
    want = (np.array([1, 2, 3]) @ d) / (np.array([3, 2, 1]) @ d)
    assert float(np.asarray(metrics.ndcg(te, cutoff=3))[0, 0]) == pytest.approx(want, rel=1e-12)


def test_grades_trec_eval_atol_on_the_string_reader_path(tmp_path):
    # a control byte sends the file to the string reader: the same atol reading there
    (tmp_path / "q.txt").write_bytes(b"1 0 d1\x1c 1e1\n1 0 d2 2.5e1\n")
    q = metrics.read_qrels(tmp_path / "q.txt")
    assert q.grade.tolist() == [10.0, 25.0] and q.grade_atol.tolist() == [1.0, 2.0]


# ------------------------------------------------------------------------------ items 9, 11: NUL, UTF-16
def test_nul_byte_in_a_docno_is_an_error_naming_file_line_and_byte(tmp_path):
    (tmp_path / "r.txt").write_bytes(b"1 Q0 d1 1 2 r\n1 Q0 d\x002 2 1 r\n")
    with pytest.raises(TrecFormatError) as e:
        metrics.read_run(tmp_path / "r.txt")
    assert e.value.line == 2 and "byte offset 20" in str(e.value) and e.value.path == str(tmp_path / "r.txt")


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("reader", ["qrels", "run"])
def test_utf16_files_say_convert_to_utf8(tmp_path, encoding, reader):
    text = "1 0 d1 1\n1 0 d2 0\n" if reader == "qrels" else "1 Q0 d1 1 2 r\n1 Q0 d2 2 1 r\n"
    f = tmp_path / "f.txt"
    f.write_bytes(text.encode(encoding))
    with pytest.raises(TrecFormatError, match="UTF-16: convert to UTF-8") as e:
        (metrics.read_qrels if reader == "qrels" else metrics.read_run)(f)
    assert e.value.path == str(f)


def test_utf16_score_csv_and_json_say_convert_to_utf8(tmp_path):
    import gtheory
    import optimize

    (tmp_path / "s.csv").write_bytes("topic,a,b\n1,0.1,0.2\n2,0.3,0.5\n".encode("utf-16-le"))
    with pytest.raises(ValueError, match="UTF-16: convert to UTF-8"):
        gtheory.read_scores(tmp_path / "s.csv")
    (tmp_path / "t.json").write_bytes('{"format": "gtheory.optimize.Tuning/1"}'.encode("utf-16"))
    with pytest.raises(ValueError, match="UTF-16: convert to UTF-8"):
        optimize.Tuning.from_json(tmp_path / "t.json")


# ------------------------------------------------------------------------------ item 6: dangling links
@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")
def test_a_dangling_link_in_a_run_directory_is_an_error_as_the_file_named_explicitly(data, capsys):
    runs, qrels = data
    (runs / "c.txt").symlink_to(runs.parent / "gone.txt")
    with pytest.raises(FileNotFoundError, match="dangling symbolic link.*c.txt"):
        metrics.read_runs(runs)
    with pytest.raises(FileNotFoundError, match="dangling"):
        metrics.judge(runs, qrels, workers=1, progress=False)
    with pytest.raises(FileNotFoundError, match="dangling"):
        metrics.read_run(runs / "c.txt")
    assert "c.txt" in one_clear_line(*cli(capsys, "evaluate", "--runs", str(runs), "--qrels", str(qrels)))


# ------------------------------------------------------------------------------ item 7: damaged files
def _saved(tmp_path: Path) -> tuple[metrics.JudgedRuns, bytes]:
    j = metrics.judge(RUNS_IN_MEMORY, QRELS_IN_MEMORY, progress=False)
    j.save(tmp_path / "ok.npz")
    return j, (tmp_path / "ok.npz").read_bytes()


RUNS_IN_MEMORY = {"a": {"1": {"d1": 3.0, "d2": 2.0}, "2": {"d3": 1.0, "d1": 0.5}},
                  "b": {"1": {"d2": 3.0, "d1": 2.0}, "2": {"d1": 1.0, "d3": 0.5}}}
QRELS_IN_MEMORY = {"1": {"d1": 2, "d2": 1}, "2": {"d3": 1, "d1": 0}}


def _rewrite(raw: bytes, **change) -> bytes:
    z = dict(np.load(io.BytesIO(raw)))
    for k, v in change.items():
        if v is None:
            del z[k]
        else:
            z[k] = v(z[k]) if callable(v) else v
    buf = io.BytesIO()
    np.savez_compressed(buf, **z)
    return buf.getvalue()


def _flip_in(raw: bytes, member: str) -> bytes:
    """``raw`` with one byte of ``member``'s compressed data inverted (its CRC no longer matches)."""
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        info = z.getinfo(member)
    local_extra = int.from_bytes(raw[info.header_offset + 28: info.header_offset + 30], "little")
    at = info.header_offset + 30 + len(info.filename.encode()) + local_extra + info.compress_size // 2
    return raw[:at] + bytes([raw[at] ^ 0xFF]) + raw[at + 1:]


def _damaged(raw: bytes) -> dict[str, bytes]:
    def code(g):
        g = g.copy()
        g[0, 0, 0] = 7
        return g

    return {
        "truncated half": raw[: len(raw) // 2],
        "truncated tail": raw[:-5],
        "empty": b"",
        "garbage": os.urandom(300),
        "zip magic then garbage": b"PK\x03\x04" + b"\x00" * 100,
        "a bit flipped": _flip_in(raw, "grades.npy"),
        "grade code beyond levels": _rewrite(raw, grades=code),
        "float grades": _rewrite(raw, grades=lambda g: g.astype(float)),
        "missing levels": _rewrite(raw, levels=None),
        "missing judged_ids": _rewrite(raw, judged_ids=None),
        "missing missing": _rewrite(raw, missing=None),
        "nan in levels": _rewrite(raw, levels=lambda lv: np.where(lv == lv.max(), np.nan, lv)),
        "levels not ascending": _rewrite(raw, levels=lambda lv: lv[::-1].copy()),
        "2-D grades": _rewrite(raw, grades=lambda g: g[0]),
        "ids out of range": _rewrite(raw, judged_ids=lambda i: i + 100),
        "too few ids": _rewrite(raw, judged_ids=lambda i: i[:-1]),
        "offsets wrong": _rewrite(raw, qrels_offsets=lambda o: o[::-1].copy()),
        "qrels_level out of range": _rewrite(raw, qrels_level=lambda q: q + 50),
        "grades disagree with qrels": _rewrite(raw, qrels_level=lambda q: (q + 1) % 3),
        "systems as numbers": _rewrite(raw, systems=lambda s: np.arange(s.size)),
        "topics wrong count": _rewrite(raw, topics=lambda t: t[:1]),
        "n_retrieved negative": _rewrite(raw, n_retrieved=lambda n: -n - 1),
        "missing bad": _rewrite(raw, missing=np.array("maybe")),
        "doc_id_dtype float": _rewrite(raw, doc_id_dtype=np.array("<f8")),
        "doc_id_dtype junk": _rewrite(raw, doc_id_dtype=np.array("not a dtype")),
        "object array": _rewrite(raw, systems=lambda s: s.astype(object)),
        "format version 9": _rewrite(raw, format_version=np.array(9)),
        "text qrels": QRELS,
    }


def test_every_damaged_saved_tensor_is_one_error_naming_the_file(tmp_path):
    _, raw = _saved(tmp_path)
    for label, blob in _damaged(raw).items():
        f = tmp_path / "bad.npz"
        f.write_bytes(blob)
        with pytest.raises(ValueError) as e:  # FixableError: never BadZipFile, IndexError, KeyError, ...
            metrics.JudgedRuns.load(f)
        assert type(e.value) is metrics.FixableError and str(f) in str(e.value), label


def test_a_valid_saved_tensor_still_loads_identically(tmp_path):
    j, _ = _saved(tmp_path)
    for name in ("ok.npz", "ok.npz.xz"):
        j.save(tmp_path / name)
        back = metrics.JudgedRuns.load(tmp_path / name)
        assert back.fingerprint == j.fingerprint and (back.doc_ids == j.doc_ids).all()


def test_cli_judged_damaged_is_exit_2_and_a_text_file_suggests_qrels(tmp_path, capsys):
    _, raw = _saved(tmp_path)
    for label, blob in _damaged(raw).items():
        f = tmp_path / "bad.npz"
        f.write_bytes(blob)
        line = one_clear_line(*cli(capsys, "gstudy", "--judged", str(f)))
        assert "bad.npz" in line, label
    (tmp_path / "qrels.txt").write_bytes(QRELS)
    line = one_clear_line(*cli(capsys, "gstudy", "--judged", str(tmp_path / "qrels.txt")))
    assert "not a saved JudgedRuns" in line and "--qrels" in line and "allow_pickle" not in line


def test_nan_in_a_tensors_levels_is_refused():
    from dataclasses import replace

    j = metrics.judge(RUNS_IN_MEMORY, QRELS_IN_MEMORY, progress=False)
    with pytest.raises(ValueError, match="`levels`"):
        replace(j, levels=np.array([0.0, np.nan, 2.0]))


def test_deeply_nested_json_is_a_clear_error(tmp_path, capsys, data):
    import optimize

    runs, qrels = data
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="nested too deeply"):
        optimize.Tuning.from_json(deep)
    with pytest.raises(ValueError, match="nested too deeply"):
        metrics.read_discount(deep)
    for option in ("--tuning", "--discount"):
        line = one_clear_line(*cli(capsys, "evaluate", "--runs", str(runs), "--qrels", str(qrels), option,
                                   str(deep), "--quiet"))
        assert "nested too deeply" in line


@pytest.mark.parametrize("runs, qrels, name", [(None, QRELS_IN_MEMORY, "runs"), (RUNS_IN_MEMORY, None, "qrels"),
                                               (3, QRELS_IN_MEMORY, "runs")])
def test_judge_names_a_missing_argument(runs, qrels, name):
    with pytest.raises(TypeError, match=f"`{name}`"):
        metrics.judge(runs, qrels, progress=False)


# ------------------------------------------------------------------------------ properties of the readers
_TOKEN = st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=0x2FFF,
                                        blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")), min_size=1, max_size=12)
_GRADE = st.one_of(st.integers(-3, 5).map(float), st.floats(-3, 5, allow_nan=False).map(lambda x: round(x, 3)))
_SCORE = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
_PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@_PROPS
@given(rows=st.dictionaries(st.tuples(_TOKEN, _TOKEN), _GRADE, min_size=1, max_size=30))
def test_property_valid_qrels_round_trip(tmp_path, rows):
    f = tmp_path / "q.txt"
    f.write_text("".join(f"{t} 0 {d} {g!r}\n" for (t, d), g in rows.items()), encoding="utf-8")
    q = metrics.read_qrels(f)
    got = {(t, d): g for t, d, g in zip(q.topic, q.docno, q.grade)}
    assert got == rows  # every judgment, its exact grade, nothing else
    assert q.topics == natural_topic_order(t for t, _ in rows)


@_PROPS
@given(rows=st.dictionaries(st.tuples(_TOKEN, _TOKEN), _SCORE, min_size=1, max_size=30))
def test_property_valid_runs_round_trip_in_trec_eval_order(tmp_path, rows):
    f = tmp_path / "r.txt"
    f.write_text("".join(f"{t} Q0 {d} 1 {s!r} tag\n" for (t, d), s in rows.items()), encoding="utf-8")
    r = metrics.read_run(f)
    assert {(t, d): s for t, d, s in zip(r.topic, r.docno, r.score)} == rows
    for t in set(r.topic):  # within a topic: float32 score descending, ties by docno descending (bytes)
        keys = [(-np.float32(s), tuple(-b for b in d.encode())) for tt, d, s in zip(r.topic, r.docno, r.score)
                if tt == t]
        assert keys == sorted(keys)


_DOCUMENTED = (TrecFormatError, metrics.InputMismatchError, FileNotFoundError)


@_PROPS
@given(blob=st.binary(max_size=400), which=st.sampled_from(["qrels", "run"]))
def test_property_hostile_bytes_give_only_documented_errors(tmp_path, blob, which):
    f = tmp_path / "f.txt"
    f.write_bytes(blob)
    try:
        (metrics.read_qrels if which == "qrels" else metrics.read_run)(f)
    except _DOCUMENTED as e:
        assert str(f) in str(e)


@_PROPS
@given(text=st.text(alphabet="0123456789 \t\n-+.eE\x00\x1c\xa0²Q0dx#", max_size=200),
       encoding=st.sampled_from(["utf-8", "utf-16", "utf-16-le", "latin-1"]))
def test_property_hostile_text_judges_or_errors_clearly(tmp_path, text, encoding):
    q = tmp_path / "q.txt"
    r = tmp_path / "r.txt"
    try:
        raw = text.encode(encoding)
    except UnicodeEncodeError:
        return
    q.write_bytes(raw)
    r.write_bytes(raw)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # documented warnings (coverage, fractional grades) may fire
        try:
            j = metrics.judge([r], q, workers=1, progress=False)
        except _DOCUMENTED:
            return
    assert np.isfinite(j.levels).all()


@_PROPS
@given(blob=st.binary(max_size=300))
def test_property_hostile_bytes_never_load_as_a_tensor(tmp_path, blob):
    f = tmp_path / "t.npz"
    f.write_bytes(blob)
    with pytest.raises(metrics.FixableError):
        metrics.JudgedRuns.load(f)


@_PROPS
@given(spec=st.from_regex(r"(linear|jarvelin|rbp|log2|zipf|none)\((k|b|p)?=?[-+]?(nan|inf|[0-9.e+-]{1,6})\)",
                          fullmatch=True))
def test_property_discount_specs_give_finite_weights_or_a_value_error(spec):
    try:
        d = metrics.discount_vector(spec, 20, cutoff=10)
    except ValueError:
        return
    assert np.isfinite(d).all() and d.max() > 0
