"""Tests of gtheory/gstudy/plot.py: the D-study figure (Φ and Eρ² against the number of topics, Kanoulas & Aslam 2009,
Fig. 4 style).

References: the curves drawn are read back from the Axes and compared with the G-study's own ``phi(n)`` and
``erho2(n)`` at the plotted n (the drawing must not alter them), and the topics needed for the target with
``topics_needed``; Brennan's synthetic data set 1 (shared data) as the G-study.
"""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from gtheory import gstudy  # noqa: E402
from gtheory.gstudy.plot import plot_dstudy  # noqa: E402

from conftest import shared  # noqa: E402


@pytest.fixture(scope="module")
def synthetic1() -> pd.DataFrame:
    return pd.read_csv(shared("gtheory-textbook", "brennan2001_via_GeneralizIT", "synthetic1_p_x_i.csv"), index_col=0)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_plot_returns_labelled_axes(synthetic1):
    ax = gstudy(synthetic1).plot(target=0.9)
    assert ax.get_xlabel() == "number of topics" and ax.get_ylabel() == "coefficient"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("Φ" in t for t in labels) and any("Eρ²" in t for t in labels)


def test_curves_are_the_coefficients_and_the_defaults(synthetic1):
    g = gstudy(synthetic1)
    ax = plot_dstudy(g)
    lines = {line.get_label(): line for line in ax.get_lines()}
    phi, erho2 = lines["Φ (dependability)"], lines["Eρ² (generalizability)"]
    n = phi.get_xdata()
    assert n[0] == 1 and n[-1] == max(2 * g.n_topics, 100)  # default range
    np.testing.assert_array_equal(phi.get_ydata(), g.phi(n))
    np.testing.assert_array_equal(erho2.get_ydata(), g.erho2(n))
    assert ax.get_xlim() == (1, n[-1]) and ax.get_ylim() == (0, 1.01)
    assert ax.get_title() == f"D-study: {g.n_systems} systems"
    # two confidence bands (one per coefficient) at the default level
    assert sum("95% interval" in t.get_text() for t in ax.get_legend().get_texts()) == 2


def test_target_marks_the_topics_needed_and_extends_the_range(synthetic1):
    g = gstudy(synthetic1)
    need = g.topics_needed(0.99, "phi", level=None).n
    assert need > 100  # Brennan's set 1 needs many topics for Φ = 0.99: the range must extend to show it
    ax = plot_dstudy(g, target=0.99, level=None, title="mine")
    n = [line for line in ax.get_lines() if line.get_label() == "Φ (dependability)"][0].get_xdata()
    assert n[-1] == min(int(1.1 * need) + 1, 1000)
    marks = [line for line in ax.get_lines() if line.get_marker() == "o"]
    assert len(marks) == 1 and marks[0].get_xdata()[0] == need and marks[0].get_ydata()[0] == g.phi(need)
    assert any(t.get_text() == f"Φ: {need} topics" for t in ax.texts) and ax.get_title() == "mine"
    assert not any("interval" in t.get_text() for t in ax.get_legend().get_texts())  # level=None: no bands


def test_draws_on_the_axes_given(synthetic1):
    fig, ax = plt.subplots()
    assert plot_dstudy(gstudy(synthetic1), ax=ax, n_max=20) is ax
    assert len(fig.axes) == 1 and ax.get_lines()[0].get_xdata()[-1] == 20
