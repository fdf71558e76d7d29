"""A battery of hostile inputs through the ``gtheory`` command line (issue 20): corrupted run and qrels files,
hostile family and measure strings, damaged tuning JSON. Every case ends in exit 0 with finite scores in [0, 1]
or in exit 2 with one error line — never a traceback, an 'internal error' or a NaN written as a score."""
from __future__ import annotations

import csv
import io
import json
import math

import pytest

from experiments.cli import main

RUN = b"".join(f"{t} Q0 d{d} {r} {10 - r}.5 sys\n".encode() for t in (401, 402, 403) for r, d in
               enumerate((3, 1, 4, 5, 9, 2), 1))
QRELS = b"".join(f"{t} 0 d{d} {g}\n".encode() for t in (401, 402, 403) for d, g in
                 ((1, 1), (2, 0), (3, 2), (4, 1), (9, 0)))

_MUTATIONS = {
    "truncate": lambda b, i: b[:i],
    "nul": lambda b, i: b[:i] + b"\x00" + b[i:],
    "ff": lambda b, i: b[:i] + b"\xff" + b[i:],
    "nbsp": lambda b, i: b[:i] + "\u00a0".encode() + b[i:],
    "superscript": lambda b, i: b[:i] + "²".encode() + b[i:],
    "unit-separator": lambda b, i: b[:i] + b"\x1f" + b[i:],
    "nan": lambda b, i: b[:i] + b"nan" + b[i:],
    "inf": lambda b, i: b[:i] + b"inf" + b[i:],
    "exponent": lambda b, i: b[:i] + b"e9" + b[i:],
    "dashes": lambda b, i: b[:i] + b"--" + b[i:],
    "newline": lambda b, i: b[:i] + b"\n" + b[i:],
    "cr": lambda b, i: b[:i] + b"\r" + b[i:],
    "token": lambda b, i: b[:i] + b" x" + b[i:],
    "join": lambda b, i: b.replace(b"\n", b" ", 1),
    "repeat": lambda b, i: b + b.split(b"\n")[min(i % 5, 3)] + b"\n",
    "utf16": lambda b, i: b.decode().encode("utf-16"),
    "utf16le": lambda b, i: b.decode().encode("utf-16-le"),
    "bom": lambda b, i: b"\xef\xbb\xbf" + b,
    "huge-number": lambda b, i: b[:i] + b"9" * 400 + b[i:],
}
_FILE_CASES = [(target, kind, frac) for target in ("run", "qrels") for kind in _MUTATIONS
               for frac in (0.1, 0.6)]


_last_out = [""]


def _run_cli(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    _last_out[0] = out
    assert "Traceback" not in err and "internal error" not in err, err
    assert code in (0, 2), (code, err)
    if code == 2:
        assert len([ln for ln in err.splitlines() if ": error: " in ln]) == 1, err
        assert out == "", out
    else:
        for row in csv.DictReader(io.StringIO(out)):
            x = float(row["score"])
            assert math.isfinite(x) and 0 <= x <= 1, row
    return code, err


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("target, kind, frac", _FILE_CASES)
def test_corrupted_files_exit_0_with_finite_scores_or_2_with_one_line(tmp_path, capsys, target, kind, frac):
    run, qrels = RUN, QRELS
    data = run if target == "run" else qrels
    bad = _MUTATIONS[kind](data, int(frac * len(data)))
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "sys.txt").write_bytes(bad if target == "run" else run)
    (tmp_path / "runs" / "other.txt").write_bytes(run.replace(b" sys\n", b" other\n"))
    (tmp_path / "q.txt").write_bytes(bad if target == "qrels" else qrels)
    code, err = _run_cli(capsys, ["evaluate", "--per-topic", "--runs", str(tmp_path / "runs"), "--qrels", str(tmp_path / "q.txt"),
                                  "--measure", "nDCG@5", "--measure", "AP", "--quiet"])
    if kind in _ALWAYS_REFUSED:  # corruption the documentation promises to refuse, naming the file
        assert code == 2 and ("sys.txt" in err if target == "run" else "q.txt" in err), err
        assert _ALWAYS_REFUSED[kind] in err, err


#: mutations that are refused wherever they fall, and a word of their message
_ALWAYS_REFUSED = {"nul": "NUL byte", "utf16": "UTF-16: convert to UTF-8", "utf16le": "UTF-16: convert to UTF-8",
                   "ff": "UTF-8"}


_SPECS = [("--discount", d) for d in (
    "linear(k=nan)", "linear(k=inf)", "linear(k=-1)", "linear(k=0)", "linear(k=1e308)", "linear(k=1e999)",
    "jarvelin(b=nan)", "jarvelin(b=inf)", "jarvelin(b=1)", "jarvelin(b=1.0000001)", "jarvelin(b=-2)",
    "rbp(p=nan)", "rbp(p=0)", "rbp(p=1)", "rbp(p=1e-300)", "rbp(p=-0.5)", "rbp(p=0x1p-3)", "rbp(p=)", "rbp(=)",
    "rbp(p=0.5, p=0.6)", "rbp(q=0.5)", "log2(1)", "zipf()", "none", "NONE", "linear", "linear(k=3)", "(", "",
    "rbp(p=1_0)", "rbp(p=٠.٥)", "rbp(p=0.5", "jarvelin(b=²)")] + [("--gain", g) for g in (
    "binary(level=nan)", "binary(level=inf)", "binary(level=-inf)", "binary(level=1e999)", "binary(level=2)",
    "exponential(base=nan)", "exponential(base=1)", "exponential(base=1e308)", "exponential(base=1.0000001)",
    "linear(1)", "binary(level=)", "exponential(base=inf)")] + [("--measure", m) for m in (
    "RBP(p=1e999)", "RBP(p=nan)", "RBP(p=2)", "nDCG(discount=jarvelin,b=1e999)@5", "nDCG(discount=rbp,p=0)@5",
    "Q(beta=-1e999)", "P(rel=1e400)@5", "P@²", "P@--5", "nDCG@0", "nDCG@1e3", "ERR(max_grade=1e999)@5",
    "ERR(max_grade=0)@5", "RBP(p=0.8,rel=nan)", "AP@99999999999999999999")]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("option, value", _SPECS)
def test_hostile_family_and_measure_strings(tmp_path, capsys, option, value):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "a.txt").write_bytes(RUN)
    (tmp_path / "runs" / "b.txt").write_bytes(RUN.replace(b"d9", b"d2x"))
    (tmp_path / "q.txt").write_bytes(QRELS)
    argv = ["evaluate", "--per-topic", "--runs", str(tmp_path / "runs"), "--qrels", str(tmp_path / "q.txt"), option, value,
            "--quiet"]
    if option != "--measure":
        argv += ["--measure", "nDCG@5"]
    code, err = _run_cli(capsys, argv)
    if code == 0 and option != "--measure":
        # both runs rank relevant documents first on every topic: any valid gain and discount gives some nDCG > 0
        # (all zeros is the silent wrong number of a NaN parameter)
        assert any(float(r["score"]) > 0 for r in csv.DictReader(io.StringIO(_last_out[0]))), (option, value)


_JSON = {
    "deep array": "[" * 100_000 + "]" * 100_000,
    "deep object": '{"a":' * 50_000 + "1" + "}" * 50_000,
    "deep inside": '{"format": "gtheory.optimize.Tuning/1", "discount": ' + "[" * 900 + "]" * 900 + "}",
    "NaN literal": '{"format": "gtheory.optimize.Tuning/1", "discount": [NaN, 1]}',
    "huge number": '{"format": "gtheory.optimize.Tuning/1", "discount": [1e999]}',
    "empty": "",
    "array": "[1, 2, 3]",
    "string": '"x"',
    "wrong format": '{"format": "other"}',
    "utf16": None,
    "binary": None,
    "truncated": '{"format": "gtheory.optimize.Tuning/1", "disc',
}


@pytest.mark.parametrize("label", list(_JSON))
@pytest.mark.parametrize("option", ["--tuning", "--discount"])
def test_hostile_json_files(tmp_path, capsys, label, option):
    f = tmp_path / "t.json"
    if label == "utf16":
        f.write_bytes(json.dumps({"format": "gtheory.optimize.Tuning/1"}).encode("utf-16"))
    elif label == "binary":
        f.write_bytes(bytes(range(256)))
    else:
        f.write_text(_JSON[label])
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "a.txt").write_bytes(RUN)
    (tmp_path / "q.txt").write_bytes(QRELS)
    code, err = _run_cli(capsys, ["evaluate", "--per-topic", "--runs", str(tmp_path / "runs"), "--qrels", str(tmp_path / "q.txt"),
                                  option, str(f), "--quiet"])
    assert code == 2
