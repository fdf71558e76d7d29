"""Parsing of family specifications such as ``"rbp(p=0.8)"`` or ``"jarvelin(2)"`` (no ``eval``)."""
from __future__ import annotations

import re

_SPEC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*$")


def parse_family(spec: str, known: dict[str, tuple[str, ...]], what: str) -> tuple[str, dict[str, float]]:
    """Split ``"name(k=v, ...)"`` into the lower-cased name and float parameters.

    ``known`` maps each family name to its parameter names (positional arguments bind in that order).
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
                params[key] = float(val)
            except ValueError:
                raise ValueError(f"parameter {key!r} of {what} {spec!r} must be a number; got {val.strip()!r}") from None
    return name, params
