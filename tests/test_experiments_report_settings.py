"""Tests of experiments/report/settings.py: the report's settings (checked against the data, read back from a
tables.json, fitted to the run depth) and its title (from the runs' folder, the collection's own name)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from experiments.report import ReportSettings
from experiments.report.settings import _label, default_title


def test_settings_validation(embedded_trec9):
    judged = embedded_trec9
    with pytest.raises(ValueError, match="`n_resamples` must be a positive integer"):
        replace(ReportSettings.quick(), n_resamples=0).validate(judged)
    with pytest.raises(ValueError, match="must not exceed the run depth"):
        ReportSettings.quick(cutoff=2000).validate(judged)


def test_settings_n_resamples_and_the_settings_of_a_tables_json():
    s = ReportSettings.quick(n_resamples=50)
    assert s.n_resamples == 50
    # the settings of a report's tables.json read back
    doc = {k: (list(v) if isinstance(v, tuple) else v) for k, v in s.__dict__.items()}
    assert ReportSettings.from_dict(doc) == s
    with pytest.raises(ValueError, match="unknown field"):
        ReportSettings.from_dict({**doc, "resamples": 3})


def test_settings_fit_the_run_depth():
    s = ReportSettings.default(cutoff=50).fit_depth(60)  # discount 10, 20, 50; gain 3, 10, 20, 50, 100, 200
    assert (s.discount_cutoffs, s.gain_cutoffs, s.joint_cutoffs, s.asl_cutoff) == ((10, 20, 50), (3, 10, 20, 50),
                                                                                   None, 20)
    s = replace(ReportSettings.quick(cutoff=5), asl_cutoff=30, joint_cutoffs=(10,)).fit_depth(5)
    assert (s.discount_cutoffs, s.gain_cutoffs, s.joint_cutoffs, s.asl_cutoff) == ((5,), (5,), (5,), 5)


def test_default_title_from_the_runs_folder(tmp_path):
    coll = tmp_path / "trec-dl-2019-passage" / "runs_judged_full_xz"
    coll.mkdir(parents=True)
    files = [coll / "a.run", coll / "b.run"]
    for f in files:
        f.write_text("")
    assert default_title([coll]) == "trec-dl-2019-passage"  # a generic folder name: its parent's
    assert default_title(files) == "trec-dl-2019-passage"
    own = tmp_path / "robust04"
    own.mkdir()
    assert default_title([own]) == "robust04" and default_title([]) == ""


def test_a_collection_without_a_name_is_not_called_runs(embedded_trec9):
    j = embedded_trec9.subset(topics=list(range(6)))
    j.report.clear()  # what metrics.judge of run files gives: no description, no file it was loaded from
    assert _label(j) == "unnamed collection"
