r"""Urbano, Marrero & Martín's mappings from G-theory coefficients to data-based reliability indicators.

Urbano, Marrero and Martín ("On the Measurement of Test Collection Reliability", SIGIR 2013, §6 and Fig. 3) fitted,
on the TREC ad hoc and Web collections they studied, one power curve per data-based indicator of a topic set's
reliability against the G-theory coefficient that predicted it best:

===============  ====================================================  ================================
function         indicator (between two topic sets of the same size)   fitted curve
===============  ====================================================  ================================
``gt2tau``       Kendall τ between the two system rankings              :math:`E\rho^{2\,a}`, a = 2.847…
``gt2tau_ap``    τ_AP (AP correlation)                                   :math:`E\rho^{2\,a}`, a = 3.987…
``gt2power``     power: share of system pairs significant (t-test)       :math:`E\rho^{2\,a}`, a = 4.779…
``gt2minor``     minor conflicts (significant vs. not)                    :math:`(1-E\rho^2)^a`, a = 1.533…
``gt2major``     major conflicts (significant, opposite directions)      :math:`(1-E\rho^2)^a`, a = 2.630…
``gt2asens``     absolute sensitivity (§5 of the paper)                   :math:`(1-E\rho^2)^a`, a = 1.544…
``gt2rsens``     relative sensitivity                                     :math:`(1-\Phi)^a`, a = 1.298…
``gt2rmse``      RMSE of the mean scores                                  :math:`(1-\Phi)^a`, a = 3.276…
===============  ====================================================  ================================

The exponents are those of ``gt4ireval``'s ``gt2tau``, ``gt2tauAP``, ``gt2power``, ``gt2minor``, ``gt2major``,
``gt2asens``, ``gt2rsens`` and ``gt2rmse`` (Urbano's R package, file ``R/gt2tau.R``), copied to all their digits, so
these functions equal gt4ireval's. They are **empirical fits on TREC data** (ad hoc 3–8 and Web 2001–2004 era
collections, AP and P@10), not consequences of the theory: Urbano et al. advise taking them "with a grain of salt";
for a collection unlike TREC's the data-based curves of the collection itself are the better guide.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import ParameterError

__all__ = ["gt2tau", "gt2tau_ap", "gt2power", "gt2minor", "gt2major", "gt2asens", "gt2rsens", "gt2rmse",
           "gt2data", "GT2TAU_EXPONENTS"]

#: the fitted exponents of gt4ireval (R/gt2tau.R): name → (coefficient mapped from, exponent, form)
#: form "c": coefficient ** a; "1-c": (1 - coefficient) ** a
GT2TAU_EXPONENTS: dict[str, tuple[str, float, str]] = {
    "tau": ("erho2", 2.84729794002905, "c"),
    "tau_ap": ("erho2", 3.98652984123827, "c"),
    "power": ("erho2", 4.77902509574171, "c"),
    "minor": ("erho2", 1.53337366741287, "1-c"),
    "major": ("erho2", 2.62976839002005, "1-c"),
    "asens": ("erho2", 1.54402996734738, "1-c"),
    "rsens": ("phi", 1.29759126030214, "1-c"),
    "rmse": ("phi", 3.27642726002903, "1-c"),
}


def _map(name: str, value: ArrayLike) -> float | NDArray[np.float64]:
    coef, a, form = GT2TAU_EXPONENTS[name]
    param = "erho2" if coef == "erho2" else "phi"
    try:
        if isinstance(value, (str, bytes)) or np.asarray(value).dtype.kind not in "biuf":  # "0.5" is not 0.5
            raise TypeError
        x = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError(param, f"`{param}` must be numbers in (0, 1); got {value!r}.") from None
    if x.size == 0 or not np.all((x > 0) & (x < 1)):  # gt4ireval: stop("Erho2 must be in (0,1]") for <= 0 or >= 1
        raise ParameterError(param, f"`{param}` must be in (0, 1) (the fits are defined there, as gt4ireval's); "
                                    f"got {value!r}.")
    y = x**a if form == "c" else (1.0 - x) ** a
    return float(y) if x.ndim == 0 else y


def gt2tau(erho2: ArrayLike) -> float | NDArray[np.float64]:
    r"""Expected Kendall τ between the system rankings of two topic sets: :math:`E\rho^{2\,2.84729794002905}`.

    Urbano, Marrero & Martín (SIGIR 2013), gt4ireval's ``gt2tau``; an empirical fit on TREC data (module docstring).

    >>> round(gt2tau(0.9), 4)
    0.7408
    """
    return _map("tau", erho2)


def gt2tau_ap(erho2: ArrayLike) -> float | NDArray[np.float64]:
    r"""Expected τ_AP between the rankings of two topic sets: :math:`E\rho^{2\,3.98652984123827}` (gt4ireval's
    ``gt2tauAP``; Urbano et al. 2013, an empirical fit on TREC data)."""
    return _map("tau_ap", erho2)


def gt2power(erho2: ArrayLike) -> float | NDArray[np.float64]:
    r"""Expected share of system pairs found significantly different (2-tailed t-test):
    :math:`E\rho^{2\,4.77902509574171}` (gt4ireval's ``gt2power``; Urbano et al. 2013, an empirical fit)."""
    return _map("power", erho2)


def gt2minor(erho2: ArrayLike) -> float | NDArray[np.float64]:
    r"""Expected rate of minor conflicts between two topic sets (significant in one, not in the other):
    :math:`(1-E\rho^2)^{1.53337366741287}` (gt4ireval's ``gt2minor``; Urbano et al. 2013, an empirical fit)."""
    return _map("minor", erho2)


def gt2major(erho2: ArrayLike) -> float | NDArray[np.float64]:
    r"""Expected rate of major conflicts (significant in both, opposite directions):
    :math:`(1-E\rho^2)^{2.62976839002005}` (gt4ireval's ``gt2major``; Urbano et al. 2013, an empirical fit)."""
    return _map("major", erho2)


def gt2asens(erho2: ArrayLike) -> float | NDArray[np.float64]:
    r"""Expected absolute sensitivity (Urbano et al. 2013, §5):
    :math:`(1-E\rho^2)^{1.54402996734738}` (gt4ireval's ``gt2asens``; Urbano et al. 2013, an empirical fit)."""
    return _map("asens", erho2)


def gt2rsens(phi: ArrayLike) -> float | NDArray[np.float64]:
    r"""Expected relative sensitivity: :math:`(1-\Phi)^{1.29759126030214}` (gt4ireval's ``gt2rsens``; Urbano et
    al. 2013, an empirical fit on TREC data)."""
    return _map("rsens", phi)


def gt2rmse(phi: ArrayLike) -> float | NDArray[np.float64]:
    r"""Expected root mean squared error of the systems' mean scores between two topic sets:
    :math:`(1-\Phi)^{3.27642726002903}` (gt4ireval's ``gt2rmse``; Urbano et al. 2013, an empirical fit)."""
    return _map("rmse", phi)


def gt2data(erho2: float, phi: float) -> dict[str, Any]:
    """All eight mappings at once: ``{"tau", "tau_ap", "power", "minor", "major", "asens"}`` from ``erho2`` and
    ``{"rsens", "rmse"}`` from ``phi`` (Urbano, Marrero & Martín 2013; empirical fits on TREC data).

    >>> {k: round(v, 3) for k, v in gt2data(0.9, 0.8).items()}["rmse"]
    0.005
    """
    return {name: _map(name, erho2 if coef == "erho2" else phi) for name, (coef, _, _) in GT2TAU_EXPONENTS.items()}
