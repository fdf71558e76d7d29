r"""The G-study of a systems × topics matrix with missing cells: :class:`UnbalancedGStudy` (Henderson's Method 1 or
REML; the estimators are in :mod:`gtheory.gstudy.reml`, Brennan 2001, ch. 7), made by ``gtheory.gstudy(scores, missing=...)``.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from ..kit.display import fmt
from ..errors import MissingCellsWarning, precision_lost, warn_negative, warn_precision_loss
from .balanced import GStudy, _drop_lowest_systems, all_equal_message, balanced_gstudy
from .coefficients import TopicsNeeded
from .reml import _centre, harmonic_topics, henderson_components, henderson_t_terms, reml_components

__all__ = ["UnbalancedGStudy"]



@dataclass(frozen=True, repr=False)  # GStudy's concise repr, not the dataclass's field dump
class UnbalancedGStudy(GStudy):
    r"""A :class:`GStudy` estimated from a matrix with missing cells (Henderson's Method 1 or REML).

    Extra attributes
    ----------------
    method : {"henderson", "reml"}
    n_missing : int
        Number of missing cells; ``share_missing`` their share of all cells.
    n_topics_harmonic : float
        Harmonic mean of the number of topics each system was scored on: the default number of
        topics of :meth:`phi` / :meth:`erho2` (Brennan 2001, ch. 7).
    reml_deviance : float or None
        The REML criterion at the optimum (``method="reml"``).
    t_terms : tuple of float
        Henderson's T terms (T_s, T_t, T_st, T_μ) of the observed cells.

    The ``ss_*``/``ms_*``/``df_*`` fields hold the analogous-ANOVA quantities
    (SS_s = T_s − T_μ, SS_t = T_t − T_μ, SS_st = T_st − T_s − T_t + T_μ, df_st = N − n_s − n_t + 1);
    they are descriptive only. The normal-theory intervals (Feldt, Arteaga) assume a complete
    matrix and are not offered: :meth:`interval` raises and points to :meth:`bootstrap`.
    """

    method: str = "henderson"
    n_missing: int = 0
    share_missing: float = 0.0
    n_topics_harmonic: float = math.nan
    reml_deviance: float | None = None
    t_terms: tuple[float, ...] = ()

    JSON_FORMAT: ClassVar[str] = "gtheory.UnbalancedGStudy/1"

    def __repr__(self) -> str:
        n = self.n_topics_harmonic
        return (f"UnbalancedGStudy({self.method}; {self.n_systems} systems × {self.n_topics} topics, "
                f"{self.n_missing} missing cells; σ²(s) = {fmt(self.var_system)}, σ²(t) = {fmt(self.var_topic)}, "
                f"σ²(st,e) = {fmt(self.var_residual)}; Φ({fmt(n)}) = {fmt(self.phi())}, "
                f"Eρ²({fmt(n)}) = {fmt(self.erho2())})")

    def summary_dict(self, n_topics: ArrayLike | None = None, *, target: float = 0.95,
                     level: float | None = None) -> dict[str, Any]:
        """:meth:`GStudy.summary_dict` (without normal-theory intervals) plus ``method``, ``n_missing``,
        ``share_missing``, ``n_topics_harmonic`` and Φ, Eρ² at the harmonic mean of topics."""
        out = super().summary_dict(n_topics, target=target, level=None)
        out.update(method=self.method, n_missing=self.n_missing, share_missing=self.share_missing,
                   n_topics_harmonic=self.n_topics_harmonic, phi=self.phi(), erho2=self.erho2())
        return out

    def phi(self, n_topics: ArrayLike | None = None) -> float | NDArray[np.float64]:
        """Φ(n); default n is the harmonic mean of topics per system (Brennan 2001, ch. 7)."""
        return super().phi(self.n_topics_harmonic if n_topics is None else n_topics)

    def erho2(self, n_topics: ArrayLike | None = None) -> float | NDArray[np.float64]:
        """Eρ²(n); default n is the harmonic mean of topics per system (Brennan 2001, ch. 7)."""
        return super().erho2(self.n_topics_harmonic if n_topics is None else n_topics)

    def _ratio_bounds(self, coefficient: str, level: float) -> tuple[float, float]:
        raise ValueError(
            f"normal-theory intervals (Feldt, Arteaga) need a complete matrix; this G-study has "
            f"{self.n_missing} missing cells ({self.share_missing:.1%}). Use `.bootstrap()` for intervals, "
            "or pass `level=None`."
        )

    def topics_needed(self, target: float = 0.95, coefficient: str = "phi", *,
                      level: float | None = None) -> TopicsNeeded:
        """Topics needed for ``target`` (point estimate; intervals come from :meth:`bootstrap`)."""
        if level is not None:
            self._ratio_bounds(coefficient, level)
        return super().topics_needed(target, coefficient, level=None)

    def dstudy(self, n_topics: ArrayLike | None = None, *, level: float | None = None) -> pd.DataFrame:
        """D-study table (point estimates; ``level`` must be None — intervals from :meth:`bootstrap`)."""
        if level is not None:
            self._ratio_bounds("phi", level)
        return super().dstudy(n_topics, level=None)

    def summary(self, n_topics: ArrayLike | None = None, *, target: float = 0.95,
                level: float | None = None) -> str:
        """G-study table, D-study point estimates and topics needed, as text."""
        name = {"henderson": "Henderson's Method 1 (analogous ANOVA, Brennan 2001 ch. 7)",
                "reml": "REML (restricted maximum likelihood)"}[self.method]
        lines = [f"G-study: systems x topics, crossed, random effects, {name}",
                 f"  {self.n_systems} systems x {self.n_topics} topics, {self.n_missing} cells missing "
                 f"({self.share_missing:.1%}); harmonic mean {self.n_topics_harmonic:.4g} topics per system",
                 f"  grand mean {self.grand_mean:.6g}", "",
                 f"  {'source':<16}{'variance':>14}{'%':>8}"]
        for src, row in self.components.iterrows():
            flag = "  (negative estimate set to 0)" if row["clipped"] else ""
            pct = f"{row['percent']:8.1f}" if np.isfinite(row["percent"]) else f"{'-':>8}"
            lines.append(f"  {src:<16}{row['variance']:14.6g}{pct}{flag}")
        lines += ["", f"  Eρ² = {self.erho2():.4f}, Φ = {self.phi():.4f} at the harmonic mean "
                  f"{self.n_topics_harmonic:.4g} topics", "",
                  "D-study for a complete collection (point estimates; intervals: .bootstrap())",
                  f"  {'topics':>7}  {'Eρ²':>7}  {'Φ':>7}"]
        for n, row in self.dstudy(n_topics).iterrows():
            lines.append(f"  {n:>7}  {row['erho2']:7.4f}  {row['phi']:7.4f}")
        lines += ["", f"Topics needed for {target:g}:"]
        for c in ("erho2", "phi"):
            lines.append("  " + str(self.topics_needed(target, c)))
        return "\n".join(lines)

    def _default_sizes(self) -> NDArray[np.float64]:
        return np.array(sorted({10, 25, 50, 100, self.n_topics}), dtype=np.float64)

    def plot(self, ax: Any = None, *, n_max: int | None = None, level: float | None = None,
             target: float | None = None, title: str | None = None) -> Any:
        """Φ and Eρ² against the number of topics (point estimates: no normal-theory bands)."""
        if level is not None:
            self._ratio_bounds("phi", level)
        return super().plot(ax, n_max=n_max, level=None, target=target, title=title)


def gstudy_missing(
    x: NDArray[np.float64], systems: list[str], topics: list[str], *, method: str,
    drop_lowest: float = 0.0,
) -> GStudy:
    """The G-study of ``x`` (NaN = missing) under ``method`` (called by :func:`gtheory.gstudy`)."""
    n_missing = int(np.isnan(x).sum())
    share = n_missing / x.size
    if method == "exclude":
        keep = ~np.isnan(x).any(axis=0)
        if keep.sum() < 2:
            raise ValueError(f"`missing`='exclude': only {int(keep.sum())} topic(s) are scored for every "
                             "system; at least 2 are needed. Use missing='reml' or 'henderson' to keep them.")
        warnings.warn(f"{n_missing} of {x.size} cells ({share:.1%}) are missing; missing='exclude' drops "
                      f"{int((~keep).sum())} of {x.shape[1]} topics with a missing cell.",
                      MissingCellsWarning, stacklevel=3)
        return balanced_gstudy(x[:, keep], list(systems), [t for t, k in zip(topics, keep) if k],
                               drop_lowest=drop_lowest)
    obs = ~np.isnan(x)
    for axis, labels, what, other in ((1, systems, "system", "topic"), (0, topics, "topic", "system")):
        empty = np.flatnonzero(obs.sum(axis=axis) == 0)
        if empty.size:
            raise ValueError(f"{what} {labels[empty[0]]!r} has no score on any {other} ({empty.size} "
                             f"{what}(s) without scores); drop it first.")
    x, systems, dropped = _drop_lowest_systems(x, systems, drop_lowest)
    if dropped:
        obs = ~np.isnan(x)
        if (obs.sum(axis=0) == 0).any():
            raise ValueError(f"`drop_lowest`={drop_lowest!r} leaves a topic without any score.")
        n_missing = int((~obs).sum())
        share = n_missing / x.size
    n_obs = int(obs.sum())
    n_s, n_t = x.shape
    if n_obs - n_s - n_t + 1 < 1:
        raise ValueError(f"only {n_obs} of {x.size} cells are scored: too few to separate σ²(system:topic) "
                         f"from the system and topic effects (need more than {n_s + n_t - 1}).")
    vals = x[obs]
    if np.ptp(vals) == 0:
        raise ValueError(all_equal_message(float(vals[0])))
    warnings.warn(f"{n_missing} of {x.size} cells ({share:.1%}) are missing; variance components "
                  f"estimated by {'REML' if method == 'reml' else 'Henderson Method 1'} from the {n_obs} "
                  "scored cells (assumes cells are missing at random).", MissingCellsWarning, stacklevel=3)
    t = henderson_t_terms(x)
    h = henderson_components(x)
    reml_dev = None
    if method == "henderson":
        raw = {"system": float(h.system), "topic": float(h.topic), "residual": float(h.residual)}
        mean = float(h.grand_mean)
    else:
        comps, info = reml_components(x)
        if not info["success"]:
            warnings.warn(f"REML optimiser did not converge: {info['message']}", RuntimeWarning, stacklevel=3)
        raw = {"system": float(comps.system), "topic": float(comps.topic), "residual": float(comps.residual)}
        mean, reml_dev = float(comps.grand_mean), info["deviance"]
    clipped = {k: v < 0 for k, v in raw.items()}
    scale = float(np.var(vals - float(_centre(x)[0, 0])))
    lost = precision_lost(vals, scale)
    if lost is not None:  # rounded before we saw them: say so instead of "negative estimate"
        warn_precision_loss(*lost, scale, {k: raw[k] for k, was in clipped.items() if was})
    for k, was in clipped.items():
        if was and lost is None:
            warn_negative(k, raw[k], scale)
    # the sums of squares from the T terms of the centred scores (the same differences, without cancellation)
    tc = henderson_t_terms(x - float(_centre(x)[0, 0]))
    ss_s, ss_t = tc["T_s"] - tc["T_mu"], tc["T_t"] - tc["T_mu"]
    ss_e = tc["T_st"] - tc["T_s"] - tc["T_t"] + tc["T_mu"]
    df_s, df_t, df_e = n_s - 1, n_t - 1, n_obs - n_s - n_t + 1
    return UnbalancedGStudy(
        var_system=max(raw["system"], 0.0), var_topic=max(raw["topic"], 0.0),
        var_residual=max(raw["residual"], 0.0),
        var_system_raw=raw["system"], var_topic_raw=raw["topic"], var_residual_raw=raw["residual"],
        clipped_system=clipped["system"], clipped_topic=clipped["topic"], clipped_residual=clipped["residual"],
        ms_system=ss_s / df_s, ms_topic=ss_t / df_t, ms_residual=ss_e / df_e,
        ss_system=ss_s, ss_topic=ss_t, ss_residual=ss_e, ss_total=tc["T_st"] - tc["T_mu"],
        df_system=df_s, df_topic=df_t, df_residual=df_e, df_total=n_obs - 1,
        n_systems=n_s, n_topics=n_t, grand_mean=mean,
        systems=tuple(systems), topics=tuple(topics), dropped_systems=dropped, drop_lowest=float(drop_lowest),
        method=method, n_missing=n_missing, share_missing=share, n_topics_harmonic=harmonic_topics(obs),
        reml_deviance=reml_dev, t_terms=(t["T_s"], t["T_t"], t["T_st"], t["T_mu"]), scores=x,
    )
