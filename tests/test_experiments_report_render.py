"""Tests of experiments/report/render.py: the report written out — Markdown tables and counts, one self-contained
HTML file, and the report directory (replaced as a whole, never over other files)."""
from __future__ import annotations

import re

import pandas as pd
import pytest

from experiments.report import FIGURES
from experiments.report.render import REPORT_MARKER, _cells, _md_table, check_report_directory, render, write_report
from experiments.report.sections import _Table
from experiments.report.settings import is_trec9
from experiments.report.wording import IN_SAMPLE


# ------------------------------------------------------------------------------------------- Markdown
def test_report_markdown_render_has_tables(small_study):
    md = render(small_study, "md")
    assert md.startswith("# ") and "| discount |" in md
    with pytest.raises(ValueError, match="`format` must be 'md' or 'html'"):
        render(small_study, "pdf")


def test_counts_print_as_counts_in_tables():
    t = _Table(pd.DataFrame({"topics": [26.5, 0.0], "pairs": [435.0, 3.0], "phi": [0.9, 0.0]}, index=["a", "b"]),
               counts=frozenset({"topics", "pairs"}))
    _, rows = _cells(t)
    assert rows == [["a", "26.5", "435", "0.900"], ["b", "0", "3", "0.000"]]


def test_markdown_table_cells_are_escaped():
    # a label holding Markdown's table separator or emphasis stays one literal cell; labels left, numbers right
    t = _Table(pd.DataFrame({"Φ": [0.5]}, index=pd.Index(["a | *b*"], name="run")), caption="x_y")
    assert _md_table(t).splitlines() == ["*x\\_y*", "", "| run | Φ |", "|:---|---:|", r"| a \| \*b\* | 0.500 |"]


def test_report_prints_no_padded_counts(study):
    md = render(study, "md")
    assert not re.search(r"\| \d+\.500 \|", md) and not re.search(r"\| \d+\.000 \|", md)
    assert "n = 50 topics" in md and "Φ(1) is the stability of a comparison on one topic" in md
    assert f"optimal ({IN_SAMPLE})" in md and "— baseline" in md


# ------------------------------------------------------------------------------------------- HTML and files
def test_report_html_variant(embedded_trec9, small_study, tmp_path):
    path = write_report(small_study, tmp_path / "html", format="html")
    assert path.name == "report.html"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    assert text.count("<table>") >= 6
    for name in FIGURES:
        assert (tmp_path / "html" / name).is_file()
    assert text.count('src="data:image/png;base64,') == len(FIGURES)  # embedded: one file
    assert not is_trec9(embedded_trec9.subset(topics=list(range(20))))
    assert "Published numbers" not in text  # only on TREC-9


def test_report_directory_is_replaced_only_when_it_is_a_report(small_study, tmp_path):
    out = tmp_path / "r"
    check_report_directory(out)  # new: fine
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match=r"holds files that are not part of a report \(notes.txt\)"):
        write_report(small_study, out, dpi=20)
    assert (out / "notes.txt").read_text() == "mine"  # refused before anything was written
    (out / "notes.txt").unlink()
    path = write_report(small_study, out, dpi=20)
    assert (out / REPORT_MARKER).is_file() and path == out / "report.md"
    # a previous report is replaced as a whole; a file the user added to it would be lost, so it is refused
    (out / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match=r"holds a previous report and files it did not write \(notes.txt\)"):
        write_report(small_study, out, format="html", dpi=20)
    assert (out / "notes.txt").read_text() == "mine" and (out / "report.md").is_file()  # untouched
    (out / "notes.txt").unlink()
    write_report(small_study, out, format="html", dpi=20)
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["report.html", "tables.json", REPORT_MARKER, *FIGURES])
