r"""The words and number formats every part of the report shares (the study's text, the figures, the sections,
the rendered pages): the configurations' names, the in-sample label, signed differences, numbers and counts
(:func:`fmt_count`).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["IN_SAMPLE", "fmt_count"]

#: the in-sample optimum (the unregularised full vector that maximises Φ on all topics) is shown, never advised
IN_SAMPLE = "in-sample optimum, not advice"
_NAMES = {"zipf": "Zipf (1/r)", "linear": "linear ((k+1-r)/k)", "log2": "log (1/log₂(r+1)) — baseline",
          "optimal": f"optimal ({IN_SAMPLE})"}


def _signed(v: float, digits: int = 3) -> str:
    """``+0.012`` / ``-0.012``; a value that rounds to zero is ``0.000`` (never ``-0.000`` or ``+0.000``)."""
    text = f"{v:+.{digits}f}"
    return text[1:] if float(text) == 0 else text


def _fmt(v: Any, digits: int = 3) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        if math.isnan(v):
            return "–"
        if math.isinf(v):
            return "∞"
        if float(v).is_integer() and abs(v) >= 1 and digits >= 0:
            return f"{int(v)}"
        text = f"{v:.{digits}f}"
        return text[1:] if text.startswith("-") and float(text) == 0 else text  # never "-0.000"
    return str(v)


def fmt_count(v: Any) -> str:
    """A count (topics, pairs, systems) as printed in the report: an integer as an integer (``26``), a
    fractional one (a median of two counts) with the decimals it has, at most two (``26.5``); NaN ``–``,
    infinity ``∞`` (a target no number of topics reaches)."""
    if isinstance(v, (bool, np.bool_)) or v is None:
        return _fmt(v)
    v = float(v)
    if math.isnan(v):
        return "–"
    if math.isinf(v):
        return "∞" if v > 0 else "-∞"
    if v.is_integer():
        return str(int(v))
    return f"{v:.2f}".rstrip("0").rstrip(".")
