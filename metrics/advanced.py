"""Building blocks of the metrics package that the other packages (optimize, experiments) build on.

Not part of the everyday API (``import metrics`` does not list them), but public and kept stable for the packages
above: the sparse relevant cells of a judged-grade tensor (optimize's exact-gradient objective), the stratified
sampling behind :func:`metrics.reduce_qrels` (experiments' incompleteness studies), and the gain/discount family
parser (experiments' sweeps).
"""
from __future__ import annotations

from ._families import parse_family
from ._sparse import RelevantCells, _matvec as matvec, relevant_cells
from .reduce import (
    Rounding,
    _check_fractions as check_fractions,
    _check_judged as check_judged,
    _masks as reduction_masks,
    _strata as strata,
)

__all__ = ["parse_family", "RelevantCells", "relevant_cells", "matvec", "Rounding", "check_fractions",
           "check_judged", "reduction_masks", "strata"]
