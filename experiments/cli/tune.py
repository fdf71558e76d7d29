"""``gtheory tune``: stability-optimal nDCG gain and/or discount (Kanoulas & Aslam 2009).

Example::

    gtheory tune --what discount --cutoff 100 --gain linear --out tuning.json
    gtheory tune --what discount --cutoff 10 --gain 0 1 3
"""
from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any

from ._data import CUTOFF_HELP, SEED_HELP
from . import EXIT_FAILURE, UsageError
from ._data import add_data_args, add_quiet_arg, check_shape, drop_missed_topics, load_judged
from ._common import check_option, emit_json, seed_rule
from ._outputs import check_output_path, output_text
from ._errors import in_option_names
from ._ndcg import NDCG_OPTIONS, parse_discount, parse_gain
from ._tunings import add_allow_failed

__all__ = ["register", "run"]

_EPILOG = """\
Without --runs/--qrels (or --judged) the embedded TREC-9 Web runs (104 systems x 50 topics) are used.
The tuned vectors are normalised to sum 1 (nDCG is scale-free in each) and written to --out as
JSON (optimize.Tuning.from_json reads it back). The optimum does not depend on the number of
topics: Φ(n) is increasing in σ²s/(σ²t+σ²st) for every n. A tuned vector is fitted to the topics
that measure it, so its Φ is optimistic: 'gtheory recommend' says whether tuning pays off on
held-out topics (nested cross-validation) and which configuration to adopt.
Exit codes: 0 success; 1 the optimiser did not converge and --strict was given; 2 bad input.
"""


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "tune",
        help="stability-optimal nDCG gain/discount (maximise Φ or Eρ²)",
        description="Tune the nDCG gain and/or discount vector for stability (Φ or Eρ²) on judged runs.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_data_args(p)
    p.add_argument("--what", choices=["discount", "gain", "joint"], default="discount", help="what to tune")
    p.add_argument("--cutoff", type=int, default=100, help=CUTOFF_HELP)
    p.add_argument("--gain", nargs="+", default=["linear"], metavar="GAIN",
                   help="fixed gain when tuning the discount: a family (linear, exponential, binary; default "
                        "linear) or numbers per grade (--gain 0 1 3), as 'gtheory evaluate'")
    p.add_argument("--discount", default="log2", help="fixed discount when tuning the gain (default log2)")
    add_allow_failed(p)
    p.add_argument("--objective", choices=["phi", "erho2"], default="phi", help="the coefficient the tuning maximises (default phi)")
    p.add_argument("--unconstrained", action="store_true",
                   help="drop the monotonicity constraints (keep non-negativity)")
    p.add_argument("--solver", choices=["auto", "slsqp", "lbfgsb", "cvxpy"], default="auto",
                   help="auto: SLSQP up to 200 variables, L-BFGS-B above")
    p.add_argument("--starts", type=int, default=4, help="number of starting points (default 4)")
    p.add_argument("--seed", type=int, default=0, help=SEED_HELP)
    p.add_argument("--strict", action="store_true", help="exit 1 if the optimiser does not converge")
    p.add_argument("--out", metavar="TUNING.json", default=None, help="write the tuning as JSON ('-': standard output)")
    p.add_argument("--json", action="store_true", help="print the tuning as JSON instead of a summary")
    add_quiet_arg(p)
    return p


def run(args: argparse.Namespace) -> int:
    import optimize

    for option, param, value in (("--cutoff", "cutoff", args.cutoff), ("--starts", "starts", args.starts)):
        check_option(option, param, value)  # the API's rules (gtheory.kit.params)
    check_option("--seed", "seed", args.seed, seed_rule())
    gain = parse_gain(args.gain)
    parse_discount(args.discount, allow_failed=args.allow_failed)  # a bad family is refused before loading
    if args.out:
        check_output_path(args.out, "--out", args=args, quiet=args.quiet)  # fail before minutes of tuning
    judged = drop_missed_topics(load_judged(args), "tune", quiet=args.quiet)
    check_shape(judged)
    if args.cutoff > judged.depth:
        raise UsageError(f"--cutoff {args.cutoff} exceeds the run depth {judged.depth}; give --cutoff {judged.depth} "
                         "or less.")
    common = dict(objective=args.objective, solver=args.solver, starts=args.starts, seed=args.seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", optimize.OptimizationWarning)
        try:
            t = _tune(optimize, args, judged, gain, common)
        except (ValueError, TypeError) as exc:
            raise in_option_names(exc, _OPTIONS) from None
    for w in caught:
        print(f"gtheory tune: warning: {w.message}", file=sys.stderr)
    if args.out:
        output_text(args.out, t.to_json())  # a file: atomic; a device, FIFO or `-`: written through
    if args.json:
        emit_json(t.to_dict())
    else:
        print(t.summary())
        if not args.quiet:
            print(_CAVEAT, file=sys.stderr)
    if args.out and not args.quiet:  # a note, with --json as without: the file is the result
        print(f"written to {args.out}", file=sys.stderr)
    if args.strict and not t.success:
        print(f"gtheory tune: the optimiser did not converge: {t.message}", file=sys.stderr)
        return EXIT_FAILURE
    return 0


#: printed after the in-sample summary: the tuned Φ is measured on the topics it was fitted to
_CAVEAT = ("gtheory tune: note: these coefficients are in-sample (tuned and measured on the same topics) and "
           "flatter the tuned vector; run 'gtheory recommend' with the same options for the out-of-sample verdict.")


#: the Python API's parameter names in messages → the options of this command
_OPTIONS = {**NDCG_OPTIONS, "cutoff": "--cutoff", "objective": "--objective", "solver": "--solver",
            "starts": "--starts", "seed": "--seed", "monotone": "--unconstrained", "monotone_gain": "--unconstrained",
            "monotone_discount": "--unconstrained", "judged": "the data"}


def _tune(optimize: Any, args: argparse.Namespace, judged: Any, gain: Any, common: dict[str, Any]) -> Any:
    if args.what == "discount":
        return optimize.optimize_discount(judged, gain=gain, cutoff=args.cutoff, monotone=not args.unconstrained, **common)
    if args.what == "gain":
        return optimize.optimize_gain(judged, discount=args.discount, cutoff=args.cutoff, monotone=not args.unconstrained, **common)
    return optimize.optimize_joint(judged, cutoff=args.cutoff, monotone_gain=not args.unconstrained,
                                   monotone_discount=not args.unconstrained, **common)
