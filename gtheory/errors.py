"""Warning and error classes of the gtheory package (shared by optimize and experiments)."""
from __future__ import annotations

import warnings

from .kit.errors import ParameterError

__all__ = ["NegativeVarianceWarning", "MissingCellsWarning", "ParameterError", "ROUNDING_TOLERANCE"]

#: a variance-component estimate whose size is at most this share of the data's variance (mean
#: squared deviation from the grand mean) is rounding noise around 0: it is set to 0 without a warning
ROUNDING_TOLERANCE = 1e-12


class NegativeVarianceWarning(UserWarning):
    """A variance-component estimate was negative and has been set to 0.

    ANOVA (expected-mean-squares) estimates are unbiased but can fall below zero when the true
    component is small. Following Brennan (2001, §3.4) and ``gt4ireval``, the estimate is set to
    0 for reporting and for Φ/Eρ²; the raw value is kept in the result (``*_raw`` fields and the
    ``components`` table). Other components are computed from the raw (unclipped) values.
    """


class MissingCellsWarning(UserWarning):
    """The score matrix has missing cells; the message states how many and what was done.

    Emitted by :func:`gtheory.gstudy` with ``missing="henderson"``, ``"reml"`` or ``"exclude"``
    so that an estimate from an incomplete matrix is never mistaken for a complete-data one.
    """


def is_rounding_noise(estimate: float, scale: float) -> bool:
    """Whether ``estimate`` is 0 up to floating-point rounding: ``|estimate| <= ROUNDING_TOLERANCE * scale``,
    ``scale`` the data's variance (sum of squares about the grand mean / number of scores)."""
    return abs(float(estimate)) <= ROUNDING_TOLERANCE * float(scale)


def warn_negative(source: str, estimate: float, scale: float = 0.0) -> None:
    """Warn that the estimate of σ²(``source``) is negative and set to 0, pointing at the caller
    of the estimating function (:func:`gtheory.gstudy`, :func:`gtheory.gstudy_design`).

    Silent when the estimate is rounding noise relative to ``scale`` (:func:`is_rounding_noise`):
    −7.9e-34 for data whose variance is 0.01 is 0, not a negative estimate worth a warning.
    """
    if is_rounding_noise(estimate, scale):
        return
    warnings.warn(f"negative estimate of σ²({source}) = {estimate:.6g} set to 0 (Brennan 2001, §3.4).",
                  NegativeVarianceWarning, stacklevel=3)
