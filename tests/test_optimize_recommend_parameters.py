"""optimize.tune_parameters: stability-optimal parameters of any parameterised metric."""
from __future__ import annotations

import json

import numpy as np
import pytest

import gtheory
import metrics
import optimize


def test_reproduces_a_hand_written_rbp_grid(trec9):
    j = trec9.judged
    grid = np.round(np.arange(0.5, 0.951, 0.05), 2)
    # the hand-written grid search, through metrics.rbp and gtheory.gstudy directly
    phis = [gtheory.gstudy(metrics.rbp(j, p=float(p))).phi(1) for p in grid]
    p_hand = grid[int(np.argmax(phis))]
    t = optimize.tune_parameters(j, "RBP(p={p})", {"p": (0.5, 0.95)}, n_splits=0)
    assert abs(t.params["p"] - p_hand) <= 0.05 + 1e-12
    assert t.phi_1 >= max(phis) - 1e-12
    g = gtheory.gstudy(metrics.rbp(j, p=t.params["p"]))
    assert t.phi_1 == pytest.approx(g.phi(1), abs=1e-12)
    # the coefficient API of GStudy and Tuning: phi(n), erho2(n), topics_needed -> TopicsNeeded (a point estimate)
    assert t.phi() == pytest.approx(g.phi(j.n_topics), abs=1e-12) and t.erho2(7) == pytest.approx(g.erho2(7), abs=1e-12)
    np.testing.assert_allclose(t.phi([1, 10, 100]), g.phi([1, 10, 100]), atol=1e-12)
    need = t.topics_needed(0.95)
    assert isinstance(need, gtheory.TopicsNeeded) and need.n == g.topics_needed(0.95, level=None).n
    assert t.topics_needed(0.9, "erho2").n == g.topics_needed(0.9, "erho2", level=None).n
    with pytest.raises(ValueError, match="pass `level=None`"):
        t.topics_needed(0.95, level=0.95)
    with pytest.raises(ValueError, match="`n_topics` must be positive and finite"):
        t.phi(0)
    doc = json.loads(t.to_json())
    assert doc["phi"] == pytest.approx(t.phi(), abs=1e-15) and doc["erho2"] == pytest.approx(t.erho2(), abs=1e-15)
    back = optimize.ParameterTuning.from_json(t.to_json())
    assert back.phi() == t.phi() and back.to_json() == t.to_json()
    assert t.measure_at == f"RBP(p={t.params['p']:.6g})"


def test_integer_parameter_is_searched_exhaustively(trec9):
    j = trec9.judged
    phis = {k: gtheory.gstudy(metrics.ndcg(j, cutoff=k)).phi(1) for k in range(1, 31)}
    t = optimize.tune_parameters(j, "nDCG@{k}", {"k": (1, 30)}, n_splits=0)
    assert t.params["k"] == max(phis, key=phis.get) and isinstance(t.params["k"], int)
    assert t.n_evaluations == 30


def test_callable_measure_and_out_of_sample_verdict(trec9):
    j = trec9.judged
    calls = []

    def rbp_gain(judged, theta):
        calls.append(theta)
        return metrics.rbp(judged, p=theta["p"], cutoff=50)

    t = optimize.tune_parameters(j, rbp_gain, {"p": (0.3, 0.95)}, default={"p": 0.8}, n_splits=4, seed=1,
                                 progress=False)
    assert t.measure == "rbp_gain" and len(t.outer) == 4
    assert t.verdict.startswith(("adopt tuned rbp_gain(p=", "keep rbp_gain(p=0.8)"))
    assert t.wins == int((t.outer["phi_1_tuned"] > t.outer["phi_1_default"]).sum())
    again = optimize.tune_parameters(j, rbp_gain, {"p": (0.3, 0.95)}, default={"p": 0.8}, n_splits=4, seed=1)
    assert again.to_dict() | {"seconds": 0} == t.to_dict() | {"seconds": 0}
    assert "<table" in t._repr_html_() and t.verdict in t.summary()
    import matplotlib

    matplotlib.use("Agg")
    assert t.plot().get_xlabel() == "p"
    back = optimize.ParameterTuning.from_json(t.to_json())
    assert back.params == t.params and back.verdict == t.verdict
    json.loads(t.to_json())


@pytest.mark.parametrize("measure, bounds, match", [
    ("RBP(q={q})", {"q": (0.1, 0.9)}, "does not give a measure metrics.evaluate knows: measure RBP takes parameters"),
    ("RBP(p={p})", {"q": (0.1, 0.9)}, r"has parameter\(s\) \['p'\] that `bounds` does not give"),
    ("RBP(p={p})", {"p": (0.1, 0.9), "x": (1, 2)}, r"`bounds` names parameter\(s\) \['x'\]"),
    ("RBP(p=0.8)", {"p": (0.1, 0.9)}, "must name each parameter"),
    ("RBP(p={p})", {"p": (0.9, 0.1)}, r"`bounds\['p'\]` must be \(low, high\)"),
])
def test_refuses_unknown_template_parameters(trec9, measure, bounds, match):
    with pytest.raises(ValueError, match=match):
        optimize.tune_parameters(trec9.judged, measure, bounds, n_splits=0)
