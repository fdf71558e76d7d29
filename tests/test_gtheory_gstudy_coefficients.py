"""Tests of gtheory/gstudy/coefficients.py: the coefficient API shared by every result with variance components —
``phi(n)``, ``erho2(n)``, ``topics_needed`` (:class:`TopicsNeeded`), :class:`CoefficientInterval`,
:func:`topics_needed_for_ratio` and :func:`why_never_reached`.

References: Brennan (2001) §4.1 and Kanoulas & Aslam (2009) eqs. 2-3 — Φ(n) = σ²s / (σ²s + (σ²t + σ²st)/n),
Eρ²(n) = σ²s / (σ²s + σ²st/n) — evaluated here from chosen components in exact arithmetic (``fractions``), and the
closed form n = ⌈target / ((1 - target) r)⌉ checked against the coefficient itself at n and n - 1.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import gtheory
from gtheory.gstudy.coefficients import (MAX_TOPICS, CoefficientInterval, TopicsNeeded, topics_needed_for_ratio,
                                  why_never_reached)
from gtheory.gstudy.coefficients import Coefficients


@dataclass(frozen=True)
class Components(Coefficients):
    """The smallest user of the shared coefficient API: ratios from three variance components."""

    var_system: float
    var_topic: float
    var_residual: float
    n_topics: int = 10
    n_systems: int = 20
    ms_system: float = math.nan
    ms_topic: float = math.nan
    ms_residual: float = math.nan

    @property
    def phi_ratio(self) -> float:
        return self.var_system / (self.var_topic + self.var_residual)

    @property
    def erho2_ratio(self) -> float:
        return self.var_system / self.var_residual


def test_phi_and_erho2_from_the_components_in_exact_arithmetic():
    c = Components(0.03, 0.02, 0.05)
    s, t, st_ = Fraction(3, 100), Fraction(2, 100), Fraction(5, 100)
    for n in (1, 2, 10, 37):
        phi = s / (s + (t + st_) / n)
        erho2 = s / (s + st_ / n)
        # the library computes n r / (1 + n r) with r a quotient of floats: a few ulp from the exact value
        assert c.phi(n) == pytest.approx(float(phi), rel=1e-14) and c.erho2(n) == pytest.approx(float(erho2), rel=1e-14)
    assert c.phi() == c.phi(10)  # default: the result's own number of topics
    assert isinstance(c.phi(3), float) and c.phi(np.array([[1, 2], [3, 4]])).shape == (2, 2)
    assert c.phi(2.5) == pytest.approx(float(s / (s + (t + st_) / Fraction(5, 2))), rel=1e-14)  # real n allowed


def test_topics_needed_without_interval():
    c = Components(0.03, 0.02, 0.05)
    # Φ ratio r = 0.03 / 0.07 = 3/7: n = 0.9 / (0.1 × 3/7) = 21 exactly → 21 topics
    t = c.topics_needed(0.9, "phi", level=None)
    assert t.n == 21 and t.n_exact == pytest.approx(21.0, rel=1e-12) and t.level is None and t.reason is None
    assert c.phi(t.n) >= 0.9 - 1e-15 and c.phi(t.n - 1) < 0.9
    assert str(t) == "Φ ≥ 0.9: 21 topics (exact 21)"
    # Eρ² ratio 0.6: 0.9 / (0.1 × 0.6) = 15
    assert c.topics_needed(0.9, "erho2", level=None).n == 15


@pytest.mark.parametrize("call, message", [
    (lambda c: c.phi(0), r"`n_topics` must be positive and finite; got 0\."),
    (lambda c: c.erho2([1, math.inf]), r"`n_topics` must be positive and finite; got \[1, inf\]\."),
    (lambda c: c.phi(True), r"`n_topics` must be positive and finite; got True\."),
    (lambda c: c.phi("ten"), r"`n_topics` must be positive and finite; got 'ten'\."),
    (lambda c: c.topics_needed(0.9, "kappa"), r"`coefficient` must be 'phi' or 'erho2'; got 'kappa'\."),
    (lambda c: c.topics_needed(1.0), r"`target` must be a probability strictly in \(0, 1\); got 1.0;"),
])
def test_errors_name_the_parameter(call, message):
    with pytest.raises(ValueError, match=message):
        call(Components(0.03, 0.02, 0.05))


@pytest.mark.parametrize("ratio, target, n", [
    (0.5, 0.95, 38),            # 0.95 / (0.05 * 0.5) = 38 exactly: Φ(38) = 19/20 reaches 0.95
    (1.0, 0.9, 9),              # 0.9 / (1 - 0.9) = 9.000000000000002 in floating point: corrected to 9
    (0.3, 0.8, 14),             # 13.33… rounded up
    (1e-9, 0.5, 1_000_000_000),
    (math.inf, 0.99, 1),        # no error variance: one topic suffices
    (0.0, 0.9, math.inf), (-0.2, 0.9, math.inf), (math.nan, 0.9, math.inf),
])
def test_topics_needed_for_ratio(ratio, target, n):
    # n = ceil(target / ((1 - target) ratio)), checked against project(): Φ(n) >= target > Φ(n - 1)
    from gtheory.gstudy.intervals import project

    got = gtheory.topics_needed_for_ratio(ratio, target)
    assert got == n and type(got) is type(n)
    if math.isfinite(n) and math.isfinite(ratio):
        assert project(ratio, n) >= target and (n == 1 or project(ratio, n - 1) < target)


def test_topics_needed_for_a_noise_level_ratio_returns_at_once():
    # it used to count k += 1 up to 1.9e21 (minutes): now closed form, inf beyond MAX_TOPICS (the time is the
    # closed form's: no timing asserted here, a test that hung would show in the suite's time-out)
    assert gtheory.topics_needed_for_ratio(1e-20, 0.95) == math.inf
    assert gtheory.topics_needed_for_ratio(5e-324, 0.5) == math.inf
    assert "rounding noise" in why_never_reached(1e-20, 0.95) and f"{MAX_TOPICS:.0e}" in why_never_reached(1e-20, 0.95)
    assert why_never_reached(0.0, 0.95) == "σ²(system) = 0: Φ is 0 for every number of topics"
    assert why_never_reached(0.5, 0.95) is None
    # the largest finite answers agree with ceil(target / ((1 - target) r)) (checked by project())
    from gtheory.gstudy.intervals import project

    for r in (1e-12, 3.3e-14):
        n = gtheory.topics_needed_for_ratio(r, 0.9)
        assert project(r, n) >= 0.9 > project(r, n - 1)


@settings(max_examples=200, deadline=None)
@given(st.floats(1e-6, 1e6), st.floats(0.01, 0.99))
def test_topics_needed_for_ratio_is_the_smallest_n_reaching_the_target(ratio, target):
    # the property that defines the answer, checked with the coefficient in exact arithmetic on the float inputs:
    # n r / (1 + n r) >= target at n and < target at n - 1 (up to one rounding of the float computation, 1e-12)
    n = topics_needed_for_ratio(ratio, target)
    r, t = Fraction(ratio), Fraction(target)

    def coef(k):
        return k * r / (1 + k * r)

    assert isinstance(n, int) and n >= 1
    assert coef(n) >= t * (1 - Fraction(1, 10**12))
    assert n == 1 or coef(n - 1) < t * (1 + Fraction(1, 10**12))


def test_why_never_reached_words_each_case():
    assert why_never_reached(math.nan, 0.9) == "Φ is undefined (0/0: no system and no error variance)"
    assert why_never_reached(0.0, 0.9, "erho2") == "σ²(system) = 0: Eρ² is 0 for every number of topics"
    assert why_never_reached(math.inf, 0.9) is None and why_never_reached(1.0, 0.9) is None
    assert MAX_TOPICS == 1e15


def test_topics_needed_json_round_trip_keeps_infinities(tmp_path):
    never = TopicsNeeded("phi", 0.95, math.inf, math.inf, 0.9, math.inf, math.inf, "σ²(system) = 0: Φ is 0 for "
                         "every number of topics")
    text = never.to_json(tmp_path / "t.json")
    assert '"n": null' in text and "Infinity" not in text
    assert TopicsNeeded.from_json(tmp_path / "t.json") == never
    undefined = TopicsNeeded("phi", 0.95, math.inf, math.nan, reason="Φ is undefined (0/0: ...)")
    back = TopicsNeeded.from_json(undefined.to_json())
    assert back.n == math.inf and math.isnan(back.n_exact)  # null n_exact is NaN when the reason says undefined
    finite = TopicsNeeded("erho2", 0.8, 12, 11.3, 0.95, 8, 20)
    assert TopicsNeeded.from_json(finite.to_json()) == finite
    assert repr(finite) == "TopicsNeeded(Eρ² ≥ 0.8: 12 topics (exact 11.3), 95% CI [8, 20])"
    with pytest.raises(ValueError, match=r"not a valid gtheory.TopicsNeeded/1 document: field 'extra' is not a field"):
        TopicsNeeded.from_json(finite.to_json()[:-2] + ', "extra": 1}')


def test_coefficient_interval_json_round_trip_scalar_and_array():
    one = CoefficientInterval("phi", 10.0, 0.8, 0.7, 0.88, 0.95, "Arteaga et al. (1982)")
    back = CoefficientInterval.from_json(one.to_json())
    assert back == one
    assert repr(one) == "CoefficientInterval(Φ(10) = 0.8, 95% CI [0.7, 0.88], Arteaga et al. (1982))"
    many = CoefficientInterval("erho2", np.array([5.0, 50.0]), np.array([0.5, np.nan]), np.array([0.4, np.nan]),
                               np.array([0.6, np.nan]), 0.9, "Feldt (1965)")
    back = CoefficientInterval.from_json(many.to_json())
    for k in ("n_topics", "estimate", "low", "high"):
        np.testing.assert_array_equal(getattr(back, k), getattr(many, k))  # NaN written as null, read back as NaN
    assert many.summary().splitlines() == ["Eρ²: 90% confidence intervals (Feldt (1965))",
                                           "  Eρ²(5) = 0.5  [0.4, 0.6]", "  Eρ²(50) = –  [–, –]"]


import json  # noqa: E402
from typing import ClassVar  # noqa: E402

from gtheory.gstudy.coefficients import fields_document, read_fields, why_never_reached  # noqa: E402

@dataclass(frozen=True)
class _Doc:
    JSON_FORMAT: ClassVar[str] = "gtheory.test-doc/1"
    value: float
    label: str = "x"


def test_fields_document_and_read_fields_round_trip():
    d = fields_document(_Doc(math.inf, "é"))
    assert d == {"value": None, "label": "é", "format": "gtheory.test-doc/1"}  # inf is null in strict JSON
    assert read_fields(_Doc, json.dumps(d)) == {"value": None, "label": "é"}
    with pytest.raises(ValueError, match=r"not a gtheory.test-doc/1 document: missing fields \['value'\]"):
        read_fields(_Doc, json.dumps({"format": "gtheory.test-doc/1"}))


def test_why_never_reached_is_the_rule_of_topics_needed():
    # equal system means: MS(system) = 0, so σ²(system) = -MS(st)/n_t < 0, set to 0
    with pytest.warns(gtheory.NegativeVarianceWarning):
        g = gtheory.gstudy(np.array([[0.2, 0.6, 0.4], [0.4, 0.4, 0.4]]))
    need = g.topics_needed(0.9, "phi", level=None)
    assert need.n == math.inf and need.reason == why_never_reached(g.phi_ratio, 0.9)


@pytest.mark.parametrize("exact, shown", [(24.0023, "exact 24.002"), (24.0, "exact 24"), (23.9, "exact 23.9"),
                                          (7.00000001, "exact 7.00000001"), (1234.56, "exact 1235")])
def test_the_unrounded_answer_never_reads_as_the_whole_number_below_it(exact, shown):
    """25 topics needed with the exact answer 24.0023 was printed "(exact 24)": the unrounded answer has 4
    significant digits, more when 4 would show the whole number below it."""
    import math

    from gtheory import TopicsNeeded

    t = TopicsNeeded("phi", 0.95, math.ceil(exact), exact)
    assert f"({shown})" in str(t)
