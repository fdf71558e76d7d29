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
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd

from ..kit.display import fmt, html_table
from ..kit.jsonio import TableResult
from .gt_mappings import GT2TAU_EXPONENTS
from .power import _check_positive
from .topic_set_size import topic_set_size, within_system_variance
from ..kit.params import validate_params

if TYPE_CHECKING:  # pragma: no cover
    from concurrent.futures import Executor

    from matplotlib.axes import Axes

    from ..gstudy import ScoreInput

__all__ = ["TopicPlan", "plan"]

_COLUMNS = ["method", "question", "topics", "low", "high", "at_pilot"]
_FLOATS = ("topics", "low", "high", "at_pilot")


@dataclass(frozen=True, eq=False)
class TopicPlan(TableResult):
    """The topics each method says a collection needs (:func:`plan`).

    Attributes
    ----------
    table : DataFrame
        One row per method: ``method``, ``question`` (the requirement in words), ``topics`` (needed; per system for
        the two-sample t-test; ``inf`` when never reached), ``low`` / ``high`` (the interval of ``topics`` at
        ``level``) and ``at_pilot`` (what the pilot's own number of topics achieves: the coefficient, expected τ,
        power or expected CI width).
    pilot_systems, pilot_topics : int
        Shape of the pilot matrix.
    min_diff, target, tau, alpha, power, ci_width, level : float
        The requirements.
    variance : float
        The within-system variance σ² of the power rows; ``variance_method`` how it was estimated.
    """

    table: pd.DataFrame
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

    def topics(self, method: str) -> float:
        """The topics the row ``method`` needs (``KeyError`` naming the rows for an unknown one)."""
        rows = self.table.set_index("method")
        if method not in rows.index:
            raise KeyError(f"no row {method!r}; the rows are {list(rows.index)}")
        return float(rows.loc[method, "topics"])

    def summary(self) -> str:
        """The table as text, with the pilot's shape and the requirements."""
        head = (f"How many topics? pilot: {self.pilot_systems} systems × {self.pilot_topics} topics; "
                f"σ² = {fmt(self.variance)} ({self.variance_method}); intervals at {self.level:.0%}")
        width = max(len(q) for q in self.table["question"])
        lines = [head, f"  {'question':<{width}}  {'topics':>8}  {'interval':>17}  {'at pilot':>8}"]
        for r in self.table.itertuples(index=False):
            interval = f"[{_n(r.low)}, {_n(r.high)}]"
            lines.append(f"  {r.question:<{width}}  {_n(r.topics):>8}  {interval:>17}  {fmt(r.at_pilot):>8}")
        lines.append("  (two-sample t-test: topics per system; 'at pilot' = the coefficient, expected τ, power or "
                     "expected CI width the pilot's topics achieve)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        parts = ", ".join(f"{m}={_n(t)}" for m, t in zip(self.table["method"], self.table["topics"]))
        return f"TopicPlan({parts})"

    def _repr_html_(self) -> str:
        rows = [(r.question, r.topics, f"[{_n(r.low)}, {_n(r.high)}]", r.at_pilot)
                for r in self.table.itertuples(index=False)]
        return html_table(rows, header=["question", "topics", f"{self.level:.0%} interval", "at pilot"],
                          caption=f"How many topics? (pilot {self.pilot_systems} × {self.pilot_topics})")

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain JSON values plus ``"format"``; the table as ``{"columns", "rows"}``, inf as None."""
        from ..kit.jsonio import fields_document

        return fields_document(self)

    @classmethod
    def from_json(cls, text_or_path: Any) -> "TopicPlan":
        """A :class:`TopicPlan` from :meth:`to_json` output; a ``null`` topic count is ``inf`` (never reached)."""
        from ..kit.schema import read_fields_document

        d = read_fields_document(cls, text_or_path, {"table": _FLOATS}, context=_CLI_CONTEXT)
        t = d["table"]
        if t["method"].duplicated().any():
            from ..kit.errors import DocumentError

            raise DocumentError(cls.JSON_FORMAT, "table.method", "must name each method once; "
                                f"got {list(t['method'])}")
        for c in ("topics", "low", "high"):
            t[c] = t[c].fillna(math.inf)
        d["table"] = t
        return cls(**d)


    def plot(self, ax: "Axes | None" = None, *, title: str | None = None) -> "Axes":
        """Topics needed per method (log scale) with their intervals, the pilot's number of topics marked."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(7, 0.45 * len(self.table) + 1.2))
        t = self.table
        y = np.arange(len(t))[::-1]
        top = np.nanmax(np.where(np.isfinite(t[["topics", "low", "high"]]), t[["topics", "low", "high"]], np.nan))
        cap = 10 * top if np.isfinite(top) else 10 * self.pilot_topics
        n = np.minimum(t["topics"].to_numpy(float), cap)
        lo = np.minimum(t["low"].to_numpy(float), cap)
        hi = np.minimum(t["high"].to_numpy(float), cap)
        ax.errorbar(n, y, xerr=[np.maximum(n - lo, 0), np.maximum(hi - n, 0)], fmt="o", color="C0", capsize=3)
        ax.axvline(self.pilot_topics, color="C2", ls=":", label=f"pilot ({self.pilot_topics} topics)")
        ax.set_yticks(y, list(t["question"]), fontsize=8)
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
            warnings.warn(f"plan(curves=True): no data-based τ row: the power law needs at least 3 topic set sizes "
                          f"with τ < 1 to be fitted and bounded, and this pilot of {n} topics gives {usable} "
                          f"(sizes {list(c.table['n'])}, observed τ {[round(v, 3) for v in c.table['tau']]}); "
                          "a pilot of at least 14 topics (3 default sizes) with τ < 1 at them gives the row.",
                          UserWarning, stacklevel=2)
        else:
            rows.append(dict(method="data-tau",
                             question=f"data: τ between disjoint topic sets ≥ {tau:g} (extrapolated)",
                             topics=c.topics_for_tau(tau), low=low, high=high, at_pilot=float(c.extrapolate(n))))
    table = pd.DataFrame(rows, columns=_COLUMNS)
    for c in _FLOATS:
        table[c] = table[c].astype(float)
    return TopicPlan(table, m, n, float(min_diff), float(target), float(tau), float(alpha), float(power),
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
