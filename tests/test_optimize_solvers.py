"""Solvers, multi-start, the Tuning result, minimax and cross-validation on the TREC-9 runs."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import gtheory
import metrics
import optimize
from optimize.objective import Problem
from optimize.slsqp import solve_lbfgsb, solve_slsqp


@pytest.fixture(scope="module")
def trec9():
    return metrics.load_trec9()


@pytest.fixture(scope="module")
def discount100(trec9):
    return {s: optimize.optimize_discount(trec9, gain=[0, 1, 2], cutoff=100, solver=s, starts=2)
            for s in ("slsqp", "lbfgsb", "cvxpy")}


def test_solvers_agree_at_cutoff_100(discount100):
    # tolerance: all three stop on changes of f below 1e-12 and reach the same point to ~1e-13 in
    # Φ(1) in practice; 1e-9 leaves room for BLAS/solver-version differences, far below the 1e-4
    # differences between standard discounts.
    f = {s: t.phi_1 for s, t in discount100.items()}
    assert max(f.values()) - min(f.values()) < 1e-9, f
    d = {s: t.discount for s, t in discount100.items()}
    assert np.max(np.abs(d["slsqp"] - d["cvxpy"])) < 1e-4
    assert np.max(np.abs(d["slsqp"] - d["lbfgsb"])) < 1e-4
    for t in discount100.values():
        assert t.success and t.n_agree == t.starts == 2


def test_optimum_feasible_and_verified_by_public_path(trec9, discount100):
    for t in discount100.values():
        d = t.discount
        assert abs(d.sum() - 1) <= 1e-9 and d.min() >= -1e-9 and np.all(np.diff(d) <= 1e-9)
        # Φ recomputed with metrics.ndcg + gtheory.gstudy equals what the optimiser reports
        assert t.gstudy.phi() == pytest.approx(t.phi(), abs=1e-10)
        assert t.gstudy.erho2() == pytest.approx(t.erho2(), abs=1e-10)
        assert t.topics_needed(0.95).n == t.gstudy.topics_needed(0.95, level=None).n
        assert t.topics_needed(0.9, "erho2").n == t.gstudy.topics_needed(0.9, "erho2", level=None).n


def test_optimum_beats_standard_discounts_and_is_stationary(trec9, discount100):
    t = discount100["slsqp"]
    for disc in ("log2", "zipf", "linear", "none"):
        X = metrics.ndcg(trec9, gain=[0, 1, 2], discount=disc, cutoff=100).to_numpy()
        assert gtheory.gstudy(X).phi(1) < t.phi_1
    # no feasible direction improves: random feasible perturbations do not increase f
    p = Problem(trec9, 100, "discount", gain=[0, 1, 2])
    rng = np.random.default_rng(0)
    for _ in range(20):
        y = np.sort(rng.dirichlet(np.ones(100)))[::-1]
        assert p.value((1 - 1e-3) * t.discount + 1e-3 * y) <= t.phi_1 + 1e-12


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


def test_analytic_gradient_path_uses_no_finite_differences(trec9):
    p = Problem(trec9, 30, "discount", gain=[0, 1, 2])
    r = solve_slsqp(p, p.normalise(np.ones(30)))
    fd = solve_slsqp(p, p.normalise(np.ones(30)), jac=False)
    assert 0 < r.njev <= r.nfev < fd.nfev / 10  # gradients only at iterates; FD needs n + 1 values each
    assert r.fun >= fd.fun - 1e-9


def test_json_round_trip_and_evaluation(trec9, tmp_path):
    t = optimize.optimize_gain(trec9, discount="log2", cutoff=10, starts=2)
    path = tmp_path / "t.json"
    t.to_json(str(path))
    u = optimize.Tuning.from_json(str(path))
    np.testing.assert_array_equal(u.gain, t.gain)
    np.testing.assert_array_equal(u.discount, t.discount)
    assert u.phi() == t.phi() and u.topics_needed(0.95).n == t.topics_needed(0.95).n
    assert u.evaluate(trec9).phi() == pytest.approx(t.phi(), abs=1e-10)
    half = trec9.subset(topics=np.arange(25))
    np.testing.assert_allclose(u.ndcg(half).to_numpy(), t.ndcg(trec9).to_numpy()[:, :25], atol=1e-15)
    with pytest.raises(ValueError, match="loaded from JSON"):
        u.gstudy
    with pytest.raises(ValueError, match="not a gtheory"):
        optimize.Tuning.from_json('{"what": "gain"}')


def test_failure_is_reported_and_strict_raises(trec9, monkeypatch):
    import optimize.tune as tune

    real = tune.solve_slsqp
    monkeypatch.setattr(tune, "solve_slsqp", lambda p, x0: real(p, x0, maxiter=1))
    with pytest.warns(optimize.OptimizationWarning, match="did not converge"):
        t = optimize.optimize_discount(trec9, gain=[0, 1, 2], cutoff=30, solver="slsqp", starts=1)
    assert not t.success and "Iteration limit" in t.message
    with pytest.raises(optimize.OptimizationError):
        optimize.optimize_discount(trec9, gain=[0, 1, 2], cutoff=30, solver="slsqp", starts=1, strict=True)


def test_unconstrained_discount_not_monotone_and_at_least_as_stable(trec9):
    c = optimize.optimize_discount(trec9, gain=[0, 1, 2], cutoff=20, starts=2)
    u = optimize.optimize_discount(trec9, gain=[0, 1, 2], cutoff=20, monotone=False, starts=2)
    assert u.phi_1 >= c.phi_1 - 1e-12
    assert np.sum(np.diff(u.discount) > 1e-6) >= 3  # Fig. 3: fluctuates with rank
    assert u.gstudy.phi() == pytest.approx(u.phi(), abs=1e-10)


def test_minimax_over_collections(trec9):
    a, b = trec9.subset(topics=np.arange(25)), trec9.subset(topics=np.arange(25, 50))
    t = optimize.optimize_minimax([a, b], what="joint", cutoffs=10, labels=["A", "B"], starts=2)
    fa = optimize.optimize_joint(a, cutoff=10, starts=2).phi_1
    fb = optimize.optimize_joint(b, cutoff=10, starts=2).phi_1
    worst = min(p["fun"] for p in t.per_problem)
    assert t.success
    assert worst <= min(fa, fb) + 1e-9           # cannot beat either collection's own optimum
    # and it beats (or equals) the worst case of each collection's own optimum used on both
    for own in (optimize.optimize_joint(a, cutoff=10, starts=1), optimize.optimize_joint(b, cutoff=10, starts=1)):
        w = min(gtheory.gstudy(own.ndcg(c)).phi(1) for c in (a, b))
        assert worst >= w - 1e-9
    # the reported worst case is recomputed by the public path
    assert t.gstudy.phi(1) == pytest.approx(worst, abs=1e-10)


def test_minimax_over_cutoffs_shares_one_discount(trec9):
    t = optimize.optimize_minimax(trec9, what="discount", cutoffs=[10, 30], gain=[0, 1, 2], starts=1)
    assert t.discount.size == 30 and abs(t.discount.sum() - 1) < 1e-12
    for p in t.per_problem:
        X = metrics.ndcg(trec9, gain=[0, 1, 2], discount=t.discount, cutoff=p["cutoff"]).to_numpy()
        assert gtheory.gstudy(X).phi(1) == pytest.approx(p["fun"], abs=1e-10)


def test_cross_validate_is_tidy_and_honest(trec9):
    cv = optimize.cross_validate(trec9, what="discount", cutoff=20, n_splits=2, starts=1, seed=3)
    assert set(cv.columns) >= {"split", "config", "part", "phi", "erho2", "topics_needed_phi", "n_topics"}
    assert len(cv) == 2 * 4 * 2 and cv["success"].all()
    tr = cv[cv.part == "train"].pivot(index="split", columns="config", values="phi_1")
    # in sample the tuned discount beats every standard one (it maximises over a superset)
    assert (tr["tuned"] >= tr[["log2", "zipf", "linear"]].max(axis=1) - 1e-12).all()
    assert (cv[cv.part == "test"]["n_topics"] == 25).all()
    with pytest.raises(ValueError, match="`n_splits` must be"):
        optimize.cross_validate(trec9, n_splits=0)


def test_argument_errors(trec9):
    with pytest.raises(ValueError, match="`solver` must be"):
        optimize.optimize_discount(trec9, cutoff=10, solver="newton")
    with pytest.raises(ValueError, match="`starts` must be"):
        optimize.optimize_discount(trec9, cutoff=10, starts=0)


# ----------------------------------------------------------------- SLSQP formulations, BLAS threads
@pytest.mark.parametrize("what,k,monotone", [("discount", 100, True), ("gain", 100, True), ("joint", 20, True),
                                             ("discount", 30, False), ("joint", 10, False)])
def test_slsqp_formulations_reach_the_same_optimum(trec9, what, k, monotone):
    # "anchored" (default), "reduced", "paper" (Fig. 1 literally) and "increments" describe one
    # problem; reference: the literal paper form. Tolerance 1e-10 in Φ(1): all stop on Δf < 1e-12.
    p = Problem(trec9, k, what, gain=[0, 1, 2], monotone_gain=monotone, monotone_discount=monotone)
    x0 = p.normalise(np.ones(p.n))
    runs = {f: solve_slsqp(p, x0, formulation=f) for f in ("anchored", "reduced", "paper", "increments")}
    for f in ("anchored", "reduced", "paper"):
        assert runs[f].success, (f, runs[f].message)
    for f in ("anchored", "reduced"):
        assert "successfully" in runs[f].message  # SciPy exit mode 0, not a tolerated failure
    for f, r in runs.items():
        assert r.fun == pytest.approx(runs["paper"].fun, abs=1e-10), f
        assert p.violation(r.x) <= 1e-9
    assert runs["anchored"].solver == "slsqp" and runs["reduced"].solver == "slsqp[reduced]"
    # the default path's Φ(1) recomputed independently with metrics.ndcg + gtheory.gstudy
    g, d = p.split(runs["anchored"].x)
    X = metrics.ndcg(trec9, gain={float(l): float(v) for l, v in zip(p.levels, g)}, discount=d, cutoff=k).to_numpy()
    assert gtheory.gstudy(X).phi(1) == pytest.approx(runs["anchored"].fun, abs=1e-12)


def test_anchored_formulation_holds_the_top_value_and_rescales(trec9):
    # the anchor (top-rank discount, top-grade gain) is fixed at its projected start value during
    # the solve; the reported x sums to 1 per block, and the start's scale does not matter
    from optimize.slsqp import _anchored, make_feasible

    p = Problem(trec9, 12, "joint", gain=[0, 1, 2])
    x0 = make_feasible(p, p.normalise(np.r_[np.linspace(2, 1, 12), 1.0, 3.0]))
    A_eq, b_eq, A_in = p.linear_constraints()
    base, free, A_eq2, _, A_in2, b_in2, bounds = _anchored(p, x0, A_eq, b_eq, A_in)
    assert set(range(p.n)) - set(free.tolist()) == {0, 13}  # d_1 and the grade-2 gain
    assert base[0] == x0[0] and base[13] == x0[13]
    assert A_eq2.shape[0] == 0  # both blocks are monotone: no equality left
    # d_2 <= d_1 and g_1 <= g_2 became upper bounds; d_12 >= 0 and g_1 >= 0 lower bounds
    b = dict(zip(free.tolist(), bounds))
    assert b[1] == (None, x0[0]) and b[11] == (0.0, None) and b[12] == (0.0, x0[13])
    assert A_in2.shape[0] == 10 and np.all(b_in2 == 0)  # d_2 >= d_3 ... d_11 >= d_12
    r1 = solve_slsqp(p, x0)
    r2 = solve_slsqp(p, 7.0 * x0)  # same direction, other scale: same normalised answer
    assert r1.success and r2.success
    assert r1.fun == pytest.approx(r2.fun, abs=1e-12)
    np.testing.assert_allclose(r1.x, r2.x, atol=1e-6)
    for blk in p.blocks:
        assert r1.x[blk.slice].sum() == pytest.approx(1.0, abs=1e-12)


def test_anchored_with_nothing_to_optimise_returns_the_start(tmp_path):
    # binary relevance: the gain block is one anchored variable, nothing is free
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{t} 0 d{i} {int(i % 2 == 0)}\n" for t in (1, 2) for i in range(6)))
    runs = []
    for s in range(3):
        path = tmp_path / f"run{s}"
        path.write_text("".join(f"{t} Q0 d{(i + s + t) % 6} {i + 1} {10 - i} run{s}\n" for t in (1, 2) for i in range(5)))
        runs.append(path)
    j = metrics.judge(runs, qrels)
    p = Problem(j, 4, "gain", discount="log2")
    assert p.n == 1
    r = solve_slsqp(p, np.array([0.3]))
    assert r.success and r.nit == 0 and "nothing to optimise" in r.message
    np.testing.assert_array_equal(r.x, [1.0])
    assert r.fun == pytest.approx(p.value(np.array([1.0])))


def test_default_formulation_converges_cleanly_from_every_start(trec9):
    p = Problem(trec9, 100, "discount", gain=[0, 1, 2])
    from optimize.multistart import starting_points

    vals = []
    for name, x0 in starting_points(p, 6, seed=0):
        exact, fd = solve_slsqp(p, x0), solve_slsqp(p, x0, jac=False) if name == "log2" else None
        assert exact.success and "successfully" in exact.message, (name, exact.message)
        if fd is not None:  # like with like: finite differences reach no better Φ
            assert fd.success and exact.fun >= fd.fun - 1e-12 and exact.nfev < fd.nfev / 50
        vals.append(exact.fun)
    assert max(vals) - min(vals) < 1e-10


def test_formulation_argument_error(trec9):
    p = Problem(trec9, 10, "discount", gain=[0, 1, 2])
    with pytest.raises(ValueError, match="`formulation` must be one of"):
        solve_slsqp(p, np.full(10, 0.1), formulation="fig1")


def test_solvers_run_with_single_threaded_blas_and_restore_it():
    from threadpoolctl import threadpool_info

    from optimize._threads import single_threaded_blas

    before = {i["filepath"]: i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}
    with single_threaded_blas():
        inside = [i for i in threadpool_info() if i["user_api"] == "blas"]
        assert inside and all(i["num_threads"] == 1 for i in inside)
        # SciPy's own OpenBLAS (SLSQP's subproblem) is among the limited libraries
        assert any("scipy" in i["filepath"] for i in inside)
    after = {i["filepath"]: i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}
    assert all(after[f] == n for f, n in before.items())


# ------------------------------------------------------------------------- negative variance warnings
# 5 systems x 6 topics of TREC-9 where σ²(system) of log2/linear nDCG@20 is negative
_NEG_SUB = dict(systems=[22, 23, 33, 48, 92], topics=[7, 11, 19, 21, 25, 31])
# 4 x 3 where even the stability-optimal gains leave σ²(system) < 0
_NEG_FINAL = dict(systems=[47, 52, 77, 98], topics=[12, 15, 45])


def test_intermediate_gstudies_do_not_warn(trec9):
    sub = trec9.subset(**_NEG_SUB)
    X = metrics.ndcg(sub, gain=[0, 1, 2], discount="log2", cutoff=20).to_numpy()
    with pytest.warns(gtheory.NegativeVarianceWarning):  # the data does produce negative estimates
        gtheory.gstudy(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the test
        t = optimize.optimize_discount(sub, gain=[0, 1, 2], cutoff=20, starts=4)
        g = optimize.optimize_gain(sub, discount="log2", cutoff=20, starts=4)
        cv = optimize.cross_validate(sub, what="discount", cutoff=20, gain=[0, 1, 2], n_splits=3, starts=2)
        t.gstudy, g.gstudy
    assert t.negative_components == [] and g.negative_components == []
    # recorded instead: the clipped_* columns equal an independent G-study of the same split
    rng = np.random.default_rng(0)
    perm = rng.permutation(6)
    test_topics = np.sort(perm[3:])
    Xl = metrics.ndcg(sub.subset(topics=test_topics), gain=[0, 1, 2], discount="log2", cutoff=20).to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
        ref = gtheory.gstudy(Xl)
    row = cv[(cv.split == 0) & (cv.config == "log2") & (cv.part == "test")].iloc[0]
    assert (row.clipped_system, row.clipped_topic, row.clipped_residual) == (
        ref.clipped_system, ref.clipped_topic, ref.clipped_residual)
    assert cv[["clipped_system", "clipped_topic"]].to_numpy().any()


def test_final_configuration_warns_once_and_records(trec9):
    sub = trec9.subset(**_NEG_FINAL)
    with pytest.warns(gtheory.NegativeVarianceWarning, match="tuned nDCG@10") as rec:
        t = optimize.optimize_gain(sub, discount="log2", cutoff=10, starts=2)
    assert len([w for w in rec if issubclass(w.category, gtheory.NegativeVarianceWarning)]) == 1
    vc = gtheory.variance_components(t.ndcg(sub).to_numpy())  # independent: public nDCG, raw components
    expect = [n for n in ("system", "topic", "residual") if getattr(vc, n) < 0]
    assert t.negative_components == expect == ["system"]
    assert optimize.Tuning.from_json(t.to_json()).negative_components == ["system"]


def test_cross_validate_row_matches_an_independent_computation(trec9):
    # reference for one split: tune with optimize_discount on judged.subset(topics=train), score the
    # held-out topics with metrics.ndcg and gtheory.gstudy — the public path, outside cross_validate
    cv = optimize.cross_validate(trec9, what="discount", cutoff=100, gain=[0, 1, 2], n_splits=2, seed=5, starts=2)
    rng = np.random.default_rng(5)
    for split in range(2):
        perm = rng.permutation(trec9.n_topics)  # the documented split rule: first half tunes
        train, test = np.sort(perm[:25]), np.sort(perm[25:])
        t = optimize.optimize_discount(trec9.subset(topics=train), gain=[0, 1, 2], cutoff=100, starts=2, seed=5)
        held = trec9.subset(topics=test)
        for config, disc in (("tuned", t.discount), ("log2", "log2"), ("zipf", "zipf")):
            X = metrics.ndcg(held, gain=[0, 1, 2], discount=disc, cutoff=100).to_numpy()
            g = gtheory.gstudy(X)
            row = cv[(cv.split == split) & (cv.config == config) & (cv.part == "test")].iloc[0]
            assert row.n_topics == 25
            assert row.phi == pytest.approx(g.phi(25), abs=1e-10), (split, config)
            assert row.erho2 == pytest.approx(g.erho2(25), abs=1e-10)
            assert row.topics_needed_phi == g.topics_needed(0.95, level=None).n
        tuned_train = cv[(cv.split == split) & (cv.config == "tuned") & (cv.part == "train")].iloc[0]
        assert tuned_train.phi == pytest.approx(t.phi(), abs=1e-9)


# ------------------------------------------------------------------ documentation of the front ends
@pytest.mark.parametrize("name", ["optimize_discount", "optimize_gain", "optimize_joint", "optimize_minimax",
                                  "cross_validate"])
def test_front_ends_give_the_formula_and_the_paper(name):
    # before: optimize_gain had no formula; optimize_gain, optimize_joint, optimize_minimax and cross_validate
    # did not cite Kanoulas & Aslam 2009
    import inspect

    f = getattr(optimize, name)
    doc = inspect.getdoc(f)
    assert ".. math::" in doc or ":math:" in doc
    assert "Kanoulas & Aslam (2009" in doc or "Kanoulas & Aslam 2009" in doc
    assert "Empirical justification of the gain and discount function" in doc or name == "optimize_discount"
    assert all(p.annotation is not inspect.Parameter.empty for p in inspect.signature(f).parameters.values())


@pytest.mark.parametrize("module", ["optimize", "optimize.tune", "optimize.robust", "optimize.multistart",
                                    "optimize.validation"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
