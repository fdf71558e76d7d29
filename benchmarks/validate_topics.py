"""Validation of the topic projections: project from half of a collection's topics, compare with the whole collection.

Run:  python benchmarks/validate_topics.py  [--quick] [--repeats 50] [--out benchmarks/results/validate_topics.txt]

For each collection of N topics, a random half H (N/2 topics, seed 0) plays the pilot. From H alone, three
projections of what two disjoint topic sets of N/2 topics each will show:

* ``Urbano τ`` — Urbano et al.'s fit of the Eρ²(N/2) that H's G-study projects (gtheory.gt2tau);
* ``data τ`` — the power-law extrapolation to N/2 of the τ curve measured on H (gtheory.topic_curves, sizes up to N/4);
* ``Urbano power`` — Urbano et al.'s fit of the share of significant pairs (gtheory.gt2power).

The truth, from the whole collection: τ and the share of significant pairs between two disjoint random halves
(gtheory.topic_curves of the whole matrix at n = N/2, ``--repeats`` pairs of halves). Also the paired t-test row:
the achieved power for Δ = 0.05 at N/2 topics projected from H's variance (topic set size design), beside the share
of the system pairs whose whole-collection difference is in [0.05, 0.06) that a random half finds significant.
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import DATA, finish, header, parser  # noqa: E402

import gtheory  # noqa: E402

MATRICES = DATA / "score-matrices" / "sigir2018-simulation"
NAMES = ["robust2004_ap", "robust2004_p10", "web2010_ndcg20", "web2011_ndcg20", "web2012_ndcg20", "web2013_ndcg20",
         "web2014_ndcg20"]


def collections(quick: bool) -> list[tuple[str, np.ndarray]]:
    out = []
    for name in NAMES[:2] if quick else NAMES:
        f = MATRICES / f"{name}.csv"
        if f.exists():
            out.append((name, gtheory.read_scores(f, orientation="topics-by-systems").to_numpy()))
    try:
        import metrics

        out.append(("trec9_ndcg10", metrics.evaluate(metrics.load_trec9(), "nDCG@10").to_numpy()))
    except Exception as exc:  # pragma: no cover
        print(f"skipping TREC-9: {exc}", file=sys.stderr)
    return out


def detected_share(x: np.ndarray, halves: int, seed: int, d: float = 0.05, band: float = 0.01) -> float:
    """Among system pairs whose whole-collection mean difference is in [d, d + band), the share a paired t-test
    (alpha .05) on a random half of the topics finds significant (mean over ``halves`` random halves)."""
    from scipy import stats

    m, N = x.shape
    i, j = np.triu_indices(m, 1)
    diffs = x[i] - x[j]
    gap = np.abs(diffs.mean(axis=1))
    big = (gap >= d) & (gap < d + band)
    if not big.any():
        return float("nan")
    rng = np.random.default_rng(seed)
    shares = []
    for _ in range(halves):
        idx = rng.permutation(N)[: N // 2]
        p = stats.ttest_1samp(diffs[big][:, idx], 0.0, axis=1).pvalue
        shares.append(np.mean(p < 0.05))
    return float(np.mean(shares))


def main(argv: list[str] | None = None) -> int:
    ap = parser(__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=50, help="pairs of topic sets per size (default 50)")
    args = ap.parse_args(argv)
    if args.quick:
        args.repeats = min(args.repeats, 10)
    lines = header("Topic projections from half a collection vs the whole (benchmarks/validate_topics.py)", args)
    lines[2] = f"no timing: a validation table; {args.repeats} pairs of topic sets per size; seeds fixed (0-3)"
    cols = ["collection", "N", "τ(N/2) observed", "Urbano τ", "data τ", "signif. observed", "Urbano power",
            "power Δ=.05 proj.", "detected Δ∈[.05,.06)"]
    lines.append("| " + " | ".join(cols) + " |")
    lines.append("|" + "---|" * len(cols))
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, x in collections(args.quick):
            m, N = x.shape
            half_n = N // 2
            truth = gtheory.topic_curves(x, sizes=[half_n], repeats=args.repeats, seed=1).table.iloc[0]
            H = x[:, rng.permutation(N)[:half_n]]
            e = float(gtheory.gstudy(H).erho2(half_n))
            curve = gtheory.topic_curves(H, repeats=args.repeats, seed=2)
            proj_power = gtheory.topic_set_size(H, method="paired-t", min_diff=0.05).achieved  # at H's N/2 topics
            row = [name, N, truth["tau"], gtheory.gt2tau(e), curve.extrapolate(half_n), truth["significant"],
                   gtheory.gt2power(e), proj_power, detected_share(x, args.repeats, seed=3)]
            lines.append("| " + " | ".join(c if isinstance(c, str) else f"{c:.3g}" for c in row) + " |")
            print(lines[-1], file=sys.stderr)
    lines += ["", "τ(N/2) observed, signif. observed: two disjoint random halves of the whole collection "
              f"({args.repeats} pairs); projections from one random half (seed 0) only."]
    finish("validate_topics", lines, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
