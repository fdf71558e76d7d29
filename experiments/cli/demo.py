"""``gtheory demo``: the tuning study of Kanoulas & Aslam (CIKM 2009) on the embedded TREC-9 Web data, end to end.

Steps: load the embedded judged-grade tensor; G-study of nDCG@100 (gains 0/1/2) with the Zipf, linear and log
discounts; tune the discount for stability (Φ); tune the gain ratio; compare system rankings (Kendall τ) and report
how many topics each configuration needs. ``gtheory report`` writes the full study with figures.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from typing import Any

import numpy as np

import gtheory
import metrics

from . import UsageError
from ._common import add_data_args, emit_json, check_shape, drop_missed_topics, load_judged


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "demo",
        help="end-to-end tuning study on the embedded TREC-9 Web data (a few seconds)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_data_args(p)
    p.add_argument("--cutoff", type=int, default=100, help="nDCG cut-off (default 100, as in the paper's Table 1)")
    p.add_argument("--target", type=float, default=0.95, help="target Φ for the topics needed (default 0.95)")
    p.add_argument("--splits", type=int, default=10, help="topic splits of the out-of-sample check (default 10)")
    p.add_argument("--quiet", action="store_true", help="print only the final table")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    return p


def _say(args: argparse.Namespace, msg: str) -> None:
    if not args.quiet and not args.json:
        print(msg, file=sys.stderr if args.json else sys.stdout, flush=True)


def run(args: argparse.Namespace) -> int:
    if args.cutoff < 1:
        raise ValueError(f"--cutoff must be a positive integer; got {args.cutoff}")
    if not 0 < args.target < 1:
        raise ValueError(f"--target must be in (0, 1); got {args.target}")
    if args.splits < 1:
        raise ValueError(f"--splits must be a positive integer; got {args.splits}")
    t0 = time.perf_counter()
    judged = drop_missed_topics(load_judged(args), "demo")
    check_shape(judged)
    if args.cutoff > judged.depth:  # the tuned discount has one weight per rank the runs have
        raise UsageError(f"--cutoff {args.cutoff} exceeds the run depth {judged.depth}.")
    # warnings of the library (negative variance estimates, optimisers that did not converge) go to stderr in
    # the CLI's format, once per message, after the work -- not as Python warnings with a source line
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = _study(args, judged, t0)
    _warn(caught)
    return code


#: at most this many warnings of one kind are printed; the rest are counted
_MAX_WARNINGS = 3


def _warn(caught: list) -> None:
    by_kind: dict[str, list[str]] = {}
    for w in caught:
        msgs = by_kind.setdefault(w.category.__name__, [])
        if str(w.message) not in msgs:
            msgs.append(str(w.message))
    for msgs in by_kind.values():
        for m in msgs[:_MAX_WARNINGS]:
            print(f"gtheory demo: warning: {m}", file=sys.stderr)
        if len(msgs) > _MAX_WARNINGS:
            print(f"gtheory demo: warning: ... and {len(msgs) - _MAX_WARNINGS} more like these", file=sys.stderr)


def _needed(n: float) -> str:
    """Topics needed as printed: an integer, or "inf" when the target cannot be reached (Φ stays below it)."""
    return "inf" if n == math.inf else ("-" if n != n else f"{n:.0f}")


def _study(args: argparse.Namespace, judged: Any, t0: float) -> int:
    k = args.cutoff
    top = int(judged.levels.max())
    gain = [float(g) for g in range(top + 1)] if np.all(judged.levels == np.round(judged.levels)) else "linear"
    verdict = _verdict(args, judged, gain)
    if verdict and not args.json:
        print(f"Should I tune the nDCG@{k} discount?  {verdict.verdict}\n  (gtheory recommend: nested "
              f"cross-validation over topics; the study below explains it)", flush=True)
    _say(args, f"data: {judged.report.get('description', repr(judged))}")
    rows: list[dict[str, Any]] = []
    scores: dict[str, Any] = {}
    _say(args, f"\n1. How stable is nDCG@{k} (linear gains) with the usual discounts?  (G-study, crossed systems x topics)")
    for name in ("zipf", "linear", "log2"):
        nd = metrics.ndcg(judged, gain=gain, discount=name, cutoff=k)
        scores[f"{name} discount"] = nd
        rows.append(_row(f"{name} discount", gtheory.gstudy(nd), args.target, judged.n_topics))
    try:
        import optimize
    except ImportError:  # pragma: no cover - optimize is part of the distribution
        optimize = None
    if optimize is not None:
        _say(args, "2. Tuning the discount vector for stability (max Φ; SLSQP with exact gradients, multi-start) ...")
        td = optimize.optimize_discount(judged, gain, k)
        scores["tuned discount"] = td.ndcg(judged)
        rows.append(_row("tuned discount", td.gstudy, args.target, judged.n_topics, td))
        _say(args, "3. Tuning the gain vector (log discount) ...")
        tg = optimize.optimize_gain(judged, "log2", k)
        scores["tuned gain (log2)"] = tg.ndcg(judged)
        rows.append(_row("tuned gain (log2)", tg.gstudy, args.target, judged.n_topics, tg))
        ratios = {f"{float(kk):g}": float(v) for kk, v in dict(tg.gain_ratios).items()}
        _say(args, f"4. Out of sample: tune on half the topics, measure on the other half ({args.splits} seeded splits) ...")
        cv = optimize.cross_validate(judged, what="discount", cutoff=k, gain=gain, n_splits=args.splits,
                                     target=args.target, seed=0)
        held = cv[cv["part"] == "test"]
        summary = held.groupby("config")[["phi", "topics_needed_phi"]].agg(["mean", "std"])
        wide = held.pivot(index="split", columns="config", values="phi")
        oos = {
            "n_splits": int(args.splits),
            "n_test_topics": int(held["n_topics"].iloc[0]),
            "phi_mean": {c: float(summary.loc[c, ("phi", "mean")]) for c in summary.index},
            "phi_sd": {c: float(summary.loc[c, ("phi", "std")]) for c in summary.index},
            "topics_needed_mean": {c: float(summary.loc[c, ("topics_needed_phi", "mean")]) for c in summary.index},
            "tuned_beats_log2": int((wide["tuned"] > wide["log2"]).sum()) if "log2" in wide else None,
        }
    else:
        ratios, oos = {}, None
    taus = {}
    try:
        import experiments

        base = scores["log2 discount"].mean(axis=1)
        for name, sc in scores.items():
            taus[name] = float(experiments.kendall_tau(sc.mean(axis=1), base))
    except ImportError:  # pragma: no cover
        pass
    for r in rows:
        r["kendall_tau_vs_log2"] = taus.get(r["configuration"])
    if args.json:  # topics needed that no number of topics reaches: "inf", as in `gtheory check --json`
        emit_json({"data": judged.report.get("description", repr(judged)), "cutoff": k,
                   "rows": [{**r, "topics_needed": _json_needed(r["topics_needed"])} for r in rows],
                   "verdict": verdict.verdict if verdict else None,
                   "recommended": verdict.label if verdict else None,
                   "tuned_gain_ratios": ratios,
                   "out_of_sample": oos and {**oos, "topics_needed_mean": {
                       c: _json_needed(v) for c, v in oos["topics_needed_mean"].items()}},
                   "seconds": time.perf_counter() - t0})
        return 0
    print(f"\nnDCG@{k}, {judged.n_systems} systems x {judged.n_topics} topics   (Φ target {args.target:g})")
    head = f"{'configuration':<20} {'σ²_s/σ²_total':>13} {'Φ(n)':>7} {'Eρ²(n)':>7} {'topics for Φ':>13}  {'τ vs log2':>9}"
    print(head)
    print("-" * len(head))
    for r in rows:
        tau = f"{r['kendall_tau_vs_log2']:.3f}" if r.get("kendall_tau_vs_log2") is not None else "-"
        print(f"{r['configuration']:<20} {r['share_system']:>13.3f} {r['phi']:>7.3f} {r['erho2']:>7.3f} "
              f"{_needed(r['topics_needed']):>13}  {tau:>9}")
    if ratios:
        print("tuned gain ratios (grade : gain relative to grade 1): " + ", ".join(f"{k_}: {v:.2f}" for k_, v in ratios.items()))
    if oos:
        n_test = oos["n_test_topics"]
        print(f"\nout of sample ({oos['n_splits']} splits, Φ measured on {n_test} held-out topics; mean ± sd):")
        for c in sorted(oos["phi_mean"], key=lambda c: -oos["phi_mean"][c]):
            print(f"  {c + ' discount':<16} Φ({n_test}) = {oos['phi_mean'][c]:.3f} ± {oos['phi_sd'][c]:.3f}   "
                  f"topics for Φ ≥ {args.target:g}: {_needed(oos['topics_needed_mean'][c])}")
        if oos["tuned_beats_log2"] is not None:
            print(f"  the tuned discount beats log2 on {oos['tuned_beats_log2']} of {oos['n_splits']} splits")
    _say(args, "\nThe first table is in-sample (tuned and measured on the same topics); the out-of-sample lines are "
         "the honest gain. `gtheory report` writes the whole study with figures.")
    _say(args, f"done in {time.perf_counter() - t0:.1f} s")
    return 0


def _verdict(args: argparse.Namespace, judged: Any, gain: Any) -> Any:
    """The out-of-sample verdict of :func:`optimize.recommend` on the discount (the demo opens with it)."""
    try:
        import optimize
    except ImportError:  # pragma: no cover - optimize is part of the distribution
        return None
    if judged.n_topics < 8:  # nested cross-validation needs 2 topics per inner part
        return None
    return optimize.recommend(judged, args.cutoff, what="discount", gain=gain, target=args.target, seed=0,
                              n_splits=max(args.splits, 2), progress=False)


def _row(label: str, g: "gtheory.GStudy", target: float, n: int, tuning: Any = None) -> dict[str, Any]:
    total = g.var_system + g.var_topic + g.var_residual
    need = g.topics_needed(target, coefficient="phi")
    n_need = float(getattr(need, "n", need))  # inf when Φ never reaches the target (e.g. σ²_s estimated as 0)
    return {
        "configuration": label,
        "var_system": g.var_system,
        "var_topic": g.var_topic,
        "var_residual": g.var_residual,
        "share_system": g.var_system / total if total > 0 else float("nan"),
        "phi": float(g.phi(n)),
        "erho2": float(g.erho2(n)),
        "topics_needed": int(n_need) if math.isfinite(n_need) else n_need,
        "converged": None if tuning is None else bool(tuning.success),
    }


def _json_needed(n: float) -> Any:
    return "inf" if n == math.inf else n  # NaN becomes null in emit_json
