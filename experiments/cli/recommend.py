"""``gtheory recommend``: should I tune? The configuration to adopt, judged on held-out topics.

Example::

    gtheory recommend --what discount --cutoff 10
    gtheory recommend --runs runs/ --qrels qrels.txt --what gain --cutoff 20 --out rec.json
    gtheory evaluate --runs runs/ --qrels qrels.txt --tuning rec.json
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ._data import CUTOFF_HELP, SEED_HELP, TARGET_HELP
from . import UsageError
from ._data import add_data_args, add_quiet_arg, check_shape, drop_missed_topics, load_judged, progress_option
from ._common import check_least, check_option, emit_json, seed_rule
from ._outputs import check_output_path, output_text
from ._errors import in_option_names
from ._ndcg import NDCG_OPTIONS, parse_discount, parse_gain

__all__ = ["register", "run"]

_EPILOG = """\
Keep your nDCG (--baseline, default trec_eval's: linear gains, log2 discount) or switch? Nested cross-validation
over topics (Varma & Simon 2006; Cawley & Talbot 2010): each of --splits random halvings fits the alternatives
(other standard configurations, one- and two-parameter families, regularised vectors) on one half and scores
every one by Φ(1) on the other half; inside each fitting half, --inner halvings choose one. A seed switches only
if the procedure's held-out gain over the baseline has a positive 95 % lower bound (Nadeau & Bengio's corrected
interval) and its choice wins at least --min-wins (80 %) of the held-out halves; the whole procedure is rerun with
--seeds seeds and switches only when --min-agreement (75 %) of them make the same switch. "keep" is the baseline,
bit for bit. --out writes a JSON that 'gtheory evaluate --tuning' reads.
Without --runs/--qrels (or --judged) the embedded TREC-9 Web runs (104 systems x 50 topics) are used.
"""


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "recommend",
        help="should I tune? the nDCG discount/gain to adopt, judged on held-out topics",
        description="Recommend an nDCG discount or gain: standard, a tuned family or a regularised tuned vector, "
                    "by nested cross-validation over topics.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_data_args(p)
    p.add_argument("--what", choices=["discount", "gain", "joint"], default="discount", help="what to recommend")
    p.add_argument("--cutoff", type=int, default=100, help=CUTOFF_HELP)
    p.add_argument("--gain", nargs="+", default=["linear"], metavar="GAIN",
                   help="fixed gain for --what discount (family or numbers per grade; default linear)")
    p.add_argument("--discount", default="log2", help="fixed discount for --what gain (default log2)")
    p.add_argument("--baseline", default=None, metavar="MEASURE",
                   help="the nDCG you would use without this tool, e.g. nDCG@10 or 'nDCG(discount=zipf)@10' "
                        "(default: --gain and --discount, i.e. trec_eval's nDCG)")
    p.add_argument("--objective", choices=["phi", "erho2"], default="phi", help="the coefficient the tuning maximises (default phi)")
    p.add_argument("--target", type=float, default=0.95, help=TARGET_HELP)
    p.add_argument("--splits", type=int, default=10, help="outer topic halvings (default 10)")
    p.add_argument("--inner", type=int, default=4, help="inner topic halvings choosing a candidate (default 4)")
    p.add_argument("--seed", type=int, default=0, help=SEED_HELP)
    p.add_argument("--seeds", type=int, default=5, help="reseedings of the whole procedure (default 5)")
    p.add_argument("--min-agreement", type=float, default=0.75,
                   help="share of the seeds that must make the same switch (default 0.75)")
    p.add_argument("--families", nargs="+", metavar="FAMILY", default=None,
                   help="the tuned families (default all of --what's: discount jarvelin, rbp, power, log_offset, ...)")
    p.add_argument("--lambdas", nargs="+", type=float, metavar="L", default=None,
                   help="penalty strengths of the regularised full vectors (default 1 0.1 0; 0 = unregularised)")
    p.add_argument("--penalty", choices=["ridge", "smooth"], default="ridge",
                   help="penalty of the regularised vectors (default ridge)")
    p.add_argument("--min-wins", type=float, default=0.8,
                   help="share of held-out halves an alternative must win against the baseline (default 0.8)")
    p.add_argument("--out", metavar="REC.json", default=None, help="write the recommendation as JSON ('-': standard output)")
    p.add_argument("--json", action="store_true", help="print the recommendation as JSON instead of a summary")
    add_quiet_arg(p)
    return p


#: the Python API's parameter names in messages → the options of this command
_OPTIONS = {**NDCG_OPTIONS, "cutoff": "--cutoff", "objective": "--objective", "target": "--target",
            "n_splits": "--splits", "n_inner": "--inner", "seed": "--seed", "judged": "the data",
            "families": "--families", "lambdas": "--lambdas", "penalty": "--penalty", "min_wins": "--min-wins",
            "baseline": "--baseline", "n_seeds": "--seeds", "min_agreement": "--min-agreement"}


def _inputs(args: argparse.Namespace) -> list[Path]:
    files = [Path(f) for f in (args.runs or [])]
    files += [Path(f) for f in (args.qrels, args.judged) if f]
    return files


def run(args: argparse.Namespace) -> int:
    import optimize

    from gtheory.kit.params import param_rules
    from optimize.recommend import LAMBDAS, recommend as api

    rules = param_rules(api)  # the API's rules (gtheory.kit.params), its own n_splits >= 2 included
    check_option("--target", "target", args.target, rules["target"])
    check_option("--splits", "n_splits", args.splits, rules["n_splits"])
    check_option("--seed", "seed", args.seed, seed_rule())
    for option, value, least in (("--cutoff", args.cutoff, 1), ("--inner", args.inner, 2), ("--seeds", args.seeds, 1)):
        check_least(option, value, least)
    gain = parse_gain(args.gain)
    discount = parse_discount(args.discount)
    if args.out:
        out = check_output_path(args.out, "--out", quiet=args.quiet)
        from gtheory.kit.output_checks import same_file

        for f in _inputs(args):
            if same_file(f, out):
                raise UsageError(f"--out {args.out} is an input file; give another file name.")
    judged = drop_missed_topics(load_judged(args), "recommend", quiet=args.quiet)
    check_shape(judged)
    if args.cutoff > judged.depth:
        raise UsageError(f"--cutoff {args.cutoff} exceeds the run depth {judged.depth}; give --cutoff {judged.depth} "
                         "or less.")
    try:
        rec = optimize.recommend(judged, cutoff=args.cutoff, what=args.what, gain=gain, discount=discount,
                                 objective=args.objective, target=args.target, seed=args.seed,
                                 n_splits=args.splits, n_inner=args.inner, progress=False if args.json else progress_option(args),
                                 families=tuple(args.families) if args.families else None,
                                 lambdas=tuple(args.lambdas) if args.lambdas is not None else LAMBDAS,
                                 penalty=args.penalty, min_wins=args.min_wins, baseline=args.baseline,
                                 n_seeds=args.seeds, min_agreement=args.min_agreement)
    except (ValueError, TypeError) as exc:
        raise in_option_names(exc, _OPTIONS) from None
    if args.out:
        output_text(args.out, rec.to_json())  # a file: atomic; a device, FIFO or `-`: written through
    if args.json:
        emit_json(rec.to_dict())
    else:
        print(rec.summary())
    if args.out and not args.quiet:  # a note, with --json as without: the file is the result
        print(f"written to {args.out} (gtheory evaluate --tuning {args.out} applies it)", file=sys.stderr)
    return 0
