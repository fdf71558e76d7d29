"""optimize front ends on hard inputs: data that cannot be tuned, line-search stops at the optimum,
minimax cut-offs."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import gtheory
import metrics
import optimize
from optimize.objective import Problem
from optimize.parametrize import Parametrization
from optimize.tune import FIRST_ORDER_TOL, verify_first_order


@pytest.fixture(scope="module")
def j():
    return metrics.load_trec9()


# ------------------------------------------------- indistinguishable systems (σ²(system) = 0)
@pytest.mark.parametrize("solver", ["slsqp", "lbfgsb", "cvxpy"])
def test_identical_systems_are_reported_as_failure(j, solver):
    same = j.subset(systems=[5, 5, 5], repeats=True)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        t = optimize.optimize_discount(same, gain=[0, 1, 2], cutoff=10, solver=solver, starts=2)
    # one warning, the reason; no rounding-level NegativeVarianceWarning on top
    assert [w.category for w in rec] == [optimize.OptimizationWarning]
    assert "indistinguishable under every configuration" in str(rec[0].message)
    assert not t.success
    assert t.message.startswith("the systems are indistinguishable under every configuration: σ²(system) = 0")
    assert "same grades at every rank ≤ 10" in t.message
    assert abs(t.phi_1) < 1e-20 and "CANNOT TUNE: the systems are indistinguishable" in t.summary()
    with pytest.raises(optimize.OptimizationError, match="cannot tune nDCG@10: the systems are indistinguishable"):
        optimize.optimize_discount(same, gain=[0, 1, 2], cutoff=10, solver=solver, starts=1, strict=True)


def test_identical_systems_fail_for_gains_joint_and_minimax(j):
    same = j.subset(systems=[7, 7], topics=list(range(10)), repeats=True)
    for call in (lambda: optimize.optimize_gain(same, discount="log2", cutoff=10, starts=1, strict=True),
                 lambda: optimize.optimize_joint(same, cutoff=10, starts=1, strict=True),
                 lambda: optimize.optimize_minimax([same], cutoffs=[5, 10], starts=1, strict=True)):
        with pytest.raises(optimize.OptimizationError, match="indistinguishable under every configuration"):
            call()


def test_flat_but_not_identical_systems_fail_too(j):
    # two systems that differ only below the cut-off: identical top 10, so σ²(system) of nDCG@10 is 0
    sub = j.subset(systems=[3, 3], repeats=True)
    grades = sub.grades.copy()
    grades[1, :, 50:] = grades[1, :, 50:][:, ::-1]
    from dataclasses import replace
    sub = replace(sub, grades=grades)
    with pytest.warns(optimize.OptimizationWarning, match="indistinguishable"):
        t = optimize.optimize_discount(sub, gain=[0, 1, 2], cutoff=10, starts=1)
    assert not t.success


def test_genuine_data_is_not_flagged(j):
    with warnings.catch_warnings():
        warnings.simplefilter("error", optimize.OptimizationWarning)
        t = optimize.optimize_discount(j.subset(systems=[0, 1, 2], topics=list(range(10))), gain=[0, 1, 2], cutoff=10, starts=1)
    assert t.success and t.phi_1 > 0


# ------------------------------------------------- L-BFGS-B line-search stop at the optimum
def _projected_gradient(p: Problem, x: np.ndarray) -> tuple[float, float]:
    """(‖projected gradient of −f‖∞ in the increments, |f|) at ``x``: L-BFGS-B's own pgtol measure."""
    par = Parametrization(p)
    z = par.to_z(x)
    f, g = par.value_and_grad(z)
    return float(np.max(np.abs(np.maximum(z + g, 0) - z))), abs(float(f))


def test_lbfgsb_reaches_the_optimum_whatever_its_message(j):
    """L-BFGS-B on nDCG@100's discount stops at the optimum — with ``CONVERGENCE`` or with ``ABNORMAL`` (line search
    failed on rounding), depending on the SciPy release and the machine's floating point: the property asserted is
    the optimum, not the message."""
    ref = optimize.optimize_discount(j, gain=[0, 1, 2], cutoff=100, solver="slsqp", starts=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", optimize.OptimizationWarning)
        t = optimize.optimize_discount(j, gain=[0, 1, 2], cutoff=100, solver="lbfgsb", starts=1)
    assert t.success
    # the same optimum as SLSQP on the paper's formulation, by the package's own rule for "the same optimum"
    # (multi-start agreement, agree_tol = 1e-6 in Φ(1))
    assert t.phi_1 == pytest.approx(ref.phi_1, abs=1e-6)
    # first-order (KKT) conditions of the bound-constrained problem to the tolerance verify_first_order accepts
    pg, f = _projected_gradient(Problem(j, 100, "discount", gain=[0, 1, 2]), t.discount)
    assert pg <= FIRST_ORDER_TOL * f


def test_abnormal_stop_at_a_first_order_point_is_reported_converged(j):
    """verify_first_order on a run that says ``ABNORMAL`` at the optimum (built here, so the test does not depend on
    what L-BFGS-B reports on this machine): accepted, with the projected gradient in the message."""
    p = Problem(j, 100, "discount", gain=[0, 1, 2])
    x = optimize.optimize_discount(j, gain=[0, 1, 2], cutoff=100, solver="slsqp", starts=1).discount
    pg, f = _projected_gradient(p, x)
    assert pg <= FIRST_ORDER_TOL * f  # SLSQP's optimum is a first-order point (else the premise fails)
    run = optimize.SolverRun(x=x, fun=p.value(x), success=False, message="ABNORMAL: ", nit=1, nfev=1, njev=1,
                             solver="lbfgsb", seconds=0.0)
    out = verify_first_order(p, run)
    assert out.success and out.x is run.x and out.fun == run.fun
    assert out.message.startswith("converged: projected gradient") and "after line-search stop" in out.message


def test_lbfgsb_abnormal_stop_away_from_the_optimum_stays_failed(j):
    p = Problem(j, 30, "discount", gain=[0, 1, 2])
    x0 = metrics.discount_vector("log2", 30)
    run = optimize.SolverRun(x=x0 / x0.sum(), fun=p.value(x0 / x0.sum()), success=False, message="ABNORMAL: ",
                             nit=1, nfev=1, njev=1, solver="lbfgsb", seconds=0.0)
    out = verify_first_order(p, run)
    assert not out.success and "projected gradient" in out.message and "> tol" in out.message


# ------------------------------------------------- minimax cut-offs
def test_minimax_cutoff_is_the_largest_and_binding_is_recorded(j):
    u = optimize.optimize_minimax([j], what="discount", cutoffs=[10, 30], gain=[0, 1, 2], starts=1)
    assert u.cutoff == 30 == u.discount.size
    worst = min(u.per_problem, key=lambda p: p["fun"])
    assert u.binding_cutoff == worst["cutoff"] == 10 and u.binding_label == "collection-1@10"
    assert u.phi() == pytest.approx(worst["phi"], abs=1e-12)
    # gstudy reproduces the binding problem's Φ; ndcg defaults to the full discount
    assert u.gstudy.phi() == pytest.approx(u.phi(), abs=1e-12)
    assert u.ndcg(j).shape == (j.n_systems, j.n_topics)
    ref30 = metrics.ndcg(j, gain=[0, 1, 2], discount=u.discount, cutoff=30).to_numpy()
    np.testing.assert_allclose(u.ndcg(j).to_numpy(), ref30, atol=1e-15)
    with pytest.raises(ValueError, match="exceeds the tuned cut-off 30"):
        u.ndcg(j, cutoff=31)
    back = optimize.Tuning.from_json(u.to_json())
    assert (back.cutoff, back.binding_cutoff, back.binding_label) == (30, 10, "collection-1@10")
    assert back.evaluate(j, cutoff=back.binding_cutoff).phi() == pytest.approx(u.phi(), abs=1e-12)
    np.testing.assert_allclose(back.ndcg(j).to_numpy(), ref30, atol=1e-15)
    # a minimax document written before `binding_cutoff` (cutoff = the binding one) is read as now
    d = u.to_dict()
    d.update(cutoff=10)
    for k in ("binding_cutoff", "binding_label", "gain_family"):
        d.pop(k)
    import json
    old = optimize.Tuning.from_json(json.dumps(d))
    assert (old.cutoff, old.binding_cutoff) == (30, 10)


@pytest.mark.parametrize("objective", ["phi", "erho2"])
def test_minimax_per_problem_reports_the_coefficient_as_tuning_phi(j, objective):
    # 4 x 3 of TREC-9 where σ²(system) of the tuned nDCG stays negative: the raw ratio gave Φ = -1.63
    # for the binding problem while Tuning.phi() (G-study convention, negatives set to 0) is 0
    sub = j.subset(systems=[47, 52, 77, 98], topics=[12, 15, 45])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
        u = optimize.optimize_minimax([sub], what="gain", cutoffs=[5, 10], objective=objective, starts=2)
    assert u.var_system < 0 and u.fun < 0
    binding = next(p for p in u.per_problem if p["label"] == u.binding_label)
    coef = getattr(u, objective)()
    assert binding[objective] == coef == 0.0
    assert binding["fun"] == pytest.approx(u.fun, abs=1e-12)  # the raw objective stays raw
    for p in u.per_problem:  # every problem as its own G-study reports it
        assert p[objective] == pytest.approx(getattr(u.evaluate(sub, cutoff=p["cutoff"]), objective)(p["n_topics"]),
                                             abs=1e-12)


def test_minimax_per_problem_binding_equals_tuning_phi(j):
    u = optimize.optimize_minimax([j], what="discount", cutoffs=[10, 30], gain=[0, 1, 2], starts=1)
    binding = next(p for p in u.per_problem if p["label"] == u.binding_label)
    assert binding["phi"] == u.phi()


def test_minimax_gain_family_is_remembered(j):
    u = optimize.optimize_minimax([j], what="discount", cutoffs=[5, 10], gain="linear", starts=1)
    assert u.gain_family == "linear"
    assert optimize.optimize_minimax([j], what="gain", cutoffs=[5], starts=1).gain_family is None


def test_negative_estimate_is_not_flagged_as_flat(j):
    sub = j.subset(systems=[47, 52, 77, 98], topics=[12, 15, 45])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
        warnings.simplefilter("error", optimize.OptimizationWarning)
        t = optimize.optimize_gain(sub, discount="log2", cutoff=10, starts=2)
    assert t.success and t.phi() == 0.0 and t.fun < 0


@pytest.mark.parametrize("what", ["discount", "gain", "joint"])
def test_minimax_over_cutoffs_is_a_consistent_tuning_for_every_what(j, what):
    # before: for what="gain" the discount was the binding problem's (10 entries) under cutoff 20, so
    # ndcg()/evaluate() failed and from_json(to_json()) refused "'cutoff' 20 must be the length of 'discount' (10)"
    u = optimize.optimize_minimax([j], what=what, cutoffs=[10, 20], gain="linear", discount="log2", starts=1)
    assert u.binding_cutoff == 10  # the binding problem is not the largest cut-off
    assert u.cutoff == 20 == u.discount.size and u.discount.sum() == pytest.approx(1, abs=1e-12)
    if what == "gain":  # the fixed discount at the largest cut-off, normalised
        d = metrics.discount_vector("log2", 20)
        np.testing.assert_allclose(u.discount, d / d.sum(), atol=1e-15)
    assert u.ndcg(j).shape == (j.n_systems, j.n_topics)
    assert u.gstudy.phi() == pytest.approx(u.phi(), abs=1e-12)
    back = optimize.Tuning.from_json(u.to_json())
    assert (back.cutoff, back.binding_cutoff, back.discount.size) == (20, 10, 20)
    np.testing.assert_array_equal(back.discount, u.discount)
    np.testing.assert_allclose(back.ndcg(j).to_numpy(), u.ndcg(j).to_numpy(), atol=1e-15)
    for p in u.per_problem:  # every problem is the returned Tuning at its cut-off
        assert p["phi"] == pytest.approx(back.evaluate(j, cutoff=p["cutoff"]).phi(p["n_topics"]), abs=1e-12)
    assert f"nDCG@20: {what} tuned" in str(u)


def test_minimax_gain_uses_one_fixed_discount_for_every_cutoff(j):
    # "linear" depends on the cut-off: the problems use (21 - r)/20 at both cut-offs, the Tuning's discount,
    # so the binding problem's Φ is what the Tuning gives at its cut-off
    sub = j.subset(topics=list(range(20)))
    u = optimize.optimize_minimax([sub], what="gain", cutoffs=[10, 20], discount="linear", starts=1)
    np.testing.assert_allclose(u.discount * 20 * 21 / 2 / 20, (21 - np.arange(1, 21)) / 20, atol=1e-12)
    assert u.gstudy.phi() == pytest.approx(u.phi(), abs=1e-12)
    for p in u.per_problem:
        assert p["phi"] == pytest.approx(u.evaluate(sub, cutoff=p["cutoff"]).phi(p["n_topics"]), abs=1e-12)


# ------------------------------------------------- seeds
_FRONT_ENDS = {
    "discount": lambda j, **kw: optimize.optimize_discount(j, gain=[0, 1, 2], cutoff=10, **kw),
    "gain": lambda j, **kw: optimize.optimize_gain(j, discount="log2", cutoff=10, **kw),
    "joint": lambda j, **kw: optimize.optimize_joint(j, cutoff=10, **kw),
    "minimax": lambda j, **kw: optimize.optimize_minimax([j], cutoffs=[5, 10], **kw),
}


@pytest.mark.parametrize("front", sorted(_FRONT_ENDS))
@pytest.mark.parametrize("seed, error", [(-1, ValueError), ("a", TypeError), (1.5, TypeError), (True, TypeError)])
def test_bad_seed_is_refused_up_front(j, monkeypatch, front, seed, error):
    # before: NumPy's "expected non-negative integer" / SeedSequence's TypeError, from inside the starts
    def no_work(*args, **kwargs):
        raise AssertionError("the problem was built before `seed` was checked")

    monkeypatch.setattr(optimize.tune, "Problem", no_work)
    monkeypatch.setattr(optimize.robust, "Problem", no_work)
    msg = f"`seed` must be a non-negative integer, None or a numpy.random.Generator; got {seed!r}."
    for starts in (2, 6):
        with pytest.raises(error, match=re.escape(msg)):
            _FRONT_ENDS[front](j, starts=starts, seed=seed)


def test_good_seeds_are_accepted(j):
    from optimize.multistart import starting_points

    p = Problem(j, 10, "discount", gain=[0, 1, 2])
    a = starting_points(p, 6, seed=np.int64(3))
    b = starting_points(p, 6, seed=3)
    assert all(np.array_equal(x, y) for (_, x), (_, y) in zip(a, b))
    assert len(starting_points(p, 6, seed=None)) == 6
    with pytest.raises(ValueError, match=r"`seed` must be a non-negative integer, None or a numpy.random.Generator; got -2\."):
        starting_points(p, 6, seed=-2)


# ------------------------------------------------- cross_validate arguments
@pytest.mark.parametrize("kwargs, error, msg", [
    # before: "cannot convert float NaN to integer"
    (dict(train_fraction=float("nan")), ValueError,
     "`train_fraction` must be a number strictly between 0 and 1; got nan."),
    (dict(train_fraction="0.5"), ValueError, "`train_fraction` must be a number strictly between 0 and 1; got '0.5'."),
    (dict(train_fraction=1.5), ValueError, "`train_fraction` must be a number strictly between 0 and 1; got 1.5."),
    (dict(train_fraction=0.02), ValueError,
     "`train_fraction` must leave at least 2 topics on each side; got 0.02 of 50"),
    # before: raised from inside gtheory after the first split had been tuned
    (dict(target=1.5), ValueError, "`target` must be a number strictly between 0 and 1; got 1.5."),
    (dict(target=None), ValueError, "`target` must be a number strictly between 0 and 1; got None."),
    (dict(seed=-1), ValueError, "`seed` must be a non-negative integer, None or a numpy.random.Generator; got -1."),
    (dict(seed="a"), TypeError, "`seed` must be a non-negative integer, None or a numpy.random.Generator; got 'a'."),
    (dict(starts=0), ValueError, "`starts` must be a positive integer; got 0."),
    (dict(solver="SLSQP"), ValueError, "`solver` must be one of"),
    (dict(objective="Phi"), ValueError, "`objective` must be 'phi' or 'erho2'; got 'Phi'."),
    (dict(n_splits=0), ValueError, "`n_splits` must be a positive integer; got 0."),
    (dict(what="both"), ValueError, "`what` must be 'discount', 'gain' or 'joint'; got 'both'."),
])
def test_cross_validate_checks_arguments_before_tuning(j, monkeypatch, kwargs, error, msg):
    def no_work(*args, **kw):
        raise AssertionError("a split was tuned before the arguments were checked")

    for name in ("optimize_discount", "optimize_gain", "optimize_joint"):
        monkeypatch.setattr(optimize.validation, name, no_work)
    with pytest.raises(error, match=re.escape(msg)):
        optimize.cross_validate(j, **{"cutoff": 10, "n_splits": 1, **kwargs})


def test_cross_validate_refuses_what_is_not_judged_runs():
    # before: AttributeError: 'NoneType' object has no attribute 'n_topics'
    for judged, name in ((None, "NoneType"), (np.zeros((3, 3, 3)), "ndarray")):
        with pytest.raises(TypeError, match=rf"`judged` must be a metrics.JudgedRuns; got {name}\."):
            optimize.cross_validate(judged, cutoff=10)


# ------------------------------------------------- minimax: which collection is wrong
def test_minimax_grade_errors_name_the_collection_with_plain_numbers(j):
    from dataclasses import replace

    j013 = replace(j, levels=np.array([0.0, 1.0, 3.0]))  # same runs, grades renamed 0/1/3
    # before: "...; got [(np.float64(1.0), np.float64(2.0)), (np.float64(1.0), np.float64(3.0))]."
    for what in ("gain", "joint"):
        with pytest.raises(ValueError) as exc:
            optimize.optimize_minimax([j, j013], what=what, cutoffs=[10], labels=["t9", "t9-regraded"], starts=1)
        assert str(exc.value) == ("shared gains need the same positive grades in every collection; "
                                  "`collections`[0] ('t9') has 1, 2; `collections`[1] ('t9-regraded') has 1, 3.")
    # before: "the gain vector has 3 entries (grades 0..2) but the qrels hold grade(s) [3.0]", no collection
    with pytest.raises(ValueError, match=re.escape("`collections`[1] ('collection-2'): `gain` has 3 entries")):
        optimize.optimize_minimax([j, j013], what="discount", cutoffs=[10], gain=[0, 1, 2], starts=1)
    with pytest.raises(TypeError, match=re.escape("`collections`[1] ('b') must be a metrics.JudgedRuns; got str.")):
        optimize.optimize_minimax([j, "x"], cutoffs=[10], labels=["a", "b"], starts=1)
    # a named gain family applies to any grades: no error
    u = optimize.optimize_minimax([j, j013], what="discount", cutoffs=[5], gain="linear", starts=1)
    assert [p["label"] for p in u.per_problem] == ["collection-1@5", "collection-2@5"]


# ------------------------------------------------- minimax: what is maximised with different topic counts
def test_minimax_maximises_the_worst_phi1_and_reports_phi_at_each_own_topic_count(j):
    big, small = j.subset(topics=list(range(40))), j.subset(topics=list(range(40, 50)))
    u = optimize.optimize_minimax([big, small], what="discount", cutoffs=[10, 20], gain="linear",
                                  labels=["big", "small"], starts=1)
    by = {p["label"]: p for p in u.per_problem}
    # the binding problem is the worst Φ(1) (= worst ρ), not the worst Φ at each collection's own size
    assert u.binding_label == min(by, key=lambda k: by[k]["fun"]) == "big@10"
    assert min(by, key=lambda k: by[k]["phi"]) == "small@10"
    for p in u.per_problem:  # fun = Φ_i(1), phi = Φ_i(n_i), both from the problem's own G-study
        g = u.evaluate(big if p["label"].startswith("big") else small, cutoff=p["cutoff"])
        assert p["fun"] == pytest.approx(g.phi(1), abs=1e-12) and p["phi"] == pytest.approx(g.phi(p["n_topics"]),
                                                                                              abs=1e-12)
        assert p["n_topics"] == (40 if p["label"].startswith("big") else 10)
    text = str(u)
    assert "binding problem big@10, 104 systems x 40 topics" in text
    assert "maximised the worst Φ(1) of 4 problems [Φ at each problem's own number of topics]:" in text
    assert f"small@10: {by['small@10']['fun']:.4f} [Φ(10) = {by['small@10']['phi']:.4f}]" in text
    # the docstring says so
    assert "**not** the worst :math:`\\Phi_i(n_i)`" in optimize.optimize_minimax.__doc__


def test_a_generator_is_accepted_as_seed_and_is_reproducible(j):
    # experiments accepted a numpy.random.Generator as `seed`; optimize now does too (random starts 5 and 6)
    a = optimize.optimize_discount(j, gain=[0, 1, 2], cutoff=10, starts=6, seed=np.random.default_rng(7))
    b = optimize.optimize_discount(j, gain=[0, 1, 2], cutoff=10, starts=6, seed=np.random.default_rng(7))
    assert np.array_equal(a.discount, b.discount) and a.phi() == b.phi()
    from optimize.multistart import starting_points

    p = Problem(j, 10, "discount", gain=[0, 1, 2])
    x = starting_points(p, 6, seed=np.random.default_rng(3))
    y = starting_points(p, 6, seed=np.random.default_rng(3))
    assert all(np.array_equal(u, v) for (_, u), (_, v) in zip(x, y))
    assert not np.array_equal(x[-1][1], starting_points(p, 6, seed=np.random.default_rng(4))[-1][1])


def test_a_generator_seeds_recommend_and_the_bootstrap(j):
    # the same Generator state gives the same result; the result records no seed (a Generator is not one number)
    import gtheory

    sub = j.subset(systems=range(0, 104, 4))
    a, b = (optimize.recommend(sub, cutoff=10, n_splits=4, n_inner=2, n_seeds=2, seed=np.random.default_rng(3),
                               progress=False) for _ in range(2))
    assert a.outer.equals(b.outer) and a.choice == b.choice and a.seed is None
    g = gtheory.gstudy(metrics.ndcg(sub, cutoff=10))
    x, y = (g.bootstrap(n_resamples=50, seed=np.random.default_rng(1)) for _ in range(2))
    assert x.to_dict() == y.to_dict() and x.seed is None


def test_the_children_of_a_generator_seed_are_its_seed_sequence_children():
    # reference: Generator.spawn (NumPy >= 1.25) spawns the seed sequence of the generator's bit generator; built here
    # from numpy.random.SeedSequence(3), which default_rng(3) wraps, so NumPy 1.24's path is checked against it too
    from optimize.nested import seed_list

    kids = seed_list(np.random.default_rng(3), 3)
    want = [np.random.default_rng(s) for s in np.random.SeedSequence(3).spawn(2)]
    assert len(kids) == 3 and all(np.array_equal(k.random(5), w.random(5)) for k, w in zip(kids[1:], want))


def test_recommend_progress_may_be_a_callable(j):
    # one `progress` type across the project: True/False or a callable receiving each message
    got: list[str] = []
    optimize.recommend(j.subset(systems=range(0, 104, 4)), cutoff=10, n_splits=3, n_inner=2, n_seeds=1, seed=0,
                       progress=got.append)
    assert got == [f"recommend: outer splits: {i}/5" for i in range(1, 6)]  # 3 outer + the final selection + refit
    with pytest.raises(TypeError, match="`progress` must be True"):
        optimize.recommend(j, cutoff=10, progress="yes")
