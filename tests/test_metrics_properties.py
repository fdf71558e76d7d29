"""Properties every rank-based measure must have, checked with hypothesis on random single-topic lists.

* normalised measures lie in [0, 1];
* an ideal list (all relevant documents first, by grade descending) scores 1 where the measure defines an ideal;
* SWAP (Ahlgren & Grönqvist 2008, appendix): moving a relevant document above a non-relevant one never lowers AP
  or RankEff (and strictly raises both);
* condensed lists (``judged_only=True``) do not change when unjudged documents are inserted anywhere;
* the functions are vectorised: scoring many systems at once equals scoring each alone.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import evaluate
from metrics._toy import single_topic

#: every measure name with a [0, 1] range
NORMALISED = [
    "AP", "AP@5", "P@5", "Rprec", "RR", "RR@5", "Bpref", "bpref10", "bpref_R", "bpref_N", "RankEff", "infAP", "nDCG",
    "nDCG@5", "nCG@5", "nCG", "AnDCG@5", "RBP(p=0.8)", "RBP(p=0.5,rel=2)", "RBP_residual(p=0.8)", "Q(beta=1)",
    "Q(beta=0)", "Q(beta=5)", "Rmeasure(beta=1)", "R@5", "R@30", "Success@3", "ERR", "ERR@5", "ERR(max_grade=2)",
]  # fmt: skip
#: [0, 1] measures of the original list only (no condensed form: judged_only leaves them unchanged)
ORIGINAL_ONLY = ["Judged@5", "Judged"]
#: measures that score 1 for an ideal list with complete judgments (and at least one relevant document)
IDEAL_ONE = [
    "AP", "Rprec", "RR", "RR@5", "Bpref", "bpref10", "bpref_R", "bpref_N", "RankEff", "nDCG", "nDCG@5", "nCG@5", "nCG",
    "AnDCG@5", "AnDCG@50", "Q(beta=1)", "Q(beta=0)", "Q(beta=5)", "Rmeasure(beta=1)", "Rmeasure(beta=3)", "R@50",
    "Success@1",
]  # fmt: skip

grade = st.sampled_from([0, 0, 0, 1, 1, 2])
entry = st.one_of(st.none(), grade)


@st.composite
def topic(draw, max_len: int = 25):
    """(ranked list with None for unjudged documents, qrels grades ⊇ the list's judged grades)."""
    ranked = draw(st.lists(entry, max_size=max_len))
    extra = draw(st.lists(grade, max_size=8))
    return ranked, [g for g in ranked if g is not None] + extra


def score(name: str, ranked, qrels, **kw) -> float:
    return float(evaluate(single_topic([ranked], qrels), name, **kw).iloc[0, 0])


@settings(max_examples=60, deadline=None)
@given(t=topic())
def test_normalised_measures_lie_in_unit_interval(t):
    ranked, qrels = t
    j = single_topic([ranked], qrels)
    for name in NORMALISED + ORIGINAL_ONLY:
        for jo in (False, True):
            v = float(evaluate(j, name, judged_only=jo).iloc[0, 0])
            assert -1e-12 <= v <= 1 + 1e-12, (name, jo, v)


@settings(max_examples=40, deadline=None)
@given(qrels=st.lists(grade, min_size=1, max_size=30).filter(lambda q: any(g >= 1 for g in q)), tail=st.integers(0, 5))
def test_ideal_list_scores_one(qrels, tail):
    """All judged documents retrieved, by grade descending (then unjudged documents at the end)."""
    ideal = sorted(qrels, reverse=True) + [None] * tail
    j = single_topic([ideal], qrels)
    for name in IDEAL_ONE:
        assert float(evaluate(j, name).iloc[0, 0]) == pytest.approx(1.0, abs=1e-12), name
    # infAP's precision estimate is smoothed by ε = 1e-5 (trec_eval): (a + ε) / (a + 2ε) < 1, so only ≈ 1
    assert float(evaluate(j, "infAP").iloc[0, 0]) == pytest.approx(1.0, abs=1e-4)


@settings(max_examples=60, deadline=None)
@given(t=topic(), data=st.data())
def test_swap_never_lowers_ap_or_rankeff(t, data):
    """Swap a relevant document with a non-relevant one ranked above it: AP and RankEff rise (Props. 1 and 2)."""
    ranked, qrels = t
    pairs = [(a, b) for a in range(len(ranked)) for b in range(a + 1, len(ranked)) if ranked[a] == 0 and ranked[b] in (1, 2)]
    if not pairs:
        return
    a, b = data.draw(st.sampled_from(pairs))
    swapped = list(ranked)
    swapped[a], swapped[b] = swapped[b], swapped[a]
    for name in ("AP", "RankEff", "bpref_N"):
        before, after = score(name, ranked, qrels), score(name, swapped, qrels)
        assert after > before - 1e-15, name
        assert after > before, f"{name} must strictly increase under SWAP"


@settings(max_examples=60, deadline=None)
@given(t=topic(), inserts=st.lists(st.integers(0, 40), max_size=6))
def test_condensed_lists_ignore_inserted_unjudged_documents(t, inserts):
    ranked, qrels = t
    longer = list(ranked)
    for pos in inserts:
        longer.insert(min(pos, len(longer)), None)
    names = NORMALISED + ["DCG", "DCG@5"]
    for name in names:
        assert score(name, longer, qrels, judged_only=True) == pytest.approx(score(name, ranked, qrels, judged_only=True), abs=1e-12), name
    # bpref and RankEff ignore unjudged documents even on the original list
    for name in ("Bpref", "bpref10", "bpref_R", "bpref_N", "RankEff"):
        assert score(name, longer, qrels) == pytest.approx(score(name, ranked, qrels), abs=1e-12), name


@settings(max_examples=25, deadline=None)
@given(lists=st.lists(st.lists(entry, max_size=15), min_size=2, max_size=5), extra=st.lists(grade, max_size=5))
def test_vectorised_over_systems_equals_one_at_a_time(lists, extra):
    """Several systems on one topic (the qrels hold enough documents of each grade for every list)."""
    need = {g: max(sum(1 for x in lst if x == g) for lst in lists) for g in (0, 1, 2)}
    qrels = [g for g, n in need.items() for _ in range(n)] + extra
    together = single_topic(lists, qrels)
    for name in NORMALISED + ORIGINAL_ONLY + ["NumRel", "NumRet", "NumRelRet(rel=2)"]:
        many = evaluate(together, name).iloc[:, 0].to_numpy()
        alone = np.array([score(name, lst, qrels) for lst in lists])
        np.testing.assert_allclose(many, alone, rtol=0, atol=1e-12, err_msg=name)


def test_vectorised_over_topics_on_real_data(dl19):
    """Each (system, topic) cell of the tensor equals the same measure on that single cell."""
    j = dl19.judged
    for name in ("AP", "Rprec", "RR@10", "Bpref", "infAP", "RankEff", "Q(beta=1)", "Rmeasure", "RBP(p=0.8)",
                 "AnDCG@10"):
        full = evaluate(j, name).to_numpy()
        for s, t in [(0, 0), (5, 17), (36, 42)]:
            cell = j.subset(systems=[s], topics=[t])
            assert evaluate(cell, name).iloc[0, 0] == pytest.approx(full[s, t], abs=1e-12), name
