"""experiments/report/_adopted.py, the report's view of a recommendation (Adopted, adopted_from, adopted_summary),
and the report shows what it recommends: the adopted configuration in every table and figure that compares
configurations (checked in headless Chromium on the HTML report), the baseline labelled, the in-sample optimum
labelled as such, stability reconciled with discriminative power, ``--title``, counts printed as integers."""
from __future__ import annotations

import json
import re
from dataclasses import replace

import numpy as np
import pytest

import metrics
from experiments.report._adopted import KEPT_BASELINE, Adopted, adopted_from, adopted_summary
from experiments.report.sections import KEPT_SUFFIX
from experiments.cli import main
from experiments.report import run_study, write_report
from experiments.report.figures import asl_legend
from experiments.report.wording import IN_SAMPLE


# `study` (tests/conftest.py): the quick study of the embedded TREC-9 data at nDCG@100 (all 50 topics; on seed 0 its
# discount verdict switches to a tuned family and its gain verdict keeps the baseline; the tests hold for either).


# ------------------------------------------------------------------------------------------- the adapter
def test_adopted_from_a_recommendation_reproduces_its_ndcg(embedded_trec9):
    import optimize

    rec = optimize.recommend(embedded_trec9, cutoff=10, what="discount", n_splits=2, seed=0, progress=False)
    a = adopted_from(rec)
    assert (a.what, a.cutoff, a.switch) == ("discount", 10, rec.adopt)
    # independent path: the recommendation's own Tuning.ndcg
    assert np.abs(a.ndcg(embedded_trec9).to_numpy() - rec.ndcg(embedded_trec9).to_numpy()).max() < 1e-12
    # the baseline is recognised from the vectors, not from a name
    base = replace(a, gain=np.array([0.0, 2.0, 4.0]), discount=2.5 / np.log2(np.arange(2, 12)))
    assert adopted_from(_FakeRec(base)).is_baseline
    assert not adopted_from(_FakeRec(replace(base, discount=1.0 / np.arange(1, 11)))).is_baseline


def test_adopted_from_reads_the_baseline_rule_fields():
    """The engine with a baseline rule names its vectors ``gain_vector``/``discount_vector`` and its configuration
    ``alternative_label`` / ``measure``; the adapter reads those when present."""
    k = 10
    rec = type("R", (), dict(what="discount", cutoff=k, adopt=True, verdict="adopt rbp", label="rbp",
                             alternative_label="rbp(p=0.8)", measure="nDCG(discount=rbp(p=0.8),gain=linear)@10",
                             levels=(0.0, 1.0, 2.0),
                             gain_vector=(0.0, 1.0, 2.0), discount_vector=tuple(0.8 ** np.arange(k))))()
    a = adopted_from(rec)
    assert a.row_label == "adopted: rbp(p=0.8)" and not a.is_baseline
    said = type("R", (), dict(vars(type(rec)), phi_meaning="Φ(n) is a share.", verdict="adopt rbp. Φ(n) is a share."))()
    assert adopted_from(said).verdict == "adopt rbp."  # the report says what Φ means once, not per verdict
    # as recommend words it: the clause without its full stop, then "." (the report's headline read "agree. .")
    from optimize.recommend.verdict import PHI_MEANING

    real = type("R", (), dict(vars(type(rec)), phi_meaning=PHI_MEANING,
                              verdict=f"keep x; 5/5 seeds agree. {PHI_MEANING}."))()
    assert adopted_from(real).verdict == "keep x; 5/5 seeds agree."
    keep = type("R", (), dict(vars(type(rec)), adopt=False, measure="nDCG(discount=log2,gain=linear)@10",
                              discount_vector=tuple(1 / np.log2(np.arange(2, k + 2)))))()
    assert adopted_from(keep).row_label == KEPT_BASELINE


class _FakeRec:
    """The fields of a Recommendation the adapter reads, from an Adopted."""

    def __init__(self, a: Adopted):
        self.what, self.cutoff, self.adopt, self.label, self.choice = a.what, a.cutoff, a.switch, a.label, a.label
        self.verdict, self.gain, self.discount = a.verdict, a.gain, a.discount
        self.tuning = type("T", (), {"levels": a.levels})()


def _adopted(k=5, p=0.5, levels=(0.0, 1.0, 2.0), gain=(0.0, 1.0, 3.0), switch=True, is_baseline=False):
    return Adopted(what="joint", cutoff=k, label=f"x(p={p:g})", switch=switch, is_baseline=is_baseline,
                   levels=np.array(levels), gain=np.array(gain), discount=p ** np.arange(k, dtype=float),
                   verdict="adopt x")


def test_ndcg_by_hand_and_truncated_cutoffs():
    # one topic, grades d0=2, d1=1, d2=0; a system ranking d2, d0, d1: DCG = 0·1 + 3·0.5 + 1·0.25 = 1.75,
    # ideal d0, d1, d2: 3·1 + 1·0.5 = 3.5, nDCG@3 = 0.5; at cut-off 2: DCG 1.5, ideal 3.5, nDCG 3/7
    j = metrics.judge({"s": {"1": {"d2": 3.0, "d0": 2.0, "d1": 1.0}}, "t": {"1": {"d0": 3.0, "d1": 2.0}}},
                      {"1": {"d0": 2, "d1": 1, "d2": 0}}, progress=False)
    a = _adopted(k=3)
    got = a.ndcg(j)
    assert got.loc["s", "1"] == pytest.approx(0.5, abs=1e-15)
    assert got.loc["t", "1"] == pytest.approx(1.0, abs=1e-15)
    assert a.ndcg(j, cutoff=2).loc["s", "1"] == pytest.approx(3 / 7, abs=1e-15)
    with pytest.raises(ValueError, match="`cutoff` 4 exceeds the adopted discount's 3 ranks."):
        a.ndcg(j, cutoff=4)


def test_row_labels():
    assert _adopted().row_label == "adopted: x(p=0.5)"
    assert _adopted(switch=False).row_label == "adopted: x(p=0.5) (kept)"
    assert _adopted(is_baseline=True).row_label == KEPT_BASELINE


def test_the_baseline_is_recognised_up_to_scale_only():
    k = 6
    log2 = 1 / np.log2(np.arange(2, k + 2))
    base = _FakeRec(replace(_adopted(k=k), gain=np.array([0.0, 5.0, 10.0]), discount=7 * log2))
    assert adopted_from(base).is_baseline  # linear gains and log2, scaled
    for gain, disc in (([0.0, 1.0, 3.0], log2), ([0.0, 1.0, 2.0], log2 * (1 + 1e-6 * np.arange(k)))):
        rec = _FakeRec(replace(_adopted(k=k), gain=np.array(gain), discount=disc))
        assert not adopted_from(rec).is_baseline


def test_summary_is_plain_json_values():
    import json

    a = _adopted()
    d = adopted_summary(a)
    assert json.loads(json.dumps(d)) == d
    assert d["row_label"] == a.row_label and d["levels"] == [0.0, 1.0, 2.0] and d["gain"] == [0.0, 1.0, 3.0]
    assert d["discount"] == [1.0, 0.5, 0.25, 0.125, 0.0625] and d["cutoff"] == 5 and d["switch"] is True




# ------------------------------------------------------------------------------------------- title
def test_title_names_the_collection(embedded_trec9, study, tmp_path):
    with pytest.raises(ValueError, match="`title` must be a non-empty string"):
        run_study(embedded_trec9, title="  ")
    path = write_report(study, tmp_path / "r", title="My  collection", dpi=30)
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first == "# nDCG gain and discount tuned for stability — My collection, 104 systems × 50 topics"


def test_cli_title_and_default_title(monkeypatch, tmp_path, capsys):
    import experiments.report as rep  # the front the command line reads run_study from

    seen = {}

    def fake(judged, *, settings, progress=None, title=None, **kw):
        seen["title"] = title
        raise ValueError("stop here")

    monkeypatch.setattr(rep, "run_study", fake)
    runs = tmp_path / "my-collection" / "runs"
    runs.mkdir(parents=True)
    for name, order in (("sys1", ("d1", "d2")), ("sys2", ("d2", "d1"))):
        (runs / name).write_text("".join(f"{q} Q0 {d} {r} {3 - r}.0 {name}\n" for q in (1, 2)
                                         for r, d in enumerate(order, 1)))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d1 0\n2 0 d2 1\n")
    data = ["--runs", str(runs), "--qrels", str(qrels), "--cutoff", "2", "--quiet", "--out", str(tmp_path / "r")]
    main(["report", *data])
    assert seen["title"] == "my-collection"
    main(["report", *data, "--title", "TREC DL 2019"])
    assert seen["title"] == "TREC DL 2019"
    assert main(["report", *data, "--title", " "]) == 2 and "--title must not be empty" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------- real browser
#: appended to a copy of the report: once loaded, each table's caption and first-column cells, and each image's
#: alt text and whether it decoded, as JSON in <pre id="report-check">
_CHECK = ('<script>window.addEventListener("load",function(){var o={tables:[],images:[]};'
          'document.querySelectorAll("table").forEach(function(t){var c=t.previousElementSibling;var r=[];'
          't.querySelectorAll("tbody tr").forEach(function(x){r.push(x.cells[0].textContent)});'
          'o.tables.push({caption:c?c.textContent:"",rows:r})});'
          'document.querySelectorAll("img").forEach(function(i){o.images.push({alt:i.alt,'
          'ok:i.complete&&i.naturalWidth>0})});var p=document.createElement("pre");p.id="report-check";'
          'p.textContent=JSON.stringify(o);document.body.appendChild(p);});</script>')


def test_chromium_finds_the_adopted_configuration(study, tmp_path):
    from test_experiments_report_html import _run_chromium

    path = write_report(study, tmp_path / "r", format="html", dpi=40)
    page = tmp_path / "check.html"
    page.write_text(path.read_text(encoding="utf-8").replace("</body>", _CHECK + "</body>"), encoding="utf-8")
    r = _run_chromium(["--dump-dom", page.as_uri()], tmp_path)
    m = re.search(r'<pre id="report-check">(.*?)</pre>', r.stdout, re.S)
    assert m, f"the page's check did not run; chromium said: {r.stderr[-2000:]}"
    import html

    found = json.loads(html.unescape(m.group(1)))
    d_study = next(t for t in found["tables"] if t["caption"].startswith("Table 1 (D-study)"))
    gains = next(t for t in found["tables"] if t["caption"].startswith("Table 3 (D-study)"))
    a, ag = study.adopted_for("discount"), study.adopted_for("gain")
    for x, rows in ((a, d_study["rows"]), (ag, gains["rows"])):
        if x.is_baseline:  # kept: the baseline's one row says so; no second "adopted: baseline kept" row
            assert KEPT_BASELINE not in rows and sum(r.endswith("— baseline" + KEPT_SUFFIX) for r in rows) == 1
        else:
            assert x.row_label in rows and sum(r.endswith("— baseline") for r in rows) == 1
    fig9 = next(i for i in found["images"] if i["alt"].startswith("Fig. 9"))
    assert fig9["ok"]
    legend = fig9["alt"].split("Legend: ", 1)[1]
    for x in study.adopted:  # every adopted configuration is a series of the figure, named in its legend
        assert (x.row_label if not x.is_baseline else KEPT_BASELINE) in legend
    assert "baseline" in legend and IN_SAMPLE in legend
    assert legend.rstrip(".") == "; ".join(asl_legend(study).values())
