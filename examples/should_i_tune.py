"""Should I tune? The table of docs/should-i-tune.md: ``optimize.recommend`` on several collections.

For each collection, nDCG cut-off (10, 20, 100) and what is tuned (discount, gains), the nested
cross-validation over topics of :func:`optimize.recommend` (10 outer x 4 inner random halvings, seed 0)
compares the standard configurations, the tuned one- and two-parameter families and the regularised
tuned vectors on held-out topics, and gives a verdict. It prints a Markdown table.

    python examples/should_i_tune.py                 # TREC-9 (embedded) + DL 2019 + Robust 2004 if --data has them
    python examples/should_i_tune.py --quick         # CI: embedded TREC-9 only, cut-offs 10 and 20, 4 splits
    python examples/should_i_tune.py --data DIR      # DIR holding trec-dl-2019-passage/, trec-robust2004-subset/

Data: the TREC-9 Web runs are embedded in the package; DL 2019 (all 37 passage runs, 43 topics) and
Robust 2004 (10 submitted runs + 7 later baselines, 249 topics) are read from --data when present.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import metrics
import optimize

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def collections(data: Path, quick: bool) -> dict[str, metrics.JudgedRuns]:
    out = {"TREC-9 Web (104 runs)": metrics.load_trec9()}
    if quick:
        return out
    dl = data / "trec-dl-2019-passage"
    if dl.is_dir():
        out["DL 2019 passage (37 runs)"] = metrics.judge(dl / "runs_judged_full_xz", dl / "qrels.dl19-passage.txt")
    rb = data / "trec-robust2004-subset"
    if rb.is_dir():
        runs = sorted(p for d in ("historical_submitted", "new_2018_baselines")
                      for p in (rb / "runs_full_xz" / d).iterdir() if not p.name.startswith("."))
        j = metrics.judge(runs, rb / "qrels.robust2004.txt")
        judged_topics = [t for t, n in zip(j.topics, j.level_counts.sum(axis=1)) if n > 0]
        out[f"Robust 2004 ({j.n_systems} runs)"] = j.subset(topics=judged_topics)  # topic 672 has no judgments
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="directory of the shared collections")
    ap.add_argument("--quick", action="store_true", help="embedded TREC-9 only, cut-offs 10 and 20, 4 splits")
    args = ap.parse_args()
    cutoffs = (10, 20) if args.quick else (10, 20, 100)
    splits = 4 if args.quick else 10
    t0 = time.perf_counter()
    print("| collection | what | k | alternative considered | procedure's held-out Δ Φ(1) [95 % CI] | Φ(n) baseline → "
          "switch | splits won | seeds agree | decision |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, judged in collections(args.data, args.quick).items():
        for what in ("discount", "gain"):
            for k in cutoffs:
                rec = optimize.recommend(judged, cutoff=k, what=what, n_splits=splits, seed=0, progress=False)
                short = f"**switch to {rec.measure or rec.label}**" if rec.adopt else "keep"
                print(f"| {name} | {what} | {k} | {rec.alternative_label} | {rec.diff:+.4f} [{rec.diff_lo:+.4f}, "
                      f"{rec.diff_hi:+.4f}] | {rec.phi_n_baseline:.3f} → {rec.phi_n_adopted:.3f} | "
                      f"{rec.splits_won}/{rec.n_outer} | {rec.agreement}/{rec.n_seeds} | {short} |", flush=True)
    print(f"\n({splits} outer x 4 inner random topic halvings x 5 seeds from seed 0; baseline trec_eval's nDCG; "
          f"{time.perf_counter() - t0:.0f} s)")

if __name__ == "__main__":
    main()
