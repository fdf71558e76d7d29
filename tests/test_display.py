"""Notebook display of the result objects (concise ``__repr__``, ``_repr_html_``), ``py.typed`` and
``python -m gtheory``."""
from __future__ import annotations

import html.parser
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import experiments
import gtheory
import metrics
import optimize

ROOT = Path(__file__).resolve().parents[1]


class _Table(html.parser.HTMLParser):
    """Checks that tags balance and collects the text of every cell."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.cells: list[str] = []
        self.tables = 0

    def handle_starttag(self, tag, attrs):
        self.stack.append(tag)
        self.tables += tag == "table"
        if tag in ("td", "th", "caption"):
            self.cells.append("")

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes <{self.stack[-1] if self.stack else None}>"
        self.stack.pop()

    def handle_data(self, data):
        if self.stack and self.stack[-1] in ("td", "th", "caption"):
            self.cells[-1] += data


def parse(markup: str) -> _Table:
    p = _Table()
    p.feed(markup)
    p.close()
    assert not p.stack, f"unclosed tags {p.stack}"
    assert p.tables >= 1
    return p


@pytest.fixture(scope="module")
def objects(embedded_trec9):
    """One instance of every public result type, built on small data."""
    X = metrics.ndcg(embedded_trec9, cutoff=20)
    g = gtheory.gstudy(X)
    rng = np.random.default_rng(0)
    df = pd.DataFrame([(p, i, r, rng.normal() + p) for p in range(5) for i in range(4) for r in range(3)],
                      columns=["p", "i", "r", "score"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
        dg = gtheory.gstudy_design(df, "p x i x r")
    small = embedded_trec9.subset(topics=list(range(10)))
    tuning = optimize.optimize_discount(small, gain="linear", cutoff=10, starts=1)
    dp = experiments.discriminative_power(X, n_resamples=50, top_k=8)
    Y = metrics.ndcg(embedded_trec9, cutoff=10)
    conf = experiments.significance_confusion(X.iloc[:6], Y.iloc[:6], test="t")
    qrels = metrics.Qrels.from_frame(pd.DataFrame({"topic": ["1", "1", "2"], "docno": ["a", "b", "a"],
                                                    "grade": [0, 2, 1]}))
    return {
        "GStudy": g, "TopicsNeeded": g.topics_needed(0.95, level=0.95),
        "CoefficientInterval": g.interval("phi", 50), "CoefficientInterval[]": g.interval("phi", [10, 50]),
        "DesignGStudy": dg, "DesignDStudy": dg.dstudy(), "Tuning": tuning,
        "DiscriminativePower": dp, "SignificanceConfusion": conf, "SweepGrid": experiments.SweepGrid.of(),
        "JudgedRuns": embedded_trec9, "Qrels": qrels,
    }


NAMES = ["GStudy", "TopicsNeeded", "CoefficientInterval", "CoefficientInterval[]", "DesignGStudy", "DesignDStudy",
         "Tuning", "DiscriminativePower", "SignificanceConfusion", "SweepGrid", "JudgedRuns", "Qrels"]


@pytest.mark.parametrize("name", NAMES)
def test_repr_is_concise_and_names_the_type(objects, name):
    obj = objects[name]
    r = repr(obj)
    assert r.startswith(type(obj).__name__ + "(") and r.endswith(")")
    assert "\n" not in r and len(r) <= 200, r
    assert "array(" not in r and "np.float64" not in r and "DataFrame" not in r


@pytest.mark.parametrize("name", NAMES)
def test_repr_html_is_a_well_formed_table(objects, name):
    obj = objects[name]
    p = parse(obj._repr_html_())
    assert p.cells and all("np.float64" not in c and "nan" != c for c in p.cells)


def test_gstudy_display_shows_its_numbers(objects):
    g = objects["GStudy"]
    cells = parse(g._repr_html_()).cells
    assert gtheory.kit.display.fmt(g.var_system) in cells and gtheory.kit.display.fmt(g.phi(50)) in cells
    assert str(g.topics_needed(0.95, level=None).n) in cells
    assert f"Φ(50) = {g.phi(50):.4g}" in repr(g)
    t = objects["Tuning"]
    assert f"Φ(10) = {t.phi():.4g}" in repr(t) and gtheory.kit.display.fmt(t.discount[0]) in parse(t._repr_html_()).cells


def test_interval_display_lists_every_topic_count(objects):
    ci = objects["CoefficientInterval[]"]
    cells = parse(ci._repr_html_()).cells
    assert cells[0].startswith("Φ")
    for lo in np.asarray(ci.low):
        assert gtheory.kit.display.fmt(lo) in cells


def test_run_and_runset_repr(tmp_path):
    (tmp_path / "r1").write_text("1 Q0 a 1 2.0 r1\n1 Q0 b 2 1.0 r1\n2 Q0 a 1 1.0 r1\n")
    runs = metrics.read_runs([tmp_path / "r1"])
    assert repr(runs) == "RunSet(1 runs: r1)"
    assert repr(runs[0]).startswith("Run('r1': 3 rows, 2 topics")
    parse(runs._repr_html_())
    parse(runs[0]._repr_html_())


def test_py_typed_in_every_package_and_in_package_data():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for pkg in ("metrics", "gtheory", "optimize", "experiments"):
        assert (ROOT / pkg / "py.typed").is_file()
        assert "py.typed" in data[pkg]


def test_python_dash_m_gtheory_runs_the_cli():
    r = subprocess.run([sys.executable, "-m", "gtheory", "gstudy", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and "usage: gtheory gstudy" in r.stdout
