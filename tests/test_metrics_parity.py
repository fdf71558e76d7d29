"""trec_eval parity of every measure trec_eval has, through ``metrics.evaluate``, on real TREC runs.

Reference: pytrec_eval-terrier 0.5 (trec_eval 9.0.8)::

    pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES, relevance_level=l, judged_docs_only_flag=J).evaluate(run)

on the same qrels and run files (``pytrec_eval.parse_qrel`` / ``parse_run`` on ``lzma.open(...)``). pytrec_eval
returns the topics present in both run and qrels; those are compared, every system, every measure: max |Δ| ≤ 1e-9
(≤ 1e-12 for ``recip_rank``, exact for the counts ``num_*`` and ``success_k``, see ``TOLS``). trec_eval 9.0.8 has no reciprocal rank with a cut-off, so RR@k is
compared with ``recip_rank`` on the runs truncated to their top k documents (top k judged documents under ``-J``).
Collections (tests/conftest.py): TREC-9 Web (26 runs), TREC DL 2019 passage (37 runs), Robust 2004 (8 runs), TREC
DL 2021 passage (21 runs), CLEF eHealth 2014 task 3 (22 runs).
Also: trec_eval's ``-l 2`` (with and without ``-J``; on the three graded collections) and ``-M`` (``judge(depth=M)``, against the runs cut to their top
M in trec_eval's float32 order), and NIST's published per-run figures of the three collections.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytrec_eval = pytest.importorskip("pytrec_eval")

import metrics
from metrics import evaluate

TOL = 1e-9
#: tighter tolerances for single measures (trec_eval key → max |Δ|)
TOLS = {"recip_rank": 1e-12, **{k: 0.0 for k in ("num_ret", "num_rel", "num_rel_ret", "success_1", "success_5", "success_10")}}
TREC_MEASURES = {
    "map", "map_cut.10,100", "P.5,10,20,100,1000", "Rprec", "recip_rank", "bpref", "infAP", "ndcg", "ndcg_cut.10,20",
    "recall.5,10,100,1000", "success.1,5,10", "num_ret", "num_rel", "num_rel_ret",
}  # fmt: skip
#: trec_eval key → our measure name (ir_measures syntax)
OURS = {
    "map": "AP",
    "map_cut_10": "AP@10",
    "map_cut_100": "AP@100",
    "P_5": "P@5",
    "P_10": "P@10",
    "P_20": "P@20",
    "P_100": "P@100",
    "P_1000": "P@1000",
    "Rprec": "Rprec",
    "recip_rank": "RR",
    "bpref": "Bpref",
    "infAP": "infAP",
    "ndcg": "nDCG",
    "ndcg_cut_10": "nDCG@10",
    "ndcg_cut_20": "nDCG@20",
    "recall_5": "R@5",
    "recall_10": "R@10",
    "recall_100": "R@100",
    "recall_1000": "R@1000",
    "success_1": "Success@1",
    "success_5": "Success@5",
    "success_10": "Success@10",
    "num_ret": "NumRet",
    "num_rel": "NumRel",
    "num_rel_ret": "NumRelRet",
}
BINARY = (
    "map", "map_cut_10", "map_cut_100", "P_5", "P_10", "P_20", "P_100", "P_1000", "Rprec", "recip_rank", "bpref",
    "infAP", "recall_5", "recall_10", "recall_100", "recall_1000", "success_1", "success_5", "success_10", "num_rel",
    "num_rel_ret",
)  # fmt: skip


def reference(trec_qrels: dict, trec_runs: dict, keys, *, judged_only: bool, relevance_level: int = 1) -> dict[str, pd.DataFrame]:
    """trec_eval key → systems × topics DataFrame (NaN where pytrec_eval returns nothing)."""
    measures = {m for m in TREC_MEASURES if any(k.startswith(m.split(".")[0]) for k in keys)}
    ev = pytrec_eval.RelevanceEvaluator(trec_qrels, measures, relevance_level=relevance_level, judged_docs_only_flag=judged_only)
    per_system = {s: pd.DataFrame(ev.evaluate(run)) for s, run in trec_runs.items()}  # keys × topics
    return {k: pd.DataFrame({s: df.loc[k] for s, df in per_system.items()}).T for k in keys}


def max_deltas(
    j: metrics.JudgedRuns, ref: dict[str, pd.DataFrame], *, judged_only: bool, rel: int = 1, ours: dict | None = None
) -> dict[str, float]:
    """trec_eval key → max |Δ| between pytrec_eval's values and ours (``ours``: key → our name; default OURS)."""
    out = {}
    for key, want in ref.items():
        name = (ours or OURS)[key]
        if rel != 1:
            name = name.replace("@", f"(rel={rel})@") if "@" in name else f"{name}(rel={rel})"
        got = evaluate(j, name, judged_only=judged_only).reindex(index=want.index, columns=want.columns)
        mask = want.notna().to_numpy()
        assert mask.sum() >= 0.9 * mask.size > 0, f"{key}: pytrec_eval returned too few cells"
        assert not got.isna().to_numpy()[mask].any()
        out[key] = float(np.abs(got.to_numpy()[mask] - want.to_numpy()[mask]).max())
    return out


def assert_within(deltas: dict[str, float], context: str = "") -> None:
    """Every measure within its tolerance (``TOLS``, else ``TOL``)."""
    bad = {k: d for k, d in deltas.items() if not d <= TOLS.get(k, TOL)}
    assert not bad, f"{context}: max |Δ| above tolerance {bad}; all: {deltas}"


@pytest.mark.parametrize("judged_only", [False, True], ids=["plain", "judged_only"])
@pytest.mark.parametrize("collection", ["trec9", "dl19", "robust04", "dl21", "clef"])
def test_parity_with_trec_eval(collection, judged_only, request):
    c = request.getfixturevalue(collection)
    ref = reference(c.trec_qrels, c.trec_runs, OURS, judged_only=judged_only)
    deltas = max_deltas(c.judged, ref, judged_only=judged_only)
    assert_within(deltas, collection)


def ranked_lists(trec_runs: dict[str, dict]) -> dict[str, dict[str, list[tuple[str, float]]]]:
    """System → topic → (docno, score) in trec_eval's order: score descending, then docno descending, with the
    scores as trec_eval holds them, single-precision C floats (two scores equal as float32 tie; on the TREC-9 runs,
    whose scores were min-max rescaled, 169 lists are ordered differently in double precision)."""
    return {
        s: {q: sorted(docs.items(), key=lambda x: (float(np.float32(x[1])), x[0]), reverse=True) for q, docs in run.items()}
        for s, run in trec_runs.items()
    }


def truncated(trec_qrels: dict, lists: dict, k: int, *, judged_only: bool) -> dict[str, dict]:
    """The runs cut just after their k-th document; under ``-J`` after their k-th judged document (grade ≥ 0, what
    trec_eval's -J keeps), so that -J on the cut run evaluates the top k of the condensed list."""
    out = {}
    for s, run in lists.items():
        out[s] = {}
        for q, docs in run.items():
            judged, kept, n = trec_qrels.get(q, {}), {}, 0
            for d, score in docs:
                if n == k:
                    break
                kept[d] = score
                n += (not judged_only) or judged.get(d, -1) >= 0
            out[s][q] = kept
    return out


@pytest.mark.parametrize("judged_only", [False, True], ids=["plain", "judged_only"])
@pytest.mark.parametrize("collection", ["trec9", "dl19", "robust04", "dl21", "clef"])
def test_rr_at_k_is_recip_rank_of_the_truncated_runs(collection, judged_only, request):
    """trec_eval 9.0.8 has no recip_rank cut-off: RR@k must equal ``recip_rank`` on each run cut to its top k
    (top k judged documents under -J), and the rule RR@k = RR if RR ≥ 1/k else 0. On DL 2019 also at -l 2."""
    c = request.getfixturevalue(collection)
    lists = ranked_lists(c.trec_runs)
    rr = evaluate(c.judged, "RR", judged_only=judged_only).to_numpy()
    for k in (1, 3, 10, 100):
        runs = truncated(c.trec_qrels, lists, k, judged_only=judged_only)
        for rel in (1, 2) if collection == "dl19" else (1,):
            ref = reference(c.trec_qrels, runs, ["recip_rank"], judged_only=judged_only, relevance_level=rel)
            deltas = max_deltas(c.judged, ref, judged_only=judged_only, rel=rel, ours={"recip_rank": f"RR@{k}"})
            assert_within(deltas, f"{collection} RR@{k} rel={rel}")
        at_k = evaluate(c.judged, f"RR@{k}", judged_only=judged_only).to_numpy()
        assert np.array_equal(at_k, np.where(rr >= 1.0 / k, rr, 0.0))
    assert (evaluate(c.judged, "RR@1", judged_only=judged_only).to_numpy() != rr).any()  # the cut-off does bite


def test_topics_missing_from_a_run_score_zero(dl19):
    """DL 2019 runs are complete over the judged topics; drop one topic from a run and it scores 0 in every measure."""
    j = dl19.judged
    assert j.retrieved.all()
    grades = j.grades.copy()
    grades[0, 3] = metrics.ABSENT
    n_ret = j.n_retrieved.copy()
    n_ret[0, 3] = 0
    from dataclasses import replace

    holed = replace(j, grades=grades, n_retrieved=n_ret)
    for name in OURS.values():
        want = float(j.n_relevant()[3]) if name == "NumRel" else 0.0  # R is the qrels' (trec_eval -c reports it)
        assert evaluate(holed, name).iloc[0, 3] == want
        assert np.isnan(evaluate(replace(holed, missing="exclude"), name).iloc[0, 3])


@pytest.mark.parametrize("judged_only", [False, True], ids=["plain", "judged_only"])
@pytest.mark.parametrize("collection", ["dl19", "dl21", "clef"])
def test_relevance_level_2_matches_trec_eval_l2(collection, judged_only, request):
    """``rel=2`` is trec_eval's ``-l 2``: grades 2 and up relevant (2, 3 on the DL collections; 2 on CLEF's 0-2
    scale), R counted at that level; also with ``-J``."""
    c = request.getfixturevalue(collection)
    assert int(c.judged.grades.max()) >= 2  # the level is inside the collection's scale
    ref = reference(c.trec_qrels, c.trec_runs, BINARY, judged_only=judged_only, relevance_level=2)
    deltas = max_deltas(c.judged, ref, judged_only=judged_only, rel=2)
    assert_within(deltas, f"{collection} -l 2")


@pytest.mark.parametrize(("collection", "depth"), [("trec9", 100), ("dl19", 5), ("dl19", 37)])
def test_depth_is_trec_eval_M(collection, depth, request):
    """``judge(..., depth=M)`` is trec_eval's ``-M M``: only the top M documents of each list (in trec_eval's order,
    float32 scores) are evaluated, before ``-J`` condenses them. pytrec_eval has no ``-M``: the reference is
    pytrec_eval on the runs cut to their top M. On TREC-9 at M = 100 a list of tnout9t2lc50 has float32-tied scores
    across the cut (a double-precision cut keeps another document); on DL 2019 M = 5 and 37 cut inside the
    re-ranking runs' short lists (5-50 documents)."""
    c = request.getfixturevalue(collection)
    j = metrics.judge(list(c.runs), c.qrels, depth=depth, workers=1, progress=False)
    cut = truncated(c.trec_qrels, ranked_lists(c.trec_runs), depth, judged_only=False)
    for judged_only in (False, True):
        ref = reference(c.trec_qrels, cut, OURS, judged_only=judged_only)
        assert_within(max_deltas(j, ref, judged_only=judged_only), f"{collection} -M {depth} J={judged_only}")
    n_ret = evaluate(j, "NumRet").to_numpy()
    assert n_ret.max() == depth and (n_ret < evaluate(c.judged, "NumRet").to_numpy()).any()  # the cut bites


@pytest.fixture(scope="module")
def dl19_pooled(dl19, tmp_path_factory):
    """DL 2019 with every 4th judgment turned into grade -1 (pooled but unjudged: infAP's unjudged case)."""
    lines = dl19.qrels.read_text().splitlines()
    out = []
    for i, line in enumerate(lines):
        q, it, d, g = line.split()
        out.append(f"{q} {it} {d} {-1 if i % 4 == 1 else g}")
    path = tmp_path_factory.mktemp("qrels") / "qrels.pooled.txt"
    path.write_text("\n".join(out) + "\n")
    with open(path) as fh:
        trec_qrels = pytrec_eval.parse_qrel(fh)
    return metrics.judge(list(dl19.runs), path), trec_qrels


@pytest.mark.parametrize("judged_only", [False, True], ids=["plain", "judged_only"])
def test_parity_with_negative_grades(dl19, dl19_pooled, judged_only):
    """Negative grades: unjudged for infAP (its u term), skipped by bpref, not in R or N, dropped by -J (nDCG too)."""
    j, trec_qrels = dl19_pooled
    assert (j.levels < 0).any() and (j.grades == 0).any()
    ref = reference(trec_qrels, dl19.trec_runs, BINARY + ("ndcg", "ndcg_cut_10", "ndcg_cut_20"), judged_only=judged_only)
    deltas = max_deltas(j, ref, judged_only=judged_only)
    assert_within(deltas)
    # the variant does change infAP (so the pooled-but-unjudged branch is exercised)
    assert not np.allclose(evaluate(j, "infAP").to_numpy(), evaluate(dl19.judged, "infAP").to_numpy())


@pytest.fixture(scope="module")
def dl19_fractional(dl19, tmp_path_factory):
    """DL 2019 with grades -1 (every 4th judgment) and -0.5 (every 7th): trec_eval reads grades with
    ``atol``, so -0.5 truncates to 0 (judged non-relevant) while -1 is pooled-but-unjudged. The
    reference qrels are the truncated integers (what trec_eval sees; pytrec_eval.parse_qrel refuses
    "-0.5")."""
    out, trec_qrels = [], {}
    for i, line in enumerate(dl19.qrels.read_text().splitlines()):
        q, it, d, g = line.split()
        g = "-1" if i % 4 == 1 else ("-0.5" if i % 7 == 3 else g)
        out.append(f"{q} {it} {d} {g}")
        trec_qrels.setdefault(q, {})[d] = int(float(g))  # C atol: truncation towards 0
    path = tmp_path_factory.mktemp("qrels") / "qrels.fractional.txt"
    path.write_text("\n".join(out) + "\n")
    return metrics.judge(list(dl19.runs), path), trec_qrels


@pytest.mark.parametrize("judged_only", [False, True], ids=["plain", "judged_only"])
def test_parity_with_grades_between_minus_one_and_zero(dl19, dl19_fractional, judged_only):
    """A grade in (-1, 0) is judged non-relevant in trec_eval (in N, kept by -J), unlike a grade <= -1."""
    j, trec_qrels = dl19_fractional
    assert -0.5 in j.levels.tolist() and -1.0 in j.levels.tolist()
    ref = reference(trec_qrels, dl19.trec_runs, BINARY + ("ndcg", "ndcg_cut_10", "ndcg_cut_20"), judged_only=judged_only)
    deltas = max_deltas(j, ref, judged_only=judged_only)
    assert_within(deltas)


#: published measure → our name. NIST's summaries carry two blocks for DL 2019: ``trec_eval`` (relevance level 1)
#: and ``passages-eval`` (the track's official figures: binary measures at relevance level 2, nDCG on the grades).
#: The TREC-9 and Robust 2004 column labelled ``P_10`` is P@15: it matches P@15 for all 113 runs to the 4 printed
#: decimals and P@10 for 2 of them (the trec-browser pages label the 15-document column as 10); DL 2019's is P@10.
PUBLISHED = {"map": "AP", "P_10": "P@10", "P_100": "P@100", "P_1000": "P@1000", "Rprec": "Rprec", "bpref": "Bpref",
             "recip_rank": "RR", "recall_10": "R@10", "recall_100": "R@100", "recall_1000": "R@1000", "ndcg": "nDCG",
             "ndcg_cut_10": "nDCG@10", "ndcg_cut_100": "nDCG@100", "ndcg_cut_1000": "nDCG@1000"}  # fmt: skip
PUBLISHED_DIR = {"trec9": "trec9-web-wt10g", "dl19": "trec-dl-2019-passage", "robust04": "trec-robust2004-subset"}


@pytest.mark.parametrize("collection", ["trec9", "dl19", "robust04"])
def test_reproduces_nist_published_figures(collection, request):
    """NIST's own per-run figures (``published_summaries_trec-browser.csv``; MAP, P@k, R-prec, bpref, RR, recall,
    nDCG), an independent reference: every run of the collection's subset that NIST lists, every measure, equal to
    the 4 decimals printed."""
    from conftest import shared

    c = request.getfixturevalue(collection)
    pub = pd.read_csv(shared(PUBLISHED_DIR[collection], "published_summaries_trec-browser.csv"))
    name_of = {s.removeprefix("input."): s for s in c.judged.systems}
    pub = pub[pub.run.isin(name_of)]
    # NIST lists 103 of the 104 TREC-9 runs and none of the later Robust baselines
    assert pub.run.nunique() >= {"trec9": 25, "dl19": 37, "robust04": 5}[collection]
    checked = 0
    for (block, key), rows in pub.groupby(["summary_block", "measure"]):
        name = "P@15" if key == "P_10" and collection != "dl19" else PUBLISHED[key]
        if block == "passages-eval" and not name.startswith("nDCG"):
            name = name.replace("@", "(rel=2)@") if "@" in name else f"{name}(rel=2)"
        means = evaluate(c.judged, name).mean(axis=1)
        got = means.loc[[name_of[r] for r in rows.run]].to_numpy()
        bad = np.abs(got - rows.value.to_numpy()) > 5e-5 + 1e-12
        assert not bad.any(), f"{collection} {block} {key} ({name}): {list(rows.run[bad])} {got[bad]} vs {list(rows.value[bad])}"
        checked += len(rows)
    assert checked == len(pub)
    if collection != "dl19":  # the column labelled P_10 is not P@10
        p10 = pub[pub.measure == "P_10"]
        ours = evaluate(c.judged, "P@10").mean(axis=1).loc[[name_of[r] for r in p10.run]].to_numpy()
        assert (np.abs(ours - p10.value.to_numpy()) > 5e-5).mean() > 0.9
