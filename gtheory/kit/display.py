"""Notebook display of result objects: a compact HTML table for ``_repr_html_`` (private).

Jupyter calls ``obj._repr_html_()`` when a cell's value is displayed; every result object of the package builds
its table with :func:`html_table` so that all look alike. This is the one implementation: ``gtheory`` imports no
sibling package, so the helpers every package shares live in its kit; metrics' result types import this module
inside their display methods, optimize and experiments at the top.
"""
from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from .render import html as _esc

__all__ = ["fmt", "html_table", "kv_table"]

_STYLE = ("border-collapse:collapse;font-size:0.9em;margin:0.2em 0")
_CELL = "border:1px solid #ccc;padding:0.15em 0.5em;"


def signed(v: float, digits: int = 3) -> str:
    """``+0.012`` / ``-0.012``; a value that rounds to zero is ``0.000`` (never ``-0.000`` or ``+0.000``);
    NaN is ``nan``."""
    if v != v:
        return "nan"
    text = f"{v:+.{digits}f}"
    return text[1:] if float(text) == 0 else text


def fmt(v: Any, digits: int = 4) -> str:
    """A cell value as text: floats to ``digits`` significant digits (never ``-0``), ±∞ and NaN as ``∞``
    and ``–``, booleans as yes/no, NumPy scalars as plain numbers."""
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if math.isnan(v):
            return "–"
        if math.isinf(v):
            return "∞" if v > 0 else "−∞"
        text = f"{v:.{digits}g}"
        return text[1:] if text.startswith("-") and float(text) == 0 else text
    return str(v)


def html_table(rows: Iterable[Sequence[Any]], header: Sequence[str] | None = None, caption: str = "",
               digits: int = 4) -> str:
    """An HTML ``<table>``: optional ``caption`` and ``header``; cells formatted by :func:`fmt` and escaped by the
    kit's one HTML rule (:func:`gtheory.kit.render.html`).

    The first column is left-aligned (labels), the others right-aligned (numbers).
    """
    def cell(tag: str, i: int, v: Any) -> str:
        align = "left" if i == 0 else "right"
        return f'<{tag} style="{_CELL}text-align:{align}">{_esc(fmt(v, digits))}</{tag}>'

    out = [f'<table style="{_STYLE}">']
    if caption:
        out.append(f'<caption style="text-align:left;font-weight:bold">{_esc(caption)}</caption>')
    if header:
        out.append("<thead><tr>" + "".join(cell("th", i, h) for i, h in enumerate(header)) + "</tr></thead>")
    out.append("<tbody>")
    out += ["<tr>" + "".join(cell("td", i, v) for i, v in enumerate(r)) + "</tr>" for r in rows]
    out.append("</tbody></table>")
    return "".join(out)


def kv_table(caption: str, items: Mapping[str, Any], digits: int = 4) -> str:
    """A two-column (name, value) :func:`html_table` of ``items``."""
    return html_table(items.items(), caption=caption, digits=digits)


def listed(items: Sequence[Any], what: str = "", show: int = 5) -> str:
    """The first ``show`` of ``items`` for a one-line message: ``a, b, c`` or ``a, b, c, d, e and 7 more``; with
    ``what``, the things named (``run a`` / ``3 runs (a, b, c)``)."""
    text = ", ".join(map(str, items[:show])) + (f" and {len(items) - show} more" if len(items) > show else "")
    if not what:
        return text
    return f"{what} {text}" if len(items) == 1 else f"{len(items)} {what}s ({text})"
