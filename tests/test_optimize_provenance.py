"""Tuning provenance: the JSON records the package version, the measure, the cut-off and the fingerprint of the
judged tensor it was tuned on; applying it to other data warns DataMismatchWarning; a document with null provenance loads."""
from __future__ import annotations

import json
import warnings
from importlib.metadata import version

import pytest

import metrics
import optimize
from optimize import DataMismatchWarning


@pytest.fixture(scope="module")
def small(embedded_trec9):
    j = embedded_trec9
    return j.subset(systems=list(range(0, 104, 4)), topics=list(range(30)))


@pytest.fixture(scope="module")
def tuning(small):
    return optimize.optimize_discount(small, gain="linear", cutoff=10, starts=1, seed=0)


def test_json_records_version_measure_cutoff_and_fingerprint(small, tuning):
    d = json.loads(tuning.to_json())
    assert d["version"] == version("gtheory")
    assert d["measure"] == "nDCG@10" and d["cutoff"] == 10
    assert d["fingerprint"] == small.fingerprint and d["fingerprint"].startswith("jr1:") and len(d["fingerprint"]) == 36
    back = optimize.Tuning.from_json(tuning.to_json())
    assert (back.version, back.measure, back.fingerprint) == (d["version"], "nDCG@10", small.fingerprint)


def test_fingerprint_is_stable_and_sensitive(small, tmp_path):
    small.save(tmp_path / "s.npz")
    assert metrics.JudgedRuns.load(tmp_path / "s.npz").fingerprint == small.fingerprint
    assert small.subset(topics=list(range(29))).fingerprint != small.fingerprint
    keep = [True] * small.qrels_level.size
    keep[0] = False
    import numpy as np

    assert small.restrict_judgments(np.array(keep)).fingerprint != small.fingerprint


def test_applying_to_other_data_warns_and_to_the_same_data_does_not(small, tuning, tmp_path):
    back = optimize.Tuning.from_json(tuning.to_json())
    small.save(tmp_path / "s.npz")
    same = metrics.JudgedRuns.load(tmp_path / "s.npz")
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataMismatchWarning)
        tuning.ndcg(small)
        back.ndcg(same)  # equal data, another object: no warning
        tuning.gstudy  # noqa: B018 - the tuning data itself
    other = small.subset(topics=list(range(20)))
    with pytest.warns(DataMismatchWarning, match=r"was tuned on other data \(fingerprint jr1:[0-9a-f]{32}, 26 systems "
                                                 r"x 30 topics\) than the judged runs it is applied to"):
        back.evaluate(other)


def test_documents_with_null_provenance_load_and_do_not_warn(small, tuning):
    d = json.loads(tuning.to_json())
    for k in ("version", "measure", "fingerprint"):
        d[k] = None  # a Tuning not made from data
    old = optimize.Tuning.from_json(json.dumps(d))
    assert old.version is None and old.fingerprint is None and old.measure is None
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataMismatchWarning)
        old.ndcg(small.subset(topics=list(range(10))))
    d["fingerprint"] = 12
    with pytest.raises(ValueError, match="field 'fingerprint' must be a string or null; got 12"):
        optimize.Tuning.from_json(json.dumps(d))
    del d["fingerprint"]  # every document the package writes has the three keys
    with pytest.raises(ValueError, match="missing field\\(s\\) 'fingerprint'"):
        optimize.Tuning.from_json(json.dumps(d))


@pytest.mark.filterwarnings("always::optimize.DataMismatchWarning")  # the point of this test (silenced elsewhere)
def test_cli_evaluate_with_a_tuning_of_other_data_says_so(small, tuning, tmp_path, capsys):
    from experiments.cli import main

    tuning.to_json(str(tmp_path / "t.json"))
    small.save(tmp_path / "same.npz")
    small.subset(topics=list(range(10))).save(tmp_path / "other.npz")
    assert main(["evaluate", "--tuning", str(tmp_path / "t.json"), "--judged", str(tmp_path / "same.npz")]) == 0
    assert capsys.readouterr().err == ""
    assert main(["evaluate", "--tuning", str(tmp_path / "t.json"), "--judged", str(tmp_path / "other.npz")]) == 0
    err = capsys.readouterr().err
    assert err.startswith("gtheory evaluate: warning: the tuned discount of nDCG@10") and "tuned on other data" in err
