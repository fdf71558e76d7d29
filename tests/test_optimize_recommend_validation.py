"""Tests of optimize/recommend/validation.py: topic-split cross-validation of a tuning."""
from __future__ import annotations

import re

import numpy as np
import pytest

import gtheory
import metrics
import optimize
from tiny_collection import ndcg_by_hand, phi_n_by_hand, tiny  # noqa: E402


@pytest.fixture(scope="module")
def j(embedded_trec9):
    return embedded_trec9


def test_cross_validate_is_tidy_and_honest(embedded_trec9):
    cv = optimize.cross_validate(embedded_trec9, what="discount", cutoff=20, n_splits=2, starts=1, seed=3)
    assert set(cv.columns) >= {"split", "config", "part", "phi", "erho2", "topics_needed_phi", "n_topics"}
    assert len(cv) == 2 * 4 * 2 and cv["success"].all()
    tr = cv[cv.part == "train"].pivot(index="split", columns="config", values="phi_1")
    # in sample the tuned discount beats every standard one (it maximises over a superset)
    assert (tr["tuned"] >= tr[["log2", "zipf", "linear"]].max(axis=1) - 1e-12).all()
    assert (cv[cv.part == "test"]["n_topics"] == 25).all()
    with pytest.raises(ValueError, match="`n_splits` must be"):
        optimize.cross_validate(embedded_trec9, n_splits=0)


def test_cross_validate_row_matches_an_independent_computation(embedded_trec9):
    # reference for one split: tune with optimize_discount on judged.subset(topics=train), score the
    # held-out topics with metrics.ndcg and gtheory.gstudy — the public path, outside cross_validate
    cv = optimize.cross_validate(embedded_trec9, what="discount", cutoff=100, gain=[0, 1, 2], n_splits=2, seed=5, starts=2)
    rng = np.random.default_rng(5)
    for split in range(2):
        perm = rng.permutation(embedded_trec9.n_topics)  # the documented split rule: first half tunes
        train, test = np.sort(perm[:25]), np.sort(perm[25:])
        t = optimize.optimize_discount(embedded_trec9.subset(topics=train), gain=[0, 1, 2], cutoff=100, starts=2, seed=5)
        held = embedded_trec9.subset(topics=test)
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


@pytest.mark.parametrize("kwargs, error, msg", [
    # before: "cannot convert float NaN to integer"
    (dict(train_fraction=float("nan")), ValueError,
     "`train_fraction` must be a probability strictly in (0, 1); got nan"),
    (dict(train_fraction="0.5"), ValueError, "`train_fraction` must be a probability strictly in (0, 1); got str '0.5'"),
    (dict(train_fraction=1.5), ValueError, "`train_fraction` must be a probability strictly in (0, 1); got 1.5"),
    (dict(train_fraction=0.02), ValueError,
     "`train_fraction` must leave at least 2 topics on each side; got 0.02 of 50"),
    # before: raised from inside gtheory after the first split had been tuned
    (dict(target=1.5), ValueError, "`target` must be a probability strictly in (0, 1); got 1.5"),
    (dict(target=None), ValueError, "`target` must be a probability strictly in (0, 1); got None"),
    (dict(seed=-1), ValueError, "`seed` must be a non-negative integer, None, a numpy.random.Generator or a numpy.random.SeedSequence; got -1"),
    (dict(seed="a"), TypeError, "`seed` must be a non-negative integer, None, a numpy.random.Generator or a numpy.random.SeedSequence; got str 'a'"),
    (dict(starts=0), ValueError, "`starts` must be an integer >= 1; got 0"),
    (dict(solver="SLSQP"), ValueError, "`solver` must be one of"),
    (dict(objective="Phi"), ValueError, "`objective` must be one of 'phi', 'erho2'; got 'Phi'"),
    (dict(n_splits=0), ValueError, "`n_splits` must be an integer >= 1; got 0"),
    (dict(what="both"), ValueError, "`what` must be one of 'discount', 'gain', 'joint'; got 'both'"),
])
def test_cross_validate_checks_arguments_before_tuning(j, monkeypatch, kwargs, error, msg):
    def no_work(*args, **kw):
        raise AssertionError("a split was tuned before the arguments were checked")

    from optimize.recommend import validation

    for name in ("optimize_discount", "optimize_gain", "optimize_joint"):
        monkeypatch.setattr(validation, name, no_work)
    with pytest.raises(error, match=re.escape(msg)):
        optimize.cross_validate(j, **{"cutoff": 10, "n_splits": 1, **kwargs})


def test_cross_validate_refuses_what_is_not_judged_runs():
    # before: AttributeError: 'NoneType' object has no attribute 'n_topics'
    for judged, name in ((None, "NoneType"), (np.zeros((3, 3, 3)), "ndarray")):
        with pytest.raises(TypeError, match=rf"`judged` must be a metrics.JudgedRuns; got {name}\."):
            optimize.cross_validate(judged, cutoff=10)


# ------------------------------------------------------------- a tiny collection with an independent nDCG


def test_gain_cross_validation_on_a_tiny_collection_by_hand():
    from gtheory.kit.splits import topic_splits

    j, G, ideal = tiny(2, S=6, T=7)
    cv = optimize.cross_validate(j, what="gain", cutoff=4, discount="zipf", n_splits=2, seed=4, starts=1)
    # round(0.5 * 7) = 4 tuning topics (round half to even), 3 held out; configs: tuned + the gain standards
    assert set(cv.config) == {"tuned", "linear", "exponential"} and len(cv) == 2 * 3 * 2
    assert set(cv[cv.part == "train"].n_topics) == {4} and set(cv[cv.part == "test"].n_topics) == {3}
    d = 1 / np.arange(1, 5)
    gains = {"linear": [0, 1, 2], "exponential": [0, 1, 3]}
    for split, (tr, te) in enumerate(topic_splits(7, n_splits=2, train_size=4, seed=4)):
        for config, g in gains.items():
            for part, topics in (("train", tr), ("test", te)):
                X = ndcg_by_hand(G[:, topics], ideal[topics], g, d)
                row = cv[(cv.split == split) & (cv.config == config) & (cv.part == part)].iloc[0]
                assert row.phi == pytest.approx(phi_n_by_hand(X, len(topics)), abs=1e-12), (split, config, part)
                assert row.phi_1 == pytest.approx(phi_n_by_hand(X, 1), abs=1e-12)
        # in sample the tuned gains are at least as stable as the standard ones; the premise: no component is
        # clipped on these splits, so the reported Φ(1) is the raw objective the tuner maximises
        tr_rows = cv[(cv.split == split) & (cv.part == "train")].set_index("config")
        assert not tr_rows[["clipped_system", "clipped_topic"]].to_numpy().any()
        assert tr_rows.loc["tuned", "phi_1"] >= tr_rows.loc[["linear", "exponential"], "phi_1"].max() - 1e-9
