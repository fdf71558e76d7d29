"""The nDCG options shared by the subcommands (``--gain``, ``--discount``, ``--tuning``, ``--allow-failed``): parsed
and checked before any data is read, and the score matrix of a measure computed with them."""
from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import metrics

if TYPE_CHECKING:
    import numpy as np

from . import UsageError
from ._errors import in_option_names
from ._errors import measure_error
from ._tunings import add_allow_failed

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


def parsed_measure(name: str) -> metrics.Measure | None:
    """``name`` as :func:`metrics.parse_measure` reads it, or None when it refuses it (its error quotes the name)."""
    try:
        return metrics.parse_measure(name)
    except (ValueError, TypeError):
        return None


def ndcg_cutoff(name: str) -> tuple[bool, int | None]:
    """(is it plain nDCG — ``nDCG``, ``nDCG@k`` or a spelling such as ``ndcg_cut.10`` —, its cut-off or None)."""
    m = parsed_measure(name)
    return (True, m.cutoff) if m is not None and m.name == "nDCG" and not m.params else (False, None)


def _same_measure(name: str) -> str:
    """The canonical name of a measure when it parses (so ``nDCG@10`` and ``ndcg_cut.10`` are one), else the text."""
    m = parsed_measure(name)
    return name.strip() if m is None else str(m)


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
            raise in_option_names(exc, NDCG_OPTIONS, where=f"{option} {values[0]}") from None
        return values[0]
    if not all(_is_number(v) for v in values):
        raise UsageError(f"{option} takes one family name or numbers per grade; got {' '.join(values)!r}")
    bad = [v for v in values if not math.isfinite(float(v))]
    if bad:
        raise UsageError(f"{option} takes finite numbers per grade; got {' '.join(bad)}.")
    return [float(v) for v in values]


#: file suffixes of a discount given as weights per rank
def parse_discount(value: str, option: str = "--discount", *, allow_failed: bool = False) -> Any:
    """A discount family name as it is, or the weights per rank read from a file (:func:`metrics.read_discount`).

    ``value`` is taken as a file when it has a suffix of :data:`metrics.measures.discounts.DISCOUNT_SUFFIXES` or a path
    separator. A failed tuning's discount is refused unless ``allow_failed``. Every problem is one error naming
    the option and the file.
    """
    import json
    import os

    from metrics.measures import DISCOUNT_SUFFIXES

    p = Path(value)
    if not (p.suffix.lower() in DISCOUNT_SUFFIXES or "/" in value or os.sep in value):
        try:  # an unknown family or a bad parameter (rbp(p=2)): refused now, not after loading the runs
            metrics.discount_vector(value, 10, cutoff=10)
        except (ValueError, TypeError) as exc:
            raise in_option_names(exc, NDCG_OPTIONS, where=f"{option} {value}") from None
        return value
    try:
        weights = metrics.read_discount(value)
    except ValueError as exc:
        raise UsageError(f"{option} {exc}") from None
    if p.suffix.lower() == ".json" and not allow_failed:  # a tuning that failed: refused unless --allow-failed
        obj = json.loads(p.read_text(encoding="utf-8"))
        if isinstance(obj, dict) and obj.get("format") == "gtheory.optimize.Tuning/1" and obj.get("success") is False:
            raise UsageError(f"{option} {value}: this tuning failed ({obj.get('message', 'no message')}); its "
                             "discount is not stability-optimal. Tune again, or give --allow-failed to use it anyway.")
    return weights


def _is_number(s: str) -> bool:
    """A number in C syntax (not "1_0", read by float() as 10, nor non-ASCII digits)."""
    from gtheory.kit.checks import c_float

    try:
        c_float(s)
        return True
    except ValueError:
        return False


def compute(judged: metrics.JudgedRuns, name: str, gain: Any, discount: Any, judged_only: bool,
            tuning: Any = None, *, command: str = "evaluate", quiet: bool = False) -> np.ndarray:
    """The scores of --measure ``name`` with the nDCG options: a float64 (n_systems, n_topics) array in ``judged``'s
    order of systems and topics (NaN where a measure gives it; :func:`metrics.measures.as_frame` labels it), the
    measure's errors in the options' terms. Computed without pandas unless --tuning is given."""
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
        return df.to_numpy(dtype=float)  # metrics.ndcg's frame: judged's order
    if is_ndcg:
        n = None if isinstance(discount, str) else len(discount)  # a vector of weights per rank
        if cutoff is not None and n is not None and n < cutoff:
            raise UsageError(f"--measure {name}: the --discount vector has {n} weights, fewer than the cut-off "
                             f"{cutoff} (ranks past {n} would weigh 0: nDCG@{n}); use nDCG@{n} or less.")
        try:
            return metrics.ndcg.scores(judged, gain=gain, discount=discount, cutoff=cutoff, judged_only=judged_only)
        except (ValueError, TypeError) as exc:  # a discount without its k: the cut-off of --measure gives it
            advice = {"cutoff": f"use nDCG@k in --measure (not {name}), or give --discount 'linear(k=100)'"}
            raise in_option_names(exc, {**NDCG_OPTIONS, "cutoff": f"the cut-off of --measure {name}"},
                                  advice) from None
    try:
        # --judged-only not given is no opinion (None): a measure that names its lists (AP', bpref) keeps them
        return metrics.measures.measure_scores(judged, name, judged_only=True if judged_only else None)
    except (ValueError, TypeError) as exc:  # a parameter refused only by the data (ERR(max_grade=1) on grades 0-2)
        raise measure_error(name, exc) from None
