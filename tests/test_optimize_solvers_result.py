"""optimize.solvers.result.Tuning: coefficients by the G-study convention, cut-offs, grade sets, JSON."""
from __future__ import annotations

import json
import math
import re
import warnings
from dataclasses import replace

import numpy as np
import pytest

import gtheory
import metrics
import optimize

# 4 x 3 of TREC-9 where even the stability-optimal gains leave σ²(system) < 0 (as _NEG_FINAL in
# tests/test_optimize_solvers_tune.py)
_NEG_FINAL = dict(systems=[47, 52, 77, 98], topics=[12, 15, 45])


@pytest.fixture(scope="module")
def j(embedded_trec9):
    return embedded_trec9


@pytest.fixture(scope="module")
def t10(j):
    return optimize.optimize_discount(j, gain=[0, 1, 2], cutoff=10, starts=1)


@pytest.fixture(scope="module")
def neg(j):
    sub = j.subset(**_NEG_FINAL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
        return sub, optimize.optimize_gain(sub, discount="log2", cutoff=10, starts=2)


# ----------------------------------------------------------------- Φ by the G-study convention
def test_negative_system_variance_reports_phi_as_the_gstudy_does(neg):
    sub, t = neg
    assert t.var_system < 0 and t.negative_components == ["system"]
    g = t.gstudy
    assert g.clipped_system
    # before: t.phi = -1.634 while gstudy.phi() = 0.0
    assert t.phi() == pytest.approx(g.phi(t.n_topics), abs=1e-12) and t.phi() == 0.0
    assert t.phi_1 == pytest.approx(g.phi(1), abs=1e-12)
    assert t.erho2() == pytest.approx(g.erho2(t.n_topics), abs=1e-12)
    assert t.erho2_1 == pytest.approx(g.erho2(1), abs=1e-12)
    assert t.phi(7) == pytest.approx(g.phi(7), abs=1e-12)
    assert t.topics_needed(0.9).n == np.inf
    # the optimiser's raw objective stays available: r/(1+r) of the raw components, negative here
    vc = gtheory.variance_components(t.ndcg(sub).to_numpy())
    r = vc.system / (vc.topic + vc.residual)
    assert t.phi_ratio_raw == pytest.approx(r, rel=1e-9)
    assert t.fun == pytest.approx(r / (1 + r), rel=1e-9) and t.fun < 0
    assert t.start_values[max(t.start_values, key=t.start_values.get)] == pytest.approx(t.fun, abs=1e-12)
    assert "set to 0" in t.summary()


def test_phi_equals_gstudy_for_every_front_end(j, t10):
    sub = j.subset(systems=list(range(0, 104, 4)), topics=list(range(20)))
    tunings = [
        t10,
        optimize.optimize_gain(sub, discount="log2", cutoff=10, starts=1),
        optimize.optimize_joint(sub, cutoff=10, starts=1, objective="erho2"),
        optimize.optimize_minimax([j], what="discount", cutoffs=[10, 20], gain=[0, 1, 2], starts=1),
    ]
    for t in tunings:
        g = t.gstudy
        assert t.phi() == pytest.approx(g.phi(t.n_topics), abs=1e-12)
        assert t.phi_1 == pytest.approx(g.phi(1), abs=1e-12)
        assert t.erho2() == pytest.approx(g.erho2(t.n_topics), abs=1e-12)
        # no negative component: the raw objective is the reported one
        assert t.fun == pytest.approx(t.phi_1 if t.objective == "phi" else t.erho2_1, abs=1e-12)


def test_coefficients_at_n_use_gtheorys_projection(t10, neg):
    # one D-study formula: Tuning.phi / erho2 and the coefficients of a new Tuning are gtheory.project
    for t in (t10, neg[1]):
        for n in (1, 7, 50, 123.5):
            assert t.phi(n) == float(gtheory.project(t.phi_ratio, n)) == pytest.approx(t.gstudy.phi(n), abs=1e-12)
            assert t.erho2(n) == float(gtheory.project(t.erho2_ratio, n))
            assert type(t.phi(n)) is float and type(t.erho2(n)) is float
        ns = np.array([1, 7, 50])  # an array of topic counts gives an array, as GStudy.phi
        np.testing.assert_allclose(t.phi(ns), t.gstudy.phi(ns), atol=1e-12)
        np.testing.assert_allclose(t.erho2(ns), t.gstudy.erho2(ns), atol=1e-12)
        assert t.phi() == t.phi(t.n_topics) and t.erho2() == t.erho2(t.n_topics)

def test_topics_needed_is_gtheorys_rule(t10, neg):
    # one rule for the number of topics: gtheory.topics_needed_for_ratio of the clipped ratio
    for t in (t10, neg[1]):
        for target in (0.5, 0.9, 0.95, 0.99):
            assert t.topics_needed(target).n == gtheory.topics_needed_for_ratio(t.phi_ratio, target)
            assert t.topics_needed(target, "erho2").n == gtheory.topics_needed_for_ratio(t.erho2_ratio, target)
    # GStudy's result, interval included: the tuning's mean squares are those of the G-study of the tuned nDCG
    for t in (t10, neg[1]):
        for coefficient in ("phi", "erho2"):
            mine, theirs = t.topics_needed(0.95, coefficient), t.gstudy.topics_needed(0.95, coefficient)
            assert isinstance(mine, gtheory.TopicsNeeded) and str(mine) == str(theirs)
            assert (mine.n, mine.n_low, mine.n_high, mine.level) == (theirs.n, theirs.n_low, theirs.n_high, 0.95)
            assert mine.n_exact == pytest.approx(theirs.n_exact, rel=1e-9)
            point = t.topics_needed(0.9, coefficient, level=None)
            assert point.level is None and point.n_low is None and point.n == t.gstudy.topics_needed(0.9, coefficient).n
    for name in ("ms_system", "ms_topic", "ms_residual"):
        assert getattr(t10, name) == pytest.approx(getattr(t10.gstudy, name), rel=1e-9), name
    with pytest.raises(ValueError, match="`coefficient` must be 'phi' or 'erho2'; got 'rho'"):
        t10.topics_needed(0.9, "rho")


@pytest.mark.parametrize("target", [1, 0, -0.5, 1.5, float("nan"), "0.9", None])
def test_topics_needed_refuses_target_with_gtheorys_message(t10, target):
    # one rule of `target` in gtheory and optimize: the parameter table's (gtheory.kit.params)
    msg = re.escape("`target` must be a probability strictly in (0, 1); got ")
    with pytest.raises(ValueError, match=msg):
        t10.topics_needed(target)
    with pytest.raises(ValueError, match=msg):
        t10.gstudy.topics_needed(target)


# ------------------------------------------------------------------------------- cut-offs
def test_cutoff_larger_than_tuned_raises_naming_both(j, t10):
    with pytest.raises(ValueError, match=r"`cutoff` 100 exceeds the tuned cut-off 10"):
        t10.ndcg(j, cutoff=100)
    with pytest.raises(ValueError, match=r"`cutoff` 11 exceeds the tuned cut-off 10"):
        t10.evaluate(j, cutoff=11)
    with pytest.raises(ValueError, match=r"`cutoff` must be a positive integer; got 0"):
        t10.ndcg(j, cutoff=0)
    # a smaller cut-off truncates the discount (documented)
    got = t10.ndcg(j, cutoff=5).to_numpy()
    ref = metrics.ndcg(j, gain=[0, 1, 2], discount=t10.discount[:5], cutoff=5).to_numpy()
    np.testing.assert_allclose(got, ref, atol=1e-15)


# ---------------------------------------------------------------------------- grade sets
def _regraded(j, levels):
    """The same runs with the grade levels renamed (codes unchanged): e.g. 0/1/2 -> 0/1/3."""
    return replace(j, levels=np.asarray(levels, dtype=np.float64))


def test_missing_grade_raises_with_plain_numbers(j, t10):
    j013 = _regraded(j, [0, 1, 3])
    with pytest.raises(ValueError) as exc:
        t10.ndcg(j013)
    msg = str(exc.value)
    assert "has no gain for grade(s) 3 of these judgments (grades 0, 1, 3)" in msg
    assert "tuned discount of nDCG@10" in msg and "gains for grades 0, 1, 2" in msg
    assert "np.float64" not in msg and "3.0" not in msg
    g = optimize.optimize_gain(j, discount="log2", cutoff=10, starts=1)
    with pytest.raises(ValueError, match=r"tuned gain of nDCG@10 .* no gain for grade\(s\) 3 "):
        g.evaluate(j013)


def test_named_gain_family_carries_over_to_other_grades(j):
    t = optimize.optimize_discount(j, gain="linear", cutoff=10, starts=1)
    assert t.gain_family == "linear"
    j013 = _regraded(j, [0, 1, 3])
    got = t.ndcg(j013).to_numpy()
    ref = metrics.ndcg(j013, gain="linear", discount=t.discount, cutoff=10).to_numpy()
    np.testing.assert_allclose(got, ref, atol=1e-15)
    # on the tuning data the family and the stored table give the same nDCG
    np.testing.assert_allclose(t.ndcg(j).to_numpy(),
                               metrics.ndcg(j, gain=t.gain_mapping, discount=t.discount, cutoff=10).to_numpy(),
                               atol=1e-15)
    back = optimize.Tuning.from_json(t.to_json())
    assert back.gain_family == "linear"
    np.testing.assert_allclose(back.ndcg(j013).to_numpy(), ref, atol=1e-15)
    # a per-grade gain is not a family: nothing to carry over
    assert optimize.optimize_discount(j, gain=[0, 1, 2], cutoff=5, starts=1).gain_family is None
    assert optimize.optimize_gain(j, discount="log2", cutoff=5, starts=1).gain_family is None


def test_gain_for_absent_grade_warns(j, t10):
    jm = _regraded(j, [-1, 0, 1])  # grades -1/0/1: the tuning's gain for grade 2 goes unused
    with pytest.warns(optimize.GradeMismatchWarning, match=r"has gains for grade\(s\) 2 that these judgments"):
        X = t10.ndcg(jm)
    assert X.shape == (j.n_systems, j.n_topics)
    with warnings.catch_warnings():
        warnings.simplefilter("error", optimize.GradeMismatchWarning)
        t10.ndcg(j.subset(topics=[0, 1, 2]))  # same grades: silent


def test_summary_uses_plain_numbers(t10):
    assert not re.search(r"np\.float64", t10.summary())


def _strict_loads(text):
    """json.loads that refuses NaN / Infinity / -Infinity (not JSON, RFC 8259)."""
    def refuse(constant):
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def test_json_is_strict_at_every_depth_and_nulls_read_back_as_nan(t10):
    nan, inf = float("nan"), float("inf")
    # before: only top-level floats were cleaned; NaN in start_values / per_problem was written as NaN
    t = replace(t10, phi_1=nan, var_topic=np.float64(nan), seconds=inf,
                start_values={"log2": nan, "zipf": np.float64(-inf), "linear": 0.25},
                per_problem=[{"label": "a@10", "cutoff": np.int64(10), "fun": nan, "phi": np.float64(nan),
                              "n_topics": 50},
                             {"label": "b@10", "cutoff": 10, "fun": 0.2, "phi": inf, "n_topics": 25}])
    for text in (t.to_json(), t.to_json(indent=None)):
        doc = _strict_loads(text)
        assert doc["phi"] is None and doc["phi_1"] is None and doc["var_topic"] is None and doc["seconds"] is None
        assert doc["start_values"] == {"log2": None, "zipf": None, "linear": 0.25}
        assert doc["per_problem"][0] == {"label": "a@10", "cutoff": 10, "fun": None, "phi": None, "n_topics": 50}
        assert doc["per_problem"][1]["phi"] is None
    assert _strict_loads(json.dumps(t.to_dict(), allow_nan=False)) == _strict_loads(t.to_json())
    back = optimize.Tuning.from_json(t.to_json())
    assert math.isnan(back.phi()) and math.isnan(back.phi_1) and math.isnan(back.var_topic) and math.isnan(back.seconds)
    assert math.isnan(back.start_values["log2"]) and math.isnan(back.start_values["zipf"])
    assert back.start_values["linear"] == 0.25
    assert math.isnan(back.per_problem[0]["fun"]) and math.isnan(back.per_problem[0]["phi"])
    assert back.per_problem[0]["cutoff"] == 10 and back.per_problem[1]["fun"] == 0.2
    assert back.to_json() == t.to_json()  # a second trip is stable


def test_from_json_accepts_what_the_package_writes(j, t10, tmp_path):
    from pathlib import Path

    for t in (t10, optimize.optimize_gain(j, discount="log2", cutoff=5, objective="erho2", monotone=False, starts=1),
              optimize.optimize_minimax([j, j.subset(topics=list(range(25)))], what="joint", cutoffs=[5, 10],
                                        labels=["all", "half"], starts=1)):
        back = optimize.Tuning.from_json(t.to_json())
        assert back.to_json() == t.to_json() and str(back) == str(t)
    t10.to_json(str(tmp_path / "t.json"))
    assert optimize.Tuning.from_json(Path(tmp_path / "t.json")).to_json() == t10.to_json()
    with pytest.raises(TypeError, match=r"`text_or_path` must be JSON text or a file path; got dict\."):
        optimize.Tuning.from_json(t10.to_dict())


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "x", True])
def test_phi_and_erho2_check_n_topics_like_gstudy(embedded_trec9, bad):
    # the rule of GStudy.phi / erho2: a clear ValueError, not NumPy's conversion error or a silent NaN
    import optimize

    t = optimize.optimize_discount(embedded_trec9, gain=[0, 1, 2], cutoff=5, starts=1)
    for fn in (t.phi, t.erho2, t.gstudy.phi):
        with pytest.raises(ValueError, match="`n_topics` must be positive and finite"):
            fn(bad)
    assert t.phi(50) == pytest.approx(t.gstudy.phi(50), abs=1e-12)


def test_agree_tol_accepts_numpy_numbers_and_refuses_non_finite(embedded_trec9):
    import optimize

    j = embedded_trec9
    t = optimize.optimize_discount(j, gain=[0, 1, 2], cutoff=5, starts=1, agree_tol=np.float32(1e-6))
    assert t.agree_tol == pytest.approx(1e-6)
    for bad in (True, float("inf"), float("nan"), -1.0, "1e-6"):
        with pytest.raises(ValueError, match="`agree_tol` must be a finite number >= 0"):
            optimize.optimize_discount(j, gain=[0, 1, 2], cutoff=5, starts=1, agree_tol=bad)


# ------------------------------------------------------- frozen, with GStudy's coefficient API
#: a Tuning document as written before Tuning.phi / erho2 became methods (the keys are unchanged)
_OLD_DOCUMENT = """{"what": "discount", "objective": "phi", "cutoff": 5, "levels": [0.0, 1.0, 2.0],
 "gain": [0.0, 0.3333333333333333, 0.6666666666666666], "discount": [0.2, 0.2, 0.2, 0.2, 0.2],
 "phi": 0.7592947532228534, "erho2": 0.8367434835935061, "phi_1": 0.2827980061738025, "erho2_1": 0.3904915045543687,
 "var_system": 0.020894935752078618, "var_topic": 0.020377110103300584, "var_residual": 0.0326143864953389,
 "n_systems": 10, "n_topics": 8, "success": true, "message": "Optimization terminated successfully", "nit": 4,
 "nfev": 4, "njev": 4, "solver": "slsqp", "starts": 1, "n_agree": 1, "agree_tol": 1e-06,
 "start_values": {"log2": 0.2827980061738026}, "monotone_gain": true, "monotone_discount": true,
 "judged_only": false, "seconds": 0.01469938299851492, "per_problem": [], "negative_components": [],
 "gain_family": "linear", "binding_cutoff": null, "binding_label": null, "version": "0.1.0", "measure": "nDCG@5",
 "fingerprint": "jr1:bd5e6cc11212fde09cda9a147a5ddfd5", "format": "gtheory.optimize.Tuning/1"}"""


def test_an_old_document_loads_with_the_same_coefficients():
    t = optimize.Tuning.from_json(_OLD_DOCUMENT)
    # the numbers the old Tuning gave: t.phi, t.erho2, t.topics_needed(0.95), t.phi(50)
    assert t.phi() == pytest.approx(0.7592947532228534, rel=1e-12)
    assert t.erho2() == pytest.approx(0.8367434835935061, rel=1e-12)
    assert t.topics_needed(0.95).n == 49 and t.phi(50) == pytest.approx(0.951726657108316, rel=1e-12)
    # Φ(n) = n r/(1 + n r), r = σ²s/(σ²t + σ²st), by hand
    r = 0.020894935752078618 / (0.020377110103300584 + 0.0326143864953389)
    assert t.phi(8) == pytest.approx(8 * r / (1 + 8 * r), rel=1e-12)
    doc = json.loads(t.to_json())
    old = json.loads(_OLD_DOCUMENT)
    assert list(doc) == list(old)  # the same keys in the same order: older readers read new documents
    assert doc["phi"] == pytest.approx(old["phi"], rel=1e-12) and doc["erho2"] == pytest.approx(old["erho2"], rel=1e-12)
    # Φ and Eρ² at n_topics follow from the components: a document without them loads too
    bare = {k: v for k, v in old.items() if k not in ("phi", "erho2")}
    assert optimize.Tuning.from_json(json.dumps(bare)).to_json() == t.to_json()


def test_tuning_and_solver_run_are_frozen(t10):
    import dataclasses

    with pytest.raises(dataclasses.FrozenInstanceError):
        t10.cutoff = 5  # type: ignore[misc]
    run = optimize.solvers.result.SolverRun(x=np.array([0.5, 0.5]), fun=0.3, success=True, message="ok", nit=1, nfev=1,
                                    njev=1, solver="slsqp", seconds=0.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.message = "changed"  # type: ignore[misc]
    assert replace(run, start="log2").start == "log2" and run.start == ""
    # the lazy provenance and the cached G-study still work on a frozen tuning
    fresh = replace(t10)
    assert fresh.__dict__.get("gstudy") is None and fresh.data_fingerprint == t10.data_fingerprint
    assert fresh.gstudy is fresh.gstudy and fresh.gstudy.phi() == pytest.approx(fresh.phi(), abs=1e-12)


