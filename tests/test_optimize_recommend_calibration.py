"""Calibration of recommend's two-tier rule: a CI-sized subset of the protocol of benchmarks/calibrate_recommend.py
(the full tables are in docs/should-i-tune.md).

Validity: constructed nulls in which a standard and the baseline are exchangeable topic by topic (their score columns
swapped with probability 1/2 on each topic); tier 1 must switch to that standard on at most 5 % of them. Power: where
the evidence on all topics is overwhelming, recommend switches, and says that tier 1 decided.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import metrics
import optimize
from optimize.solvers._ratio import RatioModel
from optimize.recommend.candidates import _standard_candidates
from optimize.recommend.fixed import fixed_decision

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"


def _calibration():
    spec = importlib.util.spec_from_file_location("calibrate_recommend", ROOT / "benchmarks" / "calibrate_recommend.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _standards(judged, cutoff, what):
    model = RatioModel(judged, cutoff, what)
    cands = _standard_candidates(model, what, "linear", "log2")
    return model.scores(np.stack([c.fit(None)[0] for c in cands])), [c.name for c in cands]


#: nulls per alternative in CI, and the count a rule with false-switch rate 0.05 exceeds with probability ≤ 0.001:
#: the binomial margin of the assertion (the rule is deterministic with its seeds; the margin says how far above the
#: nominal level an observed count can be before it is evidence against it)
N_NULLS = 200
MARGIN = int(stats.binom.ppf(0.999, N_NULLS, 0.05))


def test_tier_one_false_switch_rate_under_exchangeable_nulls(dl19):
    # DL 2019 (all 37 runs, 43 topics) nDCG@100, discount: zipf exchanged with log2, 200 nulls (the rule chooses
    # among zipf and linear on each, Bonferroni over both: at most 0.0125 to zipf by construction; the done-when's
    # bound 0.05 is asserted with its binomial margin)
    X, names = _standards(dl19.judged, 100, "discount")
    assert names == ["log2", "zipf", "linear"]
    res = _calibration().validity(X, names, N_NULLS, alternatives=["zipf"])
    assert list(res) == ["zipf"]
    assert MARGIN == 21  # 10 expected at 0.05; P(Binomial(200, 0.05) > 21) < 0.001
    for name, r in res.items():
        assert r["n"] == N_NULLS
        assert r["false"] * N_NULLS <= MARGIN, (name, r)
    # the swap is a real null: the two exchanged configurations' all-topic difference changes sign with it
    swap = np.ones(X.shape[2], dtype=bool)
    d = fixed_decision(_calibration().swapped(X, 1, swap), names, rng=0)
    d0 = fixed_decision(X, names, rng=0)
    assert d.diff[1] == pytest.approx(-d0.diff[1], abs=1e-12)


def test_recommend_switches_on_overwhelming_evidence_and_says_tier_one_decided(embedded_trec9):
    # a user whose nDCG@100 uses the zipf discount, on TREC-9: log2 is better on all 50 topics by about 0.07 Φ(1)
    # (tier 1's lower end about +0.045; the calibration's whole-collection gains, docs/should-i-tune.md)
    j = embedded_trec9
    rec = optimize.recommend(j, cutoff=100, baseline="nDCG(discount=zipf)@100", n_splits=5, n_inner=2, n_seeds=1,
                             families=("power",), lambdas=(), progress=False)
    assert rec.adopt and rec.tier == 1 and rec.kind == "standard" and rec.choice == rec.fixed_choice == "log2"
    assert rec.diff == rec.fixed_diff and rec.diff_lo == rec.fixed_lo > 0.02
    assert rec.measure == "nDCG(discount=log2,gain=linear)@100"
    assert rec.verdict.startswith(f"switch to {rec.measure} instead of {rec.baseline} (tier 1")
    assert rec.tier_reason.startswith("tier 1") and rec.fixed_m == 2
    np.testing.assert_allclose(rec.ndcg(j).to_numpy(), metrics.ndcg(j, cutoff=100).to_numpy(), atol=1e-12)
    # the table's Δ and wins are against the baseline the user has (zipf), also in the summary's header
    assert rec.table.loc["log2", "all_topics_diff"] == rec.fixed_diff
    assert "Δ vs zipf" in rec.summary()
    back = optimize.Recommendation.from_json(rec.to_json())
    assert (back.tier, back.fixed_choice, back.reference, back.n_resamples) == (1, "log2", "log2", 4000)
    assert back.tier_reason == rec.tier_reason and back.fixed_lo == rec.fixed_lo


def test_tier_one_is_exact_under_exchangeable_nulls(dl19):
    # the randomisation test makes tier 1 exact under the calibration's null: over 600 nulls of DL 2019 discount@20
    # (zipf exchanged with log2), switches to zipf at most at α/m = 0.025/2, plus the binomial margin
    # P(Binomial(600, 0.0125) > k) < 0.001 (few draws and no refinement: only the level is under test)
    X, names = _standards(dl19.judged, 20, "discount")
    cal = _calibration()
    rng = np.random.default_rng(8)
    n = 600
    k = int(stats.binom.ppf(0.999, n, 0.0125))
    T = X.shape[2]
    hits = sum(fixed_decision(cal.swapped(X, 1, rng.random(T) < 0.5), names, rng=rng, n_resamples=199,
                              refine=1, interval=False).index == 1 for _ in range(n))
    assert hits <= k
