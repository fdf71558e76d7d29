"""Running a sensitivity sweep's tasks: one task per ``(fraction, seed)`` of the grid (:func:`_run_task`: the
reduced tensor built once, every cut-off × gain × discount evaluated on it), in this process, on a local process
pool or on any :class:`concurrent.futures.Executor` (a Dask cluster: :func:`dask_executor`), with a progress line.

One concept: the execution — what travels to a worker (the tensor cut to the grid's largest cut-off,
:func:`_truncate`, pickled once per task), where it runs, and how the rows come back in grid order. Why the results
do not depend on the executor: :mod:`experiments.sweep.run` (module docstring, "Parallelism").
"""
from __future__ import annotations

import math
import os
import sys
import time
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from dataclasses import replace
from typing import Any, Callable

import numpy as np

import metrics
from metrics import JudgedRuns
from metrics.measures import ndcg_values, parse_family
from gtheory.errors import ParameterError
from experiments._stability import stability as _stability
from experiments.agreement import kendall_tau
from metrics import reduction_mask
from .grid import Cutoff

__all__ = ["dask_executor"]


def _truncate(judged: JudgedRuns, depth: int) -> JudgedRuns:
    """The tensor cut to its first ``depth`` ranks (nDCG@k for k ≤ depth is unchanged: the ideal ranking comes
    from the qrels counts, not from the runs)."""
    if depth >= judged.depth:
        return judged
    return replace(
        judged,
        grades=np.ascontiguousarray(judged.grades[..., :depth]),
        doc_ids=np.ascontiguousarray(judged.doc_ids[..., :depth]),
        n_retrieved=np.minimum(judged.n_retrieved, depth).astype(judged.n_retrieved.dtype),
        report=dict(judged.report),
    )


def _run_task(
    judged: JudgedRuns,
    fraction: float,
    seed: int,
    configurations: list,
    options: dict[str, Any],
    on_point: Any = None,
) -> list[dict[str, Any]]:
    """Evaluate every configuration on the ``(fraction, seed)`` reduction of ``judged`` (one task);
    ``on_point()`` is called after each grid point when the task runs in this process."""
    sampling = options["sampling"]
    if fraction < 1.0:
        mask = reduction_mask(judged, fraction, seed, **sampling)
        reduced = judged.restrict_judgments(mask)
        kept = float(mask.mean()) if mask.size else 1.0
    else:
        reduced, kept = judged, 1.0
    ref_means = options["reference_means"]
    n_topics, target, judged_only = options["n_topics"], options["target"], options["judged_only"]
    tuned: dict[tuple[Cutoff, str], Any] = {}
    rows: list[dict[str, Any] | None] = [None] * len(configurations)
    # evaluated grouped by (cut-off, discount), gains innermost: the per-grade discounted counts of one
    # discount and cut-off serve every gain (metrics.measures.sparse); the rows go back in grid order
    order = sorted(range(len(configurations)), key=lambda i: (configurations[i][0] is None, configurations[i][0] or 0,
                                                                repr(configurations[i][2][0]), i))
    for i in order:
        cutoff, (g_label, g_spec), (d_label, d_spec) = configurations[i]
        if cutoff is None:
            d_spec = _whole_list_discount(d_spec, judged.depth)
        s = ndcg_values(reduced, gain=g_spec, discount=d_spec, cutoff=cutoff, judged_only=judged_only)
        means = s.mean(axis=1)
        row = dict(
            cutoff=cutoff, gain=g_label, discount=d_label, fraction=fraction, seed=seed,
            n_systems=int(s.shape[0]), n_topics=int(s.shape[1]), judged_kept=kept,
            **_stability(s, n_topics, target),
            tau=float(kendall_tau(ref_means, means)) if np.isfinite(means).all() else math.nan,
            mean=float(means.mean()),
        )
        if options["tune"]:
            key = (cutoff, g_label)
            if key not in tuned:
                import optimize
                from optimize.solvers import identified_depth

                # sparse reduced qrels: condensed lists may end before the cut-off, where nDCG'@cutoff
                # equals nDCG'@depth for every discount; the tuned vector is then that long
                depth = min(cutoff, identified_depth(reduced, judged_only=judged_only))
                t = optimize.optimize_discount(
                    reduced, gain=g_spec, cutoff=depth, judged_only=judged_only, **options["tune_options"]
                )
                tuned[key] = (float(t.phi(n_topics)), t.discount.tolist())
            row["phi_tuned"], row["tuned_discount"] = tuned[key]
        rows[i] = row
        if on_point is not None:
            on_point()
    return rows  # type: ignore[return-value]


def _whole_list_discount(spec: Any, depth: int) -> Any:
    """The discount of a whole-list (cut-off None) grid point: the linear discount (k + 1 - r)/k, whose k is
    the cut-off, takes k = the run depth there (``"linear(k=depth)"``); other specifications are unchanged."""
    if isinstance(spec, str):
        name, params = parse_family(spec, dict(metrics.DISCOUNT_FAMILIES), "discount family")
        if name == "linear" and "k" not in params:
            return f"linear(k={int(depth)})"
    return spec


class _Progress:
    """A one-line progress report on stderr: tasks and grid points done.

    Tasks run in this process report every grid point; tasks on a pool or a cluster report their points when
    they complete (a callback cannot cross processes).
    """

    def __init__(self, enabled: bool | Callable[[str], None], n_tasks: int, n_points: int, per_task: int) -> None:
        self.enabled, self.n_tasks, self.n_points, self.per_task = enabled, n_tasks, n_points, per_task
        self.done, self.points, self.t0 = 0, 0, time.perf_counter()
        self._show()

    def _show(self, end: str = "") -> None:
        if not self.enabled:
            return
        if callable(self.enabled):  # a callable gets each message as text
            self.enabled(f"sweep: {self.points}/{self.n_points} points, {self.done}/{self.n_tasks} tasks, "
                          f"{time.perf_counter() - self.t0:.1f} s")
            return
        tty = sys.stderr.isatty()  # a live line on a terminal, one line per update in a log
        head, tail = ("\r", end) if tty else ("", "\n")
        sys.stderr.write(
            f"{head}sweep: {self.points}/{self.n_points} points, {self.done}/{self.n_tasks} tasks, "
            f"{time.perf_counter() - self.t0:.1f} s{tail}"
        )
        sys.stderr.flush()

    def point(self) -> None:
        """One grid point done by a task running in this process."""
        self.points += 1
        if self.points % self.per_task:  # a task's last point is shown with the task
            self._show()

    def step(self, *, counted: bool = False) -> None:
        """One task done; ``counted``: its points were already reported one by one."""
        self.done += 1
        if not counted:
            self.points += self.per_task
        self._show("\n" if self.done == self.n_tasks else "")


def _execute(
    executor: Executor | None,
    max_workers: int | None,
    payload: JudgedRuns,
    tasks: list[tuple[float, int]],
    configurations: list,
    options: dict[str, Any],
    progress: _Progress,
) -> list[list[dict[str, Any]]]:
    results: list[list[dict[str, Any]] | None] = [None] * len(tasks)
    n_local = min(max_workers or os.cpu_count() or 1, len(tasks))
    if executor is None and n_local <= 1:
        for i, (f, s) in enumerate(tasks):
            results[i] = _run_task(payload, f, s, configurations, options, on_point=progress.point)
            progress.step(counted=True)
        return results  # type: ignore[return-value]
    own = executor is None
    pool: Executor = ProcessPoolExecutor(max_workers=n_local) if own else executor  # type: ignore[assignment]
    try:
        futures = {pool.submit(_run_task, payload, f, s, configurations, options): i for i, (f, s) in enumerate(tasks)}
        try:
            for fut in as_completed(futures):
                results[futures[fut]] = fut.result()
                progress.step()
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise
    finally:
        if own:
            pool.shutdown(wait=True, cancel_futures=True)
    return results  # type: ignore[return-value]


def dask_executor(address: str, timeout: float = 10) -> tuple[Any, Executor]:
    """A Dask ``distributed.Client`` connected to the scheduler at ``address`` (e.g. ``tcp://host:8786``) and its
    :class:`concurrent.futures.Executor`, for ``sweep(..., executor=...)``; close the client when done.

    Raises :class:`ImportError` (with the ``pip install`` line) when ``dask.distributed`` is not installed, and
    :class:`gtheory.ParameterError` (``param="address"``) when no scheduler answers within ``timeout`` seconds.
    """
    try:
        from dask.distributed import Client
    except ImportError:
        raise ImportError('Dask\'s distributed scheduler is not installed: pip install "dask[distributed]"') from None
    try:
        client = Client(address, timeout=timeout)
    except OSError as exc:
        raise ParameterError("address", f"cannot reach the Dask scheduler at {address}: {exc}") from None
    return client, client.get_executor()
