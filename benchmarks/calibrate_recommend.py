"""Calibration of ``optimize.recommend``'s switching rule by simulation on real collections.

    python benchmarks/calibrate_recommend.py [--collections trec9 dl19 robust04] [--cutoffs 10 20 100]
        [--what discount gain] [--halvings 10] [--seeds 5] [--out benchmarks/results/calibrate_recommend.json]

Protocol (issue "advice a user can follow"): for each collection × cut-off × what, ``--halvings`` random halvings
of the topics (:func:`gtheory.kit.topic_splits`, seed 2026). On each halving, the rule of :func:`optimize.recommend`
(``--seeds`` reseedings of 10 outer × 4 inner halvings) runs on the first half only; its advice (the baseline when it
keeps) and every candidate, fitted on the first half, are scored by Φ(1) on the second half. Reported per cell:

* ``advice``: mean over halvings of Φ(1)(advice) − Φ(1)(baseline) on the second half (0 on a halving that keeps);
  ``switches``/``false``: halvings that switched, and those whose switch lost on the second half;
* ``real``: the best candidate's mean held-out gain over the baseline (max over candidates, at least 0) and which;
  ``captured``: advice / real where real ≥ 0.02;
* ``agree``: on the whole collection, the 5 seeds' decisions — how many reach the most common one (stability).

The matrices are precomputed once per cell (:class:`optimize._ratio.RatioModel` over all topics; halves are topic
index subsets of it), so a cell costs the fits only. Baseline: trec_eval's nDCG (linear gains, log2 discount).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import metrics  # noqa: E402
from gtheory.kit.splits import topic_splits  # noqa: E402
from optimize import nested  # noqa: E402
from optimize._ratio import RatioModel, coefficients  # noqa: E402
from optimize._threads import single_threaded_blas  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
#: all runs of each collection (directories under the shared data) and its qrels
COLLECTIONS = {
    "trec9": (("trec9-web-wt10g/runs_full_xz",), "trec9-web-wt10g/qrels.trec9.web.451-500.txt"),
    "dl19": (("trec-dl-2019-passage/runs_judged_full_xz",), "trec-dl-2019-passage/qrels.dl19-passage.txt"),
    "robust04": (("trec-robust2004-subset/runs_full_xz/historical_submitted",
                  "trec-robust2004-subset/runs_full_xz/new_2018_baselines"), "trec-robust2004-subset/qrels.robust2004.txt"),
}
HALVING_SEED = 2026


def load(name: str) -> metrics.JudgedRuns:
    if name == "trec9":
        return metrics.load_trec9()
    dirs, qrels = COLLECTIONS[name]
    files = [p for d in dirs for p in sorted((SHARED / d).iterdir()) if not p.name.startswith(".")]
    return metrics.judge(files, SHARED / qrels)


def rule_kwargs(**over):
    kw = dict(n_splits=10, n_inner=4, objective="phi", min_wins=0.8, min_effect=0.0, min_agreement=0.75, level=0.95)
    kw.update(over)
    return kw


def cell(judged: metrics.JudgedRuns, cutoff: int, what: str, halvings: int, n_seeds: int,
         stability_seeds: int = 5, families: tuple | None = None, lambdas: tuple | None = None, **rule) -> dict:
    """One cell of the table (module docstring); ``families``/``lambdas`` restrict the candidates (tests)."""
    model = RatioModel(judged, cutoff, what, gain="linear", discount="log2")
    cands = nested._candidates(model, what, "phi", "linear", "log2",
                               nested.LAMBDAS if lambdas is None else tuple(lambdas),
                               tuple(nested.FAMILIES[what]) if families is None else tuple(families), "ridge")
    kw = rule_kwargs(**rule)
    T = judged.n_topics
    adv, gains, decisions = [], [], []
    with single_threaded_blas():
        for h, (A, B) in enumerate(topic_splits(T, n_splits=halvings, seed=HALVING_SEED)):
            dec = nested.decide(model, cands, A, nested.seed_list(h, n_seeds), **kw)
            xs = np.stack([c.fit(A)[0] for c in cands])
            phi = coefficients(model.scores(xs, B))["phi_1"]
            g = phi - phi[0]
            gains.append(g)
            adv.append(float(g[dec.index]) if dec.adopt else 0.0)
            decisions.append(cands[dec.index].name if dec.adopt else "keep")
        whole = (nested.decide(model, cands, np.arange(T), nested.seed_list(0, stability_seeds), **kw)
                 if stability_seeds else None)
    gains = np.array(gains)
    mean_g = gains.mean(axis=0)
    best = int(np.argmax(mean_g))
    real = max(0.0, float(mean_g[best]))
    a = float(np.mean(adv))
    wd = whole.seed_decisions if whole is not None else []
    counts = {d: wd.count(d) for d in set(wd)} or {"-": 0}
    return {"advice": a, "advice_per_halving": adv, "decisions": decisions,
            "switches": sum(d != "keep" for d in decisions), "false": sum(x < 0 for x in adv),
            "real": real, "real_candidate": cands[best].name if real > 0 else "-",
            "captured": (a / real) if real >= 0.02 else None,
            "whole_decisions": wd, "agree": max(counts.values()),
            "whole_adopt": bool(whole is not None and whole.adopt),
            "whole_choice": cands[whole.index].name if whole is not None else "-", "seeds": n_seeds}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--collections", nargs="+", default=list(COLLECTIONS))
    p.add_argument("--cutoffs", nargs="+", type=int, default=[10, 20, 100])
    p.add_argument("--what", nargs="+", default=["discount", "gain"])
    p.add_argument("--halvings", type=int, default=10)
    p.add_argument("--seeds", type=int, default=5, help="seeds of the rule on each half (recommend's n_seeds)")
    p.add_argument("--stability-seeds", type=int, default=5,
                   help="seeds of the rule on the whole collection, whose agreement is reported (0: skip)")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "calibrate_recommend.json"))
    args = p.parse_args(argv)
    out = Path(args.out)
    results = json.loads(out.read_text()) if out.exists() else {}
    for name in args.collections:
        judged = load(name)
        for k in args.cutoffs:
            for what in args.what:
                t0 = time.perf_counter()
                r = cell(judged, k, what, args.halvings, args.seeds, args.stability_seeds)
                r["seconds"] = time.perf_counter() - t0
                r["shape"] = [judged.n_systems, judged.n_topics]
                results[f"{name} {what}@{k} seeds={args.seeds}"] = r
                tmp = out.with_suffix(".tmp")
                tmp.write_text(json.dumps(results, indent=1))
                os.replace(tmp, out)  # atomic: a reader never sees half a file
                cap = "-" if r["captured"] is None else f"{r['captured']:.2f}"
                print(f"{name:9} {what:8} @{k:<4} advice {r['advice']:+.4f}  switches {r['switches']}/{args.halvings} "
                      f"false {r['false']}  real {r['real']:+.4f} ({r['real_candidate']})  captured {cap}  "
                      f"agree {r['agree']}/{args.stability_seeds} whole {r['whole_choice'] if r['whole_adopt'] else 'keep'}  "
                      f"{r['seconds']:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
