"""Notebook display of metrics' result objects (private): the one implementation is :mod:`gtheory.kit.display`.

``gtheory`` imports no sibling package (it must work beside a user's own ``metrics.py``), so the display helpers
every package shares live there; metrics' result types (``Coverage``, ``Qrels``, ``JudgedRuns``, ...) import this
module only inside their ``_repr_html_``/``summary`` methods, so ``import metrics`` does not import ``gtheory``.
"""
from __future__ import annotations

from gtheory.kit.display import fmt, html_table, kv_table

__all__ = ["fmt", "html_table", "kv_table"]
