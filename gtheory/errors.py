"""Warning classes of the gtheory package."""
from __future__ import annotations

import warnings

__all__ = ["NegativeVarianceWarning", "MissingCellsWarning"]


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


def warn_negative(source: str, estimate: float) -> None:
    """Warn that the estimate of σ²(``source``) is negative and set to 0, pointing at the caller
    of the estimating function (:func:`gtheory.gstudy`, :func:`gtheory.gstudy_design`)."""
    warnings.warn(f"negative estimate of σ²({source}) = {estimate:.6g} set to 0 (Brennan 2001, §3.4).",
                  NegativeVarianceWarning, stacklevel=3)
