"""Parsing of family specifications such as ``"rbp(p=0.8)"`` or ``"jarvelin(2)"`` (no ``eval``), and the one
check of a family's numeric parameters (finite, in its range, the parameter named), shared by the family parser,
the measure names (:mod:`metrics.measures.names`) and the gain and discount vectors."""
from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from gtheory.kit.errors import FixableError

_SPEC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*$")

#: the range of each family parameter: (what, family) -> {parameter: (low, high, low_open, high_open, label)};
#: every parameter of every family must also be finite (checked for all, listed or not)
PARAMETER_RANGES: dict[tuple[str, str], dict[str, tuple[float, float, bool, bool, str]]] = {
    ("discount family", "jarvelin"): {"b": (1.0, math.inf, True, True, "the Järvelin discount")},
    ("discount family", "linear"): {"k": (1.0, math.inf, False, True, "the linear discount")},
    ("discount family", "rbp"): {"p": (0.0, 1.0, True, False, "the RBP discount")},
    ("gain family", "exponential"): {"base": (1.0, math.inf, True, True, "the exponential gain")},
    ("gain family", "binary"): {"level": (-math.inf, math.inf, True, True, "the binary gain")},
}


def _range_text(low: float, high: float, low_open: bool, high_open: bool, finite: bool) -> str:
    """``"> 1"``, ``"in (0, 1]"``; ``"a finite number > 1"`` when the value was not finite (say why it fails)."""
    number = "" if finite else "a finite number "
    if math.isinf(high) and math.isinf(low):
        return "a finite number"
    if math.isinf(high):
        return f"{number}{'>' if low_open else '≥'} {low:g}"
    if math.isinf(low):
        return f"{number}{'<' if high_open else '≤'} {high:g}"
    return f"{'a finite number ' if not finite else ''}in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"


def check_parameter(value: Any, name: str, owner: str, *, low: float = -math.inf, high: float = math.inf,
                    low_open: bool = True, high_open: bool = True) -> float:
    """``value`` as a float when it is a finite number in the range ``low``..``high`` (open or closed ends);
    else a :class:`metrics.FixableError` whose ``param`` is ``name`` and whose message names it and ``owner``
    (``"`p` of the RBP discount must be in (0, 1]; got nan"``). NaN and ±inf are refused whatever the range."""
    try:
        if isinstance(value, bool):
            raise TypeError
        x = float(value)
    except (TypeError, ValueError):
        raise FixableError(f"`{name}` of {owner} must be a number; got {value!r}", param=name) from None
    ok = math.isfinite(x) and (x > low if low_open else x >= low) and (x < high if high_open else x <= high)
    if not ok:
        raise FixableError(f"`{name}` of {owner} must be {_range_text(low, high, low_open, high_open, math.isfinite(x))}"
                           f"; got {x}", param=name)
    return x


def check_finite_vector(values: Any, name: str, owner: str) -> np.ndarray:
    """``values`` as a float64 array when every element is a finite number; else a :class:`metrics.FixableError`
    naming ``name`` (the parameter) and the first offending position (0-based) and value."""
    try:
        vec = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise FixableError(f"`{name}` ({owner}) must hold numbers only", param=name) from None
    bad = np.flatnonzero(~np.isfinite(vec.ravel()))
    if bad.size:
        i = int(bad[0])
        raise FixableError(f"`{name}` ({owner}) must hold finite numbers; got {vec.ravel()[i]:g} at position {i} "
                           f"({bad.size} non-finite)", param=name)
    return vec


def parse_family(spec: str, known: dict[str, tuple[str, ...]], what: str) -> tuple[str, dict[str, float]]:
    """Split ``"name(k=v, ...)"`` into the lower-cased name and float parameters.

    ``known`` maps each family name to its parameter names (positional arguments bind in that order). Every
    parameter must be a finite number in its range (:data:`PARAMETER_RANGES`, :func:`check_parameter`):
    ``linear(k=nan)``, ``jarvelin(b=inf)``, ``binary(level=nan)`` are refused naming the parameter.
    """
    m = _SPEC.match(spec)
    grammar = ", ".join(f"{n}({', '.join(p + '=…' for p in ps)})" if ps else n for n, ps in known.items())
    if not m:
        raise ValueError(f"cannot parse {what} {spec!r}; expected one of: {grammar}")
    name = m.group(1).lower()
    if name not in known:
        raise ValueError(f"unknown {what} {m.group(1)!r}; known: {grammar}")
    params: dict[str, float] = {}
    body = (m.group(2) or "").strip()
    if body:
        names = known[name]
        for i, part in enumerate(p.strip() for p in body.split(",")):
            key, _, val = part.rpartition("=")
            key = key.strip() or (names[i] if i < len(names) else "")
            if key not in names:
                raise ValueError(f"{what} {name!r} takes parameters {names or '()'}; got {part!r} in {spec!r}")
            try:
                x = float(val)
            except ValueError:
                raise FixableError(f"parameter `{key}` of {what} {spec!r} must be a number; got {val.strip()!r}",
                                   param=key) from None
            low, high, low_open, high_open, owner = PARAMETER_RANGES.get((what, name), {}).get(
                key, (-math.inf, math.inf, True, True, f"{what} {name!r}"))
            params[key] = check_parameter(x, key, owner, low=low, high=high, low_open=low_open, high_open=high_open)
    return name, params
