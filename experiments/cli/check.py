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
  gtheory check --cutoff 20 --against log2 exponential+log2 --B 200 --json
"""
from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

import gtheory
import metrics

from . import UsageError
from ._common import add_data_args, check_shape, drop_missed_topics, emit_json, in_option_names, load_judged
from .evaluate import NDCG_OPTIONS, add_allow_failed, refuse_failed

__all__ = ["register", "run", "check_configurations"]


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
                   help="nDCG cut-off (default: the tuning's, else 100)")
    p.add_argument("--against", nargs="+", metavar="CONFIG", default=["zipf", "linear", "log2"],
                   help="standard configurations: DISCOUNT (linear gains) or GAIN+DISCOUNT (default zipf linear log2)")
    p.add_argument("--top-k", type=int, default=30, help="best systems kept for the bootstrap (default 30, as Sakai)")
    p.add_argument("--B", type=int, default=1000, help="bootstrap replicates and swap-method trials (default 1000)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and the topic subsets (default 0)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress messages on stderr")
    return p


#: the Python API's parameter names in messages → the options of this command
_OPTIONS = {"top_k": "--top-k", "B": "--B", "alpha": "--alpha", "seed": "--seed", "cutoff": "--cutoff",
            "topic_set_sizes": "the number of topics"}


def _parse_config(spec: str) -> tuple[str, str]:
    """``"log2"`` → ("linear", "log2"); ``"exponential+log2"`` → ("exponential", "log2")."""
    if not spec or spec.count("+") > 1:
        raise UsageError(f"--against entries are DISCOUNT or GAIN+DISCOUNT (e.g. log2, exponential+log2); got {spec!r}")
    if "+" in spec:
        g, d = spec.split("+")
        return g.strip(), d.strip()
    return "linear", spec.strip()


def _progress(quiet: bool) -> Callable[[str], None]:
    t0 = time.perf_counter()

    def say(msg: str) -> None:
        if not quiet:
            print(f"[{time.perf_counter() - t0:6.1f} s] {msg}", file=sys.stderr, flush=True)

    return say


def check_configurations(
    configurations: dict[str, pd.DataFrame],
    reference: str,
    *,
    top_k: int = 30,
    B: int = 1000,
    alpha: float = 0.05,
    seed: int = 0,
    target: float = 0.95,
    progress: Callable[[str], None] | None = None,
) -> pd.DataFrame:
    r"""One row per configuration: stability, agreement with ``reference``, discriminative power, swap method.

    Parameters
    ----------
    configurations : name → systems × topics score matrix (same systems and topics).
    reference : the configuration the others are compared with (τ, τ_AP, RMSE).
    top_k : best systems (by mean) kept for the bootstrap.
    B : bootstrap replicates, and topic-subset pairs of the swap method.
    alpha : significance level.
    seed : seed of both resampling schemes.
    target : Φ target of the topics needed.
    progress : called with a message before each configuration.

    Returns
    -------
    pandas.DataFrame
        Columns ``phi``, ``erho2``, ``topics_needed`` (G-study, [3]_), ``kendall_tau``, ``tau_ap``, ``rmse``
        (against ``reference``), ``power`` (share of top-k pairs with ASL < alpha, [1]_),
        ``difference_needed`` (Sakai's estimated difference), ``swap_min_difference`` and
        ``swap_share`` (smallest |Δ mean| with swap rate ≤ 5% at half the topics, and the share of
        comparisons reaching it, [2]_).

    References
    ----------
    .. [1] T. Sakai (2006). Evaluating evaluation metrics based on the bootstrap. SIGIR.
    .. [2] E. M. Voorhees and C. Buckley (2002). The effect of topic set size on retrieval experiment error. SIGIR.
    .. [3] R. L. Brennan (2001). Generalizability Theory. Springer.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> base = rng.random((8, 20)) * 0.5 + np.linspace(0.4, 0, 8)[:, None]
    >>> t = check_configurations({"a": pd.DataFrame(base), "b": pd.DataFrame(base ** 2)}, "a", B=100)
    >>> float(t.loc["b", "kendall_tau"])
    1.0
    """
    import experiments

    say = progress or (lambda m: None)
    rows = []
    ref = configurations[reference]
    n = ref.shape[1]
    for i, (name, X) in enumerate(configurations.items(), 1):
        say(f"[{i}/{len(configurations)}] {name}: G-study, τ, bootstrap (B={B}), swap method")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
            g = gtheory.gstudy(X)
        dp = experiments.discriminative_power(X, alpha, B=B, seed=seed, top_k=min(top_k, X.shape[0]))
        size = max(1, n // 2)
        sw = experiments.swap_rates(X, topic_set_sizes=[size], B=B, seed=seed)
        md = experiments.min_difference_for_swap_rate(sw, 0.05).iloc[0]
        rows.append({
            "configuration": name,
            "mean": float(np.nanmean(X.to_numpy())),
            "phi": float(g.phi()), "erho2": float(g.erho2()),
            "topics_needed": g.topics_needed(target, "phi", level=None).n,
            "kendall_tau": experiments.kendall_tau(ref, X),
            "tau_ap": experiments.tau_ap(ref, X, variant="b"),
            "rmse": experiments.rmse(ref, X),
            "power": dp.power, "n_significant": dp.n_significant, "n_pairs": dp.n_pairs,
            "difference_needed": dp.estimated_difference,
            "swap_topics": size,
            "swap_min_difference": float(md["min_difference"]),
            "swap_share": float(md["share_of_comparisons"]),
        })
    return pd.DataFrame(rows).set_index("configuration")


def run(args: argparse.Namespace) -> int:
    import optimize

    say = _progress(args.quiet)
    # every option is checked before loading and tuning (a minute on TREC-9), not after
    if args.top_k < 2:
        raise UsageError(f"--top-k must be at least 2 (the bootstrap compares pairs of systems); got {args.top_k}")
    if args.B < 1:
        raise UsageError(f"--B must be a positive integer; got {args.B}")
    if args.seed < 0:
        raise UsageError(f"--seed must be a non-negative integer; got {args.seed}")
    if not 0 < args.alpha < 1:
        raise UsageError(f"--alpha must be in (0, 1); got {args.alpha}")
    if args.cutoff is not None and args.cutoff < 1:
        raise UsageError(f"--cutoff must be a positive integer; got {args.cutoff}")
    against = [(spec, *_parse_config(spec)) for spec in args.against]
    for spec, g, d in against:  # an unknown family or a bad parameter: refused before loading
        try:
            metrics.gain_vector(g, np.array([0.0, 1.0, 2.0]))
            metrics.discount_vector(d, 10, cutoff=10)
        except (ValueError, TypeError) as exc:
            raise in_option_names(f"--against {spec!r}: {exc}", NDCG_OPTIONS) from None
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
    k = args.cutoff or (tuning.cutoff if tuning is not None else 100)
    if k > judged.depth:
        raise UsageError(f"--cutoff {k} exceeds the run depth {judged.depth}")
    say(f"data: {judged.n_systems} systems x {judged.n_topics} topics; nDCG@{k}")

    # the standard configurations first: a bad --against must fail before minutes of tuning
    standard: dict[str, pd.DataFrame] = {}
    for spec, g, d in against:
        try:
            standard[spec] = metrics.ndcg(judged, gain=g, discount=d, cutoff=k)
        except ValueError as exc:
            raise in_option_names(f"--against {spec!r}: {exc}", NDCG_OPTIONS) from None

    configs: dict[str, pd.DataFrame] = {}
    if tuning is not None:
        if k > tuning.discount.size:
            raise UsageError(f"--cutoff {k} exceeds the tuning's discount length {tuning.discount.size}")
        name = f"tuned {tuning.what}"
        try:  # a grade the tuning has no gain for: Tuning.ndcg names the tuning and the grades
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", optimize.GradeMismatchWarning)
                configs[name] = tuning.ndcg(judged, cutoff=k)
        except ValueError as exc:
            raise in_option_names(f"--tuning {args.tuning}: {exc}", _OPTIONS) from None
        for w in caught:
            print(f"gtheory check: warning: {w.message}", file=sys.stderr)
    else:
        say(f"tuning the discount of nDCG@{k} (linear gains) for Φ; give --tuning to check a saved one")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                tuning = optimize.optimize_discount(judged, "linear", k, seed=args.seed)
            except (ValueError, TypeError) as exc:
                raise in_option_names(exc, _OPTIONS) from None
        name = "tuned discount"
        if not tuning.success:  # e.g. indistinguishable systems: say so rather than compare with arbitrary vectors
            print(f"gtheory check: warning: the tuning failed ({tuning._status()}: {tuning.message}); the "
                  "'tuned discount' row is not stability-optimal.", file=sys.stderr)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optimize.FailedTuningWarning)  # said just above
            configs[name] = tuning.ndcg(judged)
    configs.update(standard)
    try:
        table = check_configurations(configs, name, top_k=args.top_k, B=args.B, alpha=args.alpha, seed=args.seed,
                                     progress=say)
    except (ValueError, TypeError) as exc:
        raise in_option_names(exc, _OPTIONS) from None
    if args.json:
        emit_json({"cutoff": k, "n_systems": judged.n_systems, "n_topics": judged.n_topics, "reference": name,
                   "top_k": min(args.top_k, judged.n_systems), "B": args.B, "alpha": args.alpha, "seed": args.seed,
                   "gain": {f"{grade:g}": float(v) for grade, v in tuning.gain_mapping.items()},
                   "configurations": _records(table)})
        return 0
    _print_table(table, name, k, judged, args)
    return 0


#: columns that count something: written as JSON integers (iterrows would make them floats)
_COUNTS = ("topics_needed", "n_significant", "n_pairs", "swap_topics")


def _records(table: pd.DataFrame) -> list[dict[str, Any]]:
    out = []
    for rec in table.reset_index().to_dict(orient="records"):  # keeps each column's dtype
        for c, v in rec.items():
            v = v.item() if hasattr(v, "item") else v
            if isinstance(v, float) and math.isnan(v):
                v = None
            elif v == math.inf:
                v = "inf"
            elif c in _COUNTS and isinstance(v, float) and v.is_integer():
                v = int(v)
            rec[c] = v
        out.append(rec)
    return out


def _f(v: float, spec: str) -> str:
    if isinstance(v, float) and math.isnan(v):
        return "-"
    if v == math.inf:
        return "inf"
    return format(v, spec)


def _print_table(table: pd.DataFrame, ref: str, k: int, judged: Any, args: argparse.Namespace) -> None:
    top = min(args.top_k, judged.n_systems)
    print(f"nDCG@{k}: {judged.n_systems} systems x {judged.n_topics} topics; agreement with '{ref}'; "
          f"bootstrap on the top {top} systems (B={args.B}, α={args.alpha:g}); swap method at "
          f"{int(table['swap_topics'].iloc[0])} topics")
    head = (f"{'configuration':<22} {'Φ':>6} {'topics':>6} {'τ':>6} {'τ_AP':>6} {'RMSE':>7} "
            f"{'power':>6} {'Δ sig':>6} {'Δ swap':>7} {'reach':>6}")
    print(head)
    print("-" * len(head))
    for name, r in table.iterrows():
        print(f"{str(name):<22} {_f(r.phi, '.3f'):>6} {_f(r.topics_needed, '.0f'):>6} {_f(r.kendall_tau, '.3f'):>6} "
              f"{_f(r.tau_ap, '.3f'):>6} {_f(r.rmse, '.4f'):>7} {_f(r.power, '.1%'):>6} "
              f"{_f(r.difference_needed, '.3f'):>6} {_f(r.swap_min_difference, '.3f'):>7} {_f(r.swap_share, '.0%'):>6}")
    print(f"Φ: dependability at {judged.n_topics} topics; topics: needed for Φ ≥ 0.95; power: share of pairs with "
          f"ASL < {args.alpha:g}; Δ sig: difference needed for significance; Δ swap: smallest difference with swap "
          f"rate ≤ 5%; reach: share of comparisons that large.")
