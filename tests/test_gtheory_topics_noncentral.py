"""The total noncentral t and F tails (gtheory/topics/noncentral.py) against R and a direct integration.

* R (base ``stats``): ``pt(q, df, ncp)`` (AS 243, Lenth 1989) and ``pf(q, df1, df2, ncp)`` (pnbeta), one Rscript call
  for the whole grid (skipped only when Rscript is absent; ``.ci/run`` installs r-base-core). R's ``pt`` switches to
  a normal approximation for ncp > 37.62 or df > 4e5, so the grid stops at ncp 36 and df 1e5 (where R is exact).
* ``scipy.integrate.quad`` of the definition :math:`P(T\\ge c) = \\int f_{\\chi^2_\\nu}(v)\\,\\Phi(\\mu - c\\sqrt{v/\\nu})
  \\,dv`, independent of both Boost and the quadrature of the module.
"""
from __future__ import annotations

import math
import shutil
import subprocess

import numpy as np
import pytest
from scipy import integrate, special, stats

from gtheory.topics.noncentral import f_crit, ncf_sf, nct_cdf, nct_power, nct_sf, nct_tail_quadrature, t_crit

needs_r = pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not installed (Debian: r-base-core)")

DFS = [1, 2, 5, 10, 30, 170, 1000, 10**4, 10**5]
NCPS = [0.0, 0.5, 2.0, 5.0, 6.27, 6.5, 7.0, 10.0, 20.0, 30.0, 36.0]
ALPHAS = [0.05, 0.01]
F_D1, F_D2, F_NCPS = [1, 2, 4, 9], [2, 10, 100, 10**4, 10**5], [0.0, 1.0, 5.0, 20.0, 100.0, 1000.0]
SMALL_ALPHAS = [0.05, 0.01, 1e-10, 1e-20, 1e-100]


@pytest.fixture(scope="module")
def r_tails() -> dict[str, np.ndarray]:
    """R's upper and lower tails at the two-sided critical values, and the F's upper tail, over the grids."""
    t_grid = "expand.grid(a=c(%s), df=c(%s), ncp=c(%s))" % tuple(
        ", ".join(map(repr, v)) for v in (ALPHAS, [float(d) for d in DFS], NCPS))
    f_grid = "expand.grid(a=c(%s), d1=c(%s), d2=c(%s), ncp=c(%s))" % tuple(
        ", ".join(map(repr, [float(x) for x in v])) for v in (ALPHAS, F_D1, F_D2, F_NCPS))
    code = (f"g <- {t_grid}; c <- qt(1 - g$a / 2, g$df); "
            "u <- pt(c, g$df, g$ncp, lower.tail = FALSE); l <- pt(-c, g$df, g$ncp); "
            "write.table(cbind(g$a, g$df, g$ncp, c, u, l), row.names = FALSE, col.names = FALSE); cat('--\\n'); "
            f"h <- {f_grid}; q <- qf(h$a, h$d1, h$d2, lower.tail = FALSE); "
            "p <- pf(q, h$d1, h$d2, h$ncp, lower.tail = FALSE); "
            "write.table(cbind(h$a, h$d1, h$d2, h$ncp, q, p), row.names = FALSE, col.names = FALSE); cat('--\\n'); "
            f"k <- expand.grid(a=c({', '.join(map(repr, SMALL_ALPHAS))}), d1=c(1, 3, 9), d2=c(2, 10, 1000)); "
            "write.table(cbind(k$a, k$d1, k$d2, qt(k$a / 2, k$d2, lower.tail = FALSE), "
            "qf(k$a, k$d1, k$d2, lower.tail = FALSE)), row.names = FALSE, col.names = FALSE)")
    out = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, timeout=120, check=True).stdout
    t_text, f_text, crit_text = out.split("--\n")
    return {"t": np.loadtxt(t_text.splitlines()), "f": np.loadtxt(f_text.splitlines()),
            "crit": np.loadtxt(crit_text.splitlines())}


@needs_r
def test_t_tails_equal_r_pt_and_never_nan(r_tails):
    a, df, ncp, c, upper, lower = r_tails["t"].T
    assert len(a) == len(ALPHAS) * len(DFS) * len(NCPS)
    ours_u, ours_l = nct_sf(c, df, ncp), nct_cdf(-c, df, ncp)
    assert np.all(np.isfinite(ours_u)) and np.all(np.isfinite(ours_l))
    # R's pnt is accurate to about 1e-12 absolute (AS 243's errmax); its lower tail for a positive ncp is 1 minus a
    # sum near 1, so only absolute agreement is meaningful there
    np.testing.assert_allclose(ours_u, upper, rtol=0, atol=1e-10)
    np.testing.assert_allclose(ours_l, lower, rtol=0, atol=1e-10)
    power = nct_power(c, df, ncp)
    np.testing.assert_allclose(power, upper + lower, rtol=0, atol=2e-10)


@needs_r
def test_the_quadrature_alone_equals_r_pt_where_boost_fails_or_not(r_tails):
    # the fallback is checked on the whole grid, not only where Boost happens to fail today: every upper and every
    # lower tail (ncp -> -ncp)
    a, df, ncp, c, upper, lower = r_tails["t"].T
    big = ncp >= 0  # every upper tail of the grid
    # R's own error: up to 1.7e-11 absolute at df = 1e5 (its lower tails there are 1.6e-11 where the direct
    # integration gives 1e-17 .. 1e-300; measured), so 5e-11 absolute; the relative accuracy of the small tails is
    # checked against the direct integration below
    np.testing.assert_allclose(nct_tail_quadrature(c[big], df[big], ncp[big]), upper[big], rtol=1e-9, atol=5e-11)
    np.testing.assert_allclose(nct_tail_quadrature(c, df, -ncp), lower, rtol=1e-9, atol=5e-11)


@needs_r
def test_f_tail_equals_r_pf(r_tails):
    a, d1, d2, ncp, q, p = r_tails["f"].T
    ours = ncf_sf(q, d1, d2, ncp)
    assert np.all(np.isfinite(ours))
    np.testing.assert_allclose(ours, p, rtol=0, atol=1e-9)  # pnbeta's errmax 1e-9


@needs_r
def test_critical_values_equal_r_for_small_alpha(r_tails):
    # regression: stdtrit(df, 1 - alpha/2) rounded 1 - alpha/2 (8e-8 relative at 1e-10, inf from 1e-17), so the
    # exact mode answered inf where Nagata's answered a number; R's qt/qf(lower.tail = FALSE) are the reference
    a, d1, d2, qt, qf = r_tails["crit"].T
    # SciPy's stdtrit (Boost's inverse) is within 1e-12 of R's qt on the newest releases and 1.3e-11 at 1.15.0 (the
    # lower bound): 1e-10 leaves room for the release, and is far below the 8e-8 of the bug it guards against
    np.testing.assert_allclose(t_crit(d2, a), qt, rtol=1e-10)
    np.testing.assert_allclose(f_crit(d1, d2, a), qf, rtol=1e-9)  # two inversions of the incomplete beta


def _tail_by_quad(c: float, df: float, mu: float) -> float:
    f = lambda v: stats.chi2.pdf(v, df) * special.ndtr(mu - c * math.sqrt(v / df))  # noqa: E731
    return integrate.quad(f, 0, stats.chi2.isf(1e-30, df), limit=1000, epsabs=0, epsrel=1e-12, points=[df])[0]


@pytest.mark.parametrize("c,df,mu", [(2.6, 170, -6.5), (2.6, 170, -7.0), (63.66, 1, -5.0), (2.57, 1e4, -10.0),
                                     (2.0, 2, -20.0), (63.66, 1, 40.0), (12.7, 1, 40.0), (9.92, 2, 37.0),
                                     (1.96, 1e5, -5.0), (2.58, 1e5, -20.0), (12.7, 1, 0.0)])
def test_the_quadrature_keeps_relative_accuracy_in_the_far_tail(c, df, mu):
    # tails of 1e-19 .. 1e-92 that Boost returns as NaN (or 0): relative 1e-9, the accuracy of the reference
    assert float(nct_tail_quadrature(c, df, mu)) == pytest.approx(_tail_by_quad(c, df, mu), rel=1e-9)


def test_tails_are_probabilities_everywhere_boost_fails():
    # a grid through every region where Boost returns NaN (ncp 6.3+ lower, 36+ both, 1e19+ for F)
    df = np.array([1.0, 2, 10, 170, 1e5, 1e9])
    ncp = np.array([6.3, 7, 36, 50, 1e3, 1e10, 1e149, 1e300])
    for a in (0.05, 0.01, 1e-6):
        D, L = np.meshgrid(df, ncp)
        c = special.stdtrit(D, 1 - a / 2)
        for p in (nct_sf(c, D, L), nct_cdf(-c, D, L), nct_power(c, D, L)):
            assert np.all(np.isfinite(p)) and np.all((p >= 0) & (p <= 1))
        assert np.all(nct_power(c, D, L)[L >= 1e10] == 1.0)  # power 1 to double precision
        q = special.fdtri(3.0, D, 1 - a)
        big = np.minimum(L, 1e290) * 1e10  # up to 1e300, no overflow
        f = ncf_sf(q, 3.0, D, big)
        assert np.all(np.isfinite(f)) and np.all(f[big >= 1e19] == 1.0)


def test_the_quadrature_equals_boost_where_boost_answers():
    # a random draw over df 1-1e5, alpha 1e-6-0.5, ncp 0-40: the two forms of the quadrature and their switch
    # (measured: within 2e-11); Boost's own error in these tails is about 1e-14 absolute
    rng = np.random.default_rng(3)
    df = np.exp(rng.uniform(0, math.log(1e5), 3000))
    df[:500] = rng.integers(1, 6, 500)
    alpha, ncp = np.exp(rng.uniform(math.log(1e-6), math.log(0.5), 3000)), rng.uniform(0, 40, 3000)
    c = t_crit(df, alpha)
    boost = 1 - special.nctdtr(df, ncp, c)
    ok = np.isfinite(boost)
    np.testing.assert_allclose(nct_tail_quadrature(c, df, ncp)[ok], boost[ok], rtol=0, atol=1e-10)


def test_power_rises_with_the_noncentrality():
    # monotone in ncp across the switch between Boost and the quadrature (a seam would show as a drop)
    ncp = np.linspace(0, 60, 601)
    for df in (1.0, 5.0, 170.0):
        c = special.stdtrit(df, 0.995)
        p = nct_power(c, df, ncp)
        assert np.all(np.diff(p) >= -1e-13)


def test_quadrature_refuses_what_it_does_not_define():
    with pytest.raises(ValueError, match="c > 0"):
        nct_tail_quadrature(-1.0, 5, 1.0)
    both = nct_tail_quadrature([1.0, 2.0], 5, 0.0)  # vectorised: each element as its own scalar call
    # each element as its scalar call (to rounding: NumPy releases may sum a vector and a scalar in another order)
    assert both.shape == (2,) and both[0] == pytest.approx(float(nct_tail_quadrature(1.0, 5, 0.0)), rel=1e-14)
    assert both[1] < both[0]


def test_critical_values_hold_for_extreme_alpha():
    # where the quantile functions fail (stdtrit(5, 5e-301) is -inf, betaincinv NaN at 1e-300 with 8 df) the
    # bisection on the tail gives the value whose tail is alpha
    for df in (1.0, 5.0, 100.0):
        c = float(t_crit(df, 1e-300))
        assert math.isfinite(c) and special.stdtr(df, -c) == pytest.approx(5e-301, rel=1e-9)
    for d2 in (8.0, 16.0):
        c = float(f_crit(7.0, d2, 1e-300))
        assert math.isfinite(c) and special.fdtrc(7.0, d2, c) == pytest.approx(1e-300, rel=1e-9)
    assert np.all(np.isfinite(ncf_sf(2.0, 3.0, 10.0, [np.inf, 1e300])))
