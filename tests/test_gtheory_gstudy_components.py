"""Tests of gtheory.gstudy.components (the batched pure-NumPy path for optimisers).

References: statsmodels ``anova_lm(ols("score ~ C(system) + C(topic)"))`` for the mean squares, and
the labelled :func:`gtheory.gstudy` (itself checked against statsmodels and Brennan).
"""
from __future__ import annotations

import numpy as np
import pytest

from gtheory import (
    erho2_from_components,
    gstudy,
    phi_from_components,
    stability_ratio,
    variance_components,
)


@pytest.mark.filterwarnings("ignore::gtheory.NegativeVarianceWarning")
def test_batched_equals_loop():
    rng = np.random.default_rng(0)
    X = rng.random((3, 4, 20, 7))
    vc = variance_components(X)
    assert vc.system.shape == (3, 4)
    for i in range(3):
        for j in range(4):
            g = gstudy(X[i, j])
            assert vc.system[i, j] == pytest.approx(g.var_system_raw, rel=1e-12)
            assert vc.topic[i, j] == pytest.approx(g.var_topic_raw, rel=1e-12)
            assert vc.residual[i, j] == pytest.approx(g.var_residual, rel=1e-12)


def test_mean_squares_against_statsmodels():
    import pandas as pd
    import statsmodels.api as sm
    from statsmodels.formula.api import ols

    X = np.random.default_rng(1).random((12, 9))
    vc = variance_components(X)
    df = pd.DataFrame(X).rename_axis(index="system", columns="topic").stack().rename("score").reset_index()
    # reference: sm.stats.anova_lm(ols("score ~ C(system) + C(topic)", df).fit())["mean_sq"]
    ms = sm.stats.anova_lm(ols("score ~ C(system) + C(topic)", data=df).fit())["mean_sq"]
    assert vc.ms_system == pytest.approx(ms["C(system)"], rel=1e-12)
    assert vc.ms_topic == pytest.approx(ms["C(topic)"], rel=1e-12)
    assert vc.ms_residual == pytest.approx(ms["Residual"], rel=1e-12)


def test_coefficients_and_ratio():
    # system and topic effects large enough that no component is negative (gstudy would clip)
    X = np.random.default_rng(2).random((5, 30, 20)) + np.linspace(0, 1, 30)[:, None] + np.linspace(0, 1, 20)
    vc = variance_components(X)
    g = gstudy(X[0])
    n = np.array([1.0, 10.0, 100.0])
    phi = phi_from_components(vc.system[0], vc.topic[0], vc.residual[0], n)
    np.testing.assert_allclose(phi, g.phi(n), rtol=1e-12)
    np.testing.assert_allclose(erho2_from_components(vc.system[0], vc.residual[0], n), g.erho2(n), rtol=1e-12)
    r = stability_ratio(X)
    np.testing.assert_allclose(phi_from_components(vc.system, vc.topic, vc.residual, 7), 7 * r / (1 + 7 * r),
                               rtol=1e-12)
    re = stability_ratio(X, "erho2")
    np.testing.assert_allclose(erho2_from_components(vc.system, vc.residual, 7), 7 * re / (1 + 7 * re),
                               rtol=1e-12)
    with pytest.raises(ValueError, match="`coefficient`"):
        stability_ratio(X, "kappa")


def test_clip_and_shape_errors():
    X = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [0.5, 0.5, 0.5]])
    raw = variance_components(X)
    assert raw.system < 0
    assert variance_components(X, clip=True).system == 0.0
    with pytest.raises(ValueError, match=r"at least 2 systems and 2 topics; got shape \(1, 5\)"):
        variance_components(np.ones((1, 5)))


def test_coefficient_helpers_take_negative_estimates_as_zero():
    # the unclipped output of variance_components fed to the helpers (as benchmarks/bench_gstudy.py
    # does) used to give Φ(100) = 3.3, Eρ²(40) = 24.9 and project(...) = -2.5 on this matrix
    import warnings

    import gtheory

    r = np.random.default_rng(1)
    X = r.normal(0, 0.4, (1, 9)) + r.normal(0, 0.3, (12, 9))
    vc = gtheory.variance_components(X)
    assert vc.system < 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
        g = gtheory.gstudy(X)
    assert g.phi(100) == 0.0
    assert gtheory.phi_from_components(vc.system, vc.topic, vc.residual, 100) == 0.0
    assert gtheory.erho2_from_components(vc.system, vc.residual, 40) == 0.0
    assert float(gtheory.project(gtheory.stability_ratio(X), 50)) == 0.0
    assert float(gtheory.project(-np.inf, 3)) == 0.0 and np.isnan(gtheory.project(np.nan, 3))
    # a negative σ²_t or σ²_st is taken as 0 too, as GStudy does
    assert gtheory.phi_from_components(1.0, -0.5, 1.0, 1) == pytest.approx(0.5)
    assert gtheory.erho2_from_components(1.0, -0.5, 1) == 1.0
    # positive estimates unchanged
    assert gtheory.phi_from_components(1.0, 0.5, 1.5, 2) == pytest.approx(1.0 / (1.0 + 2.0 / 2))
