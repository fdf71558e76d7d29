r"""Regularised full-vector tuning: the tuned discount (or gains) shrunk toward a reference.

The full-vector tuner fits one weight per rank; on ~50 topics part of its in-sample gain is noise.
A penalty pulls the (normalised) vector toward a reference configuration :math:`y^{ref}` (log2 for
the discount, linear gains), the classical remedy for selection on few observations:

.. math::

    \max_{x \in \mathcal{M}}\; f(x) - \lambda\,\frac{\lVert L(y - y^{ref}) \rVert^2}{\lVert y^{ref} \rVert^2},
    \qquad y = x / \textstyle\sum x,

with :math:`f` = Φ(1) (or Eρ²(1)) of the tuned nDCG, :math:`\mathcal{M}` the monotone vectors, and
:math:`L = I` (``penalty="ridge"``) or the second-difference operator (``penalty="smooth"``: the
deviation from the reference must be smooth in rank). :math:`\lambda = 0` is the unregularised tuner
(:func:`optimize.optimize_discount` / :func:`optimize.optimize_gain`); :math:`\lambda \to \infty`
gives the reference. :func:`optimize.recommend` chooses :math:`\lambda` by inner cross-validation
over topics.

Solver: L-BFGS-B on the increments (:mod:`optimize.solvers.parametrize`; monotonicity becomes bounds) with
the exact gradient (:mod:`optimize.solvers._ratio`), from the reference (or a warm start).

References
----------
.. [1] G. C. Cawley and N. L. C. Talbot (2010). On over-fitting in model selection and subsequent
       selection bias in performance evaluation. JMLR 11.
.. [2] T. Hastie, R. Tibshirani and J. Friedman (2009). The Elements of Statistical Learning, §3.4, §7.10.
"""
from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.optimize import minimize

import metrics
from metrics import JudgedRuns

from ._ratio import RatioModel
from ._threads import single_threaded_blas
from .families import tuning_from_vector
from .objective import Problem
from .parametrize import discount_to_increments, gain_to_increments, increments_to_discount, increments_to_gain
from .result import Tuning
from gtheory.kit.params import REQUIRED_CUTOFF, choice, validate_params

__all__ = ["optimize_regularised", "fit_vector", "PENALTIES"]

PENALTIES = ("ridge", "smooth")


def _penalty_op(n: int, penalty: str) -> sp.csr_matrix:
    """``L``: the identity (``"ridge"``, or fewer than 3 weights) or the (n-2, n) second-difference operator."""
    if penalty == "ridge" or n < 3:
        return sp.identity(n, format="csr")
    return sp.diags([1.0, -2.0, 1.0], [0, 1, 2], shape=(n - 2, n), format="csr")


def fit_vector(model: RatioModel, topics: NDArray | None, objective: str, lam: float, ref: NDArray,
               penalty: str = "ridge", x0: NDArray | None = None,
               maxiter: int = 500, tol: float = 1e-11) -> tuple[NDArray, float, bool, str, int]:
    """``(x, f, success, message, nit)``: the penalised optimum of the module docstring on ``topics``
    (``x`` normalised to sum 1, ``f`` the raw objective without the penalty); ``tol`` is L-BFGS-B's ``ftol``
    (``gtol`` is 100 times it)."""
    to_x, to_z = ((increments_to_discount, discount_to_increments) if model.what == "discount"
                  else (increments_to_gain, gain_to_increments))
    ref = np.asarray(ref, dtype=np.float64)
    yref = ref / ref.sum()
    if penalty == "ridge" or model.n < 3:
        LtL = None  # L = I: L^T L e is e itself (no n x n product per evaluation)
    else:
        L = _penalty_op(model.n, penalty)
        LtL = (L.T @ L).tocsr()  # the banded second-difference form (5 diagonals)
    c = float(yref @ yref)

    def pull(g_x: NDArray) -> NDArray:  # gradient in x -> gradient in the increments z (transposed map)
        # contiguous: SciPy < 1.11's L-BFGS-B refuses a reversed view ("failed in converting ... of setulb")
        return np.cumsum(g_x) if model.what == "discount" else np.ascontiguousarray(np.cumsum(g_x[::-1])[::-1])

    def fun(z: NDArray) -> tuple[float, NDArray]:
        x = to_x(z)
        s = x.sum()
        if not s > 0:
            return np.inf, np.zeros_like(z)
        f, g = model.value_and_grad(x, topics, objective)
        if not np.isfinite(f):
            return np.inf, np.zeros_like(z)
        val, grad = -f, -g
        if lam > 0:
            y = x / s
            e = y - yref
            Le = e if LtL is None else LtL @ e
            val += lam * float(e @ Le) / c
            gy = 2.0 * lam * Le / c
            grad = grad + (gy - gy @ y) / s
        return val, pull(grad)

    start = yref if x0 is None else np.asarray(x0, dtype=np.float64) / np.sum(x0)
    z0 = np.maximum(to_z(start), 0.0)
    res = minimize(fun, z0, jac=True, method="L-BFGS-B", bounds=[(0.0, None)] * model.n,
                   options={"maxiter": maxiter, "ftol": tol, "gtol": 100 * tol})
    x = np.maximum(to_x(np.maximum(res.x, 0.0)), 0.0)
    x = x / x.sum()
    f = float(model.value_and_grad(x, topics, objective)[0])
    # L-BFGS-B's ABNORMAL is a line-search stop; at a scale-free optimum it is rounding, not failure
    ok = bool(res.success) or str(res.message).startswith("ABNORMAL")
    return x, f, ok and np.isfinite(f), str(res.message), int(res.nit)


@validate_params(cutoff=REQUIRED_CUTOFF, what=choice("discount", "gain"))
def optimize_regularised(
    judged: JudgedRuns,
    *,
    cutoff: int = 100,
    what: str = "discount",
    lam: float = 0.1,
    penalty: str = "ridge",
    reference: metrics.measures.discounts.DiscountSpec | metrics.measures.gains.GainSpec | None = None,
    gain: metrics.measures.gains.GainSpec = "linear",
    discount: metrics.measures.discounts.DiscountSpec = "log2",
    objective: str = "phi",
) -> Tuning:
    r"""Full-vector tuning with a penalty toward a reference (module docstring).

    Parameters
    ----------
    judged : metrics.JudgedRuns
    cutoff : nDCG cut-off k.
    what : ``"discount"`` (gain ``gain`` fixed) or ``"gain"`` (discount ``discount`` fixed).
    lam : penalty strength :math:`\lambda \ge 0` (0: the unregularised tuner).
    penalty : ``"ridge"`` (toward the reference) or ``"smooth"`` (second differences of the deviation).
    reference : the configuration shrunk toward: a discount (default ``"log2"``) or a gain
        specification (default ``"linear"``).
    objective : ``"phi"`` or ``"erho2"``.

    Returns
    -------
    Tuning
        ``solver`` is ``"regularised"``; ``message`` gives λ, the penalty and L-BFGS-B's message.

    Examples
    --------
    >>> import metrics, optimize
    >>> t0 = optimize.optimize_regularised(metrics.load_trec9(), cutoff=20, lam=0.0)
    >>> t1 = optimize.optimize_regularised(metrics.load_trec9(), cutoff=20, lam=10.0)
    >>> bool(t0.phi_1 >= t1.phi_1)
    True
    """
    if penalty not in PENALTIES:
        raise ValueError(f"`penalty` must be one of {PENALTIES}; got {penalty!r}.")
    if isinstance(lam, bool) or not isinstance(lam, (int, float, np.integer, np.floating)) \
            or not (np.isfinite(lam) and lam >= 0):
        raise ValueError(f"`lam` must be a non-negative number; got {lam!r}.")
    t0 = time.perf_counter()
    Problem(judged, cutoff, what, gain=gain, discount=discount, objective=objective)  # checks the arguments
    model = RatioModel(judged, cutoff, what, gain=gain, discount=discount)
    ref = reference_vector(model, reference)
    with single_threaded_blas():
        x, f, ok, msg, nit = fit_vector(model, None, objective, float(lam), ref, penalty)
    return tuning_from_vector(judged, cutoff, what, x, gain=gain, discount=discount, objective=objective,
                              solver="regularised", message=f"λ = {lam:g} ({penalty}): {msg}",
                              seconds=time.perf_counter() - t0, success=ok, nit=nit)


def reference_vector(model: RatioModel, reference) -> NDArray:
    """The reference configuration as a vector of the model's variables (normalised)."""
    if model.what == "discount":
        v = metrics.discount_vector("log2" if reference is None else reference, model.n, cutoff=model.n)
    else:
        v = metrics.gain_vector("linear" if reference is None else reference, model.levels)[model.positive]
    v = np.asarray(v, dtype=np.float64)
    if np.any(v < 0) or not v.sum() > 0:
        raise ValueError("`reference` must be non-negative and not all 0.")
    return v / v.sum()
