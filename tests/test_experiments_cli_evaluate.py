"""Tests of the ``gtheory evaluate`` subcommand (experiments/cli/evaluate.py)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import toy_runs
from experiments.cli import main


# ---- --measure: the new measures, trec_eval and ir_measures spellings
def test_evaluate_accepts_new_measures_and_trec_eval_spellings(tmp_path, capsys):
    import pandas as pd

    import metrics

    runs, qrels = toy_runs(tmp_path)
    names = ["R@5", "recall.10", "Success@1", "success.5", "ERR@20", "Judged@10", "NumRel", "num_ret",
             "num_rel_ret", "NumRelRet(rel=2)", "ndcg_cut.5", "P.5", "map", "recip_rank"]
    csv = tmp_path / "s.csv"
    flags = [a for m in names for a in ("--measure", m)]
    assert main(["evaluate", "--runs", str(runs), "--qrels", str(qrels), *flags, "--out", str(csv)]) == 0
    long = pd.read_csv(csv, dtype={"topic": str})
    assert list(long["measure"].unique()) == names  # labelled as typed, in the order given
    judged = metrics.judge(str(runs), str(qrels))
    for name in names:
        want = metrics.evaluate(judged, name).stack().rename("score").reset_index()
        got = long[long["measure"] == name].drop(columns="measure").reset_index(drop=True)
        assert np.allclose(got["score"], want["score"], rtol=1e-9, atol=0), name  # CSV keeps 10 digits
    # ndcg_cut.5 is nDCG@5: --gain applies to it
    capsys.readouterr()
    assert main(["evaluate", "--runs", str(runs), "--qrels", str(qrels), "--measure", "ndcg_cut.5", "--gain",
                 "exponential", "--json"]) == 0
    got = [r["score"] for r in json.loads(capsys.readouterr().out)]
    assert np.allclose(got, metrics.ndcg(judged, gain="exponential", cutoff=5).stack().to_numpy())


@pytest.mark.parametrize("args, match", [
    (["--measure", "nDCG@10", "--measure", "ndcg_cut.10"], "--measure ndcg_cut.10 is given twice"),
    (["--measure", "recall"], "measure R needs a cut-off, e.g. R@10"),
    (["--measure", "P.5,10"], "give them one by one: P.5, P.10"),
    (["--measure", "ERR(max_grade=1)@20"], "above `max_grade`=1"),
])
def test_evaluate_measure_errors(tmp_path, capsys, monkeypatch, args, match):
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    runs, qrels = toy_runs(tmp_path)
    assert main(["evaluate", "--runs", str(runs), "--qrels", str(qrels), *args]) == 2
    err = capsys.readouterr().err
    assert match in err and "Traceback" not in err
