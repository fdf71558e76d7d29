"""Calibration of ``optimize.recommend``'s two-tier switching rule on the shared collections with runs.

    python benchmarks/calibrate_recommend.py tier1 [--collections ...] [--cutoffs 10 20 100] [--nulls 200]
        [--subsets 20] [--baselines default|all] [--out benchmarks/results/calibrate_recommend.json]
    python benchmarks/calibrate_recommend.py whole-null --collections dl19 clef --cutoffs 10 100 [--nulls 20]
    python benchmarks/calibrate_recommend.py whole-value --collections trec9 dl19 --cutoffs 10 100 [--subsets 10]
    python benchmarks/calibrate_recommend.py whole-stable [--collections ...]   # 5 seeds on each whole collection
    python benchmarks/calibrate_recommend.py halves      # the anti-correlation of complementary halves (cached tensors)
    python benchmarks/calibrate_recommend.py randomisation [--baselines all] [--levels 0.95 0.9]
        # the rule (studentised randomisation) against the bootstrap alone, the unstudentised randomisation test and
        # the oracle told the best standard, on the cells where a standard gains >= 0.015
    python benchmarks/calibrate_recommend.py population --collections robust04   # non-exchangeable nulls: 50-topic
        # subsets of a collection where an alternative gains about 0 on all its topics
    python benchmarks/calibrate_recommend.py table       # the docs' tables from the recorded results

Baseline: trec_eval's nDCG (linear gains, log2 discount). Standards: zipf and linear discounts; exponential gains.
Per collection × cut-off × what (gain cells only where there are at least two positive grades), the standards'
systems × topics nDCG tensors are computed once and cached (``.npz`` under ``$GTHEORY_CALIBRATION_CACHE``, default
``/tmp/gtheory-calibration``); every null and subset below is then a topic index operation on them.

Tier 1 (``tier1``; the fixed-configuration decision of :func:`optimize.recommend.fixed.tier_one`, 4,000 topic swaps a
round; validity and value without the bootstrap interval, which is reported and does not decide):

* **validity**: for each alternative standard c, ``--nulls`` constructed nulls in which c and the baseline are
  exchangeable topic by topic: for each topic, with probability 1/2, c's and the baseline's score columns are
  swapped. ``false`` = the share of nulls on which the rule switches to c (nominal ≤ 0.05; Bonferroni makes it about
  0.025/m, the one-sided level of the studentised randomisation test); ``any`` = the share that switch to any standard.
* **value** on random topic subsets (half, three quarters; ``--subsets`` each, seed 2026): the rule runs on the
  subset; a standard it adopts is scored by its Φ(1) gain over the baseline on the *whole* collection (the finite
  collection as the population), a keep by 0. ``value`` = the mean; ``worse`` = switches to a standard that is worse
  than the baseline on the whole collection. ``available`` = max(0, the best standard's whole-collection gain);
  ``captured`` = value / available where available ≥ 0.015.
* **power and stability** on the whole collection: the rule with 5 seeds (of the resamples); ``whole`` = the most
  common decision and how many of the 5 reach it.

Whole rule (tier 2 included; :func:`optimize.recommend.nested.decide` with ``recommend``'s defaults):

* ``whole-null``: the same exchangeable nulls (c = zipf for the discount, exponential for the gain), the swap applied
  to every score of c and the baseline the rule computes (tier 1 and tier 2's references); the tuned candidates'
  fits see the real data. ``false`` = final configuration c.
* ``whole-value``: random halves; a fixed configuration adopted is scored on the whole collection, a tuned vector
  (fitted on the half) by its Φ(1) gain over the baseline on the other half — the topics it did not see.

Why not "the other half" for fixed configurations: with a fixed collection, the Φ(1) gains on two complementary
halves are strongly anti-correlated (docs/should-i-tune.md): a rule that acts on a strong gain in one half is then
scored on a half that tends to show a weak one, whatever the true gain. The whole collection has no such coupling.
Single process, BLAS limited to one thread.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import metrics  # noqa: E402
from optimize.recommend import nested  # noqa: E402
from optimize.solvers._ratio import RatioModel, coefficients  # noqa: E402
from optimize.solvers._threads import single_threaded_blas  # noqa: E402
from optimize.recommend.candidates import LAMBDAS, _candidates, _standard_candidates  # noqa: E402
from optimize.recommend.fixed import (FIXED_STREAM, FixedDecision, fixed_decision, fixed_index,  # noqa: E402
                                     resampled_phi, standard_indices, swap_null, swap_p_value, tier_one)
from optimize.solvers import FAMILIES  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
#: all runs of each collection (directories under the shared data) and its qrels
COLLECTIONS = {
    "trec9": (("trec9-web-wt10g/runs_full_xz",), "trec9-web-wt10g/qrels.trec9.web.451-500.txt"),
    "dl19": (("trec-dl-2019-passage/runs_judged_full_xz",), "trec-dl-2019-passage/qrels.dl19-passage.txt"),
    "robust04": (("trec-robust2004-subset/runs_full_xz/historical_submitted",
                  "trec-robust2004-subset/runs_full_xz/new_2018_baselines"), "trec-robust2004-subset/qrels.robust2004.txt"),
    "dl21": (("trec-dl-2021-passage/runs_judged_xz",), "trec-dl-2021-passage/qrels.dl21-passage.txt"),
    # run tags do not match the file names (systems are named by file); some runs cover 49 of the 50 topics
    "clef": (("clef-ehealth-2014-task3/runs_xz",), "clef-ehealth-2014-task3/qrels.clef2014.test.graded.txt"),
}
SUBSET_SEED = 2026
NULL_SEED = 31
CACHE = Path(os.environ.get("GTHEORY_CALIBRATION_CACHE", "/tmp/gtheory-calibration"))
LEVEL = 0.95

_JUDGED: dict[str, metrics.JudgedRuns] = {}


def load(name: str) -> metrics.JudgedRuns:
    if name not in _JUDGED:
        if name == "trec9":
            _JUDGED[name] = metrics.load_trec9()
        else:
            dirs, qrels = COLLECTIONS[name]
            files = [p for d in dirs for p in sorted((SHARED / d).iterdir()) if not p.name.startswith(".")]
            _JUDGED[name] = metrics.judge(files, SHARED / qrels)
    return _JUDGED[name]


def grades(name: str) -> int:
    """Number of positive grades of a collection (cached with the tensors)."""
    f = CACHE / f"{name}-levels.npy"
    if not f.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        np.save(f, np.asarray(load(name).levels, dtype=float))
    return int((np.load(f) > 0).sum())


def tensor(name: str, cutoff: int, what: str) -> tuple[np.ndarray, list[str]]:
    """The fixed configurations' nDCG ``(C, S, T)`` (the baseline first) and their names, cached as ``.npz``."""
    f = CACHE / f"{name}-{what}-{cutoff}.npz"
    if f.exists():
        z = np.load(f)
        return z["X"], [str(n) for n in z["names"]]
    model = RatioModel(load(name), cutoff, what, gain="linear", discount="log2")
    cands = _standard_candidates(model, what, "linear", "log2")
    X = model.scores(np.stack([c.fit(None)[0] for c in cands]))
    CACHE.mkdir(parents=True, exist_ok=True)
    np.savez(f, X=X, names=np.array([c.name for c in cands]))
    return X, [c.name for c in cands]


def swapped(X: np.ndarray, c: int, swap: np.ndarray) -> np.ndarray:
    """``X`` with configuration ``c``'s and the baseline's score columns exchanged on the topics ``swap``."""
    Y = X.copy()
    Y[0][:, swap], Y[c][:, swap] = X[c][:, swap], X[0][:, swap]
    return Y


#: tier 1's decision without its (reported, not deciding) bootstrap interval: the same decisions from the same seeds
decision_only = partial(fixed_decision, interval=False)


def validity(X: np.ndarray, names: list[str], n_nulls: int, seed: int = NULL_SEED,
             alternatives: list[str] | None = None, decide=decision_only) -> dict:
    """Tier 1 under exchangeable nulls, per alternative (default all): false-switch rate (to it) and any-switch
    rate. Each null draws its own resamples, as the rule does."""
    rng = np.random.default_rng(seed)
    T = X.shape[2]
    out = {}
    for c in range(1, len(names)):
        if alternatives is not None and names[c] not in alternatives:
            continue
        to_c = anyw = 0
        for _ in range(n_nulls):
            swap = rng.random(T) < 0.5
            d = decide(swapped(X, c, swap), names, level=LEVEL, rng=rng)  # its own draws, as the rule
            to_c += d.index == c
            anyw += d.index != 0
        out[names[c]] = {"false": to_c / n_nulls, "any": anyw / n_nulls, "n": n_nulls}
    return out


def subsets(T: int, share: float, n: int, seed: int = SUBSET_SEED) -> list[np.ndarray]:
    rng = np.random.default_rng([seed, int(round(share * 100))])
    size = int(round(share * T))
    return [np.sort(rng.choice(T, size=size, replace=False)) for _ in range(n)]


def value(X: np.ndarray, names: list[str], n_subsets: int, shares=(0.5, 0.75), decide=decision_only) -> dict:
    """Tier 1 on random topic subsets, scored on the whole collection."""
    phi = resampled_phi(X, weights=np.ones((1, X.shape[2])))[:, 0]
    gain = phi - phi[0]  # whole-collection Φ(1) gains over the baseline (the population values)
    available = max(0.0, float(gain[1:].max())) if len(names) > 1 else 0.0
    out = {"gain": {n: float(g) for n, g in zip(names, gain)}, "available": available}
    T = X.shape[2]
    for share in shares:
        vals, picks = [], []
        for i, A in enumerate(subsets(T, share, n_subsets)):
            d = decide(X[:, :, A], names, level=LEVEL, rng=[SUBSET_SEED, i])
            vals.append(float(gain[d.index]))
            picks.append(names[d.index] if d.adopt else "keep")
        v = float(np.mean(vals))
        out[f"{share:g}"] = {"value": v, "min": float(np.min(vals)), "switches": sum(p != "keep" for p in picks),
                             "worse": int(sum(x < 0 for x in vals)), "n": n_subsets, "decisions": picks,
                             "captured": v / available if available >= 0.015 else None}
    return out


def stability(X: np.ndarray, names: list[str], seeds=(0, 1, 2, 3, 4), decide=fixed_decision) -> dict:
    ds = [decide(X, names, level=LEVEL, rng=s) for s in seeds]
    picks = [names[d.index] if d.adopt else "keep" for d in ds]
    top = max(set(picks), key=picks.count)
    best = ds[0].best
    return {"decisions": picks, "decision": top, "agree": picks.count(top), "lo": float(ds[0].lo[best]),
            "best": names[best], "diff": float(ds[0].diff[best]),
            "p": float(ds[0].p[best]) if ds[0].p is not None else None}



# ------------------------------------------------------------------ tier 1's test against the alternatives
# Tier 1 switches when the studentised topic-swap randomisation test finds an alternative better
# (optimize.recommend.fixed). ``randomisation`` measures it against the paired topic bootstrap alone (the first
# round's rule), the unstudentised randomisation test and an oracle told the whole collection's best standard (one
# test at the full level: no rule that must choose among the standards can have more power), at several levels.

def bootstrap_decision(X: np.ndarray, names: list[str], *, level: float, rng):
    """Tier 1 by the paired topic bootstrap alone: the largest gain among the alternatives whose Bonferroni-corrected
    lower bound is above 0 (the first round's rule)."""
    d = fixed_decision(X, names, level=level, rng=rng, refine=1)
    ok = [c for c in range(1, len(names)) if d.lo[c] > 0 and d.diff[c] > 0]
    return replace(d, index=max(ok, key=lambda c: (d.diff[c], -c)) if ok else 0)


def oracle_decision(winner: int):
    """Tier 1 told the alternative ``winner`` in advance: the studentised test of it alone (m = 1, the full level);
    returns the index among all configurations (for ``value`` only)."""
    def decide(X: np.ndarray, names: list[str], *, level: float, rng):
        d = fixed_decision(X[[0, winner]], [names[0], names[winner]], level=level, rng=rng, interval=False)
        return replace(d, index=winner if d.adopt else 0)
    return decide


def randomisation_decision(X: np.ndarray, names: list[str], *, level: float, rng, n_resamples: int = 4000):
    """Tier 1 by the unstudentised topic-swap randomisation test of Δ: alternative c is adopted when its one-sided
    p-value (1 + #{Δ* ≥ Δ}) / (1 + R) (Phipson & Smyth 2010) is at most (1 − level)/(2m), the rule's level,
    Bonferroni over the m alternatives;
    the bound is Δ minus the matching quantile of the (symmetric) randomisation distribution."""
    gen = np.random.default_rng(rng)
    C, S, T = X.shape
    Z = gen.random((n_resamples, T)) < 0.5
    phi = resampled_phi(X, weights=np.ones((1, T)))[:, 0]
    d = phi - phi[0]
    m = C - 1
    q_level = (1.0 - level) / 2.0 / max(m, 1)
    k = min(n_resamples, int(np.ceil((1.0 - q_level) * (n_resamples + 1))))
    lo, hi = np.full(C, np.nan), np.full(C, np.nan)
    ok = []
    for c in range(1, C):
        null = swap_null(X[0], X[c], Z)
        p = swap_p_value(null, d[c])
        q = np.partition(null, k - 1)[k - 1]
        lo[c], hi[c] = d[c] - q, d[c] + q
        if p <= q_level and d[c] > 0:
            ok.append(c)
    index = max(ok, key=lambda c: (d[c], -c)) if ok else 0
    return FixedDecision(names=tuple(names), phi=phi, diff=d, lo=lo, hi=hi, share=np.full(C, np.nan),
                         index=int(index), alpha=(1.0 - level) / 2.0, m=m, n_resamples=n_resamples)


def run_randomisation(args) -> dict:
    """The rule (studentised randomisation) against the bootstrap alone, the unstudentised randomisation test and the
    oracle, on the cells given: false-switch rate, value on subsets, the whole collection's decision; the docs'
    comparison table."""
    global LEVEL
    results = _read(args.out)
    saved = LEVEL
    try:
        for name, k, what in _cells(args):
            X0, names0 = tensor(name, k, what)
            for b in (range(len(names0)) if args.baselines == "all" else (0,)):
                order = [b] + [i for i in range(len(names0)) if i != b]
                X, names = X0[order], [names0[i] for i in order]
                gain = resampled_phi(X, weights=np.ones((1, X.shape[2])))[:, 0]
                if len(names) < 2 or max(gain[1:] - gain[0]) < 0.015:
                    continue
                winner = 1 + int(np.argmax(gain[1:]))
                for test, decide, levels in (("bootstrap", bootstrap_decision, (0.95,)),
                                             ("randomisation", randomisation_decision, (0.95,)),
                                             ("studentised", decision_only, tuple(args.levels)),
                                             ("oracle", oracle_decision(winner), tuple(args.levels))):
                    for level in levels:
                        key = f"variant {test} {level:g} {name} {what}@{k}" + (f" base={names[0]}" if b else "")
                        if key in results and args.keep:
                            continue
                        LEVEL = level
                        r = {"value": value(X, names, args.subsets, decide=decide), "level": level}
                        if test != "oracle":
                            r["validity"] = validity(X, names, args.nulls, decide=decide)
                        results[key] = r
                        _write(args.out, results)
                        v = r["value"]
                        print(f"{test:13} {level:<5g} {name:6} {what}@{k:<3} base {names[0]:11} false "
                              + " ".join(f"{n} {x['false']:.3f}" for n, x in r.get("validity", {}).items())
                              + f" | ½ {v['0.5']['value']:+.4f} ¾ {v['0.75']['value']:+.4f} avail {v['available']:+.4f}",
                              flush=True)
    finally:
        LEVEL = saved
    return results


def variants(results: dict) -> dict:
    """Per variant and level: the largest false-switch rate over its cells and the captured share of the available
    gain (sum of values / sum of gains) on halves and three quarters, for trec_eval's baseline and every baseline."""
    out: dict = {}
    for key, r in results.items():
        if not key.startswith("variant "):
            continue
        _, test, level, *_rest = key.split()
        for scope in ("trec_eval", "every") if "base=" not in key else ("every",):
            e = out.setdefault(f"{test} {level} {scope}", {"false": 0.0, "available": 0.0, "0.5": 0.0, "0.75": 0.0,
                                                            "cells": 0})
            e["cells"] += 1
            e["available"] += r["value"]["available"]
            for s_ in ("0.5", "0.75"):
                e[s_] += r["value"][s_]["value"]
            e["false"] = max([e["false"]] + [x["false"] for x in r.get("validity", {}).values()])
    for e in out.values():
        for s_ in ("0.5", "0.75"):
            e[s_] = e[s_] / e["available"] if e["available"] else None
    return out


def run_population(args) -> dict:
    """Nulls that are not exchangeable: on a collection with many topics (Robust 2004's 249), an alternative whose
    whole-collection gain is about 0 (|Δ| < 0.002) differs from the baseline without being more stable, and random
    50-topic subsets of the collection (without replacement; the collection as the population) are samples of that
    null. The rate at which each variant switches to it estimates its level there (the studentised test's
    asymptotic validity, Janssen 1997; Chung & Romano 2013)."""
    results = _read(args.out)
    rng = np.random.default_rng(NULL_SEED)
    for name, k, what in _cells(args):
        X, names = tensor(name, k, what)
        phi = resampled_phi(X, weights=np.ones((1, X.shape[2])))[:, 0]
        for c in range(1, len(names)):
            if abs(phi[c] - phi[0]) >= 0.002:
                continue
            out = {"gain": float(phi[c] - phi[0]), "n": args.nulls, "topics": 50}
            picks = [np.sort(rng.choice(X.shape[2], size=50, replace=False)) for _ in range(args.nulls)]
            for test, decide in (("bootstrap", bootstrap_decision), ("randomisation", randomisation_decision),
                                 ("studentised", decision_only)):
                hits = sum(decide(X[:, :, A], names, level=LEVEL, rng=[NULL_SEED, i]).index == c
                           for i, A in enumerate(picks))
                out[test] = hits / args.nulls
            results[f"population {name} {what}@{k} {names[c]}"] = out
            _write(args.out, results)
            print(f"{name:8} {what:8} @{k:<3} {names[c]:11} gain {out['gain']:+.4f}: switch rate "
                  + ", ".join(f"{t} {out[t]:.3f}" for t in ("bootstrap", "randomisation", "studentised")), flush=True)
    return results


def _cells(args):
    """The cells of a run: each collection x cut-off x {discount, gain} (gain where the collection has grades)."""
    for name in args.collections:
        for k in args.cutoffs:
            for what in args.what:
                if what != "gain" or grades(name) >= 2:
                    yield name, k, what


def run_tier1(args) -> dict:
    """Tier 1 on each cell; with ``--baselines all`` also with each other standard as the user's baseline (a paper
    whose nDCG uses the zipf or linear discount, or exponential gains, asking whether to keep it)."""
    results = _read(args.out)
    for name, k, what in _cells(args):
        X0, names0 = tensor(name, k, what)
        for b in (range(len(names0)) if args.baselines == "all" else (0,)):
            t0 = time.perf_counter()
            order = [b] + [i for i in range(len(names0)) if i != b]
            X, names = X0[order], [names0[i] for i in order]
            r = {"shape": list(X.shape[1:]), "names": names,
                 "validity": validity(X, names, args.nulls), "value": value(X, names, args.subsets),
                 "stability": stability(X, names)}
            r["seconds"] = time.perf_counter() - t0
            results[f"tier1 {name} {what}@{k}" + (f" base={names[0]}" if b else "")] = r
            _write(args.out, results)
            v = r["value"]
            print(f"{name:8} {what:8} @{k:<3} base {names[0]:11} false "
                  + " ".join(f"{n} {x['false']:.3f}" for n, x in r["validity"].items())
                  + f" | value½ {v['0.5']['value']:+.4f} ¾ {v['0.75']['value']:+.4f} avail {v['available']:+.4f} | "
                  f"whole {r['stability']['decision']} {r['stability']['agree']}/5  {r['seconds']:.1f} s", flush=True)
    return results


def captured(results: dict, other_baselines: bool) -> dict:
    """The share of the available gain captured over the cells where a standard gains >= 0.015 on the whole
    collection, by subset size: sum of values / sum of available gains (trec_eval's baseline only, or every
    baseline)."""
    cells = [r for k, r in results.items() if k.startswith("tier1 ") and (other_baselines or "base=" not in k)
             and r["value"]["available"] >= 0.015]
    avail = sum(r["value"]["available"] for r in cells)
    return {"cells": len(cells), "available": avail,
            **{s: (sum(r["value"][s]["value"] for r in cells) / avail if avail else None) for s in ("0.5", "0.75")}}


def halves(X: np.ndarray, names: list[str], n: int = 200, seed: int = SUBSET_SEED) -> dict:
    """The anti-correlation of complementary halves: per alternative, corr(Δ_A, Δ_B) of the Φ(1) gain over the
    baseline on ``n`` random halvings (A, B) of the topics, and the mean of Δ_B on the tenth of the halvings with the
    largest Δ_A, against the whole collection's gain."""
    from gtheory.kit.splits import topic_splits

    T = X.shape[2]
    dA, dB = [], []
    for A, B in topic_splits(T, n_splits=n, seed=seed):
        pa = coefficients(X[:, :, A])["phi_1"]
        pb = coefficients(X[:, :, B])["phi_1"]
        dA.append(pa[1:] - pa[0])
        dB.append(pb[1:] - pb[0])
    dA, dB = np.array(dA), np.array(dB)
    whole = coefficients(X)["phi_1"]
    out = {}
    for j, name in enumerate(names[1:]):
        top = np.argsort(dA[:, j])[-max(1, n // 10):]
        out[name] = {"corr": float(np.corrcoef(dA[:, j], dB[:, j])[0, 1]), "whole": float(whole[j + 1] - whole[0]),
                     "mean_A_top": float(dA[top, j].mean()), "mean_B_top": float(dB[top, j].mean()),
                     "mean_sum": float((dA[:, j] + dB[:, j]).mean() / 2)}
    return out


def run_halves(args) -> dict:
    results = _read(args.out)
    for name, k, what in _cells(args):
        X, names = tensor(name, k, what)
        r = halves(X, names)
        results[f"halves {name} {what}@{k}"] = r
        _write(args.out, results)
        print(f"{name:8} {what:8} @{k:<3} " + "  ".join(
            f"{n}: corr {x['corr']:+.2f}, whole {x['whole']:+.4f}, top A {x['mean_A_top']:+.4f} -> B "
            f"{x['mean_B_top']:+.4f}" for n, x in r.items()), flush=True)
    return results


LABELS = {"trec9": "TREC-9 Web", "dl19": "DL 2019 passage", "robust04": "Robust 2004", "dl21": "DL 2021 passage",
          "clef": "CLEF eHealth 2014"}


def _tier1_columns(r: dict) -> str:
    """A tier-1 row's columns from the false-switch rates to the whole collection's decision (both tables)."""
    v = r["value"]
    best = max((n for n in r["names"][1:]), key=lambda n: v["gain"][n])
    cap = " / ".join("-" if v[s]["captured"] is None else f"{v[s]['captured']:.2f}" for s in ("0.5", "0.75"))
    return (", ".join(f"{n} {x['false']:.3f}" for n, x in r["validity"].items())
            + "".join(f" | {v[s]['value']:+.4f} ({v[s]['switches']}/{v[s]['n']}, {v[s]['worse']})" for s in ("0.5", "0.75"))
            + f" | {best} {v['gain'][best]:+.4f} | {cap} | {r['stability']['decision']} {r['stability']['agree']}/5")


def _section(results: dict, prefix: str, header: list[str], row) -> list[str]:
    """A Markdown table of the results whose key starts with ``prefix``, a row each (``row(key, result)`` gives its
    cells); no lines when there are none."""
    rows = [row(k, r) for k, r in results.items() if k.startswith(prefix)]
    if not rows:
        return []
    return ["", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + [
        "| " + " | ".join(str(c) for c in cells) + " |" for cells in rows]


def tables(results: dict) -> str:
    """The docs' tables (Markdown) from the recorded results."""
    out = (["| collection | cell | false-switch rate (per standard) | ½: value (switches, worse) | ¾: value (switches, "
            "worse) | best standard, whole collection | captured ½ / ¾ | all topics, 5 seeds |",
            "|---|---|---|---|---|---|---|---|"] if any(k.startswith("tier1 ") for k in results) else [])
    for key, r in results.items():
        if not key.startswith("tier1 ") or "base=" in key:
            continue
        _, name, cell = key.split()
        S, T = r["shape"]
        st = r["stability"]
        p = "" if st.get("p") is None else f"p {st['p']:.3g}, "
        out.append(f"| {LABELS[name]} ({S}×{T}) | {cell} | {_tier1_columns(r)} ({p}lower end {st['lo']:+.4f}) |")
    c = captured(results, False)
    if c["cells"]:
        out += ["", f"Captured over the {c['cells']} cells with a gain >= 0.015 (trec_eval's baseline): "
                f"{c['0.5']:.2f} on halves, {c['0.75']:.2f} on three quarters."]
    rows = [(k, r) for k, r in results.items() if k.startswith("tier1 ") and "base=" in k]
    if rows:
        out += ["", "| collection | cell | baseline | false-switch rate (per standard) | ½: value (switches, worse) | "
                "¾: value (switches, worse) | best standard, whole collection | captured ½ / ¾ | all topics, 5 seeds |",
                "|---|---|---|---|---|---|---|---|---|"]
        for key, r in rows:
            _, name, cell, base = key.split()
            out.append(f"| {LABELS[name]} | {cell} | {base[5:]} | {_tier1_columns(r)} |")
        c = captured(results, True)
        out += ["", f"Captured over the {c['cells']} cells with a gain >= 0.015 (every baseline): "
                f"{c['0.5']:.2f} on halves, {c['0.75']:.2f} on three quarters."]
    v = variants(results)
    if v:
        out += ["", "| test | one-sided level | cells | largest false-switch rate | captured ½ | captured ¾ |",
                "|---|---|---|---|---|---|"]
        for key in sorted(v, key=lambda k: (k.split()[2], k.split()[0], k.split()[1])):
            test, level, scope = key.split()
            e = v[key]
            false = "(told the winner)" if test == "oracle" else f"{e['false']:.3f}"
            out.append(f"| {test} ({'trec_eval' if scope == 'trec_eval' else 'every'} baseline) | "
                       f"{(1 - float(level)) / 2:g} | {e['cells']} | {false} | {e['0.5']:.2f} | {e['0.75']:.2f} |")
    out += _section(results, "population ", ["collection", "cell", "standard (whole-collection gain)", "50-topic subsets",
                                             "bootstrap alone", "unstudentised randomisation",
                                             "studentised randomisation (the rule)"],
                    lambda k, r: [LABELS[k.split()[1]], k.split()[2], f"{k.split()[3]} ({r['gain']:+.4f})", r["n"],
                                  f"{r['bootstrap']:.3f}", f"{r['randomisation']:.3f}", f"{r['studentised']:.3f}"])
    out += _section(results, "whole-null ", ["collection", "cell", "nulls", "whole rule: false-switch rate",
                                             "tier 1 alone", "any switch", "seeds"],
                    lambda k, r: [LABELS[k.split()[1]], f"{k.split()[2]} ({r['candidate']} ⇄ baseline)", r["n"],
                                  f"{r['false']:.3f}", f"{r['tier1_false']:.3f}", f"{r['any']:.3f}", r["seeds"]])

    def value_row(k: str, r: dict) -> list:
        sw = [t for t, d in zip(r["tiers"], r["decisions"]) if d != "keep"]
        return [LABELS[k.split()[1]], k.split()[2], f"{r['n']} ({r['share']:g})", f"{r['value']:+.4f}",
                f"{min(r['values']):+.4f}", f"{sw.count(1)} / {sw.count(2)}", f"{r['fixed_available']:+.4f}"]

    out += _section(results, "whole-value ", ["collection", "cell", "subsets (share of topics)", "whole rule: mean value",
                                              "smallest", "switches (tier 1 / tier 2)",
                                              "best standard's whole-collection gain"], value_row)
    rows = [(k, r) for k, r in results.items() if k.startswith("whole-stable ")]
    if rows:
        out += ["", "| collection | cell | whole rule on all topics, seeds 0–4 | decision | agree |", "|---|---|---|---|---|"]
        for key, r in rows:
            _, name, cell = key.split()
            out.append(f"| {LABELS[name]} | {cell} | {', '.join(r['decisions'])} | {r['decision']} | {r['agree']}/5 |")
    rows = [(k, r) for k, r in results.items() if k.startswith("halves ")]
    if rows:
        out += ["", "| collection | cell | standard | corr(Δ_A, Δ_B) | whole collection | top tenth of Δ_A | "
                "their Δ_B |", "|---|---|---|---|---|---|---|"]
        for key, r in rows:
            _, name, cell = key.split()
            for n, x in r.items():
                out.append(f"| {LABELS[name]} | {cell} | {n} | {x['corr']:+.2f} | {x['whole']:+.4f} | "
                           f"{x['mean_A_top']:+.4f} | {x['mean_B_top']:+.4f} |")
    return "\n".join(out)


class SwappedModel:
    """A scoring model whose baseline and configuration ``xc`` exchange their per-topic scores on ``swap``: every
    score the rule computes for those two vectors is swapped there; everything else is the real model's."""

    def __init__(self, model, xb: np.ndarray, xc: np.ndarray, swap: np.ndarray) -> None:
        self._m, self._xb, self._xc, self._swap = model, xb, xc, swap

    def __getattr__(self, k):
        return getattr(self._m, k)

    def scores(self, x, topics=None):
        X = self._m.scores(x, topics)
        xs = np.atleast_2d(np.asarray(x, dtype=float))
        ib = np.flatnonzero(np.all(xs == self._xb, axis=1))
        ic = np.flatnonzero(np.all(xs == self._xc, axis=1))
        if not (ib.size or ic.size):
            return X
        t = np.arange(self._m.n_topics) if topics is None else np.asarray(topics)
        sw = self._swap[t]
        Sb, Sc = self._m.scores(self._xb, topics), self._m.scores(self._xc, topics)
        Y = np.array(X, copy=True)
        Y3 = Y[None] if Y.ndim == 2 else Y
        for i in ib:
            Y3[i][:, sw] = Sc[:, sw]
        for i in ic:
            Y3[i][:, sw] = Sb[:, sw]
        return Y


def _rule(model, cands, pool, seed, n_seeds=5):
    """The whole rule (tier 1, then tier 2 against its choice) on topics ``pool``, as :func:`optimize.recommend`."""
    kw = dict(n_splits=10, n_inner=4, objective="phi", min_wins=0.8, min_effect=0.0, min_agreement=0.75, level=LEVEL)
    seeds = nested.seed_list(seed, n_seeds)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(FIXED_STREAM,)))
    fixed = tier_one(model, cands, level=LEVEL, rng=rng, topics=pool)
    ref = fixed_index(cands, fixed)
    dec = nested.decide(model, cands, pool, seeds, reference=ref, allowed=nested.tuned_allowed(cands, ref), **kw)
    return nested.combine(dec, fixed)


def _cands(model, what):
    return _candidates(model, what, "phi", "linear", "log2", LAMBDAS, tuple(FAMILIES[what]), "ridge")


def run_whole_null(args) -> dict:
    results = _read(args.out)
    for name, k, what in _cells(args):
        t0 = time.perf_counter()
        model = RatioModel(load(name), k, what, gain="linear", discount="log2")
        cands = _cands(model, what)
        c = [i for i, x in enumerate(cands) if x.name == ("zipf" if what == "discount" else "exponential")][0]
        xb, xc = cands[0].fit(None)[0], cands[c].fit(None)[0]
        rng = np.random.default_rng([NULL_SEED, k])
        T = model.n_topics
        finals, tier1 = [], []
        with single_threaded_blas():
            for i in range(args.nulls):
                m = SwappedModel(model, xb, xc, rng.random(T) < 0.5)
                dec = _rule(m, cands, np.arange(T), seed=i, n_seeds=args.seeds)
                finals.append(cands[dec.index].name if dec.adopt else "keep")
                tier1.append(dec.fixed.names[dec.fixed.index] if dec.fixed.adopt else "keep")
        r = {"candidate": cands[c].name, "n": args.nulls, "finals": finals, "tier1": tier1,
             "false": sum(f == cands[c].name for f in finals) / args.nulls,
             "tier1_false": sum(f == cands[c].name for f in tier1) / args.nulls,
             "any": sum(f != "keep" for f in finals) / args.nulls, "seeds": args.seeds,
             "seconds": time.perf_counter() - t0}
        results[f"whole-null {name} {what}@{k}"] = r
        _write(args.out, results)
        print(f"{name:8} {what:8} @{k:<3} whole-rule false {r['false']:.3f} (tier 1 {r['tier1_false']:.3f}) "
              f"any {r['any']:.3f} n={args.nulls} {r['seconds']:.0f} s", flush=True)
    return results


def run_whole_value(args) -> dict:
    results = _read(args.out)
    for name, k, what in _cells(args):
        t0 = time.perf_counter()
        model = RatioModel(load(name), k, what, gain="linear", discount="log2")
        cands = _cands(model, what)
        T = model.n_topics
        std = standard_indices(cands)
        phi_all = coefficients(model.scores(np.stack([cands[i].fit(None)[0] for i in std])))["phi_1"]
        vals, picks, tiers = [], [], []
        with single_threaded_blas():
            for i, A in enumerate(subsets(T, args.share, args.subsets)):
                dec = _rule(model, cands, A, seed=i, n_seeds=args.seeds)
                if not dec.adopt:
                    v = 0.0
                elif dec.tier == 1:
                    v = float(phi_all[std.index(dec.index)] - phi_all[0])
                else:  # a tuned vector fitted on A, scored on the topics it did not see
                    B = np.setdiff1d(np.arange(T), A)
                    x = cands[dec.index].fit(A)[0]
                    p = coefficients(model.scores(np.stack([x, cands[0].fit(None)[0]]), B))["phi_1"]
                    v = float(p[0] - p[1])
                vals.append(v)
                picks.append(cands[dec.index].name if dec.adopt else "keep")
                tiers.append(int(dec.tier))
        avail = max(0.0, float((phi_all - phi_all[0]).max()))
        r = {"n": args.subsets, "share": args.share, "values": vals, "decisions": picks, "tiers": tiers,
             "value": float(np.mean(vals)), "fixed_available": avail, "seeds": args.seeds,
             "seconds": time.perf_counter() - t0}
        results[f"whole-value {name} {what}@{k}" + ("" if args.share == 0.5 else f" {args.share:g}")] = r
        _write(args.out, results)
        print(f"{name:8} {what:8} @{k:<3} whole-rule value on subsets of {args.share:g} {r['value']:+.4f} "
              f"(switches {sum(p != 'keep' for p in picks)}/{args.subsets}, min {min(vals):+.4f}) "
              f"fixed available {avail:+.4f}  {r['seconds']:.0f} s", flush=True)
    return results


def run_whole_stable(args) -> dict:
    """The whole rule on all topics with 5 seeds (``seed`` 0–4, each with ``--seeds`` nested seeds, as a user who
    reruns ``recommend`` with another seed): the most common decision and how many of the 5 reach it."""
    results = _read(args.out)
    for name, k, what in _cells(args):
        t0 = time.perf_counter()
        model = RatioModel(load(name), k, what, gain="linear", discount="log2")
        cands = _cands(model, what)
        picks, tiers = [], []
        with single_threaded_blas():
            for seed in range(5):
                dec = _rule(model, cands, np.arange(model.n_topics), seed=seed, n_seeds=args.seeds)
                picks.append(cands[dec.index].name if dec.adopt else "keep")
                tiers.append(int(dec.tier))
        top = max(set(picks), key=picks.count)
        r = {"decisions": picks, "tiers": tiers, "decision": top, "agree": picks.count(top), "seeds": args.seeds,
             "seconds": time.perf_counter() - t0}
        results[f"whole-stable {name} {what}@{k}"] = r
        _write(args.out, results)
        print(f"{name:8} {what:8} @{k:<3} whole rule on all topics, 5 seeds: {picks} -> {top} {r['agree']}/5 "
              f"{r['seconds']:.0f} s", flush=True)
    return results


def _read(out: str) -> dict:
    p = Path(out)
    return json.loads(p.read_text()) if p.exists() else {}


def _write(out: str, results: dict) -> None:
    p = Path(out)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(".tmp")
    tmp.write_text(json.dumps(results, indent=1))
    os.replace(tmp, p)  # atomic: a reader never sees half a file


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=["tier1", "whole-null", "whole-value", "whole-stable", "halves", "randomisation",
                                    "population", "table"])
    p.add_argument("--collections", nargs="+", default=list(COLLECTIONS))
    p.add_argument("--cutoffs", nargs="+", type=int, default=[10, 20, 100])
    p.add_argument("--what", nargs="+", default=["discount", "gain"])
    p.add_argument("--nulls", type=int, default=None, help="constructed nulls per cell (tier1: 200, whole-null: 20)")
    p.add_argument("--subsets", type=int, default=None, help="random subsets per size (tier1: 20, whole-value: 10)")
    p.add_argument("--share", type=float, default=0.5, help="whole-value: the subsets' share of the topics")
    p.add_argument("--seeds", type=int, default=5, help="seeds of the whole rule's tier 2 (recommend's n_seeds)")
    p.add_argument("--baselines", choices=["default", "all"], default="default",
                   help="tier1: trec_eval's nDCG as the baseline, or also each other standard in turn")
    p.add_argument("--levels", nargs="+", type=float, default=[0.95, 0.9],
                   help="randomisation: the levels of the exact test (familywise one-sided alpha = 1 - level)")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "calibrate_recommend.json"))
    p.add_argument("--keep", action="store_true", help="randomisation: keep the variants already in --out")
    args = p.parse_args(argv)
    if args.nulls is None:
        args.nulls = {"tier1": 200, "randomisation": 200, "population": 400}.get(args.mode, 20)
    if args.subsets is None:
        args.subsets = 20 if args.mode in ("tier1", "randomisation") else 10
    if args.mode == "table":  # the docs' tables from the recorded results
        print(tables(_read(args.out)))
        return 0
    with single_threaded_blas():
        {"tier1": run_tier1, "whole-null": run_whole_null, "whole-value": run_whole_value, "whole-stable": run_whole_stable,
         "halves": run_halves, "randomisation": run_randomisation, "population": run_population}[args.mode](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
