r"""Plots of the incompleteness studies of :mod:`experiments.incomplete`.

Every function takes the tidy table of :func:`experiments.incompleteness_study` (or, for
:func:`plot_phi_vs_fraction`, of :func:`experiments.tuned_stability_under_incompleteness`), draws one line
per curve (measure x list type, or discount) of the mean over seeds against the fraction of judgments kept,
with a band from the smallest to the largest seed value, and returns the matplotlib ``Axes``. Nothing here
selects a backend: call ``matplotlib.use("Agg")`` first on a machine without a display.

* :func:`plot_tau_vs_fraction` -- Kendall :math:`\tau` (or :math:`\tau_{AP}`, accuracy, g-mean) vs
  :math:`f`, with the 0.9 threshold (Bompada et al. 2007, Figures 1-2; Sakai & Kando 2008, Figures 7-8);
* :func:`plot_mean_drift` -- the mean score vs :math:`f` (Sakai & Kando 2008, Figures 3-4);
* :func:`plot_discriminative_power` -- discriminative power vs :math:`f` (Sakai & Kando 2008, Figures 5-6);
* :func:`plot_phi_vs_fraction` -- Φ of standard and tuned nDCG vs :math:`f`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from .knee import GROUP_COLUMNS
from gtheory.kit.params import probability, validate_params

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["plot_tau_vs_fraction", "plot_mean_drift", "plot_discriminative_power", "plot_phi_vs_fraction"]

_YLABELS = {
    "tau": "Kendall τ vs full-qrels ranking",
    "tau_ap": "τ_AP vs full-qrels ranking",
    "accuracy": "accuracy of significance decisions",
    "g_mean": "g-mean of significance decisions",
    "mean_reduced": "mean score over systems and topics",
    "drift": "mean score − full-qrels mean score",
    "relative_drift": "relative drift of the mean score",
    "rmse": "RMSE of system means vs full qrels",
    "power": "discriminative power (share of pairs significant)",
    "phi": "Φ (dependability)",
    "erho2": "Eρ² (generalizability)",
    "topics_needed": "topics needed",
}


def _curve_label(keys: dict[str, Any]) -> str:
    if "measure" in keys:
        name = str(keys["measure"])
        return f"{name}′ (condensed)" if keys.get("judged_only") else name
    name = str(keys.get("discount", ""))
    on = keys.get("tuned_on")
    return f"{name} ({on} qrels)" if on else name


def _curves(study: pd.DataFrame, value: str) -> list[tuple[str, pd.DataFrame]]:
    if not isinstance(study, pd.DataFrame) or "fraction" not in study.columns:
        raise TypeError(
            "`study` must be the DataFrame of incompleteness_study() or tuned_stability_under_incompleteness(); "
            f"got {type(study).__name__}."
        )
    if value not in study.columns:
        raise ValueError(f"`value` {value!r} is not a column of the study; it has {list(study.columns)}.")
    keys = [k for k in GROUP_COLUMNS if k in study.columns]
    out = []
    for group, g in study.groupby(keys, sort=False):
        group = group if isinstance(group, tuple) else (group,)
        agg = g.groupby("fraction")[value].agg(["mean", "min", "max"]).sort_index()
        out.append((_curve_label(dict(zip(keys, group))), agg))
    return out


def _plot(study, value, *, ax, hline=None, hline_label=None, log_x=False, title=None, band=True) -> "Axes":
    curves = _curves(study, value)
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(5.5, 4))
    for label, agg in curves:
        x = agg.index.to_numpy(dtype=float)
        # float arrays: a column with missing values (None) aggregates to object dtype, which older matplotlib
        # (3.7, the declared minimum) cannot mask in fill_between
        mean, lo, hi = (agg[k].to_numpy(dtype=float) for k in ("mean", "min", "max"))
        (line,) = ax.plot(x, mean, marker="o", markersize=3.5, linewidth=1.5, label=label)
        if band and (hi > lo).any():
            ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.15, linewidth=0)
    if hline is not None:
        ax.axhline(hline, color="0.5", linestyle="--", linewidth=1, label=hline_label)
    if log_x:
        ax.set_xscale("log")
    ax.set_xlabel("fraction of judgments kept (f)")
    ax.set_ylabel(_YLABELS.get(value, value))
    if title is not None:
        ax.set_title(title)
    ax.legend(frameon=False, fontsize="small")
    ax.grid(True, alpha=0.3)
    return ax


def plot_tau_vs_fraction(
    study: pd.DataFrame,
    *,
    value: str = "tau",
    threshold: float | None = 0.9,
    ax: "Axes | None" = None,
    log_x: bool = False,
    title: str | None = None,
) -> "Axes":
    r"""Rank correlation with the full-qrels ranking against the fraction of judgments kept.

    Parameters
    ----------
    study : DataFrame
        From :func:`experiments.incompleteness_study`.
    value : str
        ``"tau"`` (default), ``"tau_ap"``, or ``"accuracy"`` / ``"g_mean"`` for Bompada et al.'s
        significance-agreement curves.
    threshold : float or None
        Dashed reference line (Voorhees' 0.9); ``None`` for none.
    ax : matplotlib Axes, optional
        Where to draw; a new figure is made if omitted.
    log_x : bool
        Logarithmic fraction axis (spreads out the small fractions).
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import pandas as pd
    >>> from experiments import plot_tau_vs_fraction
    >>> df = pd.DataFrame({"measure": "AP", "judged_only": [False] * 3 + [True] * 3,
    ...                    "fraction": [1, .5, .1] * 2, "seed": 0, "tau": [1, .9, .7, 1, .95, .85]})
    >>> plot_tau_vs_fraction(df).get_legend_handles_labels()[1]
    ['AP', 'AP′ (condensed)', 'τ = 0.9']
    """
    label = None
    if threshold is not None:
        label = f"{'τ' if value == 'tau' else value} = {threshold:g}"
    return _plot(study, value, ax=ax, hline=threshold, hline_label=label, log_x=log_x, title=title)


def plot_mean_drift(
    study: pd.DataFrame,
    *,
    value: str = "mean_reduced",
    ax: "Axes | None" = None,
    log_x: bool = False,
    title: str | None = None,
) -> "Axes":
    """Absolute mean score (or its drift) against the fraction of judgments kept (Sakai & Kando, Figs. 3-4).

    Parameters
    ----------
    study : DataFrame
        From :func:`experiments.incompleteness_study`.
    value : {"mean_reduced", "drift", "relative_drift", "rmse"}
        The mean over systems and topics with the reduced qrels (default), its difference from the
        full-qrels mean, that difference relative to the full-qrels mean, or the RMSE of system means.
    ax, log_x, title
        As in :func:`plot_tau_vs_fraction`.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import pandas as pd
    >>> from experiments import plot_mean_drift
    >>> df = pd.DataFrame({"measure": "AP", "judged_only": False, "fraction": [1, .5, .1], "seed": 0,
    ...                    "mean_reduced": [.3, .2, .1], "drift": [0, -.1, -.2]})
    >>> plot_mean_drift(df, value="drift").get_ylabel()
    'mean score − full-qrels mean score'
    """
    hline = 0.0 if value in ("drift", "relative_drift") else None
    return _plot(study, value, ax=ax, hline=hline, hline_label=None if hline is None else "no drift",
                 log_x=log_x, title=title)


def plot_discriminative_power(
    study: pd.DataFrame,
    *,
    ax: "Axes | None" = None,
    log_x: bool = False,
    title: str | None = None,
) -> "Axes":
    """Discriminative power (share of significant pairs) against the fraction kept (Sakai & Kando, Figs. 5-6).

    Needs a study run with a significance ``test``.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import pandas as pd
    >>> from experiments import plot_discriminative_power
    >>> df = pd.DataFrame({"measure": "AP", "judged_only": False, "fraction": [1, .5], "seed": 0,
    ...                    "power": [.7, .6]})
    >>> plot_discriminative_power(df).get_xlabel()
    'fraction of judgments kept (f)'
    """
    if isinstance(study, pd.DataFrame) and "fraction" in study.columns and "power" not in study.columns:
        raise ValueError("`study` has no 'power' column: run incompleteness_study() with a significance `test`.")
    return _plot(study, "power", ax=ax, log_x=log_x, title=title)


@validate_params(target=probability(none=True))
def plot_phi_vs_fraction(
    study: pd.DataFrame,
    *,
    value: str = "phi",
    target: float | None = None,
    ax: "Axes | None" = None,
    log_x: bool = False,
    title: str | None = None,
) -> "Axes":
    """Φ (or Eρ², topics needed) of standard and tuned nDCG against the fraction of judgments kept.

    Parameters
    ----------
    study : DataFrame
        From :func:`experiments.tuned_stability_under_incompleteness`.
    value : {"phi", "erho2", "phi_1", "topics_needed"}
    target : float, optional
        Dashed reference line (e.g. 0.95).
    ax, log_x, title
        As in :func:`plot_tau_vs_fraction`.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import pandas as pd
    >>> from experiments import plot_phi_vs_fraction
    >>> df = pd.DataFrame({"discount": ["log2", "log2", "tuned", "tuned"], "tuned_on": ["", "", "full", "full"],
    ...                    "fraction": [1, .5, 1, .5], "seed": 0, "phi": [.9, .85, .93, .9]})
    >>> plot_phi_vs_fraction(df).get_legend_handles_labels()[1]
    ['log2', 'tuned (full qrels)']
    """
    label = None if target is None else f"target {target:g}"
    return _plot(study, value, ax=ax, hline=target, hline_label=label, log_x=log_x, title=title)
