"""nDCG with any gain and discount: trec_eval parity on three real collections, hand-computed cases, properties.

Reference: pytrec_eval (trec_eval 9.0.8), ``RelevanceEvaluator(qrels, {"ndcg", "ndcg_cut.10,20,100,1000"},
judged_docs_only_flag=...)`` on the same run files.
"""
from __future__ import annotations

import lzma
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

import metrics
from metrics import judge, ndcg

from conftest import shared
CUTS = (10, 20, 100, 1000)
COLLECTIONS = {
    # every run of each collection: TREC-9 (104), DL 2019 (37), Robust 2004 (10 submitted + 7 later baselines)
    "trec9": (("trec9-web-wt10g/runs_full_xz",), "trec9-web-wt10g/qrels.trec9.web.451-500.txt"),
    "dl19": (("trec-dl-2019-passage/runs_judged_full_xz",), "trec-dl-2019-passage/qrels.dl19-passage.txt"),
    "robust04": (
        (
            "trec-robust2004-subset/runs_full_xz/historical_submitted",
            "trec-robust2004-subset/runs_full_xz/new_2018_baselines",
        ),
        "trec-robust2004-subset/qrels.robust2004.txt",
    ),
}


@pytest.fixture(scope="module", params=sorted(COLLECTIONS))
def collection(request):
    run_dirs, qrels = COLLECTIONS[request.param]
    files = [f for d in run_dirs for f in sorted(shared(d).iterdir())]
    with open(shared(qrels)) as fh:
        qrel = pytrec_eval.parse_qrel(fh)
    runs = {}
    for f in files:
        with lzma.open(f, "rt") as fh:
            runs[f] = pytrec_eval.parse_run(fh)
    judged = judge(files, shared(qrels))
    return request.param, files, judged, qrel, runs


def _reference(qrel, runs, judged_only, files, measures):
    ev = pytrec_eval.RelevanceEvaluator(qrel, measures, judged_docs_only_flag=judged_only)
    return {f: ev.evaluate(runs[f]) for f in files}


@pytest.mark.parametrize("judged_only", [False, True])
def test_parity_with_trec_eval(collection, judged_only):
    name, files, j, qrel, runs = collection
    ref = _reference(qrel, runs, judged_only, files, {"ndcg", "ndcg_cut.10,20,100,1000"})
    ours = {c: ndcg(j, cutoff=c, judged_only=judged_only) for c in (None,) + CUTS}
    worst, n = 0.0, 0
    for sys_name, f in zip(j.systems, files):
        for topic, m in ref[f].items():
            for c in (None,) + CUTS:
                key = "ndcg" if c is None else f"ndcg_cut_{c}"
                worst = max(worst, abs(m[key] - ours[c].loc[sys_name, topic]))
                n += 1
    assert n > 100
    assert worst <= 1e-9, f"{name}: max |Δ| = {worst}"


def test_custom_integer_gains_match_trec_eval_on_remapped_qrels(collection, tmp_path):
    """trec_eval uses the qrels grade as the gain: remap grades to integer gains (ascending) and compare."""
    name, files, j, qrel, runs = collection
    gains = {0: 0, 1: 3, 2: 7, 3: 20}
    remapped = {t: {d: gains[g] for d, g in docs.items()} for t, docs in qrel.items()}
    ref = _reference(remapped, runs, False, files, {"ndcg_cut.20"})
    ours = ndcg(j, gain=[gains[g] for g in range(int(j.levels.max()) + 1)], cutoff=20)
    worst = max(abs(m["ndcg_cut_20"] - ours.loc[s, t]) for s, f in zip(j.systems, files) for t, m in ref[f].items())
    assert worst <= 1e-9


# ------------------------------------------------------------------------------------------- hand-computed cases
@pytest.fixture()
def toy(tmp_path):
    (tmp_path / "q").write_text("1 0 a 2\n1 0 b 0.5\n1 0 c 0\n1 0 d 1\n")
    # ranking: c (0), a (2), x (unjudged), b (0.5)
    (tmp_path / "r").write_text("1 Q0 c 1 4 s\n1 Q0 a 2 3 s\n1 Q0 x 3 2 s\n1 Q0 b 4 1 s\n")
    return judge([tmp_path / "r"], tmp_path / "q", workers=1)


def test_fractional_gains_hand_computed(toy):
    # gains by grade: 0 -> 0, 0.5 -> 0.25, 1 -> 1.5, 2 -> 4.75 (real values, no truncation)
    gain = {0: 0.0, 0.5: 0.25, 1: 1.5, 2: 4.75}
    d = 1 / np.log2(np.arange(2, 6))
    dcg = 0 * d[0] + 4.75 * d[1] + 0 * d[2] + 0.25 * d[3]
    idcg = 4.75 * d[0] + 1.5 * d[1] + 0.25 * d[2]
    assert ndcg(toy, gain=gain).iloc[0, 0] == pytest.approx(dcg / idcg, abs=1e-15)
    # linear family keeps the real grade 0.5 as gain 0.5 (trec_eval would truncate it to 0)
    dcg_lin = 2 * d[1] + 0.5 * d[3]
    idcg_lin = 2 * d[0] + 1 * d[1] + 0.5 * d[2]
    assert ndcg(toy).iloc[0, 0] == pytest.approx(dcg_lin / idcg_lin, abs=1e-15)


def test_condensed_list_hand_computed(toy):
    gain = {0: 0.0, 0.5: 0.25, 1: 1.5, 2: 4.75}
    d = 1 / np.log2(np.arange(2, 6))
    dcg = 4.75 * d[1] + 0.25 * d[2]  # x removed, b moves up to rank 3
    idcg = 4.75 * d[0] + 1.5 * d[1] + 0.25 * d[2]
    assert ndcg(toy, gain=gain, judged_only=True).iloc[0, 0] == pytest.approx(dcg / idcg, abs=1e-15)


@pytest.mark.parametrize(
    "family, expected",
    [
        ("log2", lambda r, k: 1 / np.log2(r + 1)),
        ("zipf", lambda r, k: 1 / r),
        ("linear", lambda r, k: (k + 1 - r) / k),
        ("none", lambda r, k: np.ones_like(r)),
        ("rbp(p=0.5)", lambda r, k: 0.5 ** (r - 1)),
        ("jarvelin(b=3)", lambda r, k: np.where(r < 3, 1.0, np.log(3) / np.log(np.maximum(r, 3)))),
    ],
)
def test_discount_families_hand_computed(toy, family, expected):
    r = np.arange(1, 4, dtype=float)
    d = expected(r, 3)
    gain = {0: 0.0, 0.5: 0.25, 1: 1.5, 2: 4.75}
    dcg = 4.75 * d[1]  # rank 2 only within cut-off 3
    idcg = 4.75 * d[0] + 1.5 * d[1] + 0.25 * d[2]
    assert ndcg(toy, gain=gain, discount=family, cutoff=3).iloc[0, 0] == pytest.approx(dcg / idcg, abs=1e-15)
    assert np.allclose(metrics.discount_vector(family, 3, cutoff=3), d)


# ------------------------------------------------------------------------------------------------- properties
def test_scale_invariance_and_range(embedded_trec9):
    a = ndcg(embedded_trec9, gain=[0, 1, 3], discount="zipf", cutoff=100).to_numpy()
    b = ndcg(embedded_trec9, gain=[0, 10, 30], discount=7 * metrics.discount_vector("zipf", 100), cutoff=100).to_numpy()
    assert np.allclose(a, b, atol=1e-13)
    assert a.min() >= 0 and a.max() <= 1


@pytest.mark.parametrize("kwargs", [{"gain": [0, 1, 1e308]}, {"discount": np.full(100, 1e308)},
                                    {"gain": [0, 1e200, 2e200], "discount": np.full(100, 1e200)}])
def test_gains_and_discounts_whose_dcg_overflows_are_refused(embedded_trec9, kwargs):
    # finite but huge: DCG and IDCG overflowed to inf and every nDCG came out NaN (inf/inf), silently
    with pytest.raises(ValueError, match="overflow double precision.*Rescale the gains or the discount") as err:
        ndcg(embedded_trec9, cutoff=100, **kwargs)
    assert err.value.param == ("discount" if "discount" in kwargs else "gain")  # the CLI names its option
    # at the edge of the range, scale invariance (previous test) still holds
    big = ndcg(embedded_trec9, gain=[0, 1e300, 2e300], discount="log2", cutoff=100).to_numpy()
    assert np.allclose(big, ndcg(embedded_trec9, gain=[0, 1, 2], discount="log2", cutoff=100).to_numpy(), atol=1e-13)


def test_vector_discount_equals_family(embedded_trec9):
    a = ndcg(embedded_trec9, discount="log2", cutoff=20).to_numpy()
    b = ndcg(embedded_trec9, discount=metrics.discount_vector("log2", 20)).to_numpy()
    # a vector of length 20 means ranks > 20 weigh zero, for the run and the ideal alike: nDCG@20
    assert np.allclose(a, b, atol=1e-14)


def test_published_dl19_ndcg10(tmp_path):
    """NIST's published per-run nDCG@10 (trec-browser) is reproduced for every DL 2019 run (4 decimals)."""
    import pandas as pd

    d = shared("trec-dl-2019-passage")
    pub = pd.read_csv(d / "published_summaries_trec-browser.csv")
    j = judge(d / "runs_judged_full_xz", d / "qrels.dl19-passage.txt")
    ours = ndcg(j, cutoff=10).mean(axis=1)
    sel = (pub["summary_block"] == "trec_eval") & (pub["measure"] == "ndcg_cut_10")
    published = pub[sel].set_index("run")["value"].astype(float)
    common = [r for r in published.index if r in ours.index]
    assert len(common) >= 30
    assert np.max(np.abs(ours[common].to_numpy() - published[common].to_numpy())) <= 5e-5


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(cutoff=0), "`cutoff` must be an integer >= 1"),
        (dict(discount="cosine"), "unknown discount family 'cosine'"),
        (dict(discount="rbp(p=2)"), "`p` of the RBP discount must be in"),
        (dict(gain=[0, 1]), "`gain` has 2 entries"),
        (dict(gain={0: 0, 1: 1}), "no value for grade"),
        (dict(gain="squared"), "unknown gain family 'squared'"),
    ],
)
def test_errors(embedded_trec9, kwargs, message):
    with pytest.raises(ValueError, match=message):
        ndcg(embedded_trec9, **kwargs)


def test_linear_discount_needs_its_k(embedded_trec9):
    """Without a cut-off the linear discount's k would depend on the other runs in the tensor: it must be explicit."""
    with pytest.raises(ValueError, match="linear discount .* needs its k"):
        ndcg(embedded_trec9, discount="linear")
    a = ndcg(embedded_trec9, discount="linear(k=50)", cutoff=50).to_numpy()
    b = ndcg(embedded_trec9, discount="linear", cutoff=50).to_numpy()
    assert np.array_equal(a, b)


def test_negative_grades_carry_no_gain_whatever_the_specification(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b -1\n")
    (tmp_path / "r").write_text("1 Q0 b 1 2 s\n1 Q0 a 2 1 s\n")
    j = judge([tmp_path / "r"], tmp_path / "q", workers=1)
    d2 = 1 / np.log2(3)
    for gain in (lambda x: np.abs(x), {-1: 5.0, 1: 1.0}, "binary(level=-5)"):
        # b (grade -1, pooled but unjudged) gets gain 0 in the run and is not in the ideal list
        assert ndcg(j, gain=gain).iloc[0, 0] == pytest.approx(d2, abs=1e-15)
        assert ndcg(j, gain=gain, judged_only=True).iloc[0, 0] == pytest.approx(1.0, abs=1e-15)
