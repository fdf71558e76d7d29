"""Tests of optimize/solvers/regularised.py: regularised tuning of the full discount or gain vector."""
from __future__ import annotations

import numpy as np
import pytest

import metrics
import optimize
from tiny_collection import ndcg_by_hand, phi1_by_hand, tiny  # noqa: E402


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


# ------------------------------------------------------------- a tiny collection with an independent nDCG

def _hull3(h):
    """Discounts d1 >= d2 >= d3 >= 0 summing to 1 on a grid: barycentric weights of step h over the extreme points
    (1,0,0), (1/2,1/2,0), (1/3,1/3,1/3)."""
    u1, u2 = (a.ravel() for a in np.meshgrid(np.arange(0, 1 + h / 2, h), np.arange(0, 1 + h / 2, h)))
    keep = u1 + u2 <= 1 + 1e-12
    w = np.c_[u1[keep], u2[keep], 1 - u1[keep] - u2[keep]]
    return w @ np.array([[1, 0, 0], [1 / 2, 1 / 2, 0], [1 / 3, 1 / 3, 1 / 3]])


def test_ridge_gain_is_the_brute_force_maximum_of_the_penalised_objective():
    # maximise Φ(1)(y) - λ ||y - y_ref||² / ||y_ref||² (module docstring) over the gains (a, 1 - a), a in [0, 1/2],
    # of grades 1, 2, with y_ref the linear gains (1, 2)/3; by hand on a grid of 20001 values of a
    j, G, ideal = tiny(1)
    lam = 0.5
    d = 1 / np.log2(np.arange(2, 7))
    yref = np.array([1.0, 2.0]) / 3
    a = np.linspace(0, 0.5, 20001)
    J = np.array([phi1_by_hand(ndcg_by_hand(G, ideal, [0, v, 1 - v], d)) - lam * ((np.array([v, 1 - v]) - yref) ** 2).sum()
                  / (yref @ yref) for v in a])
    t = optimize.optimize_regularised(j, cutoff=5, what="gain", discount="log2", lam=lam)
    assert t.success and t.solver == "regularised" and t.message.startswith("λ = 0.5 (ridge)")
    g = t.gain[t.levels > 0]
    # L-BFGS-B stops on ftol 1e-11: its answer is within ~1e-5 of the peak; the grid's step is 2.5e-5
    assert abs(g[0] - a[J.argmax()]) <= 1e-4
    # the penalty pulls toward the reference: closer to y_ref than the unpenalised optimum
    t0 = optimize.optimize_regularised(j, cutoff=5, what="gain", discount="log2", lam=0.0)
    assert abs(g[0] - yref[0]) < abs(t0.gain[1] - yref[0])
    assert t0.fun >= t.fun - 1e-12


def test_smooth_discount_is_the_brute_force_maximum_of_the_penalised_objective():
    # k = 3: the smooth penalty is λ (e1 - 2 e2 + e3)² / ||y_ref||², e = y - y_ref, y_ref = log2 normalised
    j, G, ideal = tiny(1)
    lam = 0.3
    r = np.arange(1, 4)
    yref = (1 / np.log2(r + 1)) / (1 / np.log2(r + 1)).sum()
    D = _hull3(1 / 250)
    E = D - yref
    J = np.array([phi1_by_hand(ndcg_by_hand(G, ideal, [0, 1, 2], x)) for x in D]) \
        - lam * (E @ np.array([1.0, -2.0, 1.0])) ** 2 / (yref @ yref)
    t = optimize.optimize_regularised(j, cutoff=3, lam=lam, penalty="smooth")
    best = D[J.argmax()]
    x = t.discount
    Jt = phi1_by_hand(ndcg_by_hand(G, ideal, [0, 1, 2], x)) - lam * ((x - yref) @ [1.0, -2.0, 1.0]) ** 2 / (yref @ yref)
    assert Jt >= J.max() - 1e-9  # at least the grid's best (L-BFGS-B's ftol is 1e-11 relative)
    assert np.abs(x - best).max() <= 0.01  # within a few grid steps (1/250 in the weights) of the grid's argmax


def test_a_huge_penalty_returns_the_reference():
    j, _, _ = tiny(1)
    t = optimize.optimize_regularised(j, cutoff=4, lam=1e8, reference="zipf")
    ref = 1 / np.arange(1, 5)
    # the deviation's penalty dominates: ||y - ref||² ~ ‖∇Φ‖ / λ ~ 1e-8
    np.testing.assert_allclose(t.discount, ref / ref.sum(), atol=1e-6)


def test_reference_must_be_non_negative():
    j, _, _ = tiny(1)
    with pytest.raises(ValueError, match=r"`reference` must be non-negative and not all 0\."):
        optimize.optimize_regularised(j, cutoff=4, what="gain", reference=[0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"`what` must be one of 'discount', 'gain'; got 'joint'"):
        optimize.optimize_regularised(j, cutoff=4, what="joint")
    with pytest.raises(ValueError, match="`lam` must be a non-negative number; got True"):
        optimize.optimize_regularised(j, cutoff=4, lam=True)
