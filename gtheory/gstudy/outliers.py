r"""Runs far below the rest, and the competitive systems a paper compares.

A few broken runs (a crashed retrieval, a wrong topic file, a run-tag mix-up) score far below every other run.
They inflate the system variance :math:`\sigma^2_s` of a G-study — the spread of the run means — and with it Φ and
Eρ², so the number of topics needed looks small: the collection seems to separate systems that it separates only
from the broken ones. The systems a paper compares are the competitive ones, and they differ far less.

:func:`outlying_runs` names the runs whose mean is below ``median − k · MAD`` of the run means (MAD the median
absolute deviation, scaled by 1.4826 to estimate the standard deviation of normal data; Hampel 1974; Leys et al.,
*J. Exp. Soc. Psychol.* 49, 2013). The median and the MAD have a breakdown point of 50 %: up to half the runs can be
broken without moving the fence, where the mean and the standard deviation would be dragged down by the very runs
they are to find (Tukey's fence on the quartiles breaks down at 25 %). The rule is one-sided: a run far *above*
the rest is the best system, a finding, not an error. ``k = 3`` (Leys et al.'s "very conservative" choice; 2.5 is
their default) because naming a run as broken is a claim its authors will read.

:func:`competitive_systems` is the set a paper compares: the ``top`` best runs by mean, or by default all but the
lowest quarter — the practice of TREC analyses since Voorhees & Buckley (SIGIR 2002) and Sanderson & Zobel
(SIGIR 2005), who drop the bottom 25 % of runs as "not of interest"; :func:`gtheory.dstudy_subset` takes the same
``top`` / ``drop_lowest``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["OutlyingRuns", "outlying_runs", "competitive_systems", "CompetitiveAnswer", "competitive_answer",
           "MAD_SCALE", "DEFAULT_K", "DEFAULT_DROP_LOWEST"]

#: 1 / Φ⁻¹(3/4): the MAD times this estimates the standard deviation of normal data
MAD_SCALE = 1.482602218505602
#: robust standard deviations below the median that make a run outlying (Leys et al. 2013: 3 is very conservative)
DEFAULT_K = 3.0
#: share of the lowest runs left out of the competitive systems by default (TREC practice: the bottom quarter)
DEFAULT_DROP_LOWEST = 0.25


@dataclass(frozen=True)
class OutlyingRuns:
    """The result of :func:`outlying_runs`.

    Attributes
    ----------
    systems : the outlying runs, lowest mean first (empty when none).
    means : their means, in the same order.
    median, mad : median of the run means and their MAD (scaled by :data:`MAD_SCALE`).
    threshold : ``median - k * mad``: a run whose mean is below it is outlying.
    k : the multiple of the MAD.
    n_systems : the number of runs examined.
    """

    systems: tuple[str, ...]
    means: tuple[float, ...]
    median: float
    mad: float
    threshold: float
    k: float
    n_systems: int

    def __bool__(self) -> bool:
        return bool(self.systems)

    @property
    def rule(self) -> str:
        """The rule in words, with its numbers."""
        return (f"mean below median - {self.k:g} x MAD = {self.median:.4g} - {self.k:g} x {self.mad:.3g} = "
                f"{self.threshold:.4g}")

    def one_line(self) -> str:
        """One line naming the outlying runs and the rule (or saying there are none)."""
        if not self.systems:
            if not self.mad > 0:  # half the runs or more share one mean: no scale to call a run "far" below
                return (f"no run far below the rest: the MAD of the run means is 0 (half of the {self.n_systems} runs "
                        f"or more share the mean {self.median:.4g}), so the rule has no scale to call one far below.")
            return f"no run far below the rest ({self.rule.replace('mean below', 'none with a mean below')})."
        shown = ", ".join(f"{s} ({m:.4g})" for s, m in zip(self.systems[:10], self.means[:10]))
        more = f" and {len(self.systems) - 10} more" if len(self.systems) > 10 else ""
        n = len(self.systems)
        return (f"{n} of {self.n_systems} run{'s' * (self.n_systems != 1)} far below the rest ({self.rule}): "
                f"{shown}{more}; broken runs inflate the system variance and make the topics needed look small.")

    def to_dict(self) -> dict[str, Any]:
        return {"systems": list(self.systems), "means": list(self.means), "median": self.median, "mad": self.mad,
                "threshold": self.threshold, "k": self.k, "n_systems": self.n_systems,
                "rule": "mean < median - k * MAD (MAD scaled by 1.4826)"}


def _means(scores: Any) -> tuple[list[str], np.ndarray]:
    """Labels and means of the rows of a systems x topics matrix (DataFrame or array; NaN cells left out)."""
    if hasattr(scores, "index") and hasattr(scores, "to_numpy"):
        return _row_means(np.asarray(scores.to_numpy(dtype=float), dtype=float), [str(x) for x in scores.index])
    values = np.asarray(scores, dtype=float)
    return _row_means(values, [str(i) for i in range(values.shape[0])] if values.ndim == 2 else [])


def _row_means(values: np.ndarray, labels: list[str]) -> tuple[list[str], np.ndarray]:
    """``labels`` and the means of the rows of ``values`` (NaN cells left out), checked."""
    if values.ndim != 2 or values.shape[0] < 2 or values.shape[1] < 1:
        raise ValueError(f"`scores` must be a systems x topics matrix with at least 2 systems and 1 topic; got shape "
                         f"{values.shape}")
    with np.errstate(invalid="ignore"):
        counts = np.sum(~np.isnan(values), axis=1)
        means = np.where(counts > 0, np.nansum(values, axis=1) / np.maximum(counts, 1), np.nan)
    if np.isnan(means).any() or not np.isfinite(means).all():
        bad = labels[int(np.flatnonzero(~np.isfinite(means))[0])]
        raise ValueError(f"`scores`: system {bad!r} has no finite mean (every topic NaN, or an infinite score)")
    return labels, means


def outlying_runs(scores: Any, *, k: float = DEFAULT_K) -> OutlyingRuns:
    r"""The runs whose mean is far below the rest: :math:`\bar x_s < \operatorname{med} - k\,\mathrm{MAD}`.

    Parameters
    ----------
    scores : systems x topics matrix (DataFrame with system labels, or array); NaN cells are left out of a mean.
    k : multiple of the MAD (> 0; default :data:`DEFAULT_K` = 3).

    Returns
    -------
    OutlyingRuns
        The outlying runs (lowest first) and the numbers of the rule. When the MAD is 0 (half the runs or more share
        one mean) no run is outlying: the rule has no scale to measure "far" by.

    Notes
    -----
    :math:`\mathrm{MAD} = 1.4826 \cdot \operatorname{med}_s |\bar x_s - \operatorname{med}_{s'} \bar x_{s'}|`
    (Hampel 1974; Leys et al. 2013); see the module docstring for why the rule is robust and one-sided.
    """
    if isinstance(k, bool) or not isinstance(k, (int, float, np.floating, np.integer)) or not (k > 0) \
            or not math.isfinite(float(k)):
        raise ValueError(f"`k` must be a positive finite number; got {k!r}")
    return _outlying(*_means(scores), k=k)


def _outlying(labels: list[str], means: np.ndarray, *, k: float) -> OutlyingRuns:
    """:func:`outlying_runs` of the run ``means`` (``k`` checked)."""
    med = float(np.median(means))
    mad = float(MAD_SCALE * np.median(np.abs(means - med)))
    threshold = med - float(k) * mad
    low = np.flatnonzero(means < threshold) if mad > 0 else np.array([], dtype=int)
    low = low[np.argsort(means[low], kind="stable")]
    return OutlyingRuns(systems=tuple(labels[i] for i in low), means=tuple(float(means[i]) for i in low),
                        median=med, mad=mad, threshold=threshold, k=float(k), n_systems=len(labels))


def competitive_systems(scores: Any, *, top: int | None = None,
                        drop_lowest: float | None = None) -> tuple[str, ...]:
    """The competitive systems, best first: the ``top`` best runs by mean, or all but the lowest ``drop_lowest``
    share (default :data:`DEFAULT_DROP_LOWEST`, TREC practice: the bottom quarter), at least 2.

    Ties at the cut go in input order. Give at most one of ``top`` (an integer, 2 .. the number of systems) and
    ``drop_lowest`` (in [0, 1)).
    """
    if top is not None and drop_lowest is not None:
        raise ValueError("give at most one of `top` and `drop_lowest`")
    return _competitive(*_means(scores), top=top, drop_lowest=drop_lowest)


def _competitive(labels: list[str], means: np.ndarray, *, top: int | None, drop_lowest: float | None
                 ) -> tuple[str, ...]:
    """:func:`competitive_systems` of the run ``means``."""
    n = len(labels)
    if top is not None:
        if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or not 2 <= top <= n:
            raise ValueError(f"`top` must be an integer from 2 to the number of systems ({n}); got {top!r}")
        keep = int(top)
    else:
        share = DEFAULT_DROP_LOWEST if drop_lowest is None else drop_lowest
        if isinstance(share, bool) or not isinstance(share, (int, float, np.floating)) or not 0 <= share < 1:
            raise ValueError(f"`drop_lowest` must be a share in [0, 1); got {share!r}")
        keep = max(2, n - int(math.floor(share * n)))
    order = np.argsort(-means, kind="stable")[:keep]
    return tuple(labels[i] for i in order)


@dataclass(frozen=True)
class CompetitiveAnswer:
    """The result of :func:`competitive_answer`: the topics needed by the competitive systems beside all runs'.

    Attributes
    ----------
    systems : the competitive systems, best first.
    top : the ``top`` asked for (None: all but the lowest :data:`DEFAULT_DROP_LOWEST`).
    target : the target of Φ and Eρ².
    n_systems : the number of all runs.
    topics_needed, topics_needed_all_runs : ``{"erho2": n, "phi": n}`` (``math.inf`` when σ²_s = 0).
    outlying : the outlying runs of all runs (:func:`outlying_runs`).
    var_system_raw : the competitive systems' system variance as estimated (before a negative estimate is set to 0;
        NaN when not known): why their topics needed are ∞ when it is ≤ 0.
    """

    systems: tuple[str, ...]
    top: int | None
    target: float
    n_systems: int
    topics_needed: dict[str, float]
    topics_needed_all_runs: dict[str, float]
    outlying: OutlyingRuns
    var_system_raw: float = math.nan

    def lines(self) -> list[str]:
        """Two lines: the outlying runs, and the topics needed by the competitive systems beside all runs'."""
        def n(x: float) -> str:
            return "∞" if x == math.inf else f"{x:g}"

        which = (f"the {len(self.systems)} best runs (--top {self.top})" if self.top is not None else
                 f"the {len(self.systems)} best runs, all but the lowest {DEFAULT_DROP_LOWEST:.0%} (--top N to choose)")
        c, a = self.topics_needed, self.topics_needed_all_runs
        return [f"Outlying runs: {self.outlying.one_line()}",
                f"Topics needed for {self.target:g} by the competitive systems, {which}: Eρ² {n(c['erho2'])} "
                f"(all {self.n_systems} runs: {n(a['erho2'])}), Φ {n(c['phi'])} (all runs: {n(a['phi'])}). A paper "
                "compares the competitive systems; their answer is the one to plan with." + self._why_inf()]

    def _why_inf(self) -> str:
        """Why the competitive systems need ∞ topics, when they do: their system variance is estimated ≤ 0."""
        if math.inf not in self.topics_needed.values() or not self.var_system_raw <= 0:
            return ""
        return (f" (∞: the system variance of these {len(self.systems)} runs is estimated at "
                f"{self.var_system_raw:.3g} ≤ 0, so on these topics they cannot be told apart and no number of "
                "topics reaches the target by this estimate.)")

    def to_dict(self) -> dict[str, Any]:
        """``{"outlying_runs": ..., "competitive": ...}``: the keys the CLI's ``--json`` documents add."""
        return {"outlying_runs": self.outlying.to_dict(),
                "competitive": {"systems": list(self.systems), "top": self.top, "target": self.target,
                                "topics_needed": dict(self.topics_needed),
                                "topics_needed_all_runs": dict(self.topics_needed_all_runs),
                                # why topics_needed is ∞ (null) when it is: the estimate is <= 0
                                "var_system_raw": self.var_system_raw}}


def competitive_answer(x: Any, systems: Any, topics: Any, target: float = 0.95, *, top: int | None = None,
                       study: Any = None, all_runs: Any = None) -> CompetitiveAnswer:
    """The topics needed for Φ and Eρ² ≥ ``target`` by the competitive systems (:func:`competitive_systems`: the
    ``top`` best, or all but the lowest quarter) beside those of all runs, and the outlying runs.

    ``x`` is the systems x topics matrix (an array) and ``systems``, ``topics`` its labels. ``study(rows, labels)``
    makes the G-study of some of its rows (an array) labelled ``labels`` (default
    :func:`gtheory.gstudy.gstudy.labelled_gstudy`, the :func:`gtheory.gstudy` of a frame of them); ``all_runs`` is
    the G-study of all of ``x`` when the caller has it already. A negative variance estimate of the competitive
    subset is set to 0, as in every G-study, without a second warning.
    """
    import warnings

    from ..errors import MissingCellsWarning, NegativeVarianceWarning

    topics = [str(t) for t in topics]
    if study is None:
        def study(rows: Any, labels: list[str]) -> Any:
            from .gstudy import labelled_gstudy

            return labelled_gstudy(rows, labels, topics)
    x = np.asarray(x, dtype=float)
    labels, means = _row_means(x, [str(s) for s in systems])
    chosen = _competitive(labels, means, top=top, drop_lowest=None)
    whole = study(x, labels) if all_runs is None else all_runs
    rows = np.asfortranarray(x[[labels.index(s) for s in chosen]])
    with warnings.catch_warnings():  # clipped to 0, missing cells: as in any G-study; said once, by all runs' study
        warnings.simplefilter("ignore", NegativeVarianceWarning)
        warnings.simplefilter("ignore", MissingCellsWarning)
        # the rows in column order, as a frame's row subset holds them: the sums are those of gstudy(frame.loc[rows])
        try:
            sub = study(rows, list(chosen))
        except ValueError:
            if not _same_on_every_topic(rows):
                raise
            sub = None  # the competitive runs score alike on every topic: no G-study, and nothing tells them apart
    if sub is None:
        need = {"erho2": math.inf, "phi": math.inf}
    else:
        need = {c: sub.topics_needed(target, c, level=None).n for c in ("erho2", "phi")}
    need_all = {c: whole.topics_needed(target, c, level=None).n for c in ("erho2", "phi")}
    return CompetitiveAnswer(systems=chosen, top=top, target=float(target), n_systems=len(labels),
                             topics_needed=need, topics_needed_all_runs=need_all,
                             outlying=_outlying(labels, means, k=DEFAULT_K),
                             var_system_raw=0.0 if sub is None else float(getattr(sub, "var_system_raw", math.nan)))


def _same_on_every_topic(rows: np.ndarray) -> bool:
    """Whether the systems (rows) score alike on every topic, up to rounding (:data:`gtheory.kit.ties.TIE_REL` of the
    largest |score|; NaN cells aside)."""
    from ..kit.ties import TIE_REL

    with np.errstate(invalid="ignore"):
        spread = np.nanmax(rows, axis=0) - np.nanmin(rows, axis=0)
    scale = float(np.nanmax(np.abs(rows))) if np.isfinite(rows).any() else 0.0
    return bool(np.all(~(spread > TIE_REL * max(scale, 1e-300))))
