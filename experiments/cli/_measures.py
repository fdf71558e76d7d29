"""The measures of ``--measure`` with the nDCG options, resolved and checked before any data is read."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import metrics

from . import UsageError
from ._errors import measure_error
from ._ndcg import _same_measure, ndcg_cutoff, parse_discount, parse_gain
from ._tunings import load_tuning


#: the measure ``gtheory evaluate`` and ``gtheory gstudy`` compute when no --measure is given (with --tuning: nDCG at
#: the tuning's cut-off): nDCG@10, the usual headline measure of TREC-style runs (and trec_eval's ndcg_cut.10)
DEFAULT_MEASURE = "nDCG@10"


_TOY: list[Any] = []


def _toy_judged() -> Any:
    """Two systems, one topic, every judgment grade 0: a measure whose parameters are wrong fails on it as on any
    data, and a valid one does not (no grade above any ``max_grade``, no relevance level it needs). The tensor
    :func:`metrics.judge` makes of the runs ``a``: d1, d2 and ``b``: d2, u (unjudged) with qrels d1, d2 of grade 0,
    written out: judging loads the readers (and pandas), which a check of the names does not need."""
    if not _TOY:
        import numpy as np

        _TOY.append(metrics.JudgedRuns(
            grades=np.array([[[0, 0]], [[0, metrics.UNJUDGED]]], dtype=np.int8),
            doc_ids=np.array([[[0, 1]], [[1, -1]]], dtype=np.int16), levels=np.array([0.0]),
            qrels_level=np.array([0, 0], dtype=np.int8), qrels_offsets=np.array([0, 2], dtype=np.int64),
            systems=("a", "b"), topics=("1",), n_retrieved=np.array([[2], [2]], dtype=np.int32),
            report={"topics_without_relevant": ["1"], "missing_policy": "zero"}))
    return _TOY[0]


def check_measure_names(measures: list[str], judged: Any = None) -> None:
    """Refuse an unknown or malformed --measure, or one with a bad parameter (``nDCG(discount=rbp,p=2)``), before
    any data is read: each is parsed and computed once on a toy ``judged`` (or on ``judged`` given, e.g. one system
    of the user's data, for a parameter that depends on the data, as ``ERR(max_grade=...)``). Every error is
    ``--measure NAME: problem`` (:func:`measure_error`)."""
    import warnings

    for name in measures:
        try:
            metrics.parse_measure(name)
            with warnings.catch_warnings():  # only its errors matter here; warnings come with the real data
                warnings.simplefilter("ignore")
                metrics.measures.measure_scores(_toy_judged() if judged is None else judged, name)
        except (ValueError, TypeError) as exc:
            raise measure_error(name, exc) from None


def resolve_measures(args: argparse.Namespace, measures: list[str], *, command: str) -> dict[str, Any]:
    """Check the nDCG options against the measures before any data is read.

    Returns ``{"tuning": Tuning | None, "gain": ..., "discount": ..., "measures": [...]}``; with a tuning the
    measures are relabelled ``nDCG@k`` (``nDCG`` alone means the tuning's cut-off).
    """
    check_measure_names(measures)
    typed = getattr(args, "_typed_measures", None)  # as the user wrote them, before -l rewrote them
    shown = typed if typed is not None and len(typed) == len(measures) else measures
    seen: dict[str, str] = {}
    for name, as_typed in zip(measures, shown):
        key = _same_measure(name)
        if key in seen:
            first = seen[key]
            same = (f"--measure {as_typed} is given twice" if first == as_typed else
                    f"--measure {as_typed} and --measure {first} are the same measure ({key})")
            raise UsageError(f"{same}; give each measure once.")
        seen[key] = as_typed
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
        g = np.asarray(metrics.measures.gains.gain_vector(gain, np.asarray(tuning.levels)), dtype=float)
        same = g.sum() > 0 and np.allclose(g / g.sum(), tuning.gain, rtol=1e-6, atol=1e-9)
    except (ValueError, TypeError, IndexError):
        same = False
    if not same:
        shown = gain if isinstance(gain, str) else " ".join(f"{x:g}" for x in gain)
        tuned = ", ".join(f"{lv:g}: {gv:.3g}" for lv, gv in zip(tuning.levels, tuning.gain))
        print(f"gtheory {command}: warning: --discount {value} is a tuning whose gain ({tuned}) is not --gain "
              f"{shown}; only its discount is used. Give --tuning {value} for its gain, discount and cut-off.",
              file=sys.stderr)


#: what a subcommand of one measure does with it, for the error when --measure is given more than once
ONE_MEASURE = {"gstudy": "studies one measure", "plan": "plans the topics of one measure",
               "budget": "budgets the judging of one measure"}


class OneMeasure(argparse.Action):
    """``--measure NAME`` of a subcommand that takes one measure (gstudy, plan, budget): the value, with every
    value given kept beside it (``_given_measure``) so that a second ``--measure`` is refused
    (:func:`check_one_measure`) instead of silently replacing the first, as argparse's ``store`` does."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        given = [*(getattr(namespace, "_given_" + self.dest, None) or []), values]
        setattr(namespace, "_given_" + self.dest, given)
        setattr(namespace, self.dest, values)


def check_one_measure(args: argparse.Namespace) -> None:
    """Refuse --measure given more than once on a subcommand of one measure (:class:`OneMeasure`): ``gstudy studies
    one measure: --measure is given twice (AP, nDCG@10); run gstudy once per measure``."""
    given = getattr(args, "_given_measure", None) or []
    if len(given) < 2:
        return
    times = "twice" if len(given) == 2 else f"{len(given)} times"
    what = ONE_MEASURE.get(args.command, "takes one measure")
    raise UsageError(f"{args.command} {what}: --measure is given {times} ({', '.join(given)}); run {args.command} "
                     "once per measure.")


#: help of ``-l/--relevance-level``, the same on every subcommand that takes it
RELEVANCE_HELP = ("as trec_eval -l L: the binary measures (AP, P@k, R-prec, RR, bpref, infAP, recall, success, "
                  "num_rel, num_rel_ret) count grade >= L as relevant (default 1, as trec_eval); a measure's own "
                  "rel=... wins; graded measures (nDCG, ERR, RBP, Q) use the grades themselves; robustness also "
                  "samples the qrels by it")


def add_relevance_level_arg(p: Any) -> None:
    """``-l/--relevance-level L`` (:data:`RELEVANCE_HELP`)."""
    p.add_argument("-l", "--relevance-level", type=float, default=None, metavar="L", help=RELEVANCE_HELP)


def is_binary(measure: Any) -> bool:
    """Whether ``-l`` applies to ``measure`` (a :class:`metrics.Measure`): a measure of binary relevance (a ``rel``
    parameter and no graded ``gain``), not already given its own ``rel``, and not ``NumRet`` (documents retrieved,
    relevant or not: with ``rel`` it would become NumRelRet)."""
    params = measure.spec.params
    return ("rel" in params and "gain" not in params and "beta" not in params and measure.param("rel") is None
            and measure.name != "NumRet")


def with_relevance_level(names: list[str], level: float | None) -> list[str]:
    """``names`` with ``rel=level`` added to each binary measure (:func:`is_binary`), as trec_eval's ``-l level``
    applies to its binary measures (``AP`` → ``AP(rel=2)``); the others unchanged. ``None``: unchanged."""
    if level is None:
        return list(names)
    out = []
    for name in names:
        m = metrics.parse_measure(name)
        if is_binary(m):
            rel = int(level) if float(level).is_integer() else float(level)
            m = metrics.Measure(m.name, (*m.params, ("rel", rel)), m.cutoff)
            out.append(str(m))
        else:
            out.append(name)
    return out


def apply_relevance_level(args: argparse.Namespace) -> None:
    """Give ``-l`` to the subcommand's ``--measure`` names (a list, one name or None: the default, nDCG, which -l
    does not change), before anything else reads them; refused with SCORES.csv (scores computed already) and for a
    level that is not a finite number. A note (unless --quiet) when no measure given is binary."""
    import math

    level = getattr(args, "relevance_level", None)
    if level is None:
        return
    if not (math.isfinite(level) and level > 0):  # grade >= 0 would count every judged document as relevant
        raise UsageError(f"-l/--relevance-level must be a positive finite number; got {level:g}.")
    if getattr(args, "scores", None) is not None:
        raise UsageError(f"-l/--relevance-level applies to measures computed from runs; {args.scores} holds scores "
                         "already.")
    given = getattr(args, "measure", None)
    if given is None:
        names: list[str] = []
    else:
        names = [given] if isinstance(given, str) else list(given)
        for name in names:
            try:
                metrics.parse_measure(name)
            except ValueError as exc:
                raise measure_error(name, exc) from None
        new = with_relevance_level(names, level)
        args._typed_measures = list(names)  # for messages in the user's words
        args.measure = new[0] if isinstance(given, str) else new
    args._level_applies = any(is_binary(metrics.parse_measure(n)) for n in names)  # else: no measure to check it for
    if args.command != "robustness" and not getattr(args, "quiet", False) and not args._level_applies:
        print(f"gtheory {args.command}: note: -l {level:g} applies to binary measures (AP, P@k, RR, ...) without "
              f"their own rel=; it changes none of {', '.join(names) or 'the default nDCG'}.", file=sys.stderr)


def run_order(scores: dict[str, Any], sort: str) -> Any:
    """``--sort``: the row order of the runs, given each measure's (n_systems, n_topics) scores in the order the
    runs were read (by name): that order (``"name"``) or by the mean of the first measure, best first (``"mean"``;
    ties in name order, :func:`experiments._validation.best_first`). Indices into the rows."""
    import numpy as np

    first = np.asarray(next(iter(scores.values())), dtype=float)
    if sort != "mean":
        return np.arange(first.shape[0])
    from experiments._validation import best_first

    return best_first(np.nanmean(first, axis=1))


def same_measure(wanted: str, name: str) -> bool:
    """Whether a score file's measure ``name`` is the --measure ``wanted`` in another spelling, by the measure names'
    grammar (:func:`metrics.parse_measure`: ``MAP`` is ``AP``, ``ndcg_cut_10`` is ``nDCG@10``, ``mrr@10`` is
    ``RR@10``); names it cannot read are different. What :func:`gtheory.read_scores` asks (``same_measure``) when no
    name of the file matches exactly or ignoring case."""
    import metrics

    try:
        return metrics.parse_measure(wanted) == metrics.parse_measure(name)
    except (ValueError, TypeError):
        return False
