"""Tests of optimize.solvers.certificate (the certificate of the Shor bound): the dual slack is the solver's, the
certificate inequality holds for any multipliers, the certified bound is valid for arbitrary and inexact duals and
never below a feasible Φ(1) (random feasible discounts), the dual search certifies without an SDP solve, and a
zero normaliser gives no certificate."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from optimize.solvers.bound import optimality_bound
from optimize.solvers.certificate import _topic_blocks, quadratic_forms
from optimize.solvers.objective import Problem


@pytest.fixture(scope="module")
def small(embedded_trec9):
    j = embedded_trec9
    return j.subset(topics=list(j.topics)[:8])


@pytest.fixture(scope="module")
def forms(small):
    p = Problem(small, 5, "discount", gain=[0, 1, 2])
    P, Q, active = quadratic_forms(p)
    C = _topic_blocks(p)[1][active]
    scale = np.max(np.abs(Q))
    return p, P / scale, Q / scale, C


def _lifted_discounts(p, C, n=40, seed=3):
    """w = (1, v) of random feasible (monotone, non-negative) discounts, with their Φ(1)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        d = np.sort(rng.random(p.n) ** 3)[::-1]
        u = np.r_[-np.diff(d), d[-1]]                        # d = R u
        v = np.concatenate([u / (C[t] @ u) for t in range(C.shape[0])])
        out.append((np.r_[1.0, v], p.value(d / d.sum())))
    return out


def test_dual_matrix_is_the_solvers_dual_slack(forms):
    # assembled from the multipliers, S equals SCS's own dual of Z ⪰ 0 on an accurate solve (signs and layout)
    from optimize.solvers.bound import _lifted, _multipliers
    from optimize.solvers.certificate import dual_matrix

    p, P, Q, C = forms
    prob, Z, cons, sel = _lifted(P, Q, C)
    prob.solve(solver="SCS", eps=1e-9, max_iters=100000)
    S = dual_matrix(P, Q, C, *_multipliers(cons, *C.shape[:1], C.size), sel)
    assert np.max(np.abs(S - cons[0].dual_value)) < 1e-8


def test_certificate_inequality_holds_for_any_multipliers(forms):
    # w'Sw ≤ λ v'Qv − v'Pv on every lifted discount, for arbitrary multipliers and after repair()
    from optimize.solvers.certificate import _coupling_selector, dual_matrix, repair

    p, P, Q, C = forms
    n_t, k = C.shape
    n = n_t * k
    rng = np.random.default_rng(4)
    sel = _coupling_selector(n_t, k)
    lam = 0.3
    mult = (lam, rng.normal(size=n_t), rng.normal(size=(n_t, n)), rng.normal(size=sel.shape[0]),
            rng.random((n + 1, n + 1)))
    S = dual_matrix(P, Q, C, *mult, sel)
    S2, N2 = repair(S, mult[4], C, iters=5)
    assert (N2 >= 0).all() and not np.allclose(S, S2)
    for w, _ in _lifted_discounts(p, C):
        v = w[1:]
        rhs = lam * v @ Q @ v - v @ P @ v
        assert w @ S @ w <= rhs + 1e-9 and w @ S2 @ w <= rhs + 1e-9


def test_certified_bound_is_valid_for_arbitrary_and_inexact_duals(forms):
    from optimize.solvers.bound import _solve
    from optimize.solvers.certificate import _denominator_floor, certified_bound, certify, dual_matrix

    p, P, Q, C = forms
    n_t, k = C.shape
    n = n_t * k
    best = max(phi for _, phi in _lifted_discounts(p, C, n=200))
    # the denominator floor is below v'Qv of every discount and positive
    floor = _denominator_floor(Q, C)
    assert 0 < floor <= min(w[1:] @ Q @ w[1:] for w, _ in _lifted_discounts(p, C))
    # a multiplier λ below the optimum with nothing else: the certificate must charge enough to stay valid
    zero = (0.05, np.zeros(n_t), np.zeros((n_t, n)), None, np.zeros((n + 1, n + 1)))
    b0 = certify(P, Q, C, dual_matrix(P, Q, C, *zero), 0.05)[0]
    assert b0 >= best
    # an SCS run stopped early: its objective is below the optimum, the certified bound is not
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status, relaxed, Z, mult, sel = _solve(P, Q, C, "SCS", 1e-7, 200)
    assert status == "optimal_inaccurate" and relaxed < best          # not a bound by itself
    b = certified_bound(P, Q, C, mult, sel)
    assert best <= b < 0.2
    # dual_search from those multipliers: valid, and closer than the cold certificate
    from optimize.solvers.certificate import dual_search

    warm, _ = dual_search(P, Q, C, best, start=best + 0.01, iters=60, warm=mult, sel=sel)
    assert best <= warm <= b
    # accurate: the certificate charges next to nothing
    status, relaxed, Z, mult, sel = _solve(P, Q, C, "SCS", 1e-9, 100000)
    b = certified_bound(P, Q, C, mult, sel)
    assert status == "optimal" and best <= b <= relaxed + 1e-7


def test_dual_search_certifies_without_an_sdp_solve(forms):
    # no solver: from the multiplier-free slack, every iterate is a certified bound; after a few hundred
    # steps it is within 1e-2 of the relaxation's optimum (SCS, accurate) and never below a feasible Φ(1)
    from optimize.solvers.certificate import dual_search

    p, P, Q, C = forms
    best = max(phi for _, phi in _lifted_discounts(p, C, n=200))
    b = optimality_bound(p, eps=1e-9)
    bound, lam = dual_search(P, Q, C, b.relaxed, iters=150)
    assert max(best, b.relaxed - 1e-7) <= bound <= b.relaxed + 1e-2 and lam <= bound
    # started below the optimum (λ = 0.06 < 0.128), the charge keeps the bound ≥ every feasible Φ(1)
    bound, _ = dual_search(P, Q, C, 0.05, start=0.06, iters=30)
    assert bound >= best


def test_no_certificate_when_a_normaliser_is_zero(small):
    # non-monotone discount past a topic's last relevant document: the topic's simplex is unbounded, so no finite
    # charge exists; the bound falls back to Φ(1) ≤ 1 (valid), never to the uncertified solver value
    from optimize.solvers.certificate import certify

    p = Problem(small, 16, "discount", gain=[0, 1, 2], monotone_discount=False)  # a topic has 14 relevant
    P, Q, active = quadratic_forms(p)
    C = _topic_blocks(p)[1][active]
    assert (C == 0).any()
    S = np.zeros((C.size + 1, C.size + 1))
    assert certify(P, Q, C, S, 0.1)[0] == np.inf
