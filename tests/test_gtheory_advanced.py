"""Tests of gtheory/advanced.py: the public building blocks the packages above use (the coefficient API, the JSON
fields of a result, the one score-matrix coercion and its orientation names).

References: hand-built inputs whose systems × topics matrix is written out here; the ParameterError convention
(``param`` names the parameter); JSON round trips.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest

import gtheory
from gtheory import advanced


def test_everything_listed_is_public_and_documented():
    for name in advanced.__all__:
        obj = getattr(advanced, name)
        assert not name.startswith("_") and (obj.__doc__ or "").strip(), name


@pytest.mark.parametrize("spelling, canonical", [
    ("systems x topics", "systems-by-topics"), ("Systems-By-Topics", "systems-by-topics"),
    ("systems × topics", "systems-by-topics"), ("topics by systems", "topics-by-systems"),
    ("long", "long"), ("auto", "auto"),
])
def test_orientation_spellings(spelling, canonical):
    assert advanced.canonical_orientation(spelling) == canonical


def test_an_unknown_orientation_is_a_parameter_error_listing_the_spellings():
    with pytest.raises(gtheory.ParameterError, match=r"`orientation` must be one of 'auto', 'systems x topics'.*"
                                                     r"got 'diagonal'") as err:
        advanced.canonical_orientation("diagonal")
    assert err.value.param == "orientation"


def test_coerce_matrix_long_wide_and_array_agree():
    want = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])  # systems a, b × topics 1, 2, 3
    long = pd.DataFrame({"system": ["a"] * 3 + ["b"] * 3, "topic": ["1", "2", "3"] * 2, "score": want.ravel()})
    x, systems, topics, labelled = advanced.coerce_matrix(long)
    assert labelled and list(systems) == ["a", "b"] and list(topics) == ["1", "2", "3"]
    np.testing.assert_array_equal(x, want)
    wide = long.pivot(index="topic", columns="system", values="score")  # topics × systems, axes named
    x2, s2, t2, _ = advanced.coerce_matrix(wide)
    np.testing.assert_array_equal(x2, want)
    assert list(s2) == ["a", "b"] and list(t2) == ["1", "2", "3"]
    x3, s3, t3, labelled3 = advanced.coerce_matrix(want)  # an array is systems × topics
    np.testing.assert_array_equal(x3, want)
    assert not labelled3 and list(s3) == [0, 1] and list(t3) == [0, 1, 2]
    frame = advanced.frame_to_matrix(long, "auto", None, "scores")
    assert frame.index.name == "system" and frame.columns.name == "topic"
    np.testing.assert_array_equal(frame.to_numpy(), want)


def test_coerce_matrix_refuses_nan_unless_allowed():
    x = np.array([[0.1, np.nan], [0.3, 0.4], [0.5, 0.6]])
    with pytest.raises(ValueError, match="NaN"):
        advanced.coerce_matrix(x)
    got, *_ = advanced.coerce_matrix(x, allow_nan=True)
    assert np.isnan(got[0, 1]) and got[2, 1] == 0.6


@dataclass(frozen=True)
class _Doc:
    JSON_FORMAT: ClassVar[str] = "gtheory.test-doc/1"
    value: float
    label: str = "x"


def test_fields_document_and_read_fields_round_trip():
    d = advanced.fields_document(_Doc(math.inf, "é"))
    assert d == {"value": None, "label": "é", "format": "gtheory.test-doc/1"}  # inf is null in strict JSON
    import json

    assert advanced.read_fields(_Doc, json.dumps(d)) == {"value": None, "label": "é"}
    with pytest.raises(ValueError, match=r"not a gtheory.test-doc/1 document: missing fields \['value'\]"):
        advanced.read_fields(_Doc, json.dumps({"format": "gtheory.test-doc/1"}))


def test_why_never_reached_is_the_rule_of_topics_needed():
    # equal system means: MS(system) = 0, so σ²(system) = -MS(st)/n_t < 0, set to 0
    with pytest.warns(gtheory.NegativeVarianceWarning):
        g = gtheory.gstudy(np.array([[0.2, 0.6, 0.4], [0.4, 0.4, 0.4]]))
    need = g.topics_needed(0.9, "phi", level=None)
    assert need.n == math.inf and need.reason == advanced.why_never_reached(g.phi_ratio, 0.9)
