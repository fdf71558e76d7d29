r"""The tuning study of Kanoulas & Aslam (CIKM 2009) on any collection, written as a report.

:func:`run_study` computes every table and figure of the paper's §3 on one
:class:`metrics.JudgedRuns` (and, for a four-grade collection, the case the paper left open);
:func:`write_report` renders the result as Markdown (figure files beside it) or as one self-contained HTML
file (the Markdown rendered by Python-Markdown, figures embedded as ``data:`` URIs), with PNG or SVG figures.

What is computed (the paper's numbering):

* **Table 1 / Fig. 4** — G-study of nDCG@k (linear gains) with the Zipf (1/r), linear
  ((k+1-r)/k), log (1/log2(r+1)) and stability-optimal discounts: variance shares, Φ and Eρ² at
  the collection's number of topics, the topics needed for Φ ≥ 0.95, Φ against the number of
  topics.
* **Fig. 2 / 3 / 6** — the optimal discount at several cut-offs against the standard ones (all
  normalised to sum 1 over the ranks); the unconstrained (not necessarily decreasing) optimum and
  the jointly tuned (gain + discount) discount at k = 20.
* **Table 2** — ratio of each positive grade's gain to the lowest positive grade's, by cut-off:
  unconstrained and constrained (gains non-decreasing in grade) optima with the log discount, the
  jointly tuned gains, and the linear (x) and exponential (2^x - 1) gains.
* **Table 3** — topics needed with the exponential, linear and optimal gains (log discount).
* **Table 4 / Fig. 7 / Fig. 8** — Kendall τ (and τ_AP, RMSE) between the system rankings of the
  configurations; scatter plots of per-system mean nDCG.
* **Fig. 9** — Sakai's paired-bootstrap ASL curves of the top-30 systems at nDCG@20 for
  (a) optimal gain + optimal discount, (b) linear gain + log, (c) exponential + log,
  (d) linear + linear; discriminative power at α = 0.05.
* **Out of sample** — :func:`optimize.cross_validate`: tune on half the topics, measure Φ on the
  other half, for the discount and the gain.
* **Published numbers** — on the embedded TREC-9 data, the paper's TREC 9 numbers beside the
  measured ones (:data:`PUBLISHED_TREC9`).

Example
-------
>>> import metrics
>>> from experiments.report import run_study, write_report
>>> study = run_study(metrics.load_trec9(), quick=True)        # doctest: +SKIP
>>> write_report(study, "report", format="md")                 # doctest: +SKIP
PosixPath('report/report.md')

References
----------
.. [1] E. Kanoulas and J. A. Aslam (2009). Empirical justification of the gain and discount
       function for nDCG. CIKM 2009.
.. [2] T. Sakai (2006). Evaluating evaluation metrics based on the bootstrap. SIGIR 2006.
.. [3] R. L. Brennan (2001). Generalizability Theory. Springer.
"""
from __future__ import annotations

import html
import math
import time
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Literal, Mapping, Sequence

import numpy as np
import pandas as pd

import gtheory
import metrics
from metrics import JudgedRuns
from gtheory.kit.checks import progress_writer
from experiments._adopted import BASELINE_LABEL, KEPT_BASELINE, Adopted, adopted_from, adopted_summary
from experiments.published import PUBLISHED_TREC9

__all__ = [
    "ReportSettings",
    "Study",
    "run_study",
    "write_report",
    "PUBLISHED_TREC9",
    "STANDARD_DISCOUNTS",
    "FIGURES",
    "FIGURE_FORMATS",
    "figure_file",
    "render",
    "render_figures",
    "write_figures",
    "is_trec9",
    "default_title",
    "fmt_count",
    "asl_legend",
    "power_variants",
    "IN_SAMPLE",
]

#: standard discounts compared with the optimal one (paper §3.1)
STANDARD_DISCOUNTS: tuple[str, ...] = ("zipf", "linear", "log2")

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

#: The paper's TREC 9 numbers live in :mod:`experiments.published` (one copy for the report and the tests).
#: Table 1 (topics needed at nDCG@100, linear gains, per discount) matches Φ ≥ 0.90 — the paper's text —
#: not the Φ ≥ 0.95 of its caption; Table 3 (per gain, log discount) likewise matches 0.90 on this data.

#: the in-sample optimum (the unregularised full vector that maximises Φ on all topics) is shown, never advised
IN_SAMPLE = "in-sample optimum, not advice"
_NAMES = {"zipf": "Zipf (1/r)", "linear": "linear ((k+1-r)/k)", "log2": "log (1/log₂(r+1)) — baseline",
          "optimal": f"optimal ({IN_SAMPLE})"}
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


# --------------------------------------------------------------------------------------------- settings
@dataclass(frozen=True)
class ReportSettings:
    """What :func:`run_study` computes and how hard it tries.

    Attributes
    ----------
    cutoff : the main cut-off k (Tables 1, 3, 4, Figs. 4, 7, 8; default 100 as in the paper).
    discount_cutoffs : cut-offs of the discount curves (Fig. 2; paper: 10, 20, 100).
    gain_cutoffs : cut-offs of the gain-ratio table (Table 2; paper: 3, 10, 20, 100, 200).
    asl_cutoff : cut-off of the ASL curves and the unconstrained / joint discounts (Figs. 3, 6, 9; 20).
    joint_cutoffs : cut-offs where gain and discount are tuned jointly (Table 2's third column); None:
        ``gain_cutoffs`` (``asl_cutoff`` is always added).
    top_k : systems kept (best by mean) for the bootstrap (Sakai / the paper: 30).
    B : bootstrap replicates (1000).
    alpha : significance level of the discriminative power.
    n_splits : random topic splits of the out-of-sample check.
    target : Φ target of the topics-needed columns (0.95).
    starts : optimiser starting points.
    seed : seed of everything random (bootstrap, splits, random starts).
    """

    cutoff: int = 100
    discount_cutoffs: tuple[int, ...] = (10, 20, 100)
    gain_cutoffs: tuple[int, ...] = (3, 10, 20, 100, 200)
    asl_cutoff: int = 20
    joint_cutoffs: tuple[int, ...] | None = None
    top_k: int = 30
    B: int = 1000
    alpha: float = 0.05
    n_splits: int = 10
    target: float = 0.95
    starts: int = 4
    seed: int = 0

    @classmethod
    def default(cls, cutoff: int = 100, **overrides: Any) -> "ReportSettings":
        """The full study (a few minutes on TREC-9): the paper's cut-offs plus ``cutoff``."""
        s = cls(cutoff=cutoff, discount_cutoffs=tuple(sorted({10, 20, cutoff})),
                gain_cutoffs=tuple(sorted({3, 10, 20, 100, 200, cutoff})))
        return replace(s, **overrides)

    @classmethod
    def quick(cls, cutoff: int = 100, **overrides: Any) -> "ReportSettings":
        """A fast study for tests and CI (under a minute on TREC-9): fewer cut-offs, B = 200, 3 splits."""
        s = cls(cutoff=cutoff, discount_cutoffs=tuple(sorted({10, cutoff})),
                gain_cutoffs=tuple(sorted({10, cutoff})), joint_cutoffs=(10,), B=200, n_splits=3, starts=2)
        return replace(s, **overrides)

    def fit_depth(self, depth: int) -> "ReportSettings":
        """These settings without the cut-offs deeper than the runs' ``depth`` (a list left empty keeps
        ``min(depth, cutoff)``; ``asl_cutoff`` at most ``depth``), instead of :meth:`validate` refusing them."""
        def keep(ks: tuple[int, ...] | None) -> tuple[int, ...] | None:
            if ks is None:
                return None
            return tuple(k for k in ks if k <= depth) or (min(depth, self.cutoff),)

        return replace(self, discount_cutoffs=keep(self.discount_cutoffs), gain_cutoffs=keep(self.gain_cutoffs),
                       joint_cutoffs=keep(self.joint_cutoffs), asl_cutoff=min(self.asl_cutoff, depth))

    def validate(self, judged: JudgedRuns) -> None:
        """Raise ``ValueError`` naming the first setting that does not fit ``judged``."""
        depth = judged.grades.shape[2] if hasattr(judged, "grades") else None
        for name in ("cutoff", "asl_cutoff", "top_k", "B", "n_splits", "starts"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"`{name}` must be a positive integer; got {v!r}.")
        for name in ("discount_cutoffs", "gain_cutoffs", "joint_cutoffs"):
            v = getattr(self, name)
            if v is None and name == "joint_cutoffs":
                continue
            if not v or any(isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1 for k in v):
                raise ValueError(f"`{name}` must be a non-empty sequence of positive integers; got {v!r}.")
        if depth is not None:
            too_deep = [k for k in (self.cutoff, self.asl_cutoff, *self.discount_cutoffs, *self.gain_cutoffs,
                                    *(self.joint_cutoffs or ())) if k > depth]
            if too_deep:
                raise ValueError(f"cut-offs must not exceed the run depth {depth}; got {sorted(set(too_deep))}.")
        if not 0 < self.target < 1:
            raise ValueError(f"`target` must be in (0, 1); got {self.target!r}.")
        if not 0 < self.alpha < 1:
            raise ValueError(f"`alpha` must be in (0, 1); got {self.alpha!r}.")
        if judged.n_systems < 3 or judged.n_topics < 6:
            raise ValueError(
                f"the study needs at least 3 systems and 6 topics; got {judged.n_systems} x {judged.n_topics}.")
        if not np.any(judged.levels > 0):
            raise ValueError("the judgments have no positive grade; nothing to tune.")


# ----------------------------------------------------------------------------------------------- result
@dataclass(frozen=True, eq=False)
class Study:
    """Everything :func:`write_report` shows; numbers unrounded (a frozen result: ``summary()`` is the text,
    ``to_dict()``/``to_json()`` the document ``tables.json``).

    Attributes
    ----------
    name : short collection name (the report's title); ``description`` the full one, if the data has one;
        ``n_systems``, ``n_topics``, ``levels`` (grades).
    settings : the :class:`ReportSettings` used.
    discount_table : Table 1 — per discount (``zipf``, ``linear``, ``log2``, ``optimal``): variance
        components and shares, ``phi``/``erho2`` at the data's topics, ``topics_needed`` (Φ ≥ target).
    discount_tunings : cut-off → constrained optimal discount :class:`optimize.Tuning` (linear gain).
    unconstrained : optimal discount at ``asl_cutoff`` without the monotone constraint (Fig. 3).
    joint_tunings : cut-off → gain and discount tuned together (Table 2's third column, Fig. 6).
    gain_tunings : cut-off → ``{"constrained": Tuning, "unconstrained": Tuning}`` (log discount).
    gain_ratio_table : Table 2 — one row per (cut-off, grade).
    gain_table : Table 3 — per gain (``exponential``, ``linear``, ``optimal``; log discount).
    tau_discount, tau_ap_discount : Table 4 — Kendall τ / τ_AP (rows = reference) between discounts.
    agreement : τ, τ_AP and RMSE of each standard configuration against the optimal one.
    scores : name → systems × topics nDCG used in the figures.
    asl : name → :func:`experiments.bootstrap_asl` table (Fig. 9); ``power`` the summary per name.
    cv_discount, cv_gain : raw :func:`optimize.cross_validate` tables; ``cv_summary`` their summary.
    published : :data:`PUBLISHED_TREC9` on TREC-9, else None.
    verdict : :func:`optimize.recommend`'s out-of-sample verdicts at the main cut-off (discount; gains), the
        report's opening line.
    adopted : the recommended configurations (one per verdict, :class:`experiments._adopted.Adopted`); each is a
        labelled row or series (``"adopted: rbp(p=0.81)"``) of every table and figure that compares
        configurations: Table 1 / Fig. 4 (``discount_table.loc["adopted"]``), Table 3
        (``gain_table.loc["adopted"]``), Table 4 (τ), the discriminative power (Fig. 9) and the swap rates.
    swap : swap rates (Voorhees & Buckley) at half the topics, per configuration at the main cut-off:
        pooled swap rate, the smallest difference with a swap rate ≤ 5 % and the share of comparisons reaching it.
    seconds : wall time of :func:`run_study`.
    """

    name: str
    n_systems: int
    n_topics: int
    levels: np.ndarray
    settings: ReportSettings
    discount_table: pd.DataFrame
    discount_tunings: dict[int, Any]
    unconstrained: Any
    joint_tunings: dict[int, Any]
    gain_tunings: dict[int, dict[str, Any]]
    gain_ratio_table: pd.DataFrame
    gain_table: pd.DataFrame
    tau_discount: pd.DataFrame
    tau_ap_discount: pd.DataFrame
    agreement: pd.DataFrame
    scores: dict[str, pd.DataFrame]
    gstudies: dict[str, Any]
    asl: dict[str, pd.DataFrame]
    power: pd.DataFrame
    cv_discount: pd.DataFrame
    cv_gain: pd.DataFrame
    cv_summary: pd.DataFrame
    published: dict[str, Any] | None = None
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    description: str = ""
    verdict: str = ""
    adopted: tuple[Adopted, ...] = ()
    swap: pd.DataFrame | None = None

    def adopted_for(self, what: str) -> Adopted | None:
        """The adopted configuration of the ``what`` (``"discount"``/``"gain"``) verdict; None without one."""
        return next((a for a in self.adopted if a.what == what), None)

    def label(self, key: str) -> str:
        """How the report names the configuration ``key`` of :attr:`scores` / the tables: the adopted ones
        ``"adopted: rbp(p=0.81)"``, the baseline ``"… — baseline"``, the in-sample optimum as such."""
        if key in ("adopted", "adopted discount"):
            a = self.adopted_for("discount")
            return a.row_label if a else key
        if key == "adopted gain":
            a = self.adopted_for("gain")
            return a.row_label if a else key
        return _NAMES.get(key, key)

    def __repr__(self) -> str:
        dt = self.discount_table
        need = ", ".join(f"{n} {fmt_count(dt.loc[n, 'topics_needed'])}" for n in dt.index)
        return (f"Study({self.name}: {self.n_systems} systems × {self.n_topics} topics, nDCG@{self.settings.cutoff}; "
                f"topics for Φ ≥ {self.settings.target:g}: {need})")

    def summary(self) -> str:
        """The study as text: the data, the verdict, Table 1 (variance share of systems, Φ and Eρ² at the data's
        topics, topics needed per discount), the optimal discount at each cut-off and the notes."""
        s = self.settings
        dt = self.discount_table
        lines = [f"Study: {self.name}, {self.n_systems} systems × {self.n_topics} topics, grades "
                 + ", ".join(f"{float(g):g}" for g in self.levels) + f"; nDCG@{s.cutoff}, linear gains "
                 f"({self.seconds:.1f} s)"]
        if self.verdict:
            lines.append(f"  verdict: {self.verdict}")
        lines += ["", f"  {'discount':<22} {'σ²(s) share':>11} {f'Φ({self.n_topics})':>8} {f'Eρ²({self.n_topics})':>8} "
                      f"{f'topics for Φ ≥ {s.target:g}':>20}"]
        w = max(22, *(len(self.label(n)) for n in dt.index))
        lines[-1] = lines[-1].replace(f"  {'discount':<22}", f"  {'discount':<{w}}")
        lines += [f"  {self.label(n):<{w}} {_fmt(r['share_system']):>11} {_fmt(r['phi']):>8} {_fmt(r['erho2']):>8} "
                  f"{fmt_count(r['topics_needed']):>20}" for n, r in dt.iterrows()]
        lines += ["", f"  optimal discount (linear gains; {IN_SAMPLE}) by cut-off: "
                  + "; ".join(f"nDCG@{k} Φ({t.n_topics}) = {_fmt(t.phi())}"
                              + ("" if t.success else " (not converged)") for k, t in sorted(self.discount_tunings.items()))]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def plot(self, ax: Any = None) -> Any:
        """Φ(n) of each discount of Table 1 against the number of topics n (point estimates; the report's Fig. 4
        adds confidence bands), the target Φ dashed and the collection's topics dotted. Returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        n = np.arange(1, max(2 * self.n_topics, 10) + 1)
        for name in self.discount_table.index:
            ax.plot(n, self.gstudies[name].phi(n), label=self.label(name))
        ax.axhline(self.settings.target, color="0.4", ls="--", lw=0.8)
        ax.axvline(self.n_topics, color="0.4", ls=":", lw=0.8)
        ax.set_xlabel("topics n")
        ax.set_ylabel("Φ(n)")
        ax.set_title(f"{self.name}: nDCG@{self.settings.cutoff}, linear gains", fontsize=10)
        ax.legend(fontsize=8)
        return ax

    #: the ``"format"`` of :meth:`to_dict`
    JSON_FORMAT = "gtheory.experiments.Study/1"

    def to_dict(self) -> dict[str, Any]:
        """The numbers of the report (``tables.json``) as plain JSON values plus ``"format"``: the collection, the
        settings, every table (records, unrounded), the verdict, the optimal discounts and gains. Non-finite
        numbers are None (the one encoder, :mod:`gtheory.kit.jsonio`). Written, not read back: the score matrices and
        tunings behind it are recomputed by :func:`run_study`."""
        from gtheory.kit.jsonio import jsonable

        def frame(f: pd.DataFrame) -> Any:
            return f.reset_index().to_dict(orient="records")

        doc = {
            "format": self.JSON_FORMAT,
            "collection": self.name, "n_systems": self.n_systems, "n_topics": self.n_topics,
            "settings": {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.settings.__dict__.items()},
            "discount_table": frame(self.discount_table), "gain_ratio_table": frame(self.gain_ratio_table),
            "gain_table": frame(self.gain_table), "tau_discount": frame(self.tau_discount),
            "agreement": frame(self.agreement), "discriminative_power": frame(self.power),
            "out_of_sample": frame(self.cv_summary), "verdict": self.verdict,
            "baseline": BASELINE_LABEL, "adopted": [adopted_summary(a) for a in self.adopted],
            "swap_rates": frame(self.swap) if self.swap is not None else [],
            "optimal_discounts": {str(k): t.discount.tolist() for k, t in self.discount_tunings.items()},
            "optimal_gains": {str(k): {n: t.gain.tolist() for n, t in d.items()} for k, d in self.gain_tunings.items()},
            "seconds": self.seconds,
        }
        return jsonable(doc)

    def to_json(self, path: str | Path | None = None, *, indent: int | None = 1) -> str:
        """Strict JSON text of :meth:`to_dict` (non-finite numbers as ``null``; written atomically to ``path`` if
        given) — the ``tables.json`` of :func:`write_report`."""
        from gtheory.kit.jsonio import json_text

        return json_text(self.to_dict(), path, indent=indent)

    def _repr_html_(self) -> str:
        from gtheory.kit.display import html_table

        dt = self.discount_table
        rows = [(self.label(n), r["share_system"], r["phi"], r["erho2"], r["topics_needed"]) for n, r in dt.iterrows()]
        return html_table(rows, header=["discount", "σ²(s) share", f"Φ({self.n_topics})", f"Eρ²({self.n_topics})",
                                        f"topics for Φ ≥ {self.settings.target:g}"],
                          caption=f"Study: {self.name}, {self.n_systems} systems × {self.n_topics} topics, "
                                  f"nDCG@{self.settings.cutoff} (linear gains)")

    def published_comparison(self) -> dict[str, pd.DataFrame]:
        """Measured vs published TREC 9 numbers (Tables 1-4); empty if not TREC-9."""
        if not self.published:
            return {}
        p = self.published
        def n90(key: str) -> float:
            return self.gstudies[key].topics_needed(0.9, "phi", level=None).n

        t1 = pd.DataFrame({
            "published": pd.Series(p["table1_topics_needed"]),
            "measured (Φ ≥ 0.95)": self.discount_table["topics_needed"],
            "measured (Φ ≥ 0.90)": pd.Series({n: n90(n) for n in ("zipf", "linear", "log2", "optimal")}),
        }).loc[["zipf", "linear", "log2", "optimal"]]
        rows = []
        for k, cols in p["table2_gain_ratio"].items():
            low = self.levels[self.levels > 0]
            if k not in self.gain_tunings or low.size < 2:
                continue
            r = self.gain_ratio_table.loc[(k, float(low[1]))]
            for col, v in cols.items():
                rows.append({"cutoff": k, "column": col, "published": v, "measured": float(r[col])})
        t2 = pd.DataFrame(rows).set_index(["cutoff", "column"]) if rows else pd.DataFrame()
        t3 = pd.DataFrame({
            "published": pd.Series(p["table3_topics_needed"]),
            "measured (Φ ≥ 0.95)": self.gain_table["topics_needed"],
            "measured (Φ ≥ 0.90)": pd.Series({n: n90(f"{n} gain") for n in ("exponential", "linear", "optimal")}),
        }).loc[["exponential", "linear", "optimal"]]
        t4 = pd.DataFrame(
            [{"pair": f"{a} – {b}", "published": v, "measured": float(self.tau_discount.loc[a, b])}
             for (a, b), v in p["table4_kendall_tau"].items()]).set_index("pair")
        return {"Table 1 (topics needed, nDCG@100, linear gains, by discount)": t1,
                "Table 2 (hrel/rel gain ratio)": t2,
                "Table 3 (topics needed, nDCG@100, log discount, by gain)": t3,
                "Table 4 (Kendall τ, nDCG@100)": t4}


# ---------------------------------------------------------------------------------------------- helpers
def is_trec9(judged: JudgedRuns) -> bool:
    """True for the TREC-9 Web collection as the paper used it: 104 systems × 50 topics, grades 0/1/2
    (the embedded tensor or one judged from the same runs); a subset of it is not."""
    return (judged.n_systems == 104 and judged.n_topics == 50
            and [float(x) for x in judged.levels] == [0.0, 1.0, 2.0])


def _gstudy(X: pd.DataFrame | np.ndarray) -> gtheory.GStudy:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
        return gtheory.gstudy(X)


#: the columns of the report's discount and gain tables (:meth:`gtheory.GStudy.as_row`)
_ROW_KEYS = ("var_system", "var_topic", "var_residual", "share_system", "share_topic", "share_residual",
             "phi", "erho2", "topics_needed")


def _gstudy_row(g: gtheory.GStudy, target: float) -> dict[str, float]:
    row = g.as_row(g.n_topics, target)
    return {k: row[k] for k in _ROW_KEYS}


def _quiet(fn: Callable[..., Any], *a: Any, **kw: Any) -> Any:
    """Call an optimiser with its warnings silenced (non-convergence is kept in ``Tuning.success``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **kw)


#: longest collection name in the report's title (a description is cut at its first ':' or ';' first)
_NAME_CHARS = 60


def _label(judged: JudgedRuns) -> str:
    """A short collection name for the title: the description up to its first ':' / ';' (the embedded
    TREC-9 data: "TREC-9 Web ad hoc (WT10g, topics 451-500)"), else the file it was loaded from, else
    "unnamed collection" (the command line passes the runs' folder, :func:`default_title`)."""
    desc = str(judged.report.get("description") or "").strip()
    if desc:
        name = desc.split(":")[0].split(";")[0].strip() or desc
    elif judged.report.get("loaded_from"):
        name = Path(str(judged.report["loaded_from"])).name.split(".")[0]
    else:
        name = "unnamed collection"  # never a bare "runs": run_study(title=...) / --title names it
    if len(name) > _NAME_CHARS:
        name = name[:_NAME_CHARS - 1].rsplit(" ", 1)[0].rstrip(",;( ") + "…"
    part = judged.report.get("subset")  # JudgedRuns.subset: say which part of the collection this is
    if part:
        kept = [f"{k} of {n} {what}" for what, (k, n) in part.items() if k != n]
        if kept:
            name += f" ({', '.join(kept)})"
    return name


def default_title(paths: Sequence[str | Path]) -> str:
    """A collection name from the run files' location, for the report's title: the folder holding them (the
    folder given, or the run files' common folder); a generic folder name (``runs``, ``runs_judged_full_xz``,
    ``input``) is replaced by its parent's (``trec-dl-2019-passage``). "" when nothing better is known."""
    import os

    ps = [Path(p).resolve() for p in paths]
    if not ps:
        return ""
    folder = ps[0] if len(ps) == 1 and ps[0].is_dir() else Path(os.path.commonpath([p.parent for p in ps]))
    for part in (folder, *folder.parents):
        low = part.name.lower()
        if low and not (low.startswith(("run", "input", "submission")) or low in _GENERIC_FOLDERS):
            return part.name
    return folder.name


#: folder names that say nothing about the collection (the title uses the parent folder's instead)
_GENERIC_FOLDERS = frozenset({"data", "files", "trec", "tmp", "temp", "results"})


def _check_title(title: Any) -> str:
    if not isinstance(title, str) or not title.strip():
        raise ValueError(f"`title` must be a non-empty string; got {title!r}.")
    return " ".join(title.split())


def power_variants(judged: JudgedRuns, adopted: Sequence[Adopted], asl_cutoff: int,
                   joint: pd.DataFrame) -> dict[str, tuple[int, pd.DataFrame]]:
    """The configurations of the discriminative-power comparison (Fig. 9): label → (cut-off, systems × topics nDCG).

    The paper's four at ``asl_cutoff`` (the in-sample optimal gain + discount ``joint``, labelled as the in-sample
    optimum; linear + log labelled as the baseline; exponential + log; linear + linear), and every adopted
    configuration at its own cut-off with the baseline at that cut-off beside it. An adopted configuration that is
    the baseline is the baseline's row, named :data:`experiments._adopted.KEPT_BASELINE` (never two rows of one
    configuration)."""
    ka = asl_cutoff

    def at(k: int) -> str:
        return "" if k == ka else f", nDCG@{k}"

    kept = {a.cutoff for a in adopted if a.is_baseline}
    v: dict[str, tuple[int, pd.DataFrame]] = {
        f"optimal gain + optimal discount ({IN_SAMPLE})": (ka, joint),
        (KEPT_BASELINE if ka in kept else _BASELINE_SERIES): (ka, metrics.ndcg(judged, cutoff=ka)),
        "exponential gain + log discount": (ka, metrics.ndcg(judged, gain="exponential", discount="log2", cutoff=ka)),
        "linear gain + linear discount": (ka, metrics.ndcg(judged, gain="linear", discount="linear", cutoff=ka))}
    for a in adopted:
        base = (KEPT_BASELINE if a.cutoff in kept else _BASELINE_SERIES) + at(a.cutoff)
        if base not in v:
            v[base] = (a.cutoff, metrics.ndcg(judged, cutoff=a.cutoff))
        if not a.is_baseline:
            v.setdefault(a.row_label + at(a.cutoff), (a.cutoff, a.ndcg(judged)))
    return v


_BASELINE_SERIES = "baseline: linear gain + log discount"


def _swap_table(scores: Mapping[str, pd.DataFrame], *, B: int, seed: int, rate: float = 0.05) -> pd.DataFrame:
    """Swap rates at half the topics per configuration (:func:`experiments.swap_rates`, Voorhees & Buckley 2002):
    the pooled swap rate over all system pairs and trials, the smallest mean difference whose swap rate stays
    at or below ``rate`` (:func:`experiments.min_difference_for_swap_rate`) and the share of comparisons that
    reach it."""
    import experiments

    rows = []
    for key, X in scores.items():
        c = X.shape[1] // 2
        t = experiments.swap_rates(X, topic_set_sizes=[c], n_resamples=B, seed=seed)
        m = experiments.min_difference_for_swap_rate(t, rate).iloc[0]
        rows.append({"configuration": key, "topic_set_size": c,
                     "swap_rate": float(t["n_swaps"].sum() / max(int(t["n_comparisons"].sum()), 1)),
                     "min_difference": float(m["min_difference"]),
                     "share_of_comparisons": float(m["share_of_comparisons"])})
    return pd.DataFrame(rows).set_index("configuration")


def _grade_ratio(tuning: Any, grade: float) -> float:
    return float(tuning.gain_ratios.get(float(grade), math.nan))


def _family_ratio(name: str, levels: np.ndarray, grade: float) -> float:
    g = metrics.gains.gain_vector(name, levels)
    lv = list(levels)
    low = levels[levels > 0][0]
    return float(g[lv.index(grade)] / g[lv.index(low)])


# ------------------------------------------------------------------------------------------------ study
def run_study(
    judged: JudgedRuns,
    *,
    cutoff: int = 100,
    quick: bool = False,
    settings: ReportSettings | None = None,
    progress: bool | Callable[[str], None] | None = None,
    published: bool | None = None,
    title: str | None = None,
) -> Study:
    r"""Run the Kanoulas & Aslam (2009) tuning study on ``judged``.

    Parameters
    ----------
    judged : metrics.JudgedRuns
        Systems × topics × ranks judged grades (:func:`metrics.judge`, :func:`metrics.load_trec9`).
    cutoff : int
        Main nDCG cut-off (ignored when ``settings`` is given).
    quick : bool
        :meth:`ReportSettings.quick` instead of :meth:`ReportSettings.default` (ignored with ``settings``).
    settings : ReportSettings, optional
        Full control over cut-offs, B, splits, starts and seed.
    progress : bool or callable, optional
        A short message before each step: ``True`` prints it on stderr, a callable is called with it.
    published : bool, optional
        Attach the paper's TREC 9 numbers; default: when :func:`is_trec9`.
    title : str, optional
        The collection's name in the report's title (default: the data's description up to its first ':', or
        the file it was loaded from; see :func:`default_title`).

    Returns
    -------
    Study

    Notes
    -----
    Stability is the G-theory dependability of the systems × topics nDCG matrix,
    :math:`\Phi(n) = \sigma^2_s / (\sigma^2_s + (\sigma^2_t + \sigma^2_{st,e})/n)` [3]_, and the
    topics needed are the smallest n with Φ(n) ≥ target. Optimal vectors maximise Φ
    (:mod:`optimize`). Everything random is seeded by ``settings.seed``.

    Examples
    --------
    >>> import metrics
    >>> from experiments.report import ReportSettings, run_study
    >>> s = ReportSettings.quick(cutoff=20, discount_cutoffs=(20,), gain_cutoffs=(20,), n_splits=2, B=50)
    >>> study = run_study(metrics.load_trec9().subset(topics=range(20)), settings=s)   # doctest: +SKIP
    >>> list(study.discount_table.index)                                               # doctest: +SKIP
    ['zipf', 'linear', 'log2', 'optimal']
    """
    import optimize  # experiments sits on top of optimize

    import experiments

    t0 = time.perf_counter()
    if not isinstance(judged, JudgedRuns):
        raise TypeError(f"`judged` must be a metrics.JudgedRuns; got {type(judged).__name__}.")
    if settings is None:
        settings = (ReportSettings.quick if quick else ReportSettings.default)(cutoff=cutoff)
    settings.validate(judged)
    s = settings
    say = progress_writer(progress) or (lambda msg: None)
    levels = np.asarray(judged.levels, dtype=float)
    pos = levels[levels > 0]
    k = s.cutoff
    notes: list[str] = []
    collection = _check_title(title) if title is not None else _label(judged)

    # first the advice: every table below shows the adopted configuration beside the ones it compares
    say("should I tune? nested cross-validation (optimize.recommend), discount and gain")
    verdicts, adopted = [], []
    for what in ("discount", "gain") if judged.n_topics >= 8 else ():  # nested CV: 2 topics per inner part
        rec = optimize.recommend(judged, cutoff=k, what=what, n_splits=max(s.n_splits, 2), target=s.target, seed=s.seed,
                                 progress=False)
        adopted.append(adopted_from(rec))
        verdicts.append(f"{what.capitalize()}: {adopted[-1].verdict.rstrip('.')}.")
    verdict = " ".join(verdicts)
    adopted_by = {a.what: a for a in adopted}

    # Table 1 / Fig. 2 / Fig. 4: discounts
    say(f"tuning the discount (linear gains) at k = {', '.join(map(str, s.discount_cutoffs))}")
    discount_tunings = {}
    # asl_cutoff too: Figs. 3 and 6 compare the constrained optimum there with the unconstrained and joint ones
    for kk in sorted(set(s.discount_cutoffs) | {k, s.asl_cutoff}):
        discount_tunings[kk] = _quiet(optimize.optimize_discount, judged, gain="linear", cutoff=kk, starts=s.starts, seed=s.seed)
    scores: dict[str, pd.DataFrame] = {}
    for name in STANDARD_DISCOUNTS:
        scores[name] = metrics.ndcg(judged, gain="linear", discount=name, cutoff=k)
    scores["optimal"] = discount_tunings[k].ndcg(judged)
    if "discount" in adopted_by:
        scores["adopted"] = adopted_by["discount"].ndcg(judged)
    gstudies = {name: _gstudy(X) for name, X in scores.items()}
    discount_table = pd.DataFrame({n: _gstudy_row(g, s.target) for n, g in gstudies.items()}).T
    discount_table.index.name = "discount"

    say(f"unconstrained discount at k = {s.asl_cutoff}")
    unconstrained = _quiet(optimize.optimize_discount, judged, gain="linear", cutoff=s.asl_cutoff, monotone=False,
                           starts=s.starts, seed=s.seed)

    # Table 2: gains
    say(f"tuning the gains (log discount) at k = {', '.join(map(str, s.gain_cutoffs))}")
    gain_tunings: dict[int, dict[str, Any]] = {}
    joint_tunings: dict[int, Any] = {}
    for kk in sorted(set(s.gain_cutoffs) | {k}):
        gain_tunings[kk] = {
            "constrained": _quiet(optimize.optimize_gain, judged, discount="log2", cutoff=kk, starts=s.starts, seed=s.seed),
            "unconstrained": _quiet(optimize.optimize_gain, judged, discount="log2", cutoff=kk, monotone=False,
                                    starts=s.starts, seed=s.seed),
        }
    joint_ks = sorted(set(s.gain_cutoffs if s.joint_cutoffs is None else s.joint_cutoffs) | {s.asl_cutoff})
    say(f"tuning gain and discount jointly at k = {', '.join(map(str, joint_ks))}")
    for kk in joint_ks:
        joint_tunings[kk] = _quiet(optimize.optimize_joint, judged, cutoff=kk, starts=s.starts, seed=s.seed)
    rows = []
    for kk, tt in gain_tunings.items():
        for grade in pos[1:] if pos.size > 1 else pos:
            row = {"cutoff": kk, "grade": float(grade),
                   "unconstrained": _grade_ratio(tt["unconstrained"], grade),
                   "constrained": _grade_ratio(tt["constrained"], grade),
                   "joint": _grade_ratio(joint_tunings[kk], grade) if kk in joint_tunings else math.nan,
                   "linear": _family_ratio("linear", levels, grade),
                   "exponential": _family_ratio("exponential", levels, grade),
                   "phi_constrained": tt["constrained"].phi(), "phi_unconstrained": tt["unconstrained"].phi()}
            rows.append(row)
    gain_ratio_table = pd.DataFrame(rows).set_index(["cutoff", "grade"]).sort_index()

    # Table 3: gains at the main cut-off (log discount)
    for name in ("exponential", "linear"):
        scores[f"{name} gain"] = metrics.ndcg(judged, gain=name, discount="log2", cutoff=k)
    scores["optimal gain"] = gain_tunings[k]["constrained"].ndcg(judged)
    gain_names = ["exponential", "linear", "optimal"]
    if "gain" in adopted_by:
        scores["adopted gain"] = adopted_by["gain"].ndcg(judged)
        gain_names.append("adopted")
    for gname in gain_names:
        gstudies[f"{gname} gain"] = _gstudy(scores[f"{gname} gain"])
    gain_table = pd.DataFrame({n: _gstudy_row(gstudies[f"{n} gain"], s.target) for n in gain_names}).T
    gain_table.index.name = "gain"

    # Table 4 / Figs. 7, 8
    say("rank correlations (Kendall τ, τ_AP, RMSE)")
    disc = {n: scores[n] for n in ("zipf", "linear", "log2", "optimal", "adopted") if n in scores}
    tau_discount = experiments.tau_matrix(disc)
    tau_ap_discount = experiments.tau_matrix(disc, method="tau_ap", variant="b")
    agr = []
    pairs = [("optimal", ("zipf", "linear", "log2")), ("optimal gain", ("exponential gain", "linear gain"))]
    pairs += [(ref, (base,)) for ref, base, what in (("adopted", "log2", "discount"), ("adopted gain", "linear gain", "gain"))
              if ref in scores and not adopted_by[what].is_baseline]  # the baseline against itself says nothing
    for ref, others in pairs:
        for o in others:
            agr.append({"reference": ref, "configuration": o,
                        "kendall_tau": experiments.kendall_tau(scores[ref], scores[o]),
                        "tau_ap": experiments.tau_ap(scores[ref], scores[o], variant="b"),
                        "rmse": experiments.rmse(scores[ref], scores[o])})
    agreement = pd.DataFrame(agr).set_index(["reference", "configuration"])

    # Fig. 9: discriminative power at asl_cutoff
    ka = s.asl_cutoff
    say(f"bootstrap ASLs (top {s.top_k} systems, B = {s.B}, nDCG@{ka})")
    jt = joint_tunings[ka]
    variants = power_variants(judged, adopted, ka, jt.ndcg(judged))
    top_k = min(s.top_k, judged.n_systems)
    asl, prow = {}, []
    for name, (kk, X) in variants.items():
        dp = experiments.discriminative_power(X, s.alpha, n_resamples=s.B, seed=s.seed, top_k=top_k)
        asl[name] = dp.table
        prow.append({"configuration": name, "cutoff": kk, "power": dp.power, "n_significant": dp.n_significant,
                     "n_pairs": dp.n_pairs, "estimated_difference": dp.estimated_difference,
                     "phi": float(_gstudy(X).phi())})
    power = pd.DataFrame(prow).set_index("configuration")

    say(f"swap rates at {judged.n_topics // 2} topics (B = {s.B})")
    swap = _swap_table({key: scores[key] for key in ("zipf", "linear", "log2", "optimal", "adopted",
                                                     "exponential gain", "optimal gain", "adopted gain")
                        if key in scores}, B=s.B, seed=s.seed)

    # out of sample
    say(f"out-of-sample check ({s.n_splits} topic splits, discount and gain)")
    cv_kw = dict(cutoff=k, n_splits=s.n_splits, target=s.target, seed=s.seed, starts=min(s.starts, 2))
    cv_discount = optimize.cross_validate(judged, what="discount", gain="linear", **cv_kw)
    cv_gain = optimize.cross_validate(judged, what="gain", discount="log2", **cv_kw)
    cv_summary = _cv_summary({"discount": cv_discount, "gain": cv_gain})

    if published is None:
        published = is_trec9(judged)
    checked = [discount_tunings[kk] for kk in set(s.discount_cutoffs) | {k}]
    if not all(t.success for t in [*checked, unconstrained, *joint_tunings.values()]):
        notes.append("at least one optimisation did not report convergence (see the tables' Φ).")
    return Study(
        name=collection, description=str(judged.report.get("description") or ""), n_systems=judged.n_systems, n_topics=judged.n_topics, levels=levels, settings=s,
        discount_table=discount_table, discount_tunings=discount_tunings, unconstrained=unconstrained,
        joint_tunings=joint_tunings, gain_tunings=gain_tunings, gain_ratio_table=gain_ratio_table,
        gain_table=gain_table, tau_discount=tau_discount, tau_ap_discount=tau_ap_discount, agreement=agreement,
        scores=scores, gstudies=gstudies, asl=asl, power=power, cv_discount=cv_discount, cv_gain=cv_gain,
        cv_summary=cv_summary, published=PUBLISHED_TREC9 if published else None,
        seconds=time.perf_counter() - t0, notes=notes, verdict=verdict, adopted=tuple(adopted), swap=swap)


def _cv_summary(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Mean Φ and topics needed per configuration on the tuning and held-out halves; share of
    splits where the tuned configuration's held-out Φ beats each standard one."""
    out = []
    for what, cv in tables.items():
        test = cv[cv.part == "test"].pivot(index="split", columns="config", values="phi")
        for cfg, grp in cv.groupby("config", sort=False):
            tr, te = grp[grp.part == "train"], grp[grp.part == "test"]
            out.append({
                "tuned": what, "config": cfg,
                "phi_train": tr.phi.mean(), "phi_test": te.phi.mean(),
                "topics_needed_test": te.topics_needed_phi.replace(np.inf, np.nan).median(),
                "tuned_wins_test": (float((test["tuned"] > test[cfg]).mean()) if cfg != "tuned" else math.nan),
                "n_topics_test": int(te.n_topics.iloc[0]),
            })
    return pd.DataFrame(out).set_index(["tuned", "config"])


# ---------------------------------------------------------------------------------------------- figures
def _normalised(name: str, k: int) -> np.ndarray:
    d = metrics.discounts.discount_vector(name, k, cutoff=k)[:k]
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
        top = max(float(np.nanmax(sub[["unconstrained", "constrained", "joint"]].to_numpy())),
                  float(sub["exponential"].iloc[0]))
        ax.set_ylim(0, top * 1.12)
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
            for h in getattr(leg, "legend_handles", getattr(leg, "legendHandles", [])):
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
                 f"paired bootstrap B = {s.B}", fontsize=11)
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


# ----------------------------------------------------------------------------------------------- render
def _signed(v: float, digits: int = 3) -> str:
    """``+0.012`` / ``-0.012``; a value that rounds to zero is ``0.000`` (never ``-0.000`` or ``+0.000``)."""
    text = f"{v:+.{digits}f}"
    return text[1:] if float(text) == 0 else text


def _fmt(v: Any, digits: int = 3) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        if math.isnan(v):
            return "–"
        if math.isinf(v):
            return "∞"
        if float(v).is_integer() and abs(v) >= 1 and digits >= 0:
            return f"{int(v)}"
        text = f"{v:.{digits}f}"
        return text[1:] if text.startswith("-") and float(text) == 0 else text  # never "-0.000"
    return str(v)


def fmt_count(v: Any) -> str:
    """A count (topics, pairs, systems) as printed in the report: an integer as an integer (``26``), a
    fractional one (a median of two counts) with the decimals it has, at most two (``26.5``); NaN ``–``,
    infinity ``∞`` (a target no number of topics reaches)."""
    if isinstance(v, (bool, np.bool_)) or v is None:
        return _fmt(v)
    v = float(v)
    if math.isnan(v):
        return "–"
    if math.isinf(v):
        return "∞" if v > 0 else "-∞"
    if v.is_integer():
        return str(int(v))
    return f"{v:.2f}".rstrip("0").rstrip(".")


@dataclass
class _Table:
    frame: pd.DataFrame
    digits: Mapping[str, int] = field(default_factory=dict)
    caption: str = ""
    #: columns holding counts (topics needed, pairs, topics): printed by :func:`fmt_count`, never "26.500"
    counts: frozenset[str] = frozenset()


def _cells(t: _Table) -> tuple[list[str], list[list[str]]]:
    f = t.frame
    idx_names = [n or "" for n in (f.index.names if f.index.nlevels > 1 else [f.index.name])]
    head = idx_names + [str(c) for c in f.columns]
    rows = []
    for key, row in f.iterrows():
        keys = list(key) if isinstance(key, tuple) else [key]
        rows.append([fmt_count(k) if isinstance(k, (float, np.floating)) else str(k) for k in keys]
                    + [fmt_count(row[c]) if str(c) in t.counts else _fmt(row[c], t.digits.get(str(c), 3))
                       for c in f.columns])
    return head, rows


def _md_cell(text: str) -> str:
    """A table cell's text safe in a Markdown table: ``|`` escaped, HTML-special characters as entities."""
    return _md_text(text).replace("|", "\\|")


def _md_text(text: str) -> str:
    """Free text (a collection name, a description) as literal Markdown: HTML-special characters as
    entities and Markdown's emphasis / link characters backslash-escaped, so nothing in a name is
    taken for markup."""
    text = html.escape(str(text), quote=False)
    for ch in "\\`*_[]":
        text = text.replace(ch, "\\" + ch)
    return text


def _md_table(t: _Table) -> str:
    head, rows = _cells(t)
    n_index = t.frame.index.nlevels
    align = [":---" if i < n_index else "---:" for i in range(len(head))]  # labels left, numbers right
    lines = ["| " + " | ".join(_md_cell(h) for h in head) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(_md_cell(c) for c in r) + " |" for r in rows]
    cap = f"*{_md_text(t.caption)}*\n\n" if t.caption else ""
    return cap + "\n".join(lines)


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


def _adopted_needs(study: Study) -> str:
    """", X (adopted: rbp(p=0.81))" for the "In short" sentence; "" without an adopted discount."""
    a = study.adopted_for("discount")
    if a is None or "adopted" not in study.discount_table.index:
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
            f"itself a noisy estimate (B = {s.B} bootstrap samples, one topic set). A configuration can rank the "
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
    if study.adopted:
        shown = "; ".join(f"{a.what}: *{_md_text(a.row_label)}*" for a in study.adopted)
        text += (f" **Shown below as** {shown} — its own row or series in every table and figure that compares "
                 f"configurations, beside the *baseline* ({_md_text(BASELINE_LABEL)}, what you use without this "
                 f"tool). Rows named *optimal* are the {IN_SAMPLE}: tuned and measured on the same topics.")
    text += (f" Φ(1) is the stability of a comparison on one topic, Φ({n}) that of the mean over this "
             f"collection's n = {n} topics (the share of its variance due to real differences between systems).")
    return text


def _blocks(study: Study) -> list[tuple[str, Any]]:
    """The report as a list of ("h1"|"h2"|"p"|"table"|"img", content) blocks."""
    s = study.settings
    k = s.cutoff
    B: list[tuple[str, Any]] = []
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
        f"discount maximises it. Main cut-off k = {k}; Φ target {s.target:g}; bootstrap B = {s.B}, "
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

    B.append(("h2", "1. Discount (Table 1, Figs. 2, 3, 4, 6)"))
    t1 = dt[["share_system", "share_topic", "share_residual", "phi", "erho2", "topics_needed"]].copy()
    t1.index = [study.label(i) for i in t1.index]
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
    if a is not None and "adopted" in study.gstudies:
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

    B.append(("h2", "2. Gain (Tables 2, 3)"))
    gr = study.gain_ratio_table[["unconstrained", "constrained", "joint", "linear", "exponential"]].copy()
    gr.columns = ["optimal, unconstrained (log)", "optimal, non-decreasing (log)", "optimal, joint w/ discount",
                  "linear — baseline", "exponential"]
    low = study.levels[study.levels > 0][0]
    ag = study.adopted_for("gain")
    if ag is not None:  # the adopted gains' ratios, at the cut-off they were chosen at
        base = float(ag.gain[list(ag.levels).index(low)]) if low in list(ag.levels) else math.nan
        gr[ag.row_label] = [float(ag.gain[list(ag.levels).index(grade)]) / base
                            if kk == ag.cutoff and grade in list(ag.levels) and base > 0 else math.nan
                            for kk, grade in gr.index]
    B.append(("table", _Table(gr, digits={c: 2 for c in gr.columns},
                              caption=f"Table 2 — gain of each grade relative to grade {low:g}, by cut-off "
                                      f"(optimal: {IN_SAMPLE}).")))
    B.append(("img", ("gain_ratios.png", "Table 2 as a figure: optimal gain ratios against the linear and "
                                         "exponential gains' ratios.")))
    t3 = study.gain_table[["share_system", "phi", "erho2", "topics_needed"]].copy()
    t3.index = [_GAIN_NAMES.get(i, i) if i != "adopted" else study.label("adopted gain") for i in t3.index]
    t3.index.name = "gain"
    t3.columns = ["σ²(s) share", f"Φ({study.n_topics})", f"Eρ²({study.n_topics})", need_col]
    B.append(("table", _Table(t3, counts=frozenset({need_col}),
                              caption=f"Table 3 (D-study) — nDCG@{k}, log discount, by gain.")))

    B.append(("h2", "3. Rankings of systems (Table 4, Figs. 7, 8)"))
    tau = study.tau_discount.copy()
    tau.index = [study.label(i) for i in tau.index]
    tau.columns = [study.label(i) for i in tau.columns]
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

    B.append(("h2", "4. Discriminative power (Fig. 9) and swap rates"))
    pw = study.power.copy()
    pw.columns = ["cut-off", f"share of pairs with ASL < {s.alpha:g}", "significant pairs", "pairs",
                  "difference needed", f"Φ({study.n_topics})"]
    B.append(("table", _Table(pw, digits={"difference needed": 3},
                              counts=frozenset({"cut-off", "significant pairs", "pairs"}),
                              caption=f"Sakai's paired bootstrap, top {min(s.top_k, study.n_systems)} systems, "
                                      f"nDCG@{s.asl_cutoff}"
                                      + ("" if k == s.asl_cutoff else f" (rows marked nDCG@{k}: at that cut-off)")
                                      + f", B = {s.B}.")))
    B.append(("img", ("asl_curves.png", "Fig. 9 — ASL of every system pair, sorted; lower curves discriminate more. "
                      "Legend: " + "; ".join(asl_legend(study).values()) + ".")))
    reconcile = _reconcile(study)
    if reconcile:
        B.append(("p", reconcile))
    if study.swap is not None and not study.swap.empty:
        sw = study.swap.copy()
        sw.index = [_config_label(study, i) for i in sw.index]
        sw = sw[~sw.index.duplicated()]  # the baseline kept for the discount and for the gains: one row
        sw.index.name = "configuration"
        sw.columns = ["topics per set", "swap rate", "difference for ≤ 5 % swaps", "share of comparisons reaching it"]
        B.append(("table", _Table(sw, counts=frozenset({"topics per set"}), digits={"swap rate": 4},
                                  caption=f"Swap rates (Voorhees & Buckley 2002), nDCG@{k}: two disjoint sets of "
                                          f"{fmt_count(sw.iloc[0, 0])} topics, B = {s.B} draws, all system pairs; "
                                          "a swap is a pair the two sets order differently.")))

    B.extend(_comparison_blocks(study))

    B.append(("h2", "5. Out of sample"))
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

    comp = study.published_comparison()
    if comp:
        B.append(("h2", "6. Published numbers (TREC 9, Kanoulas & Aslam 2009) beside ours"))
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
    B.append(("h2", "How to read this report"))
    B.append(("md", _how_to_read(study)))
    return B


def _comparison_blocks(study: Study, top: int = 5) -> list[tuple[str, Any]]:
    """The best runs compared as a paper would (:func:`experiments.compare_measures`): paired t-tests between the
    ``top`` runs by the baseline nDCG, Holm-corrected, under the baseline and each adopted configuration."""
    from experiments.compare_table import compare_measures

    k = study.settings.cutoff
    keys = [key for key in ("log2", "adopted", "adopted gain") if key in study.scores]
    if not keys or study.n_systems < 2:
        return []
    frames = {f"nDCG@{k}, {_config_label(study, key)}": study.scores[key] for key in keys}
    first = study.scores[keys[0]]
    runs = list(first.mean(axis=1).sort_values(ascending=False, kind="stable").index[: min(top, len(first))])
    table = compare_measures(frames, systems=runs, test="t", correction="holm", alpha=study.settings.alpha)
    return [("h2", f"4b. Comparing the best runs"),
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


_STYLE = ("body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}"
          "table{border-collapse:collapse;margin:0.3em 0 1.2em;font-size:0.9em}"
          "th,td{border:1px solid #ccc;padding:0.25em 0.6em}th{background:#f3f3f3}"
          "img{max-width:100%;height:auto}p>em:only-child{color:#555}")


def render(study: Study, format: Literal["md", "html"] = "md", *, figure_format: str = "png",
           figures: Mapping[str, bytes] | None = None) -> str:
    """The report text: Markdown, or one self-contained HTML page.

    Markdown refers to the figure files beside it (``phi_vs_topics.png`` …, see :func:`write_figures`). HTML is
    that Markdown rendered by Python-Markdown (with its ``tables`` extension), every figure embedded as a
    ``data:`` URI — a single file that can be mailed or opened anywhere. ``figures`` (file name → bytes, from
    :func:`render_figures`) avoids drawing the figures again; ``figure_format`` is ``"png"`` or ``"svg"``.
    """
    if format not in ("md", "html"):
        raise ValueError(f"`format` must be 'md' or 'html'; got {format!r}.")
    _check_figure_format(figure_format)
    blocks = _blocks(study)
    parts = []
    for kind, c in blocks:
        if kind == "img":
            src = figure_file(c[0], figure_format)
            parts.append(f"![{_md_text(c[1])}]({src if format == 'md' else 'figure:' + src})\n\n*{_md_text(c[1])}*")
        else:
            parts.append({"h1": lambda: f"# {c}", "h2": lambda: f"## {c}", "p": lambda: c, "md": lambda: c,
                          "table": lambda: _md_table(c)}[kind]())
    text = "\n\n".join(parts) + "\n"
    if format == "md":
        return text
    import base64

    import markdown

    if figures is None:
        figures = render_figures(study, figure_format=figure_format)
    body = markdown.markdown(text, extensions=["tables"], output_format="html")
    for kind, c in blocks:
        if kind == "img":
            name = figure_file(c[0], figure_format)
            if name not in figures:
                raise ValueError(f"`figures` lacks {name!r}; pass the output of render_figures(study, "
                                 f"figure_format={figure_format!r}).")
            uri = f"data:{_MIME[figure_format]};base64,{base64.b64encode(figures[name]).decode('ascii')}"
            body = body.replace(f'src="figure:{name}"', f'src="{uri}"')
    title = html.escape(html.unescape(blocks[0][1]).replace("\\", ""))
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>"
            f"<style>{_STYLE}</style></head><body>\n{body}\n</body></html>\n")


def write_report(study: Study, out_dir: str | Path, *, format: Literal["md", "html"] = "md",
                 dpi: int = 110, figure_format: str = "png", title: str | None = None) -> Path:
    """Write ``report.md`` (or ``report.html``), every figure of :data:`FIGURES` and ``tables.json`` into
    ``out_dir``; returns the report's path.

    ``report.html`` embeds its figures (one file to mail); the figure files (PNG, or SVG with
    ``figure_format="svg"``) are written beside it too, for reuse. ``tables.json`` holds the unrounded
    numbers of the tables. ``title`` names the collection in the report's title (default: the study's
    ``name``, from :func:`run_study`'s ``title`` or the data).

    Everything is written into a temporary directory beside ``out_dir`` that replaces it at the end
    (:func:`metrics._atomic.atomic_directory`): an interrupted or failed run leaves the old report (or
    nothing), never a mix; an existing ``out_dir`` that holds other files than a report's is refused
    (ValueError).

    Examples
    --------
    >>> import metrics
    >>> from experiments.report import run_study, write_report
    >>> path = write_report(run_study(metrics.load_trec9(), quick=True), "out", format="html")  # doctest: +SKIP
    >>> path.name                                                                                 # doctest: +SKIP
    'report.html'
    """
    from gtheory.kit.output import output_directory as atomic_directory

    if format not in ("md", "html"):
        raise ValueError(f"`format` must be 'md' or 'html'; got {format!r}.")
    _check_figure_format(figure_format)
    if title is not None:
        study = replace(study, name=_check_title(title))
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ValueError(f"`out_dir` must be a directory; {out} is a file.")
    check_report_directory(out)
    figures = render_figures(study, figure_format=figure_format, dpi=dpi)
    with atomic_directory(out) as tmp:  # the old report, or the new one: never a mix, nothing if interrupted
        write_figures(study, tmp, figures=figures)
        (tmp / f"report.{format}").write_text(render(study, format, figure_format=figure_format, figures=figures),
                                              encoding="utf-8")
        (tmp / "tables.json").write_text(_tables_json(study), encoding="utf-8")
        (tmp / REPORT_MARKER).write_text("written by gtheory report; this directory is replaced as a whole\n",
                                         encoding="utf-8")
    return out / f"report.{format}"


#: a file in every report directory: a directory holding it may be replaced by a new report
REPORT_MARKER = ".gtheory-report"


def check_report_directory(out: Path) -> None:
    """Refuse to replace an existing directory that is not a report: a report directory is replaced as a whole
    (atomically), so it must be new, empty, or hold only what :func:`write_report` writes."""
    if not out.is_dir():
        return
    own = {"report.md", "report.html", "tables.json", REPORT_MARKER,
           *(figure_file(name, f) for name in FIGURES for f in FIGURE_FORMATS)}
    entries = [e.name for e in out.iterdir()]
    if REPORT_MARKER in entries:
        return
    foreign = sorted(e for e in entries if e not in own and not e.startswith(f".{out.name}."))
    if foreign:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        raise ValueError(f"`out_dir` {out} holds files that are not part of a report ({shown}); a report "
                         "directory is replaced as a whole. Give a new or empty directory.")


def _tables_json(study: Study) -> str:
    return study.to_json(indent=1)  # the one encoder: non-finite numbers as null
