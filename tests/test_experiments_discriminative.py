"""Tests for experiments.discriminative: the module of Sakai's bootstrap test and discriminative power, importable
from experiments; its old keyword ``B`` (now ``n_resamples``) and the old ``DiscriminativePower``
documents. The numbers themselves are checked against per-pair loops in tests/test_experiments_significance.py."""
from __future__ import annotations


import numpy as np
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


def test_a_bad_number_of_resamples_names_the_parameter():
    with pytest.raises(ValueError, match="`n_resamples` must be an integer >= 1; got 0"):
        discriminative_power(_scores(), n_resamples=0)
