"""ERR@k (metrics.err): hand-computed cases from the gdeval.pl formula, the max_grade convention, and parity with
ir_measures' gdeval provider (the TREC Web track's gdeval.pl, run by perl) on TREC-9 Web, DL 2019 and Robust 2004.

Reference call (ir_measures 0.4, gdeval.pl 1.2a)::

    ir_measures.gdeval.iter_calc([ir_measures.ERR @ 20], qrels, run)

gdeval.pl prints 5 decimals, so the tolerance is half a unit of the 5th decimal (5e-6, plus rounding slack).
"""
from __future__ import annotations

import shutil

import numpy as np
import pytest

import metrics
from metrics import err, evaluate
from metrics._toy import single_topic

GDEVAL_TOL = 5e-6 + 1e-12


def gdeval_err(gains: list[float], k: int, max_grade: float = 4) -> float:
    """``sub err`` of gdeval.pl, transcribed: the independent re-implementation the toy cases are checked with."""
    score, decay = 0.0, 1.0
    for i, g in enumerate(gains[:k]):
        r = (2.0 ** g - 1) / 2.0 ** max_grade if g > 0 else 0.0  # gdeval keeps only judgments > 0
        score += r * decay / (i + 1)
        decay *= 1 - r
    return score


@pytest.mark.parametrize(
    "grades, k",
    [([2, 0, 4], 20), ([4, 4, 4, 4], 2), ([0, 0, 1], 3), ([3, None, 2, 1, 0, 3], 4), ([None, None], 20), ([1], 1)],
)
def test_matches_the_gdeval_formula(grades, k):
    qrels = [g for g in grades if g is not None] + [4, 0]
    j = single_topic([grades], qrels=qrels)
    want = gdeval_err([0 if g is None else g for g in grades], k)
    assert err(j, cutoff=k).iloc[0, 0] == pytest.approx(want, abs=1e-15)


def test_hand_computed_value_and_max_grade():
    j = single_topic([[2, 0, 4]], qrels=[4, 2, 0])
    # R = 3/16, 0, 15/16: ERR = 3/16 + (13/16)(15/16)/3
    assert err(j).iloc[0, 0] == pytest.approx(3 / 16 + (13 / 16) * (15 / 16) / 3, abs=1e-15)
    # max_grade=4 is the default (gdeval.pl's $MAX_JUDGMENT); max_grade=2 on a 0-2 scale: a top document stops the user
    # with probability 3/4
    j2 = single_topic([[2, 1]], qrels=[2, 1, 0])
    assert err(j2, max_grade=2).iloc[0, 0] == pytest.approx(3 / 4 + (1 / 4) * (1 / 4) / 2, abs=1e-15)
    assert err(j2).iloc[0, 0] == pytest.approx(gdeval_err([2, 1], 20), abs=1e-15)
    assert evaluate(j2, "ERR(max_grade=2)").equals(err(j2, max_grade=2))
    assert evaluate(j2, "ERR@1").iloc[0, 0] == pytest.approx(3 / 16, abs=1e-15)


def test_negative_grades_unjudged_and_condensed():
    j = single_topic([[None, -1, 2, 0]], qrels=[2, 0, -1])
    assert err(j).iloc[0, 0] == pytest.approx((3 / 16) / 3, abs=1e-15)  # grade -1 stops nobody, like unjudged
    # condensed list (unjudged and grade <= -1 dropped): 2, 0
    assert err(j, judged_only=True).iloc[0, 0] == pytest.approx(3 / 16, abs=1e-15)
    assert evaluate(j, "ERR'").equals(err(j, judged_only=True))


def test_topics_without_relevant_and_missing_topics():
    j = single_topic([[0, 0], []], qrels=[0, 0])
    assert err(j)["1"].tolist() == [0.0, 0.0]
    ex = single_topic([[0, 1], []], qrels=[1, 0], missing="exclude")
    assert np.isnan(err(ex).iloc[1, 0]) and err(ex).iloc[0, 0] > 0


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        (dict(max_grade=3), ValueError, r"the qrels hold grade 4, above `max_grade`=3: .* e\.g\. ERR\(max_grade=4\)@20"),
        (dict(max_grade=0), ValueError, r"`max_grade` must be a finite number > 0"),
        (dict(max_grade=float("inf")), ValueError, r"`max_grade` must be a finite number > 0"),
        (dict(max_grade="4"), TypeError, r"`max_grade` must be a number; got str"),
        (dict(cutoff=0), ValueError, r"`cutoff` must be an integer >= 1 or None; got 0"),
    ],
)
def test_bad_arguments(kwargs, exc, message):
    j = single_topic([[4, 0]], qrels=[4, 0])
    with pytest.raises(exc, match=message):
        err(j, **kwargs)


#: systems checked against gdeval per collection (every n-th: each system costs one perl run)
GDEVAL_STEP = {"trec9": 4, "dl19": 3, "robust04": 2}


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval.pl needs perl")
@pytest.mark.parametrize("collection", ["trec9", "dl19", "robust04"])
def test_err20_matches_ir_measures_gdeval(collection, request):
    """ERR@20 = ir_measures' gdeval provider to its 5 printed decimals, on every topic gdeval reports.

    gdeval.pl ranks by score descending, ties by docno descending (trec_eval's order, which metrics.judge reads by
    default), and drops judgments ≤ 0 on reading; to keep its perl runs short the test gives it only the qrels with
    grade > 0 (what it keeps anyway) and each run's documents scoring at least the 20th score (the top 20 and every
    document tied with the 20th, so its top 20 is unchanged).
    """
    ir_measures = pytest.importorskip("ir_measures")
    c = request.getfixturevalue(collection)
    j = c.judged.subset(systems=list(range(0, c.judged.n_systems, GDEVAL_STEP[collection])))
    qrels = {q: {d: g for d, g in docs.items() if g > 0} for q, docs in c.trec_qrels.items()}
    ours = evaluate(j, ir_measures.ERR @ 20)  # an ir_measures measure object is accepted as such
    assert ours.attrs["measure"] == "ERR@20"
    checked, worst = 0, 0.0
    for system in j.systems:
        run = {}
        for q, docs in c.trec_runs[system].items():
            scores = sorted(docs.values(), reverse=True)
            floor = scores[min(19, len(scores) - 1)]
            run[q] = {d: s for d, s in docs.items() if s >= floor}
        for m in ir_measures.gdeval.iter_calc([ir_measures.ERR @ 20], qrels, run):
            if m.query_id in ours.columns:
                worst = max(worst, abs(float(ours.loc[system, m.query_id]) - m.value))
                checked += 1
    assert checked >= 0.8 * ours.size > 0
    assert worst <= GDEVAL_TOL, f"{collection}: max |ERR@20 - gdeval| = {worst}"
    assert (ours.to_numpy() > 0).mean() > 0.3  # the check has substance: most cells are not 0
