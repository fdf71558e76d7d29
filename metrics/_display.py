"""Notebook display of metrics' result objects (private): the one implementation is :mod:`gtheory.kit.display`.

``gtheory`` imports no sibling package (it must work beside a user's own ``metrics.py``), so the display helpers
every package shares live there; metrics' result types (``Coverage``, ``Qrels``, ``JudgedRuns``, ...) import this
module only inside their ``_repr_html_``/``summary`` methods, so ``import metrics`` does not import ``gtheory``.
"""
from __future__ import annotations

try:
    from gtheory.kit.display import fmt, html_table, kv_table
except ImportError:
    import sys

    _found = sys.modules.get("gtheory")
    if _found is None or getattr(_found, "__gtheory_package__", None) == "gtheory":
        raise
    # `gtheory` is shadowed (a module of the project, or a clone of this repository imported from its parent folder
    # as an empty namespace package): its guard is loaded from its file, beside this package, to say which
    import importlib.util
    from pathlib import Path

    _spec = importlib.util.spec_from_file_location(
        "_gtheory_guard", Path(__file__).resolve().parents[1] / "gtheory" / "kit" / "siblings.py")
    _guard = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_guard)
    raise _guard.ShadowedPackageError(_guard.shadow_message("metrics", "gtheory", _found), name="gtheory") from None

__all__ = ["fmt", "html_table", "kv_table"]
