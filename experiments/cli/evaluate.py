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
from ._common import add_data_args, check_output_path, emit_json, in_option_names, load_judged, output_file

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
            "Measures use ir_measures names where one exists (nDCG@10, AP, P@10, R@100, RR@10, ERR@20, "
            "Judged@10, Success@10, NumRelRet, Rprec, Bpref, infAP, RBP(p=0.8), ...); trec_eval names work too "
            "(ndcg_cut.10, P.10, recall.100, map, recip_rank). For nDCG, --gain and --discount choose the gain per grade and the discount per "
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
    p.add_argument("--quiet", action="store_true",
                   help="no coverage line and no progress bar on stderr (warnings are still printed)")
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
    add_allow_failed(p)


def add_allow_failed(p: argparse.ArgumentParser) -> None:
    """``--allow-failed``: use a tuning whose optimiser failed (refused by default)."""
    p.add_argument("--allow-failed", action="store_true",
                   help="use a tuning that failed (success false in its JSON: not converged, or the systems "
                        "cannot be told apart); refused without this, and warned about with it")


def refuse_failed(tuning: Any, path: str, option: str, allow: bool) -> None:
    """A failed tuning (``success`` False) is refused unless ``--allow-failed``."""
    if tuning.success or allow:
        return
    raise UsageError(f"{option} {path}: this tuning failed ({tuning._status()}: {tuning.message}); its gain and "
                     "discount are not stability-optimal. Tune again (gtheory tune), or give --allow-failed to "
                     "use it anyway.")


def load_tuning(path: str, option: str = "--tuning", *, allow_failed: bool = False) -> Any:
    """The :class:`optimize.Tuning` in ``path``; a missing file or another JSON is one clear error, and a
    failed tuning is refused unless ``allow_failed`` (``--allow-failed``)."""
    import optimize

    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{option} {path}: is a directory; give a tuning JSON written by 'gtheory tune --out'.")
    if not p.is_file():
        raise UsageError(f"{option} {path}: no such file.")
    try:
        tuning = optimize.Tuning.from_json(p)
    except (ValueError, KeyError, TypeError, OSError) as exc:
        raise UsageError(f"{option} {path}: not a tuning written by 'gtheory tune --out' ({exc})") from None
    refuse_failed(tuning, path, option, allow_failed)
    return tuning


def ndcg_cutoff(name: str) -> tuple[bool, int | None]:
    """(is it plain nDCG — ``nDCG``, ``nDCG@k`` or a spelling such as ``ndcg_cut.10`` —, its cut-off or None)."""
    m = _NDCG.match(name.strip())
    if m:
        return True, int(m.group(1)) if m.group(1) else None
    try:
        parsed = metrics.parse_measure(name)
    except (ValueError, TypeError):
        return False, None
    return (True, parsed.cutoff) if parsed.name == "nDCG" and not parsed.params else (False, None)


def _same_measure(name: str) -> str:
    """The canonical name of a measure when it parses (so ``nDCG@10`` and ``ndcg_cut.10`` are one), else the text."""
    try:
        return str(metrics.parse_measure(name))
    except (ValueError, TypeError):
        return name.strip()


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
    except (ValueError, OSError):
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


def parse_discount(value: str, option: str = "--discount", *, allow_failed: bool = False) -> Any:
    """A discount family name as it is, or the weights per rank read from a file.

    ``value`` is taken as a file when it has a suffix of :data:`DISCOUNT_SUFFIXES` or a path separator:
    .json (a list of numbers, or an object with a ``discount`` list such as a tuning — a failed one only with
    ``allow_failed``), .npy (a 1-D array),
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
            if obj.get("format") == "gtheory.optimize.Tuning/1" and obj.get("success") is False and not allow_failed:
                raise UsageError(f"{where}: this tuning failed ({obj.get('message', 'no message')}); its discount is "
                                 "not stability-optimal. Tune again, or give --allow-failed to use it anyway.")
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
            tuning: Any = None, *, command: str = "evaluate", quiet: bool = False) -> pd.DataFrame:
    is_ndcg, cutoff = ndcg_cutoff(name)
    if is_ndcg and cutoff is not None and cutoff > judged.depth and not quiet:
        # as trec_eval's ndcg_cut.k (and P@k here): the ranks that exist are scored, the ideal list has k ranks
        print(f"gtheory {command}: note: --measure {name} on runs {judged.depth} deep: the ranks that exist are "
              f"scored and the ideal ranking keeps {cutoff}, as trec_eval's ndcg_cut.{cutoff} does (and as P@"
              f"{cutoff} counts missing ranks as non-relevant).", file=sys.stderr)
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
        check_output_path(args.out, "--out", args=args)
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
    if args.json:
        records = (out.reset_index() if args.format == "wide" else out).to_dict(orient="records")
        emit_json(records, args.out)  # NaN (--missing exclude) is written as null; atomic with --out
    elif args.out:
        with output_file(args.out, newline="") as fh:  # a temporary file renamed at the end
            out.to_csv(fh, index=args.format == "wide", float_format="%.10g")
    else:
        out.to_csv(sys.stdout, index=args.format == "wide", float_format="%.10g")
    if args.out:
        print(f"wrote {len(out)} rows to {args.out}", file=sys.stderr)
    return 0
