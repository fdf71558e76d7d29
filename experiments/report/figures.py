"""The figures of the report: one function per figure of :data:`FIGURES`, drawn from a
:class:`experiments.report.result.Study` into PNG or SVG bytes (:func:`render_figures`) or files
(:func:`write_figures`).

One concept: the pictures (their colours, markers and legends). Figure ``name`` is drawn by
``_FIGURE_FUNCS[name]``; a new figure is a function ``(Study) -> matplotlib.figure.Figure`` added there and to
:data:`FIGURES` (its caption in the report is written by the section that shows it, :mod:`experiments.report.sections`).
Legends the report's text repeats (:func:`asl_legend`) are made here, so the picture and its caption agree.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

import metrics
from ._adopted import KEPT_BASELINE
from .result import Study
from .wording import _NAMES, IN_SAMPLE, _signed, fmt_count

__all__ = ["FIGURES", "FIGURE_FORMATS", "figure_file", "render_figures", "write_figures", "asl_legend"]

#: figure files written by :func:`write_report`, with what they reproduce
FIGURES: dict[str, str] = {
    "discount_curves.png": "Fig. 2 — optimal vs standard discounts",
    "discount_unconstrained.png": "Fig. 3 / Fig. 6 — unconstrained and jointly tuned discounts at k = 20",
    "phi_vs_topics.png": "Fig. 4 — Φ against the number of topics",
    "gain_ratios.png": "Table 2 — optimal gain ratios by cut-off",
    "scatter_discount.png": "Fig. 7 — mean nDCG, optimal vs standard discounts",
    "scatter_gain.png": "Fig. 8 — mean nDCG, optimal vs exponential / linear gains",
    "asl_curves.png": "Fig. 9 — ASL curves (discriminative power)",
    "out_of_sample.png": "Out-of-sample Φ (tune on half the topics, measure on the other half)",
}

_COLORS = {"optimal": "#1f4e9c", "zipf": "#2ca02c", "log2": "#17becf", "linear": "#d62728",
           "unconstrained": "#ff7f0e", "joint": "#9467bd", "exponential": "#8c564b", "constrained": "#1f4e9c",
           "adopted": "#e6007e"}
#: reference lines of the standard gains in gain_ratios.png: (colour, line style), distinct in both
_REFERENCE_GAIN_STYLE = {"linear": ("0.2", "-."), "exponential": ("#8c564b", ":")}
#: level of the confidence bands of Φ(n) and of the topics-needed intervals in the report
_BAND_LEVEL = 0.95
_MARKERS = {"optimal": "o", "zipf": "+", "log2": "^", "linear": "x", "unconstrained": "s", "joint": "D",
            "adopted": "*"}
#: weights below this share of the largest are drawn at it on the log axis of Fig. 2 (never down to 1e-16)
_LOG_FLOOR = 1e-4

def _normalised(name: str, k: int) -> np.ndarray:
    d = metrics.measures.discounts.discount_vector(name, k, cutoff=k)[:k]
    return d / d.sum()


def _figure_discount_curves(study: Study):
    import matplotlib.pyplot as plt

    ks = sorted(study.settings.discount_cutoffs)
    fig, axes = plt.subplots(1, len(ks), figsize=(4.6 * len(ks), 3.9), squeeze=False)
    for ax, k in zip(axes[0], ks):
        r = np.arange(1, k + 1)
        ms = 5 if k <= 20 else 3
        every = 1 if k <= 20 else max(1, k // 20)
        curves = [(name, _normalised(name, k), _NAMES[name], 1.2) for name in ("zipf", "log2", "linear")]
        opt = study.discount_tunings[k].discount
        curves.append(("optimal", opt / opt.sum(), f"optimal ({IN_SAMPLE})", 2.0))
        a = study.adopted_for("discount")
        if a is not None and a.cutoff == k:
            curves.append(("adopted", a.discount / a.discount.sum(), a.row_label, 2.0))
        floor = _LOG_FLOOR * max(float(np.max(c[1])) for c in curves)
        for name, y, label, lw in curves:
            if k > 20:  # log axis: weights ~0 (an optimum's 1e-16 tail) drawn at the floor, not down to 1e-16
                y = np.maximum(y, floor)
            ax.plot(r, y, marker=_MARKERS[name], ms=ms + (2 if name == "adopted" else 0), markevery=every, lw=lw,
                    color=_COLORS[name], label=label, ls="--" if name == "adopted" else "-")
        ax.set_title(f"nDCG@{k}")
        ax.set_xlabel("rank")
        ax.set_ylabel("discount factor (sums to 1 over ranks)")
        if k > 20:
            ax.set_yscale("log")
            ax.set_ylim(bottom=floor / 1.5)
        ax.grid(alpha=0.3)
    entries = {}  # every curve of every panel once (the adopted discount is drawn at the main cut-off only)
    for ax in axes[0]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(lab, h)
    fig.legend(list(entries.values()), list(entries), loc="lower center", ncol=3, frameon=False, fontsize=8)
    fig.suptitle("Stability-optimal discount vs standard discounts (linear gains)", fontsize=11)
    fig.tight_layout(rect=(0, 0.07 * ((len(entries) + 2) // 3), 1, 1))
    return fig


def _figure_discount_unconstrained(study: Study):
    import matplotlib.pyplot as plt

    k = study.settings.asl_cutoff
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    r = np.arange(1, k + 1)
    cons = study.discount_tunings[k]
    ax.plot(r, cons.discount, marker="o", color=_COLORS["optimal"], lw=2,
            label=f"optimal, non-increasing (Φ = {cons.phi():.3f}; {IN_SAMPLE})")
    u = study.unconstrained
    ax.plot(r, u.discount, marker="s", color=_COLORS["unconstrained"], lw=1.4,
            label=f"optimal, unconstrained (Φ = {u.phi():.3f})")
    j = study.joint_tunings[k]
    ax.plot(r, j.discount[:k], marker="D", ms=4, color=_COLORS["joint"], lw=1.2, ls="--",
            label=f"joint gain + discount (Φ = {j.phi():.3f})")
    ax.plot(r, _normalised("log2", k), marker="^", ms=4, color=_COLORS["log2"], lw=1, alpha=0.8,
            label=_NAMES["log2"])
    ax.set_xlabel("rank")
    ax.set_ylabel("discount factor (sums to 1)")
    ax.set_title(f"Optimal discounts at nDCG@{k}: constrained, unconstrained, joint")
    ax.set_xticks(r if k <= 20 else np.linspace(1, k, 11).astype(int))
    ax.grid(alpha=0.3)
    ax.legend(frameon=False, fontsize=8)
    fig.tight_layout()
    return fig


#: line style and marker of each discount in phi_vs_topics (curves that nearly coincide stay tellable apart)
_PHI_STYLE = {"optimal": ("-", "o"), "log2": ("--", "^"), "zipf": ("-.", "s"), "linear": (":", "D"),
              "adopted": ((0, (6, 2, 1, 2)), "*")}


def _figure_phi_vs_topics(study: Study):
    import matplotlib.pyplot as plt

    s = study.settings
    names = _phi_names(study)
    need = study.discount_table["topics_needed"].replace(np.inf, np.nan).to_numpy(dtype=float)
    n_max = int(max(2 * study.n_topics, 100, min(1.15 * np.nanmax(need), 1000) if np.isfinite(need).any() else 0))
    intervals = {nm: study.gstudies[nm].topics_needed(s.target, "phi", level=_BAND_LEVEL) for nm in names}
    highs = [t.n_high for t in intervals.values() if t.n_high is not None and np.isfinite(t.n_high)]
    if highs and np.isfinite(need).any():  # the zoom reaches the upper ends of the intervals, within reason
        n_max = int(max(n_max, min(1.05 * max(highs), 2.5 * np.nanmax(need), 1000)))
    n = np.arange(1, n_max + 1)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6), gridspec_kw={"width_ratios": [1, 1.15]})
    lo = 1.0
    step = max(1, n_max // 8)
    for j, name in enumerate(names):
        g = study.gstudies[name]
        tn = study.discount_table.loc[name, "topics_needed"]
        ls, mk = _PHI_STYLE[name]
        ci = g.interval("phi", n, _BAND_LEVEL)
        # bands on the full-range panel only: four overlapping bands would hide the zoom's curves
        axes[0].fill_between(n, ci.low, ci.high, color=_COLORS[name], alpha=0.09, lw=0)
        for i, ax in enumerate(axes):
            # markers staggered by a quarter step per curve, so that they never sit on one another
            ax.plot(n, g.phi(n), color=_COLORS[name], ls=ls, marker=mk, ms=4.5, markevery=(j * step // 4, step),
                    lw=2.2 if name in ("optimal", "adopted") else 1.5,
                    label=f"{study.label(name)}: {fmt_count(tn)} topics" if i == 1 else study.label(name))
        t = intervals[name]
        if np.isfinite(tn) and tn <= n_max:
            hi = min(t.n_high, n_max) if t.n_high is not None else tn
            y = s.target - 0.01 * (j + 1)  # one row per discount under the target line
            axes[1].errorbar([tn], [y], xerr=[[tn - t.n_low], [hi - tn]], fmt=mk, color=_COLORS[name], ms=5,
                             mfc="white", mew=1.5, capsize=3, lw=1.2)
            if t.n_high is None or t.n_high > n_max:  # the interval goes on beyond the panel
                axes[1].plot([n_max], [y], marker=">", color=_COLORS[name], ms=5, clip_on=False)
        lo = min(lo, float(g.phi(max(1, study.n_topics // 5))))
    for i, ax in enumerate(axes):
        ax.axhline(s.target, color="0.4", ls="--", lw=1)
        ax.axvline(study.n_topics, color="0.6", ls=":", lw=1)
        ax.set_xlim(0, n_max)
        ax.set_xlabel("number of topics n")
        ax.set_ylabel("dependability Φ(n)")
        ax.grid(alpha=0.3)
    axes[0].set_ylim(0, 1.005)
    axes[0].set_title(f"Φ(n), full range; shaded: {_BAND_LEVEL:.0%} confidence bands", fontsize=10)
    # the legend sits in the empty middle right, the note on the collection's topics at the bottom: apart
    axes[0].legend(frameon=False, fontsize=8, loc="center right")
    axes[0].text(study.n_topics, 0.03, f" {study.n_topics} topics\n (this collection)", fontsize=8, color="0.35")
    zoom_lo = max(0.0, min(lo, s.target - 0.1))
    axes[1].set_ylim(zoom_lo, 1.0)
    axes[1].set_xlim(max(1, study.n_topics // 5), n_max)
    axes[1].set_title(f"zoom: where Φ reaches {s.target:g}; bars: {_BAND_LEVEL:.0%} intervals of the topics "
                      "needed", fontsize=10)
    axes[1].legend(title=f"topics needed for Φ ≥ {s.target:g}", frameon=False, fontsize=8, title_fontsize=8,
                   loc="lower right")
    fig.suptitle(f"Stability of nDCG@{s.cutoff} (linear gains) by discount — D-study, intervals of "
                 f"Arteaga et al. (1982)", fontsize=11)
    fig.tight_layout()
    return fig


def _figure_gain_ratios(study: Study):
    import matplotlib.pyplot as plt

    t = study.gain_ratio_table
    grades = sorted(set(t.index.get_level_values("grade")))
    low = study.levels[study.levels > 0][0]
    fig, axes = plt.subplots(1, len(grades), figsize=(max(7.6, 5.2 * len(grades)), 5.0), squeeze=False)
    for ax, grade in zip(axes[0], grades):
        sub = t.xs(grade, level="grade")
        ks = sub.index.to_numpy()
        x = np.arange(len(ks))
        for col, mk, ls, ms in (("unconstrained", "s", "-", 11), ("constrained", "o", "-", 6),
                                ("joint", "D", "--", 6)):
            lab = {"unconstrained": "optimal, unconstrained (log discount)",
                   "constrained": "optimal, non-decreasing in grade (log discount)",
                   "joint": "optimal, tuned jointly with the discount"}[col]
            ax.plot(x, sub[col], marker=mk, ls=ls, color=_COLORS[col], label=lab, ms=ms,
                    mfc="none" if col == "unconstrained" else _COLORS[col], mew=1.6)
        for fam, name in (("linear", "linear gain (x)"), ("exponential", "exponential gain (2^x − 1)")):
            v = float(sub[fam].iloc[0])
            ax.axhline(v, color=_REFERENCE_GAIN_STYLE[fam][0], ls=_REFERENCE_GAIN_STYLE[fam][1], lw=1.6, label=name)
            ax.text(x[-1], v, f"{fam} = {v:g}", ha="right", va="bottom", fontsize=8,
                    color=_REFERENCE_GAIN_STYLE[fam][0])
        ax.axhline(1, color="0.7", lw=0.8)
        ax.set_xticks(x, [f"@{kk}" for kk in ks])
        ax.set_xlabel("nDCG cut-off")
        ax.set_ylabel(f"gain(grade {grade:g}) / gain(grade {low:g})")
        ax.set_title(f"grade {grade:g} vs grade {low:g}")
        # the finite ratios only: a tuned gain of 0 for the lowest relevant grade makes a ratio infinite (or 0/0),
        # which is not drawn, and must not make the axis limits infinite
        vals = np.append(sub[["unconstrained", "constrained", "joint"]].to_numpy(dtype=float).ravel(),
                         float(sub["exponential"].iloc[0]))
        vals = vals[np.isfinite(vals)]
        if vals.size and vals.max() > 0:
            ax.set_ylim(0, float(vals.max()) * 1.12)
        ax.grid(alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, frameon=False, fontsize=8)
    fig.suptitle("Stability-optimal gain ratios by cut-off (Table 2)", fontsize=11)
    fig.tight_layout(rect=(0, 0.13, 1, 1))
    return fig


#: systems named in the scatter plots (the best by the reference configuration's mean)
_LABEL_TOP = 5


def _scatter_row(study: Study, ref: str, others: Sequence[str], labels: Mapping[str, str], title: str):
    import matplotlib.pyplot as plt

    import experiments

    fig, axes = plt.subplots(1, len(others), figsize=(4.4 * len(others), 4.9), squeeze=False,
                             layout="constrained")
    for ax, o in zip(axes[0], others):
        experiments.plot_mean_scatter(study.scores[ref], study.scores[o], ax=ax,
                                      labels=(labels[ref], labels[o]), label_top=_LABEL_TOP)
        leg = ax.get_legend()
        if leg is not None:  # the legend only carries the τ / RMSE text: hide its marker
            # legend_handles from Matplotlib 3.7 (legendHandles before, deprecated since: not asked for when the
            # new name is there)
            handles = leg.legend_handles if hasattr(leg, "legend_handles") else getattr(leg, "legendHandles", [])
            for h in handles:
                h.set_visible(False)
        ax.set_title(f"{labels[o]} vs {labels[ref]}", fontsize=10)
        ax.grid(alpha=0.3)
    fig.suptitle(title, fontsize=11)
    return fig


def _figure_scatter_discount(study: Study):
    k = study.settings.cutoff
    labels = {"optimal": "optimal discount", "log2": "log discount", "zipf": "Zipf discount",
              "linear": "linear discount"}
    return _scatter_row(study, "optimal", ("log2", "zipf", "linear"), labels,
                        f"Mean nDCG@{k} per system: optimal discount (x) vs standard discounts (y)")


def _figure_scatter_gain(study: Study):
    k = study.settings.cutoff
    labels = {"optimal gain": "optimal gain", "exponential gain": "exponential gain", "linear gain": "linear gain"}
    return _scatter_row(study, "optimal gain", ("exponential gain", "linear gain"), labels,
                        f"Mean nDCG@{k} per system (log discount): optimal gain (x) vs standard gains (y)")


def _figure_asl(study: Study):
    import matplotlib.pyplot as plt

    import experiments

    s = study.settings
    legend = asl_legend(study)
    curves = {legend[n]: t for n, t in study.asl.items()}
    rows = (len(curves) + 2) // 2  # the legend below the panels, two columns: it covers no curve
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4 + 0.22 * rows))
    for i, ax in enumerate(axes):
        experiments.plot_asl_curves(curves, ax=ax, alpha=s.alpha)
        for line in ax.get_lines():  # the adopted configurations stand out, the baseline is black
            label = line.get_label()
            other_cutoff = f", nDCG@{s.cutoff}" in label and s.cutoff != s.asl_cutoff  # thicker, dash-dot
            if label.startswith("baseline") or label.startswith(KEPT_BASELINE):
                line.set(color="0.1", lw=2.4 if other_cutoff else 1.8,
                         ls=(0, (6, 2, 1, 2)) if other_cutoff else (0, (5, 2)), zorder=4)
            elif label.startswith("adopted"):
                line.set(color=_COLORS["adopted"], lw=2.6, zorder=5)
        ax.grid(alpha=0.3)
        ax.get_legend().remove()
        if i == 0:
            ax.set_ylim(0, 1.0)
            ax.set_title("all pairs", fontsize=10)
        else:
            zoom = 3 * s.alpha
            last = max(int(np.searchsorted(np.sort(t["asl"].to_numpy()), zoom)) for t in study.asl.values())
            ax.set_xlim(0, max(10, int(last * 1.05)))
            ax.set_ylim(0, zoom)
            ax.set_title(f"zoom: ASL ≤ {zoom:g} (pairs left of the α line are told apart)", fontsize=10)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, frameon=False, fontsize=8)
    n_sys = min(s.top_k, study.n_systems)
    fig.suptitle(f"Discriminative power: ASL curves, nDCG@{s.asl_cutoff}, top {n_sys} systems, "
                 f"paired bootstrap B = {s.n_resamples}", fontsize=11)
    fig.tight_layout(rect=(0, 0.05 * rows, 1, 1))
    return fig


def _figure_out_of_sample(study: Study):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.3), squeeze=False)
    for ax, (what, cv) in zip(axes[0], (("discount", study.cv_discount), ("gain", study.cv_gain))):
        test = cv[cv.part == "test"].pivot(index="split", columns="config", values="phi")
        others = [c for c in dict.fromkeys(cv.config) if c != "tuned"]
        rng = np.random.default_rng(0)
        for i, c in enumerate(others):
            d = (test["tuned"] - test[c]).to_numpy()
            ax.scatter(i + rng.uniform(-0.1, 0.1, d.size), d, s=22, alpha=0.75, color=_COLORS.get(c, "0.4"),
                       zorder=3)
            ax.errorbar(i + 0.25, d.mean(), yerr=d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else 0,
                        fmt="D", color="k", ms=6, capsize=4, zorder=4)
            ax.text(i + 0.33, d.mean(), f"{_signed(d.mean())}\n{np.mean(d > 0):.0%} > 0", fontsize=8, va="center")
        ax.axhline(0, color="0.4", lw=1, ls="--")
        names = [(_NAMES.get(c, c) if what == "discount" else f"{c} gain") for c in others]
        ax.set_xticks(range(len(others)), names, fontsize=9)
        ax.set_xlim(-0.5, len(others) - 0.2)
        n_te = int(cv[cv.part == "test"].n_topics.iloc[0])
        ax.set_ylabel(f"held-out Φ(tuned) − Φ(standard)  ({n_te} topics)")
        ax.set_title(f"{what} tuned on half the topics, {study.settings.n_splits} splits "
                     f"(dots: splits; ◆: mean ± s.e.)", fontsize=10)
        ax.grid(alpha=0.3, axis="y")
    fig.suptitle(f"Out-of-sample check, nDCG@{study.settings.cutoff}: above 0 = the tuned configuration is "
                 f"more stable on topics it was not tuned on", fontsize=11)
    fig.tight_layout()
    return fig


_FIGURE_FUNCS: dict[str, Callable[[Study], Any]] = {
    "discount_curves.png": _figure_discount_curves,
    "discount_unconstrained.png": _figure_discount_unconstrained,
    "phi_vs_topics.png": _figure_phi_vs_topics,
    "gain_ratios.png": _figure_gain_ratios,
    "scatter_discount.png": _figure_scatter_discount,
    "scatter_gain.png": _figure_scatter_gain,
    "asl_curves.png": _figure_asl,
    "out_of_sample.png": _figure_out_of_sample,
}


#: figure file formats of :func:`write_figures` / ``gtheory report --figures``
FIGURE_FORMATS: tuple[str, ...] = ("png", "svg")
_MIME = {"png": "image/png", "svg": "image/svg+xml"}


def figure_file(name: str, figure_format: str = "png") -> str:
    """The file name of figure ``name`` (a key of :data:`FIGURES`) in ``figure_format``: ``phi_vs_topics.svg``."""
    _check_figure_format(figure_format)
    return f"{Path(name).stem}.{figure_format}"


def _check_figure_format(figure_format: Any) -> str:
    if figure_format not in FIGURE_FORMATS:
        raise ValueError(f"`figure_format` must be one of {list(FIGURE_FORMATS)}; got {figure_format!r}.")
    return figure_format


def render_figures(study: Study, *, figure_format: str = "png", dpi: int = 110) -> dict[str, bytes]:
    """Every figure of :data:`FIGURES` drawn into memory: file name (:func:`figure_file`) → PNG or SVG bytes.

    SVGs keep their text as paths (matplotlib's ``svg.fonttype = "path"``), so they need no font to look
    the same everywhere; neither format carries a creation date, so the same study gives the same bytes.
    """
    import io

    import matplotlib

    _check_figure_format(figure_format)
    if matplotlib.get_backend().lower() not in ("agg", "pdf", "svg", "cairo", "module://matplotlib_inline.backend_inline"):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = {}
    meta = {"Date": None} if figure_format == "svg" else {}
    for name, fn in _FIGURE_FUNCS.items():
        fig = fn(study)
        buf = io.BytesIO()
        with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "gtheory-report"}):
            fig.savefig(buf, format=figure_format, dpi=dpi, metadata=meta)
        plt.close(fig)
        out[figure_file(name, figure_format)] = buf.getvalue()
    return out


def write_figures(study: Study, out_dir: str | Path, *, dpi: int = 110, figure_format: str = "png",
                  figures: Mapping[str, bytes] | None = None) -> dict[str, Path]:
    """Write every figure of :data:`FIGURES` as PNG (or SVG) into ``out_dir``; returns name → path.

    ``figures`` — bytes from :func:`render_figures` — avoids drawing them again."""
    from gtheory.kit.output import open_output as atomic_open

    figures = render_figures(study, figure_format=figure_format, dpi=dpi) if figures is None else figures
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, data in figures.items():
        p = out / name
        with atomic_open(p, "wb") as fh:  # never a truncated figure, even when interrupted
            fh.write(data)
        paths[name] = p
    return paths



def _phi_legend(study: Study) -> list[str]:
    """The curves of Fig. 4 (Φ(n) by discount), in drawing order, as its legend names them."""
    return [study.label(n) for n in _phi_names(study)]


def _phi_names(study: Study) -> tuple[str, ...]:
    return ("optimal", "log2", "zipf", "linear") + (("adopted",) if "adopted" in study.gstudies else ())


def asl_legend(study: Study) -> dict[str, str]:
    """Fig. 9's legend: configuration (a row of :attr:`Study.power`) → its legend text, the share of pairs it
    tells apart appended. The figure and its caption (the HTML's alt text) both use this, so the legend is
    readable without decoding the picture."""
    return {n: f"{n} ({100 * study.power.loc[n, 'power']:.0f}% of pairs < α)" for n in study.asl}

