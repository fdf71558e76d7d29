"""metrics.Evaluation (what ``metrics.evaluate`` returns for a list of measures): trec_eval's per-run ``all`` rows
checked against pytrec_eval (trec_eval 9.0.8) on real runs, the mapping behaviour old code relies on, and the
result protocol (summary, HTML, CSV, strict JSON round trip)."""
from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics import Evaluation, evaluate
from metrics._toy import single_topic

#: trec_eval key → our measure name; the counts (num_*) are totals in trec_eval's `all` row
TREC = {"map": "AP", "P_10": "P@10", "ndcg_cut_10": "nDCG@10", "recip_rank": "RR", "Rprec": "Rprec",
        "recall_100": "R@100", "bpref": "Bpref", "num_ret": "NumRet", "num_rel": "NumRel",
        "num_rel_ret": "NumRelRet"}
TREC_MEASURES = {"map", "P.10", "ndcg_cut.10", "recip_rank", "Rprec", "recall.100", "bpref", "num_ret", "num_rel",
                 "num_rel_ret"}


def trec_eval_all_rows(c, *, complete: bool) -> pd.DataFrame:
    """Systems × trec_eval keys: trec_eval's `all` row, aggregated as trec_eval does
    (``pytrec_eval.compute_aggregated_measure``: sum for num_*, mean otherwise) over the queries it evaluates —
    those in both run and qrels; with ``complete`` (trec_eval -c) over every qrels query, a missing one scoring 0."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ev = pytrec_eval.RelevanceEvaluator(c.trec_qrels, TREC_MEASURES)
    rows = {}
    for system, run in c.trec_runs.items():
        per_q = ev.evaluate(run)
        values = {k: [q[k] for q in per_q.values()] for k in TREC}
        if complete:
            n_missing = len(c.judged.topics) - len(per_q)
            values = {k: v + [0.0] * n_missing for k, v in values.items() if not k.startswith("num_")}
        rows[system] = {k: pytrec_eval.compute_aggregated_measure(k, v) for k, v in values.items()}
        rows[system]["num_q"] = len(per_q) if not complete else len(c.judged.topics)
    return pd.DataFrame(rows).T


@pytest.mark.parametrize("collection", ["robust04", "trec9"])
def test_means_are_trec_evals_all_rows(collection, request):
    """judge(missing="exclude") is trec_eval's default (queries the run returns), missing="zero" is trec_eval -c.
    Per-topic values agree with pytrec_eval within 1e-9 (test_metrics_parity), so their means do too; the counts
    are sums of integers: exact."""
    c = request.getfixturevalue(collection)
    for complete, missing in ((False, "exclude"), (True, "zero")):
        want = trec_eval_all_rows(c, complete=complete)
        judged = dataclasses.replace(c.judged, missing=missing)
        ev = evaluate(judged, list(TREC.values()))
        got = ev.means().loc[want.index]
        assert (ev.num_q().loc[want.index] == want["num_q"]).all()
        for key, name in TREC.items():
            if key not in want:  # trec_eval -c counts the missing queries' num_rel too: compared without -c only
                continue
            tol = 0.0 if key.startswith("num_") else 1e-9
            delta = np.abs(got[metrics.parse_measure(name).__str__()].to_numpy() - want[key].to_numpy(dtype=float))
            assert delta.max() <= tol, (collection, missing, key, delta.max())


def test_means_skip_excluded_topics_and_total_the_counts():
    # two systems, two topics; system b does not return topic 2 (NaN under missing="exclude")
    ap = pd.DataFrame([[0.5, 0.25], [1.0, np.nan]], index=pd.Index(["a", "b"], name="system"),
                      columns=pd.Index(["1", "2"], name="topic"))
    nret = pd.DataFrame([[10.0, 7.0], [3.0, np.nan]], index=ap.index, columns=ap.columns)
    ev = Evaluation({"AP": ap, "NumRet": nret})
    m = ev.means()
    assert m.loc["a", "AP"] == pytest.approx(0.375) and m.loc["b", "AP"] == 1.0  # mean over the scored topics
    assert m.loc["a", "NumRet"] == 17 and m.loc["b", "NumRet"] == 3  # trec_eval sums num_ret
    assert ev.num_q().tolist() == [2, 1]
    with pytest.raises(ValueError, match="same index and columns"):
        Evaluation({"AP": ap, "P@10": ap.iloc[:1]})


def test_old_dict_code_keeps_working():
    j = single_topic([[1, 0, None, 1], [0, 1, 1]], qrels=[1, 1, 1, 0])
    res = evaluate(j, ["AP", "recall.2", "Judged@4"])
    assert isinstance(res, Mapping) and isinstance(res, Evaluation)
    assert list(res) == ["AP", "R@2", "Judged@4"] and len(res) == 3 and "AP" in res
    assert res["AP"].equals(evaluate(j, "AP"))
    assert [k for k, _ in res.items()] == list(res.keys())
    long = pd.concat(res, names=["measure"])  # the recipe earlier docs gave for a long table
    assert long.shape == (3 * j.n_systems, j.n_topics)
    with pytest.raises(TypeError):
        res["AP"] = res["AP"]  # read-only
    with pytest.raises(KeyError, match="not a measure of this evaluation"):
        res["nDCG"]


def test_per_topic_rows_and_csv(tmp_path):
    j = single_topic([[1, 0, None, 1], [0, 1, 1]], qrels=[1, 1, 1, 0])
    ev = evaluate(j, ["AP", "P@2"])
    rows = ev.per_topic()
    assert list(rows.columns) == ["system", "topic", "measure", "score"] and len(rows) == 2 * j.n_systems * j.n_topics
    back = rows.pivot_table(index="system", columns=["measure", "topic"], values="score")
    for name in ev:
        assert np.allclose(back[name].to_numpy(), ev[name].to_numpy())
    path = tmp_path / "means.csv"
    ev.to_csv(path, what="means")
    table = pd.read_csv(path, index_col="system")
    assert list(table.columns) == ["num_q", "AP", "P@2"]
    assert np.allclose(table[["AP", "P@2"]].to_numpy(), ev.means().to_numpy())
    ev.to_csv(tmp_path / "rows.csv")
    assert pd.read_csv(tmp_path / "rows.csv").shape == rows.shape
    with pytest.raises(ValueError, match="'topics' or 'means'"):
        ev.to_csv(what="wide")


def test_to_csv_writes_through_the_kits_one_writer(tmp_path, monkeypatch):
    # a regular file is replaced atomically: an interrupted write leaves the old file and no temporary file
    from tiny_collection import interrupted_at_rename

    j = single_topic([[1, 0, None, 1], [0, 1, 1]], qrels=[1, 1, 1, 0])
    ev = evaluate(j, ["AP"])
    path = tmp_path / "rows.csv"
    path.write_text("old")
    interrupted_at_rename(monkeypatch, lambda: ev.to_csv(path))
    assert path.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["rows.csv"]
    assert ev.to_csv(path) == path.read_text()  # the text returned is the text written


def test_json_round_trip_is_strict_and_keeps_nan():
    j = single_topic([[1, 0, None, 1], [0, 1, 1]], qrels=[1, 1, 1, 0])
    ev = evaluate(j, ["AP", "nDCG@2"])
    frame = ev["AP"].copy()
    frame.iloc[0, 0] = np.nan
    ev = Evaluation({"AP": frame, "nDCG@2": ev["nDCG@2"]})
    text = ev.to_json()
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    back = Evaluation.from_json(text)
    assert back == ev and np.isnan(back["AP"].iloc[0, 0])
    with pytest.raises(ValueError, match="not a gtheory metrics.Evaluation"):
        Evaluation.from_json('{"format": "other"}')


def test_summary_repr_and_html_show_the_per_run_rows(embedded_trec9):
    ev = evaluate(embedded_trec9.subset(systems=[0, 1, 2]), ["AP", "nDCG@10"])
    text = ev.summary()
    m = ev.means()
    for system in ev.systems:
        line = next(ln for ln in text.splitlines() if ln.startswith(system))
        assert f"{m.loc[system, 'AP']:.4f}" in line and f"{m.loc[system, 'nDCG@10']:.4f}" in line
    assert "3 systems × 50 topics" in repr(ev) and "AP, nDCG@10" in repr(ev)
    html = ev._repr_html_()
    assert html.count("<tr") == 4 and all(s in html for s in ev.systems)


def _pandas_table(ev: Evaluation, digits: int) -> str:
    """The reference: the per-run table laid out by pandas' ``DataFrame.to_string`` (what ``summary`` printed when it
    built the table with pandas), from the means of pandas' own reductions."""
    from metrics.measures.evaluation import _is_total

    m = pd.DataFrame({name: df.sum(axis=1, min_count=1) if _is_total(name) else df.mean(axis=1) for name, df in
                      ev.items()})
    m.index.name, m.columns.name = "system", "measure"
    m.insert(0, "num_q", next(iter(ev.values())).notna().sum(axis=1))
    with pd.option_context("display.max_rows", None, "display.max_columns", None, "display.width", 200):
        return m.to_string(formatters={c: (lambda v: f"{v:.0f}") if _is_total(c) else (lambda v: f"{v:.{digits}f}")
                                       for c in m.columns[1:]})


def test_summary_is_the_pandas_table():
    """summary() lays the table out without pandas (the command line prints it from arrays): the same text as pandas'
    to_string on random names (spaces, tabs, wide and long labels), scales, excluded topics and counts. From 6 runs
    on pandas sums the topics in order, as run_means does; below, it may sum in another order, a difference in the
    last bit that the printed digits do not show."""
    import warnings

    rng = np.random.default_rng(7)
    letters = list("ab_-. 9xé日\t")
    for case in range(60):
        S, T = int(rng.integers(1, 25)), int(rng.integers(1, 200))
        systems = list(dict.fromkeys("".join(rng.choice(letters, size=int(rng.integers(1, 30)))) for _ in range(S)))
        if case % 10 == 3:  # every label indented: pandas (3) drops the common indent, as summary does
            systems = [" " * int(rng.integers(1, 3)) + s for s in systems]
        names = rng.choice(["AP", "nDCG@10", "NumRet", "NumRelRet", "P@10", "NumRel"], size=int(rng.integers(1, 4)),
                           replace=False)
        scores = {}
        for name in names:
            a = rng.random((len(systems), T)) * rng.choice([1.0, 100.0, 1e6])
            a = np.floor(a) if "Num" in name else a
            a[rng.random(a.shape) < 0.3 * (case % 2)] = np.nan  # excluded topics in every other case
            if case % 7 == 0:
                a[0] = np.nan  # a run that returns no topic
            scores[str(name)] = pd.DataFrame(a, index=pd.Index(systems, name="system"),
                                             columns=pd.Index([str(t) for t in range(T)], name="topic"))
        ev, digits = Evaluation(scores), int(rng.integers(0, 6))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # pandas: the mean of a run with no topic
            want = _pandas_table(ev, digits)
        got = ev.summary(digits).split("\n", 1)[1]
        if case % 10 == 3:  # pandas 2.0 keeps one column of the common indent that pandas 3 drops: the words agree
            assert [ln.split() for ln in got.splitlines()] == [ln.split() for ln in want.splitlines()], case
        else:
            assert got == want, case


def test_from_json_refuses_deeply_nested_json_with_a_value_error():
    # the kit's one JSON reader: a document nested past the recursion limit is refused, never a RecursionError
    from metrics import Evaluation

    with pytest.raises(ValueError, match="not a gtheory metrics.Evaluation JSON document: nested too deeply"):
        Evaluation.from_json("[" * 100_000 + "]" * 100_000)
