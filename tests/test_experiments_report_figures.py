"""Tests of experiments/report/figures.py: every figure of the report, drawn from a study (colours, legends,
bands, the log floor, the names of the best systems) and written as PNG or SVG bytes."""
from __future__ import annotations

import re

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

from experiments.report.figures import (_FIGURE_FUNCS, _LABEL_TOP, _LOG_FLOOR, _PHI_STYLE, FIGURE_FORMATS, FIGURES,
                                        _phi_names, asl_legend, figure_file, render_figures, write_figures)
from experiments.report.render import render
from experiments.report.wording import IN_SAMPLE, _fmt, _signed


# ------------------------------------------------------------------------------------------- the files
def test_every_figure_is_drawn_in_each_format_and_alike_twice(small_study):
    assert list(_FIGURE_FUNCS) == list(FIGURES)  # one drawing function per figure the report lists
    magic = {"png": b"\x89PNG\r\n\x1a\n", "svg": b"<?xml"}
    for fmt in FIGURE_FORMATS:
        figs = render_figures(small_study, figure_format=fmt, dpi=30)
        assert list(figs) == [figure_file(name, fmt) for name in FIGURES]
        assert all(data.startswith(magic[fmt]) for data in figs.values())
        # no creation date in either format: the same study gives the same bytes (docstring of render_figures)
        assert render_figures(small_study, figure_format=fmt, dpi=30) == figs


def test_figure_file_and_its_format_check():
    assert figure_file("phi_vs_topics.png", "svg") == "phi_vs_topics.svg"
    assert figure_file("asl_curves.png") == "asl_curves.png"
    with pytest.raises(ValueError, match=r"`figure_format` must be one of \['png', 'svg'\]; got 'pdf'"):
        figure_file("asl_curves.png", "pdf")


def test_write_figures_writes_the_given_bytes(small_study, tmp_path):
    given = {figure_file(name): f"figure {i}".encode() for i, name in enumerate(FIGURES)}
    paths = write_figures(small_study, tmp_path / "figs", figures=given)
    assert set(paths) == set(given)
    assert all(paths[name].read_bytes() == data for name, data in given.items())


# ------------------------------------------------------------------------------------------- what they show
def test_gain_ratio_reference_lines_differ_in_style_and_colour(study):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgba

    fig = _FIGURE_FUNCS["gain_ratios.png"](study)
    lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}
    lin, exp = lines["linear gain (x)"], lines["exponential gain (2^x − 1)"]
    assert lin.get_linestyle() != exp.get_linestyle()
    assert to_rgba(lin.get_color()) != to_rgba(exp.get_color())
    plt.close(fig)


def test_phi_vs_topics_legend_does_not_cover_the_topics_note(study):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = _FIGURE_FUNCS["phi_vs_topics.png"](study)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    note = next(t for t in ax.texts if "topics" in t.get_text() and "this collection" in t.get_text())
    legend = ax.get_legend().get_window_extent(renderer)
    assert not legend.overlaps(note.get_window_extent(renderer))
    plt.close(fig)


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


def test_phi_vs_topics_has_confidence_bands_and_distinct_curves(small_study):
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection

    fig = _FIGURE_FUNCS["phi_vs_topics.png"](small_study)
    full, zoom = fig.axes[:2]
    bands = [c for c in full.collections if isinstance(c, PolyCollection)]
    names = _phi_names(small_study)  # the three standard discounts, the in-sample optimum and the adopted one
    assert len(bands) == len(names) == 5 and names[-1] == "adopted"
    # the band of the optimal discount is GStudy.interval's 95 % interval of Φ(n)
    g = small_study.gstudies["optimal"]
    verts = bands[0].get_paths()[0].vertices
    n = np.arange(1, 11)
    ci = g.interval("phi", n, 0.95)
    hi_side = {float(x): y for x, y in verts[len(verts) // 2:]}
    lo_side = {float(x): y for x, y in verts[1:len(verts) // 2]}
    assert all(abs(lo_side[float(k)] - l) < 1e-12 for k, l in zip(n, ci.low))
    assert all(abs(hi_side[float(k)] - h) < 1e-12 for k, h in zip(n, ci.high))
    styles = {(ln.get_linestyle(), ln.get_marker()) for ln in zoom.get_lines() if ln.get_label() in
              [h.get_label() for h in zoom.get_legend().legend_handles]}
    assert len(styles) == 5 == len(set(_PHI_STYLE.values()))
    # one topics-needed interval bar per discount under the target line
    t = g.topics_needed(small_study.settings.target, "phi", level=0.95)
    assert t.n_low <= t.n <= t.n_high
    assert len(zoom.containers) == 5
    plt.close(fig)


def test_scatter_names_the_best_systems(small_study):
    import matplotlib.pyplot as plt

    fig = _FIGURE_FUNCS["scatter_discount.png"](small_study)
    best = small_study.scores["optimal"].mean(axis=1).sort_values(ascending=False).index[:_LABEL_TOP]
    for ax in fig.axes:
        assert [t.get_text() for t in ax.texts] == list(best)
    plt.close(fig)


def test_no_negative_zero_in_annotations(small_study):
    import matplotlib.pyplot as plt

    assert _signed(-0.0004) == "0.000" and _signed(0.0004) == "0.000" and _signed(-0.0123) == "-0.012"
    assert _signed(0.0123) == "+0.012" and _fmt(-0.0004) == "0.000" and _fmt(-0.25) == "-0.250"
    for name, fn in _FIGURE_FUNCS.items():
        fig = fn(small_study)
        texts = [t.get_text() for ax in fig.axes for t in ax.texts]
        assert not any(re.search(r"[-−+]0\.0+(?!\d*[1-9])\b", t) for t in texts), (name, texts)
        plt.close(fig)
    assert not re.search(r"-0\.0+\b(?!\d*[1-9])", render(small_study, "md"))


def test_infinite_gain_ratios_do_not_break_the_figure(small_study):
    """A tuned gain of 0 for the lowest relevant grade makes its ratios infinite or 0/0 (random runs of a few topics
    did it): the figure is drawn with finite axis limits from the finite ratios, not refused by matplotlib."""
    import dataclasses

    import matplotlib.pyplot as plt

    from experiments.report.figures import _figure_gain_ratios

    t = small_study.gain_ratio_table.copy()
    t["unconstrained"] = np.inf
    t.iloc[0, t.columns.get_loc("joint")] = np.nan
    fig = _figure_gain_ratios(dataclasses.replace(small_study, gain_ratio_table=t))
    try:
        lims = [ax.get_ylim() for ax in fig.axes if ax.get_ylabel()]
        assert lims and all(np.isfinite(lo) and np.isfinite(hi) and hi > lo for lo, hi in lims)
    finally:
        plt.close(fig)
