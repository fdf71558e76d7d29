"""Tests of experiments/sweep/tasks.py: running a sweep's tasks — the same rows from this process, a process pool, any
executor and a Dask cluster; the progress line; what a task ships (the tensor cut to the grid's largest cut-off) and
the whole-list linear discount."""
from __future__ import annotations

import warnings
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest

import experiments as ex
import metrics
from experiments.sweep.tasks import _truncate, _whole_list_discount

GRID = dict(cutoffs=[10, 50], gains=["linear", "exponential"], discounts=["log2", "zipf"],
            fractions=[1.0, 0.4], seeds=[0, 3])


@pytest.fixture(scope="module")
def small(embedded_trec9) -> metrics.JudgedRuns:
    return embedded_trec9.subset(systems=range(0, 104, 3), topics=range(25))


@pytest.fixture(scope="module")
def serial(small) -> pd.DataFrame:
    return ex.sweep(small, **GRID, max_workers=1)


# ------------------------------------------------------------------------------------------ executors
def _assert_same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_process_pool_and_any_executor_give_identical_results(serial, small):
    _assert_same(serial, ex.sweep(small, **GRID, max_workers=2))
    with ThreadPoolExecutor(3) as pool:
        _assert_same(serial, ex.sweep(small, **GRID, executor=pool))
    with ProcessPoolExecutor(2) as pool:
        _assert_same(serial, ex.sweep(small, **GRID, executor=pool))
        # the executor is the caller's: still usable afterwards
        assert pool.submit(abs, -1).result() == 1


def test_dask_local_cluster_gives_identical_results(serial, small):
    distributed = pytest.importorskip("dask.distributed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                      dashboard_address=None) as cluster, distributed.Client(cluster) as client:
            df = ex.sweep(small, **GRID, executor=client.get_executor())
    _assert_same(serial, df)


# ------------------------------------------------------------------------------------------ progress
def test_progress_on_stderr(small, capsys):
    ex.sweep(small, cutoffs=[10], gains="linear", discounts="log2", fractions=[1.0, 0.5], max_workers=1,
             progress=True)
    err = capsys.readouterr().err
    assert "sweep: 2/2 points, 2/2 tasks" in err


def test_progress_counts_grid_points_within_a_task(small, capsys):
    # one (fraction, seed) task of 6 grid points (the CLI's default has a single task): progress must move
    # point by point, not jump from 0 to done
    ex.sweep(small, cutoffs=[10, 20, 50], gains="linear", discounts=["log2", "zipf"], max_workers=1, progress=True)
    lines = capsys.readouterr().err.splitlines()
    assert [ln.split(",")[0] for ln in lines] == [f"sweep: {k}/6 points" for k in range(7)]
    assert lines[-1].startswith("sweep: 6/6 points, 1/1 tasks")
    # on a pool the points of a task are reported when it completes
    ex.sweep(small, cutoffs=[10], gains="linear", discounts=["log2", "zipf"], fractions=[1.0, 0.5], max_workers=2,
             progress=True)
    err = capsys.readouterr().err
    assert "sweep: 2/4 points, 1/2 tasks" in err and "sweep: 4/4 points, 2/2 tasks" in err


def test_progress_may_be_a_callable(small):
    # one `progress` type across the project: True/False or a callable receiving each message
    got: list[str] = []
    ex.sweep(small, 10, "linear", "log2", [1.0], [0], max_workers=1, progress=got.append)
    assert got and got[-1].startswith("sweep: 1/1 points, 1/1 tasks")
    with pytest.raises(TypeError, match="`progress` must be True"):
        ex.sweep(small, 10, "linear", "log2", [1.0], [0], max_workers=1, progress="yes")


# ------------------------------------------------------------------------------------------ what a task ships
def test_truncated_tensor_gives_the_same_ndcg_up_to_its_depth(small):
    cut = _truncate(small, 50)
    assert cut.depth == 50 and cut.grades.shape[2] == 50 and _truncate(small, 10_000) is small
    assert small.depth > 50 and small.report is not cut.report  # the original is left as it was
    for k in (10, 50):  # the ideal ranking comes from the qrels, not from the runs: unchanged
        for gain, discount in (("linear", "log2"), ("exponential", "zipf")):
            a = metrics.ndcg(small, gain=gain, discount=discount, cutoff=k).to_numpy()
            b = metrics.ndcg(cut, gain=gain, discount=discount, cutoff=k).to_numpy()
            assert np.array_equal(a, b)


def test_the_whole_list_linear_discount_takes_the_depth():
    assert _whole_list_discount("linear", 1000) == "linear(k=1000)"
    assert _whole_list_discount("linear(k=20)", 1000) == "linear(k=20)"  # a given k is kept
    assert _whole_list_discount("log2", 1000) == "log2" and _whole_list_discount([1.0, 0.5], 1000) == [1.0, 0.5]


def test_workers(small):
    # `max_workers` is the parameter table's (gtheory.kit.params), checked before the sweep does any work
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="`max_workers` must be an integer >= 1 or None") as caught:
            ex.sweep(small, max_workers=bad, **GRID)
        assert caught.value.param == "max_workers"
