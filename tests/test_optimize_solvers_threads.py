"""Tests of optimize/solvers/_threads.py: single-threaded BLAS inside the block, restored after."""
from __future__ import annotations



def test_solvers_run_with_single_threaded_blas_and_restore_it():
    from threadpoolctl import threadpool_info

    from optimize.solvers._threads import single_threaded_blas

    before = {i["filepath"]: i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}
    with single_threaded_blas():
        inside = [i for i in threadpool_info() if i["user_api"] == "blas"]
        assert inside and all(i["num_threads"] == 1 for i in inside)
        # SciPy's own OpenBLAS (SLSQP's subproblem) is among the limited libraries
        assert any("scipy" in i["filepath"] for i in inside)
    after = {i["filepath"]: i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}
    assert all(after[f] == n for f, n in before.items())


def test_limits_are_restored_after_an_exception_and_nest():
    from threadpoolctl import threadpool_info

    from optimize.solvers._threads import single_threaded_blas

    def blas():
        return {i["filepath"]: i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}

    before = blas()
    try:
        with single_threaded_blas():
            with single_threaded_blas():  # nesting keeps one thread and restores the outer block's limit
                pass
            assert set(blas().values()) == {1}
            raise KeyError("inside")
    except KeyError:
        pass
    assert blas() == before
