"""Tests of optimize/cvx.py: the convex-concave (DCCP-style) solver and its model terms."""
from __future__ import annotations

import numpy as np
import pytest

import gtheory
import metrics
from optimize.objective import Problem
from optimize.cvx import model_terms, solve_cvx
from optimize.slsqp import solve_lbfgsb, solve_slsqp


@pytest.fixture(scope="module")
def trec9():
    return metrics.load_trec9()


def test_gain_and_joint_solvers_agree(trec9):
    for what in ("gain", "joint"):
        p = Problem(trec9, 20, what)
        x0 = p.normalise(np.ones(p.n))
        a, b = solve_slsqp(p, x0), solve_lbfgsb(p, x0)
        from optimize.cvx import solve_cvx

        c = solve_cvx(p, x0)
        assert a.success and b.success and c.success
        assert abs(a.fun - b.fun) < 1e-9 and abs(a.fun - c.fun) < 1e-9
        assert p.violation(a.x) <= 1e-9 and p.violation(c.x) <= 1e-9
