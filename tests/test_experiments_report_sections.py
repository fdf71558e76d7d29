"""Tests of experiments/report/sections.py: the report's sections, assembled in order by ``SECTIONS`` — the one
place a section is added — and what they say (the title, the reconciliation of stability with discriminative
power)."""
from __future__ import annotations

import re
from dataclasses import replace

import pytest

from experiments.report import FIGURES
from experiments.report import sections
from experiments.report.render import _md_table, render
from experiments.report.sections import SECTIONS, _published_section, _reconcile, report_blocks


# ------------------------------------------------------------------------------------------- assembly
@pytest.mark.parametrize("which", ["study", "small_study"])
def test_the_report_is_its_sections_in_order(which, request):
    s = request.getfixturevalue(which)
    per_section = [section(s) for section in SECTIONS]
    def shown(blocks):  # a table block as the renderer writes it (its frames do not compare with ==), no numbers
        return [(k, _md_table(c) if k == "table" else re.sub(r"^\d+\. ", "", c) if k == "h2" else c) for k, c in blocks]

    assert shown(report_blocks(s)) == shown([b for blocks in per_section for b in blocks])
    assert per_section[0][0][0] == "h1" and [k for b in per_section for k, _ in b].count("h1") == 1
    for blocks in per_section[1:]:  # every other section is left out or opens with its heading
        assert not blocks or blocks[0][0] == "h2"
    headings = [c for k, c in report_blocks(s) if k == "h2"]
    # numbered 1, 2, 3 ... in order of appearance: no "4b", no gap where a section is left out (off TREC-9 the
    # published numbers are absent, and the HTML report jumped from 5 to 7)
    numbered = [h.split(" ", 1)[0] for h in headings if h[0].isdigit()]
    assert numbered == [f"{i}." for i in range(1, len(headings))] and headings[-1] == "How to read this report"
    # every figure of the report is shown once, by the section that discusses it
    shown = [c[0] for k, c in report_blocks(s) if k == "img"]
    assert sorted(shown) == sorted(FIGURES)


def test_the_published_section_only_on_trec9(study, small_study):
    assert _published_section(small_study) == []
    blocks = _published_section(study)
    assert blocks[0] == ("h2", "Published numbers (TREC 9, Kanoulas & Aslam 2009) beside ours")  # numbered in order
    assert sum(k == "table" for k, _ in blocks) == 4  # Tables 1-4 of the paper


def test_a_new_section_is_one_entry_of_sections(small_study, monkeypatch):
    def extra(s):
        return [("h2", "Is this collection big enough?"), ("p", f"It has {s.n_topics} topics.")]

    at = next(i for i, f in enumerate(SECTIONS) if f.__name__ == "_out_of_sample_section")
    monkeypatch.setattr(sections, "SECTIONS", SECTIONS[:at] + (extra,) + SECTIONS[at:])
    md = render(small_study, "md")
    assert "## 6. Is this collection big enough?\n\nIt has 20 topics.\n\n## 7. Out of sample" in md
    html = render(small_study, "html", figures={name: b"" for name in FIGURES})
    assert "<h2>6. Is this collection big enough?</h2>\n<p>It has 20 topics.</p>" in html


# ------------------------------------------------------------------------------------------- content
def test_markdown_escapes_a_collection_name(small_study):
    odd = replace(small_study, name="runs_of *my* <lab> [v2]", description="")
    md = render(odd, "md")
    assert md.splitlines()[0].startswith(r"# nDCG gain and discount tuned for stability — runs\_of \*my\* "
                                         r"&lt;lab&gt; \[v2\]")


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


def test_a_kept_baseline_is_shown_once(study):
    # the quick study keeps the baseline (too few splits to decide): no table repeats it as an adopted row or column
    from experiments.report._adopted import KEPT_BASELINE
    from experiments.report.render import _cells

    assert study.adopted and all(a.is_baseline for a in study.adopted)
    tables = [c for k, c in report_blocks(study) if k == "table"]
    for t in tables:
        head, rows = _cells(t)
        labels = [r[0] for r in rows] + head
        if t.caption.startswith("Sakai's paired bootstrap"):  # Fig. 9's series: the kept baseline is its one row
            assert sum(x.startswith("baseline: ") for x in labels) + sum(x.startswith(KEPT_BASELINE)
                                                                        for x in labels) == 2  # two cut-offs
            continue
        assert not any(KEPT_BASELINE in x for x in labels), t.caption
    md = render(study, "md")
    best = md[md.index("Comparing the best runs"):]
    header = best[best.index("| run |"):].splitlines()[0]
    assert header.count("|") == 3 and "adopted" not in header  # the run and the baseline's column, once
    assert sections.KEPT_SUFFIX in md and "Shown below as" not in md
