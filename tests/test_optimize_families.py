"""Tests of optimize/families.py: the low-dimensional discount and gain families and their fit."""
from __future__ import annotations

import numpy as np
import pytest

import gtheory
import metrics
import optimize
from optimize._ratio import RatioModel


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
    from optimize.families import FAMILIES, family_value_and_derivative

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
