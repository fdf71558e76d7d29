"""Tests of experiments/incomplete/confusion.py: the confusion matrix of significance decisions with full and reduced
qrels (Bompada et al. 2007), against a hand-built case whose decisions are worked out in the comments."""
from __future__ import annotations

import itertools
import math

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from conftest import load_matrix

from experiments import SignificanceConfusion, significance_confusion


def _hand_built():
    """Five systems, 40 topics; zero-mean wiggles p_k keep equal-mean pairs far from significance.

    full:    A=.8 B=.5 C=.5 D=.2 E=.5        reduced: A=.5 B=.5 C=.8 D=.2 E=.5
    pair  full reduced  cell (rows full, cols reduced; order a>b, n.s., a<b)
    AB    a>b  n.s.     [0,1]
    AC    a>b  a<b      [0,2]   significant in opposite directions
    AD    a>b  a>b      [0,0]
    AE    a>b  n.s.     [0,1]
    BC    n.s. a<b      [1,2]
    BD    a>b  a>b      [0,0]
    BE    n.s. n.s.     [1,1]
    CD    a>b  a>b      [0,0]
    CE    n.s. a>b      [1,0]
    DE    a<b  a<b      [2,2]
    """
    t = np.arange(40)
    wig = np.array([0.02 * np.sin(2 * np.pi * k * t / 40 + k) for k in range(1, 6)])
    full = np.array([0.8, 0.5, 0.5, 0.2, 0.5])[:, None] + wig
    red = np.array([0.5, 0.5, 0.8, 0.2, 0.5])[:, None] + wig
    labels = list("ABCDE")
    labels = pd.Index(labels, name="system")
    return pd.DataFrame(full, index=labels), pd.DataFrame(red, index=labels)


@pytest.mark.parametrize("test", ["t", "bootstrap", "wilcoxon"])
def test_confusion_matrix_hand_built(test):
    full, red = _hand_built()
    cm = significance_confusion(full, red, test=test, n_resamples=500, seed=1)
    assert isinstance(cm, SignificanceConfusion)
    assert cm.matrix.to_numpy().tolist() == [[3, 2, 1], [1, 1, 1], [0, 0, 1]]
    assert cm.bompada.to_numpy().tolist() == [[1, 2], [2, 5]]
    assert cm.n_pairs == 10 and cm.sig_opposite == 1 and cm.sig_same == 4
    assert cm.false_positive == 2 and cm.false_negative == 2
    assert cm.accuracy == pytest.approx(0.5)  # (C11 + same-direction C22) / 10 = (1 + 4) / 10
    assert cm.tp_rate == pytest.approx(1 / 3) and cm.predicted_positive_rate == pytest.approx(1 / 3)
    assert cm.g_mean == pytest.approx(1 / 3)
    assert cm.tn_rate == pytest.approx(4 / 7)  # same direction among the 7 pairs significant with full qrels
    row = cm.table.set_index(["system_a", "system_b"]).loc[("A", "C")]
    assert row.decision_full == 1 and row.decision_reduced == -1
    assert "accuracy 0.5000" in cm.summary()


def test_confusion_identical_matrices_and_top_k():
    full, _ = _hand_built()
    cm = significance_confusion(full, full, test="bootstrap", n_resamples=200, seed=3)
    c = cm.matrix.to_numpy()
    assert (c == np.diag(np.diag(c))).all() and cm.accuracy == 1.0
    # top_k by the *full* means: A, then B, C, E tied at .5 (stable order), so A, B, C
    cm3 = significance_confusion(full, full[::-1], test="t", top_k=3)
    assert cm3.n_pairs == 3 and set(cm3.table.system_a) | set(cm3.table.system_b) == {"A", "B", "C"}


def test_confusion_top_k_ties_at_the_cut_go_in_input_order():
    # web2013 P@10: the 8th and 9th systems by mean tie in exact arithmetic (same number of relevant documents)
    # but not as floats; the documented rule (ties in input order) is checked against the integer counts
    full = load_matrix("web2013_p10")
    hits = np.rint(full.to_numpy() * 10).astype(int).sum(axis=1)
    want = set(full.index[np.argsort(-hits, kind="stable")[:8]])
    assert want != set(full.index[np.argsort(-full.to_numpy().mean(axis=1), kind="stable")[:8]])  # rounding differs
    cm = significance_confusion(full, full, test="t", top_k=8)
    assert set(cm.table.system_a) | set(cm.table.system_b) == want


def test_confusion_errors():
    full, red = _hand_built()
    with pytest.raises(ValueError, match="`test` must be one of"):
        significance_confusion(full, red, test="z")
    with pytest.raises(ValueError, match="must cover the same systems"):
        significance_confusion(full, red.iloc[:4])
    with pytest.raises(ValueError, match=r"`alpha` must be a probability strictly in \(0, 1\)"):
        significance_confusion(full, red, alpha=1.0)


def _random_pair(seed=0, S=6, T=25):
    rng = np.random.default_rng(seed)
    effects = np.linspace(0.0, 0.3, S)[:, None]
    full = effects + rng.normal(0, 0.2, (S, T))
    reduced = full + rng.normal(0, 0.15, (S, T))  # the reduced qrels perturb every score
    return full, reduced


@pytest.mark.parametrize("test, reference", [
    ("t", lambda a, b: scipy.stats.ttest_rel(a, b).pvalue),
    ("wilcoxon", lambda a, b: scipy.stats.wilcoxon(a, b).pvalue),
])
def test_decisions_and_counts_against_scipy_and_a_hand_count(test, reference):
    full, reduced = _random_pair()
    cm = significance_confusion(full, reduced, test=test, alpha=0.05)
    S = full.shape[0]
    counts = np.zeros((3, 3), dtype=int)
    rows = cm.table.set_index(["system_a", "system_b"])
    for i, j in itertools.combinations(range(S), 2):
        dec = []
        for X in (full, reduced):
            p = reference(X[i], X[j])
            d = X[i].mean() - X[j].mean()
            dec.append(0 if p >= 0.05 else (1 if d > 0 else -1))
        r = rows.loc[(i, j)]
        # the same test statistic and distribution as scipy: p-values agree to rounding
        assert r.p_full == pytest.approx(reference(full[i], full[j]), rel=1e-9)
        assert (r.decision_full, r.decision_reduced) == tuple(dec)
        counts[1 - dec[0], 1 - dec[1]] += 1  # rows/columns in the order a>b, n.s., a<b
    np.testing.assert_array_equal(cm.matrix.to_numpy(), counts)
    assert cm.matrix.to_numpy().sum() == S * (S - 1) // 2 == cm.n_pairs
    # the rates from their definitions (SignificanceConfusion's Notes)
    c = counts
    same, opp = c[0, 0] + c[2, 2], c[0, 2] + c[2, 0]
    sig_ns, ns_sig = c[0, 1] + c[2, 1], c[1, 0] + c[1, 2]
    assert cm.accuracy == pytest.approx((c[1, 1] + same) / c.sum(), abs=1e-15)
    assert (cm.false_positive, cm.false_negative, cm.sig_same, cm.sig_opposite) == (sig_ns, ns_sig, same, opp)
    tp = c[1, 1] / (c[1, 1] + ns_sig) if c[1, 1] + ns_sig else math.nan
    ppv = c[1, 1] / (c[1, 1] + sig_ns) if c[1, 1] + sig_ns else math.nan
    assert cm.tp_rate == pytest.approx(tp, nan_ok=True) and cm.predicted_positive_rate == pytest.approx(ppv, nan_ok=True)
    assert cm.g_mean == pytest.approx(math.sqrt(tp * ppv), nan_ok=True)


def test_rates_are_nan_when_their_denominator_is_zero():
    # every pair far apart: all significant in the same direction with both, no acceptance at all
    X = np.arange(4)[:, None] * 10.0 + np.random.default_rng(0).normal(0, 0.1, (4, 20))
    cm = significance_confusion(X, X, test="t")
    assert cm.matrix.to_numpy()[2, 2] == 6 and cm.accuracy == 1.0  # every b better (later rows higher) and cm.tn_rate == 1.0
    assert math.isnan(cm.tp_rate) and math.isnan(cm.predicted_positive_rate) and math.isnan(cm.g_mean)


def test_json_round_trip(tmp_path):
    full, red = _hand_built()
    cm = significance_confusion(full, red, test="bootstrap", n_resamples=200, seed=2)
    path = tmp_path / "cm.json"
    cm.to_json(path)
    back = SignificanceConfusion.from_json(path)
    pd.testing.assert_frame_equal(back.matrix, cm.matrix)
    pd.testing.assert_frame_equal(back.table, cm.table, check_dtype=False)
    assert (back.alpha, back.test, back.accuracy) == (cm.alpha, cm.test, cm.accuracy)
    import json

    d = json.loads(cm.to_json())
    d.pop("table")
    with pytest.raises(ValueError, match="field 'table' is missing"):
        SignificanceConfusion.from_json(json.dumps(d))
    d = json.loads(cm.to_json())
    for key, value in (("alpha", "0.05"), ("test", "nonsense")):  # read by its schema: not float("0.05")
        with pytest.raises(ValueError, match=f"field '{key}' must be"):
            SignificanceConfusion.from_json(json.dumps({**d, key: value}))
    d["table"]["rows"][0][-1] = 2
    with pytest.raises(ValueError, match="field 'table.decision_reduced row 0' must be an integer in \\[-1, 1\\]"):
        SignificanceConfusion.from_json(json.dumps(d))


def test_seed_must_be_an_integer_and_topics_must_match():
    full, red = _hand_built()
    with pytest.raises(TypeError, match=r"`seed` must be a non-negative integer, None, a numpy.random.Generator or a numpy.random.SeedSequence; got float 1.5"):
        significance_confusion(full, red, seed=1.5)
    with pytest.raises(ValueError, match="`full_scores` and `reduced_scores` must have the same topics; got 40 and 39"):
        significance_confusion(full.to_numpy(), red.to_numpy()[:, :39])
