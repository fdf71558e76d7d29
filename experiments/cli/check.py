"""``gtheory check``: does a tuned nDCG configuration rank systems sensibly, and is it discriminative?

Compares one configuration — a tuning saved by ``gtheory tune --out tuning.json`` (--tuning), or, without
--tuning, the stability-optimal discount tuned here (linear gains) — with standard nDCG configurations (--against)
on the same runs:

* stability: Φ and Eρ² at the collection's number of topics, topics needed for Φ ≥ 0.95 (G-study);
* agreement of the system rankings (per-system mean nDCG) with the tuned one: Kendall τ, τ_AP (top-weighted,
  symmetric variant b, Yilmaz et al. 2008) and the RMSE of the means;
* discriminative power: share of the pairs of the --top-k best systems whose paired-bootstrap ASL is below 0.05
  (Sakai 2006), and the difference in mean nDCG needed for significance;
* the swap method (Voorhees & Buckley 2002): the smallest difference in mean nDCG over half the topics with a
  swap rate ≤ 5%, and the share of system-pair comparisons that reach it.

--against takes discount names (zipf, linear, log2, jarvelin(b=2), rbp(p=0.8), none; linear gains) or
GAIN+DISCOUNT pairs (exponential+log2, linear+linear, binary+log2).

examples:
  gtheory tune --cutoff 100 --out tuning.json && gtheory check --tuning tuning.json
  gtheory check --cutoff 20 --against log2 exponential+log2 --n-resamples 200 --json
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Callable

import gtheory
import metrics

from ._data import ALPHA_HELP, CUTOFF_HELP, SEED_HELP
from . import UsageError
from ._data import add_data_args, add_quiet_arg, add_resamples_arg, check_shape, drop_missed_topics, load_judged
from ._common import check_option, emit_json, seed_rule
from ._errors import in_option_names
from ._ndcg import NDCG_OPTIONS
from ._tunings import add_allow_failed, refuse_failed

__all__ = ["register", "run"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "check",
        help="rankings (τ, τ_AP), discriminative power and swap rates of a tuned nDCG vs standard ones",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_data_args(p)
    p.add_argument("--tuning", metavar="TUNING.json", default=None,
                   help="a tuning written by 'gtheory tune --out' (default: tune the discount here)")
    add_allow_failed(p)
    p.add_argument("--cutoff", type=int, default=None,
                   help=CUTOFF_HELP)
    p.add_argument("--against", nargs="+", metavar="CONFIG", default=["zipf", "linear", "log2"],
                   help="standard configurations: DISCOUNT (linear gains) or GAIN+DISCOUNT (default zipf linear log2)")
    p.add_argument("--top-k", type=int, default=30, help="best systems kept for the bootstrap (default 30, as Sakai)")
    add_resamples_arg(p, 1000, "bootstrap replicates and swap-method trials (default 1000)")
    p.add_argument("--alpha", type=float, default=0.05, help=ALPHA_HELP)
    p.add_argument("--seed", type=int, default=0, help=SEED_HELP)
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    add_quiet_arg(p)
    return p


#: the Python API's parameter names in messages → the options of this command
_OPTIONS = {"top_k": "--top-k", "n_resamples": "--n-resamples", "alpha": "--alpha", "seed": "--seed", "cutoff": "--cutoff",
            "topic_set_sizes": "the number of topics", "against": "--against"}


def _progress(quiet: bool) -> Callable[[str], None]:
    t0 = time.perf_counter()

    def say(msg: str) -> None:
        if not quiet:
            print(f"[{time.perf_counter() - t0:6.1f} s] {msg}", file=sys.stderr, flush=True)

    return say


def run(args: argparse.Namespace) -> int:
    import numpy as np

    import optimize
    from experiments.check import check_tuning, parse_configuration

    say = _progress(args.quiet)
    # every option is checked before loading and tuning (a minute on TREC-9), not after
    for option, param, value in (("--top-k", "top_k", args.top_k), ("--n-resamples", "n_resamples", args.n_resamples),
                                 ("--cutoff", "cutoff", args.cutoff), ("--alpha", "alpha", args.alpha)):
        check_option(option, param, value)  # the API's rules (gtheory.kit.params)
    check_option("--seed", "seed", args.seed, seed_rule())
    try:
        against = [(spec, *parse_configuration(spec)) for spec in args.against]
    except gtheory.ParameterError as exc:
        raise in_option_names(exc, _OPTIONS) from None
    for spec, g, d in against:  # an unknown family or a bad parameter: refused before loading
        try:
            metrics.gain_vector(g, np.array([0.0, 1.0, 2.0]))
            metrics.discount_vector(d, 10, cutoff=10)
        except (ValueError, TypeError) as exc:
            raise in_option_names(exc, NDCG_OPTIONS, where=f"--against {spec!r}") from None
    tuning = None
    if args.tuning:
        if not Path(args.tuning).is_file():
            raise UsageError(f"no such tuning file: {args.tuning}")
        try:
            tuning = optimize.Tuning.from_json(args.tuning)
        except (ValueError, KeyError, TypeError) as exc:
            raise UsageError(f"{args.tuning} is not a tuning written by 'gtheory tune --out' ({exc})") from None
        refuse_failed(tuning, args.tuning, "--tuning", args.allow_failed)
    judged = drop_missed_topics(load_judged(args), "check", quiet=args.quiet)
    check_shape(judged)
    with warnings.catch_warnings(record=True) as caught:  # printed in the CLI's format, after the work
        warnings.simplefilter("always", optimize.GradeMismatchWarning)
        warnings.simplefilter("always", optimize.FailedTuningWarning)
        try:
            result = check_tuning(judged, tuning, args.against, cutoff=args.cutoff, top_k=args.top_k,
                                  n_resamples=args.n_resamples, alpha=args.alpha, seed=args.seed, progress=say)
        except gtheory.ParameterError as exc:
            raise in_option_names(exc, {**_OPTIONS, "tuning": f"--tuning {args.tuning}"}) from None
    for w in caught:
        print(f"gtheory check: warning: {w.message}", file=sys.stderr)
    if args.json:
        emit_json(result.to_dict())
    else:
        print(result.summary())
    return 0
