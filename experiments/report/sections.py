"""The report's content: its sections, each a list of blocks, assembled in order by :func:`report_blocks`.

One concept: *what* the report says, from a :class:`experiments.report.result.Study` (the numbers) and the figures
of :mod:`experiments.report.figures` (by file name); *how* it is written out — Markdown, HTML, the files — is
:mod:`experiments.report.render`.

Blocks
------
A block is a pair ``(kind, content)``:

* ``("h1", text)`` / ``("h2", text)`` — the title / a section heading (Markdown text);
* ``("p", text)`` / ``("md", text)`` — a paragraph / any Markdown (a list, a table already written);
* ``("table", _Table)`` — a DataFrame with its caption and per-column digits, printed by the renderer;
* ``("img", (figure name, caption))`` — a figure of :data:`experiments.report.figures.FIGURES` by its PNG name.

Free text that comes from the data (a collection's name, a configuration's label) goes through :func:`_md_text`
so that nothing in it is taken for markup.

Adding a section
----------------
Write a function ``(study: Study) -> list[Block]`` (its first block an ``("h2", ...)`` heading; an empty list
leaves the section out, as :func:`_published_section` does off TREC-9) and put it in :data:`SECTIONS` where it
belongs in the reading order. Nothing else changes: :func:`experiments.report.render.render` writes whatever
:func:`report_blocks` returns, as Markdown and as HTML. A new figure is added in :mod:`experiments.report.figures`
and shown here with an ``"img"`` block.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from ._adopted import BASELINE_LABEL
from gtheory.kit.render import markdown
from .figures import _BAND_LEVEL, _LABEL_TOP, _LOG_FLOOR, _phi_legend, asl_legend
from .result import Study
from .wording import IN_SAMPLE, fmt_count

__all__ = ["Block", "SECTIONS", "report_blocks"]

#: one block of the report: (kind, content), kind "h1" | "h2" | "p" | "md" | "table" | "img" (module docstring)
Block = tuple[str, Any]


@dataclass
class _Table:
    """A table block: the frame as shown (index = row labels), its caption and the digits of its columns."""

    frame: pd.DataFrame
    digits: Mapping[str, int] = field(default_factory=dict)
    caption: str = ""
    #: columns holding counts (topics needed, pairs, topics): printed by :func:`fmt_count`, never "26.500"
    counts: frozenset[str] = frozenset()


def _md_text(text: str) -> str:
    """Free text (a collection name, a description, a run name) as literal Markdown, by the kit's one Markdown rule
    (:func:`gtheory.kit.render.markdown`): nothing in a name is taken for markup, raw HTML or a link, and a newline
    never breaks a table row."""
    return markdown(text)


#: Table 3's gains as the report names them
_GAIN_NAMES = {"exponential": "exponential gain (2^x − 1)", "linear": "linear gain (x) — baseline",
               "optimal": f"optimal gain ({IN_SAMPLE})"}


def _config_label(study: Study, key: str) -> str:
    """The report's name of a configuration key of :attr:`Study.scores` (discounts at linear gains, gains at the
    log discount)."""
    if key in ("adopted", "adopted gain"):
        return study.label(key)
    if key.endswith(" gain"):
        return _GAIN_NAMES.get(key[: -len(" gain")], key)
    return study.label(key)


def _kept(study: Study, what: str) -> bool:
    """The ``what`` ("discount"/"gain") verdict keeps the baseline: its adopted configuration *is* the baseline, so
    the tables show the baseline's row once (named as kept) instead of a second, identical "adopted" row."""
    a = study.adopted_for(what)
    return a is not None and a.is_baseline


def _without_kept(study: Study, frame: pd.DataFrame, keys: dict[str, str], axis: int = 0) -> pd.DataFrame:
    """``frame`` without the rows (``axis`` 0; 1: also the columns) of the adopted configurations that keep the
    baseline (``keys``: row key → "discount"/"gain")."""
    drop = [k for k, what in keys.items() if _kept(study, what) and k in frame.index]
    frame = frame.drop(index=drop)
    return frame.drop(columns=[k for k in drop if k in frame.columns]) if axis else frame


#: appended to the baseline's row label when a verdict keeps it (its one row is also the adopted configuration)
KEPT_SUFFIX = " (kept: the adopted configuration)"


def _kept_label(study: Study, what: str, label: str) -> str:
    """The baseline row's label, saying that the ``what`` verdict keeps it (one row for one configuration)."""
    return label + KEPT_SUFFIX if _kept(study, what) else label


def _adopted_needs(study: Study) -> str:
    """", X (adopted: rbp(p=0.81))" for the "In short" sentence; "" without an adopted discount or when it keeps
    the baseline (whose number the sentence gives already)."""
    a = study.adopted_for("discount")
    if a is None or a.is_baseline or "adopted" not in study.discount_table.index:
        return ""
    return f", {fmt_count(study.discount_table.loc['adopted', 'topics_needed'])} ({_md_text(a.row_label)})"


def _shape(d: np.ndarray) -> dict[str, float]:
    """d(1) (of the discount normalised to sum 1) and the weights of rank 10 and of the last rank relative to
    rank 1, with ratios below :data:`_LOG_FLOOR` shown as 0 (never 1e-16)."""
    d = np.asarray(d, dtype=float)
    d = d / d.sum() if d.sum() > 0 else d

    def ratio(x: float) -> float:
        if not d[0] > 0:
            return math.nan
        r = x / d[0]
        return 0.0 if abs(r) < _LOG_FLOOR else r

    return {"d(1)": float(d[0]), "d(10)/d(1)": ratio(d[min(9, d.size - 1)]), "d(k)/d(1)": ratio(d[-1])}


def _reconcile(study: Study) -> str:
    """One paragraph per cut-off of Fig. 9 where the most stable configuration is not the most discriminative:
    why both can hold and which to trust for what; "" when they agree everywhere."""
    s = study.settings
    n = study.n_topics
    found = []
    for k, pw in study.power.groupby("cutoff", sort=True):
        if len(pw) < 2 or not np.isfinite(pw["phi"]).any():
            continue
        stable, strong = pw["phi"].idxmax(), pw["power"].idxmax()
        if pw.loc[stable, "power"] < pw.loc[strong, "power"]:
            found.append(f"at nDCG@{k} the most stable configuration, *{_md_text(stable)}* (Φ({n}) = "
                         f"{pw.loc[stable, 'phi']:.3f}), tells apart {100 * pw.loc[stable, 'power']:.0f}% of the pairs, "
                         f"*{_md_text(strong)}* {100 * pw.loc[strong, 'power']:.0f}% (Φ({n}) = "
                         f"{pw.loc[strong, 'phi']:.3f})")
    if not found:
        return ""
    return (f"**Stability and discriminative power disagree here:** {'; '.join(found)}. They measure different "
            f"things. Φ is the share of the variance of a mean over topics that comes from real differences between "
            f"the systems — how consistently a configuration ranks all {study.n_systems} systems from one topic set "
            f"to another. Discriminative power counts the pairs of the top {min(s.top_k, study.n_systems)} systems "
            f"whose difference a paired test calls significant at α = {s.alpha:g} with these {n} topics; it is "
            f"itself a noisy estimate (B = {s.n_resamples} bootstrap samples, one topic set). A configuration can rank the "
            f"systems more consistently overall while compressing the differences between close systems below what "
            f"a test resolves. Trust Φ and the topics needed for how many topics a comparison needs and for "
            f"rankings that repeat on new topics (the recommendation is judged on held-out Φ); trust discriminative "
            f"power for how many pairwise claims this topic set supports.")


def _verdict(study: Study) -> str | None:
    """The report's opening verdict paragraph (Markdown), shown right under the title; None: none.

    The one place for a short answer to "which configuration should I use?" — kept separate from the
    detailed sections so that a recommendation can be written here without touching them.
    It holds :func:`optimize.recommend`'s verdicts (discount, gains) at the main cut-off: is tuning worth
    it on held-out topics (docs/should-i-tune.md)."""
    if not study.verdict:
        return None
    n = study.n_topics
    text = f"**Should I tune nDCG@{study.settings.cutoff}?** {_md_text(study.verdict)}"
    switched = [a for a in study.adopted if not a.is_baseline]
    if switched:
        shown = "; ".join(f"{a.what}: *{_md_text(a.row_label)}*" for a in switched)
        text += (f" **Shown below as** {shown} — its own row or series in every table and figure that compares "
                 f"configurations, beside the *baseline* ({_md_text(BASELINE_LABEL)}, what you use without this "
                 f"tool). Rows named *optimal* are the {IN_SAMPLE}: tuned and measured on the same topics.")
    kept = [a.what for a in study.adopted if a.is_baseline]
    if kept:
        text += (f" The {' and '.join(kept)} verdict keeps the *baseline* ({_md_text(BASELINE_LABEL)}): the tables "
                 "show it once, as the baseline's row, not again as an adopted one.")
    text += (f" Φ(1) is the stability of a comparison on one topic, Φ({n}) that of the mean over this "
             f"collection's n = {n} topics (the share of its variance due to real differences between systems).")
    return text


def _opening(study: Study) -> list[Block]:
    """The title, the verdict (:func:`_verdict`), the data and settings, the answer in short and the notes."""
    s = study.settings
    k = s.cutoff
    B: list[Block] = []
    B.append(("h1", f"nDCG gain and discount tuned for stability — {_md_text(study.name)}, "
                    f"{study.n_systems} systems × {study.n_topics} topics"))
    verdict = _verdict(study)
    if verdict:
        B.append(("p", verdict))
    desc = (f"Data: {_md_text(study.description.rstrip('.'))}. "
            if study.description and study.description != study.name else "")
    B.append(("p", (
        f"{desc}{study.n_systems} systems × {study.n_topics} topics, grades {', '.join(f'{g:g}' for g in study.levels)}. "
        f"Reproduces the study of Kanoulas & Aslam (CIKM 2009) §3: stability is the dependability Φ of the "
        f"systems × topics nDCG scores (generalizability theory, crossed s × t design); an *optimal* gain or "
        f"discount maximises it. Main cut-off k = {k}; Φ target {s.target:g}; bootstrap B = {s.n_resamples}, "
        f"top {min(s.top_k, study.n_systems)} systems; {s.n_splits} topic splits; {s.starts} optimiser start(s); "
        f"seed {s.seed}. Computed in {study.seconds:.0f} s. The last section says how to read each part.")))
    dt = study.discount_table
    B.append(("p", (
        f"**In short.** At nDCG@{k} the in-sample optimal discount needs "
        f"{fmt_count(dt.loc['optimal', 'topics_needed'])} topics for "
        f"Φ ≥ {s.target:g} against {fmt_count(dt.loc['log2', 'topics_needed'])} (log, the baseline), "
        f"{fmt_count(dt.loc['linear', 'topics_needed'])} (linear) and {fmt_count(dt.loc['zipf', 'topics_needed'])} "
        f"(Zipf){_adopted_needs(study)} — in-sample; out of sample (held-out halves) the tuned discount's mean Φ is "
        f"{study.cv_summary.loc[('discount', 'tuned'), 'phi_test']:.3f} vs "
        f"{study.cv_summary.loc[('discount', 'log2'), 'phi_test']:.3f} for log. Gain ratios are in Table 2 below; "
        f"Kendall τ between the optimal and the log discount's rankings is "
        f"{study.tau_discount.loc['optimal', 'log2']:.3f}.")))
    if study.notes:
        B.append(("p", "**Notes.** " + " ".join(study.notes)))
    return B


def _discount_section(study: Study) -> list[Block]:
    """1. Discount: Table 1 (D-study by discount), Fig. 4, the optimal discount by cut-off, Figs. 2, 3, 6."""
    s = study.settings
    k = s.cutoff
    dt = study.discount_table
    B: list[Block] = []
    B.append(("h2", "Discount (Table 1, Figs. 2, 3, 4, 6)"))
    t1 = _without_kept(study, dt[["share_system", "share_topic", "share_residual", "phi", "erho2",
                                  "topics_needed"]].copy(), {"adopted": "discount"})
    t1.index = [_kept_label(study, "discount", study.label(i)) if i == "log2" else study.label(i) for i in t1.index]
    t1.index.name = "discount"
    need_col = f"topics for Φ ≥ {s.target:g}"
    t1.columns = ["σ²(s) share", "σ²(t) share", "σ²(st,e) share", f"Φ({study.n_topics})",
                  f"Eρ²({study.n_topics})", need_col]
    B.append(("table", _Table(t1, counts=frozenset({need_col}),
                              caption=f"Table 1 (D-study) — nDCG@{k}, linear gains: variance shares, coefficients "
                                      f"at {study.n_topics} topics, topics needed.")))
    B.append(("img", ("phi_vs_topics.png", f"Fig. 4 — Φ(n) of nDCG@{k} by discount ("
                      + ", ".join(_phi_legend(study)) + f"); markers at the topics needed for Φ ≥ {s.target:g}.")))
    rows = []
    for kk, t in sorted(study.discount_tunings.items()):
        rows.append({"discount": f"nDCG@{kk}: optimal ({IN_SAMPLE})", "Φ": t.phi(),
                     "topics needed": t.topics_needed(s.target, level=None).n, **_shape(t.discount),
                     "converged": t.success})
        if (bound := t.__dict__.get("_optimality_bound")) is not None:  # shown once Tuning.bound() ran
            rows[-1]["Φ(1) bound − achieved"] = bound.bound - t.fun
    a = study.adopted_for("discount")
    if a is not None and not a.is_baseline and "adopted" in study.gstudies:
        g = study.gstudies["adopted"]
        rows.append({"discount": f"nDCG@{k}: {a.row_label}", "Φ": float(g.phi()),
                     "topics needed": g.topics_needed(s.target, "phi", level=None).n, **_shape(a.discount)})
    B.append(("table", _Table(pd.DataFrame(rows).set_index("discount"), counts=frozenset({"topics needed"}),
                              digits={"d(10)/d(1)": 4, "d(k)/d(1)": 4},
                              caption="Discount by cut-off: the in-sample optimum (non-increasing, unregularised; "
                                      "tuned and measured on the same topics) and the adopted discount; weight of "
                                      "rank 10 and of the last rank relative to rank 1 (a ratio below 0.0001 is shown as 0).")))
    B.append(("img", ("discount_curves.png", "Fig. 2 — in-sample optimal discount"
                      + (" and the adopted one" if a is not None else "") + " vs Zipf, log and linear (normalised "
                      f"to sum 1; log scale at deep cut-offs, weights below {_LOG_FLOOR:g} of the largest drawn at "
                      "that floor).")))
    B.append(("img", ("discount_unconstrained.png",
                      f"Figs. 3 and 6 — at nDCG@{s.asl_cutoff}: the optimum without the non-increasing "
                      f"constraint and the discount tuned jointly with the gains.")))
    return B


def _gain_section(study: Study) -> list[Block]:
    """2. Gain: Table 2 (gain ratios by cut-off) and its figure, Table 3 (D-study by gain)."""
    s = study.settings
    k = s.cutoff
    need_col = f"topics for Φ ≥ {s.target:g}"
    B: list[Block] = []
    B.append(("h2", "Gain (Tables 2, 3)"))
    gr = study.gain_ratio_table[["unconstrained", "constrained", "joint", "linear", "exponential"]].copy()
    gr.columns = ["optimal, unconstrained (log)", "optimal, non-decreasing (log)", "optimal, joint w/ discount",
                  "linear — baseline", "exponential"]
    low = study.levels[study.levels > 0][0]
    ag = study.adopted_for("gain")
    if ag is not None and not ag.is_baseline:  # the adopted gains' ratios, at the cut-off they were chosen at
        base = float(ag.gain[list(ag.levels).index(low)]) if low in list(ag.levels) else math.nan
        gr[ag.row_label] = [float(ag.gain[list(ag.levels).index(grade)]) / base
                            if kk == ag.cutoff and grade in list(ag.levels) and base > 0 else math.nan
                            for kk, grade in gr.index]
    B.append(("table", _Table(gr, digits={c: 2 for c in gr.columns},
                              caption=f"Table 2 — gain of each grade relative to grade {low:g}, by cut-off "
                                      f"(optimal: {IN_SAMPLE}).")))
    B.append(("img", ("gain_ratios.png", "Table 2 as a figure: optimal gain ratios against the linear and "
                                         "exponential gains' ratios.")))
    t3 = _without_kept(study, study.gain_table[["share_system", "phi", "erho2", "topics_needed"]].copy(),
                       {"adopted": "gain"})
    t3.index = [_kept_label(study, "gain", _GAIN_NAMES.get(i, i)) if i == "linear" else
                _GAIN_NAMES.get(i, i) if i != "adopted" else study.label("adopted gain") for i in t3.index]
    t3.index.name = "gain"
    t3.columns = ["σ²(s) share", f"Φ({study.n_topics})", f"Eρ²({study.n_topics})", need_col]
    B.append(("table", _Table(t3, counts=frozenset({need_col}),
                              caption=f"Table 3 (D-study) — nDCG@{k}, log discount, by gain.")))
    return B


def _rankings_section(study: Study) -> list[Block]:
    """3. Rankings of systems: Table 4 (Kendall τ), the agreement table, Figs. 7 and 8."""
    k = study.settings.cutoff
    B: list[Block] = []
    B.append(("h2", "Rankings of systems (Table 4, Figs. 7, 8)"))
    tau = _without_kept(study, study.tau_discount.copy(), {"adopted": "discount"}, axis=1)
    tau.index = [_kept_label(study, "discount", study.label(i)) if i == "log2" else study.label(i) for i in tau.index]
    tau.columns = [_kept_label(study, "discount", study.label(i)) if i == "log2" else study.label(i)
                   for i in tau.columns]
    B.append(("table", _Table(tau, digits={c: 4 for c in tau.columns},
                              caption=f"Table 4 — Kendall τ between the system rankings of the discounts, nDCG@{k}.")))
    agr = study.agreement.copy()
    agr.index = pd.MultiIndex.from_tuples([(_config_label(study, r), _config_label(study, c)) for r, c in agr.index],
                                          names=agr.index.names)
    agr.columns = ["Kendall τ", "τ_AP", "RMSE of means"]
    B.append(("table", _Table(agr, digits={"Kendall τ": 4, "τ_AP": 4, "RMSE of means": 4},
                              caption="Agreement of each standard configuration with the in-sample optimum, and of "
                                      "the adopted configuration with the baseline (τ_AP, symmetric variant b: "
                                      "top-weighted).")))
    B.append(("img", ("scatter_discount.png", "Fig. 7 — per-system mean nDCG, optimal vs standard discounts.")))
    B.append(("img", ("scatter_gain.png", "Fig. 8 — per-system mean nDCG, optimal vs exponential and linear gains.")))
    return B


def _power_section(study: Study) -> list[Block]:
    """4. Discriminative power (Fig. 9, :func:`_reconcile` when stability and power disagree) and swap rates."""
    s = study.settings
    k = s.cutoff
    B: list[Block] = []
    B.append(("h2", "Discriminative power (Fig. 9) and swap rates"))
    pw = study.power.copy()
    pw.columns = ["cut-off", f"share of pairs with ASL < {s.alpha:g}", "significant pairs", "pairs",
                  "difference needed", f"Φ({study.n_topics})"]
    B.append(("table", _Table(pw, digits={"difference needed": 3},
                              counts=frozenset({"cut-off", "significant pairs", "pairs"}),
                              caption=f"Sakai's paired bootstrap, top {min(s.top_k, study.n_systems)} systems, "
                                      f"nDCG@{s.asl_cutoff}"
                                      + ("" if k == s.asl_cutoff else f" (rows marked nDCG@{k}: at that cut-off)")
                                      + f", B = {s.n_resamples}.")))
    B.append(("img", ("asl_curves.png", "Fig. 9 — ASL of every system pair, sorted; lower curves discriminate more. "
                      "Legend: " + "; ".join(asl_legend(study).values()) + ".")))
    reconcile = _reconcile(study)
    if reconcile:
        B.append(("p", reconcile))
    if study.swap is not None and not study.swap.empty:
        sw = _without_kept(study, study.swap.copy(), {"adopted": "discount", "adopted gain": "gain"})
        sw.index = [_kept_label(study, "discount", _config_label(study, i)) if i == "log2" else
                    _config_label(study, i) for i in sw.index]
        sw = sw[~sw.index.duplicated()]  # the baseline kept for the discount and for the gains: one row
        sw.index.name = "configuration"
        sw.columns = ["topics per set", "swap rate", "difference for ≤ 5 % swaps", "share of comparisons reaching it"]
        B.append(("table", _Table(sw, counts=frozenset({"topics per set"}), digits={"swap rate": 4},
                                  caption=f"Swap rates (Voorhees & Buckley 2002), nDCG@{k}: two disjoint sets of "
                                          f"{fmt_count(sw.iloc[0, 0])} topics, B = {s.n_resamples} draws, all system pairs; "
                                          "a swap is a pair the two sets order differently.")))
    return B


def _out_of_sample_section(study: Study) -> list[Block]:
    """5. Out of sample: tuned on half the topics, measured on the other half."""
    s = study.settings
    k = s.cutoff
    B: list[Block] = []
    B.append(("h2", "Out of sample"))
    cv = study.cv_summary.copy()
    base = {"discount": "log2", "gain": "linear"}
    cv.index = pd.MultiIndex.from_tuples(
        [(what, "tuned (unregularised, refitted on each tuning half)" if c == "tuned"
          else f"{c} — baseline" if base.get(what) == c else c) for what, c in cv.index], names=cv.index.names)
    cv.columns = ["Φ tuning half", "Φ held-out half", "median topics needed (held-out)",
                  "share of splits tuned beats it (held-out)", "held-out topics"]
    B.append(("table", _Table(cv, counts=frozenset({"median topics needed (held-out)", "held-out topics"}), caption=(
        f"Tune on a random half of the topics, measure on the other half ({s.n_splits} splits, nDCG@{k}). "
        "The in-sample Φ of a tuned vector is optimistic by construction; the held-out column is the honest one."))))
    B.append(("img", ("out_of_sample.png", "Held-out Φ of the tuned configuration minus that of each standard one, "
                                           "per split.")))
    return B


def _published_section(study: Study) -> list[Block]:
    """6. The paper's published TREC 9 numbers beside ours (TREC-9 only; else no blocks)."""
    B: list[Block] = []
    comp = study.published_comparison()
    if comp:
        B.append(("h2", "Published numbers (TREC 9, Kanoulas & Aslam 2009) beside ours"))
        B.append(("p", (
            "Published values transcribed from the paper (Tables 1–4, TREC 9 rows). Our embedded data has 104 of "
            "the paper's 105 runs and the paper's solver (MATLAB fmincon/fminimax) differs from ours (SLSQP with "
            "exact gradients, multi-start), so small differences are expected; the paper's Table 2 third column "
            "(ratio with the optimal discount) is compared with our jointly tuned gains. The captions of the paper's "
            "Tables 1 and 3 say Φ ≥ 0.95 but its text says Φ = 0.9 for Table 1; our counts at Φ ≥ 0.90 match the "
            "published ones closely (those at 0.95 are about twice as large, 0.95·0.1/(0.05·0.9) ≈ 2.1), so we show "
            "both.")))
        for cap, t in comp.items():
            if not t.empty:
                dg = 4 if "τ" in cap else 2
                B.append(("table", _Table(t, digits={c: dg for c in t.columns}, caption=cap)))
    return B


def _topics_section(study: Study) -> list[Block]:
    """7. Is this collection big enough? (:mod:`experiments.report.topics`; absent when the study has none)."""
    from .topics import HEADING

    if study.topics is None:
        return []
    return [("h2", HEADING), ("md", study.topics.markdown.strip())]


def _reading_guide(study: Study) -> list[Block]:
    """How to read this report (:func:`_how_to_read`), the last section."""
    B: list[Block] = []
    B.append(("h2", "How to read this report"))
    B.append(("md", _how_to_read(study)))
    return B


def _comparison_blocks(study: Study, top: int = 5) -> list[Block]:
    """The best runs compared as a paper would (:func:`experiments.compare_measures`): paired t-tests between the
    ``top`` runs by the baseline nDCG, Holm-corrected, under the baseline and each adopted configuration."""
    from experiments.compare import compare_measures

    k = study.settings.cutoff
    keys = [key for key, what in (("log2", ""), ("adopted", "discount"), ("adopted gain", "gain"))
            if key in study.scores and not (what and _kept(study, what))]  # a kept baseline: its column once
    if not keys or study.n_systems < 2:
        return []
    frames = {f"nDCG@{k}, {_config_label(study, key)}": study.scores[key] for key in keys}
    first = study.scores[keys[0]]
    runs = list(first.mean(axis=1).sort_values(ascending=False, kind="stable").index[: min(top, len(first))])
    table = compare_measures(frames, systems=runs, test="t", correction="holm", alpha=study.settings.alpha)
    return [("h2", "Comparing the best runs"),
            ("p", f"The {len(runs)} best runs by the baseline nDCG@{k}, compared pair by pair under the baseline and "
                  "under the adopted configuration(s), as a paper would report them: paired t-tests, Holm-corrected "
                  "over the pairs of each column (experiments.compare_measures; `gtheory compare` gives the same "
                  "table as LaTeX)."),
            ("md", table.to_markdown())]


def _how_to_read(study: Study) -> str:
    """The reading guide at the end of the report (Markdown list); self-contained, no pointer elsewhere."""
    s = study.settings
    return "\n".join([
        f"* **Stability** is the dependability Φ of the systems × topics nDCG scores (a crossed s × t G-study): "
        f"Φ(n) = σ²(s) / (σ²(s) + (σ²(t) + σ²(st,e))/n), the share of the variance of a mean over n topics that "
        f"comes from real differences between systems. *Topics needed* is the smallest n with Φ(n) ≥ {s.target:g}; "
        f"fewer topics = more stable. An *optimal* gain or discount is the one that maximises Φ.",
        f"* **Table 1, Fig. 4** — the shaded bands are {_BAND_LEVEL:.0%} confidence intervals of Φ(n) (Arteaga "
        "et al. 1982); the bars under the target line are the intervals of the topics needed. The dotted vertical "
        "line is this collection's number of topics.",
        "* **Figs. 2, 3, 6** — discount factors normalised to sum 1 over the ranks: a flatter curve weighs deep "
        "ranks more. The unconstrained optimum may oscillate; the joint one is tuned together with the gains.",
        "* **Tables 2, 3** — gain of each grade relative to the lowest positive grade; the linear and exponential "
        "gains are the reference lines.",
        f"* **Table 4, Figs. 7, 8** — Kendall τ between system rankings; in the scatter plots points along a line "
        f"parallel to the diagonal mean a change of scale only, scatter means changed rankings. The {_LABEL_TOP} "
        f"best systems (by the optimal configuration) are named.",
        f"* **Fig. 9** — Sakai's paired bootstrap: each curve is the system pairs' ASLs, sorted; the pairs left of "
        f"where a curve crosses α = {s.alpha:g} are those the configuration tells apart (more = more discriminative).",
        "* **Out of sample** — tuned on a random half of the topics, measured on the other half: only this section "
        "says whether a tuned configuration's gain in Φ carries over to topics it never saw (in-sample Φ of a "
        "tuned vector is never below the standard ones, which are in its search space).",
        "* `tables.json` beside the report holds every table's unrounded numbers and the optimal vectors.",
    ])


#: The report's sections in reading order: each turns the :class:`Study` into its blocks (none: left out).
#: The one place where sections are assembled — a new section is a function added here (module docstring).
#: Numbers are given by :func:`report_blocks`, in order of appearance.
SECTIONS: tuple[Callable[[Study], list[Block]], ...] = (
    _opening,                 # title, verdict, data, in short, notes
    _discount_section,        # Discount (Table 1, Figs. 2, 3, 4, 6)
    _gain_section,            # Gain (Tables 2, 3)
    _rankings_section,        # Rankings of systems (Table 4, Figs. 7, 8)
    _power_section,           # Discriminative power (Fig. 9) and swap rates
    _comparison_blocks,       # Comparing the best runs
    _out_of_sample_section,   # Out of sample
    _published_section,       # Published numbers (TREC-9 only)
    _topics_section,          # Is this collection big enough? (experiments.report.topics)
    _reading_guide,           # How to read this report
)


#: the section headings that carry no number (the reading guide closes the report)
_UNNUMBERED = frozenset({"How to read this report"})


def report_blocks(study: Study) -> list[Block]:
    """The report as a list of ("h1"|"h2"|"p"|"md"|"table"|"img", content) blocks: those of every section of
    :data:`SECTIONS`, in order. The sections are numbered here, 1, 2, 3 … in the order they appear (a section left
    out, as the published numbers off TREC-9, leaves no gap); a section's own heading carries no number."""
    out: list[Block] = []
    number = 0
    for section in SECTIONS:
        for kind, content in section(study):
            if kind == "h2" and content not in _UNNUMBERED:
                number += 1
                content = f"{number}. {content}"
            out.append((kind, content))
    return out
