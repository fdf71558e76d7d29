"""The report shows what it recommends: the adopted configuration in every table and figure that compares
configurations (checked in headless Chromium on the HTML report), the baseline labelled, the in-sample optimum
labelled as such, stability reconciled with discriminative power, ``--title``, counts printed as integers."""
from __future__ import annotations

import json
import re
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import metrics
from experiments._adopted import KEPT_BASELINE, Adopted
from experiments.cli import main
from experiments.report import (IN_SAMPLE, _FIGURE_FUNCS, _LOG_FLOOR, _Table, _cells, _reconcile,
                                asl_legend, default_title, fmt_count, power_variants, render, run_study, write_report)


@pytest.fixture(scope="module")
def trec9():
    return metrics.load_trec9()


@pytest.fixture(scope="module")
def study(report_quick_study):
    """The quick study of the embedded TREC-9 data at nDCG@100 (all 50 topics; on seed 0 its discount verdict
    switches to a tuned family and its gain verdict keeps the baseline; the tests hold for either verdict)."""
    return report_quick_study


# ------------------------------------------------------------------------------------------- the adapter


def _rbp(k: int, p: float = 0.8) -> Adopted:
    return Adopted(what="discount", cutoff=k, label=f"rbp(p={p:g})", switch=True, is_baseline=False,
                   levels=np.array([0.0, 1.0, 2.0]), gain=np.array([0.0, 1.0, 2.0]),
                   discount=p ** np.arange(k, dtype=float), verdict="adopt tuned discount rbp")


def test_power_variants_name_the_adopted_and_the_baseline_once(trec9):
    judged = trec9.subset(topics=list(range(12)))
    joint = metrics.ndcg(judged, cutoff=20)
    kept = replace(_rbp(100), what="gain", label="linear", switch=False, is_baseline=True)
    v = power_variants(judged, [_rbp(100), kept], 20, joint)
    assert set(v) == {f"optimal gain + optimal discount ({IN_SAMPLE})", "baseline: linear gain + log discount",
                      "exponential gain + log discount", "linear gain + linear discount",
                      "adopted: rbp(p=0.8), nDCG@100", f"{KEPT_BASELINE}, nDCG@100"}
    k, x = v["adopted: rbp(p=0.8), nDCG@100"]
    assert k == 100 and np.allclose(x, metrics.ndcg(judged, discount="rbp(p=0.8)", cutoff=100), atol=1e-12)
    k, x = v[f"{KEPT_BASELINE}, nDCG@100"]  # the baseline at the adopted one's cut-off, named as kept
    assert k == 100 and np.allclose(x, metrics.ndcg(judged, gain="linear", discount="log2", cutoff=100), atol=1e-12)
    # at the Fig. 9 cut-off a kept baseline is the baseline row itself
    v = power_variants(judged, [replace(kept, cutoff=20, discount=kept.discount[:20])], 20, joint)
    assert KEPT_BASELINE in v and "baseline: linear gain + log discount" not in v and len(v) == 4


# ------------------------------------------------------------------------------------------- the study
def test_the_adopted_configuration_is_a_row_of_every_comparison(study, trec9):
    a = study.adopted_for("discount")
    assert a is not None and study.adopted_for("gain") is not None
    # Table 1 (D-study) row: the G-study of the adopted nDCG, computed independently here
    import gtheory

    g = gtheory.gstudy(a.ndcg(trec9))
    assert study.discount_table.loc["adopted", "phi"] == pytest.approx(g.phi(50), abs=1e-12)
    assert study.discount_table.loc["adopted", "topics_needed"] == g.topics_needed(0.95, "phi", level=None).n
    assert "adopted" in study.gain_table.index
    assert "adopted" in study.tau_discount.index and study.tau_discount.loc["adopted", "adopted"] == 1
    labels = [a.row_label if not a.is_baseline else KEPT_BASELINE for a in study.adopted]
    assert all(any(lab in row for row in study.power.index) for lab in labels)
    assert "adopted" in study.swap.index and "log2" in study.swap.index
    doc = json.loads(study.to_json())
    assert [d["row_label"] for d in doc["adopted"]] == [a.row_label for a in study.adopted]
    assert len(doc["adopted"][0]["discount"]) == study.settings.cutoff


def test_fig9_legend_is_the_caption_legend(study):
    import matplotlib.pyplot as plt

    fig = _FIGURE_FUNCS["asl_curves.png"](study)
    texts = [t.get_text() for lg in fig.legends for t in lg.get_texts()]
    plt.close(fig)
    assert [t for t in texts if not t.startswith("α")] == list(asl_legend(study).values())
    assert any(t.startswith("adopted: ") for t in texts)


def test_fig2_log_axis_stops_at_the_floor(study):
    import matplotlib.pyplot as plt

    fig = _FIGURE_FUNCS["discount_curves.png"](study)
    deep = [ax for ax in fig.axes if ax.get_yscale() == "log"]
    assert deep  # nDCG@100 is drawn on a log axis
    for ax in deep:
        top = max(float(np.max(ln.get_ydata())) for ln in ax.get_lines())
        low = min(float(np.min(ln.get_ydata())) for ln in ax.get_lines())
        assert low >= _LOG_FLOOR * top * (1 - 1e-12) and ax.get_ylim()[0] >= _LOG_FLOOR * top / 2
        assert any(ln.get_label().startswith("adopted: ") for ln in ax.get_lines())
        assert any(IN_SAMPLE in ln.get_label() for ln in ax.get_lines())
    plt.close(fig)


def test_reconcile_says_why_stability_and_power_disagree(study):
    power = study.power.copy()
    ka = study.settings.asl_cutoff
    rows = power.index[power["cutoff"] == ka]
    # make the most stable configuration at ka the least discriminative one
    power.loc[rows[0], ["phi", "power"]] = [0.99, 0.01]
    text = _reconcile(replace(study, power=power))
    assert text.startswith("**Stability and discriminative power disagree here:**")
    assert f"at nDCG@{ka} the most stable configuration" in text and "Trust Φ" in text
    power.loc[rows[0], "power"] = 0.99  # now it is also the most discriminative: nothing to reconcile there
    assert f"at nDCG@{ka}" not in _reconcile(replace(study, power=power))


# ------------------------------------------------------------------------------------------- formatting, title
def test_counts_are_integers_and_fractions_only_when_fractional():
    assert [fmt_count(v) for v in (26.0, 26, np.int64(3), 26.5, 26.25, 0.0, np.nan, np.inf)] == \
        ["26", "26", "3", "26.5", "26.25", "0", "–", "∞"]
    t = _Table(pd.DataFrame({"topics": [26.5, 0.0], "pairs": [435.0, 3.0], "phi": [0.9, 0.0]}, index=["a", "b"]),
               counts=frozenset({"topics", "pairs"}))
    _, rows = _cells(t)
    assert rows == [["a", "26.5", "435", "0.900"], ["b", "0", "3", "0.000"]]


def test_report_prints_no_padded_counts(study):
    md = render(study, "md")
    assert not re.search(r"\| \d+\.500 \|", md) and not re.search(r"\| \d+\.000 \|", md)
    assert "n = 50 topics" in md and "Φ(1) is the stability of a comparison on one topic" in md
    assert f"optimal ({IN_SAMPLE})" in md and "— baseline" in md


def test_default_title_from_the_runs_folder(tmp_path):
    coll = tmp_path / "trec-dl-2019-passage" / "runs_judged_full_xz"
    coll.mkdir(parents=True)
    files = [coll / "a.run", coll / "b.run"]
    for f in files:
        f.write_text("")
    assert default_title([coll]) == "trec-dl-2019-passage"  # a generic folder name: its parent's
    assert default_title(files) == "trec-dl-2019-passage"
    own = tmp_path / "robust04"
    own.mkdir()
    assert default_title([own]) == "robust04" and default_title([]) == ""


def test_title_names_the_collection(study, tmp_path):
    with pytest.raises(ValueError, match="`title` must be a non-empty string"):
        run_study(metrics.load_trec9(), title="  ")
    path = write_report(study, tmp_path / "r", title="My  collection", dpi=30)
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first == "# nDCG gain and discount tuned for stability — My collection, 104 systems × 50 topics"


def test_a_collection_without_a_name_is_not_called_runs():
    from experiments.report import _label

    j = metrics.load_trec9().subset(topics=list(range(6)))
    j.report.clear()  # what metrics.judge of run files gives: no description, no file it was loaded from
    assert _label(j) == "unnamed collection"


def test_cli_title_and_default_title(monkeypatch, tmp_path, capsys):
    import experiments.report as rep

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
    assert a.row_label in d_study["rows"] and ag.row_label in gains["rows"]
    assert any(row.endswith("— baseline") for row in d_study["rows"])
    fig9 = next(i for i in found["images"] if i["alt"].startswith("Fig. 9"))
    assert fig9["ok"]
    legend = fig9["alt"].split("Legend: ", 1)[1]
    for x in study.adopted:  # every adopted configuration is a series of the figure, named in its legend
        assert (x.row_label if not x.is_baseline else KEPT_BASELINE) in legend
    assert "baseline" in legend and IN_SAMPLE in legend
    assert legend.rstrip(".") == "; ".join(asl_legend(study).values())
