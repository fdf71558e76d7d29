"""Notebook display of metrics' result objects (private): the one implementation is :mod:`gtheory.kit.display`.

``gtheory`` imports no sibling package (it must work beside a user's own ``metrics.py``), so the display helpers
every package shares live there; metrics' result types (``Coverage``, ``Qrels``, ``JudgedRuns``, ...) import this
module only inside their ``_repr_html_``/``summary`` methods.
"""
from __future__ import annotations

try:
    from gtheory.kit.display import fmt, html_table, kv_table
except ImportError:
    import importlib.util as _u, pathlib as _p  # `gtheory` shadowed? Its guard, from its file beside us, says by what
    _s = _u.spec_from_file_location("gtheory_guard", _p.Path(__file__).resolve().parents[1] / "gtheory/kit/siblings.py")
    _g = _u.module_from_spec(_s); _s.loader.exec_module(_g); _g.explain_shadowed_gtheory("metrics")  # noqa: E702
    raise

__all__ = ["fmt", "html_table", "kv_table"]
