"""The measures of ``--measure`` with the nDCG options, resolved and checked before any data is read."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import metrics

from . import UsageError
from ._ndcg import _same_measure, ndcg_cutoff, parse_discount, parse_gain
from ._tunings import load_tuning


#: the measure ``gtheory evaluate`` and ``gtheory gstudy`` compute when no --measure is given (with --tuning: nDCG at
#: the tuning's cut-off): nDCG@10, the usual headline measure of TREC-style runs (and trec_eval's ndcg_cut.10)
DEFAULT_MEASURE = "nDCG@10"


def check_measure_names(measures: list[str]) -> None:
    """Refuse an unknown or malformed --measure before any data is read (the library's message lists the known
    measures, or shows the grammar)."""
    for name in measures:
        try:
            metrics.parse_measure(name)
        except metrics.MeasureError as exc:  # a bad cut-off (nDCG@0)
            raise UsageError(f"--measure {name}: {exc.problem}.") from None
        except (ValueError, TypeError) as exc:  # an unknown measure, bad grammar: the message quotes the name
            raise UsageError(f"--measure {name}: {exc}" if name not in str(exc) else str(exc)) from None


def resolve_measures(args: argparse.Namespace, measures: list[str], *, command: str) -> dict[str, Any]:
    """Check the nDCG options against the measures before any data is read.

    Returns ``{"tuning": Tuning | None, "gain": ..., "discount": ..., "measures": [...]}``; with a tuning the
    measures are relabelled ``nDCG@k`` (``nDCG`` alone means the tuning's cut-off).
    """
    check_measure_names(measures)
    seen: set[str] = set()
    for name in measures:
        if _same_measure(name) in seen:
            raise UsageError(f"--measure {name} is given twice; give each measure once.")
        seen.add(_same_measure(name))
    if not any(ndcg_cutoff(m)[0] for m in measures):
        for opt in ("gain", "discount", "tuning"):
            if getattr(args, opt) is not None:
                raise UsageError(f"--{opt} applies to nDCG; --measure {', '.join(measures)} "
                                 f"{'is' if len(measures) == 1 else 'are'} not nDCG.")
    if args.tuning is None:
        gain = parse_gain(args.gain if args.gain is not None else ["linear"])
        discount = parse_discount(args.discount if args.discount is not None else "log2",
                                  allow_failed=getattr(args, "allow_failed", False))
        if args.discount is not None:
            _warn_discount_tuning(args.discount, gain, command)
        return {"tuning": None, "gain": gain, "discount": discount, "measures": measures}
    for opt, given in (("--gain", args.gain), ("--discount", args.discount)):
        if given is not None:
            raise UsageError(f"{opt} and --tuning exclude each other: --tuning {args.tuning} sets the gain, "
                             "the discount and the cut-off.")
    tuning = load_tuning(args.tuning, allow_failed=getattr(args, "allow_failed", False))
    out = []
    for name in measures:
        is_ndcg, k = ndcg_cutoff(name)
        if not is_ndcg:
            raise UsageError(f"--tuning applies to nDCG; --measure {name} is not nDCG (compute it without --tuning).")
        if k is not None and k > tuning.cutoff:
            raise UsageError(f"--measure {name}: --tuning {args.tuning} has discount weights up to rank "
                             f"{tuning.cutoff} only; use nDCG@{tuning.cutoff} or less (or tune at {k}).")
        out.append(f"nDCG@{k or tuning.cutoff}")
    if getattr(args, "judged_only", False) and not tuning.judged_only:
        raise UsageError(f"--judged-only: --tuning {args.tuning} was tuned on full lists (judged_only false); "
                         "drop --judged-only or tune on condensed lists.")
    return {"tuning": tuning, "gain": None, "discount": None, "measures": out}


def _warn_discount_tuning(value: str, gain: Any, command: str) -> None:
    """A tuning JSON given as --discount: warn when its gain is not the --gain in force."""
    import json

    import numpy as np

    p = Path(value)
    if p.suffix != ".json" or not p.is_file():
        return
    try:
        obj = json.loads(p.read_text(encoding="utf-8"))
    except (ValueError, OSError, RecursionError):
        return
    if not (isinstance(obj, dict) and "gain" in obj and "levels" in obj):
        return
    tuning = load_tuning(value, "--discount", allow_failed=True)  # refused (or allowed) by parse_discount
    if tuning.gain_family is not None and isinstance(gain, str) and gain.strip() == tuning.gain_family:
        return
    try:
        g = np.asarray(metrics.gains.gain_vector(gain, np.asarray(tuning.levels)), dtype=float)
        same = g.sum() > 0 and np.allclose(g / g.sum(), tuning.gain, rtol=1e-6, atol=1e-9)
    except (ValueError, TypeError, IndexError):
        same = False
    if not same:
        shown = gain if isinstance(gain, str) else " ".join(f"{x:g}" for x in gain)
        tuned = ", ".join(f"{lv:g}: {gv:.3g}" for lv, gv in zip(tuning.levels, tuning.gain))
        print(f"gtheory {command}: warning: --discount {value} is a tuning whose gain ({tuned}) is not --gain "
              f"{shown}; only its discount is used. Give --tuning {value} for its gain, discount and cut-off.",
              file=sys.stderr)

