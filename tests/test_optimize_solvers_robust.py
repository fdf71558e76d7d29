"""Tests of optimize/solvers/robust.py: minimax tuning over collections and cut-offs."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import gtheory
import metrics
import optimize
from optimize.solvers.robust import minimax_problems
from tiny_collection import ndcg_by_hand, phi1_by_hand, tiny  # noqa: E402


@pytest.fixture(scope="module")
def j(embedded_trec9):
    return embedded_trec9


def test_minimax_over_collections(embedded_trec9):
    a, b = embedded_trec9.subset(topics=np.arange(25)), embedded_trec9.subset(topics=np.arange(25, 50))
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


def test_minimax_over_cutoffs_shares_one_discount(embedded_trec9):
    t = optimize.optimize_minimax(embedded_trec9, what="discount", cutoffs=[10, 30], gain=[0, 1, 2], starts=1)
    assert t.discount.size == 30 and abs(t.discount.sum() - 1) < 1e-12
    for p in t.per_problem:
        X = metrics.ndcg(embedded_trec9, gain=[0, 1, 2], discount=t.discount, cutoff=p["cutoff"]).to_numpy()
        assert gtheory.gstudy(X).phi(1) == pytest.approx(p["fun"], abs=1e-10)


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


# ------------------------------------------------------------- a tiny collection with an independent nDCG

def test_minimax_gain_over_two_tiny_collections_is_the_brute_force_maximin():
    # max over gains (a, 1 - a), a in [0, 1/2], of min(Φ_A(1), Φ_B(1)) of nDCG@5 with log2, by hand on a grid
    (ja, Ga, Ia), (jb, Gb, Ib) = tiny(1), tiny(3)
    d = 1 / np.log2(np.arange(2, 7))
    a = np.linspace(0, 0.5, 5001)
    fa = np.array([phi1_by_hand(ndcg_by_hand(Ga, Ia, [0, v, 1 - v], d)) for v in a])
    fb = np.array([phi1_by_hand(ndcg_by_hand(Gb, Ib, [0, v, 1 - v], d)) for v in a])
    worst = np.minimum(fa, fb)
    u = optimize.optimize_minimax([ja, jb], what="gain", cutoffs=5, labels=["A", "B"], starts=2)
    assert u.success
    by = {p["label"]: p["fun"] for p in u.per_problem}
    assert set(by) == {"A@5", "B@5"}
    # the epigraph SLSQP stops on Δf < 1e-12: at least the grid's best worst case
    assert min(by.values()) >= worst.max() - 1e-9
    g = u.gain[u.levels > 0]
    assert by["A@5"] == pytest.approx(phi1_by_hand(ndcg_by_hand(Ga, Ia, [0, *g], d)), abs=1e-12)
    assert by["B@5"] == pytest.approx(phi1_by_hand(ndcg_by_hand(Gb, Ib, [0, *g], d)), abs=1e-12)
    assert abs(g[0] - a[worst.argmax()]) <= 1e-3  # the maximin point, up to a few grid steps


def test_minimax_problems_labels_and_layout():
    ja, jb = tiny(1)[0], tiny(3)[0]
    problems, names, layout = minimax_problems([ja, jb], "discount", [3, 5], labels=["A", "B"])
    assert names == ["A@3", "A@5", "B@3", "B@5"]
    assert [p.cutoff for p in problems] == [3, 5, 3, 5] and layout.cutoff == 5 and layout.n == 5
    _, names, _ = minimax_problems(ja, "gain", 4)
    assert names == ["collection-1@4"]


@pytest.mark.parametrize("args, message", [
    (([], "discount", [5]), "`collections` must hold at least one JudgedRuns."),
    ((None, "discount", []), "`cutoffs` must hold at least one cut-off."),
    ((None, "discount", [5, 0]), "`cutoffs` must hold positive integers; got 0."),
    ((None, "discount", [True]), "`cutoffs` must hold positive integers; got True."),
    ((None, "both", [5]), "`what` must be one of 'discount', 'gain', 'joint'; got 'both'"),  # the table's rule
])
def test_minimax_problems_refusals(args, message):
    j = tiny(1)[0]
    collections, what, cutoffs = args
    with pytest.raises(ValueError, match=re.escape(message)):
        minimax_problems([j] if collections is None else collections, what, cutoffs)
    with pytest.raises(ValueError, match=re.escape("`labels` has 1 entries for 2 collections.")):
        minimax_problems([j, j], "discount", [5], labels=["x"])
