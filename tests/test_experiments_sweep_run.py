"""Tests of experiments/sweep/run.py (sensitivity sweeps); the grid is tested in tests/test_experiments_sweep_grid.py, the
executors and progress in tests/test_experiments_sweep_tasks.py, the ``gtheory sweep`` command in
tests/test_experiments_cli_sweep.py.

The reference path for every number is the direct one: ``metrics.reduce_qrels`` → ``metrics.ndcg`` →
``gtheory.gstudy`` on the full (untruncated) tensor, one grid point at a time.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import experiments as ex
import gtheory
import metrics

GRID = dict(cutoffs=[10, 50], gains=["linear", "exponential"], discounts=["log2", "zipf"],
            fractions=[1.0, 0.4], seeds=[0, 3])


@pytest.fixture(scope="module")
def small(embedded_trec9) -> metrics.JudgedRuns:
    return embedded_trec9.subset(systems=range(0, 104, 3), topics=range(25))


@pytest.fixture(scope="module")
def serial(small) -> pd.DataFrame:
    return ex.sweep(small, **GRID, max_workers=1)


def test_tidy_output_columns(serial, small):
    assert list(serial.columns) == list(ex.SWEEP_COLUMNS)
    assert len(serial) == len(ex.SweepGrid.of(**GRID))
    pd.testing.assert_frame_equal(serial[["cutoff", "gain", "discount", "fraction", "seed"]],
                                  ex.SweepGrid.of(**GRID).points().astype({"cutoff": np.int64}))
    assert (serial.n_systems == small.n_systems).all() and (serial.n_topics == small.n_topics).all()
    assert serial.phi.between(0, 1).all() and (serial.erho2 >= serial.phi).all()
    assert (serial.loc[serial.fraction == 1.0, "judged_kept"] == 1.0).all()
    assert (serial.loc[serial.fraction == 0.4, "judged_kept"] < 1.0).all()
    # at fraction 1 the seed does not matter
    full = serial[serial.fraction == 1.0]
    a = full[full.seed == 0].drop(columns="seed").reset_index(drop=True)
    b = full[full.seed == 3].drop(columns="seed").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    assert serial.attrs["target"] == 0.95 and serial.attrs["reference"] == dict(cutoff=50, gain="linear",
                                                                                discount="log2")


@pytest.mark.parametrize("point", [(10, "linear", "log2", 1.0, 0), (50, "exponential", "zipf", 0.4, 3),
                                   (10, "exponential", "log2", 0.4, 0)])
def test_rows_match_direct_gstudy(serial, small, point):
    k, gain, disc, f, seed = point
    j = small if f == 1.0 else metrics.reduce_qrels(small, f, seed)
    scores = metrics.ndcg(j, gain=gain, discount=disc, cutoff=k)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
        g = gtheory.gstudy(scores)
    ref = metrics.ndcg(small, gain="linear", discount="log2", cutoff=50).mean(axis=1)
    row = serial.set_index(["cutoff", "gain", "discount", "fraction", "seed"]).loc[point]
    assert row.phi == pytest.approx(g.phi(small.n_topics), abs=1e-12)
    assert row.erho2 == pytest.approx(g.erho2(small.n_topics), abs=1e-12)
    assert row.var_system == pytest.approx(g.var_system, abs=1e-14)
    assert row.var_topic == pytest.approx(g.var_topic, abs=1e-14)
    assert row.var_residual == pytest.approx(g.var_residual, abs=1e-14)
    assert row.topics_needed == g.topics_needed(0.95).n
    assert row["mean"] == pytest.approx(float(scores.to_numpy().mean()), abs=1e-12)
    assert row.tau == pytest.approx(ex.kendall_tau(ref, scores.mean(axis=1)), abs=1e-12)


def test_whole_list_cutoff_target_and_reference(small):
    df = ex.sweep(small, cutoffs=[None, 5], gains="binary", discounts="log2", target=0.8, n_topics=10,
                  reference={"cutoff": 5, "discount": "zipf"}, max_workers=1)
    assert df.cutoff.tolist() == [None, 5]
    g = gtheory.gstudy(metrics.ndcg(small, gain="binary", discount="log2"))
    assert df.phi.iloc[0] == pytest.approx(g.phi(10), abs=1e-12)
    assert df.topics_needed.iloc[0] == g.topics_needed(0.8).n
    ref = metrics.ndcg(small, gain="linear", discount="zipf", cutoff=5).mean(axis=1)
    got = metrics.ndcg(small, gain="binary", discount="log2", cutoff=5).mean(axis=1)
    assert df.tau.iloc[1] == pytest.approx(ex.kendall_tau(ref, got), abs=1e-12)


def test_judged_only_matches_condensed_ndcg(small):
    df = ex.sweep(small, cutoffs=[10], gains="linear", discounts="log2", fractions=[0.3], judged_only=True,
                  max_workers=1)
    j = metrics.reduce_qrels(small, 0.3, 0)
    g = gtheory.gstudy(metrics.ndcg(j, cutoff=10, judged_only=True))
    assert df.phi.iloc[0] == pytest.approx(g.phi(small.n_topics), abs=1e-12)


def test_tune_adds_tuned_phi(small):
    import optimize

    df = ex.sweep(small, cutoffs=[10], gains="linear", discounts=["log2", "zipf"], tune=True, max_workers=1)
    assert {"phi_tuned", "tuned_discount"} <= set(df.columns)
    t = optimize.optimize_discount(small, gain="linear", cutoff=10, starts=1)
    assert df.phi_tuned.iloc[0] == df.phi_tuned.iloc[1] == pytest.approx(t.phi(small.n_topics), abs=1e-10)
    assert (df.phi_tuned >= df.phi - 1e-9).all()  # tuned for Φ: at least as stable as the standard discounts
    assert len(df.tuned_discount.iloc[0]) == 10


# ---------------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(gains=["linear", "expo"]), ValueError, r"`gains`: unknown gain family 'expo'; known: linear, exponential"),
        (dict(discounts=["log"]), ValueError, r"`discounts`: unknown discount family 'log'; known: log2, jarvelin"),
        (dict(cutoffs=[10, 0]), ValueError, r"`cutoffs` must hold positive integers .*got 0"),
        (dict(cutoffs=[10, 10]), ValueError, r"`cutoffs` must be distinct; 10 repeated"),
        (dict(fractions=[1.5]), ValueError, r"`fractions` must hold numbers in \(0, 1\].*got 1.5"),
        (dict(seeds=[-1]), ValueError, r"`seeds` must be a number of seeds >= 1 .* non-negative integers; got \[-1\]"),
        (dict(discounts=[]), ValueError, r"`discounts` must not be empty"),
        (dict(gains=[3]), TypeError, r"`gains` must hold gain family names"),
        (dict(target=1.2), ValueError, r"`target`"),
        (dict(max_workers=0), ValueError, r"`max_workers` must be an integer >= 1 or None"),
        (dict(executor="dask"), TypeError, r"`executor` must be None or a concurrent.futures.Executor"),
        (dict(cutoffs=[None], tune=True), ValueError, r"`tune=True` needs integer `cutoffs`"),
        (dict(reference={"gain": "nope"}), ValueError, r"`reference\['gain'\]`: unknown gain family 'nope'"),
        (dict(reference={"measure": "AP"}), ValueError, r"`reference` takes the keys cutoff, gain, discount"),
        (dict(gains={"g": [0, 1]}), ValueError, r"`gains`: 'g':"),
    ],
)
def test_bad_inputs_raise_clear_errors(small, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        ex.sweep(small, **kwargs)


def test_judged_must_be_a_tensor():
    with pytest.raises(TypeError, match="`judged` must be a metrics.JudgedRuns"):
        ex.sweep(np.zeros((3, 4)))


def test_linear_discount_at_the_whole_list_takes_the_run_depth_as_k(small):
    # the default --discounts include linear, whose k is the cut-off: at cut-off None the sweep used to stop with
    # "the linear discount (k + 1 - r)/k needs its k" (after loading the data)
    df = ex.sweep(small, cutoffs=[None], gains="linear", discounts=["linear"], max_workers=1,
                  reference={"discount": "linear"})
    want = gtheory.gstudy(metrics.ndcg(small, gain="linear", discount=f"linear(k={small.depth})", cutoff=None))
    assert df.discount.iloc[0] == "linear" and df.phi.iloc[0] == pytest.approx(want.phi(small.n_topics), abs=1e-12)
    assert df.tau.iloc[0] == 1.0


@pytest.mark.filterwarnings("ignore::gtheory.NegativeVarianceWarning")
def test_one_stability_helper_shared_with_the_incompleteness_study():
    # sweep and tuned_stability_under_incompleteness compute their G-study numbers in one place, through
    # gtheory.gstudy; a degenerate matrix gives NaN instead of stopping the study
    import gtheory

    import importlib

    from experiments import _stability

    incomplete_knee = importlib.import_module("experiments.incomplete.knee")  # the module, not the function knee

    X = np.random.default_rng(3).random((6, 12)) + np.linspace(0, 0.5, 6)[:, None]
    g = gtheory.gstudy(X)
    for st in (_stability.stability(X, 12.0, 0.95), incomplete_knee._stability(X, 12.0, 0.95)):
        assert st["phi"] == g.phi(12) and st["erho2"] == g.erho2(12) and st["phi_1"] == g.phi(1)
        assert st["var_system"] == g.var_system and st["topics_needed"] == g.topics_needed(0.95, level=None).n
    assert all(np.isnan(v) for v in _stability.stability(np.zeros((4, 5)), 5.0, 0.95).values())
