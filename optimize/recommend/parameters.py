r"""Tune the parameters of any parameterised metric for stability: RBP's p, Q's β, the nDCG cut-off.

:func:`tune_parameters` maximises Φ(1) (or Eρ²(1)) of a metric's systems × topics matrix over up to
three parameters :math:`\theta` in bounds,

.. math::

    \hat\theta = \arg\max_{\theta \in \Theta} \frac{\hat\sigma^2_s(\theta)}
    {\hat\sigma^2_s(\theta) + \hat\sigma^2_t(\theta) + \hat\sigma^2_{st}(\theta)},

the criterion of Kanoulas & Aslam (2009, §2.3) applied to any metric. The metric is a template of
:func:`metrics.evaluate` (``"RBP(p={p})"``, ``"Q(beta={beta})"``, ``"nDCG@{k}"``) or a callable
``(judged, theta) -> systems × topics DataFrame``. Search (derivative-free): a grid (every integer
of an integer parameter when there are at most :data:`MAX_INTEGERS`), then a bounded local search
from the best grid point — Brent for one continuous parameter, Nelder–Mead with bounds for more —
over the continuous parameters. Every evaluated matrix is cached.

Out of sample (nested, as :func:`optimize.recommend`): ``n_splits`` random halvings of the topics;
on each the grid optimum of the fitting half (to the grid's resolution) and the ``default``
parameters are scored by Φ(1) on the held-out half, and 4 inner halvings of the fitting half choose
between them by the one-standard-error rule. The tuned parameters are adopted only when they win on
at least 80 % of the splits and on average, and the selection procedure does not lose on average;
intervals by the corrected resampled t of Nadeau & Bengio (2003).

References
----------
.. [1] E. Kanoulas and J. A. Aslam (2009). Empirical justification of the gain and discount function for nDCG. CIKM 2009.
.. [2] C. Nadeau and Y. Bengio (2003). Inference for the generalization error. Machine Learning 52.
"""
from __future__ import annotations

import itertools
import math
import os
import string
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd
from scipy.optimize import minimize, minimize_scalar

import metrics
from metrics import JudgedRuns
from gtheory.kit.checks import seed_sequence


from gtheory.kit.display import signed
from gtheory.kit.jsonio import JsonResult, jsonable, read_json
from gtheory import TopicsNeeded
from gtheory.gstudy import Coefficients
from gtheory.kit.splits import topic_splits

from ..solvers import coefficients, topics_needed
from .nested import _progress, corrected_interval
from gtheory.kit.params import integer, validate_params

__all__ = ["tune_parameters", "ParameterTuning", "MAX_INTEGERS"]

#: an integer parameter with at most this many values is searched exhaustively
MAX_INTEGERS = 200
FORMAT = "gtheory.optimize.ParameterTuning/1"

Measure = str | Callable[[JudgedRuns, dict[str, float]], pd.DataFrame]


@dataclass(frozen=True, eq=False)
class ParameterTuning(Coefficients, JsonResult):
    r"""The stability-optimal parameters of a metric (:func:`tune_parameters`).

    Attributes
    ----------
    measure : the template (or the callable's name); ``measure_at`` the tuned metric's name.
    params : the tuned parameters; ``default`` the reference parameters of the out-of-sample check.
    phi_1, erho2_1 : Φ(1) and Eρ²(1) of the tuned metric on all topics (negative variance estimates set to 0);
        :meth:`phi` and :meth:`erho2` give the coefficients at any number of topics (default ``n_topics``) and
        :meth:`topics_needed` the topics for a target, as on :class:`gtheory.GStudy` and :class:`optimize.Tuning`
        (from the single-topic ratio :math:`r = c_1/(1-c_1)` of :math:`c_1` = Φ(1) or Eρ²(1):
        :math:`c(n) = nr/(1+nr)`, Brennan 2001 §4.1; point estimates only — the result keeps no mean squares).
    objective, n_systems, n_topics, n_evaluations, seconds.
    verdict : the out-of-sample verdict; ``adopt`` whether the tuned parameters are recommended.
    curve : the evaluated points (one row per parameter setting on all topics: parameters, ``f``).
    outer : per split: ``fitted`` parameters, ``phi_1_tuned``, ``phi_1_default``, topics needed of both.
    """

    measure: str
    measure_at: str
    params: dict[str, float]
    default: dict[str, float] | None
    objective: str
    phi_1: float
    erho2_1: float
    n_systems: int
    n_topics: int
    n_evaluations: int
    adopt: bool
    verdict: str
    diff: float
    diff_lo: float
    diff_hi: float
    wins: int
    n_splits: int
    curve: pd.DataFrame = field(repr=False)
    outer: pd.DataFrame = field(repr=False)
    seconds: float = 0.0

    @property
    def phi_ratio(self) -> float:
        """σ²(s)/(σ²(t)+σ²(st,e)) of the tuned metric, Φ(1)/(1 − Φ(1)) (``inf`` when Φ(1) = 1)."""
        return _ratio_of(self.phi_1)

    @property
    def erho2_ratio(self) -> float:
        """σ²(s)/σ²(st,e) of the tuned metric, Eρ²(1)/(1 − Eρ²(1))."""
        return _ratio_of(self.erho2_1)

    def _ratio_bounds(self, coefficient: str, level: float) -> tuple[float, float]:
        raise ValueError("a ParameterTuning keeps Φ(1) and Eρ²(1), not the mean squares a confidence interval needs; "
                         "pass `level=None` (or take the G-study of the tuned metric for intervals).")

    def topics_needed(self, target: float = 0.95, coefficient: str = "phi", *,
                      level: float | None = None) -> TopicsNeeded:
        """Topics needed for ``target`` (:meth:`gtheory.GStudy.topics_needed`; a point estimate: ``level`` must be
        None)."""
        return super().topics_needed(target, coefficient, level=level)

    def summary(self) -> str:
        shown = ", ".join(f"{k} = {v:.6g}" for k, v in self.params.items())
        lines = [f"Stability-optimal parameters of {self.measure}: {shown}  ({self.measure_at})",
                 f"  {self.n_systems} systems x {self.n_topics} topics: Φ(1) = {self.phi_1:.4f}, Eρ²(1) = "
                 f"{self.erho2_1:.4f}; Φ({self.n_topics}) = {self.phi():.4f} (in sample; {self.n_evaluations} "
                 "evaluations)",
                 f"  verdict: {self.verdict}"]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return f"ParameterTuning(measure={self.measure!r}, params={self.params!r}, verdict={self.verdict!r})"

    def _repr_html_(self) -> str:
        from gtheory.kit.display import kv_table

        return kv_table(f"ParameterTuning of {self.measure}", {
            "tuned": self.measure_at, "Φ(1) in sample": self.phi_1, f"Φ({self.n_topics})": self.phi(),
            "held-out Δ Φ(1) vs default": self.diff, "95% interval": f"[{signed(self.diff_lo, 4)}, {signed(self.diff_hi, 4)}]",
            "splits won": f"{self.wins}/{self.n_splits}", "verdict": self.verdict})

    def plot(self, ax: Any = None) -> Any:
        """Φ(1) (raw objective) over the evaluated values of the first parameter; the optimum marked."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3))
        name = next(iter(self.params))
        c = self.curve.sort_values(name)
        ax.plot(c[name], c["f"], "o-", ms=3)
        ax.axvline(self.params[name], color="C2", lw=1)
        ax.set_xlabel(name)
        ax.set_ylabel(f"{'Φ' if self.objective == 'phi' else 'Eρ²'}(1)")
        ax.set_title(self.measure_at, fontsize=10)
        return ax

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values plus ``"format"``; ``"phi"``/``"erho2"`` hold :meth:`phi` and :meth:`erho2` at
        ``n_topics`` (recomputed from ``phi_1``/``erho2_1`` when read back); non-finite numbers are None."""
        d = {k: (getattr(self, k)() if k in ("phi", "erho2") else getattr(self, k)) for k in (
            "measure", "measure_at", "params", "default", "objective", "phi_1", "erho2_1", "phi", "erho2",
            "n_systems", "n_topics", "n_evaluations", "adopt", "verdict", "diff", "diff_lo", "diff_hi", "wins",
            "n_splits", "seconds")}
        return jsonable({"format": FORMAT, **d, "curve": self.curve.to_dict(orient="records"),
                           "outer": self.outer.to_dict(orient="records")})

    @classmethod
    def from_json(cls, text_or_path: str | os.PathLike) -> "ParameterTuning":
        d = read_json(text_or_path, "gtheory optimize.ParameterTuning")
        if not isinstance(d, dict) or d.pop("format", None) != FORMAT:
            raise ValueError("not a gtheory optimize.ParameterTuning JSON document (missing 'format').")
        nan = lambda v: math.nan if v is None else v  # noqa: E731
        for k in ("phi", "erho2"):  # Φ, Eρ² at n_topics: phi(), erho2(), from phi_1 / erho2_1
            d.pop(k, None)
        for k in ("phi_1", "erho2_1", "diff", "diff_lo", "diff_hi", "seconds"):
            d[k] = float(nan(d[k]))
        d["curve"] = pd.DataFrame(d["curve"])
        d["outer"] = pd.DataFrame(d["outer"])
        return cls(**d)


def _ratio_of(c: float) -> float:
    """The single-topic ratio r of a coefficient c = r/(1+r): c/(1 − c); 0 for c ≤ 0, ``inf`` for c ≥ 1, NaN for NaN."""
    c = float(c)
    if math.isnan(c):
        return math.nan
    return 0.0 if c <= 0 else (math.inf if c >= 1 else c / (1.0 - c))


def _placeholders(template: str) -> list[str]:
    try:
        names = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    except ValueError as exc:
        raise ValueError(f"cannot read the template {template!r}: {exc}") from None
    bad = [n for n in names if not n.isidentifier()]
    if bad or not names:
        raise ValueError(f"the template {template!r} must name each parameter as {{name}} (e.g. 'RBP(p={{p}})'); "
                         f"got {'no placeholder' if not names else bad}.")
    return names


def _check_bounds(bounds: dict[str, tuple]) -> dict[str, tuple[float, float, bool]]:
    if not isinstance(bounds, dict) or not bounds:
        raise TypeError(f"`bounds` must be a dict {{parameter: (low, high)}}; got {bounds!r}.")
    if len(bounds) > 3:
        raise ValueError(f"`bounds` may name at most 3 parameters (derivative-free search); got {len(bounds)}.")
    out = {}
    for name, b in bounds.items():
        if not (isinstance(b, (tuple, list)) and len(b) == 2
                and all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in b)
                and all(np.isfinite(v) for v in b) and b[0] < b[1]):
            raise ValueError(f"`bounds[{name!r}]` must be (low, high) with finite low < high; got {b!r}.")
        integer = all(isinstance(v, (int, np.integer)) for v in b)
        out[name] = (float(b[0]), float(b[1]), integer)
    return out


def _fmt(v: float, integer: bool) -> str:
    """A parameter as written into the template: an integer, or 6 significant digits."""
    return str(int(round(v))) if integer else format(float(v), ".6g")


@validate_params(n_splits=integer(0, exclude=(1,), rule="0 (no check) or an integer >= 2"))
def tune_parameters(
    judged: JudgedRuns,
    measure: Measure,
    bounds: dict[str, tuple[float, float]],
    *,
    default: dict[str, float] | None = None,
    objective: str = "phi",
    grid: int | None = None,
    n_splits: int = 10,
    target: float = 0.95,
    seed: int | np.random.Generator | None = 0,
    progress: bool | str | Callable[[str], Any] = "auto",
) -> ParameterTuning:
    r"""Stability-optimal parameters of a parameterised metric (module docstring).

    Parameters
    ----------
    judged : metrics.JudgedRuns
    measure : a :func:`metrics.evaluate` name with ``{parameter}`` placeholders, e.g. ``"RBP(p={p})"``,
        ``"Q(beta={beta})"``, ``"nDCG@{k}"``; or a callable ``(judged, theta) -> DataFrame`` (systems × topics).
    bounds : ``{parameter: (low, high)}`` for every placeholder (at most 3). Integer bounds (``(1, 100)``)
        make an integer parameter.
    default : reference parameters for the out-of-sample verdict (default: the middle of each range).
    objective : ``"phi"`` or ``"erho2"``.
    grid : grid points per continuous parameter (default 10 for one parameter, 6 for two, 4 for three).
    n_splits : random topic halvings of the out-of-sample check (0 skips it).
    target : Φ target of the topics-needed figures.
    seed : seed of the splits.
    progress : ``"auto"`` (default): a progress bar of the grid evaluations on stderr (after 2 s) when stderr is a
        terminal (not into pipes or log files); ``True`` shows it anyway, ``False`` never; a callable instead receives a
        message per grid point.

    Returns
    -------
    ParameterTuning

    Raises
    ------
    ValueError
        A placeholder without bounds or bounds without a placeholder, a template :func:`metrics.parse_measure`
        refuses (e.g. a parameter the measure does not take), bad bounds or options.

    Examples
    --------
    >>> import metrics, optimize
    >>> t = optimize.tune_parameters(metrics.load_trec9(), "RBP(p={p})@100", {"p": (0.5, 0.95)}, n_splits=0)
    >>> 0.5 <= t.params["p"] <= 0.95
    True
    """
    t0 = time.perf_counter()
    if not isinstance(judged, JudgedRuns):
        raise TypeError(f"`judged` must be a metrics.JudgedRuns; got {type(judged).__name__}.")
    spec = _check_bounds(bounds)  # objective, seed, target and n_splits: the parameter table (gtheory.kit.params)
    names = list(spec)
    if isinstance(measure, str):
        holes = _placeholders(measure)
        unknown = sorted(set(holes) - set(spec))
        unused = sorted(set(spec) - set(holes))
        if unknown:
            raise ValueError(f"the template {measure!r} has parameter(s) {unknown} that `bounds` does not give "
                             f"(bounds: {sorted(spec)}).")
        if unused:
            raise ValueError(f"`bounds` names parameter(s) {unused} that the template {measure!r} does not use.")
        mid = {n: _fmt((lo + hi) / 2, integer) for n, (lo, hi, integer) in spec.items()}
        try:
            metrics.parse_measure(measure.format(**mid))
        except ValueError as exc:
            raise ValueError(f"the template {measure!r} does not give a measure metrics.evaluate knows: {exc}") from None
        label = measure

        def evaluate(theta: dict[str, float]) -> pd.DataFrame:
            return metrics.evaluate(judged, measure.format(**{n: _fmt(v, spec[n][2]) for n, v in theta.items()}))

        def name_of(theta: dict[str, float]) -> str:
            return measure.format(**{n: _fmt(v, spec[n][2]) for n, v in theta.items()})
    elif callable(measure):
        label = getattr(measure, "__name__", "measure")
        evaluate = lambda theta: measure(judged, dict(theta))  # noqa: E731

        def name_of(theta: dict[str, float]) -> str:
            return f"{label}(" + ", ".join(f"{n}={_fmt(v, spec[n][2])}" for n, v in theta.items()) + ")"
    else:
        raise TypeError(f"`measure` must be a template string or a callable; got {type(measure).__name__}.")
    default = dict(default) if default is not None else {
        n: (round((lo + hi) / 2) if integer else (lo + hi) / 2) for n, (lo, hi, integer) in spec.items()}
    if set(default) != set(spec):
        raise ValueError(f"`default` must give every parameter of `bounds` ({sorted(spec)}); got {sorted(default)}.")

    cache: dict[tuple, np.ndarray] = {}

    def matrix(theta: tuple) -> np.ndarray:
        key = tuple(round(v) if spec[n][2] else float(_fmt(v, False)) for n, v in zip(names, theta))
        if key not in cache:
            X = evaluate(dict(zip(names, key)))
            X = np.asarray(X, dtype=np.float64)
            if X.shape != (judged.n_systems, judged.n_topics) or not np.all(np.isfinite(X)):
                raise ValueError(f"{name_of(dict(zip(names, key)))} must give a finite {judged.n_systems} x "
                                 f"{judged.n_topics} systems x topics matrix; got shape {X.shape}.")
            cache[key] = X
        return cache[key]

    def f_of(theta: tuple, topics=None) -> float:
        X = matrix(theta)
        v = coefficients(X if topics is None else X[:, topics], objective)["f"]
        return float(v) if np.isfinite(v) else -np.inf

    n_cont = sum(1 for v in spec.values() if not v[2])
    per = grid or {1: 10, 2: 6, 3: 4}[len(spec)]
    axes = []
    for lo, hi, integer in spec.values():
        if integer:
            ints = np.arange(int(lo), int(hi) + 1)
            axes.append(ints if ints.size <= MAX_INTEGERS else np.unique(np.round(np.geomspace(max(lo, 1), hi, 60))))
        else:
            axes.append(np.linspace(lo, hi, per))
    points = list(itertools.product(*axes))
    bar = _progress(progress, len(points), "tune_parameters: grid")
    try:
        for p in points:
            matrix(p)
            bar.update(1)
    finally:
        bar.close()
    grid_keys = list(cache)

    def grid_best(topics) -> tuple:
        return max(grid_keys, key=lambda k: f_of(k, topics))

    best = grid_best(None)
    if n_cont:  # local refinement of the continuous parameters, integers fixed at the grid optimum
        cont = [i for i, n in enumerate(names) if not spec[n][2]]
        steps = {i: (spec[names[i]][1] - spec[names[i]][0]) / (per - 1) for i in cont}

        def with_(u) -> tuple:
            t = list(best)
            for i, v in zip(cont, u):
                t[i] = float(np.clip(v, spec[names[i]][0], spec[names[i]][1]))
            return tuple(t)

        if len(cont) == 1:
            i = cont[0]
            lo, hi = max(best[i] - steps[i], spec[names[i]][0]), min(best[i] + steps[i], spec[names[i]][1])
            res = minimize_scalar(lambda v: -f_of(with_([v])), bounds=(lo, hi), method="bounded",
                                  options={"xatol": 1e-4 * (spec[names[i]][1] - spec[names[i]][0])})
            cand = with_([res.x])
        else:
            b = [(max(best[i] - steps[i], spec[names[i]][0]), min(best[i] + steps[i], spec[names[i]][1])) for i in cont]
            res = minimize(lambda u: -f_of(with_(u)), [best[i] for i in cont], method="Nelder-Mead", bounds=b,
                           options={"xatol": 1e-4, "fatol": 1e-9, "maxfev": 200})
            cand = with_(res.x)
        if f_of(cand) > f_of(best):
            best = cand
    theta = {n: (int(round(v)) if spec[n][2] else float(_fmt(v, False))) for n, v in zip(names, best)}
    X = matrix(best)
    co = coefficients(X, objective)
    T = judged.n_topics
    curve = pd.DataFrame([{**dict(zip(names, k)), "f": f_of(k)} for k in cache])
    outer, verdict, adopt, dm, dlo, dhi, wins = _check_out_of_sample(
        judged, grid_keys, f_of, matrix, tuple(default[n] for n in names), n_splits, seed, target, name_of, names,
        theta, label)
    return ParameterTuning(
        measure=label, measure_at=name_of(theta), params=theta, default=default, objective=objective,
        phi_1=float(co["phi_1"]), erho2_1=float(co["erho2_1"]), n_systems=judged.n_systems, n_topics=T, n_evaluations=len(cache),
        adopt=adopt, verdict=verdict, diff=dm, diff_lo=dlo, diff_hi=dhi, wins=wins, n_splits=n_splits,
        curve=curve, outer=outer, seconds=time.perf_counter() - t0)


def _check_out_of_sample(judged, grid_keys, f_of, matrix, default, n_splits, seed, target, name_of, names, theta,
                         label, n_inner: int = 4):
    """Nested check: per outer split, the grid optimum of the fitting half vs ``default`` on the held-out
    half, and the inner one-standard-error choice between them (:func:`optimize.recommend`'s rule)."""
    cols = ["split", "fitted", "phi_1_tuned", "phi_1_default", "topics_tuned", "topics_default", "selected"]
    if n_splits == 0:
        return pd.DataFrame(columns=cols), "not checked out of sample (n_splits=0)", False, math.nan, math.nan, \
            math.nan, 0
    T = judged.n_topics
    rows = []
    Xd = matrix(default)
    rng = np.random.default_rng(seed)  # the splits of gtheory.kit.topic_splits: outer first, then each inner set
    outer_splits = topic_splits(T, n_splits=n_splits, seed=rng)
    n_fit = len(outer_splits[0][0])

    def pair(fit_idx, test_idx) -> tuple[tuple, np.ndarray]:
        k = max(grid_keys, key=lambda key: f_of(key, fit_idx))
        co = coefficients(np.stack([matrix(k)[:, test_idx], Xd[:, test_idx]]))
        return k, co

    for b, (A, B) in enumerate(outer_splits):
        inner = np.empty((2, n_inner))
        inner_splits = topic_splits(len(A), n_splits=n_inner, seed=rng)
        m_fit = len(inner_splits[0][0])
        for i, (a, c) in enumerate(inner_splits):
            inner[:, i] = pair(A[a], A[c])[1]["phi_1"]
        d = inner[0] - inner[1]
        se = math.sqrt((1 / n_inner + (len(A) - m_fit) / m_fit) * float(d.var(ddof=1)))
        selected = "tuned" if d.mean() > se else "default"  # one-SE rule: the default unless clearly beaten
        k, co = pair(A, B)
        rows.append({"split": b, "fitted": name_of(dict(zip(names, k))), "phi_1_tuned": float(co["phi_1"][0]),
                     "phi_1_default": float(co["phi_1"][1]), "topics_tuned": topics_needed(float(co["r"][0]), target),
                     "topics_default": topics_needed(float(co["r"][1]), target), "selected": selected})
    outer = pd.DataFrame(rows, columns=cols)
    d = (outer["phi_1_tuned"] - outer["phi_1_default"]).to_numpy()
    m, lo, hi = corrected_interval(d, T - n_fit, n_fit)
    proc = np.where(outer["selected"] == "tuned", d, 0.0)
    wins = int((d > 0).sum())
    need = math.ceil(0.8 * n_splits - 1e-9)
    adopt = wins >= need and m > 0 and proc.mean() >= 0
    ref = name_of(dict(zip(names, default)))
    if adopt:
        verdict = (f"adopt tuned {name_of(theta)}: held-out Φ(1) {signed(m, 3)} [{signed(lo, 3)}, {signed(hi, 3)}] vs {ref}, better "
                   f"on {wins}/{n_splits} splits")
    else:
        why = (f"adoption needs {need}/{n_splits} splits won" if wins < need or m <= 0 else
               f"the selection procedure itself loses {abs(proc.mean()):.4f} held-out Φ(1)")
        verdict = (f"keep {ref}: tuning does not generalise here ({signed(m, 3)} [{signed(lo, 3)}, {signed(hi, 3)}] held-out Φ(1), "
                   f"better on {wins}/{n_splits} splits; {why})")
    return outer, verdict, adopt, m, lo, hi, wins
