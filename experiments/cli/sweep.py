"""``gtheory sweep``: a sensitivity study of nDCG's stability over a grid of configurations.

Examples::

    gtheory sweep --cutoffs 10 20 100 --gains linear exponential --discounts log2 zipf linear \\
                  --fractions 1 0.5 0.2 --seeds 0 1 2 --out sweep.csv
    gtheory sweep --runs runs/ --qrels qrels.txt --cutoffs 10 --dask-scheduler tcp://10.0.0.5:8786 --json
"""
from __future__ import annotations

import argparse
import sys
from typing import Any


from ._data import TARGET_HELP
from . import UsageError
from ._common import SEEDS_HELP, check_option, emit_json, seeds_option
from ._data import add_data_args, add_quiet_arg, check_shape, drop_missed_topics, load_judged
from ._outputs import add_raw_csv_arg, check_output_path, write_csv_output
from ._errors import in_option_names

__all__ = ["register", "run"]

_EPILOG = """\
Every combination of --cutoffs x --gains x --discounts x --fractions x --seeds is one grid point. For
each point the qrels are reduced to the fraction of their judgments (Buckley & Voorhees sampling with
that seed; fraction 1 keeps them all), nDCG is computed for every system and topic, and the
systems x topics matrix gets a G-study: variance components, Φ and Eρ² at the collection's number of
topics, the topics needed for Φ >= --target, Kendall's τ of the system ranking against the reference
configuration (--reference-gain/--reference-discount/--reference-cutoff on the full qrels), and the
mean score. --tune adds the Φ of the discount tuned for stability at each point (slow for large
cut-offs).

With --missing exclude, the topics that some run does not return are dropped before the study (a
note on stderr names them): a G-study needs every system scored on every topic. A grid point whose
nDCG matrix admits no G-study (e.g. a gain that is 0 for every grade of the data, so every score is 0)
gives a row of NaN, and a warning on stderr names the points and the reason.

Work is split into one task per (fraction, seed) and runs on the local cores (--workers, default
all) or, with --dask-scheduler, on a Dask cluster (needs 'pip install "dask[distributed]"').

A cut-off beyond the run depth (the longest run, at most --depth) is noted on stderr: nDCG@k scores
the ranks the runs have, as trec_eval's ndcg_cut.k; with --tune it is refused. The linear discount
(k + 1 - r)/k takes its k from the cut-off; at cut-off 'none' it takes k = the run depth.

Output: a table on stdout, or with --json an object {"attrs": the settings (target, n_topics, reference,
judged_only, n_points, n_tasks, seconds), "rows": one object per grid point with every column of the
CSV}; the CSV with --out; progress on stderr unless --quiet.
Python: experiments.sweep(judged, cutoffs=..., gains=..., ...) returns the same table as a DataFrame.
"""

#: seconds to wait for a Dask scheduler to answer
DASK_CONNECT_TIMEOUT = 10


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "sweep",
        help="sensitivity study: Φ, topics needed and τ over cut-offs x gains x discounts x qrels fractions",
        description=(
            "Stability of nDCG (generalizability theory) over a grid of cut-offs, gain and discount families "
            "and reduced qrels, in parallel on local cores or a Dask cluster."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_data_args(p)
    g = p.add_argument_group("grid")
    g.add_argument("--cutoffs", nargs="+", default=["10", "20", "100"], metavar="K",
                   help="nDCG cut-offs; 'none' for the whole list, where the linear "
                        "discount takes k = the run depth (default 10 20 100)")
    g.add_argument("--gains", nargs="+", default=["linear", "exponential"], metavar="GAIN",
                   help="gain families: linear, exponential, 'exponential(base=3)', binary (default linear exponential)")
    g.add_argument("--discounts", nargs="+", default=["log2", "zipf", "linear"], metavar="DISCOUNT",
                   help="discount families: log2, zipf, linear, none, 'jarvelin(b=2)', 'rbp(p=0.8)' "
                        "(default log2 zipf linear)")
    g.add_argument("--fractions", nargs="+", type=float, default=[1.0], metavar="F",
                   help="shares of the judgments kept, in (0, 1] (default 1)")
    g.add_argument("--seeds", nargs="+", type=int, default=None, metavar="N",
                   help=f"seeds of the qrels reduction: {SEEDS_HELP} (default 1: the seed 0)")
    s = p.add_argument_group("study")
    s.add_argument("--target", type=float, default=0.95, help=TARGET_HELP)
    s.add_argument("--reference-cutoff", default=None, metavar="K",
                   help="cut-off of the τ reference (default: the largest of --cutoffs)")
    s.add_argument("--reference-gain", default="linear", help="gain of the τ reference (default linear)")
    s.add_argument("--reference-discount", default="log2", help="discount of the τ reference (default log2)")
    s.add_argument("--judged-only", action="store_true", help="condensed lists (nDCG'): drop unjudged documents")
    s.add_argument("--tune", action="store_true", help="also report Φ of the stability-tuned discount per point")
    x = p.add_argument_group("execution and output")
    x.add_argument("--workers", type=int, default=None, metavar="N",
                   help="local worker processes (default: all cores; 1 runs in this process)")
    x.add_argument("--dask-scheduler", default=None, metavar="ADDRESS",
                   help="run on this Dask scheduler (e.g. tcp://host:8786) instead of local processes")
    x.add_argument("--out", metavar="FILE.csv", default=None, help="write the full table as CSV ('-': standard output)")
    add_raw_csv_arg(x)
    x.add_argument("--json", action="store_true",
                   help='print JSON instead of the table: {"attrs": the settings, "rows": one object per grid point '
                        'with all the columns of --out}')
    add_quiet_arg(x)
    return p


def _cutoff(text: str, option: str) -> int | None:
    from experiments.sweep import parse_cutoff

    try:
        return parse_cutoff(text)
    except ValueError as exc:
        raise in_option_names(exc, {"cutoffs": option}) from None


def _check_depth(cutoffs: list, reference_cutoff: int | None, depth: int, what: str, *, tune: bool) -> None:
    """Cut-offs beyond the runs' depth: refused with --tune, else noted on stderr (:func:`experiments.sweep.depth_notes`)."""
    from experiments.sweep import depth_notes

    for param, ks in (("cutoffs", cutoffs), ("reference", [reference_cutoff])):
        opts = {**_OPTIONS, "reference": "--reference-cutoff"}
        try:
            notes = depth_notes(ks, depth, tune=tune, param=param, what=what)
        except ValueError as exc:
            raise in_option_names(exc, opts) from None
        for note in notes:
            print(f"gtheory sweep: note: {in_option_names(note, opts)}", file=sys.stderr)


def _dask_executor(address: str) -> tuple[Any, Any]:
    from experiments.sweep import dask_executor

    try:
        return dask_executor(address, timeout=DASK_CONNECT_TIMEOUT)
    except ImportError:
        raise UsageError("--dask-scheduler needs Dask's distributed scheduler: pip install \"dask[distributed]\"") from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None


#: the Python API's parameter names in messages → the options of this command
_OPTIONS = {"cutoffs": "--cutoffs", "gains": "--gains", "discounts": "--discounts", "fractions": "--fractions",
            "seeds": "--seeds", "target": "--target", "max_workers": "--workers", "tune=True": "--tune",
            "reference['gain']": "--reference-gain", "reference['discount']": "--reference-discount",
            "reference": "--reference-cutoff/--reference-gain/--reference-discount"}


def run(args: argparse.Namespace) -> int:
    import experiments
    from experiments.sweep import check_settings, degenerate_points, format_sweep

    cutoffs = [_cutoff(c, "--cutoffs") for c in args.cutoffs]
    check_option("--workers", "max_workers", args.workers)  # the API's rule (gtheory.kit.params)
    if args.workers is not None and args.dask_scheduler:
        raise UsageError("give either --workers or --dask-scheduler, not both.")
    reference: dict[str, Any] = {"gain": args.reference_gain, "discount": args.reference_discount}
    if args.reference_cutoff is not None:
        reference["cutoff"] = _cutoff(args.reference_cutoff, "--reference-cutoff")
    if args.seeds is not None and len(args.seeds) == 1 and not args.quiet:
        print(f"note: --seeds {args.seeds[0]} is the number of seeds (0 .. {args.seeds[0] - 1}); before this release "
              f"it was the single seed {args.seeds[0]}: give two or more seeds to list them.", file=sys.stderr)
    args.seeds = seeds_option(args.seeds, 1)
    try:  # validate the grid before loading data or connecting anywhere
        check_settings(cutoffs, args.gains, args.discounts, args.fractions, args.seeds, target=args.target,
                       reference=reference, tune=args.tune)
    except (ValueError, TypeError) as exc:
        raise in_option_names(exc, _OPTIONS) from None
    if args.out:
        check_output_path(args.out, "--out", args=args, quiet=args.quiet)  # before loading and computing
    if args.runs and args.tune:  # the tensor is at most --depth deep: refuse before minutes of loading
        _check_depth(cutoffs, None, args.depth, "--depth", tune=True)
    judged = drop_missed_topics(load_judged(args), "sweep")
    check_shape(judged)
    _check_depth(cutoffs, reference.get("cutoff"), judged.depth, "depth", tune=args.tune)
    client = executor = None
    if args.dask_scheduler:
        client, executor = _dask_executor(args.dask_scheduler)
    try:
        df = experiments.sweep(judged, cutoffs, args.gains, args.discounts, args.fractions, args.seeds,
                               target=args.target, reference=reference, judged_only=args.judged_only, tune=args.tune,
                               executor=executor, max_workers=args.workers, progress=not args.quiet)
    except (ValueError, TypeError) as exc:
        raise in_option_names(exc, _OPTIONS) from None
    finally:
        if client is not None:
            client.close()
    degenerate = degenerate_points(df, judged)
    for msg in degenerate:
        print(f"gtheory sweep: warning: {msg}", file=sys.stderr)
    if args.out:
        write_csv_output(df, args.out, args, index=False, float_format="%.10g")
        if not args.quiet:
            print(f"wrote {len(df)} rows to {args.out}", file=sys.stderr)
    if args.json:
        emit_json({"attrs": df.attrs, "rows": df.to_dict(orient="records")})  # inf and NaN are written as null
        return _status(df)
    print(format_sweep(df))
    return _status(df)


def _status(df: Any) -> int:
    """Exit code: 1 when no grid point has a G-study (the table is all NaN), else 0."""
    if len(df) and df["phi"].isna().all():
        print("gtheory sweep: error: no grid point admits a G-study; every row is NaN (see the warnings above).",
              file=sys.stderr)
        return 1
    return 0
