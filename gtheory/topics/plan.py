r"""How many topics? Every established answer for one pilot score matrix, side by side (:func:`plan`).

One row per method, each answering a different question about the same pilot systems × topics matrix:

* **G-theory Φ / Eρ²** (Brennan 2001; Kanoulas & Aslam 2009; gt4ireval): topics for the dependability Φ (absolute
  scores) or the generalizability coefficient Eρ² (relative ranking of systems) to reach ``target``; the interval is
  Arteaga et al.'s (Φ) or Feldt's (Eρ²) confidence interval of the single-topic ratio (:meth:`GStudy.topics_needed`).
* **Kendall τ (Urbano et al. fit)**: topics for the expected τ between the rankings of two topic sets to reach
  ``tau``, through Urbano, Marrero & Martín's (SIGIR 2013) empirical fit τ ≈ Eρ²^2.847 (:func:`gtheory.gt2tau`),
  i.e. the Eρ² target ``tau**(1/2.847)``. An empirical fit on TREC data.
* **paired t-test / two-sample t-test / one-way ANOVA / CI width** (Sakai's topic set size design, IRJ 2016;
  :func:`gtheory.topic_set_size`): topics for the test to detect ``min_diff`` with probability ``power`` at
  ``alpha`` (the ANOVA over all the pilot's systems, least favourable configuration), or for the expected width of
  the CI of a paired difference to be at most ``ci_width`` (default ``min_diff``). The two-sample row (each system
  on its own topics) always uses the pooled within-system variance: an unpaired comparison does not cancel the
  topic effect that the residual variance leaves out; the other rows use ``variance``. The interval is the size at the
  two ends of the ``level`` confidence interval of σ² (:math:`\nu V/\chi^2_{\nu}`, ν the variance's degrees of
  freedom) — how much the pilot's variance estimate leaves the answer open.
* **data: τ** (``curves=True``): topics at which τ between disjoint topic sets of the pilot itself reaches ``tau``,
  by the power law fitted to :func:`gtheory.topic_curves`; the interval is the ``level`` inverse-regression
  (Fieller) interval of that same fit (:meth:`gtheory.TopicCurves.topics_for_tau_interval`). When the fit cannot be
  bounded (fewer than 3 topic set sizes with τ < 1, e.g. a pilot of fewer than 14 topics) the row is left out with
  a warning; when the fitted τ does not rise with the topics, the row says so: ``topics`` inf (unattainable by the
  extrapolation), with its interval (``[1, inf]`` or ``[inf, inf]``).

In every row the estimate lies in its interval (``low <= topics <= high``): each interval is of the row's own estimate.

Why they differ, and when each applies, is in the docs page "How many topics?" (docs/topics.md).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from ..kit.display import fmt, html_table
from ..kit.jsonio import TableResult
from .gt_mappings import GT2TAU_EXPONENTS
from .power import _check_positive
from .topic_set_size import topic_set_size, within_system_variance
from ..kit.params import validate_params

if TYPE_CHECKING:  # pragma: no cover
    from concurrent.futures import Executor

    import pandas as pd

    from matplotlib.axes import Axes

    from ..gstudy import ScoreInput

__all__ = ["TopicPlan", "plan"]

_COLUMNS = ["method", "question", "topics", "low", "high", "at_pilot"]
_FLOATS = ("topics", "low", "high", "at_pilot")
#: the fields that hold the table's columns (written as the one field ``table`` of the JSON document)
_TABLE_FIELDS = ("methods", "questions", "numbers")


@dataclass(frozen=True, eq=False)
class TopicPlan(TableResult):
    """The topics each method says a collection needs (:func:`plan`).

    Attributes
    ----------
    table : DataFrame
        One row per method: ``method``, ``question`` (the requirement in words), ``topics`` (needed; per system for
        the two-sample t-test; ``inf`` when never reached), ``low`` / ``high`` (the interval of ``topics`` at
        ``level``) and ``at_pilot`` (what the pilot's own number of topics achieves: the coefficient, expected τ,
        power or expected CI width). Built from the fields below on first access (the plan itself, its text and
        JSON are computed without pandas).
    methods, questions : tuple of str
        The ``method`` and ``question`` columns of ``table``, one entry per row.
    numbers : ndarray
        The float columns of ``table``, one row per method: ``topics``, ``low``, ``high``, ``at_pilot``.
    pilot_systems, pilot_topics : int
        Shape of the pilot matrix.
    min_diff, target, tau, alpha, power, ci_width, level : float
        The requirements.
    variance : float
        The within-system variance σ² of the power rows; ``variance_method`` how it was estimated.
    """

    methods: tuple[str, ...]
    questions: tuple[str, ...]
    numbers: NDArray[np.float64]
    pilot_systems: int
    pilot_topics: int
    min_diff: float
    target: float
    tau: float
    alpha: float
    power: float
    ci_width: float
    level: float
    variance: float
    variance_method: str
    approximation: str

    JSON_FORMAT: ClassVar[str] = "gtheory.TopicPlan/1"
    #: the declared schema of the document (:mod:`gtheory.kit.schema`), checked by :meth:`from_json`
    JSON_SCHEMA: ClassVar[dict] = {}

    def __post_init__(self) -> None:
        numbers = np.array(self.numbers, dtype=np.float64)  # a copy: read-only here, the caller's array untouched
        if not (numbers.ndim == 2 and numbers.shape == (len(self.methods), len(_FLOATS))
                and len(self.questions) == len(self.methods)):
            raise ValueError(f"a TopicPlan needs one question and one row of {list(_FLOATS)} per method; got "
                             f"{len(self.methods)} methods, {len(self.questions)} questions, numbers of shape "
                             f"{numbers.shape}")
        numbers.setflags(write=False)
        object.__setattr__(self, "methods", tuple(self.methods))
        object.__setattr__(self, "questions", tuple(self.questions))
        object.__setattr__(self, "numbers", numbers)

    @cached_property
    def table(self) -> pd.DataFrame:
        """The plan as a DataFrame, one row per method (the columns are described in the class's docstring)."""
        import pandas as pd

        table = pd.DataFrame({"method": list(self.methods), "question": list(self.questions)})
        for j, c in enumerate(_FLOATS):
            table[c] = self.numbers[:, j].copy()
        return table

    def _column(self, name: str) -> NDArray[np.float64]:
        return self.numbers[:, _FLOATS.index(name)]

    def topics(self, method: str) -> float:
        """The topics the row ``method`` needs (``KeyError`` naming the rows for an unknown one)."""
        if method not in self.methods:
            raise KeyError(f"no row {method!r}; the rows are {list(self.methods)}")
        return float(self._column("topics")[self.methods.index(method)])

    def _rows(self) -> list[tuple[str, float, float, float, float]]:
        """(question, topics, low, high, at_pilot) of each row, the numbers as Python floats."""
        return [(q, *r) for q, r in zip(self.questions, self.numbers.tolist())]

    def summary(self) -> str:
        """The table as text, with the pilot's shape and the requirements."""
        head = (f"How many topics? pilot: {self.pilot_systems} systems × {self.pilot_topics} topics; "
                f"σ² = {fmt(self.variance)} ({self.variance_method}); intervals at {self.level:.0%}")
        width = max(len(q) for q in self.questions)
        lines = [head, f"  {'question':<{width}}  {'topics':>8}  {'interval':>17}  {'at pilot':>8}"]
        for question, topics, low, high, at_pilot in self._rows():
            interval = f"[{_n(low)}, {_n(high)}]"
            lines.append(f"  {question:<{width}}  {_n(topics):>8}  {interval:>17}  {fmt(at_pilot):>8}")
        lines.append("  (two-sample t-test: topics per system; 'at pilot' = the coefficient, expected τ, power or "
                     "expected CI width the pilot's topics achieve)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        parts = ", ".join(f"{m}={_n(t)}" for m, t in zip(self.methods, self._column("topics").tolist()))
        return f"TopicPlan({parts})"

    def _repr_html_(self) -> str:
        rows = [(q, topics, f"[{_n(low)}, {_n(high)}]", at) for q, topics, low, high, at in self._rows()]
        return html_table(rows, header=["question", "topics", f"{self.level:.0%} interval", "at pilot"],
                          caption=f"How many topics? (pilot {self.pilot_systems} × {self.pilot_topics})")

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain JSON values plus ``"format"``; the rows as the table ``{"index", "columns", "rows"}``
        (:func:`gtheory.kit.jsonio.table`'s of :attr:`table`), inf as None."""
        from dataclasses import fields

        from ..kit.jsonio import jsonable

        rows = [[m, *row] for m, row in zip(self.methods, self._rows())]
        out: dict[str, Any] = {"table": {"index": None, "columns": list(_COLUMNS), "rows": jsonable(rows)}}
        for f in fields(self):
            if f.name not in _TABLE_FIELDS:
                out[f.name] = jsonable(getattr(self, f.name))
        out["format"] = self.JSON_FORMAT
        return out

    @classmethod
    def from_json(cls, text_or_path: Any) -> "TopicPlan":
        """A :class:`TopicPlan` from :meth:`to_json` output; a ``null`` topic count is ``inf`` (never reached)."""
        from ..kit.errors import DocumentError
        from ..kit.schema import read_document

        d = read_document(text_or_path, cls.JSON_FORMAT, cls.JSON_SCHEMA)
        for key in _CLI_CONTEXT:
            d.pop(key, None)
        rows = d.pop("table")["rows"]
        methods = [r[0] for r in rows]
        if len(set(methods)) != len(methods):
            raise DocumentError(cls.JSON_FORMAT, "table.method", f"must name each method once; got {methods}")
        numbers = np.array([[math.nan if v is None else v for v in r[2:]] for r in rows],
                           dtype=np.float64).reshape(len(rows), len(_FLOATS))
        never = np.isnan(numbers[:, :3])  # topics, low, high: null is never reached
        numbers[:, :3][never] = math.inf
        return cls(tuple(methods), tuple(r[1] for r in rows), numbers, **d)

    def plot(self, ax: "Axes | None" = None, *, title: str | None = None) -> "Axes":
        """Topics needed per method (log scale) with their intervals, the pilot's number of topics marked."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(7, 0.45 * len(self.methods) + 1.2))
        ranges = self.numbers[:, :3]  # topics, low, high
        y = np.arange(len(self.methods))[::-1]
        top = np.nanmax(np.where(np.isfinite(ranges), ranges, np.nan))
        cap = 10 * top if np.isfinite(top) else 10 * self.pilot_topics
        n, lo, hi = np.minimum(ranges, cap).T
        ax.errorbar(n, y, xerr=[np.maximum(n - lo, 0), np.maximum(hi - n, 0)], fmt="o", color="C0", capsize=3)
        ax.axvline(self.pilot_topics, color="C2", ls=":", label=f"pilot ({self.pilot_topics} topics)")
        ax.set_yticks(y, list(self.questions), fontsize=8)
        ax.set_xscale("log")
        ax.set_xlabel("topics needed")
        ax.set_title(title if title is not None else "How many topics?", fontsize=10)
        ax.legend(fontsize=8)
        return ax


def _n(v: float) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return "∞" if math.isinf(v) else str(int(v))


def _variance_bounds(var: float, df: int, level: float) -> tuple[float, float]:
    """The ``level`` confidence interval of σ² from an estimate with ``df`` degrees of freedom (normal theory)."""
    from scipy.special import chdtri, gammaincinv  # the chi-square quantiles of scipy.stats.chi2, without its import

    a = (1.0 - level) / 2.0
    return df * var / chdtri(df, a), df * var / (2.0 * gammaincinv(df / 2.0, a))


@validate_params()
def plan(
    scores: "ScoreInput",
    *,
    min_diff: float,
    target: float = 0.95,
    tau: float = 0.9,
    alpha: float = 0.05,
    power: float = 0.8,
    ci_width: float | None = None,
    level: float = 0.95,
    variance: str = "residual",
    approximation: str = "exact",
    curves: bool = False,
    repeats: int = 50,
    seed: int | np.random.Generator | None = 0,
    executor: "Executor | None" = None,
) -> TopicPlan:
    r"""How many topics? G-theory, Urbano et al.'s τ fit and Sakai's topic set size design on one pilot matrix.

    Parameters
    ----------
    scores : score matrix
        A pilot systems × topics score matrix (anything :func:`gtheory.gstudy` takes).
    min_diff : float
        The difference between systems the tests must detect (the ANOVA: between the best and the worst).
    target : float
        The Φ and Eρ² to reach (default 0.95).
    tau : float
        The expected Kendall τ between two topic sets' rankings to reach (default 0.9, Voorhees' threshold).
    alpha, power : float
        Significance level and power of the tests (0.05, 0.8).
    ci_width : float, optional
        The largest expected width of the CI of a paired difference (default ``min_diff``).
    level : float
        Confidence level of the intervals (0.95).
    variance, approximation
        As in :func:`gtheory.topic_set_size`.
    curves : bool
        Also the data-based row: the topics at which τ between two disjoint random topic sets of the pilot reaches
        ``tau``, by the power-law extrapolation of :func:`gtheory.topic_curves` (``repeats`` pairs per size,
        ``seed``; seconds rather than milliseconds, hence off by default). Its interval is the ``level`` confidence
        interval of that answer from the same fit (:meth:`gtheory.TopicCurves.topics_for_tau_interval`: where the
        fitted line's confidence band reaches ``tau``, Fieller's inverse-regression interval), so it contains it.
    executor : concurrent.futures.Executor, optional
        Runs the curves' sizes (:func:`gtheory.topic_curves`); the result does not depend on it.

    Returns
    -------
    TopicPlan
        One row per method (module docstring); ``summary()``, ``plot()``, ``to_json()``.

    Examples
    --------
    >>> import numpy as np, gtheory
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(0.4, 0.05, (20, 1)) + rng.normal(0, 0.15, (1, 50)) + rng.normal(0, 0.1, (20, 50))
    >>> p = gtheory.plan(X, min_diff=0.05)
    >>> p.topics("paired-t") == gtheory.topic_set_size(X, method="paired-t", min_diff=0.05).n
    True
    """
    from ..gstudy import gstudy
    from ..gstudy import as_score_matrix

    _check_positive("min_diff", min_diff)
    if ci_width is None:
        ci_width = min_diff
    x, _, _ = as_score_matrix(scores)
    g = gstudy(x)
    var, m, n = within_system_variance(x, variance)
    pooled, _, _ = within_system_variance(x, "pooled")
    df = (m - 1) * (n - 1) if variance == "residual" else m * (n - 1)
    var_lo, var_hi = _variance_bounds(var, df, level)
    # an unpaired comparison does not cancel the topic effect: its variance is the pooled within-system one
    pooled_lo, pooled_hi = _variance_bounds(pooled, m * (n - 1), level)
    rows: list[dict[str, Any]] = []
    for coef, name in (("phi", "Φ"), ("erho2", "Eρ²")):
        need = g.topics_needed(target, coef, level=level)
        at = g.phi(n) if coef == "phi" else g.erho2(n)
        rows.append(dict(method=coef, question=f"G-theory {name} ≥ {target:g}", topics=need.n, low=need.n_low,
                         high=need.n_high, at_pilot=float(at)))
    a_tau = GT2TAU_EXPONENTS["tau"][1]
    need = g.topics_needed(tau ** (1.0 / a_tau), "erho2", level=level)
    from .gt_mappings import gt2tau

    e = float(g.erho2(n))
    rows.append(dict(method="tau", question=f"expected τ ≥ {tau:g} (Urbano et al. fit)", topics=need.n,
                     low=need.n_low, high=need.n_high, at_pilot=gt2tau(e) if 0 < e < 1 else math.nan))
    req = dict(alpha=alpha, approximation=approximation)
    specs = [("paired-t", f"paired t-test: power {power:g} for Δ ≥ {min_diff:g}", dict(min_diff=min_diff, power=power)),
             ("two-sample-t", f"two-sample t-test (pooled σ²): power {power:g} for Δ ≥ {min_diff:g}",
              dict(min_diff=min_diff, power=power)),
             ("anova", f"ANOVA of {m} systems: power {power:g} for best − worst ≥ {min_diff:g}",
              dict(min_diff=min_diff, power=power, n_systems=m)),
             ("ci", f"{1 - alpha:.0%} CI of a paired difference: expected width ≤ {ci_width:g}",
              dict(ci_width=ci_width))]
    for method, question, kw in specs:
        unpaired = method == "two-sample-t"
        r = topic_set_size(x, method=method, variance="pooled" if unpaired else variance, **req, **kw)  # type: ignore[arg-type]
        lo = topic_set_size(pooled_lo if unpaired else var_lo, method=method, **req, **kw).n  # type: ignore[arg-type]
        hi = topic_set_size(pooled_hi if unpaired else var_hi, method=method, **req, **kw).n  # type: ignore[arg-type]
        rows.append(dict(method=method, question=question, topics=r.n, low=lo, high=hi, at_pilot=r.achieved))
    if curves:
        from .curves import topic_curves

        c = topic_curves(x, repeats=repeats, seed=seed, alpha=alpha, executor=executor)
        low, high = c.topics_for_tau_interval(tau, level)  # the same fit as topics_for_tau: low <= topics <= high
        if math.isnan(low) or math.isnan(high):  # fewer than 3 sizes with τ < 1: the fit has no interval
            import warnings

            usable = int(((c.table["tau"] < 1) & np.isfinite(c.table["tau"])).sum())
            warnings.warn(f"`curves=True`: no data-based τ row: the power law needs at least 3 topic set sizes "
                          f"with τ < 1 to be fitted and bounded, and this pilot of {n} topics gives {usable} "
                          f"(sizes {list(c.table['n'])}, observed τ {[round(v, 3) for v in c.table['tau']]}); "
                          "a pilot of at least 14 topics (3 default sizes) with τ < 1 at them gives the row.",
                          UserWarning, stacklevel=2)
        else:
            rows.append(dict(method="data-tau",
                             question=f"data: τ between disjoint topic sets ≥ {tau:g} (extrapolated)",
                             topics=c.topics_for_tau(tau), low=low, high=high, at_pilot=float(c.extrapolate(n))))
    numbers = np.array([[math.nan if r[c] is None else r[c] for c in _FLOATS] for r in rows],
                       dtype=np.float64).reshape(len(rows), len(_FLOATS))
    return TopicPlan(tuple(r["method"] for r in rows), tuple(r["question"] for r in rows), numbers, m, n,
                     float(min_diff), float(target), float(tau), float(alpha), float(power),
                     float(ci_width), float(level), var, variance, approximation)


#: keys `gtheory plan --json` writes beside the plan's own fields (the score file, the outlying runs and the
#: competitive systems' answer, :mod:`gtheory.gstudy.outliers`): accepted by :meth:`TopicPlan.from_json` and dropped
_CLI_CONTEXT = ("source", "outlying_runs", "competitive")


def _plan_schema() -> dict:
    from ..kit.schema import anything, choice, count, integer, real, table, text

    unit = real(0.0, 1.0, low_open=True, high_open=True)
    return {"table": table({"method": text(), "question": text(), "topics": count(0), "low": count(0),
                            "high": count(0), "at_pilot": real(nullable=True, null_as=math.nan)}),
            "pilot_systems": integer(2), "pilot_topics": integer(2), "min_diff": real(0.0, low_open=True),
            "target": unit, "tau": real(-1.0, 1.0, low_open=True, high_open=True), "alpha": unit, "power": unit,
            "ci_width": real(0.0, low_open=True), "level": unit,
            "variance": real(0.0, nullable=True, null_as=math.nan),
            "variance_method": choice("residual", "pooled", "given"), "approximation": choice("exact", "nagata"),
            **{key: anything(required=False) for key in _CLI_CONTEXT}}


TopicPlan.JSON_SCHEMA.update(_plan_schema())
