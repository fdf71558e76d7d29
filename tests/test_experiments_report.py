"""Tests of the report (experiments/report.py) and ``gtheory report`` (experiments/cli/report.py)."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

import metrics
from experiments.cli import main
from experiments.report import FIGURES, PUBLISHED_TREC9, ReportSettings, is_trec9, render, run_study, write_report


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


@pytest.fixture(scope="module")
def quick_study(report_quick_study):
    return report_quick_study  # run_study(metrics.load_trec9(), quick=True), shared with the other report tests


def test_gain_ratio_reference_lines_differ_in_style_and_colour(quick_study):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgba

    from experiments.report import _FIGURE_FUNCS

    fig = _FIGURE_FUNCS["gain_ratios.png"](quick_study)
    lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}
    lin, exp = lines["linear gain (x)"], lines["exponential gain (2^x − 1)"]
    assert lin.get_linestyle() != exp.get_linestyle()
    assert to_rgba(lin.get_color()) != to_rgba(exp.get_color())
    plt.close(fig)


def test_phi_vs_topics_legend_does_not_cover_the_topics_note(quick_study):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from experiments.report import _FIGURE_FUNCS

    fig = _FIGURE_FUNCS["phi_vs_topics.png"](quick_study)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    note = next(t for t in ax.texts if "topics" in t.get_text() and "this collection" in t.get_text())
    legend = ax.get_legend().get_window_extent(renderer)
    assert not legend.overlaps(note.get_window_extent(renderer))
    plt.close(fig)


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


@pytest.fixture(scope="module")
def small_study():
    """A fast study on 20 topics of TREC-9 (not recognised as the published collection)."""
    judged = metrics.load_trec9().subset(topics=list(range(20)))
    s = ReportSettings.quick(cutoff=20, discount_cutoffs=(10, 20), gain_cutoffs=(10, 20), B=50, n_splits=2,
                             starts=1)
    return run_study(judged, settings=s)


def test_report_html_variant(small_study, tmp_path):
    path = write_report(small_study, tmp_path / "html", format="html")
    assert path.name == "report.html"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    assert text.count("<table>") >= 6
    for name in FIGURES:
        assert (tmp_path / "html" / name).is_file()
    assert text.count('src="data:image/png;base64,') == len(FIGURES)  # embedded: one file
    assert not is_trec9(metrics.load_trec9().subset(topics=list(range(20))))
    assert "Published numbers" not in text  # only on TREC-9


def test_report_markdown_render_has_tables(small_study):
    md = render(small_study, "md")
    assert md.startswith("# ") and "| discount |" in md
    with pytest.raises(ValueError, match="`format` must be 'md' or 'html'"):
        render(small_study, "pdf")


def test_settings_validation():
    judged = metrics.load_trec9()
    with pytest.raises(ValueError, match="`B` must be a positive integer"):
        replace(ReportSettings.quick(), B=0).validate(judged)
    with pytest.raises(ValueError, match="must not exceed the run depth"):
        ReportSettings.quick(cutoff=2000).validate(judged)


def test_settings_fit_the_run_depth():
    s = ReportSettings.default(cutoff=50).fit_depth(60)  # discount 10, 20, 50; gain 3, 10, 20, 50, 100, 200
    assert (s.discount_cutoffs, s.gain_cutoffs, s.joint_cutoffs, s.asl_cutoff) == ((10, 20, 50), (3, 10, 20, 50),
                                                                                   None, 20)
    s = replace(ReportSettings.quick(cutoff=5), asl_cutoff=30, joint_cutoffs=(10,)).fit_depth(5)
    assert (s.discount_cutoffs, s.gain_cutoffs, s.joint_cutoffs, s.asl_cutoff) == ((5,), (5,), (5,), 5)


def test_published_numbers_have_one_home():
    # the paper's TREC-9 numbers are written once, in experiments.published; the report shows those numbers
    import experiments.published

    assert PUBLISHED_TREC9 is experiments.published.PUBLISHED_TREC9
    assert PUBLISHED_TREC9["table1_phi"] == 0.90  # Table 1 matches Φ = 0.90 (the paper's text), not its caption


def test_published_numbers_are_the_papers():
    # an independent check of the transcription: the TREC 9 rows of Tables 1-4 read from the paper's text
    import re

    from conftest import SHARED

    paper = SHARED.parent / "papers" / "kanoulas-aslam-2009-gain-discount-ndcg.txt"
    if not paper.is_file():
        pytest.skip(f"paper text not found: {paper}")
    text = paper.read_text(encoding="utf-8")

    def row(after: str, label: str) -> list[float]:
        block = text[text.index(after):]
        line = next(ln for ln in block.splitlines() if ln.startswith(label))
        return [float(v) for v in re.findall(r"\d+(?:\.\d+)?", re.sub(r"</?b>", "", line[len(label):]))]

    P = PUBLISHED_TREC9
    assert row("**Table 1:", "TREC 9") == [P["table1_topics_needed"][k] for k in ("zipf", "linear", "log2", "optimal")]
    assert row("**Table 3:", "TREC 9") == [P["table3_topics_needed"][k] for k in ("exponential", "linear", "optimal")]
    for k in (3, 10, 20, 100, 200):
        got = row("TREC9\toptimal ratio", f"nDCG@{k}\t")[:3]
        assert got == [P["table2_gain_ratio"][k][c] for c in ("unconstrained", "constrained", "joint")]
    names = {"<i>Zipfian</i>": "zipf", "<i>linear</i>": "linear", "<i>log</i>": "log2", "Optimal": "optimal"}
    order = ["zipf", "linear", "log2", "optimal"]
    t4 = text[text.index("TREC 9\t<i>Zipfian</i>"):]
    for label, name in names.items():
        line = next(ln for ln in t4.splitlines() if label in ln)
        values = [float(v) for v in re.findall(r"\d\.\d{4}", line)]
        for other, v in zip(order, values):
            if other != name:
                key = (name, other) if (name, other) in P["table4_kendall_tau"] else (other, name)
                assert P["table4_kendall_tau"][key] == v
    assert f"is {P['n_runs']}," in text  # "The number of participating systems ... is 105, 97 and 78"


def test_report_opens_with_the_recommend_verdict(quick_dir):
    rc, out = quick_dir
    assert rc == 0
    md = (out / "report.md").read_text(encoding="utf-8")
    first_paragraph = md.split("\n\n")[1]
    assert first_paragraph.startswith("**Should I tune nDCG@100?** Discount: ")
    assert "Gain: " in first_paragraph and ("keep " in first_paragraph or "adopt tuned" in first_paragraph)
    assert json.loads(_QUICK_JSON["stdout"])["verdict"] in first_paragraph.replace("\\", "")
