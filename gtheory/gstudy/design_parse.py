r"""A design in Brennan's notation, parsed: the facets, how they nest and cross, and the effects of the
random-effects model (:class:`Design`, :class:`Effect`, :func:`parse_design`); :mod:`gtheory.gstudy.designs`
estimates its G-study and D-studies.

Design strings
--------------
Facet names are identifiers; ``x`` (or ``×``, ``*``, surrounded by spaces) crosses, ``:`` nests
(binds tighter than ``x``, right-associative), parentheses group::

    "p x i"          persons crossed with items
    "i:p"            items nested within persons
    "p x i x o"      three crossed facets
    "p x (r:t)"      raters nested within tasks, crossed with persons
    "i:(p x h)"      items nested within person-by-occasion cells

Grammar: ``cross := nest ("x" nest)*``, ``nest := atom (":" nest)?``,
``atom := NAME | "(" cross ")"``.

Effects are the sets of *primary* facets :math:`P` in which no facet is nested within another; an effect's
nesting facets :math:`N(P)` are all facets its primary facets are nested in, and its index set is
:math:`I = P \cup N(P)` (Brennan 2001, ch. 3; e.g. ``p x r:t`` has :math:`P=\{p,r\}`, :math:`N=\{t\}`).

References
----------
.. [1] R. L. Brennan (2001). *Generalizability Theory*. Springer. Ch. 3 (balanced designs).
"""
from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

__all__ = ["Design", "Effect", "parse_design"]

_GRAMMAR = ('cross := nest ("x" nest)* ; nest := atom (":" nest)? ; atom := NAME | "(" cross ")" '
            '— e.g. "p x i", "i:p", "p x i x o", "p x (r:t)"')


_TOKEN = re.compile(r"\s*(?:([():])|([×*])|([A-Za-z_][A-Za-z0-9_]*))")


@dataclass(frozen=True)
class Effect:
    """One source of variance: primary facets and the facets they are nested within."""

    primary: tuple[str, ...]
    nesting: tuple[str, ...]

    @property
    def facets(self) -> frozenset[str]:
        """Index set I(α) = primary ∪ nesting."""
        return frozenset(self.primary) | frozenset(self.nesting)

    @property
    def name(self) -> str:
        """Brennan-style label: ``p``, ``p x i``, ``r:t``, ``p x r:t``, ``i:(p x h)``."""
        s = " x ".join(self.primary)
        if self.nesting:
            inner = " x ".join(self.nesting)
            s += ":" + (f"({inner})" if len(self.nesting) > 1 else inner)
        return s

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Design:
    """A parsed design: facets in the order written and, for each, the facets it is nested in."""

    text: str
    facets: tuple[str, ...]
    nested_in: Mapping[str, frozenset[str]] = field(repr=False)

    @cached_property
    def effects(self) -> tuple[Effect, ...]:
        """All effects (sources of variance), ordered by size of the index set, then design order."""
        out = []
        for k in range(1, len(self.facets) + 1):
            for prim in itertools.combinations(self.facets, k):
                ps = set(prim)
                if any(self.nested_in[f] & ps for f in prim):
                    continue
                nest = set().union(*(self.nested_in[f] for f in prim)) - ps
                out.append(Effect(prim, tuple(f for f in self.facets if f in nest)))
        # Brennan's order: by size of the index set, then as written (p, t, r:t, p x t, p x r:t)
        return tuple(sorted(out, key=lambda e: len(e.facets)))

    def __str__(self) -> str:
        return self.text


def parse_design(text: str) -> Design:
    """Parse a design string such as ``"p x (r:t)"``; see the module docstring for the grammar.

    Raises
    ------
    ValueError
        On a syntax error (the message shows the grammar), or a facet named twice.
    """
    if not isinstance(text, str):
        raise TypeError(f"`design` must be a string such as 'p x i'; got {type(text).__name__}.")
    tokens: list[str] = []
    pos = 0
    stripped = text.rstrip()
    while pos < len(stripped):
        m = _TOKEN.match(stripped, pos)
        if not m or m.end() == pos:
            raise ValueError(f"cannot parse design {text!r} at {stripped[pos:]!r}; grammar: {_GRAMMAR}.")
        tok = m.group(1) or m.group(2) or m.group(3)
        tokens.append("x" if tok in ("×", "*", "x", "X") else tok)
        pos = m.end()
    facets: list[str] = []
    nested: dict[str, set[str]] = {}
    i = 0

    def peek() -> str | None:
        return tokens[i] if i < len(tokens) else None

    def fail(msg: str) -> ValueError:
        return ValueError(f"invalid design {text!r}: {msg}; grammar: {_GRAMMAR}.")

    def cross() -> list[str]:
        nonlocal i
        fs = nest()
        while peek() == "x":
            i += 1
            fs += nest()
        return fs

    def nest() -> list[str]:
        nonlocal i
        inner = atom()
        if peek() == ":":
            i += 1
            outer = nest()
            for f in inner:
                nested[f] |= set(outer)
            return inner + outer
        return inner

    def atom() -> list[str]:
        nonlocal i
        tok = peek()
        if tok == "(":
            i += 1
            fs = cross()
            if peek() != ")":
                raise fail("missing ')'")
            i += 1
            return fs
        if tok is None or tok in "():x":
            raise fail(f"expected a facet name, got {tok or 'end of text'!r}")
        i += 1
        if tok in nested:
            raise fail(f"facet {tok!r} appears twice")
        facets.append(tok)
        nested[tok] = set()
        return [tok]

    if not tokens:
        raise fail("empty design")
    cross()
    if i != len(tokens):
        raise fail(f"unexpected {tokens[i]!r}")
    return Design(text, tuple(facets), {f: frozenset(s) for f, s in nested.items()})
