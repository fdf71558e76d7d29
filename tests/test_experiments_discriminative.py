"""Tests for experiments.discriminative: the module of Sakai's bootstrap test and discriminative power, importable
from experiments; its old keyword ``B`` (now ``n_resamples``) and the old ``DiscriminativePower``
documents. The numbers themselves are checked against per-pair loops in tests/test_experiments_significance.py."""
from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import experiments
from experiments import DiscriminativePower, bootstrap_asl, discriminative_power
from experiments.discriminative import __all__ as DISCRIMINATIVE


def _scores(seed: int = 0) -> np.ndarray:
    # 6 systems with spread-out true means: some pairs significant, some not
    rng = np.random.default_rng(seed)
    return rng.random((6, 30)) * 0.4 + np.linspace(0.3, 0, 6)[:, None]


def test_the_names_are_importable_from_experiments_as_the_same_objects():
    for name in DISCRIMINATIVE:
        assert getattr(experiments, name) is getattr(experiments.discriminative, name)


def test_bootstrap_asl_old_keyword_B_warns_and_gives_the_same_table():
    new = bootstrap_asl(_scores(), n_resamples=300, seed=2)
    with pytest.warns(FutureWarning, match="bootstrap_asl\\(\\): `B` is now called `n_resamples`"):
        old = bootstrap_asl(_scores(), B=300, seed=2)
    pd.testing.assert_frame_equal(old, new)
    assert new.attrs["n_resamples"] == 300
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new spelling does not warn
        bootstrap_asl(_scores(), n_resamples=20, seed=2)


def test_discriminative_power_old_keyword_B_warns_and_gives_the_same_result():
    new = discriminative_power(_scores(), 0.05, n_resamples=300, seed=2)
    with pytest.warns(FutureWarning, match="`B` is now called `n_resamples`"):
        old = discriminative_power(_scores(), 0.05, B=300, seed=2)
    assert old.n_resamples == new.n_resamples == 300
    assert (old.power, old.estimated_difference) == (new.power, new.estimated_difference)
    pd.testing.assert_frame_equal(old.table, new.table)
    with pytest.warns(FutureWarning, match="DiscriminativePower.B is now called n_resamples"):
        assert new.B == 300


def test_a_document_written_with_the_old_field_B_still_reads():
    dp = discriminative_power(_scores(), 0.05, n_resamples=100, seed=0)
    doc = json.loads(dp.to_json())
    assert doc["n_resamples"] == 100 and "B" not in doc
    doc["B"] = doc.pop("n_resamples")  # as written before the rename
    back = DiscriminativePower.from_json(json.dumps(doc))
    assert back.n_resamples == 100
    pd.testing.assert_frame_equal(back.table, dp.table, check_dtype=False)


def test_a_bad_number_of_resamples_names_the_new_parameter():
    with pytest.raises(ValueError, match="`n_resamples` must be an integer >= 1; got 0"):
        discriminative_power(_scores(), n_resamples=0)
    with pytest.raises(TypeError, match="got both 'B' and its new name 'n_resamples'"):
        bootstrap_asl(_scores(), B=10, n_resamples=10)
