r"""Sensitivity sweeps: the stability of nDCG over a grid of configurations, in parallel.

:func:`sweep` runs a generalizability-theory study (G-study and D-study, Brennan [1]_) of nDCG for every point
of a grid

.. math::

    \text{cut-offs} \times \text{gain families} \times \text{discount families}
    \times \text{qrels fractions} \times \text{seeds}

and returns a *tidy* DataFrame: one row per grid point with the configuration columns and the study's numbers
(variance components, Φ and Eρ² at the collection's number of topics, the topics needed for Φ ≥ target,
Kendall's τ against a reference configuration, the mean score and, with ``tune=True``, the Φ of the discount
tuned for stability by :func:`optimize.optimize_discount`, Kanoulas & Aslam [2]_). The qrels fraction reduces the
judgments as Buckley & Voorhees [3]_ (:func:`metrics.reduce_qrels`); fraction 1 is the full qrels.

Parallelism
-----------
The grid is cut into *tasks*, one per ``(fraction, seed)``: a task builds the reduced tensor once and evaluates
every cut-off × gain × discount on it. Tasks run on

* the local cores (default): a :class:`concurrent.futures.ProcessPoolExecutor` with ``max_workers`` processes
  (default: the number of cores, at most the number of tasks); ``max_workers=1`` runs in this process;
* any :class:`concurrent.futures.Executor` passed as ``executor=``: a Dask cluster
  (``dask.distributed.Client(address).get_executor()``), Ray's ``ray.util.multiprocessing`` style executors,
  :class:`~concurrent.futures.ThreadPoolExecutor`, ... The executor is used as it is (``submit`` and
  :func:`concurrent.futures.as_completed`); it is not shut down.

The judged-grade tensor travels **once per task**, pickled with the task's arguments — never once per grid
point. Measured on the embedded TREC-9 tensor (104 × 50 × 1000, 2-core machine): pickling is 15.7 MB, 0.06 s
to dump and 0.03 s to load, against 2.8 s to write and 0.33 s to read a compressed ``JudgedRuns.save`` file
(3.3 MB); a task costs 0.7 s to reduce the qrels plus about 0.6 ms per grid point (nDCG from the sparse view of
:mod:`metrics.measures.sparse`, gains of one cut-off and discount sharing its per-grade discounted counts; the G-study;
Kendall's τ), so shipping matters for small grids only; it works with every executor (no shared file system needed for a Dask cluster) and leaves no
temporary files. Before shipping, the tensor is cut to the largest cut-off of the grid (ranks below it cannot
change nDCG@k; not for ``judged_only``, whose condensed lists reach below the cut-off), which also makes it
smaller.

Results do not depend on the executor or the number of workers: every task is a pure function of the tensor,
its ``(fraction, seed)`` and the grid, and the rows are put back in grid order.

References
----------
.. [1] R. L. Brennan. *Generalizability Theory*. Springer, 2001 (ch. 4, D-studies).
.. [2] E. Kanoulas and J. A. Aslam. Empirical justification of the gain and discount function for nDCG.
   CIKM 2009.
.. [3] C. Buckley and E. M. Voorhees. Retrieval evaluation with incomplete information. SIGIR 2004.
.. [4] M. G. Kendall. A new measure of rank correlation. Biometrika 30, 1938.
"""
from __future__ import annotations

import math
import time
from concurrent.futures import Executor
from numbers import Real
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

import metrics
from metrics import JudgedRuns
from metrics.measures import parse_family
from gtheory.errors import ParameterError
from gtheory.kit.checks import check_progress
from gtheory.kit.display import listed
from metrics.io import check_judged
from .grid import Cutoff, SweepGrid, _check_cutoffs
from .tasks import _execute, _Progress, _truncate, _whole_list_discount
from gtheory.kit.params import ANY_LEVEL, validate_params

__all__ = ["sweep", "SWEEP_COLUMNS", "degenerate_points", "depth_notes", "format_sweep", "check_settings"]


#: result columns of :func:`sweep`, in order (``phi_tuned`` and ``tuned_discount`` are added with ``tune=True``)
SWEEP_COLUMNS: tuple[str, ...] = (
    "cutoff", "gain", "discount", "fraction", "seed",
    "n_systems", "n_topics", "judged_kept",
    "var_system", "var_topic", "var_residual",
    "phi", "erho2", "topics_needed", "tau", "mean",
)


def _check_reference(reference: Any, grid: SweepGrid) -> dict[str, Any]:
    default_k = None if None in grid.cutoffs else max(k for k in grid.cutoffs if k is not None)
    ref = dict(cutoff=default_k, gain="linear", discount="log2")
    if reference is None:
        return ref
    if not isinstance(reference, Mapping):
        raise TypeError(f"`reference` must be a mapping with keys cutoff, gain, discount; got {reference!r}.")
    unknown = set(reference) - set(ref)
    if unknown:
        raise ValueError(f"`reference` takes the keys cutoff, gain, discount; got unknown {sorted(unknown)}.")
    ref.update(reference)
    _check_cutoffs([ref["cutoff"]])
    for key, known, what in (("gain", metrics.GAIN_FAMILIES, "gain family"),
                             ("discount", metrics.DISCOUNT_FAMILIES, "discount family")):
        if isinstance(ref[key], str):
            try:
                parse_family(ref[key], dict(known), what)
            except ValueError as exc:
                raise ParameterError(f"reference['{key}']", f"`reference['{key}']`: {exc}") from None
    return ref


@validate_params(seeds=None)
def check_settings(cutoffs: Any = (10, 20, 100), gains: Any = ("linear", "exponential"),
                   discounts: Any = ("log2", "zipf", "linear"), fractions: Any = (1.0,), seeds: Any = (0,), *,
                   target: float = 0.95, reference: Mapping[str, Any] | None = None,
                   tune: bool = False) -> tuple[SweepGrid, dict[str, Any], float]:
    """Check the settings of a :func:`sweep` that need no data, as :func:`sweep` does (same defaults, same errors),
    so that a front end can refuse them before loading the runs: returns the grid, the τ reference (``cutoff``,
    ``gain``, ``discount``, defaults filled in) and the target.

    Raises ValueError / TypeError naming the parameter in backticks (a gain or discount of the reference as
    ``reference['gain']`` / ``reference['discount']``): an unknown family, a fraction outside (0, 1], a target
    outside (0, 1), ``tune=True`` with a ``None`` cut-off (a tuned discount has one weight per rank).
    """
    grid = SweepGrid.of(cutoffs, gains, discounts, fractions, seeds)
    ref = _check_reference(reference, grid)  # target: the parameter table
    if not isinstance(tune, bool):
        raise TypeError(f"`tune` must be a bool; got {tune!r}.")
    if tune and None in grid.cutoffs:
        raise ParameterError("tune=True", "`tune=True` needs integer `cutoffs` (a tuned discount has one weight per "
                                          "rank); got the whole list ('none', None).")
    return grid, ref, target


@validate_params(seeds=None, relevance_level=ANY_LEVEL)
def sweep(
    judged: JudgedRuns,
    cutoffs: int | None | Sequence[int | None] = (10, 20, 100),
    gains: str | Sequence[str] | Mapping[str, Any] = ("linear", "exponential"),
    discounts: str | Sequence[str] | Mapping[str, Any] = ("log2", "zipf", "linear"),
    fractions: float | Sequence[float] = (1.0,),
    seeds: int | Sequence[int] = (0,),
    *,
    target: float = 0.95,
    n_topics: float | None = None,
    reference: Mapping[str, Any] | None = None,
    judged_only: bool = False,
    tune: bool = False,
    tune_options: Mapping[str, Any] | None = None,
    relevance_level: float = 1,
    min_relevant: int = 1,
    min_nonrelevant: int = 10,
    executor: Executor | None = None,
    max_workers: int | None = None,
    progress: bool | Callable[[str], None] = False,
) -> pd.DataFrame:
    r"""Stability of nDCG over a grid of cut-offs, gains, discounts and qrels reductions (a sensitivity study).

    For every grid point (cut-off k, gain g, discount d, fraction f, seed) the qrels are reduced to the share
    f of their judgments (:func:`metrics.reduce_qrels` with that seed; f = 1 keeps them all), nDCG@k with
    gain g and discount d is computed for every system and topic (:func:`metrics.ndcg`) and the systems ×
    topics matrix gets a G-study (:func:`gtheory.gstudy`).

    Parameters
    ----------
    judged : metrics.JudgedRuns
        The judged-grade tensor with the full qrels (:func:`metrics.judge`, :func:`metrics.load_trec9`).
    cutoffs : int, None or sequence of them
        nDCG cut-offs (``None``: the whole list). The linear discount (k + 1 - r)/k takes its k from the
        cut-off; at ``None`` it takes k = the run depth (``judged.depth``), as ``"linear(k=depth)"`` would.
    gains : str, sequence of str, or mapping
        Gain families (:data:`metrics.GAIN_FAMILIES`: ``"linear"``, ``"exponential"``, ``"binary"``, with
        parameters as ``"exponential(base=3)"``), or a mapping ``{label: gain spec}`` for any gain accepted by
        :func:`metrics.ndcg` (e.g. ``{"0-1-4": [0, 1, 4]}``); the label is what the ``gain`` column shows.
    discounts : str, sequence of str, or mapping
        Discount families (:data:`metrics.DISCOUNT_FAMILIES`: ``"log2"``, ``"zipf"``, ``"linear"``,
        ``"jarvelin(b=2)"``, ``"rbp(p=0.8)"``, ``"none"``) or ``{label: discount vector}``.
    fractions : float or sequence of float
        Shares of the judgments kept, in (0, 1].
    seeds : int or sequence of int
        Seeds of the qrels reduction: an int ``n`` means the ``n`` seeds ``0 .. n-1`` (as in
        :func:`experiments.incompleteness_study`); a sequence lists them (``[5]`` is the single seed 5).
    target : float
        Φ target for ``topics_needed`` (default 0.95).
    n_topics : float, optional
        D-study number of topics for ``phi`` and ``erho2`` (default: the collection's number of topics).
    reference : mapping, optional
        The configuration ``{"cutoff": k, "gain": g, "discount": d}`` on the **full** qrels that ``tau`` compares
        against; missing keys default to gain ``"linear"``, discount ``"log2"`` and the largest cut-off of the grid
        (``None`` if the grid has it).
    judged_only : bool
        Evaluate the condensed lists (nDCG′; unjudged documents removed).
    tune : bool
        Also tune the discount for stability at every (fraction, seed, cut-off, gain)
        (:func:`optimize.optimize_discount`) and report its Φ at ``n_topics`` (``phi_tuned``) and the vector
        (``tuned_discount``). Needs integer cut-offs. Slow for large cut-offs (seconds per tuning at k = 100).
        Where the (condensed) lists of sparse reduced qrels end before the cut-off, the discount is tuned
        to that depth (:func:`optimize.solvers.objective.identified_depth`; nDCG@k equals nDCG@depth there for
        every discount) and ``tuned_discount`` is that long.
    tune_options : mapping, optional
        Keyword arguments for :func:`optimize.optimize_discount` (default ``{"starts": 1}``).
    relevance_level, min_relevant, min_nonrelevant
        The qrels reduction, as in :func:`metrics.reduction_mask`.
    executor : concurrent.futures.Executor, optional
        Run the tasks on this executor (not shut down afterwards), e.g. a Dask cluster's
        ``dask.distributed.Client(address).get_executor()``. Default: a process pool on the local cores.
    max_workers : int, optional
        Processes of the local pool (default: all cores, at most one per task); ``1`` runs in this process.
        Ignored when ``executor`` is given.
    progress : bool or callable
        Report progress (``True``: a line on stderr; a callable is called with each message): grid points and tasks done (every point when the tasks run in this
        process, ``max_workers=1`` or a single task; as each task completes on a pool or cluster).

    Returns
    -------
    pandas.DataFrame
        One row per grid point, in grid order (fraction, seed, cutoff, gain, discount; the last fastest), with
        the columns :data:`SWEEP_COLUMNS`:

        * ``cutoff``, ``gain``, ``discount``, ``fraction``, ``seed`` — the configuration;
        * ``n_systems``, ``n_topics`` — the matrix; ``judged_kept`` — share of judgments kept;
        * ``var_system``, ``var_topic``, ``var_residual`` — variance components (negative estimates set to 0);
        * ``phi``, ``erho2`` — Φ and Eρ² at ``n_topics``;
        * ``topics_needed`` — smallest number of topics with Φ ≥ ``target`` (``inf`` if never);
        * ``tau`` — Kendall's τ-b [4]_ between the systems' mean scores and those of ``reference``;
        * ``mean`` — the mean score;
        * with ``tune=True``: ``phi_tuned`` and ``tuned_discount``.

        ``attrs`` records the target, n_topics, reference, judged_only and the wall time.
        Rows whose matrix admits no G-study (constant scores, or NaN under ``missing="exclude"``) hold NaN.

    Raises
    ------
    TypeError
        ``judged`` is not a JudgedRuns; an axis or ``executor`` of the wrong type.
    ValueError
        Bad axis values (see :meth:`SweepGrid.of`; unknown family names list the known ones), ``target``
        outside (0, 1), ``max_workers`` < 1, ``tune=True`` with a ``None`` cut-off.

    Notes
    -----
    .. math::

        \Phi(n) = \frac{\sigma^2_s}{\sigma^2_s + (\sigma^2_t + \sigma^2_{st,e})/n}, \qquad
        E\rho^2(n) = \frac{\sigma^2_s}{\sigma^2_s + \sigma^2_{st,e}/n}, \qquad
        n_{\text{needed}} = \min\{n \in \mathbb{N} : \Phi(n) \ge \text{target}\}

    (Brennan [1]_, ch. 4; Kanoulas & Aslam [2]_, §2). Parallel tasks, shipping of the tensor and determinism:
    module docstring.

    Examples
    --------
    >>> import metrics
    >>> from experiments import sweep
    >>> j = metrics.load_trec9().subset(systems=range(30), topics=range(20))
    >>> df = sweep(j, cutoffs=[10, 100], gains=["linear"], discounts=["log2", "zipf"], max_workers=1)
    >>> df[["cutoff", "discount"]].values.tolist()
    [[10, 'log2'], [10, 'zipf'], [100, 'log2'], [100, 'zipf']]
    >>> bool(df.phi.between(0, 1).all()), float(df.tau.iloc[2])
    (True, 1.0)

    On a Dask cluster (the scheduler's address, or a ``LocalCluster``)::

        from dask.distributed import Client
        with Client("tcp://scheduler:8786") as client:
            df = sweep(j, fractions=[1.0, 0.5, 0.2], seeds=range(10), executor=client.get_executor())
    """
    t0 = time.perf_counter()
    judged = check_judged(judged)
    grid, ref, target = check_settings(cutoffs, gains, discounts, fractions, seeds, target=target,
                                       reference=reference, tune=tune)
    if n_topics is None:
        n_topics = judged.n_topics
    if isinstance(n_topics, bool) or not isinstance(n_topics, Real) or not n_topics > 0:
        raise ValueError(f"`n_topics` must be a positive number; got {n_topics!r}.")
    if not isinstance(judged_only, bool):
        raise TypeError(f"`judged_only` must be a bool; got {judged_only!r}.")
    # validate the gain/discount vectors against the grades once, here, not in a worker
    for label, spec in grid.gains:
        try:
            metrics.gain_vector(spec, judged.levels)
        except ValueError as exc:
            raise ValueError(f"`gains`: {label!r}: {exc}") from None
    for label, spec in grid.discounts:
        if not isinstance(spec, str):
            try:
                metrics.discount_vector(spec, 1)
            except ValueError as exc:
                raise ValueError(f"`discounts`: {label!r}: {exc}") from None

    ref_discount = ref["discount"] if ref["cutoff"] is not None else _whole_list_discount(ref["discount"], judged.depth)
    ref_scores = metrics.ndcg(judged, gain=ref["gain"], discount=ref_discount, cutoff=ref["cutoff"],
                              judged_only=judged_only).to_numpy()
    options = dict(
        sampling=dict(relevance_level=relevance_level, min_relevant=min_relevant, min_nonrelevant=min_nonrelevant),
        reference_means=ref_scores.mean(axis=1),
        n_topics=float(n_topics),
        target=target,
        judged_only=judged_only,
        tune=tune,
        tune_options=dict(tune_options) if tune_options is not None else {"starts": 1},
    )
    payload = judged
    if not judged_only and None not in grid.cutoffs:
        payload = _truncate(judged, max(grid.cutoffs))  # type: ignore[type-var]
    configurations = grid.configurations()
    tasks = grid.tasks()
    bar = _Progress(check_progress(progress), len(tasks), len(grid), len(configurations))
    results = _execute(executor, max_workers, payload, tasks, configurations, options, bar)

    columns = list(SWEEP_COLUMNS) + (["phi_tuned", "tuned_discount"] if tune else [])
    records = [row for rows in results for row in rows]
    df = pd.DataFrame(records, columns=columns)
    if None in grid.cutoffs:  # keep None (the whole list) as None, not NaN in a float column
        df["cutoff"] = pd.Series([r["cutoff"] for r in records], index=df.index, dtype=object)
    else:
        df["cutoff"] = df["cutoff"].astype(np.int64)
    df.attrs.update(
        target=target, n_topics=float(n_topics), reference=dict(ref), judged_only=judged_only,
        n_points=len(grid), n_tasks=len(tasks), seconds=time.perf_counter() - t0,
    )
    return df


def degenerate_points(df: pd.DataFrame, judged: JudgedRuns) -> list[str]:
    """Why some grid points of a :func:`sweep` have no G-study (their rows are NaN): one message per reason
    (a gain that is 0 for every grade, NaN scores, no variance), naming the points."""
    bad = df[df["phi"].isna()]
    reasons: dict[str, list[str]] = {}
    for _, r in bad.iterrows():
        why = "the nDCG matrix admits no G-study"
        try:
            gains = np.asarray(metrics.gain_vector(r["gain"], judged.levels), dtype=float)
        except (ValueError, TypeError):
            gains = None
        grades = " ".join(f"{v:g}" for v in judged.levels)
        if gains is not None and not np.any(gains):
            why = f"gain {r['gain']} is 0 for every grade of the data ({grades}), so every nDCG is 0"
        elif not math.isfinite(r["mean"]):
            why = "some nDCG scores are NaN"
        else:
            why = f"every system has the same nDCG on every topic ({r['mean']:.4g}): no variance to study"
        k = "none" if r["cutoff"] is None else r["cutoff"]
        reasons.setdefault(why, []).append(
            f"cutoff={k} gain={r['gain']} discount={r['discount']} fraction={r['fraction']:g} seed={r['seed']}")
    return [f"no G-study at {len(pts)} grid point{'s' * (len(pts) != 1)} (NaN rows): {why}: {listed(pts, show=3)}"
            for why, pts in reasons.items()]



def depth_notes(cutoffs: Iterable[Cutoff], depth: int, *, tune: bool = False, param: str = "cutoffs",
                what: str = "depth") -> list[str]:
    """One note per cut-off in ``cutoffs`` beyond the runs' ``depth`` (their longest list).

    nDCG@k is defined there, as trec_eval's ``ndcg_cut.k``: the runs are scored on the ``depth`` ranks they have,
    the ideal ranking on up to k documents (Järvelin & Kekäläinen 2002). A discount tuned for stability
    (``tune=True``) has one weight per rank the runs have, so with ``tune`` such a cut-off is refused:
    :class:`gtheory.ParameterError` naming ``param``. ``what`` names the depth in the messages (``"depth"``,
    or the option that bounds it). ``None`` (the whole list) is never beyond the depth.
    """
    notes = []
    for k in cutoffs:
        if k is None or k <= depth:
            continue
        if tune:
            raise ParameterError(param, f"`{param}` {k} exceeds the run {what} {depth}; `tune=True` needs cut-offs "
                                        "within it.")
        notes.append(f"`{param}` {k} exceeds the run {what} {depth}: nDCG@{k} scores the {depth} ranks the runs "
                     f"have (the ideal ranking has up to {k} documents).")
    return notes



def format_sweep(df: pd.DataFrame) -> str:
    """The table of a :func:`sweep` result as text: one line per grid point with its settings, Φ, Eρ², topics
    needed, τ and mean (and ``phi_tuned`` when the sweep was tuned); cut-off ``None`` shows as ``none``,
    unreachable topics needed (Φ never reaches the target) as ``inf``, undefined as ``-``."""
    show = ["cutoff", "gain", "discount", "fraction", "seed", "phi", "erho2", "topics_needed", "tau", "mean"]
    show += ["phi_tuned"] if "phi_tuned" in df.columns else []
    fmt: dict[str, Callable[[Any], str]] = {c: (lambda v: f"{v:.4f}") for c in ("phi", "erho2", "tau", "mean",
                                                                                "phi_tuned")}
    fmt.update(fraction=lambda f: f"{f:g}",
               topics_needed=lambda n: "inf" if n == math.inf else ("-" if n != n else str(int(n))))
    table = df[show].assign(cutoff=[("none" if k is None else str(k)) for k in df["cutoff"]])
    return table.to_string(index=False, formatters=fmt)
