"""Tests of metrics/measures/families.py: family specifications such as ``"rbp(p=0.8)"`` parsed without eval, and the one
check of a family's numeric parameters (finite, in range, the parameter named).

References: the ranges documented for each family (``PARAMETER_RANGES``: RBP's p in (0, 1], Järvelin's b > 1,
linear k ≥ 1, exponential base > 1) checked at and around their ends; the grammar ``name(k=v, ...)``.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from metrics import FixableError
from metrics.measures.families import PARAMETER_RANGES, check_finite_vector, check_parameter, parse_family

KNOWN = {"rbp": ("p",), "jarvelin": ("b",), "log2": (), "linear": ("k",)}


@pytest.mark.parametrize("spec, parsed", [
    ("rbp(p=0.8)", ("rbp", {"p": 0.8})),
    ("RBP( p = .5 )", ("rbp", {"p": 0.5})),     # names are case-insensitive, spaces allowed
    ("rbp(0.95)", ("rbp", {"p": 0.95})),        # positional: bound in the family's order
    ("log2", ("log2", {})),
    ("log2()", ("log2", {})),
    ("jarvelin(b=1e1)", ("jarvelin", {"b": 10.0})),
])
def test_parse(spec, parsed):
    assert parse_family(spec, KNOWN, "discount family") == parsed


@pytest.mark.parametrize("spec, exc, message", [
    ("rbp(p=0.8", ValueError, r"cannot parse discount family 'rbp\(p=0.8'; expected one of: rbp\(p=…\), "
                              r"jarvelin\(b=…\), log2, linear\(k=…\)"),
    ("cubic", ValueError, r"unknown discount family 'cubic'; known: rbp\(p=…\)"),
    ("rbp(q=0.5)", ValueError, r"discount family 'rbp' takes parameters \('p',\); got 'q=0.5' in 'rbp\(q=0.5\)'"),
    ("log2(2)", ValueError, r"discount family 'log2' takes parameters \(\)"),
    ("rbp(p=high)", FixableError, r"parameter `p` of discount family 'rbp\(p=high\)' must be a number; got 'high'"),
    ("rbp(p=0)", FixableError, r"`p` of the RBP discount must be in \(0, 1\]; got 0.0"),
    ("rbp(p=nan)", FixableError, r"`p` of the RBP discount must be a finite number in \(0, 1\]; got nan"),
    ("jarvelin(b=1)", FixableError, r"`b` of the Järvelin discount must be > 1; got 1.0"),
    ("linear(k=0.5)", FixableError, r"`k` of the linear discount must be ≥ 1; got 0.5"),
])
def test_errors_name_the_part_and_the_grammar(spec, exc, message):
    with pytest.raises(exc, match=message) as err:
        parse_family(spec, KNOWN, "discount family")
    if exc is FixableError:
        assert err.value.param in ("p", "b", "k")


def test_an_unlisted_parameter_must_still_be_finite():
    assert parse_family("binary(level=-3)", {"binary": ("level",)}, "gain family") == ("binary", {"level": -3.0})
    with pytest.raises(FixableError, match=r"`level` of the binary gain must be a finite number; got inf"):
        parse_family("binary(level=inf)", {"binary": ("level",)}, "gain family")
    with pytest.raises(FixableError, match=r"`x` of gain family 'other' must be a finite number"):
        parse_family("other(x=nan)", {"other": ("x",)}, "gain family")


def test_check_parameter_ends():
    # (0, 1]: 0 excluded, 1 included; values just inside accepted
    assert check_parameter(1, "p", "the RBP discount", low=0.0, high=1.0, low_open=True, high_open=False) == 1.0
    assert check_parameter(5e-324, "p", "the RBP discount", low=0.0, high=1.0, high_open=False) == 5e-324
    with pytest.raises(FixableError, match=r"`p` of the RBP discount must be in \(0, 1\]; got 1.0000000000000002"):
        check_parameter(math.nextafter(1.0, 2.0), "p", "the RBP discount", low=0.0, high=1.0, high_open=False)
    with pytest.raises(FixableError, match=r"`p` of x must be a number; got True"):
        check_parameter(True, "p", "x")
    with pytest.raises(FixableError, match=r"`p` of x must be a number; got 'a'"):
        check_parameter("a", "p", "x")
    with pytest.raises(FixableError, match=r"`p` of x must be < 3; got 3.0"):
        check_parameter(3, "p", "x", high=3.0)


def test_check_finite_vector_names_the_first_bad_position():
    np.testing.assert_array_equal(check_finite_vector([1, 2], "gain", "gains"), [1.0, 2.0])
    with pytest.raises(FixableError, match=r"`gain` \(gains\) must hold finite numbers; got -inf at position 2 "
                                           r"\(2 non-finite\)") as err:
        check_finite_vector([0, 1, -np.inf, np.nan], "gain", "gains")
    assert err.value.param == "gain"
    with pytest.raises(FixableError, match=r"`gain` \(gains\) must hold numbers only"):
        check_finite_vector(["a"], "gain", "gains")


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(PARAMETER_RANGES.items())), st.floats(allow_nan=True, allow_infinity=True))
def test_every_range_accepts_exactly_its_interval(item, x):
    (what, family), params = item
    (name, (low, high, low_open, high_open, owner)), = params.items()
    inside = math.isfinite(x) and (x > low if low_open else x >= low) and (x < high if high_open else x <= high)
    spec = f"{family}({name}={x!r})"
    if inside:
        assert parse_family(spec, {family: (name,)}, what) == (family, {name: x})
    else:
        with pytest.raises(FixableError, match=f"`{name}` of {owner}"):
            parse_family(spec, {family: (name,)}, what)
