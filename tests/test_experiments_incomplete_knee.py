"""Tests of experiments/incomplete/knee.py: the knee of a curve (hand-built) and Φ of tuned nDCG under reduced
qrels (reference rows by metrics.ndcg + gtheory.gstudy)."""
from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gtheory
import metrics
from metrics import JudgedRuns, reduce_qrels

from experiments import knee, tuned_stability_under_incompleteness


@pytest.fixture(scope="module")
def small(embedded_trec9) -> JudgedRuns:
    """20 systems, all 50 topics: enough for rankings, fast enough for studies."""
    return embedded_trec9.subset(systems=np.arange(0, 104, 5)[:20])


def test_knee_hand_built():
    df = pd.DataFrame({
        "measure": ["a"] * 8 + ["b"] * 4,
        "judged_only": False,
        "fraction": [1, 1, .5, .5, .3, .3, .1, .1, 1, .5, .3, .1],
        "seed": [0, 1] * 4 + [0] * 4,
        "tau": [1, 1, .95, .91, .85, .87, .92, .93, .8, .95, .99, .99],
    })
    k = knee(df).set_index("measure")
    assert k.loc["a", "knee"] == 0.5 and k.loc["a", "value_at_knee"] == pytest.approx(0.93)
    assert math.isnan(k.loc["b", "knee"])  # below the threshold at f = 1 already
    assert knee(df, 0.85, aggregate="min").set_index("measure").loc["a", "knee"] == 0.1
    with pytest.raises(ValueError, match="`value` 'nope' is not a column"):
        knee(df, value="nope")


def test_tuned_stability_reference_rows_and_fake_tuner(small):
    zipf = metrics.discount_vector("zipf", 20)
    calls = []

    def tuner(j):
        calls.append(j.qrels_level.size)
        return zipf

    df = tuned_stability_under_incompleteness(
        small, (1.0, 0.3), seeds=[0, 1], cutoff=20, standard_discounts=("log2",), tune=tuner
    )
    assert len(df) == 2 * 2 * 3
    assert len(calls) == 1 + 2  # once on the full qrels, then once per reduced (f < 1) tensor
    full_log = gtheory.gstudy(metrics.ndcg(small, gain=[0, 1, 2], discount="log2", cutoff=20))
    one = df[df.fraction == 1.0]
    for _, r in one[one.discount == "log2"].iterrows():
        assert r.phi == pytest.approx(full_log.phi(50), abs=1e-12)
        assert r.erho2 == pytest.approx(full_log.erho2(50), abs=1e-12)
        assert r.topics_needed == full_log.topics_needed(0.95).n
        assert r.tau == 1.0
    # with a tuner that always returns zipf, tuned rows equal nDCG with the zipf vector
    red = reduce_qrels(small, 0.3, seed=1)
    g = gtheory.gstudy(metrics.ndcg(red, gain=[0, 1, 2], discount=zipf, cutoff=20))
    for on in ("reduced", "full"):
        r = df.query(f"tuned_on == '{on}' and fraction == 0.3 and seed == 1").iloc[0]
        assert r.phi == pytest.approx(g.phi(50), abs=1e-12)


def test_tuned_stability_with_optimizer(small):
    df = tuned_stability_under_incompleteness(
        small, (1.0, 0.2), seeds=1, cutoff=20, standard_discounts=("log2",), tune=True,
        tune_options={"starts": 1},
    )
    one = df[df.fraction == 1.0].set_index(["discount", "tuned_on"])
    # the tuned discount maximises Φ on the data it was tuned on
    assert one.loc[("tuned", "full"), "phi"] >= one.loc[("log2", ""), "phi"] - 1e-9
    red = df[df.fraction == 0.2].set_index(["discount", "tuned_on"])
    assert red.loc[("tuned", "reduced"), "phi"] >= red.loc[("tuned", "full"), "phi"] - 1e-6
    assert red.loc[("tuned", "reduced"), "phi"] >= red.loc[("log2", ""), "phi"] - 1e-6
    assert len(df.attrs["full_tuned_discount"]) == 20


def test_tuned_stability_errors(small):
    with pytest.raises(ValueError, match="nothing to evaluate"):
        tuned_stability_under_incompleteness(small, (1.0,), seeds=1, standard_discounts=(), tune=False)
    with pytest.raises(ValueError, match="`n_topics` must be a positive number"):
        tuned_stability_under_incompleteness(small, (1.0,), seeds=1, tune=False, n_topics=0)


def test_tuned_stability_on_condensed_lists_shallower_than_the_cutoff(embedded_trec9):
    # at 10 % of TREC-9's judgments the condensed lists hold at most 75 documents: nDCG'@100 equals
    # nDCG'@75 for every discount, and the tuner works at that depth instead of failing (the
    # optimiser refuses to tune discounts of ranks that change no score)
    from experiments import tuned_stability_under_incompleteness
    from optimize.solvers.objective import identified_depth

    j = embedded_trec9.subset(topics=list(range(12)))
    depth = identified_depth(reduce_qrels(j, 0.1, 0), judged_only=True)
    assert depth < 100
    df = tuned_stability_under_incompleteness(j, [0.1], seeds=1, standard_discounts=["log2"], cutoff=100,
                                              judged_only=True, tune_options={"starts": 1})
    assert set(df.discount) >= {"log2"} and len(df.discount.unique()) == 2
    assert (df.phi > 0).all()


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=7), st.floats(0.05, 0.95))
def test_knee_is_the_definition_brute_forced(values, threshold):
    # Bompada et al.'s knee (module docstring, Notes): the smallest f with value >= threshold at f and at every
    # larger f of the grid; NaN when the largest f already fails
    fractions = [1.0, 0.7, 0.5, 0.3, 0.2, 0.1, 0.05][:len(values)]
    df = pd.DataFrame({"measure": "m", "judged_only": False, "fraction": fractions, "seed": 0, "tau": values})
    got = knee(df, threshold).iloc[0]
    ok = [f for f in fractions if all(v >= threshold for g, v in zip(fractions, values) if g >= f)]
    if ok:
        assert got.knee == min(ok) and got.value_at_knee == values[fractions.index(min(ok))]
    else:
        assert math.isnan(got.knee) and math.isnan(got.value_at_knee)


def test_knee_aggregates_seeds_before_comparing():
    df = pd.DataFrame({"measure": "m", "judged_only": False, "fraction": [1, 1, .5, .5, .5], "seed": [0, 1, 0, 1, 2],
                       "tau": [1.0, 1.0, 0.95, 0.95, 0.83]})
    assert knee(df).loc[0, "knee"] == 0.5  # mean 0.91
    assert knee(df, aggregate="median").loc[0, "knee"] == 0.5  # median 0.95
    assert knee(df, aggregate="min").loc[0, "knee"] == 1.0  # min 0.83
    assert knee(df).attrs == {"threshold": 0.9, "value": "tau", "aggregate": "mean"}


def test_knee_refusals():
    with pytest.raises(TypeError, match=r"`study` must be a DataFrame from incompleteness_study\(\)"):
        knee([1, 2, 3])
    with pytest.raises(ValueError, match="`study` has none of the group columns"):
        knee(pd.DataFrame({"fraction": [1.0], "tau": [1.0]}))
    df = pd.DataFrame({"measure": "m", "fraction": [1.0], "tau": [1.0]})
    with pytest.raises(TypeError, match="`threshold` must be a number; got '0.9'"):
        knee(df, "0.9")
    with pytest.raises(ValueError, match="`aggregate`"):
        knee(df, aggregate="max")
