"""How robust is a measure to incomplete judgments? The study ``gtheory robustness`` prints, as one result.

:func:`robustness_study` runs :func:`experiments.incompleteness_study` (sampled qrels, Bompada et al. 2007;
Sakai 2007 for the condensed lists), summarises it over seeds (:func:`experiments.summarize_study`) and finds
each curve's knee (:func:`experiments.knee`); :class:`RobustnessStudy` follows the result protocol
(``summary()``, ``to_dict()``/``to_json()``, ``plot()``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Mapping, Sequence

import pandas as pd

from gtheory.errors import ParameterError
from gtheory.kit.params import ANY_LEVEL, validate_params

__all__ = ["robustness_study", "RobustnessStudy"]

#: column headers of :meth:`RobustnessStudy.summary`
_HEAD = {"judged_kept": "judged", "tau": "tau", "tau_ap": "tau_AP", "mean_reduced": "mean",
         "drift": "drift", "power": "power", "accuracy": "accuracy"}


def _curve_name(measure: str, condensed: bool) -> str:
    return f"{measure} (condensed)" if condensed else measure


@dataclass(frozen=True, repr=False, eq=False)
class RobustnessStudy:
    """Result of :func:`robustness_study`.

    Attributes
    ----------
    results : pandas.DataFrame
        One row per measure × judged_only × fraction × seed (:func:`experiments.incompleteness_study`).
    table : pandas.DataFrame
        Mean and sd over seeds of :attr:`values` (:func:`experiments.summarize_study`).
    knees : pandas.DataFrame
        The smallest fraction whose τ stays ≥ ``threshold`` per curve (:func:`experiments.knee`).
    values : tuple of str
        The summarised columns.
    n_systems, n_topics, seeds : int
    fractions : tuple of float
    test : str or None
        Significance test of the power and accuracy columns (None: none).
    alpha, threshold, relevance_level : float
    rounding : str
    """

    results: pd.DataFrame
    table: pd.DataFrame
    knees: pd.DataFrame
    values: tuple[str, ...]
    n_systems: int
    n_topics: int
    seeds: int
    fractions: tuple[float, ...]
    test: str | None
    alpha: float
    threshold: float
    relevance_level: float
    rounding: str

    JSON_FORMAT: ClassVar[str] = "gtheory.experiments.RobustnessStudy/1"

    def __repr__(self) -> str:
        curves = self.results.groupby(["measure", "judged_only"], sort=False).ngroups
        return (f"RobustnessStudy({self.n_systems} systems × {self.n_topics} topics; {curves} curve"
                f"{'s' * (curves != 1)}, {len(self.fractions)} fractions × {self.seeds} seed"
                f"{'s' * (self.seeds != 1)})")

    def undefined_curves(self) -> list[str]:
        """The curves whose τ is NaN for every fraction and seed: every system has the same mean with the full
        qrels, so there is no ranking to compare with (Kendall's τ is 0/0)."""
        return [_curve_name(m, c) for (m, c), block in self.results.groupby(["measure", "judged_only"], sort=False)
                if block["tau"].isna().all()]

    def _knee(self, measure: str, condensed: bool) -> Any:
        k = self.knees
        return k[(k.measure == measure) & (k.judged_only == condensed)].iloc[0]

    def _repr_html_(self) -> str:
        from gtheory.kit.display import html_table

        rows = ((r["measure"], "yes" if r["judged_only"] else "no", r["knee"], r["value_at_knee"])
                for _, r in self.knees.iterrows())
        return html_table(rows, header=["measure", "judged only", "knee (share of judgments)", "value at the knee"],
                          caption=f"RobustnessStudy: {self.n_systems} systems × {self.n_topics} topics")

    def summary(self) -> str:
        """The table ``gtheory robustness`` prints: per curve and fraction the mean ± sd over seeds, and the knee."""
        lines = [
            f"Incomplete judgments: {self.n_systems} systems x {self.n_topics} topics, {self.seeds} seed(s) per "
            f"fraction; at least 1 relevant (grade >= {self.relevance_level:g}) and 10 non-relevant judged "
            "documents kept per topic",
            "Compared with the same measure on the full qrels; mean over seeds (± sd)"
            + (f"; significance: {self.test}, alpha={self.alpha:g}" if self.test else ""),
        ]
        for (measure, condensed), block in self.table.groupby(level=[0, 1], sort=False):
            lines += ["", _curve_name(measure, condensed)]
            lines.append("       f " + "".join(f"{_HEAD[v]:>17}" for v in self.values))
            for (_, _, f), r in block.iterrows():
                cells = []
                for v in self.values:
                    m, s = r[(v, "mean")], r[(v, "std")]
                    s = 0.0 if s != s else s  # one seed: no sd
                    cells.append(f"{m:>9.4f} ± {s:<5.3f}" if v != "judged_kept" else f"{m:>17.4f}")
                lines.append(f"  {f:>6.3g} " + "".join(cells))
            k = self._knee(measure, condensed)
            if math.isnan(k.knee):
                lines.append(f"  knee (tau >= {self.threshold:g}): none in the fractions given")
            else:
                lines.append(f"  knee (tau >= {self.threshold:g}): f = {k.knee:g} (tau = {k.value_at_knee:.4f})")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def to_dict(self) -> dict[str, Any]:
        """The ``gtheory robustness --json`` document plus ``"format"``: per curve the knee and, per fraction,
        the mean and sd of each value (non-finite numbers are None, :mod:`gtheory.kit.jsonio`)."""
        from gtheory.kit.jsonio import jsonable

        curves = []
        for (measure, condensed), block in self.table.groupby(level=[0, 1], sort=False):
            k = self._knee(measure, condensed)
            rows = []
            for (_, _, f), r in block.iterrows():
                row = {"fraction": float(f)}
                for v in self.values:
                    row[v] = float(r[(v, "mean")])
                    row[f"{v}_sd"] = float(r[(v, "std")])
                rows.append(row)
            curves.append({"measure": measure, "judged_only": bool(condensed), "knee": float(k.knee),
                           "tau_at_knee": float(k.value_at_knee), "rows": rows})
        d = jsonable({"n_systems": self.n_systems, "n_topics": self.n_topics,
                      "fractions": sorted(set(map(float, self.fractions)), reverse=True), "seeds": self.seeds,
                      "test": self.test, "alpha": self.alpha, "threshold": self.threshold,
                      "rounding": self.rounding, "curves": curves})
        d["format"] = self.JSON_FORMAT
        return d

    def to_json(self, path: str | None = None, *, indent: int | None = 2) -> str:
        """Strict JSON of :meth:`to_dict` (also written to ``path``, atomically, if given). The per-seed
        :attr:`results` are a table: save them with ``results.to_csv``."""
        from gtheory.kit.jsonio import json_text

        return json_text(self.to_dict(), path, indent=indent)

    def plot(self, ax: Sequence[Any] | None = None) -> Any:
        """τ against the fraction kept and the mean drift (and, with a test, discriminative power and the
        agreement of significance decisions), one panel each; ``ax``: that many Axes, or None for a new figure.
        Returns the figure."""
        from .plots import plot_discriminative_power, plot_mean_drift, plot_tau_vs_fraction

        n = 4 if self.test else 2
        if ax is None:
            import matplotlib.pyplot as plt

            fig, axes = plt.subplots(1, n, figsize=(4.6 * n, 3.8))
        else:
            axes = list(ax)
            if len(axes) != n:
                raise ValueError(f"`ax` must hold {n} Axes (one per panel); got {len(axes)}")
            fig = axes[0].figure
        df = self.results
        plot_tau_vs_fraction(df, threshold=self.threshold, ax=axes[0], title="ranking agreement")
        plot_mean_drift(df, ax=axes[1], title="mean score")
        if self.test:
            plot_discriminative_power(df, ax=axes[2], title="discriminative power")
            plot_tau_vs_fraction(df, value="accuracy", threshold=None, ax=axes[3], title="significance agreement")
        fig.tight_layout()
        return fig


def _check_relevance_level(level: float, judged: Any) -> None:
    """The sampling splits the judged documents into relevant (grade >= ``level``) and non-relevant: both must
    exist among the qrels grades, so ``level`` lies in (lowest grade, highest grade]. Else
    :class:`gtheory.ParameterError` (``param="relevance_level"``)."""
    grades = sorted({float(g) for g in judged.levels})
    shown = " ".join(f"{g:g}" for g in grades)
    if len(grades) < 2:
        raise ParameterError("relevance_level", f"`relevance_level`: the qrels have only the grade {shown}; "
                             "sampling needs relevant and non-relevant documents.")
    if not grades[0] < level <= grades[-1]:  # also NaN
        raise ParameterError("relevance_level", f"`relevance_level` must split the qrels grades ({shown}) into "
                             f"relevant (>= it) and non-relevant: a value in ({grades[0]:g}, {grades[-1]:g}]; got "
                             f"{level:g}.")


@validate_params(relevance_level=ANY_LEVEL)
def robustness_study(
    judged: Any,
    measures: Sequence[str] | Mapping[str, Any],
    *,
    fractions: Sequence[float],
    seeds: int | Sequence[int] = 5,
    judged_only: bool = False,
    test: str | None = None,
    alpha: float = 0.05,
    n_resamples: int = 1000,
    top_k: int | None = None,
    relevance_level: float = 1.0,
    rounding: str = "floor",
    threshold: float = 0.9,
    progress: bool | str | Callable[[str], Any] = "auto",
) -> RobustnessStudy:
    """The incompleteness study of ``measures`` on ``judged``, summarised over seeds with each curve's knee.

    :func:`experiments.incompleteness_study` with ``judged_only`` (False,) or, with ``judged_only=True``, (False,
    True) (Sakai's condensed lists); ``seeds`` is a number of seeds
    (``n``: 0 .. n-1) or the seeds; then :func:`experiments.summarize_study` of the share of judgments kept, τ, τ_AP,
    the mean and its drift (and, with a ``test``, power and accuracy), and :func:`experiments.knee` at
    ``threshold``. The other parameters are :func:`experiments.incompleteness_study`'s; ``relevance_level`` must
    split the qrels grades: a value in (lowest grade, highest grade].
    """
    from .knee import knee
    from .study import incompleteness_study, summarize_study

    _check_relevance_level(relevance_level, judged)  # seeds and the rest: the parameter table
    names = dict(measures) if isinstance(measures, Mapping) else {m: m for m in measures}
    df = incompleteness_study(judged, names, fractions=fractions, seeds=seeds,
                              judged_only=(False, True) if judged_only else (False,), test=test, alpha=alpha,
                              n_resamples=n_resamples,
                              top_k=top_k, relevance_level=relevance_level, rounding=rounding, progress=progress)
    values = ("judged_kept", "tau", "tau_ap", "mean_reduced", "drift") + (("power", "accuracy") if test else ())
    return RobustnessStudy(results=df, table=summarize_study(df, list(values)), knees=knee(df, threshold),
                           values=values, n_systems=judged.n_systems, n_topics=judged.n_topics, seeds=len(seeds),
                           fractions=tuple(fractions), test=test, alpha=alpha, threshold=threshold,
                           relevance_level=relevance_level, rounding=rounding)
