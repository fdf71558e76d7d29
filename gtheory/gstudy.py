r"""G-study and D-study for the crossed systems × topics (s × t) random-effects design.

One observation per cell (a metric's score for each system on each topic). The estimator is the
ANOVA / expected-mean-squares one of Brennan (2001, ch. 3); Φ and Eρ² follow Brennan ch. 4 and
Kanoulas & Aslam (CIKM 2009, §2); intervals follow Brennan ch. 6 (see :mod:`gtheory.intervals`).

Validated against statsmodels (``anova_lm`` of an OLS fit, and ``MixedLM`` REML), Brennan's
published synthetic data sets and tables (via ``gt4ireval``'s tests): see
``tests/test_gtheory_gstudy.py``.
"""
from __future__ import annotations

import math
from dataclasses import MISSING, dataclass, field, fields
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from .kit.ties import tie_values
from .components import variance_components
from .kit.display import fmt, html_table, kv_table
from .kit.jsonio import JsonResult
from .errors import ROUNDING_TOLERANCE, is_rounding_noise, precision_lost, warn_negative, warn_precision_loss
from .intervals import (
    arteaga_ratio_bounds,
    check_open_unit,
    feldt_ratio_bounds,
    project,
    topics_for_ratio,
)
from .io import Orientation, ScoreInput, as_score_matrix

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["gstudy", "GStudy", "TopicsNeeded", "CoefficientInterval", "Coefficient", "topics_needed_for_ratio"]

Coefficient = Literal["phi", "erho2"]
_COEF_NAMES = {"phi": "Φ", "erho2": "Eρ²"}
_METHODS = {"erho2": "Feldt (1965)", "phi": "Arteaga et al. (1982)"}


def _check_coefficient(coefficient: str) -> str:
    if coefficient not in _COEF_NAMES:
        raise ValueError(f"`coefficient` must be 'phi' or 'erho2'; got {coefficient!r}.")
    return coefficient


def _check_n(n_topics: ArrayLike) -> NDArray[np.float64]:
    try:
        n = np.asarray(n_topics, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"`n_topics` must be positive and finite; got {n_topics!r}.") from None
    if isinstance(n_topics, bool) or n.size == 0 or not np.all(np.isfinite(n)) or np.any(n <= 0):
        raise ValueError(f"`n_topics` must be positive and finite; got {n_topics!r}.")
    return n


def _scalar_or_array(x: NDArray[np.float64], like: NDArray[np.float64]) -> float | NDArray[np.float64]:
    return float(x) if like.ndim == 0 else x


@dataclass(frozen=True)
class TopicsNeeded(JsonResult):
    """Number of topics needed for a coefficient to reach ``target``.

    Attributes
    ----------
    coefficient : {"phi", "erho2"}
    target : float
    n : int or float
        Smallest integer number of topics whose coefficient is ≥ ``target``
        (``math.inf`` if no number of topics reaches it, i.e. σ²(system) = 0).
    n_exact : float
        Real-valued solution of coefficient(n) = target.
    level : float or None
        Confidence level of the interval for ``n`` (None if not requested).
    n_low, n_high : int or float or None
        Interval for ``n``: topics needed under the upper and lower confidence bound of the
        coefficient's single-topic ratio, respectively (``math.inf`` when the lower bound is 0).
    reason : str or None
        Why ``n`` is ``math.inf`` (σ²(system) = 0, or a ratio at the level of rounding noise that
        would need more than :data:`gtheory.gstudy.MAX_TOPICS` topics); None when ``n`` is finite.
    """

    coefficient: str
    target: float
    n: int | float
    n_exact: float
    level: float | None = None
    n_low: int | float | None = None
    n_high: int | float | None = None
    reason: str | None = None

    def __str__(self) -> str:
        s = f"{_COEF_NAMES[self.coefficient]} ≥ {self.target:g}: {_fmt_n(self.n)} topics"
        if np.isfinite(self.n_exact):
            s += f" (exact {self.n_exact:.4g})"
        if self.level is not None:
            s += f", {self.level:.0%} CI [{_fmt_n(self.n_low)}, {_fmt_n(self.n_high)}]"
        if self.reason:
            s += f" ({self.reason})"
        return s

    def summary(self) -> str:
        """The result as one line of text (as ``str``)."""
        return str(self)

    def __repr__(self) -> str:
        return f"TopicsNeeded({self})"

    #: the ``"format"`` of :meth:`to_dict`
    JSON_FORMAT: ClassVar[str] = "gtheory.TopicsNeeded/1"

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain JSON values plus ``"format"``; ``inf`` (never reached) is None (:mod:`gtheory.kit.jsonio`)."""
        return _fields_document(self)

    @classmethod
    def from_json(cls, text_or_path: Any) -> "TopicsNeeded":
        """A :class:`TopicsNeeded` from :meth:`to_json` output (text or a file path). ``null`` is ``inf`` for ``n``
        (and for ``n_low``/``n_high`` when ``level`` is given); for ``n_exact`` it is ``inf``, or NaN when
        ``reason`` says the coefficient is undefined."""
        from .kit.jsonio import number

        d = _read_fields(cls, text_or_path)
        d["n"] = number(d["n"], math.inf)
        if d.get("level") is not None:
            d["n_low"], d["n_high"] = number(d.get("n_low"), math.inf), number(d.get("n_high"), math.inf)
        undefined = "undefined" in (d.get("reason") or "")
        d["n_exact"] = float(number(d["n_exact"], math.nan if undefined else math.inf))
        return cls(**d)

    def _repr_html_(self) -> str:
        items = {"coefficient": _COEF_NAMES[self.coefficient], "target": self.target, "topics needed": self.n,
                 "exact solution": self.n_exact}
        if self.level is not None:
            items[f"{self.level:.0%} interval"] = f"[{_fmt_n(self.n_low)}, {_fmt_n(self.n_high)}]"
        if self.reason:
            items["why never"] = self.reason
        return kv_table("TopicsNeeded", items)


def _fields_document(result: Any) -> dict[str, Any]:
    """A frozen result of plain fields as a JSON document: every field (:func:`gtheory.kit.jsonio.jsonable`, non-finite
    numbers as None) plus ``"format"`` (the class's ``JSON_FORMAT``)."""
    from .kit.jsonio import jsonable

    d = jsonable({f.name: getattr(result, f.name) for f in fields(result)})
    d["format"] = result.JSON_FORMAT
    return d


def _read_fields(cls: Any, text_or_path: Any) -> dict[str, Any]:
    """The fields of a :func:`_fields_document` of ``cls`` (format checked; ValueError naming missing or unknown
    fields)."""
    from .kit.jsonio import load_document

    d = load_document(text_or_path, cls.JSON_FORMAT)
    names = {f.name: f for f in fields(cls)}
    unknown = sorted(set(d) - set(names))
    missing = sorted(k for k, f in names.items() if k not in d and f.default is MISSING and f.default_factory is MISSING)
    if unknown or missing:
        raise ValueError(f"not a {cls.JSON_FORMAT} document: "
                         + "; ".join(x for x in (unknown and f"unknown fields {unknown}",
                                                  missing and f"missing fields {missing}") if x))
    return d


def _fmt_n(n: float | int | None) -> str:
    if n is None:
        return "-"
    return "∞" if math.isinf(n) else str(int(n))


@dataclass(frozen=True)
class CoefficientInterval(JsonResult):
    """Point estimate and two-sided confidence interval of Φ or Eρ² at ``n_topics``.

    ``estimate``, ``low`` and ``high`` are floats for a scalar ``n_topics`` and arrays otherwise.
    ``method`` names the interval ("Feldt (1965)" for Eρ², "Arteaga et al. (1982)" for Φ).
    """

    coefficient: str
    n_topics: float | NDArray[np.float64]
    estimate: float | NDArray[np.float64]
    low: float | NDArray[np.float64]
    high: float | NDArray[np.float64]
    level: float
    method: str

    def __repr__(self) -> str:
        name = _COEF_NAMES.get(self.coefficient, self.coefficient)
        n = np.asarray(self.n_topics)
        if n.ndim == 0:
            return (f"CoefficientInterval({name}({fmt(float(n))}) = {fmt(self.estimate)}, {self.level:.0%} CI "
                    f"[{fmt(self.low)}, {fmt(self.high)}], {self.method})")
        return f"CoefficientInterval({name} at {n.size} topic counts, {self.level:.0%} CI, {self.method})"

    #: the ``"format"`` of :meth:`to_dict`
    JSON_FORMAT: ClassVar[str] = "gtheory.CoefficientInterval/1"

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain JSON values (arrays as lists) plus ``"format"``; NaN is None."""
        return _fields_document(self)

    @classmethod
    def from_json(cls, text_or_path: Any) -> "CoefficientInterval":
        """A :class:`CoefficientInterval` from :meth:`to_json` output (text or a file path); ``null`` is NaN, a list
        an array (one entry per number of topics)."""
        d = _read_fields(cls, text_or_path)
        for k in ("n_topics", "estimate", "low", "high"):
            v = d[k]
            d[k] = np.asarray(v, dtype=np.float64) if isinstance(v, list) else (math.nan if v is None else float(v))
        return cls(**d)

    def summary(self) -> str:
        """The estimate and its interval at each number of topics, one line each."""
        name = _COEF_NAMES.get(self.coefficient, self.coefficient)
        cols = [np.atleast_1d(np.asarray(c, dtype=float)) for c in (self.n_topics, self.estimate, self.low, self.high)]
        lines = [f"{name}: {self.level:.0%} confidence intervals ({self.method})"]
        lines += [f"  {name}({fmt(float(n))}) = {fmt(e)}  [{fmt(lo)}, {fmt(hi)}]"
                  for n, e, lo, hi in zip(*np.broadcast_arrays(*cols))]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        name = _COEF_NAMES.get(self.coefficient, self.coefficient)
        cols = [np.atleast_1d(np.asarray(c, dtype=float)) for c in (self.n_topics, self.estimate, self.low, self.high)]
        n, est, lo, hi = np.broadcast_arrays(*cols)
        return html_table(zip(n, est, lo, hi), header=["topics", name, "low", "high"],
                          caption=f"{name}: {self.level:.0%} intervals ({self.method})")


class _Coefficients:
    r"""Φ(n), Eρ²(n) and the topics needed for a target, from single-topic ratios: the one code path of
    :class:`GStudy` (and its subclasses) and :class:`optimize.Tuning`.

    A subclass provides ``phi_ratio`` (:math:`\sigma^2_s/(\sigma^2_t+\sigma^2_{st})`), ``erho2_ratio``
    (:math:`\sigma^2_s/\sigma^2_{st}`), ``n_topics`` (the default number of topics), ``n_systems`` and the mean
    squares ``ms_system``, ``ms_topic``, ``ms_residual`` of the s × t ANOVA (for the confidence bounds of the
    ratios, :meth:`_ratio_bounds`).
    """

    phi_ratio: float
    erho2_ratio: float
    n_systems: int
    n_topics: int
    ms_system: float
    ms_topic: float
    ms_residual: float

    def _ratio_bounds(self, coefficient: str, level: float) -> tuple[float, float]:
        """Confidence bounds of the coefficient's single-topic ratio from the mean squares: Feldt (1965) for Eρ²,
        Arteaga et al. (1982) for Φ (:mod:`gtheory.intervals`); NaN when the coefficient itself is undefined (0/0:
        no system and no error variance, e.g. a tuning of indistinguishable systems)."""
        if math.isnan(self.phi_ratio if coefficient == "phi" else self.erho2_ratio):
            return math.nan, math.nan
        if coefficient == "erho2":
            lo, hi = feldt_ratio_bounds(self.ms_system, self.ms_residual, self.n_systems,
                                        self.n_topics, level)
        else:
            lo, hi = arteaga_ratio_bounds(self.ms_system, self.ms_topic, self.ms_residual,
                                          self.n_systems, self.n_topics, level)
        return float(lo), float(hi)

    def phi(self, n_topics: ArrayLike | None = None) -> float | NDArray[np.float64]:
        r"""Dependability index :math:`\Phi(n) = \sigma^2_s / (\sigma^2_s + (\sigma^2_t+\sigma^2_{st})/n)`.

        Parameters
        ----------
        n_topics : int, float or array_like, optional
            D-study number(s) of topics (> 0); default: the result's ``n_topics``.

        Returns
        -------
        float or ndarray
            Same shape as ``n_topics``.

        References: Brennan (2001) §4.1; Kanoulas & Aslam (2009) eq. 3.
        """
        n = _check_n(self.n_topics if n_topics is None else n_topics)
        return _scalar_or_array(project(self.phi_ratio, n), n)

    def erho2(self, n_topics: ArrayLike | None = None) -> float | NDArray[np.float64]:
        r"""Generalizability coefficient :math:`E\rho^2(n) = \sigma^2_s / (\sigma^2_s + \sigma^2_{st}/n)`.

        Parameters and return as :meth:`phi`. References: Brennan (2001) §4.1;
        Kanoulas & Aslam (2009) eq. 2.
        """
        n = _check_n(self.n_topics if n_topics is None else n_topics)
        return _scalar_or_array(project(self.erho2_ratio, n), n)

    def topics_needed(
        self, target: float = 0.95, coefficient: Coefficient = "phi", *, level: float | None = 0.95
    ) -> TopicsNeeded:
        r"""Smallest number of topics for which the coefficient reaches ``target``.

        Parameters
        ----------
        target : float
            Target Φ or Eρ², in (0, 1).
        coefficient : {"phi", "erho2"}
        level : float or None, optional
            Confidence level of the interval for the number of topics (default 0.95); None to
            skip it.

        Returns
        -------
        TopicsNeeded
            ``n`` (integer, checked against :meth:`phi` / :meth:`erho2`), ``n_exact`` and the
            interval ``n_low``, ``n_high``.

        Notes
        -----
        Solving :math:`nr/(1+nr) = \text{target}` gives :math:`n = \text{target} / ((1-\text{target})\,r)`,
        e.g. for Φ, :math:`n = \text{target}(\sigma^2_t+\sigma^2_{st}) / ((1-\text{target})\sigma^2_s)`.
        The interval substitutes the confidence bounds of :math:`r` (Feldt for Eρ², Arteaga
        et al. for Φ), as in ``gt4ireval`` (Urbano et al. 2013).
        """
        coefficient = _check_coefficient(coefficient)
        target = check_open_unit("target", target)
        ratio = self.phi_ratio if coefficient == "phi" else self.erho2_ratio
        n_exact = topics_for_ratio(ratio, target)
        n = topics_needed_for_ratio(ratio, target)
        reason = why_never_reached(ratio, target, coefficient)
        if level is None:
            return TopicsNeeded(coefficient, target, n, n_exact, reason=reason)
        lo_r, hi_r = self._ratio_bounds(coefficient, level)
        return TopicsNeeded(coefficient, target, n, n_exact, float(level),
                            topics_needed_for_ratio(hi_r, target), topics_needed_for_ratio(lo_r, target), reason)


@dataclass(frozen=True)
class GStudy(_Coefficients, JsonResult):
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
    @cached_property
    def components(self) -> pd.DataFrame:
        """ANOVA table with unrounded numbers: df, ss, ms, variance (clipped), variance_raw,
        percent (of the clipped total), clipped; index ``system``, ``topic``, ``system:topic,e``."""
        var = np.array([self.var_system, self.var_topic, self.var_residual])
        total = var.sum()
        return pd.DataFrame(
            {
                "df": [self.df_system, self.df_topic, self.df_residual],
                "ss": [self.ss_system, self.ss_topic, self.ss_residual],
                "ms": [self.ms_system, self.ms_topic, self.ms_residual],
                "variance": var,
                "variance_raw": [self.var_system_raw, self.var_topic_raw, self.var_residual_raw],
                "percent": 100.0 * var / total if total > 0 else np.full(3, np.nan),
                "clipped": [self.clipped_system, self.clipped_topic, self.clipped_residual],
            },
            index=pd.Index(["system", "topic", "system:topic,e"], name="source"),
        )

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
        (Brennan 2001, §6.2). Formulas in :mod:`gtheory.intervals`. Reproduces Brennan's
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
        n = self._default_sizes() if n_topics is None else np.atleast_1d(_check_n(n_topics))
        cols: dict[str, NDArray[np.float64]] = {}
        for c in ("erho2", "phi"):
            if level is None:
                cols[c] = np.asarray(getattr(self, c)(n))
            else:
                ci = self.interval(c, n, level)
                cols[c], cols[f"{c}_low"], cols[f"{c}_high"] = (np.asarray(ci.estimate),
                                                               np.asarray(ci.low), np.asarray(ci.high))
        index = pd.Index(n.astype(int) if np.all(n == np.round(n)) else n, name="n_topics")
        return pd.DataFrame(cols, index=index)

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
        return _fields_document(self)

    @classmethod
    def from_json(cls, text_or_path: Any) -> "GStudy":
        """A :class:`GStudy` from :meth:`to_json` output (JSON text or a file path); ``null`` numbers are NaN.

        Raises
        ------
        ValueError
            Not a G-study document (wrong ``format``, a missing or unknown field).
        """
        from .kit.jsonio import number

        d = _read_fields(cls, text_or_path)
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

    def bootstrap(self, B: int = 1000, *, over: str = "both", seed: int | None = None, level: float = 0.95,
                  n_topics: float | None = None, target: float = 0.95):  # -> gtheory.bootstrap.BootstrapResult
        """Bootstrap intervals of the components, Φ(n), Eρ²(n) and topics needed: by default
        Brennan's boot-p,i (``over="both"``: systems and topics resampled; measured coverage .94–.998
        on real IR score matrices, conservative on normal data), or boot-p (``"systems"``), boot-i
        (``"topics"``), or ``"auto"`` (each quantity from the one-facet resampling that reproduces
        its variability under a homogeneous interaction: 93–97 % on normal data, too short on real IR
        scores), with Wiley's bias corrections; expanded basic intervals on the log scale. See
        :func:`gtheory.bootstrap.bootstrap`."""
        from .bootstrap import bootstrap

        return bootstrap(self, B, over=over, seed=seed, level=level, n_topics=n_topics, target=target)

    # -------------------------------------------------------- presentation
    def summary(
        self, n_topics: ArrayLike | None = None, *, target: float = 0.95, level: float = 0.95
    ) -> str:
        """A G-study table, a D-study table and the topics needed for ``target``, as text."""
        comp = self.components
        lines = [
            "G-study: systems x topics, crossed, random effects (ANOVA / expected mean squares)",
            f"  {self.n_systems} systems x {self.n_topics} topics, grand mean {self.grand_mean:.6g}",
        ]
        if self.dropped_systems:
            lines.append(f"  {len(self.dropped_systems)} lowest-mean systems dropped "
                         f"(drop_lowest={self.drop_lowest:g})")
        lines += ["", f"  {'source':<16}{'df':>7}{'SS':>14}{'MS':>14}{'variance':>14}{'%':>8}"]
        for src, row in comp.iterrows():
            flag = "  (negative estimate set to 0)" if row["clipped"] else ""
            pct = f"{row['percent']:8.1f}" if np.isfinite(row["percent"]) else f"{'-':>8}"
            lines.append(f"  {src:<16}{int(row['df']):7d}{row['ss']:14.6g}{row['ms']:14.6g}"
                         f"{row['variance']:14.6g}{pct}{flag}")
        lines.append(f"  {'total':<16}{self.df_total:7d}{self.ss_total:14.6g}")
        d = self.dstudy(n_topics, level=level)
        lines += [
            "",
            f"D-study ({level:.0%} intervals: Eρ² Feldt 1965, Φ Arteaga et al. 1982)",
            f"  {'topics':>7}  {'Eρ²':>7}  {'interval':<17}  {'Φ':>7}  {'interval':<17}",
        ]
        for n, row in d.iterrows():
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
        d = self.dstudy(n_topics, level=level)
        return {
            "n_systems": self.n_systems,
            "n_topics": self.n_topics,
            "dropped_systems": list(self.dropped_systems),
            "grand_mean": self.grand_mean,
            "components": {src: {k: (bool(v) if k == "clipped" else float(v)) for k, v in row.items()}
                           for src, row in self.components.iterrows()},
            "dstudy": [{"n_topics": float(n), **{k: float(v) for k, v in row.items()}} for n, row in d.iterrows()],
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

        See :func:`gtheory.plot.plot_dstudy`; returns the matplotlib Axes.
        """
        from .plot import plot_dstudy

        return plot_dstudy(self, ax=ax, n_max=n_max, level=level, target=target, title=title)


#: more topics than this count as "never": the ratio is then at the level of rounding noise
#: (σ²(system) is 0 up to floating point) and no test collection could be built that large
MAX_TOPICS = 1e15


def topics_needed_for_ratio(ratio: float, target: float) -> int | float:
    r"""Smallest number of topics :math:`n \ge 1` at which a coefficient with single-topic ratio
    ``ratio`` reaches ``target``.

    A coefficient with ratio :math:`r` (Φ: :math:`r = \sigma^2_s/(\sigma^2_t+\sigma^2_{st})`; Eρ²:
    :math:`r = \sigma^2_s/\sigma^2_{st}`) is :math:`nr/(1+nr)` at :math:`n` topics, so

    .. math::

        n = \left\lceil \frac{\text{target}}{(1-\text{target})\, r} \right\rceil ,

    corrected by at most two topics either way for rounding so that the coefficient at ``n``
    (:func:`gtheory.intervals.project`, as :meth:`GStudy.phi` / :meth:`GStudy.erho2`) is
    ≥ ``target`` and at ``n - 1`` is not. The work is the same for every ratio (no search).

    Parameters
    ----------
    ratio : float
        The single-topic ratio :math:`r` (e.g. :attr:`GStudy.phi_ratio`); ``inf`` for no error
        variance.
    target : float
        Target coefficient, strictly between 0 and 1.

    Returns
    -------
    int or float
        ``n`` as an int; ``math.inf`` when ``ratio <= 0`` or NaN (the target is never reached) or
        when more than :data:`MAX_TOPICS` (10\ :sup:`15`) topics would be needed — a ratio that small
        is rounding noise around σ²(system) = 0 (:func:`why_never_reached` words the reason);
        1 when ``ratio`` is ``inf``. The rule of :meth:`GStudy.topics_needed` (``.n`` and the
        interval ends) and :meth:`optimize.Tuning.topics_needed`.

    Raises
    ------
    ValueError
        If ``target`` is not strictly between 0 and 1.

    Examples
    --------
    >>> from gtheory import topics_needed_for_ratio
    >>> topics_needed_for_ratio(0.5, 0.95)   # 0.95 / (0.05 * 0.5) = 38
    38
    >>> topics_needed_for_ratio(0.0, 0.95)
    inf
    >>> topics_needed_for_ratio(1e-20, 0.95)  # 1.9e21 topics: never, at once
    inf
    """
    target = check_open_unit("target", target)
    ratio = float(ratio)
    n_exact = topics_for_ratio(ratio, target)
    if math.isnan(n_exact) or n_exact > MAX_TOPICS:
        return math.inf
    k = max(1, math.ceil(n_exact))
    candidates = np.arange(max(1, k - 2), k + 3, dtype=np.float64)
    reached = np.asarray(project(ratio, candidates)) >= target
    if not reached.any():  # pragma: no cover - ceil(n_exact) + 2 always reaches it below MAX_TOPICS
        return int(candidates[-1])
    return int(candidates[int(np.argmax(reached))])


def why_never_reached(ratio: float, target: float, coefficient: str = "phi") -> str | None:
    """Why :func:`topics_needed_for_ratio` is ``inf`` for ``ratio`` (None when it is finite)."""
    name = _COEF_NAMES.get(coefficient, coefficient)
    ratio = float(ratio)
    if math.isnan(ratio):
        return f"{name} is undefined (0/0: no system and no error variance)"
    if ratio <= 0:
        return f"σ²(system) = 0: {name} is 0 for every number of topics"
    if math.isinf(ratio) or topics_needed_for_ratio(ratio, target) != math.inf:
        return None
    return (f"the variance ratio {ratio:.3g} is at the level of rounding noise: {name} ≥ {target:g} would need "
            f"more than {MAX_TOPICS:.0e} topics (σ²(system) is 0 up to floating point)")


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
    (:func:`gtheory.unbalanced.gstudy_missing`). ValueError if ``drop_lowest`` is not in [0, 1) or leaves fewer than 2 systems."""
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

def gstudy(
    scores: ScoreInput,
    *,
    drop_lowest: float = 0.0,
    orientation: Orientation = "auto",
    measure: str | None = None,
    missing: str = "error",
) -> GStudy:
    r"""G-study of a crossed systems × topics score matrix (random effects, one score per cell).

    Parameters
    ----------
    scores : ndarray, DataFrame or path
        Score matrix with rows = systems and columns = topics (a 2-D array, or a DataFrame whose
        index holds systems and columns topics — labels are kept), a long DataFrame (columns
        ``system, topic, score``, or ir_measures' ``run_id, query_id, value``), or the path of a
        CSV file read with :func:`gtheory.read_scores`. A DataFrame's axis names are honoured: one
        whose ``index.name`` is ``"topic"`` (or ``columns.name`` ``"system"``) holds topics in its
        rows and is transposed; an unnamed frame with labels (``pd.read_csv(f, index_col=0)``) is
        refused unless ``orientation`` is given or its labels tell (the rule of
        :func:`gtheory.as_score_matrix`); an unnamed frame with the shape of a long table is refused
        as ambiguous.
    drop_lowest : float, optional
        Fraction in [0, 1) of systems to drop before estimating, lowest mean score first (common
        in IR reliability studies to remove buggy runs). Systems whose mean is below the
        ``drop_lowest`` quantile of the system means (linear interpolation, as R's default and
        ``gt4ireval``) are dropped, so ties are kept together (also means equal in exact arithmetic
        that differ in the last bits, e.g. two P@10 means of 0.326).
    orientation : str, optional
        Layout of a CSV file, DataFrame or array: ``"auto"`` (default: by the names),
        ``"systems x topics"`` (also ``"systems-by-topics"``), ``"topics x systems"`` (also
        ``"topics-by-systems"``; an array is transposed too) or ``"long"``. It must not contradict a
        DataFrame's axis names.
    measure : str, optional
        The measure to study in a long DataFrame or CSV with a ``measure`` column holding several
        (ir_measures' ``measure``; :func:`metrics.evaluate` stacked).
    missing : {"error", "exclude", "henderson", "reml"}, optional
        What to do with missing cells (NaN; an empty cell of a CSV file; an absent system/topic
        pair of a long CSV or DataFrame). ``"error"`` (default) refuses them. ``"exclude"`` drops
        every topic with a missing cell. ``"henderson"`` (Henderson's Method 1, analogous ANOVA,
        Brennan 2001 ch. 7) and ``"reml"`` (restricted maximum likelihood) estimate the components
        from the scored cells and return an :class:`gtheory.unbalanced.UnbalancedGStudy` (Φ/Eρ² at
        the harmonic-mean number of topics per system; intervals from ``.bootstrap()``); see
        :mod:`gtheory.unbalanced`. All three warn (``MissingCellsWarning``) with the share of
        missing cells. A complete matrix gives the usual ANOVA G-study whatever ``missing`` is.

    Returns
    -------
    GStudy
        Variance components, mean squares, sums of squares, degrees of freedom, with methods
        ``phi``, ``erho2``, ``topics_needed``, ``interval``, ``dstudy``, ``summary``, ``plot``.

    Raises
    ------
    TypeError
        If ``scores`` is not an array, DataFrame or path.
    ValueError
        If ``scores`` has fewer than 2 systems or topics, contains NaN or infinite values, is
        constant (Φ and Eρ² are 0/0), varies only between topics (Eρ² is 0/0), is so large or
        so flat that the sums of squares overflow or underflow double precision (the variance
        components would be NaN, infinite or 0: rescale), has a layout that is ambiguous or
        contradicts ``orientation``, or if ``drop_lowest`` is out of range or leaves fewer than
        2 systems.

    Warns
    -----
    PrecisionLossWarning
        When the scores are so large for their spread that float64 had rounded them noticeably
        (``X + 1e16``); a negative estimate is then reported in it, not as a NegativeVarianceWarning.
    NegativeVarianceWarning
        When an estimate is negative and set to 0 (Brennan 2001, §3.4; as ``gt4ireval``); not for
        an estimate that is rounding noise (a relative tolerance: ``|σ²| ≤ 1e-12 ×`` the scores'
        variance, e.g. −7.9e-34 for scores of variance 0.01), which is set to 0 silently.

    Notes
    -----
    Model: :math:`X_{st} = \mu + \nu_s + \nu_t + \nu_{st,e}` with independent random effects.
    Sums of squares, :math:`df_s = n_s-1`, :math:`df_t = n_t-1`, :math:`df_{st}=(n_s-1)(n_t-1)`,
    and the EMS equations :math:`E[MS_s] = \sigma^2_{st} + n_t\sigma^2_s`,
    :math:`E[MS_t] = \sigma^2_{st} + n_s\sigma^2_t`, :math:`E[MS_{st}] = \sigma^2_{st}` give

    .. math::

        \hat\sigma^2_{st} = MS_{st}, \quad \hat\sigma^2_s = (MS_s - MS_{st})/n_t, \quad
        \hat\sigma^2_t = (MS_t - MS_{st})/n_s .

    Computed in closed form from centred data (sums of squares of deviations, so ``X + 1e12``
    gives the components of ``X``); about 50–100 µs for
    100 × 50 in :func:`gtheory.variance_components` (benchmarks/bench_gstudy.py: thousands of times faster than
    statsmodels OLS + ``anova_lm``).

    References
    ----------
    .. [1] R. L. Brennan (2001). *Generalizability Theory*. Springer. Ch. 2–3 (G-study, EMS),
           ch. 4 (D-study, Φ, Eρ²), ch. 6 (intervals).
    .. [2] E. Kanoulas and J. A. Aslam (2009). Empirical justification of the gain and discount
           function for nDCG. *CIKM 2009*, §2.
    .. [3] L. S. Feldt (1965). *Psychometrika* 30(3):357–370.
    .. [4] C. Arteaga, S. Jeyaratnam, G. A. Franklin (1982). *Comm. Statist. Theory Methods*
           11(15):1643–1658.
    .. [5] J. Urbano, M. Marrero, D. Martín (2013). On the measurement of test collection
           reliability. *SIGIR 2013*.

    Examples
    --------
    >>> import numpy as np
    >>> from gtheory import gstudy
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(0, 0.1, (30, 1)) + rng.normal(0, 0.2, (1, 50)) + rng.normal(0, 0.1, (30, 50))
    >>> g = gstudy(X)
    >>> round(g.phi(50), 2) >= round(g.phi(10), 2)
    True
    >>> g.topics_needed(0.95).n >= 1
    True
    """
    if missing not in ("error", "exclude", "henderson", "reml"):
        raise ValueError("`missing` must be 'error', 'exclude', 'henderson' or 'reml'; "
                         f"got {missing!r}.")
    x, systems, topics = as_score_matrix(scores, orientation=orientation, measure=measure,
                                         allow_nan=missing != "error")
    if missing != "error" and np.isnan(x).any():  # missing cells: gtheory/unbalanced.py
        from .unbalanced import gstudy_missing

        return gstudy_missing(x, systems, topics, method=missing, drop_lowest=drop_lowest)
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
