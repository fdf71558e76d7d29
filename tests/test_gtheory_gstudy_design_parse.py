"""Tests of gtheory.gstudy.design_parse: Brennan's design notation parsed into its effects (each design's effects
listed by hand from Brennan 2001, ch. 3), the degrees of freedom of the effects summing to the total, and the
errors naming what is wrong in the text."""
from __future__ import annotations

import math

import pytest

from gtheory import parse_design


# ----------------------------------------------------------------- design strings
@pytest.mark.parametrize(
    "text, effects",
    [
        ("p x i", ["p", "i", "p x i"]),
        ("i:p", ["p", "i:p"]),
        ("p x i x o", ["p", "i", "o", "p x i", "p x o", "i x o", "p x i x o"]),
        ("p x (r:t)", ["p", "t", "r:t", "p x t", "p x r:t"]),
        ("p × (i:h)", ["p", "h", "i:h", "p x h", "p x i:h"]),
        ("i:(p x h)", ["p", "h", "p x h", "i:(p x h)"]),
        ("r:t:p", ["p", "t:p", "r:(t x p)"]),
        ("(p:c) x i", ["c", "i", "p:c", "c x i", "p x i:c"]),
    ],
)
def test_parse_design_effects(text, effects):
    assert sorted(e.name for e in parse_design(text).effects) == sorted(effects)


@pytest.mark.parametrize("text, match", [
    ("p x", "expected a facet name"),
    ("p x (r:t", "missing '\\)'"),
    ("p x p", "appears twice"),
    ("p + i", "cannot parse"),
    ("", "empty design"),
    ("p i", "unexpected 'i'"),
])
def test_parse_design_errors(text, match):
    with pytest.raises(ValueError, match=match):
        parse_design(text)


def test_df_sum_to_total_for_nested_designs():
    for text in ("r:t:p", "(p:c) x i", "i:(p x h)"):
        d = parse_design(text)
        sizes = {f: 2 + k for k, f in enumerate(d.facets)}
        total = math.prod(sizes.values()) - 1
        dfs = [math.prod(sizes[f] - 1 for f in e.primary) * math.prod(sizes[f] for f in e.nesting)
               for e in d.effects]
        assert sum(dfs) == total
