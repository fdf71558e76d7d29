"""Tests of optimize.solvers.result_document: a Tuning document is read back strictly — a missing, unknown or
invalid field is refused naming the field, the rule and the value found (every field, one case each), and so is a
number JSON does not have (NaN, Infinity)."""
from __future__ import annotations

import json
import re

import pytest

import optimize


@pytest.fixture(scope="module")
def t10(embedded_trec9):
    return optimize.optimize_discount(embedded_trec9, gain=[0, 1, 2], cutoff=10, starts=1)


# -------------------------------------------------------------------------------- JSON
def test_from_json_names_missing_and_invalid_fields(t10):
    d = t10.to_dict()
    for key in ("discount", "cutoff", "phi_1"):
        bad = {k: v for k, v in d.items() if k != key}
        with pytest.raises(ValueError, match=rf"missing field\(s\) '{key}'"):
            optimize.Tuning.from_json(json.dumps(bad))
    with pytest.raises(ValueError, match=r"unknown field\(s\) 'colour'"):
        optimize.Tuning.from_json(json.dumps({**d, "colour": 1}))
    with pytest.raises(ValueError, match=r"field 'gain' must be a list of numbers"):
        optimize.Tuning.from_json(json.dumps({**d, "gain": ["a", "b", "c"]}))
    with pytest.raises(ValueError, match=r"'gain' has 2 entries for 3 'levels'"):
        optimize.Tuning.from_json(json.dumps({**d, "gain": [0.5, 0.5]}))
    with pytest.raises(ValueError, match=r"'cutoff' 20 must be the length of 'discount' \(10\)"):
        optimize.Tuning.from_json(json.dumps({**d, "cutoff": 20}))
    with pytest.raises(ValueError, match="not a gtheory optimize.Tuning JSON document"):
        optimize.Tuning.from_json("{not json")
    with pytest.raises(ValueError, match="missing 'format'"):
        optimize.Tuning.from_json("[1, 2]")


_BAD_FIELDS = [
    # (field, value, message) — before, each was accepted and failed later (str(t)/t.fun KeyError for the
    # objective) or silently computed something else (negative gains, unsorted levels)
    ("what", "banana", "field 'what' must be 'discount', 'gain' or 'joint'; got 'banana'."),
    ("objective", "bogus", "field 'objective' must be 'phi' or 'erho2'; got 'bogus'."),
    ("success", "yes", "field 'success' must be true or false; got 'yes'."),
    ("monotone_gain", 1, "field 'monotone_gain' must be true or false; got 1."),
    ("judged_only", None, "field 'judged_only' must be true or false; got None."),
    ("gain", [0.0, -1.0, 2.0], "field 'gain' must be non-negative (one gain per grade); got [0.0, -1.0, 2.0]."),
    ("gain", [0.5, 0.25, 0.25], "field 'gain' must be 0 for the grades ≤ 0 (0); got [0.5, 0.25, 0.25]."),
    ("gain", [0, 0, 0], "field 'gain' must be positive for some grade; got [0, 0, 0]."),
    ("gain", [0, None, 1], "field 'gain' must be a list of numbers; got [0, None, 1]."),
    ("gain", [0, True, 1], "field 'gain' must be a list of numbers; got [0, True, 1]."),
    ("levels", [2.0, 1.0, 0.0], "field 'levels' must be strictly increasing (the grades in ascending order)"),
    ("levels", [-2.0, -1.0, 0.0], "field 'levels' must be a list of grades holding a positive grade"),
    ("levels", "0,1,2", "field 'levels' must be a list of numbers; got '0,1,2'."),
    ("discount", [-1.0] + [0.1] * 9, "field 'discount' must be non-negative (one weight per rank)"),
    ("discount", [0.0] * 10, "field 'discount' must be positive at some rank"),
    ("discount", [None] + [0.1] * 9, "field 'discount' must be a list of numbers; got [None, 0.1"),
    ("discount", [], "field 'discount' must be a non-empty list of numbers; got []."),
    ("cutoff", "10", "field 'cutoff' must be a positive integer; got '10'."),
    ("cutoff", 10.0, "field 'cutoff' must be a positive integer; got 10.0."),
    ("phi", "0.9", "field 'phi' must be a number or null; got '0.9'."),
    ("var_system", True, "field 'var_system' must be a number or null; got True."),
    ("agree_tol", -1e-6, "field 'agree_tol' must be a non-negative number or null; got -1e-06."),
    ("seconds", "fast", "field 'seconds' must be a non-negative number or null; got 'fast'."),
    ("n_topics", 0, "field 'n_topics' must be a positive integer; got 0."),
    ("nit", -1, "field 'nit' must be an integer ≥ 0; got -1."),
    ("starts", 1.5, "field 'starts' must be a positive integer; got 1.5."),
    ("n_agree", 5, "field 'n_agree' must be at most 'starts' (1); got 5."),
    ("message", None, "field 'message' must be a string; got None."),
    ("solver", 3, "field 'solver' must be a string; got 3."),
    ("start_values", {"log2": "high"}, "field 'start_values' must be an object of start name: number or null"),
    ("start_values", [0.3], "field 'start_values' must be an object of start name: number or null; got [0.3]."),
    ("per_problem", [{"label": "a@10", "cutoff": "10", "fun": 0.2}],
     "field 'per_problem' must be a list of objects whose 'cutoff' is a positive integer"),
    ("per_problem", [{"label": 3, "fun": 0.2}],
     "field 'per_problem' must be a list of objects whose 'label' is a string"),
    ("per_problem", [{"label": "a", "fun": "low"}],
     "field 'per_problem' must be a list of objects whose 'fun' is a number or null"),
    ("per_problem", [0.2], "field 'per_problem' must be a list of objects; got 0.2."),
    ("per_problem", {"a": 1}, "field 'per_problem' must be a list; got {'a': 1}."),
    ("negative_components", ["sytem"], "field 'negative_components' must be a list of distinct 'system', 'topic'"),
    ("negative_components", "system", "field 'negative_components' must be a list; got 'system'."),
    ("gain_family", "bogus", "field 'gain_family': unknown gain family 'bogus'; known: linear"),
    ("gain_family", 2, "field 'gain_family' must be a gain family name or null; got 2."),
    ("binding_cutoff", 11,
     "field 'binding_cutoff' must be null or a positive integer at most 'cutoff' (10); got 11."),
    ("binding_label", 3, "field 'binding_label' must be a string or null; got 3."),
]


@pytest.mark.parametrize("name, value, message", _BAD_FIELDS, ids=[f"{f}={v!r}"[:40] for f, v, _ in _BAD_FIELDS])
def test_from_json_validates_every_field(t10, name, value, message):
    d = t10.to_dict()
    d[name] = value
    with pytest.raises(ValueError, match=re.escape(f"invalid optimize.Tuning JSON document: {message}")):
        optimize.Tuning.from_json(json.dumps(d))


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_a_tuning_with_a_non_json_number_is_refused(t10, token):
    # json.loads takes NaN/Infinity by default: var_system = -inf was read back and gave made-up coefficients
    text = json.dumps({**json.loads(t10.to_json()), "var_system": None}).replace('"var_system": null',
                                                                               f'"var_system": {token}')
    with pytest.raises(ValueError, match=f"{token} is not JSON"):
        optimize.Tuning.from_json(text)
