"""Tests of optimize/solvers/cvx.py: the convex-concave (DCCP-style) solver and its model terms."""
from __future__ import annotations

import numpy as np
import pytest

from optimize.solvers.objective import Problem
from optimize.solvers.cvx import model_terms, solve_cvx
from optimize.solvers.slsqp import solve_lbfgsb, solve_slsqp
from tiny_collection import components_by_hand, mean_squares_by_hand, ndcg_by_hand, phi1_by_hand, tiny  # noqa: E402


def test_gain_and_joint_solvers_agree(embedded_trec9):
    for what in ("gain", "joint"):
        p = Problem(embedded_trec9, 20, what)
        x0 = p.normalise(np.ones(p.n))
        a, b = solve_slsqp(p, x0), solve_lbfgsb(p, x0)
        c = solve_cvx(p, x0)
        assert a.success and b.success and c.success
        assert abs(a.fun - b.fun) < 1e-9 and abs(a.fun - c.fun) < 1e-9
        assert p.violation(a.x) <= 1e-9 and p.violation(c.x) <= 1e-9


# ------------------------------------------------------------- a tiny collection with an independent nDCG

def erho2_by_hand(X):
    """Eρ²(1) = σ²_s / (σ²_s + σ²_e) from the same mean squares."""
    vs, _, ve = components_by_hand(X)
    return vs / (vs + ve)


def central_gradient(f, x, h=1e-6):
    # central differences: truncation O(h²·f''') ~ 1e-12 and rounding O(eps·|f|/h) ~ 1e-10 for these f ~ 1
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(x.size)])


@pytest.fixture(scope="module")
def tiny1():
    return tiny(1)


@pytest.mark.parametrize("objective", ["phi", "erho2"])
def test_model_terms_by_hand(tiny1, objective):
    # f, lam: the coefficient at x and its ratio ρ = f / (1 - f); Q: the curvature of the convex part, symmetric
    # positive semi-definite; b: the gradient of the QP's objective at δ = 0, the negated gradient of N - λD,
    # i.e. -D ∇ρ = -D (1 + λ)² ∇f with D = MS_t/n_s + (1 - 1/n_s) MS_st (Φ) or MS_st (Eρ²), module docstring
    j, G, ideal = tiny1
    p = Problem(j, 3, "discount", gain=[0, 1, 2], objective=objective)
    x = p.normalise(np.array([3.0, 2.0, 1.0]))
    coef = phi1_by_hand if objective == "phi" else erho2_by_hand
    f_hand = lambda d: coef(ndcg_by_hand(G, ideal, [0, 1, 2], d))  # noqa: E731
    f, lam, Q, b = model_terms(p, x)
    assert f == pytest.approx(f_hand(x), abs=1e-14)  # the same sums in another order: rounding only
    assert lam == pytest.approx(f / (1 - f), rel=1e-12)
    np.testing.assert_array_equal(Q, Q.T)
    assert np.linalg.eigvalsh(Q).min() >= -1e-12 * np.abs(Q).max()
    X = ndcg_by_hand(G, ideal, [0, 1, 2], x)
    S = X.shape[0]
    _, MSt, MSe = mean_squares_by_hand(X)
    D = MSt / S + (1 - 1 / S) * MSe if objective == "phi" else MSe
    # tolerance: the finite-difference gradient's error (~1e-10, central_gradient) relative to |∇f| ~ 0.1
    np.testing.assert_allclose(b, -D * (1 + lam) ** 2 * central_gradient(f_hand, x), rtol=1e-6, atol=1e-10)



@pytest.mark.parametrize("objective", ["phi", "erho2"])
def test_model_terms_are_the_negated_model_unscaled(tiny1, objective):
    # the module docstring's model, built here from hand mean squares of the linearised scores X + Jδ:
    # M(δ) = ∇MS_s(0)ᵀδ / n_t − (1/n_t + λ c_e) MS_st(δ) − λ c_t MS_t(δ); the QP must equal −(M(δ) − M(0))
    # exactly (not 2× it), for any δ: both are quadratics in δ, so agreement at random δ of several scales
    # checks Q and b. ∇MS_s is taken by central differences of MS_s along δ (MS_s is quadratic in δ, so
    # central differences are exact up to rounding, ~1e-10 relative here)
    j, _, _ = tiny1
    p = Problem(j, 3, "discount", gain=[0, 1, 2], objective=objective)
    x = p.normalise(np.array([3.0, 2.0, 1.0]))
    f, lam, Q, b = model_terms(p, x)
    X, J = p.scores_and_jacobian(x)
    S, T = p.n_systems, p.n_topics
    c_t, c_e = (1 / S, 1 - 1 / S) if objective == "phi" else (0.0, 1.0)

    def ms(delta):
        return mean_squares_by_hand(X + (J @ delta).reshape(S, T))

    def model(delta, h=1e-5):
        grad_s = (ms(h * delta)[0] - ms(-h * delta)[0]) / (2 * h)  # directional derivative of MS_s at 0
        _, mst, mse = ms(delta)
        return grad_s / T - (1 / T + lam * c_e) * mse - lam * c_t * mst

    rng = np.random.default_rng(0)
    for scale in (1e-3, 1e-2, 1e-1):
        delta = scale * rng.standard_normal(p.n)
        qp = 0.5 * delta @ Q @ delta + b @ delta
        expected = -(model(delta) - model(np.zeros(p.n)))
        # both sides ~scale·|b|; a quadratic's finite difference is exact to rounding (eps·MS/h ~ 1e-11)
        assert qp == pytest.approx(expected, rel=1e-6, abs=1e-12)

def test_solve_cvx_reaches_the_brute_force_optimum_and_kkt(tiny1):
    # nDCG@3 with linear gains: the feasible discounts d1 >= d2 >= d3 >= 0, sum 1, are the convex hull of
    # (1,0,0), (1/2,1/2,0), (1/3,1/3,1/3); a grid of step 1/400 over the hull's barycentric weights, with
    # nDCG and Φ(1) computed by hand, gives a lower bound of the maximum that the solver must reach
    j, G, ideal = tiny1
    p = Problem(j, 3, "discount", gain=[0, 1, 2])
    r = solve_cvx(p, p.normalise(np.ones(3)))
    assert r.success and r.solver == "cvxpy"
    f_hand = lambda d: phi1_by_hand(ndcg_by_hand(G, ideal, [0, 1, 2], d))  # noqa: E731
    h = 1 / 400
    u1, u2 = (a.ravel() for a in np.meshgrid(np.arange(0, 1 + h / 2, h), np.arange(0, 1 + h / 2, h)))
    keep = u1 + u2 <= 1 + 1e-12
    w = np.c_[u1[keep], u2[keep], 1 - u1[keep] - u2[keep]]
    V = np.array([[1, 0, 0], [1 / 2, 1 / 2, 0], [1 / 3, 1 / 3, 1 / 3]])
    grid = np.array([f_hand(d) for d in w @ V])
    assert r.fun >= grid.max() - 1e-12  # the solver stops on Δf < 1e-13
    assert r.fun == pytest.approx(f_hand(r.x), abs=1e-12)
    # a grid point is within h of the optimum, so Φ there is within ~‖∇f‖·h + c·h² of it: the solver's value
    # may exceed the grid's best only by that much (‖∇f‖ ≤ 1 here)
    assert r.fun <= grid.max() + 2 * h
    # feasible, and on this data the optimum is interior (strictly decreasing, positive): KKT then says the
    # gradient is normal to the one equality, i.e. all its components are equal. The solver stops within
    # Δf ~ 1e-13, i.e. a distance ~ sqrt(2·1e-13/c) and a gradient residual ~ sqrt(2·1e-13·c) ~ 1e-6 for a
    # curvature c ≲ 10; 1e-5 leaves a factor 10 (plus the finite-difference error, ~1e-10)
    assert abs(r.x.sum() - 1) < 1e-12 and np.all(np.diff(r.x) < -1e-3) and r.x[-1] > 1e-3
    g = central_gradient(f_hand, r.x)
    assert np.abs(g - g.mean()).max() < 1e-5


def test_solve_cvx_projects_an_infeasible_start(tiny1):
    # an increasing, unnormalised start is projected first; the answer is the same optimum
    j, _, _ = tiny1
    p = Problem(j, 3, "discount", gain=[0, 1, 2])
    a = solve_cvx(p, np.array([0.1, 0.5, 2.0]))
    b = solve_cvx(p, p.normalise(np.ones(3)))
    assert a.success and p.violation(a.x) <= 1e-9
    assert a.fun == pytest.approx(b.fun, abs=1e-9)  # both within ~1e-13 of the optimum in Φ; 1e-9 as elsewhere
