r"""Data-based topic set curves on the user's own data (:func:`topic_curves`).

For each topic set size ``n`` (at most half the collection's topics), ``repeats`` times: draw two *disjoint* random
topic sets of size ``n`` and compare what they say about the same systems (Voorhees & Buckley, SIGIR 2002; Sakai,
SIGIR 2006; Urbano, Marrero & Martín, SIGIR 2013):

* ``tau`` — Kendall's τ-b between the two rankings of the systems by mean score;
* ``swap`` — the share of system pairs ordered oppositely by the two sets;
* ``significant`` — the share of system pairs a two-sided paired t-test at ``alpha`` finds different in a set;
* ``minor`` — the share of pairs significant in one set and not in the other; ``major`` — significant in both, in
  opposite directions (Urbano et al.'s minor and major conflicts).

Beside them, the projections of the theory from the whole matrix: ``gt_tau``, ``gt_power``, ``gt_minor``,
``gt_major`` — Urbano et al.'s fitted mappings (:func:`gtheory.gt2tau` …) of the G-study's Eρ²(n) — so a user sees
whether theory and data agree. (The conflict rates here are shares of all system pairs; Urbano et al.'s may be
normalised differently, so compare ``minor``/``major`` with ``gt_minor``/``gt_major`` for their trend rather than
their level.) :meth:`TopicCurves.extrapolate` continues the observed τ past the collection's size
with the power law :math:`1-\tau(n) = c\,n^{-b}` fitted by least squares on logarithms (an empirical
extrapolation, as Voorhees & Buckley extrapolated their error rates).

:meth:`TopicCurves.topics_for_tau` inverts that fit, and :meth:`TopicCurves.topics_for_tau_interval` gives its
confidence interval from the same fit: the fitted line :math:`y = a + \beta x` (:math:`y = \log(1-\tau)`,
:math:`x = \log n`, :math:`k` sizes) crosses :math:`y^* = \log(1-\tau^*)` at :math:`\hat x_0 = (y^*-a)/\beta`, and the
interval is the set of :math:`x` where the line's pointwise confidence band still contains :math:`y^*`,

.. math:: (a + \beta x - y^*)^2 \le t^2_{k-2}\, s^2 \left(\tfrac1k + \tfrac{(x-\bar x)^2}{S_{xx}}\right),

Fieller's interval for a ratio, the inverse-regression ("calibration") interval of Draper & Smith, *Applied
Regression Analysis* (3rd ed. 1998), §3.2. With :math:`g = t^2 s^2 / (\beta^2 S_{xx})` it is
:math:`\hat x_0 + [(\hat x_0-\bar x)\,g \mp (t s/|\beta|)\sqrt{(\hat x_0-\bar x)^2/S_{xx} + (1-g)/k}\,]/(1-g)` when
:math:`g < 1` (the slope differs from 0 at the level) and unbounded otherwise. Since the band contains the line, the
interval contains :math:`\hat x_0`, i.e. the estimate, by construction. The residual variance :math:`s^2` measures
how far the curve departs from the power law; the sizes' means come from overlapping draws of the same topics, so
this is the uncertainty of the extrapolation given the pilot, not of the pilot's topic sample.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from ..kit.display import fmt, html_table
from ..kit.jsonio import TableResult
from ..errors import ParameterError
from ..kit.params import check_param, validate_params

if TYPE_CHECKING:  # pragma: no cover
    from concurrent.futures import Executor

    from matplotlib.axes import Axes

    from ..gstudy import ScoreInput

__all__ = ["TopicCurves", "topic_curves"]

_COLUMNS = ["n", "tau", "tau_sd", "swap", "significant", "minor", "major", "gt_tau", "gt_power", "gt_minor",
            "gt_major"]


@dataclass(frozen=True, eq=False)
class TopicCurves(TableResult):
    """Agreement between disjoint random topic sets as their size grows (:func:`topic_curves`).

    Attributes
    ----------
    table : DataFrame
        One row per size ``n``: the observed means over the repeats (``tau``, its standard deviation ``tau_sd``,
        ``swap``, ``significant``, ``minor``, ``major``) and the G-theory projections (``gt_*``).
    n_systems, n_topics : int
        The matrix's shape.
    repeats : int
        Pairs of disjoint topic sets drawn per size.
    alpha : float
        Level of the paired t-tests.
    seed : int or None
        The seed of the draws.
    fit_c, fit_b : float
        The power law ``1 - tau(n) = fit_c * n ** -fit_b`` fitted to the observed τ.
    """

    table: pd.DataFrame
    n_systems: int
    n_topics: int
    repeats: int
    alpha: float
    seed: int | None
    fit_c: float
    fit_b: float

    JSON_FORMAT: ClassVar[str] = "gtheory.TopicCurves/1"
    #: the declared schema of the document (:mod:`gtheory.kit.schema`), checked by :meth:`from_json`
    JSON_SCHEMA: ClassVar[dict] = {}

    def extrapolate(self, n: ArrayLike) -> float | NDArray[np.float64]:
        """τ at ``n`` topics by the fitted power law (an empirical extrapolation, also past the collection's size),
        kept within [−1, 1], where Kendall's τ lies: a fit whose τ falls with ``n`` (``fit_b < 0``) would otherwise
        run below −1 (−1301 at 10⁶ topics), and such a value is reported as −1, the fit's limit in τ's range."""
        a = np.asarray(n, dtype=np.float64)
        if a.size == 0 or not np.all(np.isfinite(a)) or np.any(a <= 0):
            raise ParameterError("n", f"`n` (topics) must be positive finite numbers; got {n!r}.")
        with np.errstate(over="ignore"):
            tau = np.clip(1.0 - self.fit_c * a ** (-self.fit_b), -1.0, 1.0)
        return float(tau) if a.ndim == 0 else tau

    def topics_for_tau(self, tau: float = 0.9) -> float:
        r"""Topics at which the extrapolated τ reaches ``tau``: :math:`\lceil (c/(1-\tau))^{1/b} \rceil` of the fit
        :math:`1-\tau(n) = c\,n^{-b}` (inf when the fit never does, i.e. :math:`b \le 0`)."""
        return _ceil(self._n_for_tau(tau))

    def _n_for_tau(self, tau: float) -> float:
        tau = check_param("tau", tau)
        if not (self.fit_b > 0 and self.fit_c > 0):
            return math.inf
        try:
            return float((self.fit_c / (1.0 - tau)) ** (1.0 / self.fit_b))
        except OverflowError:  # a nearly flat curve: beyond every float
            return math.inf

    def topics_for_tau_interval(self, tau: float = 0.9, level: float = 0.95) -> tuple[float, float]:
        r"""The ``level`` confidence interval ``(low, high)`` of :meth:`topics_for_tau`, from the same fit.

        The inverse-regression (Fieller) interval of the module docstring: the :math:`n` at which the ``level``
        pointwise confidence band of the fitted line :math:`\log(1-\tau) = a + \beta \log n` (Student t with
        :math:`k-2` degrees of freedom, :math:`k` the sizes fitted) contains :math:`\log(1-\tau)`, rounded up as
        :meth:`topics_for_tau` is; so ``low <= topics_for_tau(tau) <= high`` always. When the slope does not differ
        from 0 at ``level`` the set is unbounded: ``(1, inf)``; when it is significantly positive (τ falls with
        :math:`n`, and the estimate is inf) it is ``(inf, inf)``. With fewer than 3 sizes fitted there is no residual
        variance: ``(nan, nan)``.

        The interval is conditional on the pilot: it is the fit's uncertainty given these topics (the curve's points
        are subsamples of the same pilot topics, and are treated as independent), not the variation from drawing
        another pilot collection, which would widen it. Read it as a lower bound on the uncertainty.
        """
        from scipy import stats

        level = check_param("level", level)
        n0 = self._n_for_tau(tau)
        t = self.table
        ok = ((t["tau"] < 1) & np.isfinite(t["tau"])).to_numpy()
        k = int(ok.sum())
        if k < 3 or not math.isfinite(self.fit_b):
            return math.nan, math.nan
        x = np.log(t["n"].to_numpy(np.float64)[ok])
        y = np.log(1.0 - t["tau"].to_numpy(np.float64)[ok])
        beta, a = -self.fit_b, math.log(self.fit_c)  # the fit of topic_curves, on these same rows
        s2 = float(np.sum((y - (a + beta * x)) ** 2)) / (k - 2)
        sxx = float(np.sum((x - x.mean()) ** 2))
        q = float(stats.t.isf((1.0 - level) / 2.0, k - 2))
        g = q * q * s2 / (beta * beta * sxx) if beta != 0 else math.inf
        if not g < 1:  # the slope's own interval contains 0: every n is in the confidence set
            return 1.0, math.inf
        if beta >= 0:  # a slope significantly >= 0: no plausible line reaches tau (and the estimate is inf)
            return math.inf, math.inf
        x0 = math.log(n0) if math.isfinite(n0) else (a - math.log(1.0 - tau)) / -beta  # (y* - a) / beta
        d = x0 - float(x.mean())
        half = q * math.sqrt(s2) / abs(beta) * math.sqrt(d * d / sxx + (1.0 - g) / k)
        # the offsets from x0 have opposite signs (the band contains the line at x0); min/max only absorb rounding
        lo, hi = min((d * g - half) / (1.0 - g), 0.0), max((d * g + half) / (1.0 - g), 0.0)
        if math.isfinite(n0):  # n0 itself times a factor <= 1 (>= 1): rounded up, never above (below) the estimate
            return _ceil(n0 * math.exp(lo)), _ceil(n0 * math.exp(hi) if hi < 700.0 else math.inf)
        return _ceil(math.exp(x0 + lo) if x0 + lo < 700.0 else math.inf), math.inf

    def summary(self) -> str:
        """The table as text, with the fit."""
        head = (f"Disjoint topic sets of {self.n_systems} systems × {self.n_topics} topics, {self.repeats} pairs per "
                f"size (seed {self.seed}); paired t-tests at {self.alpha:g}")
        cols = ["n", "tau", "gt_tau", "swap", "significant", "gt_power", "minor", "gt_minor", "major", "gt_major"]
        lines = [head, "  " + "".join(f"{c:>12}" for c in cols)]
        for r in self.table.itertuples(index=False):
            lines.append("  " + "".join(f"{fmt(getattr(r, c)):>12}" for c in cols))
        lines.append(f"  fit: 1 - τ(n) = {fmt(self.fit_c)} n^-{fmt(self.fit_b)}; τ ≥ 0.9 at "
                     f"{fmt(self.topics_for_tau(0.9))} topics (extrapolated)")
        lines.append("  gt_*: Urbano et al.'s fits (SIGIR 2013) of the whole matrix's Eρ²(n), empirical on TREC data")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        last = self.table.iloc[-1]
        return (f"TopicCurves({self.n_systems} systems, sizes {int(self.table['n'].iloc[0])}–{int(last['n'])}, "
                f"τ({int(last['n'])}) = {fmt(last['tau'])}, {self.repeats} repeats)")

    def _repr_html_(self) -> str:
        cols = ["n", "tau", "gt_tau", "swap", "significant", "gt_power", "minor", "major"]
        return html_table(self.table[cols].itertuples(index=False), header=cols,
                          caption=f"TopicCurves ({self.n_systems} systems × {self.n_topics} topics)")

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain JSON values plus ``"format"``; the table as ``{"columns", "rows"}``."""
        from ..kit.jsonio import fields_document

        return fields_document(self)

    @classmethod
    def from_json(cls, text_or_path: Any) -> "TopicCurves":
        """A :class:`TopicCurves` from :meth:`to_json` output (text or a file path)."""
        from ..kit.jsonio import number
        from ..kit.schema import read_fields_document

        d = read_fields_document(cls, text_or_path, {"table": tuple(_COLUMNS[1:])})
        t = d["table"]
        t["n"] = t["n"].astype(int)
        d["table"] = t
        d["fit_c"], d["fit_b"] = float(number(d["fit_c"])), float(number(d["fit_b"]))
        return cls(**d)


    def plot(self, ax: "Axes | None" = None, *, n_max: int | None = None, title: str | None = None) -> "Axes":
        """Observed τ (± one standard deviation) and swap rate against n, the G-theory projection and the
        extrapolation up to ``n_max`` (default 4 × the collection's topics)."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        t = self.table
        ax.errorbar(t["n"], t["tau"], yerr=t["tau_sd"], fmt="o-", color="C0", capsize=2, label="τ between topic sets")
        ax.plot(t["n"], t["swap"], "s-", color="C3", label="swap rate")
        grid = np.geomspace(t["n"].iloc[0], n_max or 4 * self.n_topics, 100)
        ax.plot(grid, self.extrapolate(grid), "--", color="C0", lw=1, label="τ, power-law extrapolation")
        ax.plot(t["n"], t["gt_tau"], ":", color="C1", label="τ from Eρ² (Urbano et al. fit)")
        ax.axvline(self.n_topics, color="grey", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("topics per set")
        ax.set_ylim(0, 1)
        ax.set_title(title if title is not None else "Agreement between disjoint topic sets", fontsize=10)
        ax.legend(fontsize=8)
        return ax


def _ceil(v: float) -> float:
    return float(math.ceil(v)) if math.isfinite(v) else math.inf


def _default_sizes(n_topics: int) -> list[int]:
    half = n_topics // 2
    return sorted({int(v) for v in np.unique(np.round(np.geomspace(min(5, half), half, 8)))})


def _tau_b(sa: NDArray[np.float64], sb: NDArray[np.float64]) -> NDArray[np.float64]:
    """Kendall's τ-b of each column from the signs of the pairwise differences (P pairs × R repeats)."""
    num = np.sum(sa * sb, axis=0)
    den = np.sqrt(np.sum(sa != 0, axis=0) * np.sum(sb != 0, axis=0))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / den, np.nan)


def _paired_significant(d: NDArray[np.float64], alpha: float) -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
    """Two-sided paired t-tests of per-topic differences ``d`` (..., n): significant at ``alpha``, and the mean."""
    from scipy import special

    n = d.shape[-1]
    mean = d.mean(axis=-1)
    sd = d.std(axis=-1, ddof=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = mean / (sd / math.sqrt(n))
    p = 2.0 * special.stdtr(n - 1, -np.abs(t))
    return np.nan_to_num(p, nan=1.0) < alpha, mean


def _size_repeats(diffs: NDArray[np.float64], a_idx: NDArray[np.intp], b_idx: NDArray[np.intp],
                  alpha: float) -> NDArray[np.float64]:
    """One size's repeats (a task of :func:`topic_curves`): rows (τ, swap, significant, minor, major), one column per
    pair of disjoint topic sets ``a_idx[r]``, ``b_idx[r]``; a pure function of its arguments."""
    repeats = a_idx.shape[0]
    out = np.empty((5, repeats))
    for r in range(repeats):  # per repeat: all system pairs at once
        da, db = diffs[:, a_idx[r]], diffs[:, b_idx[r]]
        sa_sig, ma = _paired_significant(da, alpha)
        sb_sig, mb = _paired_significant(db, alpha)
        sa, sb = np.sign(ma), np.sign(mb)
        out[0, r] = _tau_b(sa[:, None], sb[:, None])[0]
        out[1, r] = np.mean(sa * sb < 0)
        out[2, r] = (sa_sig.mean() + sb_sig.mean()) / 2.0
        out[3, r] = np.mean(sa_sig != sb_sig)
        out[4, r] = np.mean(sa_sig & sb_sig & (sa * sb < 0))
    return out


@validate_params()
def topic_curves(
    scores: "ScoreInput",
    *,
    sizes: Sequence[int] | None = None,
    repeats: int = 50,
    alpha: float = 0.05,
    seed: int | np.random.Generator | None = 0,
    executor: "Executor | None" = None,
) -> TopicCurves:
    r"""τ, swap rate, significant pairs and conflicts between disjoint random topic sets, as their size grows.

    Parameters
    ----------
    scores : score matrix
        Systems × topics (anything :func:`gtheory.gstudy` takes).
    sizes : sequence of int, optional
        Topic set sizes, each at most half the topics (default: 8 sizes from 5 to half, geometric).
    repeats : int
        Pairs of disjoint topic sets drawn per size (default 50).
    alpha : float
        Level of the two-sided paired t-tests (default 0.05).
    seed : int, Generator or None
        Seed of the draws (``numpy.random.default_rng``); the same seed gives the same result. The result records
        an int seed (None for a Generator or None).
    executor : concurrent.futures.Executor, optional
        Run the sizes' repeats on this executor (one task per size; not shut down afterwards), e.g. a
        ``ProcessPoolExecutor`` or a Dask cluster's ``client.get_executor()``, as :func:`experiments.sweep` takes it.
        Every topic set is drawn here before the tasks are built, so the result is the same with and without one.

    Returns
    -------
    TopicCurves
        The table (module docstring), ``extrapolate(n)``, ``topics_for_tau(tau)``, ``plot()``.

    Examples
    --------
    >>> import numpy as np, gtheory
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(0.4, 0.05, (12, 1)) + rng.normal(0, 0.15, (1, 60)) + rng.normal(0, 0.1, (12, 60))
    >>> c = gtheory.topic_curves(X, repeats=20, seed=1)
    >>> bool(c.table["tau"].iloc[-1] > c.table["tau"].iloc[0])
    True
    """
    from ..gstudy import gstudy
    from .gt_mappings import gt2major, gt2minor, gt2power, gt2tau
    from ..gstudy import as_score_matrix
    from ..kit.executors import run_tasks

    x, _, _ = as_score_matrix(scores)
    m, N = x.shape
    if N < 4:
        raise ParameterError("scores", f"topic curves need at least 4 topics (two disjoint sets of 2); got {N}.")
    if isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer)) or repeats < 2:
        raise ParameterError("repeats", f"`repeats` must be an integer >= 2; got {repeats!r}.")
    if sizes is None:
        sizes = _default_sizes(N)
    sizes = sorted({int(s) for s in sizes})
    if not sizes or sizes[0] < 2 or sizes[-1] > N // 2:
        raise ParameterError("sizes", f"`sizes` must be integers in [2, {N // 2}] (half the {N} topics: two disjoint "
                                      f"sets); got {list(sizes)!r}.")
    rng = np.random.default_rng(seed)
    i, j = np.triu_indices(m, 1)
    diffs = x[i] - x[j]  # per-topic differences of every system pair, P × N
    g = gstudy(x)
    tasks = []
    for n in sizes:  # every draw here, in size order: the result does not depend on the executor
        order = np.argsort(rng.random((repeats, N)), axis=1)  # one random permutation of the topics per repeat
        tasks.append((diffs, order[:, :n], order[:, n:2 * n], alpha))
    results = run_tasks(executor, _size_repeats, tasks)
    rows = []
    for n, (taus, swaps, sig, minor, major) in zip(sizes, results):
        e = float(g.erho2(n))
        ok = 0 < e < 1
        rows.append(dict(n=n, tau=float(np.nanmean(taus)), tau_sd=float(np.nanstd(taus, ddof=1)),
                         swap=float(swaps.mean()), significant=float(sig.mean()), minor=float(minor.mean()),
                         major=float(major.mean()), gt_tau=gt2tau(e) if ok else math.nan,
                         gt_power=gt2power(e) if ok else math.nan, gt_minor=gt2minor(e) if ok else math.nan,
                         gt_major=gt2major(e) if ok else math.nan))
    table = pd.DataFrame(rows, columns=_COLUMNS)
    usable = (table["tau"] < 1) & np.isfinite(table["tau"])
    if usable.sum() >= 2:
        b, log_c = np.polyfit(np.log(table.loc[usable, "n"]), np.log(1.0 - table.loc[usable, "tau"]), 1)
        fit_c, fit_b = float(np.exp(log_c)), float(-b)
    else:
        fit_c = fit_b = math.nan
    recorded = int(seed) if isinstance(seed, (int, np.integer)) else None  # a Generator cannot be recorded
    return TopicCurves(table, m, N, int(repeats), alpha, recorded, fit_c, fit_b)


def _curves_schema() -> dict:
    from ..kit.schema import integer, real, table

    number = real(nullable=True, null_as=math.nan)
    share = real(0.0, 1.0, nullable=True, null_as=math.nan)
    cols = {"n": integer(1), "tau": real(-1.0, 1.0, nullable=True, null_as=math.nan),
            "tau_sd": real(0.0, nullable=True, null_as=math.nan), "swap": share, "significant": share,
            "minor": share, "major": share, "gt_tau": number, "gt_power": number, "gt_minor": number,
            "gt_major": number}
    return {"table": table(cols), "n_systems": integer(2), "n_topics": integer(2), "repeats": integer(1),
            "alpha": real(0.0, 1.0, low_open=True, high_open=True), "seed": integer(0, nullable=True),
            "fit_c": number, "fit_b": number}


TopicCurves.JSON_SCHEMA.update(_curves_schema())
