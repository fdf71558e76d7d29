r"""Low-dimensional tunable families of discounts and gains, tuned for stability (max Φ or Eρ²).

Fitting one weight per rank to ~50 topics over-fits (the tuned vector's held-out gain can vanish or
reverse); a family with one or two continuous parameters cannot. Each family maps its parameters
:math:`\theta` to a vector and :func:`optimize_family` maximises Φ(1) (or Eρ²(1)) of the nDCG it
induces over :math:`\theta` in bounds — a grid over the (transformed) parameter, then Brent's bounded
method (:func:`scipy.optimize.minimize_scalar`) between the grid neighbours of the best point, so a
multi-modal objective is not trusted to one local search, polished by L-BFGS-B with the exact
derivative :math:`\partial f/\partial\theta = \nabla_x f \cdot \partial x/\partial\theta` (the exact gradient
in the vector, :mod:`optimize.solvers._ratio`, and the family's analytic derivative).

Discount families (rank :math:`r = 1..k`):

* ``jarvelin`` — :math:`d_r = 1` for :math:`r < b`, :math:`1/\log_b r` after (Järvelin & Kekäläinen 2002), :math:`b \in [1.01, 1000]`;
* ``rbp`` — :math:`d_r = p^{r-1}` (Moffat & Zobel 2008), :math:`p \in [0.01, 0.999]`;
* ``power`` — :math:`d_r = r^{-\alpha}` (``zipf`` is :math:`\alpha = 1`), :math:`\alpha \in [0, 4]`;
* ``log_offset`` — :math:`d_r = 1/\ln(r + c)` (``log2`` is :math:`c = 1`), :math:`c \in [0.001, 10^4]`;
* ``topflat`` — :math:`d_r = 1` for :math:`r \le m`, :math:`h` after: the "top ranks, then flat"
  shape Kanoulas & Aslam (2009, Fig. 3) find; integer :math:`m \in [1, k]`, :math:`h \in [0, 1]`,
  every :math:`m` tried exactly.

Gain families (positive grade :math:`x`; grades :math:`\le 0` have gain 0):

* ``power`` — :math:`g(x) = x^\gamma` (``linear`` is :math:`\gamma = 1`, equal gains :math:`\gamma = 0`), :math:`\gamma \in [0, 6]`;
* ``exponential`` — :math:`g(x) = b^x - 1` (Burges et al. 2005 is :math:`b = 2`), :math:`b \in [1.001, 100]`;
* the monotone per-grade gain is the full vector (:func:`optimize.optimize_gain`,
  :func:`optimize.optimize_regularised` with ``lam=0``).

nDCG is scale-free in each vector, so every family is normalised to sum 1 after.

References
----------
.. [1] E. Kanoulas and J. A. Aslam (2009). Empirical justification of the gain and discount
       function for nDCG. CIKM 2009.
.. [2] K. Järvelin and J. Kekäläinen (2002). Cumulated gain-based evaluation of IR techniques. ACM TOIS 20(4).
.. [3] A. Moffat and J. Zobel (2008). Rank-biased precision for measurement of retrieval effectiveness. ACM TOIS 27(1).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize, minimize_scalar

import metrics
from metrics import JudgedRuns

from ._ratio import RatioModel, coefficient_f
from .objective import Problem
from .result import SolverRun, Tuning
from gtheory.kit.params import REQUIRED_CUTOFF, choice, validate_params

__all__ = ["Family", "FAMILIES", "optimize_family", "fit_family"]

#: grid points of the first pass over a 1-D family's (transformed) parameter
GRID = 25


@dataclass(frozen=True)
class Family:
    """A tunable family: ``vectors(u, n, levels)`` maps a batch of search coordinates ``u`` to
    vectors (m, n); ``to_param``/``from_param`` convert the coordinate to the family parameter."""

    name: str
    what: str
    param: str
    bounds: tuple[float, float]  # of the parameter
    to_param: Callable[[NDArray], NDArray]
    from_param: Callable[[NDArray], NDArray]
    vectors: Callable[[NDArray, int, NDArray], NDArray]
    formula: str

    def label(self, theta: dict[str, float]) -> str:
        return f"{self.name}(" + ", ".join(f"{k}={v:.4g}" for k, v in theta.items()) + ")"


def _ranks(n: int) -> NDArray:
    return np.arange(1, n + 1, dtype=np.float64)


def _jarvelin(u: NDArray, n: int, levels: NDArray) -> NDArray:
    b = np.exp(u)[:, None]
    r = _ranks(n)[None, :]
    return np.where(r < b, 1.0, np.log(b) / np.log(np.maximum(r, b)))


def _rbp(u: NDArray, n: int, levels: NDArray) -> NDArray:
    p = (1.0 - 10.0 ** u)[:, None]
    return p ** (_ranks(n)[None, :] - 1.0)


def _power_d(u: NDArray, n: int, levels: NDArray) -> NDArray:
    return _ranks(n)[None, :] ** (-u[:, None])


def _log_offset(u: NDArray, n: int, levels: NDArray) -> NDArray:
    c = np.exp(u)[:, None]
    return 1.0 / np.log(_ranks(n)[None, :] + c)


def _power_g(u: NDArray, n: int, levels: NDArray) -> NDArray:
    x = levels[levels > 0][None, :]
    return x ** u[:, None]


def _exponential_g(u: NDArray, n: int, levels: NDArray) -> NDArray:
    b = 1.0 + np.exp(u)[:, None]
    x = levels[levels > 0][None, :]
    return b ** x - 1.0


def _d_jarvelin(u: float, n: int, levels: NDArray) -> NDArray:
    r = _ranks(n)
    lr = np.log(r)  # d(ln b / ln r)/d ln b = 1/ln r where r >= b (> 1), 0 before
    return np.divide(1.0, lr, out=np.zeros(n), where=(r >= np.exp(u)) & (lr > 0))


def _d_rbp(u: float, n: int, levels: NDArray) -> NDArray:
    p, r = 1.0 - 10.0 ** u, _ranks(n)
    return (r - 1.0) * p ** np.maximum(r - 2.0, 0.0) * (-(10.0 ** u) * np.log(10.0))


def _d_power_d(u: float, n: int, levels: NDArray) -> NDArray:
    r = _ranks(n)
    return -np.log(r) * r ** (-u)


def _d_log_offset(u: float, n: int, levels: NDArray) -> NDArray:
    c, r = np.exp(u), _ranks(n)
    return -c / ((r + c) * np.log(r + c) ** 2)


def _d_power_g(u: float, n: int, levels: NDArray) -> NDArray:
    x = levels[levels > 0]
    return np.log(x) * x ** u


def _d_exponential_g(u: float, n: int, levels: NDArray) -> NDArray:
    b, x = 1.0 + np.exp(u), levels[levels > 0]
    return x * b ** (x - 1.0) * np.exp(u)


#: d vector / d search coordinate of each 1-D family (for the exact derivative of the objective)
_DERIVATIVES = {("discount", "jarvelin"): _d_jarvelin, ("discount", "rbp"): _d_rbp,
                ("discount", "power"): _d_power_d, ("discount", "log_offset"): _d_log_offset,
                ("gain", "power"): _d_power_g, ("gain", "exponential"): _d_exponential_g}


def family_value_and_derivative(model: RatioModel, family: Family, u: float, topics: NDArray | None = None,
                                objective: str = "phi") -> tuple[float, float]:
    r"""``(f, df/du)`` of a 1-D family at search coordinate ``u``, exactly: the chain rule
    :math:`\partial f/\partial u = \nabla_x f \cdot \partial x/\partial u` with the exact gradient in the
    vector (:meth:`optimize.solvers._ratio.RatioModel.value_and_grad`; nDCG is scale-free, so the unnormalised
    vector gives the same :math:`f`) and the family's analytic :math:`\partial x/\partial u`."""
    x = family.vectors(np.array([u]), model.n, model.levels)[0]
    f, g = model.value_and_grad(x, topics, objective)
    return float(f), float(g @ _DERIVATIVES[(family.what, family.name)](u, model.n, model.levels))


_ident = lambda v: np.asarray(v, dtype=np.float64)  # noqa: E731

#: the tunable families by what they tune (``topflat`` is fitted by :func:`fit_family` specially)
FAMILIES: dict[str, dict[str, Family]] = {
    "discount": {
        "jarvelin": Family("jarvelin", "discount", "b", (1.01, 1000.0), np.exp, np.log, _jarvelin,
                           "d_r = 1 (r < b), 1/log_b r (r ≥ b)"),
        "rbp": Family("rbp", "discount", "p", (0.01, 0.999), lambda u: 1.0 - 10.0 ** u,
                      lambda p: np.log10(1.0 - p), _rbp, "d_r = p^(r-1)"),
        "power": Family("power", "discount", "alpha", (0.0, 4.0), _ident, _ident, _power_d, "d_r = r^-alpha"),
        "log_offset": Family("log_offset", "discount", "c", (0.001, 1e4), np.exp, np.log, _log_offset,
                             "d_r = 1/ln(r + c)"),
        "topflat": Family("topflat", "discount", "m,h", (0.0, 1.0), _ident, _ident, lambda u, n, lv: u,
                          "d_r = 1 (r ≤ m), h (r > m)"),
    },
    "gain": {
        "power": Family("power", "gain", "gamma", (0.0, 6.0), _ident, _ident, _power_g, "g(x) = x^gamma"),
        "exponential": Family("exponential", "gain", "base", (1.001, 100.0), lambda u: 1.0 + np.exp(u),
                              lambda b: np.log(b - 1.0), _exponential_g, "g(x) = base^x - 1"),
    },
}


def _normalise(x: NDArray) -> NDArray:
    s = x.sum(axis=-1, keepdims=True)
    return x / np.where(s > 0, s, 1.0)


def _topflat_vector(m: int, h: float, n: int) -> NDArray:
    return np.where(_ranks(n) <= m, 1.0, h)


def _fit_topflat(model: RatioModel, topics, objective: str) -> tuple[dict[str, float], NDArray, float]:
    """Every ``m`` in 1..k on a grid of ``h``, by prefix sums (DCG(m, h) = (1-h) P_≤m + h P_≤k), then
    Brent on ``h`` for the best ``m``. The prefix sums come a block of ``m`` at a time
    (:meth:`RatioModel.prefix_blocks`), so memory does not grow with S·t·k."""
    _, Q, _ = model._sub(topics)
    Qc = np.cumsum(Q, axis=-1)  # (t, k)
    k = model.n
    hs = np.linspace(0.0, 1.0, 11)
    last = model.row_totals(topics)  # P_≤k
    f_all = np.empty((hs.size, k))
    for m0, Pc in model.prefix_blocks(topics):
        m1 = m0 + Pc.shape[-1]
        for i, h in enumerate(hs):
            dcg = (1 - h) * Pc + h * last
            idcg = (1 - h) * Qc[:, m0:m1] + h * Qc[..., -1:]
            ok = idcg > 0
            X = np.where(ok[None], dcg / np.where(ok, idcg, 1.0)[None], 0.0)  # (S, t, b)
            f_all[i, m0:m1] = coefficient_f(np.moveaxis(X, -1, 0), objective)
    best = (-np.inf, 1, 1.0)
    for i, h in enumerate(hs):  # the first h (then the first m) reaching the best value
        f = np.where(np.isfinite(f_all[i]), f_all[i], -np.inf)
        j = int(np.argmax(f))
        if f[j] > best[0]:
            best = (float(f[j]), j + 1, float(h))
    _, m, h0 = best
    if m < k:
        def neg(h: float) -> float:
            v = coefficient_f(model.scores(_topflat_vector(m, h, k), topics), objective)
            return -float(v) if np.isfinite(v) else np.inf
        lo, hi = max(h0 - 0.1, 0.0), min(h0 + 0.1, 1.0)
        res = minimize_scalar(neg, bounds=(lo, hi), method="bounded", options={"xatol": 1e-4})
        h = float(res.x) if -res.fun > best[0] else h0
    else:
        h = 1.0
    x = _normalise(_topflat_vector(m, h, k))
    f = float(coefficient_f(model.scores(x, topics), objective))
    return {"m": float(m), "h": h}, x, f


def fit_family(model: RatioModel, family: Family, topics: NDArray | None = None,
               objective: str = "phi") -> tuple[dict[str, float], NDArray, float]:
    """``(theta, x, f)``: the family's Φ(1)-optimal parameter on ``topics`` (all when None), its
    normalised vector and the raw objective there (grid of :data:`GRID`, then bounded Brent)."""
    if family.name == "topflat":
        return _fit_topflat(model, topics, objective)
    n, levels = model.n, model.levels
    lo, hi = sorted(family.from_param(np.array(family.bounds, dtype=np.float64)))
    grid = np.linspace(lo, hi, GRID)
    f = coefficient_f(model.scores(_normalise(family.vectors(grid, n, levels)), topics), objective)
    f = np.where(np.isfinite(f), f, -np.inf)
    i = int(np.argmax(f))

    def neg(u: float) -> float:
        v = coefficient_f(model.scores(_normalise(family.vectors(np.array([u]), n, levels))[0], topics),
                          objective)
        return -float(v) if np.isfinite(v) else np.inf

    a, b = grid[max(i - 1, 0)], grid[min(i + 1, GRID - 1)]
    best_u, best_f = float(grid[i]), float(f[i])
    res = minimize_scalar(neg, bounds=(a, b), method="bounded", options={"xatol": 1e-5 * (hi - lo)})
    if np.isfinite(res.fun) and -res.fun > best_f:
        best_u, best_f = float(res.x), float(-res.fun)

    def neg_fd(v: NDArray) -> tuple[float, NDArray]:
        fv, dv = family_value_and_derivative(model, family, float(v[0]), topics, objective)
        return (-fv, np.array([-dv])) if np.isfinite(fv) else (np.inf, np.zeros(1))

    # polish with the exact derivative (L-BFGS-B in the bracket): the chain rule through the exact gradient
    pol = minimize(neg_fd, [best_u], jac=True, method="L-BFGS-B", bounds=[(a, b)],
                   options={"ftol": 1e-14, "gtol": 1e-12, "maxiter": 50})
    if np.isfinite(pol.fun) and -pol.fun > best_f:
        best_u, best_f = float(pol.x[0]), float(-pol.fun)
    x = _normalise(family.vectors(np.array([best_u]), n, levels))[0]
    theta = {family.param: float(family.to_param(np.array(best_u)))}
    return theta, x, best_f


def tuning_from_vector(judged: JudgedRuns, cutoff: int, what: str, x: NDArray, *, gain, discount, objective: str,
                       solver: str, message: str, seconds: float, success: bool = True, nit: int = 0,
                       nfev: int = 0) -> Tuning:
    """A :class:`Tuning` for a fixed vector ``x`` (the tuned part) on ``judged``: coefficients by
    :func:`optimize.solvers.tune.make_tuning`, as every tuner reports them."""
    from .tune import gain_family_of, make_tuning

    p = Problem(judged, cutoff, what, gain=gain, discount=discount, objective=objective)
    x = np.asarray(x, dtype=np.float64)
    x = x / x.sum()
    run = SolverRun(x=x, fun=p.value(x), success=success, message=message, nit=nit, nfev=nfev, njev=0,
                    solver=solver, seconds=seconds, start=solver)
    return make_tuning(p, run, [run], 1, 0.0, solver, seconds,
                       gain_family=gain_family_of(gain) if what == "discount" else None)


@validate_params(cutoff=REQUIRED_CUTOFF, what=choice("discount", "gain"))
def optimize_family(
    judged: JudgedRuns,
    *,
    family: str,
    cutoff: int = 100,
    what: str = "discount",
    gain: metrics.measures.gains.GainSpec = "linear",
    discount: metrics.measures.discounts.DiscountSpec = "log2",
    objective: str = "phi",
) -> Tuning:
    r"""The stability-optimal member of a low-dimensional discount or gain family.

    Parameters
    ----------
    judged : metrics.JudgedRuns
    family : a name of :data:`FAMILIES` ``[what]``: for the discount ``"jarvelin"``, ``"rbp"``,
        ``"power"``, ``"log_offset"``, ``"topflat"``; for the gain ``"power"``, ``"exponential"``.
    cutoff : nDCG cut-off k.
    what : ``"discount"`` (with the fixed ``gain``) or ``"gain"`` (with the fixed ``discount``).
    objective : ``"phi"`` (default) or ``"erho2"``.

    Returns
    -------
    Tuning
        ``solver`` is ``"family:<name>"`` and ``message`` the fitted member, e.g. ``"rbp(p=0.8312)"``.

    Notes
    -----
    :math:`\hat\theta = \arg\max_{\theta \in \Theta} \Phi(1)` of :math:`X_{st}(x(\theta))` (module
    docstring), Φ(1) :math:`= \sigma^2_s/(\sigma^2_s+\sigma^2_t+\sigma^2_{st})` as in Kanoulas &
    Aslam (2009, §2.3); one or two parameters instead of one weight per rank.

    Examples
    --------
    >>> import metrics, optimize
    >>> t = optimize.optimize_family(metrics.load_trec9(), family="rbp", cutoff=20)
    >>> t.solver, bool(0 < t.phi_1 < 1)
    ('family:rbp', True)
    """
    known = FAMILIES[what]
    if family not in known:
        raise ValueError(f"`family` must be one of {', '.join(map(repr, known))} for the {what}; got {family!r}.")
    t0 = time.perf_counter()
    Problem(judged, cutoff, what, gain=gain, discount=discount, objective=objective)  # checks the arguments
    model = RatioModel(judged, cutoff, what, gain=gain, discount=discount)
    theta, x, _ = fit_family(model, known[family], None, objective)
    return tuning_from_vector(judged, cutoff, what, x, gain=gain, discount=discount, objective=objective,
                              solver=f"family:{family}", message=known[family].label(theta),
                              seconds=time.perf_counter() - t0)
