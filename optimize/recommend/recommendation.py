"""The :class:`Recommendation` of :func:`optimize.recommend`: a verdict, the configuration to adopt,
and the nested cross-validation tables behind it.

Fields for presenting the decision (added with the baseline rule; every earlier field keeps its meaning):

* ``baseline`` (str): the configuration the user would use without the tool, as a measure spec that
  :func:`metrics.evaluate` and ``gtheory evaluate --measure`` accept; default trec_eval's nDCG,
  ``"nDCG(discount=log2,gain=linear)@k"``.
* ``adopt`` (bool): True = switch to the adopted configuration; False = keep the baseline itself.
* ``decided`` (bool): False when the evidence cannot decide (too few outer splits, e.g. ``report --quick``):
  then ``adopt`` is False and the verdict says so.
* ``measure`` (str | None): the configuration to use as a measure spec (equal to ``baseline`` when keeping);
  None when the adopted configuration has no named form (a tuned vector, a ``topflat``/``power``/``log_offset``
  discount) — then use ``gain_vector``/``discount_vector`` (or ``gtheory evaluate --tuning REC.json``).
* ``gain_vector`` (tuple of float, one per grade of ``levels``), ``discount_vector`` (tuple of float, one per
  rank 1..cutoff), ``levels``: the configuration to use, exactly:
  ``metrics.ndcg(j, gain=dict(zip(levels, gain_vector)), discount=list(discount_vector), cutoff=cutoff)``.
  When keeping they are the baseline's own vectors, and :meth:`Recommendation.ndcg` is bit-identical to
  ``metrics.ndcg`` of the baseline.
* ``alternative`` (str), ``alternative_label`` (str): the candidate the decision is about (the adopted one, or,
  when keeping, the alternative the selection preferred) — name and fitted form.
* ``diff``, ``diff_lo``, ``diff_hi`` (float): held-out Φ(1) of the switching procedure minus the baseline's,
  mean over all outer splits of all seeds, with its 95 % corrected resampled interval (Nadeau & Bengio 2003) —
  THE interval of the verdict.
* ``phi_n_baseline``, ``phi_n_adopted`` (float): held-out Φ at the collection's own topic count
  ``n_topics`` of the baseline and of the alternative; ``phi_n_diff``, ``phi_n_lo``, ``phi_n_hi``: the
  difference on the Φ(n_topics) scale, its interval the Φ(1) interval mapped through Φ(n) = nρ/(1+nρ).
* ``topics_saved`` (float): topics needed for Φ ≥ ``target`` by the baseline minus by the alternative
  (held-out, from the mean Φ(1)s; negative: it needs more).
* ``splits_won`` (int), ``n_outer`` (int): outer splits (all seeds) on which the alternative's held-out Φ(1)
  beats the baseline's, out of ``n_outer`` = ``n_seeds`` × ``n_splits``.
* ``n_seeds`` (int), ``seed_decisions`` (tuple of str: per seed, the candidate name it would switch to or
  ``"keep"``), ``agreement`` (int: seeds that reached the returned decision).
* ``phi_meaning`` (str): one clause saying what Φ means, for a verdict's reader.
* ``topics_to_decide`` (float): when keeping with a positive held-out gain whose interval includes 0, the
  number of topics at which that interval would exclude 0 if the gain held (:func:`optimize.recommend.recommend.topics_to_decide`:
  the half-width narrowing as 1/√n); NaN otherwise.

Fields of the two-tier rule (:func:`optimize.recommend`; tier 1 :mod:`optimize.recommend.fixed`):

* ``tier`` (int): which tier decided — 1: the configuration to use is tier 1's choice among the fixed
  configurations (a standard, or the baseline when keeping), 2: a tuned candidate adopted by the nested
  cross-validation over tier 1's choice. ``tier_reason`` (str): why, in one sentence.
* ``reference`` (str): the candidate tier 2 had to beat (tier 1's choice).
* ``fixed_choice`` (str): tier 1's choice (the baseline's name when it keeps); ``fixed_alternative``: the standard
  its evidence is about (the choice, or when keeping the one with the smallest p-value); ``fixed_p``: its
  one-sided studentised topic-swap randomisation p-value, which decides (tier 1 adopts it when ``fixed_p`` ≤
  (1 − level)/``fixed_m``, Bonferroni over the ``fixed_m`` alternative standards); ``fixed_diff``: its Φ(1) minus
  the baseline's on all topics; reported with them, the paired topic bootstrap of ``n_resamples`` resamples:
  ``fixed_lo`` and ``fixed_hi`` the (1 − level)/(2 ``fixed_m``) and matching upper quantiles of the difference,
  ``fixed_share`` the share of resamples it beat the baseline on.
* ``diff``, ``diff_lo``, ``diff_hi``, ``phi_n_*``, ``splits_won``: the evidence of the deciding tier — tier 1's
  all-topic numbers when it switched, otherwise the nested procedure's against ``reference``.
* table columns ``all_topics_diff``, ``all_topics_lo``, ``all_topics_hi``, ``all_topics_share``, ``all_topics_p``:
  tier 1's numbers
  per fixed configuration (NaN for tuned candidates).
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from gtheory.kit.display import signed
from gtheory.kit.jsonio import JsonResult, jsonable, read_json

from ..solvers import Tuning

__all__ = ["Recommendation", "FORMAT"]

FORMAT = "gtheory.optimize.Recommendation/1"


@dataclass(frozen=True, eq=False)
class Recommendation(JsonResult):
    """Which configuration to adopt, judged out of sample (:func:`optimize.recommend`).

    Attributes
    ----------
    verdict : one line: ``"adopt tuned discount …: saves N [lo, hi] topics out of sample …"`` or
        ``"keep log2: tuning does not generalise here (+0.001 [-0.004, +0.006] …)"``.
    adopt : whether a tuned configuration is recommended.
    choice, label, kind : the recommended candidate's name, its fitted form (e.g. ``"rbp(p=0.93)"``)
        and kind (``"standard"`` — the baseline or another standard —, ``"family"``, ``"regularised"``); the table's
        ``kind`` column marks the baseline's row ``"baseline"`` (always the first row).
    selected : the candidate the inner cross-validation chose on all topics (before the outer check).
    best_standard : the standard configuration (the baseline included) with the best mean outer held-out Φ(1).
    tuning : the recommended configuration as a :class:`optimize.Tuning` on all topics (its ``gain``,
        ``discount``, coefficients; usable by :meth:`optimize.Tuning.ndcg` and ``gtheory evaluate --tuning``).
    table : per candidate: ``kind``, ``n_params``, ``fitted`` (on all topics), ``phi_1_in_sample``,
        ``inner_phi_1`` (mean inner held-out Φ(1) of the final selection), ``outer_phi_1``/``outer_sd``
        (outer held-out Φ(1) over the splits), ``diff_vs_best_standard`` with ``diff_lo``/``diff_hi``
        (95 % corrected resampled t interval), ``wins`` (splits better than the best standard),
        ``topics_needed`` (median over held-out halves), ``topics_saved`` (mean paired, with interval),
        ``times_selected`` (outer splits on which the inner selection chose it).
    comparisons : per candidate × standard: ``diff``, ``lo``, ``hi``, ``wins`` of held-out Φ(1).
    outer : per outer split × candidate: ``phi_1``, ``ratio``, ``topics_needed`` on the held-out half,
        ``fitted`` (on the fitting half), ``selected`` (the inner selection's choice on that split).
    procedure_diff, procedure_lo, procedure_hi : mean held-out Φ(1) of the whole switching procedure
        minus the baseline's over all seeds' outer splits, with interval (the nested estimate; = ``diff`` …).
    The table also holds ``diff_vs_baseline``/``baseline_lo``/``baseline_hi``/``wins_vs_baseline`` and
    ``times_chosen`` (seeds whose final selection it was); ``outer`` a ``seed_index`` column, ``split`` running
    over all seeds' splits.
    """

    what: str
    cutoff: int
    objective: str
    target: float
    seed: int | None
    n_splits: int
    n_inner: int
    min_wins: float
    n_systems: int
    n_topics: int
    choice: str
    label: str
    kind: str
    adopt: bool
    selected: str
    best_standard: str
    verdict: str
    procedure_diff: float
    procedure_lo: float
    procedure_hi: float
    table: pd.DataFrame = field(repr=False)
    comparisons: pd.DataFrame = field(repr=False)
    outer: pd.DataFrame = field(repr=False)
    tuning: Tuning = field(repr=False)
    seconds: float = 0.0
    # ---- the baseline rule (module docstring); defaults read documents of the earlier format
    baseline: str = ""
    decided: bool = True
    measure: str | None = None
    levels: tuple = ()
    gain_vector: tuple = ()
    discount_vector: tuple = ()
    alternative: str = ""
    alternative_label: str = ""
    diff: float = math.nan
    diff_lo: float = math.nan
    diff_hi: float = math.nan
    phi_n_baseline: float = math.nan
    phi_n_adopted: float = math.nan
    phi_n_diff: float = math.nan
    phi_n_lo: float = math.nan
    phi_n_hi: float = math.nan
    topics_saved: float = math.nan
    splits_won: int = 0
    n_outer: int = 0
    n_seeds: int = 1
    seed_decisions: tuple = ()
    agreement: int = 0
    phi_meaning: str = ""
    base_gain: Any = None
    base_discount: Any = None
    topics_to_decide: float = math.nan
    # ---- the two-tier rule (module docstring)
    tier: int = 1
    tier_reason: str = ""
    reference: str = ""
    fixed_choice: str = ""
    fixed_alternative: str = ""
    fixed_diff: float = math.nan
    fixed_lo: float = math.nan
    fixed_hi: float = math.nan
    fixed_share: float = math.nan
    fixed_p: float = math.nan
    fixed_m: int = 0
    n_resamples: int = 0

    # ------------------------------------------------------------------ views
    @property
    def gain(self) -> np.ndarray:
        """Per-grade gains of the recommended configuration (aligned with ``tuning.levels``)."""
        return self.tuning.gain

    @property
    def discount(self) -> np.ndarray:
        """Per-rank discount of the recommended configuration (sums to 1)."""
        return self.tuning.discount

    def ndcg(self, judged, *, cutoff: int | None = None) -> pd.DataFrame:
        """nDCG of the recommended configuration on any judged runs: when keeping, :func:`metrics.ndcg` of the
        baseline itself (bit for bit); when switching, :meth:`optimize.Tuning.ndcg` of the adopted one."""
        if not self.adopt and self.base_gain is not None and self.base_discount is not None:
            import metrics

            gain = self.base_gain
            if isinstance(gain, dict):
                gain = {float(k): v for k, v in gain.items()}
            return metrics.ndcg(judged, gain=gain, discount=self.base_discount,
                                cutoff=self.cutoff if cutoff is None else cutoff)
        return self.tuning.ndcg(judged, cutoff=cutoff)

    @property
    def _n_outer(self) -> int:
        return self.n_outer or self.n_splits

    # ------------------------------------------------------------ presentation
    def summary(self) -> str:
        t = self.table
        w = max(16, *(len(str(n)) for n in t.index))
        fw = min(44, max(26, *(len(str(f)) for f in t["fitted"])))
        base = t.index[0]
        lines = [
            f"Should I tune the {'gains and discount' if self.what == 'joint' else self.what} of nDCG@{self.cutoff}?  "
            f"{self.n_systems} systems x {self.n_topics} topics, "
            + (f"tier 1: studentised topic-swap randomisation ({self.n_resamples} swaps; paired topic bootstrap "
               f"interval reported); "
               if self.n_resamples else "")
            + f"tier 2: nested cross-validation, {self.n_splits} outer x {self.n_inner} inner topic halvings, "
            f"{self.n_seeds} seed(s) from {self.seed}",
            f"  verdict: {self.verdict}",
            f"  use: {self.measure or self.label}   (baseline: {self.baseline or self.best_standard})",
            f"  decided by: {self.tier_reason or '-'}",
            f"  seeds' decisions: {', '.join(self.seed_decisions) or '-'}",
            "",
            f"  {'candidate':<{w}} {'fitted on all topics':<{fw}} {'Φ(1) in':>8} {'Δ all':>8} {'p':>8} "
            f"{'Φ(1) out':>9} {'Δ vs ' + base:>10} {'95% interval':>18} {'wins':>5} {'topics':>7}",
        ]
        for name, r in t.iterrows():
            need = "inf" if not math.isfinite(r["topics_needed"]) else f"{r['topics_needed']:.0f}"
            d_all, p_all = r.get("all_topics_diff", math.nan), r.get("all_topics_p", math.nan)
            fix = (f"{signed(d_all, 4):>8} {f'{p_all:.4f}' if math.isfinite(p_all) else '-':>8}"
                   if math.isfinite(d_all) else f"{'-':>8} {'-':>8}")
            lines.append(
                f"  {name:<{w}} {str(r['fitted'])[:fw]:<{fw}} {r['phi_1_in_sample']:>8.4f} {fix} {r['outer_phi_1']:>9.4f} "
                f"{signed(r['diff_vs_baseline'], 4):>10} [{signed(r['baseline_lo'], 4)}, {signed(r['baseline_hi'], 4)}] "
                f"{int(r['wins_vs_baseline']):>2}/{self._n_outer:<2} {need:>7}")
        lines.append(f"  (Δ all, p: tier 1 — Φ(1) minus the baseline's on all topics and its one-sided studentised "
                     f"topic-swap randomisation p-value, which must be ≤ (1 − level)/m for a switch, Bonferroni over the "
                     f"m standards; Φ(1) out: mean over outer held-out halves; Δ, "
                     f"interval, wins: against the baseline {base} on them (corrected resampled t, Nadeau & Bengio "
                     f"2003); topics: median topics for Φ ≥ {self.target:g} on a held-out half)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        use = self.measure or self.label
        return (f"Recommendation(what={self.what!r}, cutoff={self.cutoff}, adopt={self.adopt}, use={use!r}, "
                f"baseline={self.baseline!r}, diff={self.diff:+.4f} [{self.diff_lo:+.4f}, {self.diff_hi:+.4f}], "
                f"seeds agree {self.agreement}/{self.n_seeds})")

    def _repr_html_(self) -> str:
        from gtheory.kit.display import html_table

        t = self.table
        rows = ((n, r["kind"], r["fitted"], r.get("all_topics_diff", math.nan), r.get("all_topics_p", math.nan),
                 r["outer_phi_1"], r["diff_vs_baseline"], r["baseline_lo"], r["baseline_hi"],
                 f"{int(r['wins_vs_baseline'])}/{self._n_outer}", r["topics_needed"]) for n, r in t.iterrows())
        return html_table(rows, header=["candidate", "kind", "fitted on all topics", "Δ all topics", "p (tier 1)",
                                         "Φ(1) held out", f"Δ vs {t.index[0]}", "95% lo", "95% hi", "wins", "topics"],
                          caption=f"Recommendation, nDCG@{self.cutoff} {self.what}: {self.verdict}")

    def plot(self, ax: Any = None) -> Any:
        """Held-out Φ(1) difference of every candidate to the baseline, with 95 % intervals."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 0.35 * len(self.table) + 1.2))
        t = self.table.iloc[::-1]
        y = np.arange(len(t))
        lo = (t["diff_vs_baseline"] - t["baseline_lo"]).fillna(0).to_numpy()
        hi = (t["baseline_hi"] - t["diff_vs_baseline"]).fillna(0).to_numpy()
        colours = ["C2" if n == self.choice else ("C7" if k in ("standard", "baseline") else "C0")
                   for n, k in zip(t.index, t["kind"])]
        ax.errorbar(t["diff_vs_baseline"], y, xerr=[lo, hi], fmt="none", ecolor="0.5", capsize=3)
        ax.scatter(t["diff_vs_baseline"], y, c=colours, zorder=3)
        ax.axvline(0.0, color="0.3", lw=0.8)
        ax.set_yticks(y, list(t.index))
        ax.set_xlabel(f"held-out Φ(1) − {self.table.index[0]} (outer splits)")
        ax.set_title(f"nDCG@{self.cutoff} {self.what}: {'adopt ' + self.label if self.adopt else 'keep ' + self.choice}",
                     fontsize=10)
        return ax

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values with ``"format"``; the recommended configuration's ``levels``, ``gain``,
        ``discount`` and ``cutoff`` at the top level (what ``gtheory evaluate --discount FILE`` reads) and
        the full :class:`Tuning` under ``"tuning"`` (what :meth:`Tuning.from_json` and
        ``gtheory evaluate --tuning`` read); non-finite numbers are None."""
        scalars = {k: getattr(self, k) for k in (
            "what", "cutoff", "objective", "target", "seed", "n_splits", "n_inner", "min_wins", "n_systems",
            "n_topics", "choice", "label", "kind", "adopt", "selected", "best_standard", "verdict", "procedure_diff",
            "procedure_lo", "procedure_hi", "seconds", *_NEW_SCALARS)}
        scalars["seed_decisions"] = list(self.seed_decisions)
        d = {"format": FORMAT, **scalars, "levels": self.tuning.levels,
             # the configuration to use, exactly: the baseline's own vectors when keeping
             "gain": list(self.gain_vector) if self.gain_vector else self.tuning.gain,
             "discount": list(self.discount_vector) if self.discount_vector else self.tuning.discount,
             "gain_vector": list(self.gain_vector), "discount_vector": list(self.discount_vector),
             "table": self.table.reset_index().to_dict(orient="records"),
             "comparisons": self.comparisons.to_dict(orient="records"),
             "outer": self.outer.to_dict(orient="records"),
             "tuning": self.tuning.to_dict()}
        return jsonable(d)

    @classmethod
    def from_json(cls, text_or_path: str | os.PathLike) -> "Recommendation":
        """A :class:`Recommendation` from :meth:`to_json` output (text or a file path)."""
        d = read_json(text_or_path, "gtheory optimize.Recommendation")
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise ValueError("not a gtheory optimize.Recommendation JSON document (missing 'format').")
        from gtheory.kit.schema import check_document

        # every field by the declared schema (gtheory.kit.schema): a DocumentError naming the field
        d = check_document({k: v for k, v in d.items() if k != "format"}, JSON_SCHEMA, FORMAT)
        d = {k: v for k, v in d.items() if k in _WRITTEN or v is not None}
        nan = lambda v: math.nan if v is None else v  # noqa: E731
        table = pd.DataFrame(d["table"]).set_index("candidate")
        tuning = Tuning.from_json(json.dumps(d["tuning"]))
        kw = {k: d[k] for k in ("what", "cutoff", "objective", "target", "seed", "n_splits", "n_inner", "min_wins",
                                "n_systems", "n_topics", "choice", "label", "kind", "adopt", "selected",
                                "best_standard", "verdict")}
        new = {k: (nan(d[k]) if k in _NEW_FLOATS else d[k]) for k in _NEW_SCALARS if k in d}
        for k in ("gain_vector", "discount_vector", "seed_decisions"):
            if k in d:
                new[k] = tuple(d[k])
        new["levels"] = tuple(float(v) for v in d.get("levels") or ())
        return cls(**kw, **new, procedure_diff=nan(d["procedure_diff"]), procedure_lo=nan(d["procedure_lo"]),
                   procedure_hi=nan(d["procedure_hi"]), table=table.astype({c: float for c in _FLOATS if c in table}),
                   comparisons=pd.DataFrame(d["comparisons"]).astype({c: float for c in ("diff", "lo", "hi")}),
                   outer=pd.DataFrame(d["outer"]).astype({c: float for c in ("phi_1", "ratio", "topics_needed")}),
                   tuning=tuning, seconds=float(nan(d.get("seconds", 0.0))))


_FLOATS = ("phi_1_in_sample", "inner_phi_1", "outer_phi_1", "outer_sd", "diff_vs_best_standard", "diff_lo",
           "diff_hi", "topics_needed", "topics_saved", "topics_saved_lo", "topics_saved_hi")

#: fields of the baseline rule written as JSON scalars
_NEW_FLOATS = ("diff", "diff_lo", "diff_hi", "phi_n_baseline", "phi_n_adopted", "phi_n_diff", "phi_n_lo", "phi_n_hi",
               "topics_saved", "topics_to_decide", "fixed_diff", "fixed_lo", "fixed_hi", "fixed_share", "fixed_p")
_NEW_SCALARS = ("baseline", "decided", "measure", "alternative", "alternative_label", *_NEW_FLOATS, "splits_won",
                "n_outer", "n_seeds", "agreement", "phi_meaning", "base_gain", "base_discount", "tier", "tier_reason",
                "reference", "fixed_choice", "fixed_alternative", "fixed_m", "n_resamples")
_FLOATS = _FLOATS + ("diff_vs_baseline", "baseline_lo", "baseline_hi", "all_topics_diff", "all_topics_lo",
                     "all_topics_hi", "all_topics_share", "all_topics_p")


def _recommendation_schema() -> dict:
    from gtheory.kit.schema import anything, choice, flag, integer, list_of, obj, real, records, text

    number = real(nullable=True, null_as=math.nan)

    def candidates(rows: list) -> str:
        return "" if all("candidate" in r for r in rows) else "must give each row's 'candidate'"

    later = dict(required=False)  # fields added with the baseline rule: absent from earlier documents
    return {
        "what": choice("discount", "gain", "joint"), "cutoff": integer(1), "objective": text(),
        "target": real(0.0, 1.0, low_open=True, high_open=True), "seed": integer(0, nullable=True),
        "n_splits": integer(1), "n_inner": integer(1), "min_wins": real(0.0), "n_systems": integer(2),
        "n_topics": integer(2), **{k: text() for k in ("choice", "label", "kind", "selected", "best_standard",
                                                       "verdict")},
        "adopt": flag(), "procedure_diff": number, "procedure_lo": number, "procedure_hi": number,
        "seconds": real(0.0, nullable=True, null_as=math.nan, required=False, default=0.0),
        "table": records(check=candidates), "comparisons": records(), "outer": records(), "tuning": obj(),
        "baseline": text(**later, default=""), "decided": flag(**later, default=True),
        "measure": text(nullable=True, **later), "alternative": text(**later, default=""),
        "alternative_label": text(**later, default=""),
        **{k: number.but(**later, default=math.nan) for k in _NEW_FLOATS},
        "splits_won": integer(0, **later, default=0), "n_outer": integer(0, **later, default=0),
        "n_seeds": integer(1, **later, default=1), "agreement": integer(0, **later, default=0),
        "phi_meaning": text(**later, default=""), "base_gain": anything(**later), "base_discount": anything(**later),
        "seed_decisions": list_of(text(), **later), "levels": list_of(real(), **later),
        "gain": list_of(real(nullable=True), **later), "discount": list_of(real(nullable=True), **later),
        "gain_vector": list_of(real(nullable=True), **later), "discount_vector": list_of(real(nullable=True), **later),
        "tier": integer(1, 2, **later, default=1), "tier_reason": text(**later, default=""),
        "reference": text(**later, default=""), "fixed_choice": text(**later, default=""),
        "fixed_alternative": text(**later, default=""), "fixed_m": integer(0, **later, default=0),
        "n_resamples": integer(0, **later, default=0),
    }


#: the fields a document of the current format always writes (an absent later field of an earlier document is
#: left to the dataclass's default)
_WRITTEN = ("what", "cutoff", "objective", "target", "seed", "n_splits", "n_inner", "min_wins", "n_systems",
            "n_topics", "choice", "label", "kind", "selected", "best_standard", "verdict", "adopt", "procedure_diff",
            "procedure_lo", "procedure_hi", "seconds", "table", "comparisons", "outer", "tuning", "measure")

#: the declared schema of a Recommendation document (field -> rule, :mod:`gtheory.kit.schema`)
JSON_SCHEMA: dict = _recommendation_schema()
