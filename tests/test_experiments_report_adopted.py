"""The report shows what it recommends: the adopted configuration in every table and figure that compares
configurations (checked in headless Chromium on the HTML report), the baseline labelled, the in-sample optimum
labelled as such, stability reconciled with discriminative power, ``--title``, counts printed as integers."""
from __future__ import annotations

import json
import re
from dataclasses import replace

import numpy as np
import pytest

from experiments._adopted import KEPT_BASELINE, Adopted
from experiments.report_sections import KEPT_SUFFIX
from experiments.cli import main
from experiments.report_figures import asl_legend
from experiments.report_render import write_report
from experiments.report_study import IN_SAMPLE, run_study


# `study` (tests/conftest.py): the quick study of the embedded TREC-9 data at nDCG@100 (all 50 topics; on seed 0 its
# discount verdict switches to a tuned family and its gain verdict keeps the baseline; the tests hold for either).


# ------------------------------------------------------------------------------------------- the adapter


# ------------------------------------------------------------------------------------------- title
def test_title_names_the_collection(embedded_trec9, study, tmp_path):
    with pytest.raises(ValueError, match="`title` must be a non-empty string"):
        run_study(embedded_trec9, title="  ")
    path = write_report(study, tmp_path / "r", title="My  collection", dpi=30)
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first == "# nDCG gain and discount tuned for stability — My collection, 104 systems × 50 topics"


def test_cli_title_and_default_title(monkeypatch, tmp_path, capsys):
    import experiments.report_study as rep

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
