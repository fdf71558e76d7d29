"""The short tuning study of ``gtheory demo``: standard discounts, the tuned discount and gains, one table.

:func:`demo_study` is a few-second version of :func:`experiments.run_study` (Kanoulas & Aslam, CIKM
2009): the G-study of nDCG@k with the Zipf, linear and log discounts, the discount tuned for Φ, the gain ratios
tuned with the log discount, Kendall τ of each system ranking with the log discount's, and the out-of-sample
check of :func:`optimize.cross_validate`. The result, :class:`DemoStudy`, follows the result protocol
(``summary()``, ``to_dict()``/``to_json()``/``from_json()``).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, fields
from typing import Any, Callable, ClassVar, Mapping

import numpy as np

import gtheory
import metrics
from gtheory.kit.checks import fixed_seed, progress_writer
from gtheory.kit.jsonio import JsonResult
from gtheory.kit.render import plot_label
from gtheory.errors import ParameterError

from experiments.agreement import kendall_tau
from gtheory.kit.params import REQUIRED_CUTOFF, validate_params

__all__ = ["demo_study", "check_demo_parameters", "DemoStudy"]

#: the columns of a :attr:`DemoStudy.rows` entry
DEMO_ROW_KEYS = ("configuration", "var_system", "var_topic", "var_residual", "share_system", "phi", "erho2",
                 "topics_needed", "converged", "kendall_tau_vs_log2")


@dataclass(frozen=True, repr=False)
class DemoStudy(JsonResult):
    """Result of :func:`demo_study`.

    Attributes
    ----------
    data : str
        The collection's description.
    cutoff, n_systems, n_topics : int
    target : float
        Φ target of the topics needed.
    rows : tuple of dict
        One per configuration (``zipf discount``, ``linear discount``, ``log2 discount``, ``tuned discount``,
        ``tuned gain (log2)``), keys :data:`DEMO_ROW_KEYS`: the variance components, the share of σ²(s), Φ and
        Eρ² at ``n_topics``, the topics needed for Φ ≥ ``target`` (``inf`` when never reached), whether the
        tuning converged (None for the standard ones) and Kendall τ with the log discount's ranking.
    tuned_gain_ratios : dict
        Grade (as text) → tuned gain relative to grade 1.
    out_of_sample : dict or None
        ``n_splits``, ``n_test_topics``, ``phi_mean``/``phi_sd``/``topics_needed_mean`` per configuration on
        the held-out halves, ``tuned_beats_log2`` (splits where the tuned discount's held-out Φ is larger).
    seconds : float
        Wall time of the study.
    verdict, recommended : str or None
        The out-of-sample verdict of :func:`optimize.recommend` on the discount and the configuration it
        recommends (None with fewer than 8 topics: nested cross-validation needs 2 topics per inner part).
    """

    data: str
    cutoff: int
    target: float
    n_systems: int
    n_topics: int
    rows: tuple[dict[str, Any], ...]
    tuned_gain_ratios: Mapping[str, float]
    out_of_sample: Mapping[str, Any] | None
    seconds: float
    verdict: str | None = None
    recommended: str | None = None

    JSON_FORMAT: ClassVar[str] = "gtheory.experiments.DemoStudy/1"

    def __repr__(self) -> str:
        best = max(self.rows, key=lambda r: -math.inf if r["phi"] != r["phi"] else r["phi"])
        return (f"DemoStudy(nDCG@{self.cutoff}, {self.n_systems} systems × {self.n_topics} topics; "
                f"{len(self.rows)} configurations, most stable: {best['configuration']} "
                f"Φ({self.n_topics}) = {best['phi']:.3f})")

    def _repr_html_(self) -> str:
        from gtheory.kit.display import html_table

        rows = ((r["configuration"], r["share_system"], r["phi"], r["erho2"], r["topics_needed"],
                 r.get("kendall_tau_vs_log2")) for r in self.rows)
        return html_table(rows, header=["configuration", "σ²(s) share", "Φ(n)", "Eρ²(n)",
                                        f"topics for Φ ≥ {self.target:g}", "τ vs log2"],
                          caption=f"DemoStudy: nDCG@{self.cutoff}, {self.n_systems} systems × {self.n_topics} topics"
                                  + (f"; {self.verdict}" if self.verdict else ""))

    def summary(self) -> str:
        """The table ``gtheory demo`` prints: per configuration the share of σ²(s), Φ, Eρ², topics needed and
        τ with log2; the tuned gain ratios; the out-of-sample lines."""
        n = self.n_topics
        lines = []
        if self.verdict:
            lines += [f"Should I tune the nDCG@{self.cutoff} discount?  {self.verdict}",
                      "  (gtheory recommend: nested cross-validation over topics; the study below explains it)", ""]
        lines += [f"nDCG@{self.cutoff}, {self.n_systems} systems x n = {n} topics   (Φ target {self.target:g})",
                  f"  Φ(1) is the stability of a comparison on one topic, Φ({n}) that of the mean over the n = {n} "
                  "topics (the share of its variance due to real differences between systems)",
                  f"  σ²_s/σ²_total = Φ(1); Eρ²({n}): the same for the ranking of the systems (topic difficulty, "
                  "common to all systems, not counted); τ vs log2: Kendall τ between the configuration's ranking of "
                  "the systems and the log2 discount's"]
        head = (f"{'configuration':<20} {'σ²_s/σ²_total':>13} {f'Φ({n})':>7} {f'Eρ²({n})':>7} {'topics for Φ':>13}  "
                f"{'τ vs log2':>9}")
        lines += [head, "-" * len(head)]
        for r in self.rows:
            tau = f"{r['kendall_tau_vs_log2']:.3f}" if r.get("kendall_tau_vs_log2") is not None else "-"
            lines.append(f"{r['configuration']:<20} {r['share_system']:>13.3f} {r['phi']:>7.3f} {r['erho2']:>7.3f} "
                         f"{_needed(r['topics_needed']):>13}  {tau:>9}")
        if self.tuned_gain_ratios:
            lines.append("tuned gain ratios (grade : gain relative to grade 1): "
                         + ", ".join(f"{k}: {v:.2f}" for k, v in self.tuned_gain_ratios.items()))
        oos = self.out_of_sample
        if oos:
            n_test = oos["n_test_topics"]
            lines += ["", f"out of sample ({oos['n_splits']} splits, Φ measured on {n_test} held-out topics; "
                          "mean ± sd):"]
            for c in sorted(oos["phi_mean"], key=lambda c: -oos["phi_mean"][c]):
                lines.append(f"  {c + ' discount':<16} Φ({n_test}) = {oos['phi_mean'][c]:.3f} ± "
                             f"{oos['phi_sd'][c]:.3f}   topics for Φ ≥ {self.target:g}: "
                             f"{_needed(oos['topics_needed_mean'][c])}")
            if oos["tuned_beats_log2"] is not None:
                lines.append(f"  the tuned discount beats log2 on {oos['tuned_beats_log2']} of "
                             f"{oos['n_splits']} splits")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def plot(self, ax: Any = None) -> Any:
        """Φ(n) of each configuration at the collection's topics (in sample), as horizontal bars labelled with
        the topics needed for Φ ≥ target; returns the matplotlib Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 0.45 * len(self.rows) + 1.2))
        rows = self.rows[::-1]
        y = np.arange(len(rows))
        ax.barh(y, [r["phi"] for r in rows], color=["C2" if r["converged"] is not None else "C0" for r in rows])
        for yi, r in zip(y, rows):
            ax.text(r["phi"] if r["phi"] == r["phi"] else 0.0, yi, f" {_needed(r['topics_needed'])} topics",
                    va="center", fontsize=8)
        ax.set_yticks(y, [plot_label(r["configuration"]) for r in rows])
        ax.set_xlim(0, 1.15)
        ax.set_xlabel(f"Φ({self.n_topics}) (in sample); label: topics for Φ ≥ {self.target:g}")
        ax.set_title(f"nDCG@{self.cutoff}: {self.n_systems} systems × {self.n_topics} topics", fontsize=10)
        return ax

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain JSON values plus ``"format"``; non-finite numbers (topics needed that no number of
        topics reaches) are None (:mod:`gtheory.kit.jsonio`)."""
        from gtheory.kit.jsonio import jsonable

        d = jsonable({f.name: getattr(self, f.name) for f in fields(self)})
        d["format"] = self.JSON_FORMAT
        return d

    @classmethod
    def from_json(cls, text_or_path: Any) -> "DemoStudy":
        """A :class:`DemoStudy` from :meth:`to_json` output; a ``null`` topics needed is ``inf``, another
        ``null`` number NaN."""
        from gtheory.kit.jsonio import load_document, number

        d = load_document(text_or_path, cls.JSON_FORMAT)
        rows = tuple({k: (number(v, math.inf) if k == "topics_needed" else
                          v if k in ("configuration", "converged") else number(v)) for k, v in r.items()}
                     for r in d["rows"])
        oos = d.get("out_of_sample")
        if oos:
            oos = {**oos, "topics_needed_mean": {c: number(v, math.inf) for c, v in oos["topics_needed_mean"].items()},
                   "phi_mean": {c: number(v) for c, v in oos["phi_mean"].items()},
                   "phi_sd": {c: number(v) for c, v in oos["phi_sd"].items()}}
        return cls(data=d["data"], cutoff=int(d["cutoff"]), target=float(d["target"]), n_systems=int(d["n_systems"]),
                   n_topics=int(d["n_topics"]), rows=rows, tuned_gain_ratios=dict(d["tuned_gain_ratios"]),
                   out_of_sample=oos, seconds=float(number(d["seconds"])), verdict=d.get("verdict"),
                   recommended=d.get("recommended"))


def _needed(n: float) -> str:
    """Topics needed as printed: an integer, or "inf" when the target cannot be reached (Φ stays below it)."""
    return "inf" if n == math.inf else ("-" if n != n else f"{n:.0f}")


def _row(label: str, g: gtheory.GStudy, target: float, tuning: Any = None) -> dict[str, Any]:
    row = g.as_row(target=target)
    need = row["topics_needed"]  # inf when Φ never reaches the target (e.g. σ²_s estimated as 0)
    return {"configuration": label, **{k: row[k] for k in ("var_system", "var_topic", "var_residual",
                                                              "share_system", "phi", "erho2")},
            "topics_needed": int(need) if math.isfinite(need) else float(need),
            "converged": None if tuning is None else bool(tuning.success)}


@validate_params(cutoff=REQUIRED_CUTOFF)
def check_demo_parameters(cutoff: int, target: float, n_splits: int, *, depth: int | None = None) -> None:
    """Refuse parameters :func:`demo_study` cannot take, before any data is loaded (``depth``: the runs' depth,
    when known): ``cutoff``, ``target`` and ``n_splits`` by the parameter table (:mod:`gtheory.kit.params`), then
    the cut-off against the depth. Raises :class:`gtheory.ParameterError` naming the parameter."""
    if depth is not None and cutoff > depth:  # the tuned discount has one weight per rank the runs have
        raise ParameterError("cutoff", f"`cutoff` {cutoff} exceeds the run depth {depth}; give a cut-off of at most "
                                       f"{depth}.")


@validate_params(cutoff=REQUIRED_CUTOFF)
def demo_study(
    judged: metrics.JudgedRuns,
    *,
    cutoff: int = 100,
    target: float = 0.95,
    n_splits: int = 10,
    seed: int | np.random.Generator | None = 0,
    progress: bool | str | Callable[[str], Any] = "auto",
) -> DemoStudy:
    r"""The tuning study of Kanoulas & Aslam (CIKM 2009) in a few seconds: what ``gtheory demo`` prints.

    nDCG@``cutoff`` with gains equal to the grades (linear gains for non-integer grades) and the Zipf, linear
    and log discounts; the discount tuned for Φ (:func:`optimize.optimize_discount`); the gains tuned with the
    log discount (:func:`optimize.optimize_gain`); Kendall τ of each ranking with the log discount's; and
    :func:`optimize.cross_validate` over ``n_splits`` seeded topic splits; first, with 8 topics or more, the
    out-of-sample verdict of :func:`optimize.recommend` ("should I tune the discount?"). Stability is the dependability
    :math:`\Phi(n) = \sigma^2_s / (\sigma^2_s + (\sigma^2_t + \sigma^2_{st,e})/n)` (Brennan 2001, ch. 4).

    Parameters
    ----------
    judged : metrics.JudgedRuns
        A complete systems × topics design (no topic excluded).
    cutoff : int
        nDCG cut-off, at most ``judged.depth``.
    target : float
        Φ target of the topics needed, in (0, 1).
    n_splits : int
        Topic splits of the out-of-sample check.
    seed : int, Generator or None
        Seed of the topic splits (a Generator gives one seed, drawn from it, used for every step).
    progress : bool, "auto" or callable
        A short message before each step (the shared ``progress`` parameter, docs/architecture.md).

    Raises
    ------
    ParameterError
        A parameter out of range (its ``param`` names it).
    """
    import optimize

    check_demo_parameters(cutoff, target, n_splits, depth=judged.depth)
    t0 = time.perf_counter()
    say = progress_writer(progress) or (lambda m: None)
    seed = fixed_seed(seed)
    desc = judged.report.get("description", repr(judged))
    k = int(cutoff)
    top = int(judged.levels.max())
    gain: Any = [float(g) for g in range(top + 1)] if np.all(judged.levels == np.round(judged.levels)) else "linear"
    verdict = None
    if judged.n_topics >= 8:  # nested cross-validation needs 2 topics per inner part
        say("0. Should I tune? (optimize.recommend: nested cross-validation over topics) ...")
        verdict = optimize.recommend(judged, cutoff=k, what="discount", gain=gain, target=target, seed=seed,
                                     n_splits=max(n_splits, 2), progress=False)
    say(f"data: {desc}")
    rows: list[dict[str, Any]] = []
    scores: dict[str, Any] = {}
    say(f"\n1. How stable is nDCG@{k} (linear gains) with the usual discounts?  (G-study, crossed systems x topics)")
    for name in ("zipf", "linear", "log2"):
        nd = metrics.ndcg(judged, gain=gain, discount=name, cutoff=k)
        scores[f"{name} discount"] = nd
        rows.append(_row(f"{name} discount", gtheory.gstudy(nd), target))
    say("2. Tuning the discount vector for stability (max Φ; SLSQP with exact gradients, multi-start) ...")
    td = optimize.optimize_discount(judged, gain=gain, cutoff=k)
    scores["tuned discount"] = td.ndcg(judged)
    rows.append(_row("tuned discount", td.gstudy, target, td))
    say("3. Tuning the gain vector (log discount) ...")
    tg = optimize.optimize_gain(judged, discount="log2", cutoff=k)
    scores["tuned gain (log2)"] = tg.ndcg(judged)
    rows.append(_row("tuned gain (log2)", tg.gstudy, target, tg))
    ratios = {f"{float(kk):g}": float(v) for kk, v in dict(tg.gain_ratios).items()}
    say(f"4. Out of sample: tune on half the topics, measure on the other half ({n_splits} seeded splits) ...")
    cv = optimize.cross_validate(judged, what="discount", cutoff=k, gain=gain, n_splits=n_splits,
                                 target=target, seed=seed)
    held = cv[cv["part"] == "test"]
    summary = held.groupby("config")[["phi", "topics_needed_phi"]].agg(["mean", "std"])
    wide = held.pivot(index="split", columns="config", values="phi")
    oos = {
        "n_splits": int(n_splits),
        "n_test_topics": int(held["n_topics"].iloc[0]),
        "phi_mean": {c: float(summary.loc[c, ("phi", "mean")]) for c in summary.index},
        "phi_sd": {c: float(summary.loc[c, ("phi", "std")]) for c in summary.index},
        "topics_needed_mean": {c: float(summary.loc[c, ("topics_needed_phi", "mean")]) for c in summary.index},
        "tuned_beats_log2": int((wide["tuned"] > wide["log2"]).sum()) if "log2" in wide else None,
    }
    base = scores["log2 discount"].mean(axis=1)
    for r in rows:
        r["kendall_tau_vs_log2"] = float(kendall_tau(scores[r["configuration"]].mean(axis=1), base))
    return DemoStudy(data=str(desc), cutoff=k, target=float(target), n_systems=judged.n_systems,
                     n_topics=judged.n_topics, rows=tuple(rows), tuned_gain_ratios=ratios, out_of_sample=oos,
                     seconds=time.perf_counter() - t0, verdict=verdict.verdict if verdict else None,
                     recommended=verdict.label if verdict else None)
