"""How many topics do I need?  G-study of a metric, D-study table, topics needed with an interval, a plot.

    python examples/topics_needed.py                                   # nDCG@20 on the embedded TREC-9 data
    python examples/topics_needed.py --scores web2010_ap.csv           # any systems x topics score matrix (CSV)
    python examples/topics_needed.py --measure AP --target 0.9 --plot dstudy.png

Generalizability theory (Brennan 2001; Bodoff & Li 2007; Kanoulas & Aslam 2009): the systems x topics score
matrix is split into system, topic and residual variance; Φ(n) — how dependable absolute scores are with n
topics — and Eρ²(n) — how dependable the system ranking is — follow for any n, and so does the smallest n that
reaches a target, with a confidence interval (Arteaga et al. 1982 for Φ; Feldt 1965 for Eρ²).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import gtheory
import metrics


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scores", default=None, help="CSV score matrix (gtheory.read_scores layouts) instead of TREC-9")
    p.add_argument("--measure", default="nDCG@20", help="measure on the embedded TREC-9 data (default nDCG@20)")
    p.add_argument("--target", type=float, default=0.95, help="target Φ / Eρ² (default 0.95)")
    p.add_argument("--plot", default=None, help="save the D-study plot here (PNG)")
    p.add_argument("--quick", action="store_true", help="accepted for CI (the script is fast anyway)")
    args = p.parse_args(argv)

    if args.scores:
        scores = gtheory.read_scores(args.scores)
        what = Path(args.scores).name
    else:
        scores = metrics.evaluate(metrics.load_trec9(), args.measure)
        what = f"{args.measure} on TREC-9 Web"
    g = gtheory.gstudy(scores)
    print(f"G-study of {what}: {g.n_systems} systems x {g.n_topics} topics")
    print(g.components.to_string(float_format=lambda v: f"{v:.6f}"))

    print("\nD-study (95% intervals):")
    print(g.dstudy([10, 25, 50, 100, 200]).to_string(float_format=lambda v: f"{v:.4f}"))

    for coefficient in ("phi", "erho2"):
        print(g.topics_needed(args.target, coefficient))

    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        ax = gtheory.plot_dstudy(g, target=args.target, title=what)
        ax.figure.savefig(args.plot, dpi=120, bbox_inches="tight")
        print(f"wrote the D-study plot to {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
