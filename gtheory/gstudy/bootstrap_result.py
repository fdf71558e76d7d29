r"""The result of a bootstrap of the G-study (:class:`BootstrapResult`): the replicates of the six quantities, their
percentile, bias-corrected and expanded basic intervals, the table, the summary, the JSON and the plot.

:mod:`gtheory.gstudy.bootstrap` computes it (the resampling procedures, the bias adjustment and the intervals are
described there).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..kit.jsonio import JsonResult

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["BootstrapResult", "QUANTITIES"]

Over = Literal["auto", "systems", "topics", "both"]


QUANTITIES = ("var_system", "var_topic", "var_residual", "phi", "erho2", "topics_needed")


_LABELS = {"var_system": "σ²(system)", "var_topic": "σ²(topic)", "var_residual": "σ²(system:topic,e)",
           "phi": "Φ", "erho2": "Eρ²", "topics_needed": "topics needed"}


_PROCEDURE = {"auto": "per quantity (σ²(s), σ²(st,e), Eρ²: boot-p; σ²(t): boot-i; Φ, topics needed: both)",
              "systems": "boot-p (systems)", "topics": "boot-i (topics)", "both": "boot-p,i (systems and topics)"}


@dataclass(frozen=True)
class BootstrapResult(JsonResult):
    r"""Bootstrap distribution and intervals of a G-study's components and coefficients.

    Attributes
    ----------
    over : {"auto", "systems", "topics", "both"}
        The resampling procedure: Brennan's boot-p, boot-i, boot-p,i, or ``"auto"`` — each
        quantity from the procedure that reproduces its sampling variability (``sources``).
    n_resamples, seed, level : int, int or None, float
    n_topics : float
        Number of topics of the reported Φ(n) and Eρ²(n).
    target : float
        Target Φ of ``topics_needed``.
    method : str
        Estimator of each replicate: "anova", "henderson" or "reml".
    n_systems, n_topics_study : int
        Size of the resampled matrix.
    quantities : tuple of str
        ``var_system``, ``var_topic``, ``var_residual``, ``phi``, ``erho2``, ``topics_needed``.
    estimate, mean, mean_adjusted, se, se_adjusted : tuple of float
        Sample estimate; mean and standard deviation of the raw and of the bias-corrected replicates.
    percentile_low, percentile_high : tuple of float
        Percentile interval of the raw replicates (Efron & Tibshirani 1993, §13.3).
    bc_low, bc_high : tuple of float
        Percentile interval of the bias-corrected replicates (Wiley 2000; Brennan 2001, ch. 6).
    basic_low, basic_high : tuple of float
        The default interval: expanded basic interval of the bias-corrected replicates on the log
        mean-square scale (:func:`_basic_intervals`); see :func:`bootstrap` for its measured coverage.
    valid_for : tuple of str
        The components whose interval this procedure supports (Brennan's recommendation).
    sources : tuple of str
        For each quantity, the facets resampled to obtain its replicates ("systems", "topics",
        "systems+topics" — the last, under ``over="auto"``, combines σ²(s), σ²(st) of the boot-p
        replicate with σ²(t) of an independent boot-i replicate).
    replicates, replicates_adjusted : ndarray, shape (n_resamples, 6), or None
        The raw and corrected replicates (not written by :meth:`to_json`).
    """

    over: str
    n_resamples: int
    seed: int | None
    level: float
    n_topics: float
    target: float
    method: str
    n_systems: int
    n_topics_study: int
    quantities: tuple[str, ...]
    estimate: tuple[float, ...]
    mean: tuple[float, ...]
    mean_adjusted: tuple[float, ...]
    se: tuple[float, ...]
    se_adjusted: tuple[float, ...]
    percentile_low: tuple[float, ...]
    percentile_high: tuple[float, ...]
    bc_low: tuple[float, ...]
    bc_high: tuple[float, ...]
    basic_low: tuple[float, ...]
    basic_high: tuple[float, ...]
    valid_for: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    selection: str = ""
    """For :func:`dstudy_subset`: which systems each replicate keeps (e.g. "top 20 by mean")."""
    replicates: NDArray[np.float64] | None = field(default=None, repr=False, compare=False)
    replicates_adjusted: NDArray[np.float64] | None = field(default=None, repr=False, compare=False)

    # ------------------------------------------------------------------ access
    @property
    def table(self) -> pd.DataFrame:
        """Unrounded numbers, one row per quantity."""
        cols = ("estimate", "mean", "mean_adjusted", "se", "se_adjusted", "basic_low", "basic_high",
                "percentile_low", "percentile_high", "bc_low", "bc_high")
        return pd.DataFrame({c: getattr(self, c) for c in cols}, index=pd.Index(self.quantities, name="quantity"))

    def interval(self, quantity: str,
                 kind: Literal["basic", "percentile", "bias_corrected"] = "basic") -> tuple[float, float]:
        """``(low, high)`` of ``quantity`` (one of :data:`QUANTITIES`): the default expanded basic
        interval on the log/logit scale, the percentile interval of the raw replicates, or the
        percentile interval of the bias-corrected replicates."""
        if quantity not in self.quantities:
            raise ValueError(f"`quantity` must be one of {self.quantities}; got {quantity!r}.")
        if kind not in ("basic", "percentile", "bias_corrected"):
            raise ValueError(f"`kind` must be 'basic', 'percentile' or 'bias_corrected'; got {kind!r}.")
        k = self.quantities.index(quantity)
        if kind == "percentile":
            return self.percentile_low[k], self.percentile_high[k]
        if kind == "basic":
            return self.basic_low[k], self.basic_high[k]
        return self.bc_low[k], self.bc_high[k]

    # ------------------------------------------------------------ presentation
    def summary(self) -> str:
        """The intervals as a text table."""
        lvl = f"{self.level:.0%}"
        lines = [f"Bootstrap, {_PROCEDURE[self.over]}: {self.n_resamples} resamples of {self.n_systems} systems x "
                 f"{self.n_topics_study} topics (seed {self.seed}, estimator {self.method})",
                 f"  Φ and Eρ² at {self.n_topics:g} topics; topics needed for Φ ≥ {self.target:g}"
                 + (f"\n  systems: {self.selection}, re-selected in every resample" if self.selection else ""),
                 f"  {'quantity':<20}{'estimate':>11}{'boot SE':>11}  {lvl + ' interval':<24}  {'percentile':<24}  "
                 f"{'bias-corrected':<24}"]
        for k, q in enumerate(self.quantities):
            mark = "" if q in self.valid_for or not q.startswith("var_") else "  (Brennan recommends another procedure)"
            lines.append(f"  {_LABELS[q]:<20}{_fmt(self.estimate[k]):>11}{_fmt(self.se_adjusted[k]):>11}  "
                         f"{'[' + _fmt(self.basic_low[k]) + ', ' + _fmt(self.basic_high[k]) + ']':<24}  "
                         f"{'[' + _fmt(self.percentile_low[k]) + ', ' + _fmt(self.percentile_high[k]) + ']':<24}  "
                         f"{'[' + _fmt(self.bc_low[k]) + ', ' + _fmt(self.bc_high[k]) + ']':<24}{mark}")
        lines.append("  (interval: expanded basic interval on the log mean-square scale, the default; percentile: raw replicates;")
        lines.append("   bias-corrected: percentile of replicates with Wiley 2000 / Brennan 2001 ch. 6 adjustment)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        k = self.quantities.index("phi")
        return (f"BootstrapResult(over={self.over!r}, n_resamples={self.n_resamples}, "
                f"phi={self.estimate[k]:.4g} [{self.basic_low[k]:.4g}, {self.basic_high[k]:.4g}])")

    def _repr_html_(self) -> str:
        from ..kit.display import html_table

        rows = ((_LABELS[q], self.estimate[k], self.se_adjusted[k], self.basic_low[k], self.basic_high[k])
                for k, q in enumerate(self.quantities))
        return html_table(rows, header=["quantity", "estimate", "SE (bias-corrected)", f"{self.level:.0%} low",
                                        f"{self.level:.0%} high"],
                          caption=f"BootstrapResult: over {self.over}, {self.n_resamples} resamples, "
                                  f"Φ and Eρ² at {self.n_topics:g} topics")

    #: the ``"format"`` of :meth:`to_dict`
    JSON_FORMAT: ClassVar[str] = "gtheory.BootstrapResult/2"   # /2: basic_low, basic_high, sources

    def to_dict(self) -> dict[str, Any]:
        """Every field but the replicates, plus ``"format"``; non-finite numbers as None (strict JSON)."""
        out: dict[str, Any] = {"format": self.JSON_FORMAT}
        for f in (x.name for x in fields(self)):
            if f.startswith("replicates"):
                continue
            v = getattr(self, f)
            out[f] = [_json_number(x) for x in v] if isinstance(v, tuple) and v and not isinstance(v[0], str) \
                else (list(v) if isinstance(v, tuple) else _json_number(v))
        return out

    @classmethod
    def from_json(cls, text_or_path: str | os.PathLike[str]) -> BootstrapResult:
        """A :class:`BootstrapResult` from :meth:`to_json` output (a JSON string or a file path)."""
        from ..kit.jsonio import read_json

        d = read_json(text_or_path, "BootstrapResult")
        if not isinstance(d, dict) or d.get("format") != cls.JSON_FORMAT:
            raise ValueError(f"not a {cls.JSON_FORMAT} document (format {d.get('format') if isinstance(d, dict) else d!r}).")
        missing = [f for f in (x.name for x in fields(cls)) if not f.startswith("replicates") and f not in d]
        if missing:
            raise ValueError(f"not a BootstrapResult JSON: no field {missing[0]!r}.")
        kw = {k: (tuple(math.nan if x is None else x for x in v) if isinstance(v, list) else v)
              for k, v in d.items() if k in {x.name for x in fields(cls)}}
        # topics needed: a null means an unbounded number of topics
        k = list(kw["quantities"]).index("topics_needed")
        for f in ("estimate", "mean", "mean_adjusted", "percentile_low", "percentile_high", "bc_low", "bc_high",
                  "basic_low", "basic_high"):
            vals = list(kw[f])
            vals[k] = math.inf if isinstance(vals[k], float) and math.isnan(vals[k]) else vals[k]
            kw[f] = tuple(vals)
        kw["n_topics"] = float(kw["n_topics"])
        return cls(**kw)

    def plot(self, ax: Axes | None = None, quantity: str = "phi") -> Axes:
        """Histogram of the bias-corrected replicates of ``quantity`` with both intervals marked."""
        import matplotlib.pyplot as plt

        if self.replicates_adjusted is None:
            raise ValueError("no replicates kept (a result read from JSON); rerun the bootstrap to plot.")
        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3))
        k = self.quantities.index(quantity) if quantity in self.quantities else None
        if k is None:
            raise ValueError(f"`quantity` must be one of {self.quantities}; got {quantity!r}.")
        vals = self.replicates_adjusted[:, k]
        ax.hist(vals[np.isfinite(vals)], bins=40, color="0.75")
        ax.axvline(self.estimate[k], color="k", label="estimate")
        for lo, hi, c, lab in ((self.basic_low[k], self.basic_high[k], "k", "interval (basic, log scale)"),
                               (self.percentile_low[k], self.percentile_high[k], "tab:blue", "percentile"),
                               (self.bc_low[k], self.bc_high[k], "tab:red", "bias-corrected")):
            ax.axvline(lo, color=c, ls="--", label=f"{self.level:.0%} {lab}")
            ax.axvline(hi, color=c, ls="--")
        ax.set_xlabel(_LABELS[quantity])
        ax.set_ylabel("replicates")
        ax.legend(fontsize="small")
        return ax


def _fmt(v: float) -> str:
    if not math.isfinite(v):
        return "∞" if v == math.inf else "-"
    return f"{v:.4g}"


def _json_number(v: Any) -> Any:
    if isinstance(v, (float, np.floating)):
        return float(v) if math.isfinite(v) else None
    if isinstance(v, np.integer):
        return int(v)
    return v
