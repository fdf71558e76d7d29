"""Tests of optimize/solvers/families.py: the low-dimensional discount and gain families and their fit."""
from __future__ import annotations

import numpy as np
import pytest

import gtheory
import metrics
import optimize
from optimize.solvers._ratio import RatioModel
from optimize.solvers.families import FAMILIES
from tiny_collection import ndcg_by_hand, phi1_by_hand, tiny  # noqa: E402


def test_family_fit_matches_a_fine_grid(trec9):
    # the grid + Brent search finds the maximum of a fine hand-written grid over the family's parameter
    j = trec9.judged
    t = optimize.optimize_family(j, family="rbp", cutoff=20)
    p_hat = float(t.message.split("p=")[1].rstrip(")"))
    grid = np.linspace(0.01, 0.999, 2000)
    phis = [gtheory.gstudy(metrics.ndcg(j, discount=f"rbp(p={p})", cutoff=20)).phi(1) for p in grid[::20]]
    best = grid[::20][int(np.argmax(phis))]
    assert abs(p_hat - best) <= 0.01 + 1e-9
    assert t.phi_1 >= max(phis) - 1e-9
    assert t.phi_1 == pytest.approx(t.gstudy.phi(1), abs=1e-12)


@pytest.mark.parametrize("what", ["discount", "gain"])
def test_family_derivatives_are_exact(dl19, what):
    from optimize.solvers.families import FAMILIES, family_value_and_derivative

    m = RatioModel(dl19.judged, 20, what)
    for name, fam in FAMILIES[what].items():
        if name == "topflat":
            continue
        lo, hi = sorted(fam.from_param(np.array(fam.bounds)))
        for u in (lo + 0.3 * (hi - lo), lo + 0.71 * (hi - lo)):
            f, d = family_value_and_derivative(m, fam, u)
            h = 1e-6 * (hi - lo)
            fd = (family_value_and_derivative(m, fam, u + h)[0] - family_value_and_derivative(m, fam, u - h)[0]) / (2 * h)
            assert d == pytest.approx(fd, rel=1e-5, abs=1e-9), (name, u)


def test_topflat_family_tries_every_m(trec9):
    j = trec9.judged
    t = optimize.optimize_family(j, family="topflat", cutoff=10)
    best = 0.0
    for m in range(1, 11):
        for h in np.linspace(0, 1, 11):
            d = np.where(np.arange(1, 11) <= m, 1.0, h)
            best = max(best, gtheory.gstudy(metrics.ndcg(j, discount=d, cutoff=10)).phi(1))
    assert t.phi_1 >= best - 1e-9


def test_gain_families(dl19):
    t = optimize.optimize_family(dl19.judged, family="power", cutoff=10, what="gain")
    assert t.solver == "family:power" and t.what == "gain"
    g = t.gain[t.levels > 0]
    gamma = float(t.message.split("gamma=")[1].rstrip(")"))
    np.testing.assert_allclose(g / g[0], (t.levels[t.levels > 0] ** gamma), rtol=1e-3)


# ------------------------------------------------------------- a tiny collection with an independent nDCG

def _vector(what, name, theta, n=6, levels=np.array([0.0, 1.0, 2.0, 3.0])):
    fam = FAMILIES[what][name]
    return fam.vectors(np.atleast_1d(fam.from_param(np.array(theta, dtype=float))), n, levels)[0]


# tolerance: the vectors are a few floating-point operations of the formulas (via exp/log of the search
# coordinate), so they agree to a few ulps; 1e-12 relative
@pytest.mark.parametrize("what, name, theta, expected", [
    ("discount", "jarvelin", 2.0, 1 / np.log2(np.maximum(np.arange(1, 7), 2.0))),         # 1 before b, 1/log_b r
    ("discount", "jarvelin", 3.0, np.r_[1.0, 1.0, 1 / (np.log(np.arange(3, 7)) / np.log(3))]),
    ("discount", "rbp", 0.5, 0.5 ** np.arange(6)),
    ("discount", "power", 1.0, 1 / np.arange(1, 7)),                                        # zipf
    ("discount", "power", 0.0, np.ones(6)),
    ("discount", "log_offset", 1.0, 1 / np.log(np.arange(2, 8))),                           # ∝ log2
    ("gain", "power", 2.0, np.array([1.0, 4.0, 9.0])),                                      # positive grades only
    ("gain", "exponential", 2.0, np.array([1.0, 3.0, 7.0])),                                # Burges: 2^x - 1
])
def test_family_vectors_follow_their_formulas(what, name, theta, expected):
    np.testing.assert_allclose(_vector(what, name, theta), expected, rtol=1e-12)


@pytest.mark.parametrize("what, name", [(w, n) for w in FAMILIES for n in FAMILIES[w] if n != "topflat"])
def test_parameter_maps_are_inverse_and_bounds_ordered(what, name):
    fam = FAMILIES[what][name]
    lo, hi = fam.bounds
    assert lo < hi
    theta = np.linspace(lo, hi, 7)
    np.testing.assert_allclose(fam.to_param(fam.from_param(theta)), theta, rtol=1e-10)
    assert fam.label({fam.param: 0.25}) == f"{name}({fam.param}=0.25)"


def test_optimize_family_refuses_bad_arguments():
    j, _, _ = tiny(1)
    with pytest.raises(ValueError, match=r"`what` must be one of 'discount', 'gain'; got 'joint'"):
        optimize.optimize_family(j, family="rbp", what="joint")
    with pytest.raises(ValueError, match=r"`family` must be one of .*'exponential'.* for the gain; got 'rbp'"):
        optimize.optimize_family(j, family="rbp", what="gain")
    with pytest.raises(ValueError, match="`objective` must be"):
        optimize.optimize_family(j, family="rbp", objective="tau")


def test_rbp_fit_on_a_tiny_collection_matches_a_brute_force_grid():
    # Φ(1) of nDCG@5 with p^(r-1) and linear gains, by hand, on a grid of 2000 values of p; the fit reports its p in
    # the message, its discount is the family's vector at that p (normalised) and its Φ(1) is at least the grid's best
    j, G, ideal = tiny(1)
    t = optimize.optimize_family(j, family="rbp", cutoff=5)
    assert t.solver == "family:rbp" and t.success
    p_hat = float(t.message.split("p=")[1].rstrip(")"))
    ps = np.linspace(0.01, 0.999, 2000)
    phis = np.array([phi1_by_hand(ndcg_by_hand(G, ideal, [0, 1, 2], p ** np.arange(5))) for p in ps])
    # t.fun is the raw objective (unclipped components, as phi1_by_hand; this data has σ²_t < 0 near the optimum,
    # where t.phi_1, the G-study's Φ(1) with negatives set to 0, differs)
    assert t.fun >= phis.max() - 1e-12  # Brent + L-BFGS-B polish from the grid's neighbours: at least as good
    # the label rounds p to 4 significant digits: the discount at that p is within ~1e-4 of the fitted one
    d = p_hat ** np.arange(5)
    np.testing.assert_allclose(t.discount, d / d.sum(), atol=5e-4)
    assert t.fun == pytest.approx(phi1_by_hand(ndcg_by_hand(G, ideal, [0, 1, 2], t.discount)), abs=1e-12)
    # the fitted p is where the fine grid peaks, up to the grid's step (the objective is smooth and unimodal here)
    assert abs(p_hat - ps[phis.argmax()]) <= 2 * (ps[1] - ps[0]) + 1e-4


def test_exponential_gain_fit_is_the_family_member():
    j, G, ideal = tiny(1)
    t = optimize.optimize_family(j, family="exponential", cutoff=5, what="gain")
    b = float(t.message.split("base=")[1].rstrip(")"))
    g = t.gain[t.levels > 0]
    np.testing.assert_allclose(g / g.sum(), (b ** np.array([1.0, 2.0]) - 1) / (b ** np.array([1.0, 2.0]) - 1).sum(),
                               rtol=1e-3)  # the label's 4 significant digits of the base
    bases = np.exp(np.linspace(np.log(0.001), np.log(99.0), 3000)) + 1
    d = metrics.discount_vector("log2", 5)
    best = max(phi1_by_hand(ndcg_by_hand(G, ideal, [0, b_ - 1, b_ ** 2 - 1], d)) for b_ in bases)
    assert t.fun >= best - 1e-12  # the raw objective (see the rbp test)
