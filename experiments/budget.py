r"""The topics × pool-depth budget: how many topics at which pool depth, and what it costs to judge (Sakai 2016, §6).

Sakai's IRJ 2016 paper ("Topic set size design") weighs the topic set size against the pool depth: a shallower pool
costs fewer judgments per topic but leaves more documents unjudged, which changes the measure's variance and so the
topics needed. :func:`topic_depth_budget` recomputes, for each pool depth d, the pilot under the depth-d pool — the
judgments of the documents some run retrieved in its top d, every other judgment forgotten
(:meth:`metrics.JudgedRuns.restrict_judgments`; unjudged documents count as non-relevant, as in the original
evaluation) — and reports the variance components, V_E, the topics each requirement needs at that depth, and the
judging cost, topics × judged documents per topic (the depth-d pool's judged documents, averaged over the topics).
The cheapest depth for each requirement is the one of least cost.

The cost counts only documents the original qrels judged: a pool deeper than the original one would also need the
documents never judged, which the pilot cannot price. The column ``coverage`` (the share of the retrieved documents
at ranks ≤ d that the original qrels judged) shows where that happens: below 1, the cost is a lower bound and the
measure at that depth is as incomplete as the original qrels leave it.

``bootstrap=B`` resamples systems and topics (Brennan's boot-p,i, :meth:`gtheory.GStudy.bootstrap`) with one seed,
so that every depth sees the same resampled systems and topics: each depth's interval of the topics needed for Φ,
and the share of resamples in which each depth is the cheapest for Φ. ``executor=`` runs one task per depth
(:mod:`gtheory.kit.executors`); the result does not depend on it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Sequence

import numpy as np
import pandas as pd

import gtheory
from gtheory.kit.display import fmt, html_table
from gtheory.kit.jsonio import TableResult
from gtheory.kit.render import plot_label
from gtheory.kit.params import validate_params

if TYPE_CHECKING:  # pragma: no cover
    from concurrent.futures import Executor

    from matplotlib.axes import Axes

    from metrics import JudgedRuns

__all__ = ["TopicBudget", "topic_depth_budget", "pool_mask", "check_requirement"]

_COLUMNS = ["depth", "judged_per_topic", "coverage", "var_system", "var_topic", "var_residual", "phi_topics", "erho2_topics",
            "paired_t_topics", "phi_cost", "erho2_cost", "paired_t_cost", "phi_topics_low", "phi_topics_high",
            "phi_cheapest_share"]
_TOPIC_COLUMNS = ("phi_topics", "erho2_topics", "paired_t_topics", "phi_cost", "erho2_cost", "paired_t_cost",
                  "phi_topics_low", "phi_topics_high")  # inf (never reached) is written as null
_REQUIREMENTS = ("phi", "erho2", "paired_t")


def pool_mask(judged: "JudgedRuns", depth: int) -> np.ndarray:
    """The judgments of the depth-``depth`` pool: a boolean array over ``judged.qrels_level`` (the argument of
    :meth:`metrics.JudgedRuns.restrict_judgments`), True for a judged document some run retrieved at rank ≤ depth."""
    ids = judged.doc_ids[:, :, :depth]
    flat = ids + judged.qrels_offsets[:-1][None, :, None]
    keep = np.zeros(judged.qrels_level.size, dtype=bool)
    keep[flat[ids >= 0]] = True
    return keep


@dataclass(frozen=True, eq=False)
class TopicBudget(TableResult):
    """Topics needed and judging cost at each pool depth (:func:`topic_depth_budget`).

    Attributes
    ----------
    table : DataFrame
        One row per depth: ``judged_per_topic`` (mean judged documents per topic in the depth-d pool), ``coverage``
        (share of the retrieved documents at ranks ≤ d the original qrels judged), the variance
        components ``var_system``, ``var_topic`` and ``var_residual`` (= V_E), the topics needed for Φ and Eρ² ≥
        ``target`` and for the paired t-test to detect ``min_diff`` with ``power``, and each one's cost (topics ×
        judged documents per topic; ``inf`` when never reached). With ``bootstrap`` resamples: ``phi_topics_low``,
        ``phi_topics_high`` (the interval at ``level`` of the topics needed for Φ,
        :meth:`gtheory.GStudy.bootstrap` with systems and topics resampled) and ``phi_cheapest_share`` (the share of the resamples — the same resampled
        systems and topics at every depth — in which this depth is the cheapest for Φ); NaN without.
    measure : str
    target, min_diff, power, alpha : float
    n_systems, n_topics : int
        The pilot's shape.
    bootstrap : int
        Resamples of the intervals (0: none).
    seed : int or None
        The seed of the resamples (None without them).
    level : float
        Confidence level of the intervals.
    """

    table: pd.DataFrame
    measure: str
    target: float
    min_diff: float
    power: float
    alpha: float
    n_systems: int
    n_topics: int
    bootstrap: int = 0
    seed: int | None = None
    level: float = 0.95

    JSON_FORMAT: ClassVar[str] = "experiments.TopicBudget/1"
    #: the declared schema of the document (:mod:`gtheory.kit.schema`), checked by :meth:`from_json`
    JSON_SCHEMA: ClassVar[dict] = {}

    def cheapest(self, requirement: str = "phi") -> dict[str, float]:
        """The depth of least judging cost for ``requirement`` ("phi", "erho2" or "paired_t"): its depth, topics and
        cost (NaN depth when no depth reaches it)."""
        if requirement not in _REQUIREMENTS:
            raise gtheory.ParameterError("requirement", f"`requirement` must be one of {_REQUIREMENTS}; "
                                                        f"got {requirement!r}.")
        cost = self.table[f"{requirement}_cost"].to_numpy(float)
        if not np.isfinite(cost).any():
            return {"depth": math.nan, "topics": math.inf, "cost": math.inf}
        k = int(np.nanargmin(cost))
        row = self.table.iloc[k]
        return {"depth": int(row["depth"]), "topics": float(row[f"{requirement}_topics"]), "cost": float(cost[k])}

    def summary(self) -> str:
        """The table as text and the cheapest depth for each requirement."""
        cols = ["depth", "judged_per_topic", "coverage", "var_system", "var_topic", "var_residual", "phi_topics",
                "phi_cost", "erho2_topics", "erho2_cost", "paired_t_topics", "paired_t_cost"]
        width = [max(len(c), 9) + 1 for c in cols]
        lines = [f"Topics × pool depth for {self.measure} ({self.n_systems} systems × {self.n_topics} topics): "
                 f"Φ, Eρ² ≥ {self.target:g}; paired t power {self.power:g} for Δ ≥ {self.min_diff:g} at α = "
                 f"{self.alpha:g}; var_residual = V_E; cost = topics × judged_per_topic",
                 "  " + "".join(f"{c:>{w}}" for c, w in zip(cols, width))]
        for r in self.table.itertuples(index=False):
            lines.append("  " + "".join(f"{fmt(getattr(r, c)):>{w}}" for c, w in zip(cols, width)))
        for req, name in (("phi", "Φ"), ("erho2", "Eρ²"), ("paired_t", "paired t")):
            c = self.cheapest(req)
            lines.append(f"  cheapest for {name}: depth {fmt(c['depth'])}, {fmt(c['topics'])} topics, "
                         f"{fmt(c['cost'])} judgments")
        if self.bootstrap:
            lines.append(f"  Φ topics at {self.level:.0%} ({self.bootstrap} resamples of systems and topics, seed "
                         f"{self.seed}); share of resamples in which the depth is the cheapest for Φ:")
            for r in self.table.itertuples(index=False):
                lines.append(f"    depth {r.depth:>5}: {fmt(r.phi_topics)} [{fmt(r.phi_topics_low)}, "
                             f"{fmt(r.phi_topics_high)}] topics; cheapest in {r.phi_cheapest_share:.0%}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        c = self.cheapest("phi")
        return (f"TopicBudget({self.measure}, depths {list(self.table['depth'])}, cheapest for Φ ≥ {self.target:g}: "
                f"depth {fmt(c['depth'])})")

    def _repr_html_(self) -> str:
        cols = ["depth", "judged_per_topic", "var_residual", "phi_topics", "phi_cost", "paired_t_topics",
                "paired_t_cost"]
        if self.bootstrap:
            cols += ["phi_topics_low", "phi_topics_high", "phi_cheapest_share"]
        return html_table(self.table[cols].itertuples(index=False), header=cols,
                          caption=f"TopicBudget ({self.measure})")

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain JSON values plus ``"format"``; inf (never reached) as None."""
        from gtheory.kit.jsonio import fields_document

        return fields_document(self)

    @classmethod
    def from_json(cls, text_or_path: Any) -> "TopicBudget":
        """A :class:`TopicBudget` from :meth:`to_json` output; a ``null`` topic count or cost is inf."""
        from gtheory.kit.schema import read_fields_document

        d = read_fields_document(cls, text_or_path, {"table": tuple(_COLUMNS[1:])})
        t = d["table"]
        t["depth"] = t["depth"].astype(int)
        for c in _TOPIC_COLUMNS:
            if d["bootstrap"] or not c.startswith("phi_topics_"):  # NaN (no bootstrap) stays NaN
                t[c] = t[c].fillna(math.inf)
        d["table"] = t
        return cls(**d)


    def plot(self, ax: "Axes | None" = None, *, title: str | None = None) -> "Axes":
        """Judging cost against pool depth, one line per requirement."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        t = self.table
        for req, name in (("phi", f"Φ ≥ {self.target:g}"), ("erho2", f"Eρ² ≥ {self.target:g}"),
                          ("paired_t", f"paired t, Δ ≥ {self.min_diff:g}")):
            cost = t[f"{req}_cost"].replace(math.inf, np.nan)
            ax.plot(t["depth"], cost, "o-", label=name)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("pool depth")
        ax.set_ylabel("judgments (topics × judged per topic)")
        ax.set_title(title if title is not None else plot_label(f"Topics × depth budget: {self.measure}"),
                     fontsize=10)
        ax.legend(fontsize=8)
        return ax


def _depth_row(judged: "JudgedRuns", d: int, measure: str, min_diff: float, target: float, power: float,
               alpha: float, bootstrap: int, seed: int | None, level: float) -> tuple[dict[str, float], Any]:
    """One depth (a task of :func:`topic_depth_budget`, a pure function of its arguments): the table's row and the
    bootstrap replicates of the topics needed for Φ (None without ``bootstrap``)."""
    import warnings

    import metrics

    keep = pool_mask(judged, d)
    at_d = judged.restrict_judgments(keep)
    scores = metrics.evaluate(at_d, measure)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
        g = gtheory.gstudy(scores)
    per_topic = float(keep.sum() / judged.n_topics)
    top = judged.grades[:, :, :d]
    retrieved = top != metrics.ABSENT
    coverage = float(np.mean(top[retrieved] >= 0)) if retrieved.any() else math.nan
    if gtheory.within_system_variance(scores)[0] == 0.0:  # no residual variance at this depth (e.g. every score 0)
        t_n = math.inf
    else:  # every requirement was checked by topic_depth_budget before any depth ran
        t_n = gtheory.topic_set_size(scores, method="paired-t", min_diff=min_diff, power=power, alpha=alpha).n
    phi_n = g.topics_needed(target, "phi", level=None).n
    erho2_n = g.topics_needed(target, "erho2", level=None).n
    low = high = math.nan
    replicates = None
    if bootstrap:
        b = g.bootstrap(n_resamples=bootstrap, over="both", seed=seed, level=level, target=target)
        low, high = b.interval("topics_needed")
        replicates = b.replicates_adjusted[:, b.quantities.index("topics_needed")]
    row = dict(depth=d, judged_per_topic=per_topic, coverage=coverage, var_system=g.var_system, var_topic=g.var_topic,
               var_residual=g.var_residual, phi_topics=float(phi_n), erho2_topics=float(erho2_n),
               paired_t_topics=float(t_n), phi_cost=phi_n * per_topic, erho2_cost=erho2_n * per_topic,
               paired_t_cost=t_n * per_topic, phi_topics_low=float(low), phi_topics_high=float(high),
               phi_cheapest_share=math.nan)
    return row, replicates


def check_requirement(*, power: float, alpha: float) -> None:
    """The rule between two parameters that the table cannot state: ``power`` must exceed ``alpha`` (a test rejects
    with probability ``alpha`` when there is no difference, so a lower power is met by any number of topics and the
    question is empty). Shared by :func:`topic_depth_budget` and ``gtheory budget``."""
    if not power > alpha:
        raise gtheory.ParameterError("power", f"`power` must exceed `alpha` ({alpha:g}): a test detects any "
                                              f"difference with probability at least alpha; got {power!r}.")


@validate_params()
def topic_depth_budget(
    judged: "JudgedRuns",
    measure: str = "nDCG@10",
    *,
    depths: Sequence[int] = (5, 10, 20, 30, 50, 100),
    min_diff: float = 0.05,
    target: float = 0.95,
    power: float = 0.8,
    alpha: float = 0.05,
    bootstrap: int = 0,
    seed: int | np.random.Generator | None = 0,
    level: float = 0.95,
    progress: bool | str | Callable[[str], Any] = "auto",
    executor: "Executor | None" = None,
) -> TopicBudget:
    r"""Topics needed and judging cost at each pool depth (Sakai, IRJ 2016, §6: topic set size vs pool depth).

    Parameters
    ----------
    judged : metrics.JudgedRuns
        The pilot's runs and qrels.
    measure : str
        The measure (any name of :func:`metrics.evaluate`), default nDCG@10.
    depths : int or sequence of int
        Pool depths, integers >= 1 (``2.5`` or ``True`` refused, not truncated), each at most the runs' depth.
    min_diff, power, alpha : float
        The paired t-test requirement (:func:`gtheory.topic_set_size`, residual variance): ``min_diff`` a positive
        finite number, ``power`` above ``alpha``. Every parameter is checked before any depth runs, by the rules
        the command line ``gtheory budget`` applies too (the parameter table, :mod:`gtheory.kit.params`).
    target : float
        The Φ and Eρ² to reach.
    bootstrap : int
        Resamples of systems and topics (Brennan's boot-p,i, :meth:`gtheory.GStudy.bootstrap`, ``over="both"``) for
        the interval of the topics needed for Φ at each depth and the share of resamples in which each depth is the
        cheapest (default 0: none; 1000 is usual). The same resampled systems and topics are used at every depth.
    seed : int or None
        Seed of the resamples (``numpy.random.default_rng``); the same seed gives the same result. None draws one
        (fresh entropy), recorded in the result.
    level : float
        Confidence level of the intervals (default 0.95).
    progress : bool, "auto" or callable
        A line per depth (the shared ``progress`` parameter, docs/architecture.md).
    executor : concurrent.futures.Executor, optional
        Run the depths on this executor (one task per depth: the pool, the measure, the G-study and its resamples;
        not shut down afterwards), e.g. a ``ProcessPoolExecutor`` or a Dask cluster's ``client.get_executor()``,
        as :func:`experiments.sweep` takes it. The result is the same with and without one.

    Returns
    -------
    TopicBudget
        ``table``, ``cheapest(requirement)``, ``summary()``, ``plot()``, ``to_json()``.
    """
    from gtheory.kit.checks import check_int, progress_writer
    from gtheory.kit.executors import run_tasks

    # min_diff, depths, target, power, alpha, seed, level, progress, executor: the parameter table (its rules are
    # also the command line's, experiments/cli/budget.py); what it cannot say is checked here, before any depth runs
    say = progress_writer(progress)
    check_requirement(power=power, alpha=alpha)
    depths = sorted(set([depths] if isinstance(depths, int) else depths))
    if depths[-1] > judged.depth:
        raise gtheory.ParameterError("depths", f"`depths` must be integers in [1, {judged.depth}] (the runs' depth); "
                                               f"got {list(depths)!r}.")
    if bootstrap != 0:
        bootstrap = check_int(bootstrap, "bootstrap", minimum=10)
    if not bootstrap:
        seed = None
    elif not isinstance(seed, int):  # one integer for every depth (paired resamples): one draw of a Generator/None
        seed = int(np.random.default_rng(seed).integers(2**31))
    tasks = [(judged, d, str(measure), min_diff, target, power, alpha, int(bootstrap), seed, level) for d in depths]
    done = [0]

    def report(i: int) -> None:
        done[0] += 1
        say(f"topic_depth_budget: depth {depths[i]} done ({done[0]} of {len(depths)})")

    results = run_tasks(executor, _depth_row, tasks, on_done=report if say else None)
    rows = [r for r, _ in results]
    if bootstrap:  # paired resamples: which depth is the cheapest for Φ in each
        cost = np.stack([rep * r["judged_per_topic"] for r, rep in results])  # depths × resamples
        big = np.where(np.isfinite(cost), cost, np.inf)
        best = np.argmin(big, axis=0)
        reached = np.isfinite(big).any(axis=0)
        for k, r in enumerate(rows):
            r["phi_cheapest_share"] = float(np.mean(reached & (best == k)))
    table = pd.DataFrame(rows, columns=_COLUMNS)
    for c in _COLUMNS[1:]:
        table[c] = table[c].astype(float)
    return TopicBudget(table, str(measure), float(target), float(min_diff), float(power), float(alpha),
                       judged.n_systems, judged.n_topics, int(bootstrap), seed, float(level))


def _budget_schema() -> dict:
    from gtheory.kit.schema import count, integer, real, table, text

    unit = real(0.0, 1.0, low_open=True, high_open=True)
    number = real(nullable=True, null_as=math.nan)
    cols = {"depth": integer(1), "judged_per_topic": real(0.0), "coverage": real(0.0, 1.0, nullable=True,
                                                                                  null_as=math.nan),
            "var_system": number, "var_topic": number, "var_residual": number,
            **{c: count(0) for c in ("phi_topics", "erho2_topics", "paired_t_topics")},
            **{c: real(0.0, nullable=True, null_as=math.inf) for c in ("phi_cost", "erho2_cost", "paired_t_cost")},
            "phi_topics_low": count(0, null_as=math.nan), "phi_topics_high": count(0, null_as=math.nan),
            "phi_cheapest_share": real(0.0, 1.0, nullable=True, null_as=math.nan)}
    return {"table": table(cols), "measure": text(), "target": unit, "min_diff": real(0.0, low_open=True),
            "power": unit, "alpha": unit, "n_systems": integer(2), "n_topics": integer(2), "bootstrap": integer(0),
            "seed": integer(0, nullable=True), "level": unit}


TopicBudget.JSON_SCHEMA.update(_budget_schema())
