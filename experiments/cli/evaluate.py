"""``gtheory evaluate``: per-topic scores of any measure, as CSV.

Examples::

    gtheory evaluate --runs runs/ --qrels qrels.txt --measure nDCG@10 --measure AP --out scores.csv
    gtheory evaluate --measure "nDCG@100" --gain 0 1 3 --discount zipf        # embedded TREC-9
    gtheory tune --what joint --cutoff 20 --out t.json && gtheory evaluate --tuning t.json
"""
from __future__ import annotations

import argparse
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import pandas as pd

import metrics

from . import UsageError
from ._common import add_data_args, check_output_path, emit_json, in_option_names, load_judged

_NDCG = re.compile(r"^nDCG(?:@(\d+))?$", re.IGNORECASE)


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "evaluate",
        help="per-topic scores of a measure (nDCG with any gain/discount, AP, P@k, bpref, infAP, RBP, Q, ...)",
        description=(
            "Score every system on every topic and write a CSV (long: system,topic,measure,score; or wide: "
            "systems x topics). Numbers agree with trec_eval where trec_eval has the measure."
        ),
        epilog=(
            "Measures use ir_measures names where one exists (nDCG@10, AP, P@10, Rprec, Bpref, infAP, "
            "RBP(p=0.8), ...). For nDCG, --gain and --discount choose the gain per grade and the discount per "
            "rank: --gain linear|exponential|binary or numbers per grade (--gain 0 1 3); --discount "
            "log2|zipf|linear|none|'jarvelin(b=2)'|'rbp(p=0.8)' or a JSON/.npy file of weights per rank. "
            "--tuning FILE (written by 'gtheory tune --out') applies a tuning's gain, discount and cut-off "
            "(default measure: nDCG@ its cut-off); a tuning JSON given as --discount contributes only its discount."
        ),
    )
    add_data_args(p)
    p.add_argument("--measure", action="append", default=None, metavar="NAME",
                   help="measure to compute; repeat for several (default nDCG@10)")
    add_ndcg_args(p)
    p.add_argument("--judged-only", action="store_true", help="condensed lists: drop unjudged documents first")
    p.add_argument("--format", choices=["long", "wide"], default="long", help="CSV layout (default long)")
    p.add_argument("--out", metavar="FILE.csv", default=None, help="write here instead of standard output")
    p.add_argument("--json", action="store_true",
                   help="write JSON records instead of CSV (long: one {system, topic, measure, score} per cell; "
                        "wide: one per system)")
    p.add_argument("--quiet", action="store_true", help="no progress bar on stderr while reading runs")
    return p


def add_ndcg_args(p: argparse.ArgumentParser) -> None:
    """``--gain``, ``--discount`` and ``--tuning`` (evaluate, gstudy); defaults None so that a conflict shows."""
    p.add_argument("--gain", nargs="+", default=None, metavar="GAIN",
                   help="nDCG gain: linear (default), exponential, binary or numbers per grade (--gain 0 1 3)")
    p.add_argument("--discount", default=None,
                   help="nDCG discount: log2 (default), zipf, linear, none, 'jarvelin(b=2)', 'rbp(p=0.8)' "
                        "or a file of weights per rank (.json, .npy, .txt)")
    p.add_argument("--tuning", metavar="TUNING.json", default=None,
                   help="a tuning written by 'gtheory tune --out': nDCG with its gain, discount and cut-off "
                        "(instead of --gain/--discount; the default measure becomes nDCG@its cut-off)")


def load_tuning(path: str, option: str = "--tuning") -> Any:
    """The :class:`optimize.Tuning` in ``path``; a missing file or another JSON is one clear error."""
    import optimize

    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{option} {path}: is a directory; give a tuning JSON written by 'gtheory tune --out'.")
    if not p.is_file():
        raise UsageError(f"{option} {path}: no such file.")
    try:
        return optimize.Tuning.from_json(p)
    except (ValueError, KeyError, TypeError, OSError) as exc:
        raise UsageError(f"{option} {path}: not a tuning written by 'gtheory tune --out' ({exc})") from None


def ndcg_cutoff(name: str) -> tuple[bool, int | None]:
    """(is it nDCG, its cut-off or None) of a measure name."""
    m = _NDCG.match(name.strip())
    if not m:
        return False, None
    return True, int(m.group(1)) if m.group(1) else None


def resolve_measures(args: argparse.Namespace, measures: list[str], *, command: str) -> dict[str, Any]:
    """Check the nDCG options against the measures before any data is read.

    Returns ``{"tuning": Tuning | None, "gain": ..., "discount": ..., "measures": [...]}``; with a tuning the
    measures are relabelled ``nDCG@k`` (``nDCG`` alone means the tuning's cut-off).
    """
    seen: set[str] = set()
    for name in measures:
        is_ndcg, k = ndcg_cutoff(name)
        if is_ndcg and k == 0:
            raise UsageError(f"--measure {name}: the cut-off must be a positive integer; got 0.")
        if name.strip() in seen:
            raise UsageError(f"--measure {name} is given twice; give each measure once.")
        seen.add(name.strip())
    if not any(ndcg_cutoff(m)[0] for m in measures):
        for opt in ("gain", "discount", "tuning"):
            if getattr(args, opt) is not None:
                raise UsageError(f"--{opt} applies to nDCG; --measure {', '.join(measures)} "
                                 f"{'is' if len(measures) == 1 else 'are'} not nDCG.")
    if args.tuning is None:
        gain = parse_gain(args.gain if args.gain is not None else ["linear"])
        discount = parse_discount(args.discount if args.discount is not None else "log2")
        if args.discount is not None:
            _warn_discount_tuning(args.discount, gain, command)
        return {"tuning": None, "gain": gain, "discount": discount, "measures": measures}
    for opt, given in (("--gain", args.gain), ("--discount", args.discount)):
        if given is not None:
            raise UsageError(f"{opt} and --tuning exclude each other: --tuning {args.tuning} sets the gain, "
                             "the discount and the cut-off.")
    tuning = load_tuning(args.tuning)
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
    except (ValueError, OSError):
        return
    if not (isinstance(obj, dict) and "gain" in obj and "levels" in obj):
        return
    tuning = load_tuning(value, "--discount")
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


#: the library's advice on gains, in the terms of --gain (a family or numbers per integer grade; no mapping)
GAIN_ADVICE = {
    "a gain vector is indexed by integer grade": "--gain with numbers gives one gain per integer grade 0, 1, 2, ...",
    "pass a mapping {grade: gain} instead": "give a gain family instead (--gain linear, exponential or binary)",
    "the gain vector has": "--gain has",
    "gains must be finite": "the gains of --gain must be finite",
}

#: the Python API's parameter names in gain/discount/measure messages → what the user typed
NDCG_OPTIONS = {"gain": "--gain", "gains": "--gain", "discount": "--discount", "p": "p", "b": "b", "k": "k",
                "base": "base", "level": "level"}


def parse_gain(values: list[str], option: str = "--gain") -> Any:
    """A gain family name as it is (checked), or the numbers per grade (finite)."""
    import math

    import numpy as np

    if len(values) == 1 and not _is_number(values[0]):
        try:  # an unknown family or a bad parameter: refused now, not after loading the runs
            metrics.gain_vector(values[0], np.array([0.0, 1.0, 2.0]))
        except (ValueError, TypeError) as exc:
            raise in_option_names(f"{option} {values[0]}: {exc}", NDCG_OPTIONS) from None
        return values[0]
    if not all(_is_number(v) for v in values):
        raise UsageError(f"{option} takes one family name or numbers per grade; got {' '.join(values)!r}")
    bad = [v for v in values if not math.isfinite(float(v))]
    if bad:
        raise UsageError(f"{option} takes finite numbers per grade; got {' '.join(bad)}.")
    return [float(v) for v in values]


#: file suffixes of a discount given as weights per rank
DISCOUNT_SUFFIXES = (".json", ".npy", ".txt", ".csv")


def parse_discount(value: str, option: str = "--discount") -> Any:
    """A discount family name as it is, or the weights per rank read from a file.

    ``value`` is taken as a file when it has a suffix of :data:`DISCOUNT_SUFFIXES` or a path separator:
    .json (a list of numbers, or an object with a ``discount`` list such as a tuning), .npy (a 1-D array),
    .txt / .csv (numbers separated by white space or commas). Every problem is one error naming the file.
    """
    import os

    import numpy as np

    p = Path(value)
    looks_like_file = p.suffix.lower() in DISCOUNT_SUFFIXES or "/" in value or os.sep in value
    if not looks_like_file:
        try:  # an unknown family or a bad parameter (rbp(p=2)): refused now, not after loading the runs
            metrics.discount_vector(value, 10, cutoff=10)
        except (ValueError, TypeError) as exc:
            raise in_option_names(f"{option} {value}: {exc}", NDCG_OPTIONS) from None
        return value
    where = f"{option} {value}"
    if p.is_dir():
        raise UsageError(f"{where}: is a directory; give a file of weights per rank (.json, .npy, .txt, .csv).")
    if not p.is_file():
        raise UsageError(f"{where}: no such file (a file of weights per rank, or a family: log2, zipf, linear, "
                         "none, 'jarvelin(b=2)', 'rbp(p=0.8)').")
    suffix = p.suffix.lower()
    if suffix not in DISCOUNT_SUFFIXES:
        raise UsageError(f"{where}: unknown file type {p.suffix or '(none)'!r}; use .json, .npy, .txt or .csv.")
    if suffix == ".npy":
        try:
            raw: Any = np.load(p, allow_pickle=False)
        except (ValueError, OSError, EOFError) as exc:
            raise UsageError(f"{where}: not a NumPy .npy array ({exc}).") from None
        if raw.ndim != 1:
            raise UsageError(f"{where}: expected a 1-D array of weights per rank; got shape {raw.shape}.")
        values = [(f"position {i + 1}", v) for i, v in enumerate(raw.tolist())]
    elif suffix == ".json":
        import json

        try:
            obj = json.loads(p.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            raise UsageError(f"{where}: not UTF-8 text.") from None
        except ValueError as exc:
            raise UsageError(f"{where}: not valid JSON ({exc}).") from None
        if isinstance(obj, dict):
            if "discount" not in obj:
                raise UsageError(f"{where}: a JSON object needs a 'discount' key (a list of weights per rank, "
                                 "as 'gtheory tune --out' writes); it has " + (", ".join(map(repr, obj)) or "none")
                                 + ".")
            obj = obj["discount"]
        if not isinstance(obj, list):
            raise UsageError(f"{where}: expected a list of weights per rank; got a JSON {type(obj).__name__}.")
        values = [(f"position {i + 1}", v) for i, v in enumerate(obj)]
    else:
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise UsageError(f"{where}: not UTF-8 text.") from None
        values = [(f"line {n}", tok) for n, line in enumerate(text.splitlines(), 1)
                  for tok in line.replace(",", " ").split()]
    if not values:
        raise UsageError(f"{where}: no weights in the file.")
    weights = []
    for at, v in values:
        try:
            if isinstance(v, bool) or v is None or isinstance(v, (list, dict)):
                raise ValueError
            w = float(v)
        except (TypeError, ValueError):
            raise UsageError(f"{where}: weight {v!r} at {at} is not a number.") from None
        if not np.isfinite(w) or w < 0:
            raise UsageError(f"{where}: weight {v!r} at {at} must be a finite non-negative number.")
        weights.append(w)
    if not any(weights):
        raise UsageError(f"{where}: all weights are 0.")
    return np.asarray(weights, dtype=np.float64)


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def compute(judged: metrics.JudgedRuns, name: str, gain: Any, discount: Any, judged_only: bool,
            tuning: Any = None, *, command: str = "evaluate") -> pd.DataFrame:
    is_ndcg, cutoff = ndcg_cutoff(name)
    if is_ndcg and cutoff is not None and cutoff > judged.depth:  # as tune/check/report refuse --cutoff
        raise UsageError(f"--measure {name}: the cut-off {cutoff} exceeds the run depth {judged.depth}.")
    if tuning is not None:
        import optimize

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", optimize.GradeMismatchWarning)
            try:
                df = tuning.ndcg(judged, cutoff=cutoff)
            except ValueError as exc:
                raise UsageError(f"--tuning: {exc}") from None
        for w in caught:
            print(f"gtheory {command}: warning: {w.message}", file=sys.stderr)
        return df
    if is_ndcg:
        n = None if isinstance(discount, str) else len(discount)  # a vector of weights per rank
        if cutoff is not None and n is not None and n < cutoff:
            raise UsageError(f"--measure {name}: the --discount vector has {n} weights, fewer than the cut-off "
                             f"{cutoff} (ranks past {n} would weigh 0: nDCG@{n}); use nDCG@{n} or less.")
        try:
            return metrics.ndcg(judged, gain=gain, discount=discount, cutoff=cutoff, judged_only=judged_only)
        except (ValueError, TypeError) as exc:
            advice = {**GAIN_ADVICE, "give a cutoff, or write": f"use nDCG@k in --measure (not {name}), or give "
                                                                 "--discount"}
            raise in_option_names(exc, {**NDCG_OPTIONS, "cutoff": f"the cut-off of --measure {name}"},
                                  advice) from None
    if hasattr(metrics, "evaluate"):
        try:
            return metrics.evaluate(judged, name, judged_only=judged_only)
        except (ValueError, TypeError) as exc:
            where = "" if repr(name) in str(exc) else f"--measure {name}: "  # unless the message quotes it
            raise in_option_names(f"{where}{exc}", NDCG_OPTIONS) from None
    raise UsageError(f"unknown measure {name!r}; known: nDCG, nDCG@k")


def run(args: argparse.Namespace) -> int:
    if args.out:
        check_output_path(args.out, "--out")
    default = ["nDCG"] if args.tuning else ["nDCG@10"]  # with --tuning: nDCG at the tuned cut-off
    nd = resolve_measures(args, args.measure or default, command="evaluate")
    judged = load_judged(args)
    frames = []
    for name in nd["measures"]:
        df = compute(judged, name, nd["gain"], nd["discount"], args.judged_only, nd["tuning"])
        if args.format == "long":
            long = df.stack().rename("score").reset_index()
            long.insert(2, "measure", name)
            frames.append(long)
        else:
            frames.append(df.add_prefix(f"{name}:") if len(nd["measures"]) > 1 else df)
    out = pd.concat(frames, ignore_index=True) if args.format == "long" else pd.concat(frames, axis=1)
    target = args.out or sys.stdout
    if args.json:
        records = (out.reset_index() if args.format == "wide" else out).to_dict(orient="records")
        emit_json(records, args.out)  # NaN (--missing exclude) is written as null
    else:
        out.to_csv(target, index=args.format == "wide", float_format="%.10g")
    if args.out:
        print(f"wrote {len(out)} rows to {args.out}", file=sys.stderr)
    return 0
