"""Fractional grades: kept exactly by default (one FractionalGradeWarning per judge call), or truncated as
trec_eval's ``atol`` does with ``grades="trec_eval"`` — checked against pytrec_eval (trec_eval) on DL 2019 runs with
qrels whose grades 2 and 3 are written 1.9 and 2.5."""
from __future__ import annotations

import ctypes
import ctypes.util
import lzma
import warnings

import numpy as np
import pytest

import metrics
from metrics import FractionalGradeWarning

from conftest import SHARED, run_files

pytrec_eval = pytest.importorskip("pytrec_eval")

#: the C library's atol, which trec_eval applies to the grade text (form_res_rels.c / get_qrels.c)
_libc = ctypes.CDLL(ctypes.util.find_library("c"))
_libc.atol.restype = ctypes.c_long
_libc.atol.argtypes = [ctypes.c_char_p]


@pytest.fixture(scope="module")
def fractional(tmp_path_factory):
    if not SHARED.is_dir():
        pytest.skip("shared data not found")
    files, qrels = run_files("dl19")
    files = files[:3]
    lines = []
    for ln in qrels.read_text().splitlines():
        q, it, d, g = ln.split()
        lines.append(" ".join([q, it, d, {"2": "1.9", "3": "2.5"}.get(g, g)]))
    path = tmp_path_factory.mktemp("grades") / "qrels.fractional.txt"
    path.write_text("\n".join(lines) + "\n")
    # trec_eval's view of that file: each grade through atol (1.9 -> 1, 2.5 -> 2)
    trec_qrels: dict = {}
    for ln in lines:
        q, _, d, g = ln.split()
        trec_qrels.setdefault(q, {})[d] = int(_libc.atol(g.encode()))
    runs = {}
    for f in files:
        with lzma.open(f, "rt") as fh:
            runs[f.name] = pytrec_eval.parse_run(fh)
    return files, path, trec_qrels, runs


def test_atol_truncates_as_assumed():
    assert [_libc.atol(s) for s in (b"1.9", b"2.5", b"-1.5", b"0.7")] == [1, 2, -1, 0]


def test_trec_eval_grades_equal_pytrec_eval_and_exact_grades_differ_with_one_warning(fractional):
    files, path, trec_qrels, runs = fractional
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exact = metrics.judge(files, path)
    frac = [w for w in caught if issubclass(w.category, FractionalGradeWarning)]
    assert len(frac) == 1
    assert "non-integer grade(s), e.g. 1.9 for topic" in str(frac[0].message)
    assert "grades='trec_eval'" in str(frac[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FractionalGradeWarning)
        parity = metrics.judge(files, path, grades="trec_eval")
    np.testing.assert_array_equal(parity.levels, [0, 1, 2])
    np.testing.assert_array_equal(exact.levels, [0, 1, 1.9, 2.5])
    ours = metrics.ndcg(parity, cutoff=10)
    ours_exact = metrics.ndcg(exact, cutoff=10)
    worst = 0.0
    for f, system in zip(files, parity.systems):
        # pytrec_eval.RelevanceEvaluator(trec_qrels, {"ndcg_cut.10"}) = trec_eval -m ndcg_cut.10 on the atol grades
        ref = pytrec_eval.RelevanceEvaluator(trec_qrels, {"ndcg_cut.10"}).evaluate(runs[f.name])
        for topic, m in ref.items():
            assert ours.loc[system, topic] == pytest.approx(m["ndcg_cut_10"], abs=1e-12)
            worst = max(worst, abs(ours_exact.loc[system, topic] - m["ndcg_cut_10"]))
    assert worst > 0.01  # exact grades give other numbers than trec_eval (hence the warning)


def test_grades_option_is_checked_and_integer_grades_are_silent(fractional):
    files, path, _, _ = fractional
    with pytest.raises(ValueError, match=r"`grades` must be one of \('exact', 'trec_eval'\); got 'atol'"):
        metrics.judge(files[:1], path, grades="atol")
    _, qrels = run_files("dl19")
    with warnings.catch_warnings():
        warnings.simplefilter("error", FractionalGradeWarning)
        a = metrics.judge(files[:1], qrels)
        b = metrics.judge(files[:1], qrels, grades="trec_eval")
    assert a.fingerprint == b.fingerprint


def test_cli_grades_option(fractional, capsys):
    from experiments.cli import main

    files, path, _, _ = fractional
    base = ["evaluate", "--runs", str(files[0]), "--qrels", str(path), "--measure", "nDCG@10", "--quiet"]
    assert main(base) == 0
    out = capsys.readouterr()
    assert "gtheory evaluate: warning:" in out.err and "use --grades trec_eval" in out.err
    assert main([*base, "--grades", "trec_eval"]) == 0
    parity = capsys.readouterr()
    assert parity.err == "" and parity.out != out.out


def test_cli_grades_trec_eval_refuses_a_saved_tensor_with_fractional_grades(fractional, tmp_path, capsys):
    from experiments.cli import main

    files, path, _, _ = fractional
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FractionalGradeWarning)
        metrics.judge(files[:1], path).save(tmp_path / "j.npz")
    assert main(["evaluate", "--judged", str(tmp_path / "j.npz"), "--grades", "trec_eval"]) == 2
    assert "--grades trec_eval: the --judged tensor" in capsys.readouterr().err
