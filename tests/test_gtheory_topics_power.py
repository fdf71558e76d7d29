"""The power and the expected interval width at n topics (gtheory/topics/power.py) against independent references:
a hand computation of the noncentral distributions from their definitions (a t with a normal numerator and a
scaled χ denominator, integrated numerically; the noncentral F as a Poisson mixture of beta tails), not scipy's
``nct``/``ncf``; a simulation of paired t-tests and of confidence intervals on simulated score matrices; Nagata's
approximations against the exact power. The requirements are those of the topic set size tests (``CASES``)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

import gtheory
from gtheory.topics.power import expected_ci_width, min_detectable_difference, power_at
from test_gtheory_topics_topic_set_size import CASES


def _t_power_by_hand(nu: float, lam: float, alpha: float) -> float:
    """P(|T| >= t_crit) for T = (Z + lam) / sqrt(W / nu), W ~ chi2(nu): integrate the normal tails over W."""
    c = stats.t.isf(alpha / 2, nu)

    def f(w: float) -> float:
        s = math.sqrt(w / nu)
        return (stats.norm.sf(c * s - lam) + stats.norm.cdf(-c * s - lam)) * stats.chi2.pdf(w, nu)

    return integrate.quad(f, 0, np.inf, epsabs=1e-12, limit=200)[0]


def _f_power_by_hand(d1: float, d2: float, lam: float, alpha: float) -> float:
    """P(F' >= F_crit) of the noncentral F as a Poisson(lam/2) mixture of central beta tails."""
    c = stats.f.isf(alpha, d1, d2)
    x = d1 * c / (d1 * c + d2)
    k = np.arange(0, 400)
    return float(np.sum(stats.poisson.pmf(k, lam / 2) * stats.beta.sf(x, d1 / 2 + k, d2 / 2)))


@pytest.mark.parametrize("a,p,d,v", CASES)
def test_power_equals_a_hand_computation_of_the_noncentral_distributions(a, p, d, v):
    for n in (5, 20, 80):
        # paired: nu = n-1, lambda = D sqrt(n) / sqrt(2 sigma^2); two-sample: nu = 2(n-1), lambda = D sqrt(n/2)/sigma
        assert power_at("paired-t", n, min_diff=d, variance=v, alpha=a) == pytest.approx(
            _t_power_by_hand(n - 1, d * math.sqrt(n / (2 * v)), a), abs=1e-8)  # quadrature error << 1e-8
        assert power_at("two-sample-t", n, min_diff=d, variance=v, alpha=a) == pytest.approx(
            _t_power_by_hand(2 * (n - 1), d * math.sqrt(n / 2) / math.sqrt(v), a), abs=1e-8)
        for m in (3, 6):  # anova: (m-1, m(n-1)) df, lambda = n D^2 / (2 sigma^2) (least favourable)
            assert power_at("anova", n, min_diff=d, variance=v, alpha=a, n_systems=m) == pytest.approx(
                _f_power_by_hand(m - 1, m * (n - 1), n * d**2 / (2 * v), a), abs=1e-9)  # series truncated far out


def test_paired_power_matches_simulated_t_tests():
    # simulate the additive two-way model the design assumes: x_ij = mu_i + topic_j + e_ij, e ~ N(0, sigma^2);
    # the share of paired t-tests (scipy.stats.ttest_rel) rejecting at alpha estimates the power
    rng = np.random.default_rng(7)
    v, d, n, reps = 0.02, 0.05, 60, 4000
    topics = rng.normal(0, 0.2, (reps, 1, n))
    x = np.array([d, 0.0])[None, :, None] + topics + rng.normal(0, math.sqrt(v), (reps, 2, n))
    rejected = stats.ttest_rel(x[:, 0], x[:, 1], axis=1).pvalue < 0.05
    expected = power_at("paired-t", n, min_diff=d, variance=v)
    se = math.sqrt(expected * (1 - expected) / reps)
    assert abs(rejected.mean() - expected) < 4 * se  # binomial sampling error of the simulated share


def test_expected_ci_width_equals_the_mean_width_of_simulated_intervals():
    # E[2 t s / sqrt(n)] with s the sd of n paired differences (variance 2 sigma^2): simulate and average
    rng = np.random.default_rng(3)
    v, n = 0.02, 15
    diffs = rng.normal(0, math.sqrt(2 * v), (200_000, n))
    widths = 2 * stats.t.isf(0.025, n - 1) * diffs.std(axis=1, ddof=1) / math.sqrt(n)
    se = widths.std() / math.sqrt(widths.size)
    assert abs(widths.mean() - expected_ci_width(n, variance=v)) < 4 * se


def test_nagata_approximations_are_close_to_the_exact_power():
    # Nagata's normal approximations of the noncentral t and F: within a few thousandths from 12 topics on
    n = np.arange(12, 400)
    for method, kw in (("paired-t", {}), ("two-sample-t", {}), ("anova", {"n_systems": 5})):
        exact = power_at(method, n, min_diff=0.05, variance=0.02, **kw)
        approx = power_at(method, n, min_diff=0.05, variance=0.02, approximation="nagata", **kw)
        assert np.max(np.abs(exact - approx)) < 0.01


def test_min_detectable_difference_takes_several_sizes():
    # regression (issue 34, class 10): a list of sizes failed with NumPy's "only 0-dimensional arrays"
    sizes = [5, 6, 50]
    many = min_detectable_difference("paired-t", sizes, variance=0.02)
    assert many.shape == (3,)
    for k, d in zip(sizes, many):
        assert d == min_detectable_difference("paired-t", k, variance=0.02)
        assert power_at("paired-t", k, min_diff=d, variance=0.02) == pytest.approx(0.8, abs=1e-9)  # the root
    assert np.all(np.diff(many) < 0)  # more topics detect smaller differences
    np.testing.assert_allclose(min_detectable_difference("ci", sizes, variance=0.02),
                               expected_ci_width(np.asarray(sizes), variance=0.02))
    with pytest.raises(gtheory.ParameterError, match="`n`"):
        min_detectable_difference("paired-t", [5, 1.5], variance=0.02)
