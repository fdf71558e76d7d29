r"""Topic set size design: how many topics a test collection needs for a statistical requirement.

Sakai's topic set size design (Sakai, "Topic set size design", *Information Retrieval Journal* 19, 2016; Sakai,
*Laboratory Experiments in Information Retrieval*, Springer 2018, ch. 6; Sakai, ICTIR 2018 for unpaired data)
answers "how many topics?" with the sample-size methods of Nagata (2003) for

* ``"paired-t"`` — the two-sided paired t-test of two systems should detect a true difference ``min_diff`` with
  probability ``power`` at level ``alpha``;
* ``"two-sample-t"`` — the same for the two-sample (unpaired) t-test, ``n`` topics per system;
* ``"anova"`` — the one-way ANOVA F-test of ``n_systems`` systems should detect, with probability ``power``, any
  configuration whose best and worst systems differ by ``min_diff`` (the least favourable configuration: two
  systems at :math:`\pm D/2` from the grand mean, the others at it, so
  :math:`\sum_i (\mu_i-\bar\mu)^2 = D^2/2`);
* ``"ci"`` — the expected width of the ``1-alpha`` confidence interval of a paired difference should be at most
  ``ci_width``.

The within-system variance :math:`\sigma^2` is estimated from a pilot systems × topics score matrix: the residual
mean square :math:`V_E` of the two-way (systems × topics, no replication) ANOVA (``variance="residual"``, the
book's choice) or the pooled within-system variance :math:`V_W` of the one-way ANOVA (``variance="pooled"``,
IRJ 2016). The variance of a paired difference of two systems is :math:`\sigma_d^2 = 2\sigma^2` (Sakai 2016, §3:
under the additive two-way model the topic effect cancels in a difference, leaving two residuals).

The power of each test and the expected width of the interval at a given number of topics are
:mod:`gtheory.topics.power`'s (:func:`power_at`, :func:`expected_ci_width`, :func:`min_detectable_difference`);
this module searches the smallest number of topics that meets the requirement.

``approximation="exact"`` (default) evaluates these with scipy's noncentral t and F (Boost's; where those return
NaN, the quadrature of :mod:`gtheory.topics.noncentral`, so a power is always a probability) and returns the smallest
``n`` that meets the requirement — the same ``n`` as R's ``power.t.test(type="paired")``, ``power.t.test(
type="two.sample")`` and ``power.anova.test`` rounded up (``tests/test_gtheory_topics_topic_set_size.py`` runs R).
The two-sided power counts both rejection regions (R's ``strict=TRUE``; R's default counts the upper one only,
which differs in the ~α/2·(small) lower tail and never changed ``n`` in the tests).

``approximation="nagata"`` follows Nagata (2003) as Sakai's Excel tools do: a closed-form starting ``n`` (normal
theory with Guenther's correction, :math:`n_0=((z_{\alpha/2}+z_\beta)/\Delta)^2+z_{\alpha/2}^2/2` for the paired
test, :math:`2((z_{\alpha/2}+z_\beta)/\Delta)^2+z_{\alpha/2}^2/4` per group for the two-sample test,
:math:`\lambda(m-1;\alpha,\beta)/\Delta` for ANOVA with :math:`\Delta = D^2/(2\sigma^2)`, and
:math:`4z_{\alpha/2}^2\sigma_d^2/\delta^2` for the CI), then ``n`` is increased until the power — by the normal
approximations of the noncentral t (Johnson & Welch) and noncentral F (Severo & Zelen / Laubscher) that Nagata
uses — or the expected width meets the requirement, and decreased while ``n - 1`` still meets it (the start can
overshoot), so ``n`` is the smallest size that meets the requirement under these approximations. For ANOVA,
:math:`\lambda` is Nagata's approximation :math:`\lambda \approx x_1 + x_2\sqrt{\phi_A}` with the coefficients
of Sakai (2018), Table 6.4 (:data:`NAGATA_LAMBDA_TABLE`; α = .01, .05 × β = .1 … .5), as Sakai's ANOVA sheet
uses it; elsewhere the exact noncentral χ² value. (Checked against the exact computation, within 2 topics in the
tests, and Table 6.4 against the exact noncentral χ²; no published table of *sizes* was at hand to check digit for
digit.)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from ..kit.display import fmt, kv_table
from ..kit.jsonio import JsonResult
from ..errors import ParameterError
from ..kit.params import check_param, choice, real, validate_params

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

    from ..gstudy import ScoreInput

from .power import (_METHOD, Method, _check_positive, _check_systems, _exact_power, _nagata_power, expected_ci_width,
                    min_detectable_difference, power_at)

__all__ = ["TopicSetSize", "topic_set_size", "within_system_variance"]

#: Nagata's (2003) approximation of the noncentrality λ of the χ² test with φ_A degrees of freedom at level α and
#: type II error β, :math:`\lambda \approx x_1 + x_2\sqrt{\phi_A}`: ``{(α, β): (x1, x2)}`` as tabulated in
#: T. Sakai, *Laboratory Experiments in Information Retrieval* (Springer 2018), Table 6.4, for the ANOVA-based
#: topic set size design. Within 1 % of the exact value from φ_A = 4, 8 % at φ_A = 1 (tested).
NAGATA_LAMBDA_TABLE: dict[tuple[float, float], tuple[float, float]] = {
    (0.01, 0.1): (10.439, 5.213), (0.01, 0.2): (7.736, 4.551), (0.01, 0.3): (6.030, 4.077),
    (0.01, 0.4): (4.733, 3.675), (0.01, 0.5): (3.653, 3.302),
    (0.05, 0.1): (7.049, 4.244), (0.05, 0.2): (4.860, 3.584), (0.05, 0.3): (3.522, 3.112),
    (0.05, 0.4): (2.543, 2.712), (0.05, 0.5): (1.765, 2.341),
}
_VARIANCES = ("residual", "pooled")
#: no design considers more topics than this (a requirement not met by then is reported as never met)
MAX_TOPICS = 10**9
_TITLES = {"paired-t": "paired t-test", "two-sample-t": "two-sample t-test", "anova": "one-way ANOVA",
           "ci": "confidence-interval width"}


_VARIANCE = choice(*_VARIANCES)


# --------------------------------------------------------------------------------------------------- variance
def within_system_variance(scores: "ScoreInput", variance: str = "residual") -> tuple[float, int, int]:
    r"""The within-system variance :math:`\hat\sigma^2` of a systems × topics score matrix, and its shape.

    ``"residual"``: :math:`V_E=\sum_{ij}(x_{ij}-\bar x_{i\cdot}-\bar x_{\cdot j}+\bar x)^2/((m-1)(n-1))`, the
    residual mean square of the two-way ANOVA without replication (Sakai 2018, ch. 6). ``"pooled"``:
    :math:`V_W=\sum_{ij}(x_{ij}-\bar x_{i\cdot})^2/(m(n-1))`, the within-groups mean square of the one-way ANOVA
    (Sakai 2016, IRJ). Returns ``(variance, m systems, n topics)``. Computed from deviations (the grand mean
    subtracted first); an estimate within rounding of 0 (at most :data:`gtheory.errors.ROUNDING_TOLERANCE` of the
    scores' variance, e.g. 4.6e-33 for additive scores) is returned as 0, which :func:`topic_set_size` refuses.
    """
    from ..errors import is_rounding_noise
    from ..gstudy import as_score_matrix

    check_param("variance", variance, _VARIANCE)
    x, _, _ = as_score_matrix(scores)
    m, n = x.shape
    centred = x - x.mean()  # deviations first: a constant added to every score changes nothing
    centred -= centred.mean()
    within = centred - centred.mean(axis=1, keepdims=True)
    if variance == "pooled":
        v = float(np.sum(within**2) / (m * (n - 1)))
    else:
        resid = within - within.mean(axis=0, keepdims=True)
        v = float(np.sum(resid**2) / ((m - 1) * (n - 1)))
    # an estimate within rounding of 0 (relative to the scores' variance) is 0: a constant or additive pilot
    if is_rounding_noise(v, float(np.mean(centred**2))):
        v = 0.0
    return v, m, n


def _no_variance_message(variance: str) -> str:
    if variance == "pooled":
        return ("the pilot scores have no within-system variance V_W = 0 (every system scores the same on every "
                "topic); a test would detect any difference with 2 topics, so no topic set size can be designed "
                "from this pilot: check the scores.")
    return ("the pilot scores have no residual variance: V_E = 0 to rounding (the scores are additive, a system "
            "effect plus a topic effect with no system × topic interaction, e.g. every system the same pattern "
            "shifted, or a constant matrix); a paired difference would then have variance 0 and be detected with "
            "2 topics, so no topic set size can be designed from this pilot: check the scores, or give "
            "`variance='pooled'` or σ² itself.")


# ------------------------------------------------------------------------------------------------ search for n
def _meets(method: str, n: NDArray[np.float64], *, d: float | None, width: float | None, var: float, alpha: float,
           target: float | None, m: int | None, approximation: str) -> NDArray[np.bool_]:
    if method == "ci":
        assert width is not None
        return np.asarray(expected_ci_width(n, variance=var, alpha=alpha)) <= width
    fn = _exact_power if approximation == "exact" else _nagata_power
    return fn(method, n, d, var, alpha, m) >= target


def _smallest(meets: Any, start: int = 2, guess: float | None = None) -> int | float:
    """The smallest integer n >= start with meets(n) (meets is monotone: once met, met for all larger n).

    With ``guess`` (a closed-form approximation of the answer), one vectorised evaluation of a window around it
    settles it when the answer is inside; otherwise (and without a guess) doubling, then bisection; inf beyond
    :data:`MAX_TOPICS`."""
    if guess is not None and math.isfinite(guess) and guess < MAX_TOPICS:
        lo_w = max(start, int(guess) - 16)
        window = np.arange(lo_w, lo_w + 48, dtype=np.float64)
        ok = np.asarray(meets(window), dtype=bool)
        if ok[-1] and (lo_w == start or not ok[0]):
            return int(window[np.argmax(ok)])
    if meets(np.float64(start)):
        return start
    lo, hi = start, 2 * start
    while not meets(np.float64(hi)):
        lo, hi = hi, 2 * hi
        if hi > MAX_TOPICS:
            return math.inf
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if meets(np.float64(mid)) else (mid, hi)
    return hi


def _chi2_lambda(phi_a: int, alpha: float, beta: float) -> float:
    """The exact λ: the noncentrality at which the χ² test with ``phi_a`` df at level ``alpha`` has power 1 − β."""
    from scipy import special

    crit = special.chdtri(phi_a, alpha)  # the χ² critical value; chndtrinc inverts the noncentral χ² cdf in λ
    return float(special.chndtrinc(crit, phi_a, beta))


def _nagata_lambda(phi_a: int, alpha: float, beta: float) -> float:
    """λ of Sakai's ANOVA sheet: :data:`NAGATA_LAMBDA_TABLE`'s :math:`x_1 + x_2\\sqrt{\\phi_A}` where (α, β) is
    tabulated, else the exact value."""
    for (a, b), (x1, x2) in NAGATA_LAMBDA_TABLE.items():
        if math.isclose(alpha, a, abs_tol=1e-12) and math.isclose(beta, b, abs_tol=1e-12):
            return x1 + x2 * math.sqrt(phi_a)
    return _chi2_lambda(phi_a, alpha, beta)


def _nagata_start(method: str, *, d: float | None, width: float | None, var: float, alpha: float,
                  target: float | None, m: int | None, tabulated: bool = False) -> float:
    """Nagata's closed-form first ``n`` (module docstring), before the check and the steps; ``tabulated``: ANOVA's
    λ from :data:`NAGATA_LAMBDA_TABLE` (Nagata mode), else the exact λ (the exact mode's first guess)."""
    from scipy.special import ndtri  # norm.isf(q) = -ndtri(q), without importing scipy.stats

    za = -ndtri(alpha / 2.0)
    if method == "ci":
        assert width is not None
        return 4.0 * za**2 * 2.0 * var / width / width  # not width**2: a float's ** raises on overflow
    assert d is not None and target is not None
    zb = -ndtri(1.0 - target)
    if method == "paired-t":
        delta = d / math.sqrt(2.0 * var)
        return ((za + zb) / delta) ** 2 + za**2 / 2.0
    if method == "two-sample-t":
        delta = d / math.sqrt(var)
        return 2.0 * ((za + zb) / delta) ** 2 + za**2 / 4.0
    assert m is not None  # λ of the noncentral χ² with m-1 df reaching the power at level α (φ_E = ∞)
    lam = (_nagata_lambda if tabulated else _chi2_lambda)(m - 1, alpha, 1.0 - target)
    return lam * (2.0 * var) / d / d  # not d**2 (OverflowError for min_diff > 1e154)


def _nagata_n(method: str, **kw: Any) -> int | float:
    """Nagata's start (ANOVA: with Sakai's tabulated λ), then the smallest ``n >= 2`` that meets the requirement
    under Nagata's approximations: the window around the start that Sakai's tools step through (up until met, down
    while ``n - 1`` still meets it), else doubling and bisection, as :func:`_smallest` — a bounded search (about 60
    evaluations at most), inf past :data:`MAX_TOPICS` as in the exact mode."""
    meets = kw.pop("meets")
    return _smallest(meets, guess=_nagata_start(method, tabulated=True, **kw))


# ------------------------------------------------------------------------------------------------------ result
@dataclass(frozen=True)
class TopicSetSize(JsonResult):
    r"""How many topics a statistical requirement needs (:func:`topic_set_size`).

    Attributes
    ----------
    method : {"paired-t", "two-sample-t", "anova", "ci"}
    approximation : {"exact", "nagata"}
    n : int or float
        Topics needed (per system for ``"two-sample-t"``); ``math.inf`` if no number of topics meets it.
    variance : float
        The within-system variance :math:`\hat\sigma^2` used.
    variance_method : {"residual", "pooled", "given"}
        How it was estimated (``"given"``: passed as a number).
    alpha, power, min_diff, ci_width, n_systems
        The requirement (``power``/``min_diff`` None for ``"ci"``, ``ci_width`` None otherwise, ``n_systems`` the
        ANOVA's m).
    pilot_systems, pilot_topics : int or None
        Shape of the pilot score matrix (None when the variance was given).
    achieved : float or None
        At the pilot's number of topics: the power to detect ``min_diff`` (the post-hoc power of Sakai, SIGIR
        2016), or the expected CI width for ``"ci"``.
    detectable : float or None
        At the pilot's number of topics: the minimum difference detected with ``power`` (or the expected CI
        width for ``"ci"``).
    curve_n, curve : ndarray
        The power (or expected CI width) at each number of topics of ``curve_n``.
    """

    method: str
    approximation: str
    n: int | float
    variance: float
    variance_method: str
    alpha: float
    power: float | None
    min_diff: float | None
    ci_width: float | None
    n_systems: int | None
    pilot_systems: int | None
    pilot_topics: int | None
    achieved: float | None
    detectable: float | None
    curve_n: NDArray[np.float64]
    curve: NDArray[np.float64]

    #: the ``"format"`` of :meth:`to_dict`
    JSON_FORMAT: ClassVar[str] = "gtheory.TopicSetSize/1"
    #: the declared schema of the document (:mod:`gtheory.kit.schema`), checked by :meth:`from_json`
    JSON_SCHEMA: ClassVar[dict] = {}

    @property
    def requirement(self) -> str:
        """The requirement in words."""
        if self.method == "ci":
            return f"expected {1 - self.alpha:.0%} CI width of a paired difference <= {self.ci_width:g}"
        who = f"{self.n_systems} systems, best - worst" if self.method == "anova" else "difference"
        return f"{_TITLES[self.method]}: power {self.power:g} at alpha {self.alpha:g} for {who} >= {self.min_diff:g}"

    def __str__(self) -> str:
        n = "∞" if math.isinf(self.n) else str(int(self.n))
        per = " per system" if self.method == "two-sample-t" else ""
        return f"{n} topics{per} ({self.requirement}; σ² = {fmt(self.variance)}, {self.approximation})"

    def __repr__(self) -> str:
        return f"TopicSetSize({self})"

    def summary(self) -> str:
        """The requirement, the topics needed, and what the pilot's own number of topics achieves."""
        lines = [f"Topic set size design ({_TITLES[self.method]}, {self.approximation})",
                 f"  requirement     {self.requirement}",
                 f"  variance        σ² = {fmt(self.variance)} ({self.variance_method})",
                 f"  topics needed   {'∞' if math.isinf(self.n) else int(self.n)}"
                 + (" per system" if self.method == "two-sample-t" else "")]
        if self.pilot_topics is not None:
            if self.method == "ci":
                lines.append(f"  with the pilot's {self.pilot_topics} topics: expected CI width {fmt(self.achieved)}")
            else:
                lines.append(f"  with the pilot's {self.pilot_topics} topics: power {fmt(self.achieved)}, "
                             f"minimum detectable difference {fmt(self.detectable)}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        items: dict[str, Any] = {"method": _TITLES[self.method], "approximation": self.approximation,
                                 "requirement": self.requirement, "variance σ²": self.variance,
                                 "topics needed": self.n}
        if self.pilot_topics is not None:
            items[f"achieved at {self.pilot_topics} topics"] = self.achieved
            if self.method != "ci":
                items[f"detectable at {self.pilot_topics} topics"] = self.detectable
        return kv_table("TopicSetSize", items)

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain JSON values plus ``"format"``; ``inf`` (never met) is None."""
        from ..kit.jsonio import jsonable

        d = jsonable({f.name: getattr(self, f.name) for f in fields(self)})
        d["format"] = self.JSON_FORMAT
        return d

    @classmethod
    def from_json(cls, text_or_path: Any) -> "TopicSetSize":
        """A :class:`TopicSetSize` from :meth:`to_json` output (text or a file path); ``null`` ``n`` is ``inf``.
        Every field is checked by :data:`JSON_SCHEMA` (:func:`gtheory.kit.schema.read_document`), and the fields
        the method needs must be there: a tampered document is refused with a
        :class:`gtheory.kit.errors.DocumentError` naming the field."""
        from ..kit.errors import DocumentError
        from ..kit.schema import read_document

        fmt = cls.JSON_FORMAT
        d = read_document(text_or_path, fmt, cls.JSON_SCHEMA)
        need = ("ci_width",) if d["method"] == "ci" else ("power", "min_diff")
        for k in need + (("n_systems",) if d["method"] == "anova" else ()):
            if d[k] is None:
                raise DocumentError(fmt, k, f"must be given (not null) for method {d['method']!r}")
        if (d["pilot_systems"] is None) != (d["pilot_topics"] is None) or \
                (d["pilot_topics"] is None) != (d["variance_method"] == "given"):
            raise DocumentError(fmt, "pilot_topics", "and pilot_systems must both be given with a pilot's variance "
                                                     "('residual', 'pooled') and both null with a given one")
        if len(d["curve_n"]) != len(d["curve"]):
            raise DocumentError(fmt, "curve", f"must have one value per curve_n ({len(d['curve_n'])}); got "
                                              f"{len(d['curve'])}")
        for k in ("curve_n", "curve"):
            d[k] = np.asarray(d[k], dtype=np.float64)
        for k in ("achieved", "detectable"):
            if d[k] is None and d["pilot_topics"] is not None:
                d[k] = math.nan
        return cls(**d)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TopicSetSize):
            return NotImplemented
        return all(_same(getattr(self, f.name), getattr(other, f.name)) for f in fields(self))

    __hash__ = None  # type: ignore[assignment]  # arrays inside: not hashable, as a dataclass with eq

    def plot(self, ax: "Axes | None" = None, *, title: str | None = None) -> "Axes":
        """The power (or expected CI width) against the number of topics, the requirement and the answer marked."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        ax.plot(self.curve_n, self.curve, "-", color="C0", label=_TITLES[self.method])
        level = self.ci_width if self.method == "ci" else self.power
        ax.axhline(level, color="grey", ls=":", lw=1)
        if math.isfinite(self.n):
            ax.axvline(self.n, color="C1", ls="--", lw=1, label=f"{int(self.n)} topics")
        if self.pilot_topics is not None:
            ax.axvline(self.pilot_topics, color="C2", ls=":", lw=1, label=f"pilot ({self.pilot_topics})")
        ax.set_xscale("log")
        ax.set_xlabel("topics" + (" per system" if self.method == "two-sample-t" else ""))
        ax.set_ylabel("expected CI width" if self.method == "ci" else "power")
        ax.set_title(title if title is not None else self.requirement, fontsize=9)
        ax.legend(fontsize=8)
        return ax


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float), equal_nan=True))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def _curve_sizes(n: float, pilot: int | None) -> NDArray[np.float64]:
    top = max(10.0, 2.0 * (n if math.isfinite(n) else 1000.0), 2.0 * (pilot or 0))
    grid = np.unique(np.round(np.geomspace(2, min(top, MAX_TOPICS), 120)))
    extra = [v for v in (n, pilot) if v is not None and math.isfinite(v)]
    return np.unique(np.concatenate([grid, np.asarray(extra, dtype=np.float64)]))


@validate_params(min_diff=real(0.0, none=True, rule="a positive finite number"))
def topic_set_size(
    scores: "ScoreInput | float",
    *,
    method: Method,
    min_diff: float | None = None,
    ci_width: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    n_systems: int | None = None,
    variance: str = "residual",
    approximation: str = "exact",
) -> TopicSetSize:
    r"""Topics needed for a test (or a confidence interval) to meet a statistical requirement.

    Sakai's topic set size design (IRJ 2016; *Laboratory Experiments in IR*, 2018, ch. 6), with the within-system
    variance estimated from a pilot score matrix; the formulas are in :mod:`gtheory.topics.topic_set_size`.

    Parameters
    ----------
    scores : score matrix or float
        A pilot systems × topics score matrix (anything :func:`gtheory.gstudy` takes), or the within-system
        variance σ² itself as a positive number.
    method : {"paired-t", "two-sample-t", "anova", "ci"}
    min_diff : float
        The true difference to detect (``"anova"``: between the best and the worst of ``n_systems`` systems).
        Not for ``"ci"``.
    ci_width : float
        The largest expected width of the ``1-alpha`` CI of a paired difference (``"ci"`` only).
    alpha : float
        Significance level (two-sided t-tests), default 0.05.
    power : float
        Required power 1-β (default 0.8); not for ``"ci"``.
    n_systems : int
        Systems the ANOVA compares (``"anova"`` only); default: the pilot's number of systems.
    variance : {"residual", "pooled"}
        The two-way ANOVA's residual mean square V_E (default) or the pooled within-system variance (one-way).
        For ``"two-sample-t"`` (each system on its own topics) ``"pooled"`` is the variance that applies: an
        unpaired comparison does not cancel the topic effect that V_E leaves out.
    approximation : {"exact", "nagata"}
        Noncentral t / F (default; the ``n`` of R's ``power.t.test`` / ``power.anova.test`` rounded up) or
        Nagata's (2003) approximations as in Sakai's Excel tools.

    Returns
    -------
    TopicSetSize
        ``.n``, ``.variance``, the power (or expected width) curve, and what the pilot's number of topics achieves.

    Raises
    ------
    gtheory.ParameterError
        A missing or out-of-range requirement, named.

    Examples
    --------
    >>> import gtheory
    >>> gtheory.topic_set_size(0.02, method="paired-t", min_diff=0.05).n
    128
    """
    method = check_param("method", method, _METHOD)
    check_param("variance", variance, _VARIANCE)
    if method == "ci":
        if min_diff is not None:
            raise ParameterError("min_diff", "`min_diff` does not apply to method='ci'; give `ci_width`.")
        if ci_width is None:
            raise ParameterError("ci_width", "method='ci' needs `ci_width`, the largest expected CI width.")
        width, d, target = _check_positive("ci_width", ci_width), None, None
    else:
        if ci_width is not None:
            raise ParameterError("ci_width", f"`ci_width` applies to method='ci' only; got method={method!r}.")
        if min_diff is None:
            raise ParameterError("min_diff", f"method={method!r} needs `min_diff`, the difference to detect.")
        width, d, target = None, _check_positive("min_diff", min_diff), power
        if target <= alpha:
            raise ParameterError("power", f"`power` must exceed `alpha` ({alpha:g}); got {power!r}.")
    if isinstance(scores, (int, float, np.integer, np.floating)) and not isinstance(scores, bool):
        var, pilot_m, pilot_n, vmethod = _check_positive("scores", scores), None, None, "given"
    else:
        var, pilot_m, pilot_n = within_system_variance(scores, variance)
        vmethod = variance
        if not (math.isfinite(var) and var > 0):
            raise ParameterError("scores", _no_variance_message(variance))
    if method == "anova" and n_systems is None:
        if pilot_m is None:
            raise ParameterError("n_systems", "method='anova' with a given variance needs `n_systems`.")
        n_systems = pilot_m
    m = _check_systems(method, n_systems)
    kw = dict(d=d, width=width, var=var, alpha=alpha, target=target, m=m)

    def meets(n: Any) -> Any:
        ok = _meets(method, n, approximation=approximation, **kw)
        return bool(ok) if np.ndim(ok) == 0 else ok

    if approximation == "exact":
        n = _smallest(meets, guess=_nagata_start(method, **kw))
    else:
        n = _nagata_n(method, meets=meets, **kw)
    sizes = _curve_sizes(n, pilot_n)
    if method == "ci":
        curve = np.asarray(expected_ci_width(sizes, variance=var, alpha=alpha))
    else:
        fn = _exact_power if approximation == "exact" else _nagata_power
        curve = fn(method, sizes, d, var, alpha, m)
    achieved = detectable = None
    if pilot_n is not None:
        if method == "ci":
            achieved = detectable = float(expected_ci_width(pilot_n, variance=var, alpha=alpha))
        else:
            achieved = float(power_at(method, pilot_n, min_diff=d, variance=var, alpha=alpha, n_systems=m,
                                      approximation=approximation))
            detectable = min_detectable_difference(method, pilot_n, variance=var, alpha=alpha, power=target,
                                                   n_systems=m, approximation=approximation)
    return TopicSetSize(method, approximation, n, var, vmethod, alpha, target, d, width, m, pilot_m, pilot_n,
                        achieved, detectable, sizes, np.asarray(curve, dtype=np.float64))


def _topic_set_size_schema() -> dict:
    from ..kit.schema import choice, count, integer, list_of, real

    unit = real(0.0, 1.0, low_open=True, high_open=True)
    positive = real(0.0, low_open=True, nullable=True)
    return {"method": choice("paired-t", "two-sample-t", "anova", "ci"), "approximation": choice("exact", "nagata"),
            "n": count(1), "variance": real(0.0), "variance_method": choice("residual", "pooled", "given"),
            "alpha": unit, "power": unit.but(nullable=True), "min_diff": positive, "ci_width": positive,
            "n_systems": integer(2, nullable=True), "pilot_systems": integer(2, nullable=True),
            "pilot_topics": integer(2, nullable=True), "achieved": real(nullable=True),
            "detectable": real(nullable=True), "curve_n": list_of(real(0.0, nullable=True, null_as=math.nan)),
            "curve": list_of(real(nullable=True, null_as=math.nan))}


TopicSetSize.JSON_SCHEMA.update(_topic_set_size_schema())
