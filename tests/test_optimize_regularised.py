"""Tests of optimize/regularised.py: regularised tuning of the full discount or gain vector."""
from __future__ import annotations

import numpy as np
import pytest

import metrics
import optimize


def test_regularised_lambda_zero_is_todays_tuner(trec9):
    j = trec9.judged
    r0 = optimize.optimize_regularised(j, cutoff=20, lam=0.0)
    full = optimize.optimize_discount(j, gain="linear", cutoff=20)
    assert r0.phi_1 == pytest.approx(full.phi_1, abs=2e-4)
    # a strong penalty stays near the reference and is less stable in sample
    r1 = optimize.optimize_regularised(j, cutoff=20, lam=100.0)
    ref = metrics.discount_vector("log2", 20)
    assert np.abs(r1.discount - ref / ref.sum()).max() < np.abs(r0.discount - ref / ref.sum()).max()
    assert r1.phi_1 <= r0.phi_1 + 1e-9
    sm = optimize.optimize_regularised(j, cutoff=20, lam=1.0, penalty="smooth")
    assert np.all(np.diff(sm.discount) <= 1e-12)


def test_regularised_and_family_refuse_bad_arguments(trec9):
    j = trec9.judged
    with pytest.raises(ValueError, match="`lam` must be a non-negative number"):
        optimize.optimize_regularised(j, cutoff=10, lam=-1)
    with pytest.raises(ValueError, match="`penalty` must be one of"):
        optimize.optimize_regularised(j, cutoff=10, penalty="lasso")
    with pytest.raises(ValueError, match="`family` must be one of"):
        optimize.optimize_family(j, family="zipf", cutoff=10)
