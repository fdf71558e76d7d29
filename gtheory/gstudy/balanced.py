r"""The G-study of a complete systems × topics matrix: :class:`GStudy` and its ANOVA (expected-mean-squares)
estimates (Brennan 2001, ch. 3). :func:`gtheory.gstudy` is the entry point; matrices with missing cells go to
:mod:`gtheory.gstudy.unbalanced`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..kit.ties import tie_values
from ..kit.display import fmt, html_table, kv_table
from ..kit.jsonio import JsonResult
from .components import variance_components
from .coefficients import (Coefficient, CoefficientInterval, Coefficients, _check_coefficient, _check_n,
                           fields_document, read_fields, _scalar_or_array, _METHODS)
from ..errors import ROUNDING_TOLERANCE, is_rounding_noise, precision_lost, warn_negative, warn_precision_loss
from .intervals import project

if TYPE_CHECKING:
    import pandas as pd

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["GStudy", "balanced_gstudy"]


@dataclass(frozen=True)
class GStudy(Coefficients, JsonResult):
    r"""Result of :func:`gstudy`: variance components of a crossed systems × topics design.

    Attributes
    ----------
    var_system, var_topic, var_residual : float
        Variance components σ²(s), σ²(t), σ²(st,e), negative estimates set to 0 (and estimates
        within rounding error of 0 — at most :data:`gtheory.errors.ROUNDING_TOLERANCE` of the
        scores' variance — set to exactly 0).
    var_system_raw, var_topic_raw, var_residual_raw : float
        The unclipped ANOVA estimates.
    clipped_system, clipped_topic, clipped_residual : bool
        Whether the corresponding estimate was negative and set to 0.
    ms_system, ms_topic, ms_residual : float
        Mean squares. ``ss_*`` sums of squares, ``df_*`` degrees of freedom (``ss_total``,
        ``df_total`` for the total about the grand mean).
    n_systems, n_topics : int
        Size of the matrix the components were estimated from (after ``drop_lowest``).
    grand_mean : float
    systems, topics : tuple of str
        Labels of the rows and columns used.
    dropped_systems : tuple of str
        Systems removed by ``drop_lowest``.

    Notes
    -----
    D-study coefficients for :math:`n` topics (Brennan 2001, ch. 4):

    .. math::

        \Phi(n) = \frac{\sigma^2_s}{\sigma^2_s + (\sigma^2_t+\sigma^2_{st})/n}, \qquad
        E\rho^2(n) = \frac{\sigma^2_s}{\sigma^2_s + \sigma^2_{st}/n}.

    Both equal :math:`nr/(1+nr)` for a ratio :math:`r` (:math:`\sigma^2_s/(\sigma^2_t+\sigma^2_{st})`
    resp. :math:`\sigma^2_s/\sigma^2_{st}`) that does not depend on :math:`n`, so ranking
    metrics by Φ(1) ranks them by Φ(n) for every n. Always :math:`E\rho^2(n) \ge \Phi(n)`.
    """

    var_system: float
    var_topic: float
    var_residual: float
    var_system_raw: float
    var_topic_raw: float
    var_residual_raw: float
    clipped_system: bool
    clipped_topic: bool
    clipped_residual: bool
    ms_system: float
    ms_topic: float
    ms_residual: float
    ss_system: float
    ss_topic: float
    ss_residual: float
    ss_total: float
    df_system: int
    df_topic: int
    df_residual: int
    df_total: int
    n_systems: int
    n_topics: int
    grand_mean: float
    systems: tuple[str, ...] = field(repr=False, default=())
    topics: tuple[str, ...] = field(repr=False, default=())
    dropped_systems: tuple[str, ...] = field(repr=False, default=())
    drop_lowest: float = 0.0
    scores: NDArray[np.float64] | None = field(default=None, repr=False, compare=False)
    """The matrix the components were estimated from (NaN = missing cell), for :meth:`bootstrap`."""

    # ------------------------------------------------------------------ tables
    #: the sources of variation, the rows of :attr:`components`
    SOURCES: ClassVar[tuple[str, ...]] = ("system", "topic", "system:topic,e")

    @cached_property
    def components(self) -> pd.DataFrame:
        """ANOVA table with unrounded numbers: df, ss, ms, variance (clipped), variance_raw,
        percent (of the clipped total), clipped; index ``system``, ``topic``, ``system:topic,e``."""
        import pandas as pd

        return pd.DataFrame(self._component_columns(), index=pd.Index(list(self.SOURCES), name="source"))

    def _component_columns(self) -> dict[str, Any]:
        """The columns of :attr:`components`, one value per source of :attr:`SOURCES` (what :meth:`summary` and
        :meth:`summary_dict` print, without building the frame)."""
        var = np.array([self.var_system, self.var_topic, self.var_residual])
        total = var.sum()
        return {
            "df": np.array([self.df_system, self.df_topic, self.df_residual]),
            "ss": np.array([self.ss_system, self.ss_topic, self.ss_residual]),
            "ms": np.array([self.ms_system, self.ms_topic, self.ms_residual]),
            "variance": var,
            "variance_raw": np.array([self.var_system_raw, self.var_topic_raw, self.var_residual_raw]),
            "percent": 100.0 * var / total if total > 0 else np.full(3, np.nan),
            "clipped": np.array([self.clipped_system, self.clipped_topic, self.clipped_residual]),
        }

    # ------------------------------------------------------------ coefficients
    @property
    def phi_ratio(self) -> float:
        """σ²(s) / (σ²(t) + σ²(st,e)): Φ(n) = n·r / (1 + n·r)."""
        if self.var_system == 0:
            return 0.0
        err = self.var_topic + self.var_residual
        return self.var_system / err if err > 0 else math.inf

    @property
    def erho2_ratio(self) -> float:
        """σ²(s) / σ²(st,e): Eρ²(n) = n·r / (1 + n·r)."""
        if self.var_system == 0:
            return 0.0
        return self.var_system / self.var_residual if self.var_residual > 0 else math.inf

    def interval(
        self, coefficient: Coefficient = "phi", n_topics: ArrayLike | None = None, level: float = 0.95
    ) -> CoefficientInterval:
        r"""Two-sided confidence interval for Φ (Arteaga et al.) or Eρ² (Feldt) at ``n_topics``.

        Parameters
        ----------
        coefficient : {"phi", "erho2"}
        n_topics : int or array_like, optional
            D-study number(s) of topics; default the G-study's.
        level : float, optional
            Confidence level, default 0.95 (probability :math:`(1-\text{level})/2` in each tail).

        Returns
        -------
        CoefficientInterval

        Notes
        -----
        Eρ²: Feldt (1965), exact under normality; Φ: Arteaga, Jeyaratnam & Franklin (1982),
        approximate. Both computed for one topic and projected with :math:`n r/(1+nr)`
        (Brennan 2001, §6.2). Formulas in :mod:`gtheory.gstudy.intervals`. Reproduces Brennan's
        Table 6.5 (synthetic data set 4 as p × i).
        """
        coefficient = _check_coefficient(coefficient)
        n = _check_n(self.n_topics if n_topics is None else n_topics)
        lo_r, hi_r = self._ratio_bounds(coefficient, level)
        est = self.phi(n) if coefficient == "phi" else self.erho2(n)
        return CoefficientInterval(
            coefficient=coefficient,
            n_topics=_scalar_or_array(n, n),
            estimate=est,
            low=_scalar_or_array(project(lo_r, n), n),
            high=_scalar_or_array(project(hi_r, n), n),
            level=float(level),
            method=_METHODS[coefficient],
        )

    # ------------------------------------------------------------- D-study
    def dstudy(self, n_topics: ArrayLike | None = None, *, level: float | None = 0.95) -> pd.DataFrame:
        """D-study table: Eρ² and Φ (with confidence bounds) for each number of topics.

        Parameters
        ----------
        n_topics : array_like of int, optional
            Default: 10, 25, 50, 100 and the G-study's number of topics.
        level : float or None
            Confidence level of the bounds; None for point estimates only.

        Returns
        -------
        pandas.DataFrame
            Index ``n_topics``; columns ``erho2``, ``erho2_low``, ``erho2_high``, ``phi``,
            ``phi_low``, ``phi_high`` (unrounded).
        """
        import pandas as pd

        sizes, cols = self._dstudy_columns(n_topics, level)
        return pd.DataFrame(cols, index=pd.Index(sizes, name="n_topics"))

    def _dstudy_columns(self, n_topics: ArrayLike | None, level: float | None
                        ) -> tuple[NDArray[Any], dict[str, NDArray[np.float64]]]:
        """The index (the numbers of topics: integers when all are whole) and the columns of :meth:`dstudy`."""
        n = self._default_sizes() if n_topics is None else np.atleast_1d(_check_n(n_topics))
        cols: dict[str, NDArray[np.float64]] = {}
        for c in ("erho2", "phi"):
            if level is None:
                cols[c] = np.asarray(getattr(self, c)(n))
            else:
                ci = self.interval(c, n, level)
                cols[c], cols[f"{c}_low"], cols[f"{c}_high"] = (np.asarray(ci.estimate),
                                                               np.asarray(ci.low), np.asarray(ci.high))
        return (n.astype(int) if np.all(n == np.round(n)) else n), cols

    def _default_sizes(self) -> NDArray[np.float64]:
        return np.array(sorted({10, 25, 50, 100, self.n_topics}), dtype=np.float64)

    #: the keys of :meth:`as_row`, in order
    ROW_KEYS: ClassVar[tuple[str, ...]] = (
        "var_system", "var_topic", "var_residual", "share_system", "share_topic", "share_residual",
        "phi", "erho2", "phi_1", "topics_needed", "topics_needed_erho2")

    def as_row(self, n_topics: float | None = None, target: float = 0.95) -> dict[str, float]:
        r"""The numbers of one table row: the row every study table is built from.

        Keys (:attr:`ROW_KEYS`): the variance components ``var_system``, ``var_topic``, ``var_residual``
        (negative estimates set to 0) and their shares of the total ``share_*`` (NaN when the total is 0);
        ``phi`` and ``erho2`` at ``n_topics`` (default: the G-study's topics); ``phi_1`` = Φ(1); ``topics_needed``
        and ``topics_needed_erho2``, the smallest n with Φ(n) ≥ ``target`` resp. Eρ²(n) ≥ ``target`` (point
        estimates, no interval; ``inf`` when no number of topics reaches it). Brennan (2001), ch. 4.

        Examples
        --------
        >>> import numpy as np, gtheory
        >>> g = gtheory.gstudy(np.array([[0.5, 0.6, 0.4], [0.3, 0.4, 0.35], [0.1, 0.2, 0.1]]))
        >>> row = g.as_row(target=0.9)
        >>> row["phi"] == float(g.phi(3)) and row["topics_needed"] == g.topics_needed(0.9, level=None).n
        True
        """
        n = self.n_topics if n_topics is None else n_topics
        total = self.var_system + self.var_topic + self.var_residual
        share = (lambda v: float(v / total)) if total > 0 else (lambda v: math.nan)
        return {
            "var_system": float(self.var_system), "var_topic": float(self.var_topic),
            "var_residual": float(self.var_residual),
            "share_system": share(self.var_system), "share_topic": share(self.var_topic),
            "share_residual": share(self.var_residual),
            "phi": float(self.phi(n)), "erho2": float(self.erho2(n)), "phi_1": float(self.phi(1)),
            "topics_needed": self.topics_needed(target, "phi", level=None).n,
            "topics_needed_erho2": self.topics_needed(target, "erho2", level=None).n,
        }

    # ------------------------------------------------------------------ JSON
    #: the ``"format"`` of :meth:`to_dict`
    JSON_FORMAT: ClassVar[str] = "gtheory.GStudy/1"

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain JSON values plus ``"format"``; non-finite numbers are None
        (:mod:`gtheory.kit.jsonio`, the encoder of every result type)."""
        return fields_document(self)

    @classmethod
    def from_json(cls, text_or_path: Any) -> "GStudy":
        """A :class:`GStudy` from :meth:`to_json` output (JSON text or a file path); ``null`` numbers are NaN.

        Raises
        ------
        ValueError
            Not a G-study document (wrong ``format``, a missing or unknown field).
        """
        from ..kit.jsonio import number

        d = read_fields(cls, text_or_path)
        names = {f.name: f for f in fields(cls)}

        def value(kind: str, v: Any) -> Any:  # by the field's annotation (postponed: a string)
            if v is None and kind.endswith("| None"):
                return None
            kind = kind.replace(" | None", "")
            if kind.startswith("NDArray"):  # None (null) entries are NaN cells
                return np.array(v, dtype=np.float64)
            if kind.startswith("tuple["):
                item = "str" if kind.startswith("tuple[str") else "float"
                return tuple(value(item, x) for x in v)
            return {"int": int, "bool": bool, "str": str}.get(kind, lambda x: float(number(x)))(v)

        return cls(**{k: value(str(names[k].type), v) for k, v in d.items()})

    def bootstrap(self, *, n_resamples: int = 1000, over: str = "both",
                  seed: int | np.random.Generator | None = None, level: float = 0.95, n_topics: float | None = None,
                  target: float = 0.95):  # -> gtheory.gstudy.bootstrap_result.BootstrapResult
        """Bootstrap intervals of the components, Φ(n), Eρ²(n) and topics needed: by default
        Brennan's boot-p,i (``over="both"``: systems and topics resampled; measured coverage .94–.998
        on real IR score matrices, conservative on normal data), or boot-p (``"systems"``), boot-i
        (``"topics"``), or ``"auto"`` (each quantity from the one-facet resampling that reproduces
        its variability under a homogeneous interaction: 93–97 % on normal data, too short on real IR
        scores), with Wiley's bias corrections; expanded basic intervals on the log scale. See
        :func:`gtheory.gstudy.bootstrap.bootstrap`."""
        from .bootstrap import bootstrap

        return bootstrap(self, n_resamples=n_resamples, over=over, seed=seed, level=level, n_topics=n_topics,
                         target=target)

    # -------------------------------------------------------- presentation
    def summary(
        self, n_topics: ArrayLike | None = None, *, target: float = 0.95, level: float = 0.95
    ) -> str:
        """A G-study table, a D-study table and the topics needed for ``target``, as text."""
        comp = self._component_columns()
        lines = [
            "G-study: systems x topics, crossed, random effects (ANOVA / expected mean squares)",
            f"  {self.n_systems} systems x {self.n_topics} topics, grand mean {self.grand_mean:.6g}",
        ]
        if self.dropped_systems:
            lines.append(f"  {len(self.dropped_systems)} lowest-mean systems dropped "
                         f"(drop_lowest={self.drop_lowest:g})")
        lines += ["", f"  {'source':<16}{'df':>7}{'SS':>14}{'MS':>14}{'variance':>14}{'%':>8}"]
        for i, src in enumerate(self.SOURCES):
            row = {k: v[i] for k, v in comp.items()}
            flag = "  (negative estimate set to 0)" if row["clipped"] else ""
            pct = f"{row['percent']:8.1f}" if np.isfinite(row["percent"]) else f"{'-':>8}"
            lines.append(f"  {src:<16}{int(row['df']):7d}{row['ss']:14.6g}{row['ms']:14.6g}"
                         f"{row['variance']:14.6g}{pct}{flag}")
        lines.append(f"  {'total':<16}{self.df_total:7d}{self.ss_total:14.6g}")
        sizes, d = self._dstudy_columns(n_topics, level)
        lines += [
            "",
            f"D-study ({level:.0%} intervals: Eρ² Feldt 1965, Φ Arteaga et al. 1982)",
            f"  {'topics':>7}  {'Eρ²':>7}  {'interval':<17}  {'Φ':>7}  {'interval':<17}",
        ]
        for i, n in enumerate(sizes.tolist()):
            row = {k: v[i] for k, v in d.items()}
            mark = "*" if n == self.n_topics else " "
            lines.append(
                f"  {n:>6}{mark}  {row['erho2']:7.4f}  [{row['erho2_low']:.4f}, {row['erho2_high']:.4f}]"
                f"  {row['phi']:7.4f}  [{row['phi_low']:.4f}, {row['phi_high']:.4f}]"
            )
        lines.append("  (* = topics in this G-study)")
        lines += ["", f"Topics needed for {target:g} ({level:.0%} interval):"]
        for c in ("erho2", "phi"):
            lines.append("  " + str(self.topics_needed(target, c, level=level)))
        return "\n".join(lines)

    def summary_dict(
        self, n_topics: ArrayLike | None = None, *, target: float = 0.95, level: float = 0.95
    ) -> dict[str, Any]:
        """The numbers of :meth:`summary` as plain values (the ``gtheory gstudy --json`` document): ``n_systems``,
        ``n_topics``, ``dropped_systems``, ``grand_mean``, ``components`` (per source: df, ss, ms, variance,
        variance_raw, percent, clipped), ``dstudy`` (one entry per number of topics), ``topics_needed`` (per
        coefficient, the fields of :class:`TopicsNeeded`) and ``level``. Non-finite numbers stay floats; the
        encoder (:mod:`gtheory.kit.jsonio`) writes them as ``null``."""
        sizes, d = self._dstudy_columns(n_topics, level)
        comp = self._component_columns()
        return {
            "n_systems": self.n_systems,
            "n_topics": self.n_topics,
            "dropped_systems": list(self.dropped_systems),
            "grand_mean": self.grand_mean,
            "components": {src: {k: (bool(v[i]) if k == "clipped" else float(v[i])) for k, v in comp.items()}
                           for i, src in enumerate(self.SOURCES)},
            "dstudy": [{"n_topics": float(n), **{k: float(v[i]) for k, v in d.items()}}
                       for i, n in enumerate(sizes.tolist())],
            "topics_needed": {c: vars(self.topics_needed(target, c, level=level)) for c in ("erho2", "phi")},
            "level": level,
        }

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        n = self.n_topics
        return (f"GStudy({self.n_systems} systems × {n} topics; σ²(s) = {fmt(self.var_system)}, "
                f"σ²(t) = {fmt(self.var_topic)}, σ²(st,e) = {fmt(self.var_residual)}; "
                f"Φ({n}) = {fmt(self.phi(n))}, Eρ²({n}) = {fmt(self.erho2(n))})")

    def _repr_html_(self) -> str:
        comp = self.components
        rows = [(src, int(r["df"]), r["ms"], r["variance"], r["percent"]) for src, r in comp.iterrows()]
        head = html_table(rows, header=["source", "df", "MS", "variance", "%"],
                          caption=f"GStudy: {self.n_systems} systems × {self.n_topics} topics (crossed s × t)")
        n = self.n_topics
        need = self.topics_needed(0.95, "phi", level=None).n
        coef = kv_table("D-study", {f"Φ({n})": self.phi(n), f"Eρ²({n})": self.erho2(n),
                                    "topics for Φ ≥ 0.95": need, "grand mean": self.grand_mean})
        return head + coef

    def plot(
        self, ax: Axes | None = None, *, n_max: int | None = None, level: float | None = 0.95,
        target: float | None = None, title: str | None = None,
    ) -> Axes:
        """Plot Φ and Eρ² against the number of topics (Kanoulas & Aslam 2009, Fig. 4 style).

        See :func:`gtheory.gstudy.plot.plot_dstudy`; returns the matplotlib Axes.
        """
        from .plot import plot_dstudy

        return plot_dstudy(self, ax=ax, n_max=n_max, level=level, target=target, title=title)


def _check_finite_results(x: NDArray[np.float64], results: list[float], scale: float) -> None:
    """Refuse a G-study whose sums of squares overflow (or underflow to 0) in double precision: its
    components would be NaN or inf, or 0, and Φ a meaningless 1.0 or 0/0."""
    size = float(np.max(np.abs(x)))
    fix = ("rescale the scores (e.g. divide them by their largest absolute value): Φ, Eρ² and the "
           "number of topics needed do not depend on the scale.")
    if not all(math.isfinite(v) for v in results):
        raise ValueError(
            f"`scores` are too large for double precision (largest |score| {size:.3g}): their squares overflow "
            f"and the variance components come out NaN or infinite; {fix}"
        )
    if not scale > np.finfo(np.float64).tiny / np.finfo(np.float64).eps:  # squares keep full precision
        raise ValueError(
            f"`scores` differ by too little for double precision (range {float(np.ptp(x)):.3g}): their squared "
            f"deviations underflow to 0 and the variance components cannot be estimated; {fix}"
        )



def centred_total(x: NDArray[np.float64]) -> tuple[float, float]:
    r"""The grand mean and the total sum of squares :math:`\sum (x - \bar x)^2` of the finite array ``x``,
    computed from deviations (two passes: the mean of ``x - m0`` corrects a first estimate ``m0``), so that a
    constant added to every score (``x + 1e12``) leaves the sum of squares as it was up to float64 rounding of
    the deviations."""
    m0 = float(x.mean())
    d = x - m0
    e = float(d.mean())
    d -= e
    return m0 + e, float(np.einsum("ij,ij->", d, d) if d.ndim == 2 else np.sum(d * d))


def all_equal_message(value: float) -> str:
    """Why a matrix of equal scores has no G-study; for a large magnitude, that rounding may be the cause."""
    msg = (f"all scores are equal ({value:g}); every variance component is 0 and Φ and Eρ² are 0/0 — undefined. "
           "Is the metric computed correctly?")
    step = float(np.spacing(abs(value)))
    if step >= 1e-6:
        msg += (f" (At {abs(value):.3g} double precision stores numbers in steps of {step:.3g}: scores that differ by "
                "less were rounded to one value; subtract a constant before they are stored.)")
    return msg


def _drop_lowest_systems(x: NDArray[np.float64], systems: Sequence[str], drop_lowest: float
                        ) -> tuple[NDArray[np.float64], list[str], tuple[str, ...]]:
    """The rows of ``x`` (systems × topics, NaN for a missing cell) and the ``systems`` whose mean score
    (over the scored topics) reaches the ``drop_lowest`` quantile of the system means (linear interpolation),
    and the systems dropped — the ``drop_lowest`` of :func:`gstudy`, also with ``missing="reml"``/``"henderson"``
    (:func:`gtheory.gstudy.unbalanced.gstudy_missing`). ValueError if ``drop_lowest`` is not in [0, 1) or leaves fewer than 2 systems."""
    if not (isinstance(drop_lowest, (int, float, np.floating)) and 0.0 <= float(drop_lowest) < 1.0):
        raise ValueError(f"`drop_lowest` must be a fraction in [0, 1); got {drop_lowest!r}.")
    if drop_lowest == 0:
        return x, list(systems), ()
    means = tie_values(np.nanmean(x, axis=1))  # means equal in exact arithmetic stay together (not split by rounding)
    keep = means >= np.quantile(means, drop_lowest)
    if keep.sum() < 2:
        raise ValueError(f"`drop_lowest`={drop_lowest!r} leaves {int(keep.sum())} system(s); "
                         "at least 2 are needed.")
    return (x[keep], [s for s, k in zip(systems, keep) if k],
            tuple(s for s, k in zip(systems, keep) if not k))

def balanced_gstudy(x: NDArray[np.float64], systems: Sequence[Any], topics: Sequence[Any], *,
                    drop_lowest: float = 0.0) -> GStudy:
    """The G-study of the complete matrix ``x`` (systems × topics, no NaN) with its labels: the ANOVA estimates of
    :func:`gtheory.gstudy` after its input checks."""
    x, systems, dropped = _drop_lowest_systems(x, systems, drop_lowest)
    if np.ptp(x) == 0:
        raise ValueError(all_equal_message(float(x.flat[0])))
    n_s, n_t = x.shape
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        vc = variance_components(x)
        ms_s, ms_t, ms_e = float(vc.ms_system), float(vc.ms_topic), float(vc.ms_residual)
        raw = {"system": float(vc.system), "topic": float(vc.topic), "residual": float(vc.residual)}
        grand_mean, ss_total = centred_total(x)
    scale = ss_total / x.size
    _check_finite_results(x, [ms_s, ms_t, ms_e, ss_total, *raw.values()], scale)
    if raw["system"] <= ROUNDING_TOLERANCE * scale and raw["residual"] <= ROUNDING_TOLERANCE * scale:
        raise ValueError(
            "`scores` vary only between topics (every system has the same score on each topic): "
            "σ²(system) = σ²(system:topic) = 0, so Eρ² is 0/0 — undefined."
        )
    # an estimate within rounding error of 0 is 0 (no warning, no spurious ratio of noise to noise)
    noise = {k: is_rounding_noise(v, scale) for k, v in raw.items()}
    clipped = {k: v < 0 for k, v in raw.items()}
    lost = precision_lost(x, scale)
    if lost is not None:  # the data were rounded before we saw them: say so, not "negative estimate"
        warn_precision_loss(*lost, scale, {k: raw[k] for k, was in clipped.items() if was and not noise[k]})
    for k, was in clipped.items():
        if was and lost is None:
            warn_negative(k, raw[k], scale)
    var = {k: 0.0 if (clipped[k] or noise[k]) else v for k, v in raw.items()}
    ss_s, ss_t, ss_e = ms_s * (n_s - 1), ms_t * (n_t - 1), ms_e * (n_s - 1) * (n_t - 1)
    return GStudy(
        var_system=var["system"],
        var_topic=var["topic"],
        var_residual=var["residual"],
        var_system_raw=raw["system"],
        var_topic_raw=raw["topic"],
        var_residual_raw=raw["residual"],
        clipped_system=clipped["system"],
        clipped_topic=clipped["topic"],
        clipped_residual=clipped["residual"],
        ms_system=ms_s, ms_topic=ms_t, ms_residual=ms_e,
        ss_system=ss_s, ss_topic=ss_t, ss_residual=ss_e,
        ss_total=ss_total,
        df_system=n_s - 1, df_topic=n_t - 1, df_residual=(n_s - 1) * (n_t - 1), df_total=n_s * n_t - 1,
        n_systems=n_s, n_topics=n_t,
        grand_mean=grand_mean,
        systems=tuple(systems), topics=tuple(topics), dropped_systems=dropped,
        drop_lowest=float(drop_lowest), scores=x,
    )

