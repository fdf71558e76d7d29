"""The one ``executor=`` convention of the resampling loops (as :func:`experiments.sweep` takes it).

A loop of independent tasks runs in this process (``executor=None``) or on any :class:`concurrent.futures.Executor`
the caller passes — a :class:`~concurrent.futures.ProcessPoolExecutor`, a
:class:`~concurrent.futures.ThreadPoolExecutor`, a Dask cluster's ``dask.distributed.Client(address).get_executor()``
— used as it is (``submit`` and ``result``) and never shut down. The results come back in task order, and every
random draw is made by the caller before the tasks are built, so the same seed gives the same result with and
without an executor, whatever the number of workers. The ``executor`` argument itself is checked by its rule in the
parameter table (:data:`gtheory.kit.params.PARAMS`: None or an Executor).
"""
from __future__ import annotations

from concurrent.futures import Executor
from typing import Any, Callable, Sequence

__all__ = ["run_tasks"]


def run_tasks(executor: Executor | None, fn: Callable[..., Any], tasks: Sequence[tuple[Any, ...]],
              on_done: Callable[[int], Any] | None = None) -> list[Any]:
    """``[fn(*t) for t in tasks]``, in task order: in this process when ``executor`` is None, else submitted to it
    all at once (``fn`` and its arguments must then pickle for a process or cluster executor). ``on_done(i)`` is
    called as task ``i`` finishes (in completion order with an executor). On an error or Ctrl-C the tasks not yet
    started are cancelled and the error is raised."""
    if executor is None:
        out = []
        for i, t in enumerate(tasks):
            out.append(fn(*t))
            if on_done is not None:
                on_done(i)
        return out
    from concurrent.futures import as_completed

    futures = {executor.submit(fn, *t): i for i, t in enumerate(tasks)}
    results: list[Any] = [None] * len(tasks)
    try:
        for fut in as_completed(futures):
            i = futures[fut]
            results[i] = fut.result()
            if on_done is not None:
                on_done(i)
    except BaseException:
        for fut in futures:
            fut.cancel()
        raise
    return results
