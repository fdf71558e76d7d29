"""Tests of the report end to end through ``gtheory report`` (experiments/cli/report.py) on the embedded TREC-9
data (each part of the report is tested in
tests/test_experiments_report_study.py, _settings.py, _result.py, _figures.py, _sections.py and _render.py)."""
from __future__ import annotations

import json

import pytest

from experiments.cli import main
from experiments.report import FIGURES
from experiments.report.published import PUBLISHED_TREC9


@pytest.fixture(scope="module")
def quick_dir(tmp_path_factory):
    """``gtheory report --quick --json`` on the embedded TREC-9 data, run once."""
    import contextlib
    import io

    out = tmp_path_factory.mktemp("report") / "md"
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(["report", "--quick", "--out", str(out), "--quiet", "--json"])
    _QUICK_JSON["stdout"] = buf.getvalue()
    return rc, out


_QUICK_JSON: dict[str, str] = {}


def test_report_json_lists_files_and_key_numbers(quick_dir):
    rc, out = quick_dir
    doc = json.loads(_QUICK_JSON["stdout"])
    assert rc == 0 and doc["report"] == str(out / "report.md") and doc["tables"] == str(out / "tables.json")
    assert doc["figures"] == [str(out / name) for name in FIGURES]
    assert all(__import__("os").path.isfile(f) for f in [doc["report"], doc["tables"], *doc["figures"]])
    tables = json.loads((out / "tables.json").read_text(encoding="utf-8"))
    for row in tables["discount_table"]:
        assert doc["topics_needed"][row["discount"]] == row["topics_needed"]
        assert type(doc["topics_needed"][row["discount"]]) is int
        assert doc["phi"][row["discount"]] == pytest.approx(row["phi"], abs=1e-9)
    assert set(doc["kendall_tau_vs_optimal"]) == {"zipf", "linear", "log2", "adopted"}
    # the paper's four configurations, and the adopted ones with the baseline at the main cut-off
    assert len(doc["discriminative_power"]) >= 5 and doc["n_systems"] == 104
    assert set(doc["adopted"]) == {"discount", "gain"}
    assert all(any(label in name for name in doc["discriminative_power"]) for label in doc["adopted"].values())


def test_report_title_is_short(quick_dir):
    _, out = quick_dir
    title = (out / "report.md").read_text(encoding="utf-8").splitlines()[0]
    assert title == ("# nDCG gain and discount tuned for stability — TREC-9 Web ad hoc (WT10g, topics 451-500), "
                     "104 systems × 50 topics")
    assert json.loads(_QUICK_JSON["stdout"])["collection"] == "TREC-9 Web ad hoc (WT10g, topics 451-500)"


def test_report_quick_writes_markdown_and_every_figure(quick_dir):
    rc, out = quick_dir
    assert rc == 0
    text = (out / "report.md").read_text(encoding="utf-8")
    for name in FIGURES:
        png = out / name
        assert png.is_file() and png.stat().st_size > 10_000, name
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"]({name})" in text  # every figure is referenced by the report
    for heading in ("Table 1", "Table 2", "Table 3", "Table 4", "Fig. 9", "Out of sample", "Published numbers"):
        assert heading in text
    tables = json.loads((out / "tables.json").read_text(encoding="utf-8"))
    assert {r["discount"] for r in tables["discount_table"]} == {"zipf", "linear", "log2", "optimal", "adopted"}


def test_report_numbers_are_sane(quick_dir):
    _, out = quick_dir
    tables = json.loads((out / "tables.json").read_text(encoding="utf-8"))
    phi = {r["discount"]: r["phi"] for r in tables["discount_table"]}
    # in sample the optimal discount is at least as stable as every standard one
    assert phi["optimal"] >= max(phi["zipf"], phi["linear"], phi["log2"]) - 1e-9
    # Table 2: TREC 9 hrel/rel ratio at nDCG@10 is 1.3 in the paper
    r10 = [r for r in tables["gain_ratio_table"] if r["cutoff"] == 10][0]
    assert r10["constrained"] == pytest.approx(PUBLISHED_TREC9["table2_gain_ratio"][10]["constrained"], abs=0.05)


def test_report_opens_with_the_recommend_verdict(quick_dir):
    rc, out = quick_dir
    assert rc == 0
    md = (out / "report.md").read_text(encoding="utf-8")
    first_paragraph = md.split("\n\n")[1]
    assert first_paragraph.startswith("**Should I tune nDCG@100?** Discount: ")
    assert "Gain: " in first_paragraph and ("keep " in first_paragraph or "adopt tuned" in first_paragraph)
    assert json.loads(_QUICK_JSON["stdout"])["verdict"] in first_paragraph.replace("\\", "")
