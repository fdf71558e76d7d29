"""Tests of gtheory/gstudy/balanced.py: the G-study of a complete systems × topics matrix (ANOVA / expected-mean-squares
estimates, Brennan 2001 ch. 3) and :class:`GStudy`.

References: the two-way ANOVA without replication written out here in exact arithmetic (``fractions``): sums of
squares, mean squares and the EMS solutions σ²(st) = MS(st), σ²(s) = (MS(s) − MS(st))/n_t,
σ²(t) = (MS(t) − MS(st))/n_s; the quantile rule of ``drop_lowest`` (NumPy's linear interpolation). Brennan's
published examples and statsmodels agreement are in test_gtheory_gstudy_gstudy.py (through :func:`gtheory.gstudy`).
"""
from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

from gtheory import NegativeVarianceWarning
from gtheory.gstudy.balanced import GStudy, all_equal_message, balanced_gstudy, centred_total

X = [[7, 4, 6, 5], [5, 2, 5, 4], [9, 6, 7, 8]]  # 3 systems × 4 topics, small integers


def _anova(rows):
    """Two-way ANOVA without replication, exact: (MS_s, MS_t, MS_st, grand mean, SS_total)."""
    x = [[Fraction(v) for v in r] for r in rows]
    ns, nt = len(x), len(x[0])
    mu = sum(map(sum, x)) / (ns * nt)
    ms = [sum(r) / nt for r in x]
    mt = [sum(x[s][t] for s in range(ns)) / ns for t in range(nt)]
    ss_s = nt * sum((m - mu) ** 2 for m in ms)
    ss_t = ns * sum((m - mu) ** 2 for m in mt)
    ss_tot = sum((x[s][t] - mu) ** 2 for s in range(ns) for t in range(nt))
    ss_e = ss_tot - ss_s - ss_t
    return ss_s / (ns - 1), ss_t / (nt - 1), ss_e / ((ns - 1) * (nt - 1)), mu, ss_tot


def test_anova_estimates_by_hand():
    ms_s, ms_t, ms_e, mu, ss_tot = _anova(X)
    g = balanced_gstudy(np.array(X, dtype=float), ["a", "b", "c"], ["1", "2", "3", "4"])
    assert isinstance(g, GStudy) and g.systems == ("a", "b", "c") and g.topics == ("1", "2", "3", "4")
    # sums of a dozen small integers' squares: exact in float64 up to the final divisions (rel 1e-14)
    exact = {"ms_system": ms_s, "ms_topic": ms_t, "ms_residual": ms_e, "grand_mean": mu, "ss_total": ss_tot,
             "var_residual": ms_e, "var_system": (ms_s - ms_e) / 4, "var_topic": (ms_t - ms_e) / 3}
    for name, value in exact.items():
        assert getattr(g, name) == pytest.approx(float(value), rel=1e-14), name
    assert (g.df_system, g.df_topic, g.df_residual, g.df_total) == (2, 3, 6, 11)
    assert g.ss_system + g.ss_topic + g.ss_residual == pytest.approx(g.ss_total, rel=1e-14)
    # Φ(n) and Eρ²(n) from the components (Brennan 2001 §4.1)
    s, t, e = (ms_s - ms_e) / 4, (ms_t - ms_e) / 3, ms_e
    assert g.phi(4) == pytest.approx(float(s / (s + (t + e) / 4)), rel=1e-13)
    assert g.erho2(4) == pytest.approx(float(s / (s + e / 4)), rel=1e-13)
    table = g.components
    assert list(table.index) == ["system", "topic", "system:topic,e"]
    assert table["df"].tolist() == [2, 3, 6]
    # percent: each component's share of their sum, 3 : 13/9 : 1/3 here
    total = s + t + e
    np.testing.assert_allclose(table["percent"], [float(100 * c / total) for c in (s, t, e)], rtol=1e-13)


def test_dstudy_table_is_the_coefficients():
    g = balanced_gstudy(np.array(X, dtype=float), ["a", "b", "c"], list("wxyz"))
    d = g.dstudy([1, 4, 50], level=None)
    assert list(d.index) == [1, 4, 50]
    np.testing.assert_array_equal(d["phi"].to_numpy(), g.phi(np.array([1.0, 4.0, 50.0])))
    np.testing.assert_array_equal(d["erho2"].to_numpy(), g.erho2(np.array([1.0, 4.0, 50.0])))


def test_centred_total_is_shift_invariant():
    # halves with a mean of exactly 2 are exact doubles even near 1e12 (spacing 1.2e-4): every deviation is exact,
    # so the sum of squares is the exact one with and without the shift
    x = np.array([[0.5, 2.0, 3.5], [1.0, 4.5, 0.5]])
    m, ss = centred_total(x)
    ms, ss_shift = centred_total(x + 1e12)
    assert ss == ss_shift == float(_anova(x.tolist())[4]) == 14.0  # 2.25 + 0 + 2.25 + 1 + 6.25 + 2.25
    assert m == 2.0 and ms == 1e12 + 2.0


def test_all_equal_message_explains_rounding_only_at_large_magnitudes():
    assert all_equal_message(0.25) == ("all scores are equal (0.25); every variance component is 0 and Φ and Eρ² are "
                                       "0/0 — undefined. Is the metric computed correctly?")
    big = all_equal_message(1e12)  # doubles near 1e12 are 1.2e-4 apart (≥ 1e-6): rounding may be the cause
    assert "double precision stores numbers in steps of 0.000122" in big and "subtract a constant" in big


@pytest.mark.parametrize("x, drop, message", [
    ([[0.3, 0.3], [0.3, 0.3]], 0.0, r"all scores are equal \(0.3\)"),
    ([[0.1, 0.5], [0.1, 0.5]], 0.0, r"`scores` vary only between topics"),
    ([[0.1, 0.5], [0.2, 0.4]], 1.0, r"`drop_lowest` must be a fraction in \[0, 1\); got 1.0\."),
    ([[0.1, 0.5], [0.2, 0.4], [0.3, 0.6]], 0.9, r"`drop_lowest`=0.9 leaves 1 system\(s\); at least 2 are needed\."),
])
def test_errors(x, drop, message):
    with pytest.raises(ValueError, match=message):
        balanced_gstudy(np.array(x), [f"s{i}" for i in range(len(x))], ["t0", "t1"], drop_lowest=drop)


@pytest.mark.filterwarnings("ignore::gtheory.NegativeVarianceWarning")  # σ²(topic) < 0 in this tiny example
def test_drop_lowest_uses_the_linear_quantile_of_system_means():
    # means 0.1, 0.2, 0.3, 0.4: the 0.25 quantile (linear) is 0.175 → the system of mean 0.1 is dropped
    x = np.array([[0.0, 0.2], [0.1, 0.3], [0.35, 0.25], [0.45, 0.35]])
    g = balanced_gstudy(x, ["lo", "b", "c", "d"], ["t0", "t1"], drop_lowest=0.25)
    assert g.dropped_systems == ("lo",) and g.systems == ("b", "c", "d") and g.n_systems == 3
    assert g.drop_lowest == 0.25 and np.array_equal(g.scores, x[1:])


def test_negative_estimate_is_clipped_and_kept_raw():
    # equal system means: MS(s) = 0, so σ²(s) = −MS(st)/n_t, set to 0 with a warning; the raw value is kept
    x = np.array([[2.0, 6.0, 4.0], [4.0, 4.0, 4.0], [6.0, 2.0, 4.0]])  # topic means equal too: σ²(t) < 0 as well
    with pytest.warns(NegativeVarianceWarning, match=r"σ²\(system\)"):
        g = balanced_gstudy(x, ["a", "b", "c"], ["1", "2", "3"])
    ms_s, ms_t, ms_e, _, _ = _anova(x.tolist())
    assert ms_s == 0 and g.var_system == 0.0 and g.clipped_system
    assert g.var_system_raw == pytest.approx(float(-ms_e / 3), rel=1e-12)
    assert g.phi(10) == 0.0 and math.isinf(g.topics_needed(0.5, level=None).n)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        balanced_gstudy(np.array(X, dtype=float), ["a", "b", "c"], list("wxyz"))  # all positive: silent
