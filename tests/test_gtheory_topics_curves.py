"""gtheory.topic_curves (gtheory/topics/curves.py): the statistics between disjoint topic sets equal scipy's Kendall τ and
paired t-tests recomputed pair by pair on the same draws; properties of the curves and the extrapolation."""
from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from scipy import stats

import gtheory
from gtheory.topics.curves import TopicCurves, topic_curves


@pytest.fixture(scope="module")
def X() -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.normal(0.4, 0.04, (9, 1)) + rng.normal(0, 0.15, (1, 40)) + rng.normal(0, 0.1, (9, 40))


def test_equals_scipy_on_the_same_draws(X):
    n, R, seed = 12, 6, 3
    c = topic_curves(X, sizes=[n], repeats=R, seed=seed)
    # the draws of topic_curves: one permutation per repeat from default_rng(seed); first n vs next n topics
    order = np.argsort(np.random.default_rng(seed).random((R, X.shape[1])), axis=1)
    taus, swaps, sig, minor, major = [], [], [], [], []
    pairs = [(i, j) for i in range(9) for j in range(i + 1, 9)]
    for r in range(R):
        a, b = X[:, order[r, :n]], X[:, order[r, n:2 * n]]
        taus.append(stats.kendalltau(a.mean(1), b.mean(1)).statistic)  # tau-b
        s_a = [stats.ttest_rel(a[i], a[j]) for i, j in pairs]
        s_b = [stats.ttest_rel(b[i], b[j]) for i, j in pairs]
        d_a = [np.sign(a[i].mean() - a[j].mean()) for i, j in pairs]
        d_b = [np.sign(b[i].mean() - b[j].mean()) for i, j in pairs]
        sa = np.array([t.pvalue < 0.05 for t in s_a])
        sb = np.array([t.pvalue < 0.05 for t in s_b])
        opp = np.array(d_a) * np.array(d_b) < 0
        swaps.append(opp.mean())
        sig.append((sa.mean() + sb.mean()) / 2)
        minor.append(np.mean(sa != sb))
        major.append(np.mean(sa & sb & opp))
    row = c.table.iloc[0]
    # the same numbers by two routes (pairwise-sign tau-b vs scipy's; vectorised vs scipy's t-tests): float noise only
    assert row["tau"] == pytest.approx(np.mean(taus), abs=1e-12)
    assert row["tau_sd"] == pytest.approx(np.std(taus, ddof=1), abs=1e-12)
    for name, ref in (("swap", swaps), ("significant", sig), ("minor", minor), ("major", major)):
        assert row[name] == pytest.approx(np.mean(ref), abs=1e-12), name
    g = gtheory.gstudy(X)
    assert row["gt_tau"] == pytest.approx(gtheory.gt2tau(g.erho2(n)), rel=1e-12)


def test_seeded_and_growing(X):
    a = topic_curves(X, repeats=20, seed=5)
    assert a == topic_curves(X, repeats=20, seed=5)
    assert not a.table.equals(topic_curves(X, repeats=20, seed=6).table)
    t = a.table
    assert list(t["n"]) == sorted(t["n"]) and t["n"].iloc[-1] == 20
    assert t["tau"].iloc[-1] > t["tau"].iloc[0] and t["swap"].iloc[-1] < t["swap"].iloc[0]
    assert np.all((t[["swap", "significant", "minor", "major"]] >= 0).to_numpy())


def test_well_separated_systems_agree_perfectly():
    rng = np.random.default_rng(1)
    x = np.linspace(0, 1, 6)[:, None] + rng.normal(0, 0.01, (6, 30))  # systems 0.2 apart, noise 0.01
    t = topic_curves(x, sizes=[5, 10], repeats=10).table
    assert np.all(t["tau"] == 1.0) and np.all(t["swap"] == 0.0) and np.all(t["significant"] == 1.0)


def test_extrapolation_inverts(X):
    c = topic_curves(X, repeats=20, seed=0)
    n = c.topics_for_tau(0.9)
    assert c.extrapolate(n) >= 0.9 > c.extrapolate(n - 1)
    # the fit passes near the observed points (least squares on logs of 1 - tau: within 0.1 of tau here)
    assert np.max(np.abs(c.extrapolate(c.table["n"].to_numpy()) - c.table["tau"])) < 0.1


def test_protocol(X, tmp_path):
    c = topic_curves(X, repeats=10)
    text = c.to_json(tmp_path / "c.json")
    json.loads(text)
    assert TopicCurves.from_json(tmp_path / "c.json") == c
    assert "fit: 1 - τ(n)" in c.summary() and repr(c).startswith("TopicCurves(") and "<table" in c._repr_html_()
    import matplotlib

    matplotlib.use("Agg")
    assert c.plot().has_data()


@pytest.mark.parametrize("kw,param", [(dict(sizes=[25]), "sizes"), (dict(sizes=[1]), "sizes"),
                                      (dict(repeats=1), "repeats"), (dict(alpha=0), "alpha")])
def test_bad_arguments(X, kw, param):
    with pytest.raises(gtheory.ParameterError) as e:
        topic_curves(X, **kw)
    assert e.value.param == param


@pytest.mark.parametrize("kind", ["thread", "process"])
def test_an_executor_gives_the_same_result(X, kind):
    # every topic set is drawn before the tasks are built, and each task is a pure function of its draws: the result
    # must be identical (== compares the table exactly), whichever executor and however many workers run the sizes
    from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

    alone = topic_curves(X, sizes=[3, 6, 12], repeats=8, seed=4)
    pool = ThreadPoolExecutor(max_workers=2) if kind == "thread" else ProcessPoolExecutor(max_workers=2)
    with pool:
        shared = topic_curves(X, sizes=[3, 6, 12], repeats=8, seed=4, executor=pool)
        assert pool.submit(abs, -1).result() == 1  # used as it is, not shut down
    assert shared == alone
    assert topic_curves(X, sizes=[3, 6, 12], repeats=8, seed=5) != alone  # the seed matters: the check can fail


def test_executor_must_be_an_executor(X):
    with pytest.raises(TypeError, match="executor"):
        topic_curves(X, repeats=4, executor=4)


def _curves_with(n, tau) -> TopicCurves:
    """A TopicCurves whose table is the given (n, tau) curve and whose fit is statsmodels' OLS of log(1 - tau) on
    log n (an independent fit; topic_curves uses numpy's polyfit)."""
    import pandas as pd
    import statsmodels.api as sm

    n, tau = np.asarray(n, float), np.asarray(tau, float)
    table = pd.DataFrame({"n": n.astype(int), "tau": tau})
    for col in ("tau_sd", "swap", "significant", "minor", "major", "gt_tau", "gt_power", "gt_minor", "gt_major"):
        table[col] = np.nan
    ok = tau < 1
    if ok.sum() >= 2:
        a, beta = sm.OLS(np.log(1 - tau[ok]), sm.add_constant(np.log(n[ok]))).fit().params
        c, b = math.exp(a), -beta
    else:
        c = b = math.nan
    return TopicCurves(table, 10, int(2 * n.max()), 10, 0.05, 0, c, b)


def _band_contains(n, tau, at, target, level):
    """Whether statsmodels' `level` confidence band of the mean of log(1 - tau) at log(at) contains log(1 - target)."""
    import statsmodels.api as sm

    n, tau = np.asarray(n, float), np.asarray(tau, float)
    fit = sm.OLS(np.log(1 - tau), sm.add_constant(np.log(n))).fit()
    lo, hi = fit.get_prediction(np.array([[1.0, math.log(at)]])).conf_int(alpha=1 - level)[0]
    return lo <= math.log(1 - target) <= hi


@pytest.mark.parametrize("level", [0.8, 0.95])
def test_topics_interval_is_where_the_fitted_band_reaches_tau(level):
    # the interval of topics_for_tau is the inverse of the fitted line's confidence band (Fieller / inverse regression):
    # statsmodels' band at log n must contain log(1 - 0.9) for n = low … high - 1 and not at low - 1 or high + 1 (the
    # bounds are exp(x) rounded up, so low - 1 and high + 1 lie strictly outside the real interval). A pilot with a
    # clearly rising curve (20 systems, 80 topics), so that the interval is bounded and the integers around it distinct
    rng = np.random.default_rng(0)
    x = rng.normal(0.4, 0.05, (20, 1)) + rng.normal(0, 0.15, (1, 80)) + rng.normal(0, 0.1, (20, 80))
    c = topic_curves(x, repeats=20, seed=0)
    n, tau = c.table["n"].to_numpy(), c.table["tau"].to_numpy()
    assert np.all(tau < 1)
    low, high = c.topics_for_tau_interval(0.9, level)
    est = c.topics_for_tau(0.9)
    assert 1 < low <= est <= high < math.inf
    for at in (low, est, high - 1):
        assert _band_contains(n, tau, at, 0.9, level)
    for at in (low - 1, high + 1):
        assert not _band_contains(n, tau, at, 0.9, level)
    # a higher level gives a wider interval of the same estimate
    if level < 0.95:
        wide = c.topics_for_tau_interval(0.9, 0.95)
        assert wide[0] <= low and high <= wide[1]


def test_topics_interval_edge_cases():
    # an exact power law (1 - tau = 0.75 n^-0.5, tau = 0.9 at n = 7.5^2 = 56.25): no residual, the interval is the
    # estimate itself (up to rounding of the fit, far from an integer here)
    n = np.array([4, 8, 16, 32])
    exact = _curves_with(n, 1 - 0.75 * n ** -0.5)
    assert exact.topics_for_tau_interval(0.9) == (exact.topics_for_tau(0.9),) * 2 == (57.0, 57.0)
    # a flat noisy curve: the slope does not differ from 0, so every n is in the confidence set
    flat = _curves_with(n, [0.5, 0.6, 0.45, 0.55])
    assert flat.topics_for_tau_interval(0.9) == (1.0, math.inf)
    # a curve that clearly falls: the estimate is inf and so are both bounds
    falling = _curves_with(n, 1 - 0.1 * n ** 0.5 * np.array([1, 1.01, 0.99, 1]))
    assert falling.topics_for_tau(0.9) == math.inf
    assert falling.topics_for_tau_interval(0.9) == (math.inf, math.inf)
    # two sizes fit a line exactly: no residual variance, no interval
    two = _curves_with(n[:2], [0.5, 0.6])
    assert all(math.isnan(v) for v in two.topics_for_tau_interval(0.9))
    with pytest.raises(gtheory.ParameterError) as e:
        exact.topics_for_tau_interval(0.9, level=1.5)
    assert e.value.param == "level"


def test_extrapolated_tau_stays_within_its_range():
    # regression (issue 34, class 5): a fit whose τ falls with n extrapolated to -1301 at 10**6 topics
    rng = np.random.default_rng(26)
    x = rng.normal(0.4, 0.001, (6, 1)) + rng.normal(0, 0.15, (1, 16)) + rng.normal(0, 0.1, (6, 16))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)  # σ²(system) ≈ 0: the systems barely differ
        c = gtheory.topic_curves(x, repeats=10, seed=26)
    assert c.fit_b < 0  # the falling fit of the issue
    grid = np.geomspace(1, 1e12, 50)
    tau = c.extrapolate(grid)
    assert np.all((tau >= -1) & (tau <= 1)) and -1 <= c.extrapolate(10**6) <= 1
    with pytest.raises(gtheory.ParameterError, match="`n`"):
        c.extrapolate(0)
