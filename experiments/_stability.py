"""The G-study numbers of one systems × topics matrix, shared by :mod:`experiments.sweep` and
:mod:`experiments.incomplete` (one implementation, through :func:`gtheory.gstudy`)."""
from __future__ import annotations

import math
import warnings
from typing import Any

import gtheory

__all__ = ["stability", "STABILITY_KEYS"]

#: the keys of :func:`stability`'s result
STABILITY_KEYS: tuple[str, ...] = (
    "var_system", "var_topic", "var_residual", "phi", "erho2", "phi_1", "topics_needed",
)


def stability(scores: Any, n_topics: float, target: float) -> dict[str, float]:
    """Variance components (negative estimates set to 0), Φ and Eρ² at ``n_topics``, Φ of one topic and the
    topics needed for Φ ≥ ``target`` (no interval) of a systems × topics matrix.

    A matrix without a G-study (constant, NaN from ``missing="exclude"``, fewer than 2 systems or topics) gives
    NaN everywhere instead of raising, so one degenerate grid point does not stop a study.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
        try:
            g = gtheory.gstudy(scores)
        except ValueError:
            return {k: math.nan for k in STABILITY_KEYS}
        row = g.as_row(n_topics, target)
    return {k: float(row[k]) for k in STABILITY_KEYS}
