r"""The study behind the report: :func:`run_study` computes every table of Kanoulas & Aslam (CIKM 2009) §3 on one
:class:`metrics.JudgedRuns` and returns a :class:`Study` (a frozen result: numbers unrounded).

One concept: the computation. The figures are drawn by :mod:`experiments.report_figures`, the report's sections
assembled by :mod:`experiments.report_sections` and rendered (Markdown, HTML, JSON) by
:mod:`experiments.report_render`; :mod:`experiments` exports :func:`run_study`, :class:`ReportSettings` and
:func:`write_report`. The number formatting every part of the report shares (:func:`fmt_count`) lives here, beside
:meth:`Study.summary`, its first user. What is computed, in the paper's numbering, is listed in docs/report.md.

References
----------
.. [1] E. Kanoulas and J. A. Aslam (2009). Empirical justification of the gain and discount
       function for nDCG. CIKM 2009.
.. [2] T. Sakai (2006). Evaluating evaluation metrics based on the bootstrap. SIGIR 2006.
.. [3] R. L. Brennan (2001). Generalizability Theory. Springer.
"""
from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

import gtheory
import metrics
from metrics import JudgedRuns
from gtheory.kit.checks import progress_writer
from gtheory.kit.params import REQUIRED_CUTOFF, check_param, validate_params
from experiments._adopted import BASELINE_LABEL, KEPT_BASELINE, Adopted, adopted_from, adopted_summary
from experiments.published import PUBLISHED_TREC9

__all__ = ["ReportSettings", "Study", "run_study", "PUBLISHED_TREC9", "STANDARD_DISCOUNTS", "IN_SAMPLE", "is_trec9",
           "default_title", "power_variants", "fmt_count"]

#: standard discounts compared with the optimal one (paper §3.1)
STANDARD_DISCOUNTS: tuple[str, ...] = ("zipf", "linear", "log2")

#: The paper's TREC 9 numbers live in :mod:`experiments.published` (one copy for the report and the tests).
#: Table 1 (topics needed at nDCG@100, linear gains, per discount) matches Φ ≥ 0.90 — the paper's text —
#: not the Φ ≥ 0.95 of its caption; Table 3 (per gain, log discount) likewise matches 0.90 on this data.

#: the in-sample optimum (the unregularised full vector that maximises Φ on all topics) is shown, never advised
IN_SAMPLE = "in-sample optimum, not advice"
_NAMES = {"zipf": "Zipf (1/r)", "linear": "linear ((k+1-r)/k)", "log2": "log (1/log₂(r+1)) — baseline",
          "optimal": f"optimal ({IN_SAMPLE})"}

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
    n_resamples : bootstrap replicates of the ASLs and draws of the swap method (1000).
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
    n_resamples: int = 1000
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
        """A fast study for tests and CI (under a minute on TREC-9): fewer cut-offs, 200 resamples, 3 splits."""
        s = cls(cutoff=cutoff, discount_cutoffs=tuple(sorted({10, cutoff})),
                gain_cutoffs=tuple(sorted({10, cutoff})), joint_cutoffs=(10,), n_resamples=200, n_splits=3, starts=2)
        return replace(s, **overrides)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "ReportSettings":
        """The settings of a report's ``tables.json`` (``Study.to_dict()["settings"]``), lists back to tuples."""
        d = dict(d)
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - names)
        if unknown:
            raise ValueError(f"report settings: unknown field(s) {unknown}; known: {sorted(names)}")
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in d.items()})

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
        for name in ("cutoff", "asl_cutoff", "top_k", "n_resamples", "n_splits", "starts"):
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
        check_param("target", self.target)  # the parameter table's rules (gtheory.kit.params)
        check_param("alpha", self.alpha)
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
    #: section 7, "Is this collection big enough?" (:func:`experiments.report_topics.topics_section` of the main
    #: cut-off's trec_eval nDCG): G-theory, Sakai's topic set size design and the data's τ side by side
    topics: Any = None

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


def _swap_table(scores: Mapping[str, pd.DataFrame], *, n_resamples: int, seed: int, rate: float = 0.05) -> pd.DataFrame:
    """Swap rates at half the topics per configuration (:func:`experiments.swap_rates`, Voorhees & Buckley 2002):
    the pooled swap rate over all system pairs and trials, the smallest mean difference whose swap rate stays
    at or below ``rate`` (:func:`experiments.min_difference_for_swap_rate`) and the share of comparisons that
    reach it."""
    import experiments

    rows = []
    for key, X in scores.items():
        c = X.shape[1] // 2
        t = experiments.swap_rates(X, topic_set_sizes=[c], n_resamples=n_resamples, seed=seed)
        m = experiments.min_difference_for_swap_rate(t, rate).iloc[0]
        rows.append({"configuration": key, "topic_set_size": c,
                     "swap_rate": float(t["n_swaps"].sum() / max(int(t["n_comparisons"].sum()), 1)),
                     "min_difference": float(m["min_difference"]),
                     "share_of_comparisons": float(m["share_of_comparisons"])})
    return pd.DataFrame(rows).set_index("configuration")


def _grade_ratio(tuning: Any, grade: float) -> float:
    return float(tuning.gain_ratios.get(float(grade), math.nan))


def _family_ratio(name: str, levels: np.ndarray, grade: float) -> float:
    g = metrics.measures.gains.gain_vector(name, levels)
    lv = list(levels)
    low = levels[levels > 0][0]
    return float(g[lv.index(grade)] / g[lv.index(low)])


# ------------------------------------------------------------------------------------------------ study
@validate_params(cutoff=REQUIRED_CUTOFF)
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
    >>> from experiments import ReportSettings, run_study
    >>> s = ReportSettings.quick(cutoff=20, discount_cutoffs=(20,), gain_cutoffs=(20,), n_splits=2, n_resamples=50)
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
    say(f"bootstrap ASLs (top {s.top_k} systems, B = {s.n_resamples}, nDCG@{ka})")
    jt = joint_tunings[ka]
    variants = power_variants(judged, adopted, ka, jt.ndcg(judged))
    top_k = min(s.top_k, judged.n_systems)
    asl, prow = {}, []
    for name, (kk, X) in variants.items():
        dp = experiments.discriminative_power(X, s.alpha, n_resamples=s.n_resamples, seed=s.seed, top_k=top_k)
        asl[name] = dp.table
        prow.append({"configuration": name, "cutoff": kk, "power": dp.power, "n_significant": dp.n_significant,
                     "n_pairs": dp.n_pairs, "estimated_difference": dp.estimated_difference,
                     "phi": float(_gstudy(X).phi())})
    power = pd.DataFrame(prow).set_index("configuration")

    say(f"swap rates at {judged.n_topics // 2} topics (B = {s.n_resamples})")
    swap = _swap_table({key: scores[key] for key in ("zipf", "linear", "log2", "optimal", "adopted",
                                                     "exponential gain", "optimal gain", "adopted gain")
                        if key in scores}, n_resamples=s.n_resamples, seed=s.seed)

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
        seconds=time.perf_counter() - t0, notes=notes, verdict=verdict, adopted=tuple(adopted), swap=swap,
        topics=_topics(scores, s))


def _topics(scores: Mapping[str, pd.DataFrame], s: ReportSettings) -> Any:
    """Section 7 from the study's trec_eval nDCG at the main cut-off (the plan's rows; no depth budget, which would
    re-judge the runs at every depth: ``gtheory budget`` does that)."""
    from .report_topics import topics_section

    return topics_section(scores["log2"], measure=f"nDCG@{s.cutoff}", target=s.target, seed=s.seed, heading=None)


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



# ------------------------------------------------------------------------------------- number formatting
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

