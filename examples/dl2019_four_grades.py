"""Stability-optimal gains with four relevance grades: TREC 2019 Deep Learning, passage task.

Kanoulas & Aslam (CIKM 2009, §3.2) found that with three grades the stability-optimal gain of a
highly relevant document is only 1.1-2x that of a relevant one, and left collections with more
than three grades as future work. DL 2019 passage judgments have four (0 irrelevant, 1 related,
2 highly relevant, 3 perfectly relevant). This script runs the gain part of the study on them:

1. gain ratios gain(g)/gain(1) for g = 2, 3, constrained (non-decreasing in grade) and
   unconstrained, with the log discount, at several cut-offs (the paper's Table 2);
2. Φ, Eρ² and topics needed for Φ ≥ 0.95 with linear (g), exponential (2^g - 1) and optimal
   gains (Table 3), and the same for binary gains with relevance at grade ≥ 1 and ≥ 2;
3. an out-of-sample check: tune on a random half of the topics, measure Φ on the other half
   (:func:`optimize.cross_validate`).

It prints Markdown; docs/dl2019-four-grades.md was written from its full run.

    python examples/dl2019_four_grades.py            # full run (a few minutes)
    python examples/dl2019_four_grades.py --quick    # CI: 3 cut-offs, 4 splits (< 60 s)

Data: ../shared/data/trec-dl-2019-passage beside the repository (or --data DIR), 37 runs x 43 topics.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import gtheory
import metrics
import optimize

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "trec-dl-2019-passage"


def load(data: Path, depth: int) -> metrics.JudgedRuns:
    """Judge every DL 2019 passage run (depth ``depth``) against the official qrels."""
    return metrics.judge(data / "runs_judged_full_xz", data / "qrels.dl19-passage.txt", depth=depth)


def stats(X: pd.DataFrame, target: float = 0.95) -> dict[str, float]:
    """Φ, Eρ² at the data's topics and topics needed for Φ ≥ target."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
        g = gtheory.gstudy(X)
    return {"phi": float(g.phi()), "erho2": float(g.erho2()),
            "topics_needed": g.topics_needed(target, "phi", level=None).n}


def gain_ratios(judged: metrics.JudgedRuns, cutoffs: list[int], starts: int, seed: int) -> pd.DataFrame:
    """Table 2 with four grades: optimal gain(g)/gain(1), constrained and unconstrained (log discount)."""
    rows = []
    for k in cutoffs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            c = optimize.optimize_gain(judged, discount="log2", cutoff=k, starts=starts, seed=seed)
            u = optimize.optimize_gain(judged, discount="log2", cutoff=k, monotone=False, starts=starts, seed=seed)
        row = {"cutoff": k}
        for name, t in (("constrained", c), ("unconstrained", u)):
            r = t.gain_ratios
            row[f"{name} 2/1"] = r[2.0]
            row[f"{name} 3/1"] = r[3.0]
            row[f"{name} Φ"] = t.phi()
            row[f"{name} converged"] = t.success
        rows.append(row)
    return pd.DataFrame(rows).set_index("cutoff")


def gain_table(judged: metrics.JudgedRuns, cutoffs: list[int], starts: int, seed: int) -> pd.DataFrame:
    """Table 3 with four grades: stability of nDCG@k (log discount) per gain."""
    rows = []
    for k in cutoffs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = optimize.optimize_gain(judged, discount="log2", cutoff=k, starts=starts, seed=seed)
        gains = {"linear (0,1,2,3)": "linear", "exponential (0,1,3,7)": "exponential",
                 "binary, rel ≥ 1": [0, 1, 1, 1], "binary, rel ≥ 2": [0, 0, 1, 1],
                 "optimal (constrained)": t.gain_mapping}
        for name, g in gains.items():
            rows.append({"cutoff": k, "gain": name,
                         **stats(metrics.ndcg(judged, gain=g, discount="log2", cutoff=k))})
    return pd.DataFrame(rows).set_index(["cutoff", "gain"])


def out_of_sample(judged: metrics.JudgedRuns, cutoff: int, n_splits: int, starts: int, seed: int) -> pd.DataFrame:
    """Held-out Φ of gains tuned on half the topics vs linear / exponential gains."""
    cv = optimize.cross_validate(judged, what="gain", cutoff=cutoff, discount="log2", n_splits=n_splits,
                                 starts=starts, seed=seed)
    test = cv[cv.part == "test"].pivot(index="split", columns="config", values="phi")
    train = cv[cv.part == "train"].pivot(index="split", columns="config", values="phi")
    out = pd.DataFrame({"Φ tuning half": train.mean(), "Φ held-out half": test.mean()})
    out["tuned beats it (held-out splits)"] = [(test["tuned"] > test[c]).mean() if c != "tuned" else np.nan
                                               for c in out.index]
    out.attrs["n_test_topics"] = int(cv[cv.part == "test"].n_topics.iloc[0])
    return out


def grade_profile(judged: metrics.JudgedRuns, cutoff: int) -> pd.DataFrame:
    """Share of retrieved documents at each grade in the top ``cutoff`` (the paper's Fig. 5, all ranks pooled)."""
    g = judged.grades[:, :, :cutoff]
    out = {}
    for code, level in enumerate(judged.levels):
        out[f"grade {level:g}"] = float(np.mean(g == code))
    return pd.DataFrame(out, index=[f"top {cutoff}"])


def md(frame: pd.DataFrame, digits: int = 3) -> str:
    """A small Markdown table (no extra dependency)."""
    f = frame.reset_index()
    head = "| " + " | ".join(map(str, f.columns)) + " |\n|" + "---|" * len(f.columns) + "\n"

    def cell(v):
        if isinstance(v, (bool, np.bool_)):
            return "yes" if v else "no"
        if isinstance(v, (float, np.floating)):
            if np.isnan(v):
                return "–"
            if np.isinf(v):
                return "∞"
            return f"{v:.{digits}f}"
        return str(v)

    return head + "\n".join("| " + " | ".join(cell(v) for v in row) + " |" for row in f.itertuples(index=False))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the trec-dl-2019-passage folder")
    ap.add_argument("--quick", action="store_true", help="3 cut-offs, 4 splits, 2 starts (CI)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None, help="also write the numbers as JSON")
    args = ap.parse_args(argv)
    if not (args.data / "qrels.dl19-passage.txt").exists():
        print(f"dl2019_four_grades: error: no DL 2019 data in {args.data} (use --data)", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    cutoffs = [10, 20, 100] if args.quick else [5, 10, 20, 50, 100, 200]
    table_ks = [10, 100] if args.quick else [10, 20, 100]
    n_splits, starts = (4, 2) if args.quick else (20, 4)
    judged = load(args.data, depth=max(cutoffs))
    print(f"# TREC DL 2019 passage: {judged.n_systems} runs x {judged.n_topics} topics, grades "
          f"{', '.join(f'{g:g}' for g in judged.levels)}  ({'quick' if args.quick else 'full'} run, seed {args.seed})\n")
    print("## Grade profile (share of retrieved documents)\n")
    print(md(pd.concat([grade_profile(judged, k) for k in (10, 100)])))
    print("\n## Optimal gain ratios, log discount (Table 2 with four grades)\n")
    ratios = gain_ratios(judged, cutoffs, starts, args.seed)
    print(md(ratios, 2))
    print("\nlinear gains: 2/1 = 2, 3/1 = 3; exponential gains: 2/1 = 3, 3/1 = 7\n")
    print("## Stability by gain, log discount (Table 3 with four grades)\n")
    gt = gain_table(judged, table_ks, starts, args.seed)
    print(md(gt))
    oos_all = {}
    for k_cv in ([10] if args.quick else [10, 100]):
        print(f"\n## Out of sample: gains tuned on half the topics, nDCG@{k_cv}, {n_splits} splits\n")
        oos = oos_all[k_cv] = out_of_sample(judged, k_cv, n_splits, starts, args.seed)
        print(md(oos))
        print(f"\n(held-out halves of {oos.attrs['n_test_topics']} topics)")
    print(f"\ndone in {time.perf_counter() - t0:.0f} s")
    if args.json:
        args.json.write_text(json.dumps({
            "ratios": json.loads(ratios.reset_index().to_json(orient="records")),
            "gain_table": json.loads(gt.reset_index().to_json(orient="records")),
            "out_of_sample": {str(k): json.loads(o.reset_index().to_json(orient="records"))
                              for k, o in oos_all.items()},
        }, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
