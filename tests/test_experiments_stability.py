"""Tests of experiments/_stability.py: the G-study numbers of one matrix, against the two-way ANOVA written out by
hand (Brennan 2001: negative components set to 0; Φ(n) = σ²_s / (σ²_s + (σ²_t + σ²_e)/n),
Eρ²(n) = σ²_s / (σ²_s + σ²_e/n), the fewest topics with Φ(n) ≥ target)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from experiments._stability import STABILITY_KEYS, stability
from tiny_collection import components_by_hand, mean_squares_by_hand  # noqa: E402


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_stability_by_hand(seed):
    rng = np.random.default_rng(seed)
    X = rng.random((6, 9)) + np.linspace(0, 0.6, 6)[:, None]  # systems differ, so σ²_s > 0
    vs, vt, ve = components_by_hand(X, clip=True)
    out = stability(X, 20, 0.9)
    assert tuple(out) == STABILITY_KEYS
    # tolerance: the same sums of squares in another order, values ~0.1: rounding ~1e-16
    assert out["var_system"] == pytest.approx(vs, abs=1e-13)
    assert out["var_topic"] == pytest.approx(vt, abs=1e-13)
    assert out["var_residual"] == pytest.approx(ve, abs=1e-13)
    phi = lambda n: vs / (vs + (vt + ve) / n)  # noqa: E731
    assert out["phi"] == pytest.approx(phi(20), abs=1e-12)
    assert out["phi_1"] == pytest.approx(phi(1), abs=1e-12)
    assert out["erho2"] == pytest.approx(vs / (vs + ve / 20), abs=1e-12)
    need = next(n for n in range(1, 100000) if phi(n) >= 0.9)
    assert out["topics_needed"] == need


def test_a_negative_system_component_is_set_to_zero():
    # every system the same up to noise smaller than the topic effect: the raw σ²_s is negative
    X = np.array([[0.1, 0.5, 0.9], [0.11, 0.52, 0.88], [0.12, 0.49, 0.9]])
    MSs, _, MSe = mean_squares_by_hand(X)
    assert MSs < MSe  # the premise: the raw estimate (MSs - MSe)/T is negative
    out = stability(X, 10, 0.9)
    assert out["var_system"] == 0.0 and out["phi"] == 0.0 and out["phi_1"] == 0.0


@pytest.mark.parametrize("X", [np.ones((3, 4)), np.array([[0.1, 0.2, 0.3]]), np.array([[np.nan, 0.1], [0.2, 0.3]])],
                         ids=["constant", "one system", "NaN"])
def test_a_matrix_without_a_gstudy_gives_nan_everywhere(X):
    out = stability(X, 10, 0.9)
    assert set(out) == set(STABILITY_KEYS) and all(math.isnan(v) for v in out.values())
