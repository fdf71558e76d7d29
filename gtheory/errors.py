"""Warning and error classes of the gtheory package (shared by optimize and experiments)."""
from __future__ import annotations

import math
import warnings

from .kit.errors import ParameterError
from typing import Any

import numpy as np

__all__ = ["NegativeVarianceWarning", "MissingCellsWarning", "PrecisionLossWarning", "ParameterError",
           "ROUNDING_TOLERANCE", "PRECISION_TOLERANCE"]

#: a variance-component estimate whose size is at most this share of the data's variance (mean
#: squared deviation from the grand mean) is rounding noise around 0: it is set to 0 without a warning
ROUNDING_TOLERANCE = 1e-12

#: scores whose own float64 rounding (a step of ``np.spacing(max |score|)`` between representable values, a
#: rounding variance of at most step²/12) exceeds this share of their variance have lost information before any
#: computation: :class:`PrecisionLossWarning`
PRECISION_TOLERANCE = 1e-6


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


class PrecisionLossWarning(UserWarning):
    """The scores are so large for their spread that double precision had rounded them before the G-study.

    A score of 1e16 + 0.3 is stored as 1e16 (representable numbers near 1e16 are 2 apart): the variance
    components of such data describe their rounding, not the scores. The message gives the magnitude and the
    step; subtract a constant (e.g. the smallest score) before the scores are stored in floating point. The
    estimates themselves are exact for the numbers given (sums of squares of deviations), and a negative one is
    set to 0 as usual but reported in this warning instead of a :class:`NegativeVarianceWarning`, whose cause
    would be the rounding.
    """


def precision_lost(x: Any, scale: float) -> tuple[float, float] | None:
    """``(magnitude, step)`` when the float64 rounding of scores ``x`` is a noticeable share of their variance
    ``scale`` (``step² / 12 > PRECISION_TOLERANCE * scale``, ``step = np.spacing(max |x|)``), else None."""
    size = float(np.nanmax(np.abs(x)))
    step = float(np.spacing(size))
    if step * step / 12.0 > PRECISION_TOLERANCE * float(scale):
        return size, step
    return None


def warn_precision_loss(size: float, step: float, scale: float, negatives: dict[str, float]) -> None:
    """Warn (:class:`PrecisionLossWarning`) that scores of magnitude ``size`` are rounded to steps of ``step``,
    comparable to their standard deviation ``sqrt(scale)``; ``negatives`` are estimates set to 0."""
    neg = "".join(f"; σ²({k}) came out {v:.3g} and is set to 0" for k, v in negatives.items())
    warnings.warn(
        f"the scores are about {size:.3g} but vary by only about {math.sqrt(scale):.3g} (standard deviation): at "
        f"that magnitude double precision stores them in steps of {step:.3g}: each was rounded by up to "
        f"{step / 2:.3g}, a rounding variance of up to {step * step / 12 / scale:.2%} of the scores' variance, "
        f"which the variance components include{neg}. Subtract a constant (e.g. the smallest "
        "score) before the scores are computed or stored; Φ, Eρ² and the components do not depend on it.",
        PrecisionLossWarning, stacklevel=3)
