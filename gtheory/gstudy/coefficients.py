r"""The coefficient API shared by every result that has variance components: ``phi(n)``, ``erho2(n)``,
``topics_needed(target)`` (:class:`TopicsNeeded`), their intervals (:class:`CoefficientInterval`), and the topics
needed for a ratio (Brennan 2001, ch. 4; Kanoulas & Aslam, CIKM 2009, §2). :class:`gtheory.GStudy`,
:class:`gtheory.UnbalancedGStudy`, :class:`optimize.Tuning` and :class:`optimize.ParameterTuning` share it
(:class:`Coefficients`, a base class; with :func:`fields_document` and :func:`read_fields`, the JSON of plain fields).
"""
from __future__ import annotations

import math
from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..kit.display import fmt, html_table, kv_table
from ..kit.jsonio import JsonResult
from .intervals import (
    arteaga_ratio_bounds,
    feldt_ratio_bounds,
    project,
    topics_for_ratio,
)
from ..kit.params import check_param, validate_params

__all__ = ["TopicsNeeded", "CoefficientInterval", "Coefficient", "topics_needed_for_ratio", "why_never_reached",
           "MAX_TOPICS", "Coefficients", "fields_document", "read_fields"]

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
        would need more than :data:`MAX_TOPICS` topics); None when ``n`` is finite.
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
            s += f" (exact {_exact_text(self.n_exact, self.n)})"
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
    #: the declared schema of the document (:mod:`gtheory.kit.schema`), checked by :meth:`from_json`
    JSON_SCHEMA: ClassVar[dict] = {}

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain JSON values plus ``"format"``; ``inf`` (never reached) is None (:mod:`gtheory.kit.jsonio`)."""
        return fields_document(self)

    @classmethod
    def from_json(cls, text_or_path: Any) -> "TopicsNeeded":
        """A :class:`TopicsNeeded` from :meth:`to_json` output (text or a file path). ``null`` is ``inf`` for ``n``
        (and for ``n_low``/``n_high`` when ``level`` is given); for ``n_exact`` it is ``inf``, or NaN when
        ``reason`` says the coefficient is undefined."""
        from ..kit.jsonio import number

        d = read_fields(cls, text_or_path)
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


def fields_document(result: Any) -> dict[str, Any]:
    """A frozen result of plain fields as a JSON document: every field (:func:`gtheory.kit.jsonio.jsonable`, non-finite
    numbers as None) plus ``"format"`` (the class's ``JSON_FORMAT``)."""
    from ..kit.jsonio import jsonable

    d = jsonable({f.name: getattr(result, f.name) for f in fields(result)})
    d["format"] = result.JSON_FORMAT
    return d


def read_fields(cls: Any, text_or_path: Any) -> dict[str, Any]:
    """The fields of a :func:`fields_document` of ``cls`` (format checked; ValueError naming missing or unknown
    fields)."""
    from ..kit.jsonio import load_document

    schema = getattr(cls, "JSON_SCHEMA", None)
    if schema is not None:  # the declared schema (gtheory.kit.schema): a DocumentError naming the field
        from ..kit.schema import read_document

        return read_document(text_or_path, cls.JSON_FORMAT, schema)  # absent optional fields: their defaults
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
        return fields_document(self)

    @classmethod
    def from_json(cls, text_or_path: Any) -> "CoefficientInterval":
        """A :class:`CoefficientInterval` from :meth:`to_json` output (text or a file path); ``null`` is NaN, a list
        an array (one entry per number of topics)."""
        d = read_fields(cls, text_or_path)
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


class Coefficients:
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
        Arteaga et al. (1982) for Φ (:mod:`gtheory.gstudy.intervals`); NaN when the coefficient itself is undefined (0/0:
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
        target = check_param("target", target)
        ratio = self.phi_ratio if coefficient == "phi" else self.erho2_ratio
        n_exact = topics_for_ratio(ratio, target)
        n = topics_needed_for_ratio(ratio, target)
        reason = why_never_reached(ratio, target, coefficient)
        if level is None:
            return TopicsNeeded(coefficient, target, n, n_exact, reason=reason)
        lo_r, hi_r = self._ratio_bounds(coefficient, level)
        return TopicsNeeded(coefficient, target, n, n_exact, float(level),
                            topics_needed_for_ratio(hi_r, target), topics_needed_for_ratio(lo_r, target), reason)


#: more topics than this count as "never": the ratio is then at the level of rounding noise
#: (σ²(system) is 0 up to floating point) and no test collection could be built that large
MAX_TOPICS = 1e15


@validate_params()
def topics_needed_for_ratio(ratio: float, target: float) -> int | float:
    r"""Smallest number of topics :math:`n \ge 1` at which a coefficient with single-topic ratio
    ``ratio`` reaches ``target``.

    A coefficient with ratio :math:`r` (Φ: :math:`r = \sigma^2_s/(\sigma^2_t+\sigma^2_{st})`; Eρ²:
    :math:`r = \sigma^2_s/\sigma^2_{st}`) is :math:`nr/(1+nr)` at :math:`n` topics, so

    .. math::

        n = \left\lceil \frac{\text{target}}{(1-\text{target})\, r} \right\rceil ,

    corrected by at most two topics either way for rounding so that the coefficient at ``n``
    (:func:`gtheory.gstudy.intervals.project`, as :meth:`GStudy.phi` / :meth:`GStudy.erho2`) is
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



def _topics_needed_schema() -> dict:
    from ..kit.schema import choice, count, real, text

    unit = real(0.0, 1.0, low_open=True, high_open=True)
    optional = dict(nullable=True, null_as=None)  # null: not requested / not infinite
    return {"coefficient": choice("phi", "erho2"), "target": unit, "n": count(1),
            "n_exact": real(0.0, nullable=True, null_as=None), "level": unit.but(**optional),
            "n_low": count(1, **optional), "n_high": count(1, **optional), "reason": text(**optional)}


TopicsNeeded.JSON_SCHEMA.update(_topics_needed_schema())


def _exact_text(x: float, n: float) -> str:
    """The unrounded topics needed ``x`` with 4 significant digits, or more when 4 would show a whole number below
    the ``n`` needed (24.0023 topics, of which 25 are needed, is not written "exact 24"; 21 + 1e-14, of which 21
    are needed, is 21)."""
    if float(x).is_integer():
        return f"{x:.0f}"
    for digits in range(4, 17):
        text = f"{x:.{digits}g}"
        shown = float(text)
        if not (shown.is_integer() and shown < n):
            return text
    return repr(float(x))
