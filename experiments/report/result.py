r"""The result of :func:`experiments.run_study`: :class:`Study`, everything the report shows (numbers unrounded), with
its text, JSON document (``tables.json``), HTML view, Φ plot and the comparison with the paper's published numbers.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._adopted import BASELINE_LABEL, Adopted, adopted_summary
from .settings import ReportSettings
from .wording import _NAMES, IN_SAMPLE, _fmt, fmt_count

__all__ = ["Study"]


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
    adopted : the recommended configurations (one per verdict, :class:`experiments.report._adopted.Adopted`); each is a
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
    #: section 7, "Is this collection big enough?" (:func:`experiments.report.topics.topics_section` of the main
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
