"""experiments.report.topics (the report's section "Is this collection big enough?"): every number it shows is
gtheory.plan's, experiments.topic_depth_budget's or gtheory.min_detectable_difference's on the same scores; the
verdict per requirement follows the interval; the Markdown and the HTML show the same cells, escaped for each."""
from __future__ import annotations

import math
import re
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser

import numpy as np
import pytest

import gtheory
import metrics
from experiments.budget import topic_depth_budget
from experiments.report.topics import HEADING, TopicsSection, enough, topics_section


@pytest.fixture(scope="module")
def judged(embedded_trec9) -> metrics.JudgedRuns:
    j = embedded_trec9
    return j.subset(systems=list(j.systems[::5]))  # 21 systems × 50 topics


@pytest.fixture(scope="module")
def section(judged) -> TopicsSection:
    scores = metrics.evaluate(judged, "nDCG@20")
    return topics_section(scores, measure="nDCG@20", judged=judged, repeats=5, depths=[5, 20, 100])


def _md_rows(md: str, first_cell: str) -> list[list[str]]:
    """The cells of the Markdown table whose header starts with ``first_cell``."""
    lines = md.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(f"| {first_cell} |"))
    rows = []
    for ln in lines[start + 2:]:
        if not ln.startswith("|"):
            break
        rows.append([c.strip().replace("\\", "") for c in re.split(r"(?<!\\)\|", ln)[1:-1]])
    return rows


class _Cells(HTMLParser):
    """Text of every <td>, and a check that every opened tag is closed in order."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.cells: list[str] = []
        self._in_td = False

    def handle_starttag(self, tag, attrs):
        self.stack.append(tag)
        self._in_td = tag == "td"
        if self._in_td:
            self.cells.append("")

    def handle_endtag(self, tag):
        assert self.stack.pop() == tag
        self._in_td = False

    def handle_data(self, data):
        if self._in_td:
            self.cells[-1] += data


def test_requirements_table_is_the_plan(section, judged):
    scores = metrics.evaluate(judged, "nDCG@20")
    plan = gtheory.plan(scores, min_diff=0.05, curves=True, repeats=5, seed=0)
    assert section.plan == plan
    rows = _md_rows(section.markdown, "requirement")
    assert [r[0] for r in rows] == list(plan.table["question"])
    n = judged.n_topics
    for cells, r in zip(rows, plan.table.itertuples(index=False)):
        assert cells[1] == str(int(r.topics))
        assert cells[2] == f"[{int(r.low)}, {int(r.high)}]"
        assert float(cells[3]) == pytest.approx(r.at_pilot, abs=5e-4)  # printed to 3 decimals
        lo, hi = min(r.low, r.topics), max(r.high, r.topics)
        assert cells[4] == ("yes" if hi <= n else "no" if lo > n else "borderline")
    mdd = gtheory.min_detectable_difference("paired-t", n, variance=plan.variance)
    assert f"is {mdd:.3f}." in section.markdown
    assert f"Φ = {plan.table.set_index('method').loc['phi', 'at_pilot']:.3f}" in section.markdown


def test_budget_table_is_topic_depth_budget(section, judged):
    b = topic_depth_budget(judged, "nDCG@20", depths=[5, 20, 100])
    assert section.budget == b
    rows = _md_rows(section.markdown, "pool depth")
    assert [int(r[0]) for r in rows] == [5, 20, 100]
    for cells, r in zip(rows, b.table.itertuples(index=False)):
        assert float(cells[1]) == pytest.approx(r.judged_per_topic, abs=0.05)
        assert cells[4] == str(int(r.phi_topics)) and cells[6] == str(int(r.paired_t_topics))
        assert int(cells[5]) == round(r.phi_cost)
    c = b.cheapest("phi")
    assert f"is {int(c['topics'])} topics judged to depth {c['depth']}" in section.markdown


def test_html_holds_the_same_cells_and_is_well_formed(section):
    p = _Cells()
    p.feed(section.html)
    assert p.stack == []
    md_cells = [c for first in ("requirement", "pool depth") for r in _md_rows(section.markdown, first) for c in r]
    assert p.cells == md_cells
    assert section.html.startswith(f"<section><h2>{HEADING}</h2>") and section._repr_html_() == section.html
    assert section.markdown.startswith(f"## {HEADING}\n") and str(section) == section.markdown
    assert repr(section).startswith("TopicsSection(nDCG@20, 50 topics")


def test_enough():
    assert enough(10, 40, 50) == "yes" and enough(50, 50, 50) == "yes"
    assert enough(51, 90, 50) == "no"
    assert enough(30, 80, 50) == "borderline"


def test_without_judged_and_with_hostile_names():
    # well separated systems: every G-theory row is met at 30 topics, a large difference is detected
    rng = np.random.default_rng(2)
    X = np.linspace(0.1, 0.9, 8)[:, None] + rng.normal(0, 0.05, (8, 30))
    name = "<b>x|y*_z</b>"
    s = topics_section(X, measure=name, min_diff=0.3, curves=False, heading="7. " + HEADING)
    assert s.budget is None and "Topics × pool depth" not in s.markdown
    assert "<b>" not in s.markdown and "&lt;b&gt;x\\|y\\*\\_z&lt;/b&gt;" in s.markdown
    assert "<b>" not in s.html and "&lt;b&gt;x|y*_z&lt;/b&gt;" in s.html
    rows = {r[0]: r[4] for r in _md_rows(s.markdown, "requirement")}
    assert rows["G-theory Φ ≥ 0.95"] == "yes" and rows["paired t-test: power 0.8 for Δ ≥ 0.3"] == "yes"
    assert s.markdown.startswith("## 7. Is this collection big enough?")


def test_an_executor_gives_the_same_section(judged, section):
    scores = metrics.evaluate(judged, "nDCG@20")
    with ThreadPoolExecutor(2) as pool:
        s = topics_section(scores, measure="nDCG@20", judged=judged, repeats=5, depths=[5, 20, 100], executor=pool)
    assert s.markdown == section.markdown and s.html == section.html


def test_judged_must_be_the_scores_runs(judged):
    scores = metrics.evaluate(judged, "nDCG@20").iloc[:5]
    with pytest.raises(gtheory.ParameterError, match="judged"):
        topics_section(scores, measure="nDCG@20", judged=judged, curves=False)
    full = metrics.evaluate(judged, "nDCG@20")
    with pytest.raises(gtheory.ParameterError, match="not 'P@10' of `judged`") as e:
        topics_section(full, measure="P@10", judged=judged, curves=False)  # the budget would price another measure
    assert e.value.param == "measure"


def test_without_a_heading_the_section_is_its_body_only(embedded_trec9):
    # the report writes its own numbered heading: heading=None leaves the section's out, and nothing else changes
    import metrics
    from experiments.report.topics import HEADING, topics_section

    X = metrics.ndcg(embedded_trec9.subset(systems=range(0, 104, 8)), cutoff=10)
    titled = topics_section(X, measure="nDCG@10", curves=False)
    bare = topics_section(X, measure="nDCG@10", curves=False, heading=None)
    assert titled.markdown == f"## {HEADING}\n\n" + bare.markdown
    assert titled.html == bare.html.replace("<section>", f"<section><h2>{HEADING}</h2>", 1)
    assert HEADING not in bare.markdown and "<h2>" not in bare.html


def test_an_unattainable_requirement_is_reported_so_not_as_borderline():
    # regression (issue 34, class 5): a row with topics inf (interval [nan, nan] or [1, inf]) was called borderline
    import warnings

    rng = np.random.default_rng(26)
    x = rng.normal(0.4, 0.001, (6, 1)) + rng.normal(0, 0.15, (1, 16)) + rng.normal(0, 0.1, (6, 16))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        sec = topics_section(x, measure="AP", curves=True, repeats=10, seed=26)
    t = sec.plan.table.set_index("method")
    assert math.isinf(t.loc["data-tau", "topics"])
    assert "Unattainable (no number of topics reaches it" in sec.markdown
    row = next(line for line in sec.markdown.splitlines() if line.startswith("| data: τ"))
    assert row.rstrip(" |").endswith("unattainable") and "borderline" not in row
    with pytest.raises(ValueError, match="NaN"):
        enough(math.nan, math.nan, 10)


def test_the_section_names_outlying_runs_and_the_competitive_systems_answer(judged):
    """A run set to 0 on every topic (a broken run) is named, in Markdown and HTML; the competitive systems' topics
    needed are gtheory's on all but the lowest quarter."""
    from gtheory.gstudy.outliers import competitive_answer

    scores = metrics.evaluate(judged, "nDCG@20")
    broken = scores.loc[scores.mean(axis=1).sort_values().index[-12:]].copy()  # the 12 best: a tight group
    broken.iloc[3] = 0.0
    s = topics_section(broken, measure="nDCG@20", curves=False)
    name = str(broken.index[3])
    assert f"{name} (0)" in s.markdown and f"{name} (0)" in s.html
    want = competitive_answer(broken.to_numpy(), broken.index, broken.columns, 0.95)
    assert f"need {want.topics_needed['phi']} topics for Φ ≥ 0.95" in s.markdown
    assert name not in want.systems and want.outlying.systems == (name,)
