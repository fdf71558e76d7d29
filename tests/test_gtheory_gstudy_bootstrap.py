"""Tests of gtheory.gstudy.bootstrap (Brennan's boot-p / boot-i / boot-p,i with Wiley's bias corrections).

References: the bias formulas are checked against brute-force expectations over *every* resample
of a tiny matrix (exact, no Monte-Carlo error); the batched components against explicit copies of
the resampled matrices; the intervals by a coverage simulation on normal matrices with known
components. Brennan (2001) prints no bootstrap results for the textbook data sets in the shared
data, so there is no published number to reproduce.
"""
from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

import gtheory
from gtheory import gstudy, variance_components
from gtheory.gstudy.bootstrap import _basic_intervals, _counts_of, _expanded_tail, _weighted_components, bias_adjust


def _matrix(ns=8, nt=6, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(0, 0.3, (ns, 1)) + rng.normal(0, 0.5, (1, nt)) + rng.normal(0, 0.4, (ns, nt))


def test_weighted_components_equal_copies():
    x = _matrix()
    rng = np.random.default_rng(1)
    rows, cols = rng.integers(0, 8, (20, 8)), rng.integers(0, 6, (20, 6))
    vc = variance_components(x[rows[:, :, None], cols[:, None, :]])
    got = _weighted_components(x, _counts_of(rows, 8), _counts_of(cols, 6))
    np.testing.assert_allclose(got, np.stack([vc.system, vc.topic, vc.residual], -1), rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("over", ["systems", "topics", "both"])
def test_bias_adjustment_is_exact_in_expectation(over):
    # every resample of a 4 x 3 matrix enumerated: the mean of the adjusted replicates equals the
    # sample estimate exactly (Wiley 2000; Brennan 2001 ch. 6)
    ns, nt = 4, 3
    x = _matrix(ns, nt, seed=3)
    rs = list(itertools.product(range(ns), repeat=ns)) if over != "topics" else [tuple(range(ns))]
    cs = list(itertools.product(range(nt), repeat=nt)) if over != "systems" else [tuple(range(nt))]
    rows = np.array([r for r in rs for _ in cs])
    cols = np.array([c for _ in rs for c in cs])
    v = _weighted_components(x, _counts_of(rows, ns), _counts_of(cols, nt))
    adj = np.stack(bias_adjust(v[:, 0], v[:, 1], v[:, 2], ns, nt, over), -1).mean(axis=0)
    vc = variance_components(x)
    np.testing.assert_allclose(adj, [vc.system, vc.topic, vc.residual], rtol=1e-10)
    # and the raw replicates are biased as the module docstring states
    raw = v.mean(axis=0)
    if over == "systems":
        assert raw[1] == pytest.approx(vc.topic + vc.residual / ns)
    if over == "both":
        assert raw[0] == pytest.approx((ns - 1) / ns * (vc.system + vc.residual / nt))


def test_point_estimates_agree_with_gstudy():
    g = gstudy(_matrix(12, 10))
    b = g.bootstrap(n_resamples=50, seed=0)
    est = dict(zip(b.quantities, b.estimate))
    assert est["phi"] == pytest.approx(g.phi())
    assert est["erho2"] == pytest.approx(g.erho2())
    assert est["topics_needed"] == g.topics_needed(0.95, level=None).n


@pytest.mark.parametrize("kwargs, match", [
    ({"n_resamples": 5}, r"`n_resamples` must be an integer >= 10; got 5"),
    ({"over": "items"}, r"`over` must be 'auto', 'systems', 'topics' or 'both'; got 'items'"),
    ({"level": 1.5}, r"`level` must be a probability strictly in \(0, 1\); got 1.5"),
    ({"seed": -1}, r"`seed` must be a non-negative integer, None, a numpy.random.Generator or a numpy.random.SeedSequence; got -1"),
])
def test_argument_errors(kwargs, match):
    g = gstudy(_matrix())
    with pytest.raises(ValueError, match=match):
        g.bootstrap(**kwargs)


def test_one_facet_fast_path_equals_general_counts():
    x = _matrix(9, 7)
    rng = np.random.default_rng(2)
    wr, wc = _counts_of(rng.integers(0, 9, (15, 9)), 9), _counts_of(rng.integers(0, 7, (15, 7)), 7)
    np.testing.assert_allclose(_weighted_components(x, wr, None), _weighted_components(x, wr, np.ones((15, 7))),
                               rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(_weighted_components(x, None, wc), _weighted_components(x, np.ones((15, 9)), wc),
                               rtol=1e-12, atol=1e-15)


def test_expanded_tail_by_hand():
    # Hesterberg (2015): alpha' = Phi(-sqrt(n/(n-1)) t_{n-1, 0.975}); n = 30: t_29 = 2.045230 (tables),
    # sqrt(30/29) = 1.017095, z = 2.080192; Phi(-2.08) = 0.018763, minus 0.000192 * phi(2.08) = 0.04586
    assert _expanded_tail(30, 0.95) == pytest.approx(0.018754, abs=2e-6)
    # for a variance: c = sqrt(30 * 31 / (29 * 28)) = 1.070196, z = 2.188797; Phi(-2.19) = 0.014262,
    # plus 0.001203 * phi(2.19) = 0.03626
    assert _expanded_tail(30, 0.95, second_moment=True) == pytest.approx(0.014306, abs=2e-6)
    assert _expanded_tail(10_000, 0.95) == pytest.approx(0.025, abs=1e-4)
    assert _expanded_tail(30, 0.95) < 0.025


def test_basic_interval_by_hand():
    # basic interval of log psi, [psi^2 / q_hi, psi^2 / q_lo], for psi = E MS_s = nt σ²_s + σ²_st,
    # E MS_t, σ²_st, 1 + nt r_Φ and 1 + nt r_E (the F ratio), mapped back to the quantities
    rng = np.random.default_rng(5)
    ns, nt = 30, 40
    adj = np.column_stack([rng.normal(0.09, 0.03, 400), rng.normal(0.3, 0.08, 400), rng.gamma(400, 1.1 / 400, 400)])
    est = (0.09, 0.3, 1.1)
    lo, hi = _basic_intervals(adj, est, (30, 40, 30, 30, 30), 0.95, 50.0, 0.95, ns, nt)
    a30, a40 = _expanded_tail(30, 0.95, True), _expanded_tail(40, 0.95, True)
    m30 = _expanded_tail(30, 0.95)   # σ²(st): a mean over cells, the plain expansion

    def basic(psi, psi0, a):
        q_lo, q_hi = np.quantile(np.log(psi), [a, 1 - a])
        return psi0**2 / np.exp(q_hi), psi0**2 / np.exp(q_lo)

    ms_lo, ms_hi = basic(nt * adj[:, 0] + adj[:, 2], nt * 0.09 + 1.1, a30)
    assert (lo[0], hi[0]) == pytest.approx(((ms_lo - 1.1) / nt, (ms_hi - 1.1) / nt), rel=1e-12)
    mt_lo, mt_hi = basic(ns * adj[:, 1] + adj[:, 2], ns * 0.3 + 1.1, a40)
    assert (lo[1], hi[1]) == pytest.approx((max((mt_lo - 1.1) / ns, 0), (mt_hi - 1.1) / ns), rel=1e-12)
    assert (lo[2], hi[2]) == pytest.approx(basic(adj[:, 2], 1.1, m30), rel=1e-12)
    t_pos = np.maximum(adj[:, 1], 0)
    f_lo, f_hi = basic((nt * adj[:, 0] + t_pos + adj[:, 2]) / (t_pos + adj[:, 2]), 1 + nt * 0.09 / 1.4, a30)
    r_lo, r_hi = max((f_lo - 1) / nt, 0), (f_hi - 1) / nt
    assert (lo[3], hi[3]) == pytest.approx((50 * r_lo / (1 + 50 * r_lo), 50 * r_hi / (1 + 50 * r_hi)), rel=1e-12)
    assert (lo[5], hi[5]) == (math.ceil(0.95 / (0.05 * r_hi)), math.ceil(0.95 / (0.05 * r_lo)) if r_lo > 0 else math.inf)
    e_lo, e_hi = basic((nt * adj[:, 0] + adj[:, 2]) / adj[:, 2], 1 + nt * 0.09 / 1.1, a30)
    e_lo, e_hi = max((e_lo - 1) / nt, 0), (e_hi - 1) / nt
    assert (lo[4], hi[4]) == pytest.approx((50 * e_lo / (1 + 50 * e_lo), 50 * e_hi / (1 + 50 * e_hi)), rel=1e-12)
    # σ²(s) estimated below 0: the mean square is still positive, the interval starts at 0
    adj0 = adj - [0.1, 0.0, 0.0]    # replicates around the estimate -0.01, a third of them below -0.02
    lo0, hi0 = _basic_intervals(adj0, (-0.01, 0.3, 1.1), (30, 40, 30, 30, 30), 0.95, 50.0, 0.95, ns, nt)
    assert lo0[0] == 0.0 and 0 < hi0[0] < hi[0] and lo0[3] == 0.0 and hi0[5] == math.inf
    assert lo0[1:3] == pytest.approx(lo[1:3])


def test_auto_takes_each_quantity_from_its_procedure():
    x = _matrix(12, 10, seed=4)
    g = gstudy(x)
    b = g.bootstrap(n_resamples=300, over="auto", seed=9)
    assert b.over == "auto" and b.sources == ("systems", "topics", "systems", "systems+topics", "systems",
                                              "systems+topics")
    rng = np.random.default_rng(9)
    rows, cols = rng.integers(0, 12, (300, 12)), rng.integers(0, 10, (300, 10))
    p = np.stack(bias_adjust(*_weighted_components(x, _counts_of(rows, 12), None).T, 12, 10, "systems"), -1)
    i = np.stack(bias_adjust(*_weighted_components(x, None, _counts_of(cols, 10)).T, 12, 10, "topics"), -1)
    adj = b.replicates_adjusted
    np.testing.assert_allclose(adj[:, 0], np.maximum(p[:, 0], 0), rtol=1e-12)
    np.testing.assert_allclose(adj[:, 1], np.maximum(i[:, 1], 0), rtol=1e-12)
    np.testing.assert_allclose(adj[:, 2], np.maximum(p[:, 2], 0), rtol=1e-12)
    h = np.column_stack([p[:, 0], i[:, 1], p[:, 2]])
    np.testing.assert_allclose(adj[:, 3], gtheory.phi_from_components(*h.T, 10), rtol=1e-12)
    # boot-p of the same seed draws the same systems: same σ²(s) replicates
    sp = g.bootstrap(n_resamples=300, over="systems", seed=9)
    np.testing.assert_array_equal(sp.replicates_adjusted[:, 0], adj[:, 0])
    lo, hi = _basic_intervals(h, (g.var_system_raw, g.var_topic_raw, g.var_residual_raw), (12, 10, 12, 10, 12),
                              0.95, 10.0, 0.95, 12, 10)
    assert b.basic_low == pytest.approx(tuple(lo)) and b.basic_high == pytest.approx(tuple(hi))
    assert b.interval("phi") == (b.basic_low[3], b.basic_high[3])
    assert b.interval("phi", "percentile") == (b.percentile_low[3], b.percentile_high[3])
    assert "per quantity" in b.summary() and "95% interval" in b.summary()


def test_auto_with_missing_cells_uses_the_study_estimator():
    x = _matrix(15, 12, seed=6)
    x[np.random.default_rng(6).random(x.shape) < 0.15] = np.nan
    with pytest.warns(gtheory.MissingCellsWarning):
        g = gstudy(x, missing="henderson")
    b = g.bootstrap(n_resamples=100, over="auto", seed=2)
    assert b.over == "auto" and b.method == "henderson"
    # σ²(s) replicates: Henderson's estimates of the boot-p resamples (same seed, same systems)
    p = g.bootstrap(n_resamples=100, over="systems", seed=2)
    np.testing.assert_array_equal(b.replicates_adjusted[:, 0], p.replicates_adjusted[:, 0])
    for q in ("var_system", "phi", "erho2"):
        lo, hi = b.interval(q)
        assert 0 <= lo < hi and math.isfinite(hi)


def _coverage(ns: int, nt: int, var_s: float, n_mat: int, n_boot: int, seed: int, over: str = "auto") -> np.ndarray:
    """Share of ``n_mat`` normal matrices (σ²_s = ``var_s``, σ²_t = .25, σ²_st = 1) whose default 95 %
    interval (``GStudy.bootstrap(...).interval(q)``) covers each true quantity (σ²_s, σ²_t, σ²_st,
    Φ(nt), Eρ²(nt), topics needed for Φ ≥ .95)."""
    vt, ve = 0.25, 1.0
    r = var_s / (vt + ve)
    true = np.array([var_s, vt, ve, var_s / (var_s + (vt + ve) / nt), var_s / (var_s + ve / nt),
                     math.ceil(0.95 / (0.05 * r))])
    rng = np.random.default_rng(seed)
    hits = np.zeros(6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
        for m in range(n_mat):
            x = (rng.normal(0, var_s**.5, (ns, 1)) + rng.normal(0, vt**.5, (1, nt))
                 + rng.normal(0, ve**.5, (ns, nt)))
            b = gstudy(x).bootstrap(n_resamples=n_boot, over=over, seed=m)
            lo, hi = np.array(b.basic_low), np.array(b.basic_high)
            hits += (lo <= true) & (true <= hi)
    return hits / n_mat


def test_coverage_smoke():
    # the fast version of the slow test below: 40 matrices, 200 resamples (noise ±7 points)
    cov = _coverage(30, 30, 0.1, 40, 200, seed=11)
    assert np.all(cov >= 0.8), cov


@pytest.mark.slow
@pytest.mark.parametrize("ns, nt, var_s", [(30, 30, 0.1), (60, 50, 0.1), (60, 50, 0.05)])
def test_coverage_of_auto_intervals_on_normal_matrices(ns, nt, var_s):
    # nominal 95 % -> 93-97 % over >= 500 simulated normal matrices with known components, for every
    # quantity (1000 matrices, 1000 resamples each; 15-40 s per size), for over="auto". The default
    # over="both" is conservative here (.97-.999) and right on real IR scores (tests/test_gtheory_gstudy_bootstrap_real.py,
    # benchmarks/coverage_real.py); the full tables are in docs/gtheory.md.
    cov = _coverage(ns, nt, var_s, 1000, 1000, seed=2024, over="auto")
    assert np.all((cov >= 0.93) & (cov <= 0.97)), cov


def test_default_is_boot_p_i_which_is_never_short_on_normal_matrices():
    # the default resamples both facets; on normal matrices it errs on the safe side (fast version: 60 matrices)
    g = gstudy(_matrix(12, 10, seed=4))
    assert g.bootstrap(n_resamples=50, seed=1).over == "both"
    cov = _coverage(30, 30, 0.1, 60, 200, seed=12, over="both")
    assert np.all(cov >= 0.9), cov


# ------------------------------------------------------------------ D-study on a subset of systems
def test_dstudy_subset_estimates_and_reselection():
    rng = np.random.default_rng(4)
    x = rng.normal(0, 0.3, (40, 1)) + rng.normal(0, 0.5, (1, 30)) + rng.normal(0, 0.5, (40, 30))
    g = gstudy(x)
    sub = gtheory.dstudy_subset(g, n_resamples=300, drop_lowest=0.25, seed=2)
    ref = gstudy(x, drop_lowest=0.25)
    assert sub.n_systems == ref.n_systems == 30
    assert sub.estimate[:3] == pytest.approx((ref.var_system, ref.var_topic, ref.var_residual))
    assert "lowest 25%" in sub.summary() and "re-selected" in sub.summary()
    top = gtheory.dstudy_subset(g, n_resamples=300, top=10, seed=2)
    best = np.sort(np.argsort(-x.mean(axis=1))[:10])
    assert top.estimate[0] == pytest.approx(max(float(variance_components(x[best]).system), 0.0))
    assert top == gtheory.dstudy_subset(g, n_resamples=300, top=10, seed=2)
    # re-selection per replicate: replicate 0 equals the top 10 of its own resampled topics
    cols = np.random.default_rng(2).integers(0, 30, size=(300, 30))[0]
    xb = x[:, cols]
    v = variance_components(xb[np.argsort(-xb.mean(axis=1), kind="stable")[:10]])
    assert top.replicates[0, 0] == pytest.approx(max(float(v.system), 0.0))
    with pytest.raises(ValueError, match="exactly one of `top`"):
        gtheory.dstudy_subset(g, n_resamples=100)
    with pytest.raises(ValueError, match=r"`top` must be an integer in \[2, 40\]; got 1"):
        gtheory.dstudy_subset(g, n_resamples=100, top=1)
    with pytest.raises(ValueError, match=r"`over` must be 'topics', 'systems' or 'both' for dstudy_subset"):
        gtheory.dstudy_subset(g, n_resamples=100, top=5, over="auto")


def test_dstudy_subset_selects_ties_of_exact_arithmetic_by_input_order():
    # web2013 P@10: the 8th and 9th best systems have equal means in exact arithmetic (as many relevant documents
    # in their top 10s) but not as floats; "top" broke the tie by rounding, and "drop_lowest" split such ties.
    # Reference: the integer counts of relevant documents (stable order: input order among ties).
    from conftest import load_matrix

    scores = load_matrix("web2013_p10")
    x = scores.to_numpy()
    hits = np.rint(x * 10).astype(np.int64)
    assert np.array_equal(hits / 10, x)
    g = gstudy(scores)
    best = np.sort(np.argsort(-hits.sum(axis=1), kind="stable")[:8])
    assert not np.array_equal(best, np.sort(np.argsort(-x.mean(axis=1), kind="stable")[:8]))  # rounding differs
    top = gtheory.dstudy_subset(g, n_resamples=50, top=8, seed=0)
    assert top.estimate[0] == pytest.approx(max(float(variance_components(x[best]).system), 0.0), rel=1e-12)
    # replicate 0 re-selects on its resampled topics, by the integer counts
    cols = np.random.default_rng(0).integers(0, x.shape[1], size=(50, x.shape[1]))[0]
    pick = np.argsort(-hits[:, cols].sum(axis=1), kind="stable")[:8]
    assert top.replicates[0, 0] == pytest.approx(max(float(variance_components(x[pick][:, cols]).system), 0.0),
                                                 rel=1e-12)
    drop = gtheory.dstudy_subset(gstudy(load_matrix("web2013_p20")), n_resamples=50, drop_lowest=0.2, seed=0)
    assert drop.n_systems == gstudy(load_matrix("web2013_p20"), drop_lowest=0.2).n_systems == 28
