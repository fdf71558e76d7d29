"""Tests of gtheory/kit/executors.py: the same results, in task order, with and without an executor."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from gtheory.kit.executors import run_tasks


def _square_minus(a: int, b: int) -> int:
    return a * a - b


def test_results_in_task_order_with_and_without_an_executor():
    tasks = [(i, i % 3) for i in range(20)]
    want = [a * a - b for a, b in tasks]
    done: list[int] = []
    assert run_tasks(None, _square_minus, tasks, on_done=done.append) == want
    assert done == list(range(20))
    with ThreadPoolExecutor(3) as ex:
        seen: list[int] = []
        assert run_tasks(ex, _square_minus, tasks, on_done=seen.append) == want
        assert sorted(seen) == list(range(20))


def test_an_error_in_a_task_is_raised():
    def boom(i):
        if i == 3:
            raise ValueError("task 3")
        return i
    with ThreadPoolExecutor(2) as ex, pytest.raises(ValueError, match="task 3"):
        run_tasks(ex, boom, [(i,) for i in range(6)])


def test_the_executor_rule_of_the_parameter_table_names_the_parameter():
    # `executor` is checked by its rule in the one table (gtheory.kit.params), as every resampling loop takes it
    from gtheory.kit.params import check_param

    assert check_param("executor", None) is None
    with ThreadPoolExecutor(1) as ex:
        assert check_param("executor", ex) is ex
    with pytest.raises(TypeError, match="`executor` must be None or a concurrent.futures.Executor") as caught:
        check_param("executor", 4)
    assert caught.value.param == "executor" and caught.value.value == 4

