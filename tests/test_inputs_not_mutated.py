"""Nothing the user passes in is changed: every public function that takes a score matrix (a DataFrame or an array)
or a judged collection leaves it as it was.

A frame is compared with a deep copy taken before the call (values, labels, their names and dtypes); an array and
a judged collection's arrays are passed read-only, so a write into them raises instead of passing unnoticed. The
calls use small real data (TREC-9, 13 runs × 20 topics) and the cheapest settings that still run each function's
whole path.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import experiments
import gtheory
import metrics
import optimize


@pytest.fixture(scope="module")
def small(embedded_trec9) -> metrics.JudgedRuns:
    j = embedded_trec9.subset(systems=list(range(0, 104, 8)), topics=list(range(20)))
    for value in vars(j).values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return j


@pytest.fixture(scope="module")
def frames(small) -> dict[str, pd.DataFrame]:
    return {"a": metrics.ndcg(small, cutoff=10), "b": metrics.ndcg(small, cutoff=20, discount="zipf")}


def _read_only(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=np.float64)
    a.setflags(write=False)
    return a


def _same(before: pd.DataFrame, after: pd.DataFrame) -> bool:
    return (before.equals(after) and list(before.index) == list(after.index) and list(before.columns) ==
            list(after.columns) and before.index.names == after.index.names
            and before.columns.names == after.columns.names and list(before.dtypes) == list(after.dtypes))


FRAME_CALLS = {
    "gtheory.gstudy": lambda a, b: gtheory.gstudy(a),
    "gtheory.variance_components": lambda a, b: gtheory.variance_components(a),
    "GStudy.bootstrap": lambda a, b: gtheory.gstudy(a).bootstrap(n_resamples=20, seed=0),
    "gtheory.topic_set_size": lambda a, b: gtheory.topic_set_size(a, method="paired-t", min_diff=0.1),
    "gtheory.within_system_variance": lambda a, b: gtheory.within_system_variance(a),
    "gtheory.plan": lambda a, b: gtheory.plan(a, min_diff=0.1),
    "gtheory.topic_curves": lambda a, b: gtheory.topic_curves(a, sizes=[4, 8], repeats=3, seed=0),
    "gtheory.as_score_matrix": lambda a, b: gtheory.as_score_matrix(a),
    "experiments.compare": lambda a, b: experiments.compare(a, correction="holm"),
    "experiments.compare (baseline)": lambda a, b: experiments.compare(a, baseline=a.index[0], test="wilcoxon"),
    "experiments.compare_measures": lambda a, b: experiments.compare_measures({"a": a, "b": b}),
    "experiments.bootstrap_asl": lambda a, b: experiments.bootstrap_asl(a, n_resamples=20, seed=0),
    "experiments.discriminative_power": lambda a, b: experiments.discriminative_power(a, n_resamples=20, seed=0),
    "experiments.paired_ttest": lambda a, b: experiments.paired_ttest(a),
    "experiments.wilcoxon_test": lambda a, b: experiments.wilcoxon_test(a),
    "experiments.tukey_hsd_randomised": lambda a, b: experiments.tukey_hsd_randomised(a, n_resamples=20, seed=0),
    "experiments.swap_rates": lambda a, b: experiments.swap_rates(a, topic_set_sizes=[5], n_resamples=10, seed=0),
    "experiments.kendall_tau": lambda a, b: experiments.kendall_tau(a, b),
    "experiments.tau_ap": lambda a, b: experiments.tau_ap(a, b),
    "experiments.rmse": lambda a, b: experiments.rmse(a, b),
    "experiments.tau_matrix": lambda a, b: experiments.tau_matrix({"a": a, "b": b}),
    "experiments.significance_confusion": lambda a, b: experiments.significance_confusion(a, b, n_resamples=20,
                                                                                           seed=0),
    "experiments.check_configurations": lambda a, b: experiments.check_configurations(
        {"a": a, "b": b}, "a", top_k=5, n_resamples=20, seed=0),
}


@pytest.mark.parametrize("name", sorted(FRAME_CALLS))
def test_score_frames_and_arrays_are_not_changed(frames, name):
    a, b = frames["a"], frames["b"]
    copies = a.copy(deep=True), b.copy(deep=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small data: low-coverage and precision notes are not what is tested
        FRAME_CALLS[name](a, b)
    assert _same(copies[0], a) and _same(copies[1], b)
    # the same call on read-only arrays (the functions that accept arrays): a write into them would raise
    if name in ("gtheory.gstudy", "gtheory.variance_components", "gtheory.within_system_variance",
                "experiments.paired_ttest", "experiments.bootstrap_asl", "experiments.kendall_tau",
                "experiments.rmse"):
        ra, rb = _read_only(a.to_numpy()), _read_only(b.to_numpy())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            FRAME_CALLS[name](ra, rb)
        np.testing.assert_array_equal(ra, a.to_numpy())


JUDGED_CALLS = {
    "metrics.ndcg": lambda j: metrics.ndcg(j, gain=[0, 1, 3], discount="zipf", cutoff=20),
    "metrics.evaluate": lambda j: metrics.evaluate(j, ["nDCG@10", "AP", "P@10", "RBP(p=0.8)@100", "ERR@20"]),
    "metrics.evaluate (judged_only)": lambda j: metrics.evaluate(j, "bpref", judged_only=True),
    "optimize.optimize_discount": lambda j: optimize.optimize_discount(j, cutoff=10, starts=1),
    "optimize.optimize_gain": lambda j: optimize.optimize_gain(j, cutoff=10),
    "optimize.optimize_family": lambda j: optimize.optimize_family(j, family="rbp", cutoff=20),
    "optimize.optimize_regularised": lambda j: optimize.optimize_regularised(j, cutoff=10, lam=0.1),
    "optimize.cross_validate": lambda j: optimize.cross_validate(j, cutoff=10, n_splits=2, seed=0),
    "metrics.reduce_qrels": lambda j: metrics.reduce_qrels(j, 0.5, seed=0),
    "experiments.sweep": lambda j: experiments.sweep(j, cutoffs=[10], gains=["linear"], discounts=["log2"]),
    "experiments.topic_depth_budget": lambda j: experiments.topic_depth_budget(j, "P@10", depths=[10, 20]),
}


@pytest.mark.parametrize("name", sorted(JUDGED_CALLS))
def test_judged_collections_are_not_changed(small, name):
    # the collection's arrays are read-only (fixture): a function writing into them raises here
    before = {k: v.copy() for k, v in vars(small).items() if isinstance(v, np.ndarray)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        JUDGED_CALLS[name](small)
    for k, v in before.items():
        np.testing.assert_array_equal(getattr(small, k), v)
