"""Building blocks of the gtheory package that the other packages (optimize, experiments) build on.

Not part of the everyday API, but public and kept stable for the packages above: the one implementation of the
coefficient API (``phi(n)``, ``erho2(n)``, ``topics_needed``) that :class:`optimize.Tuning` shares with
:class:`gtheory.GStudy`, the JSON fields of a G-study, and the one score-matrix coercion (every input follows one rule, docs/gtheory.md) and its orientation names.
"""
from __future__ import annotations

from .coefficients import _Coefficients as Coefficients, _fields_document as fields_document, _read_fields as read_fields
from .coefficients import why_never_reached
from .score_layout import _canonical_orientation as canonical_orientation
from .score_matrix import _coerce_matrix as coerce_matrix, _frame_to_matrix as frame_to_matrix

__all__ = ["Coefficients", "fields_document", "read_fields", "why_never_reached", "frame_to_matrix", "coerce_matrix",
           "canonical_orientation"]
