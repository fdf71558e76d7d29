"""Sums of squares on centred data: a constant added to every score changes no estimate (issue 20, item 8).

On f2a3012 ``gstudy(X + 1e12)`` gave σ²(topic) 0.032197 instead of 0.032228 for the same float matrix (the means
of ~1e12-sized numbers lose the digits the deviations need), and at an offset of 1e16 a misleading
NegativeVarianceWarning. The references here are exact rational arithmetic (fractions.Fraction) on the very float
matrix given, and statsmodels' OLS ANOVA on the unshifted one.
"""
from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gtheory
from gtheory.gstudy.reml import henderson_components, reml_components

EPS = np.finfo(np.float64).eps


def _dyadic(seed: int, shape=(6, 5), scale: float = 0.2) -> np.ndarray:
    """Scores that are multiples of 2**-10 and below 2**10 in size: X + c is exact for integers |c| < 2**40, so
    any difference between the components of X and of X + c is the computation's, not the data's."""
    rng = np.random.default_rng(seed)
    n_s, n_t = shape
    x = rng.normal(0.3, scale, (n_s, 1)) + rng.normal(0, scale, (1, n_t)) + rng.normal(0, scale / 2, shape)
    return np.round(x * 1024) / 1024


def _exact_components(y: np.ndarray) -> tuple[Fraction, Fraction, Fraction]:
    """σ²(s), σ²(t), σ²(st,e) of the float matrix ``y`` in exact rational arithmetic (Brennan 2001, ch. 3)."""
    n_s, n_t = y.shape
    f = [[Fraction(float(v)) for v in row] for row in y]
    ms = [sum(r, Fraction(0)) / n_t for r in f]
    mt = [sum((f[i][j] for i in range(n_s)), Fraction(0)) / n_s for j in range(n_t)]
    g = sum(ms, Fraction(0)) / n_s
    ms_s = n_t * sum((m - g) ** 2 for m in ms) / (n_s - 1)
    ms_t = n_s * sum((m - g) ** 2 for m in mt) / (n_t - 1)
    ms_e = sum((f[i][j] - ms[i] - mt[j] + g) ** 2 for i in range(n_s) for j in range(n_t)) / ((n_s - 1) * (n_t - 1))
    return (ms_s - ms_e) / n_t, (ms_t - ms_e) / n_s, ms_e


def _tolerance(y: np.ndarray) -> float:
    """Absolute error bound of a component computed in float64 from deviations: every sum adds at most N·eps of
    the sum of |terms| (Higham 2002, §4.2, a worst case), the terms being squares of deviations no larger than
    max|y - mean| — doubled for the difference of two mean squares. Independent of the offset of ``y``."""
    dev = float(np.max(np.abs(y - np.median(y))))
    return 2 * y.size * EPS * dev * dev


@pytest.mark.parametrize("offset", [0.0, 1e6, 1e12, -1e12, 2.0 ** 40])
def test_components_match_exact_rationals_of_the_same_float_matrix(offset):
    x = _dyadic(1)
    y = x + offset  # exact (see _dyadic), and also the matrix the exact reference uses
    exact = _exact_components(y)
    g = gtheory.gstudy(y)
    for got, want in zip((g.var_system_raw, g.var_topic_raw, g.var_residual_raw), exact):
        assert abs(got - float(want)) <= _tolerance(y)
    vc = gtheory.variance_components(np.stack([y, y[::-1]]))  # the batch path
    for k, want in enumerate(exact):
        assert abs(float(vc[k][0]) - float(want)) <= _tolerance(y)
        assert abs(float(vc[k][1]) - float(want)) <= _tolerance(y)  # rows reordered: same components


def test_non_dyadic_matrix_at_1e12_matches_exact_rationals_of_its_float_values():
    # the case: random scores + 1e12, rounded by the addition; the reference is the same float matrix
    rng = np.random.default_rng(0)
    y = (rng.normal(0, 0.1, (8, 1)) + rng.normal(0, 0.2, (1, 7)) + rng.normal(0, 0.1, (8, 7))) + 1e12
    exact = _exact_components(y)
    g = gtheory.gstudy(y)
    for got, want in zip((g.var_system_raw, g.var_topic_raw, g.var_residual_raw), exact):
        assert abs(got - float(want)) <= _tolerance(y)


def test_statsmodels_anova_of_the_unshifted_matrix_agrees():
    sm = pytest.importorskip("statsmodels.api")
    from statsmodels.formula.api import ols

    x = _dyadic(2, shape=(12, 9))
    long = pd.DataFrame(x).rename_axis(index="system", columns="topic").stack().rename("score").reset_index()
    table = sm.stats.anova_lm(ols("score ~ C(system) + C(topic)", data=long).fit())
    g = gtheory.gstudy(x + 1e12)
    # statsmodels solves a least-squares problem (QR): its mean squares are good to ~1e-12 relative here
    assert g.ms_system == pytest.approx(table.loc["C(system)", "mean_sq"], rel=1e-9)
    assert g.ms_topic == pytest.approx(table.loc["C(topic)", "mean_sq"], rel=1e-9)
    assert g.ms_residual == pytest.approx(table.loc["Residual", "mean_sq"], rel=1e-9)
    assert g.ss_total == pytest.approx(float(np.sum((x - x.mean()) ** 2)), rel=1e-12)
    assert g.grand_mean - 1e12 == pytest.approx(x.mean(), abs=2 * np.spacing(1e12))


def test_missing_cell_estimators_and_designs_are_translation_invariant():
    x = _dyadic(3, shape=(9, 8))
    holes = x.copy()
    holes[0, 1] = holes[3, 4] = holes[7, 0] = np.nan
    for off in (1e9, 1e12):
        h0, h1 = henderson_components(holes), henderson_components(holes + off)
        for a, b in zip(h0[:3], h1[:3]):
            assert abs(float(a) - float(b)) <= _tolerance(x) * 10  # a 3x3 solve on top of the sums: 10x headroom
        assert float(h1.grand_mean) - off == pytest.approx(float(h0.grand_mean), abs=2 * np.spacing(off))
        r0, _ = reml_components(holes)
        r1, _ = reml_components(holes + off)
        # Nelder–Mead stops within xatol = 1e-9 of the optimum in θ = σ/σ_e: the components agree to ~1e-8 relative
        for a, b in zip(r0[:3], r1[:3]):
            assert float(b) == pytest.approx(float(a), rel=1e-6, abs=1e-12)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", gtheory.MissingCellsWarning)
            u0 = gtheory.gstudy(holes, missing="henderson")
            u1 = gtheory.gstudy(holes + off, missing="henderson")
        assert u1.ss_residual == pytest.approx(u0.ss_residual, rel=1e-10)
        assert u1.ss_total == pytest.approx(u0.ss_total, rel=1e-10)
        long = pd.DataFrame(x).rename_axis(index="p", columns="i").stack().rename("score").reset_index()
        d0 = gtheory.gstudy_design(long, "p x i").components
        d1 = gtheory.gstudy_design(long.assign(score=long["score"] + off), "p x i").components
        np.testing.assert_allclose(d1["variance_raw"], d0["variance_raw"], rtol=0, atol=_tolerance(x))


def test_bootstrap_is_translation_invariant():
    x = _dyadic(4, shape=(10, 8))
    b0 = gtheory.gstudy(x).bootstrap(n_resamples=50, seed=1, over="both")
    b1 = gtheory.gstudy(x + 1e12).bootstrap(n_resamples=50, seed=1, over="both")
    # the same resamples (same seed) of data that differ by an exact constant: the same replicate components
    # (columns 0-2), up to the float64 bound of each replicate's sums of squares
    np.testing.assert_allclose(b1.replicates[:, :3], b0.replicates[:, :3], rtol=0, atol=4 * _tolerance(x))


@pytest.mark.parametrize("scale", [1.0, 3.0])
def test_offset_1e16_warns_about_rounding_not_negative_variance(scale):
    rng = np.random.default_rng(0)
    x = scale * (rng.normal(0, 0.1, (30, 1)) + rng.normal(0, 0.2, (1, 50)) + rng.normal(0, 0.1, (30, 50)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            g = gtheory.gstudy(x + 1e16)
        except ValueError as exc:  # every score rounded to the same number: refused, saying why
            assert "steps of 2" in str(exc) and "subtract a constant" in str(exc)
            g = None
    kinds = {type(w.message) for w in caught}
    assert gtheory.NegativeVarianceWarning not in kinds
    if g is not None:
        assert gtheory.PrecisionLossWarning in kinds
        msg = next(str(w.message) for w in caught if isinstance(w.message, gtheory.PrecisionLossWarning))
        assert "steps of 2" in msg and "Subtract a constant" in msg
        # the estimates are still exact for the rounded numbers given
        exact = _exact_components((x + 1e16)[:6, :5])
        small = gtheory.variance_components((x + 1e16)[:6, :5])
        for k in range(3):
            assert abs(float(small[k]) - float(exact[k])) <= _tolerance((x + 1e16)[:6, :5])


def test_ordinary_scores_do_not_warn_about_precision():
    rng = np.random.default_rng(5)
    x = rng.random((20, 30))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)  # random data: σ²(system) ≈ 0
        warnings.simplefilter("error", gtheory.PrecisionLossWarning)
        gtheory.gstudy(x)
        gtheory.gstudy(_dyadic(6) + 1e12)  # rounding step 1.2e-4 against a spread of ~0.3: negligible


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), offset=st.integers(-2**30, 2**30),
       shape=st.tuples(st.integers(2, 7), st.integers(2, 7)))
def test_translation_invariance_property(seed, offset, shape):
    x = _dyadic(seed, shape)
    if np.ptp(x) == 0:
        return
    y = x + float(offset)  # exact: multiples of 2**-10 below 2**31 need at most 41 bits
    a, b = gtheory.variance_components(x), gtheory.variance_components(y)
    tol = _tolerance(x) + _tolerance(y)  # each is within its bound of the same exact value
    for k in range(3):
        assert abs(float(a[k]) - float(b[k])) <= tol
