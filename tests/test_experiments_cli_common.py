"""The CLI's shared behaviour (experiments/cli/__init__.py, _common.py): the data options on every subcommand
that reads runs, subcommand usage on an unknown option, errors in the user's terms, and --json of evaluate."""
from __future__ import annotations

import json

import numpy as np
import pytest

import metrics
import optimize
from experiments.cli import SUBCOMMANDS, build_parser, main


@pytest.fixture(scope="module")
def subset(tmp_path_factory) -> str:
    """10 systems x 12 topics of TREC-9 saved as a tensor for --judged."""
    path = tmp_path_factory.mktemp("common") / "subset.npz"
    metrics.load_trec9().subset(systems=np.arange(0, 100, 10), topics=np.arange(12)).save(path)
    return str(path)


@pytest.mark.parametrize("command", ["evaluate", "gstudy", "tune", "check", "robustness", "report", "sweep"])
def test_every_data_subcommand_has_the_shared_data_options(command):
    parser = build_parser()
    sub = next(a for a in parser._subparsers._group_actions if a.dest == "command").choices[command]
    options = {o for a in sub._actions for o in a.option_strings}
    assert {"--runs", "--qrels", "--judged", "--depth", "--missing"} <= options


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_unknown_option_prints_the_subcommands_usage(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([command, "--no-such-option"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: gtheory {command}") and "unrecognized arguments: --no-such-option" in err


def test_tune_reads_judged_tensor(subset, capsys):
    assert main(["tune", "--judged", subset, "--cutoff", "5", "--starts", "1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    ref = optimize.optimize_discount(metrics.JudgedRuns.load(subset), "linear", 5, starts=1)
    np.testing.assert_allclose(d["discount"], ref.discount, atol=1e-12)


def test_one_system_is_refused_in_the_users_terms(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    one = tmp_path / "one.npz"
    metrics.load_trec9().subset(systems=[3], topics=np.arange(5)).save(one)
    for argv in (["tune", "--cutoff", "5"], ["gstudy"], ["check", "--cutoff", "5"], ["report", "--quick"]):
        assert main([*argv, "--judged", str(one)]) == 2
        err = capsys.readouterr().err
        assert "the data has only 1 system; at least 2 are needed" in err and "`" not in err, (argv, err)


def test_evaluate_json_records(subset, capsys):
    assert main(["evaluate", "--judged", subset, "--measure", "AP", "--measure", "nDCG@10", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    j = metrics.JudgedRuns.load(subset)
    assert len(records) == 2 * j.n_systems * j.n_topics
    assert set(records[0]) == {"system", "topic", "measure", "score"}
    ap = metrics.evaluate(j, "AP")
    r = next(r for r in records if r["measure"] == "AP")
    assert r["score"] == ap.loc[r["system"], r["topic"]]
    assert main(["evaluate", "--judged", subset, "--measure", "AP", "--format", "wide", "--json"]) == 0
    wide = json.loads(capsys.readouterr().out)
    assert len(wide) == j.n_systems and wide[0]["system"] == j.systems[0] and len(wide[0]) == 1 + j.n_topics
