"""Tests of gtheory/errors.py: the warning classes of the G-study and the rules that decide when they are raised.

References: the rules as documented — an estimate is rounding noise when |estimate| ≤ ROUNDING_TOLERANCE × scale;
scores have lost precision when the float64 step at their magnitude, ``np.spacing(max |x|)``, gives a rounding
variance step²/12 above PRECISION_TOLERANCE × scale — evaluated by hand at chosen magnitudes (the spacing of
doubles near 1e16 is 2, near 1 it is 2⁻⁵²).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import gtheory
from gtheory.errors import (PRECISION_TOLERANCE, ROUNDING_TOLERANCE, MissingCellsWarning, NegativeVarianceWarning,
                            ParameterError, PrecisionLossWarning, is_rounding_noise, precision_lost, warn_negative,
                            warn_precision_loss)


def test_public_classes():
    assert issubclass(NegativeVarianceWarning, UserWarning) and issubclass(MissingCellsWarning, UserWarning)
    assert issubclass(PrecisionLossWarning, UserWarning) and issubclass(ParameterError, ValueError)
    assert gtheory.NegativeVarianceWarning is NegativeVarianceWarning and gtheory.ParameterError is ParameterError


def test_rounding_noise_is_relative_to_the_scale():
    assert is_rounding_noise(-7.9e-34, 0.01)  # far below 1e-12 × 0.01
    assert is_rounding_noise(ROUNDING_TOLERANCE * 2.0, 2.0) and not is_rounding_noise(ROUNDING_TOLERANCE * 2.0 * 1.01, 2.0)
    assert not is_rounding_noise(-1e-6, 0.01)
    assert is_rounding_noise(0.0, 0.0) and not is_rounding_noise(-1e-300, 0.0)  # scale 0: only an exact 0 is noise


def _estimator(estimate, scale):
    """Stands for gstudy: the warning must point at *its* caller (stacklevel 3), i.e. this test's line."""
    warn_negative("system", estimate, scale)


def test_warn_negative_is_silent_for_noise_and_points_at_the_caller():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _estimator(-1e-20, 0.01)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        _estimator(-0.00123456789, 0.01)
    assert len(w) == 1 and w[0].category is NegativeVarianceWarning
    assert str(w[0].message) == "negative estimate of σ²(system) = -0.00123457 set to 0 (Brennan 2001, §3.4)."
    assert w[0].filename == __file__


def test_precision_lost_from_the_spacing_of_doubles():
    # near 1e16 doubles are 2 apart: rounding variance up to 2²/12 = 1/3, noticeable unless the variance is
    # at least (1/3) / 1e-6 = 333,333.3
    x = np.array([1e16, 1e16 + 2.0, -5.0])
    assert precision_lost(x, 1.0) == (1e16 + 2.0, 2.0)  # the magnitude is max |x|
    assert precision_lost(x, 333_334.0) is None and precision_lost(x, 333_333.0) == (1e16 + 2.0, 2.0)
    # scores near 1 (step 2⁻⁵²) have lost nothing for any sensible variance
    assert precision_lost(np.array([0.3, 0.9]), 1e-12) is None
    assert precision_lost(np.array([np.nan, 1e16]), 1.0) == (1e16, 2.0)  # missing cells are ignored
    assert PRECISION_TOLERANCE == 1e-6


def test_warn_precision_loss_message_says_magnitude_step_and_fix():
    with pytest.warns(PrecisionLossWarning) as w:
        warn_precision_loss(1e16, 2.0, 0.25, {"system": -0.0123})
    msg = str(w[0].message)
    assert "the scores are about 1e+16 but vary by only about 0.5 (standard deviation)" in msg
    assert "steps of 2" in msg and "rounded by up to 1" in msg
    assert "a rounding variance of up to 133.33% of the scores' variance" in msg  # (4/12) / 0.25
    assert "σ²(system) came out -0.0123 and is set to 0" in msg
    assert msg.endswith("Φ, Eρ² and the components do not depend on it.")


def test_gstudy_of_rounded_scores_warns_precision_loss_not_negative_variance():
    rng = np.random.default_rng(0)
    x = 1e16 + np.round(rng.normal(0, 1, (6, 8)))  # integer spread of about 1: half of it lost to steps of 2
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        gtheory.gstudy(x)
    kinds = {type(m.message) for m in w}
    assert PrecisionLossWarning in kinds and NegativeVarianceWarning not in kinds
