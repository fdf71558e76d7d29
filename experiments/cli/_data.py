"""The data options of the subcommands (``--runs/--qrels``, ``--judged``, ``--depth``, ``--grades``, ``--missing``),
the judged runs they name, and the checks of the data's shape."""
from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Any

import metrics  # cheap: its names are imported on first use

from . import UsageError
from ._errors import in_option_names


def add_data_args(p: argparse.ArgumentParser, *, judged: bool = True) -> None:
    """``--runs DIR|FILE... --qrels FILE [--depth N]``, and ``--judged FILE`` (unless ``judged`` is false: ``gtheory
    judge`` writes that file); without them the embedded TREC-9 Web data is used."""
    g = p.add_argument_group("data (default: the embedded TREC-9 Web runs, 104 systems x 50 topics)" if judged
                             else "data")
    g.add_argument("--runs", nargs="+", metavar="RUNS", default=None,
                   help="a directory of TREC run files, or run files (plain, .gz, .xz)")
    g.add_argument("--qrels", metavar="FILE", default=None, help="TREC qrels file (needed with --runs)")
    if judged:
        g.add_argument("--judged", metavar="JUDGED.npz", default=None,
                       help="the runs judged once by 'gtheory judge' (or JudgedRuns.save), instead of --runs/--qrels: "
                            "the same numbers without reading the runs again")
    g.add_argument("--depth", type=positive_int("--depth"), default=1000, action=_Given,
                   help="ranks of each run read with --runs (default 1000); the embedded data and --judged "
                        "tensors keep the depth they were judged to")
    g.add_argument("--grades", choices=["exact", "trec_eval"], default="exact", action=_Given,
                   help="real-valued grades in the --qrels: kept exactly (default; a note says so when some are "
                        "not integers) or truncated to integers as trec_eval does (trec_eval, for its numbers)")
    g.add_argument("--duplicates", choices=["error", "first"], default="error", action=_Given,
                   help="a docno listed twice for one topic of a run is an error naming every such file "
                        "(default) or only its first line is kept (first), with a note on stderr")
    g.add_argument("--progress", action="store_true",
                   help="show progress bars even when stderr is not a terminal (default: only on a terminal)")
    g.add_argument("--missing", choices=["zero", "exclude", "reml", "henderson"], default="zero", action=_Given,
                   help="a topic a run does not return scores 0 (default, like trec_eval -c) or is excluded (no "
                        "score; every subcommand but evaluate then drops the topic, with a note); gstudy only: "
                        "reml or henderson keep the other runs' scores of that topic and estimate the G-study "
                        "from the scored cells (REML / Henderson's Method 1; also for empty cells of SCORES.csv)")


class _Given(argparse.Action):
    """``store``, also recording that the user gave the option (``args._given_<dest>``), so that an option
    with a default can be refused where it does not apply instead of being silently ignored."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        setattr(namespace, self.dest, values)
        setattr(namespace, f"_given_{self.dest}", True)


def add_resamples_arg(p: argparse.ArgumentParser, default: int | None, help: str) -> None:
    """``--n-resamples`` (the API's ``n_resamples``: bootstrap replicates, permutations, drawn topic-subset pairs)."""
    p.add_argument("--n-resamples", type=int, default=default, metavar="N", help=help)


#: help of ``--quiet``, the same on every subcommand: notes and progress go, results and warnings stay
QUIET_HELP = "no notes and no progress on stderr; the results and the warnings are still printed"


def add_quiet_arg(p: Any) -> None:
    """``-q/--quiet`` with the one meaning it has on every subcommand (:data:`QUIET_HELP`)."""
    p.add_argument("-q", "--quiet", action="store_true", help=QUIET_HELP)


def positive_int(option: str) -> Any:
    """An argparse ``type`` for a positive integer; the error names the option and the value."""
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a positive integer; got {text!r}") from None
        if v < 1:
            raise argparse.ArgumentTypeError(f"must be a positive integer; got {v}")
        return v

    parse.__name__ = option  # argparse names the type in some messages
    return parse


UNBALANCED = ("reml", "henderson")


def _some(items: list, what: str = "", show: int = 5) -> str:
    """:func:`gtheory.kit.display.listed` (``a, b, c and 7 more``), imported only when a note needs it."""
    from gtheory.kit.display import listed

    return listed(items, what, show)


def progress_option(args: argparse.Namespace) -> bool | str:
    """The API's ``progress`` for a subcommand's progress bars: none with --quiet, forced with --progress, else
    ``"auto"`` (a bar only when stderr is a terminal: never into pipes or log files)."""
    if getattr(args, "quiet", False):
        return False
    return True if getattr(args, "progress", False) else "auto"


def _policy(args: argparse.Namespace) -> str:
    """The judging policy of --missing: reml/henderson (gstudy only) judge like exclude (NaN cells)."""
    if args.missing in UNBALANCED:
        if not getattr(args, "allow_unbalanced", False):
            raise UsageError(f"--missing {args.missing} applies to gstudy only (a G-study from the scored cells); "
                             "use --missing zero or exclude here.")
        return "exclude"
    return args.missing


def load_judged(args: argparse.Namespace) -> metrics.JudgedRuns:
    """The judged runs of the data options (:func:`_load_judged`), and ``-l`` checked against their grades: a
    relevance level above every grade of the qrels makes every binary measure 0 for every run (trec_eval says
    nothing), which is refused with the grades there are."""
    judged = _load_judged(args)
    level = getattr(args, "relevance_level", None)
    # robustness has its own rule (it splits the grades); a level that changes no measure asked for is only noted
    if level is not None and getattr(args, "command", None) != "robustness" and getattr(args, "_level_applies", True):
        import numpy as np

        levels = np.asarray(judged.levels, dtype=float)
        top = float(levels.max()) if levels.size else 0.0
        if level > top:
            shown = ", ".join(f"{g:g}" for g in levels)
            fix = (f"give -l {top:g} or less" if top > 0 else
                   "they judge no document relevant at any level: are these the qrels of these runs?")
            raise UsageError(f"-l {level:g}: no document is judged {level:g} or above (the qrels' grades are {shown}), "
                             f"so every binary measure would be 0 for every run; {fix}.")
    return judged


def _load_judged(args: argparse.Namespace) -> metrics.JudgedRuns:
    """The judged runs of the data options: --runs/--qrels, --judged, or the embedded TREC-9 data.

    --depth applies to --runs only (a saved or embedded tensor cannot be re-read at another depth): with the
    others it is refused unless it equals the tensor's depth. --missing applies to all three.
    """
    if getattr(args, "judged", None) or (args.runs is None and args.qrels is None):
        if args.judged:
            if args.runs or args.qrels:
                raise UsageError("give either --judged or --runs/--qrels, not both")
            what = f"the --judged tensor {args.judged}"
            try:
                judged = metrics.JudgedRuns.load(args.judged)
            except ValueError as exc:  # not a saved tensor (a text file: --qrels), damaged: one line, exit 2
                raise in_option_names(exc, {}, {"qrels": "a qrels file goes to --qrels (with the runs in --runs)"},
                                      where="--judged") from None
            from ._sources import sources_warning

            changed = sources_warning(args.judged, judged.report.get("sources"))
            command = getattr(args, "command", None) or "gtheory"
            if changed:  # a warning, not a note: --quiet does not hide it
                print(f"gtheory {command}: warning: {changed}", file=sys.stderr)
            _said_of_a_tensor(judged, args, command)
        else:
            what = "the embedded TREC-9 data"
            judged = metrics.load_trec9()
        if getattr(args, "_given_duplicates", False):
            raise UsageError(f"--duplicates applies to run files read with --runs, not to {what}.")
        if getattr(args, "_given_depth", False) and args.depth != judged.depth:
            raise UsageError(f"--depth {args.depth}: {what} is judged to depth {judged.depth} and cannot be cut "
                             "here; --depth applies to --runs (evaluate fewer ranks with nDCG@k, P@k, ...).")
        import numpy as np

        # a tensor of `gtheory judge --missing exclude` keeps its policy unless --missing is given here
        keep = bool(args.judged) and not getattr(args, "_given_missing", False) and "sources" in judged.report
        if not keep and judged.missing != _policy(args):
            from dataclasses import replace

            judged = replace(judged, missing=_policy(args))  # the policy is applied when measures are computed
        levels = np.asarray(judged.levels)
        if getattr(args, "grades", "exact") == "trec_eval" and np.any(levels != np.trunc(levels)):
            raise UsageError(f"--grades trec_eval: {what} holds non-integer grades; judge the runs again from "
                             "--runs/--qrels with --grades trec_eval.")
        return judged
    if not args.runs or not args.qrels:
        raise UsageError("--runs and --qrels go together (or give neither to use the embedded TREC-9 data)")
    runs: Any = args.runs[0] if len(args.runs) == 1 and Path(args.runs[0]).is_dir() else args.runs
    for r in args.runs:
        if not Path(r).exists():
            raise UsageError(f"no such run file or directory: {r}")
    command = getattr(args, "command", None) or "gtheory"
    quiet = bool(getattr(args, "quiet", False))
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", metrics.LowCoverageWarning)
            warnings.simplefilter("always", metrics.FractionalGradeWarning)
            judged = metrics.judge(runs, args.qrels, depth=args.depth, missing=_policy(args),
                                   grades=getattr(args, "grades", "exact"), duplicates=args.duplicates,
                                   progress=progress_option(args))
    except ValueError as exc:  # also metrics.TrecFormatError: "<file>, line <n>: <problem>"
        raise in_option_names(exc, {}) from None
    _print_warnings(caught, args, command)
    dropped = judged.report.get("duplicates_dropped") or {}
    if dropped and not quiet:
        total = sum(dropped.values())
        print(f"gtheory {command}: note: --duplicates first: dropped {total} repeated line{'s' * (total != 1)} in "
              f"{_some([f'{k} ({v})' for k, v in dropped.items()], 'run', show=10)}.", file=sys.stderr)
    mixed = judged.report.get("mixed_tags") or {}
    if mixed and not quiet:  # two runs pasted into one file would be scored as one system: say so
        shown = [f"{k} ({', '.join(v[:3])}{' …' if len(v) > 3 else ''})" for k, v in mixed.items()]
        print(f"gtheory {command}: note: {_some(shown, 'run file', show=5)} "
              f"{'holds' if len(mixed) == 1 else 'hold'} several run tags (6th column) but {'is' if len(mixed) == 1 else 'are'} "
              "read as one system per file, as trec_eval does; if a file holds several runs, split it into one file "
              "per run.", file=sys.stderr)
    cut = judged.report.get("rows_beyond_depth") or {}
    if cut and not quiet:  # trec_eval evaluates every row unless given -M: say where the numbers part from its own
        total = sum(cut.values())
        print(f"gtheory {command}: note: --depth {args.depth}: {total} row{'s' * (total != 1)} ranked below "
              f"{args.depth} not read in {_some([f'{k} ({v})' for k, v in cut.items()], 'run', show=10)} (as "
              f"trec_eval -M {args.depth}; trec_eval without -M evaluates them: AP, recall and NumRet can differ).",
              file=sys.stderr)
    if not quiet:  # one line: what the qrels judge of what the runs retrieved
        print(f"gtheory {command}: {judged.coverage.one_line()}", file=sys.stderr)
    if not quiet and judged.missing == "zero":
        _note_zero_cells(judged, command)
    return judged


def _print_warnings(caught: list, args: argparse.Namespace, command: str) -> None:
    """The warnings recorded while reading the runs, one line each, their fixes in the CLI's terms (--grades
    trec_eval; --judged-only where the subcommand has it)."""
    options = {"judged_only": "--judged-only"} if hasattr(args, "judged_only") else {}
    for w in caught:
        print(f"gtheory {command}: warning: {in_option_names(w.message, options)}", file=sys.stderr)


def _said_of_a_tensor(judged: metrics.JudgedRuns, args: argparse.Namespace, command: str) -> None:
    """What the command says of runs read with --runs that the saved tensor of --judged holds too: the coverage
    warnings (runs that retrieved no judged document, a low judged share: warnings, not hidden by --quiet) and the
    runs that miss topics (a note). The same words as from --runs; the coverage line itself was said by `gtheory
    judge`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", metrics.LowCoverageWarning)
        metrics.io.coverage_warnings(judged)
    _print_warnings(caught, args, command)
    if getattr(args, "quiet", False):
        return
    if _policy(args) == "zero" and judged.missing == "zero":
        _note_zero_cells(judged, command)


def _note_zero_cells(judged: metrics.JudgedRuns, command: str) -> None:
    """Under ``--missing zero``: a note naming the runs that return no result for some qrels topic (scored 0 there,
    as trec_eval -c does), so that a run cut short or a topic lost in a conversion is not a silent 0."""
    import numpy as np

    returned = np.asarray(judged.retrieved)
    if returned.all() or not returned.any():
        return
    nobody = ~returned.any(axis=0)  # qrels topics no run returns: every run scores 0 there, said apart
    if nobody.any():
        gone = [t for t, x in zip(judged.topics, nobody) if x]
        print(f"gtheory {command}: note: no run returns qrels topic{'s' * (len(gone) != 1)} {_some(gone, show=10)}: "
              "every run scores 0 there, as trec_eval -c does; --missing exclude leaves "
              f"{'it' if len(gone) == 1 else 'them'} out instead.", file=sys.stderr)
    some = returned[:, ~nobody]
    if some.all():
        return
    runs = [s for s, row in zip(judged.systems, some) if not row.all()]
    missed = [t for t, every, none in zip(judged.topics, returned.all(axis=0), nobody) if not every and not none]
    cells = int((~some).sum())
    print(f"gtheory {command}: note: {_some(runs, 'run', show=10)} {'does' if len(runs) == 1 else 'do'} not return "
          f"topic{'s' * (len(missed) != 1)} {_some(missed, show=10)} ({cells} run/topic pair{'s' * (cells != 1)}): "
          "scored 0 there, as trec_eval -c does; --missing exclude leaves them out instead.", file=sys.stderr)


def drop_missed_topics(judged: metrics.JudgedRuns, command: str, *, quiet: bool = False) -> metrics.JudgedRuns:
    """With ``--missing exclude``: ``judged`` without the topics some run does not return.

    Their scores are NaN (excluded), and a G-study, a tuning or a ranking comparison needs a complete systems x
    topics matrix, so the study uses the topics every run returns; a note on stderr names the dropped topics
    (unless ``quiet``). Fewer than 2 topics left is refused. Under ``--missing zero`` nothing changes.
    """
    if judged.missing != "exclude":
        return judged
    import numpy as np

    returned = np.asarray(judged.retrieved)
    complete = returned.all(axis=0)
    if complete.all():
        return judged
    topics = list(judged.topics)
    missed = [t for t, ok in zip(topics, complete) if not ok]
    kept = [t for t, ok in zip(topics, complete) if ok]
    if len(kept) < 2:
        raise UsageError(f"--missing exclude: only {len(kept)} of the {len(topics)} topics are returned by every "
                         "run; at least 2 are needed (--missing zero scores a topic a run does not return 0).")
    if not quiet:
        runs = [s for s, row in zip(judged.systems, returned) if not row.all()]
        print(f"gtheory {command}: note: --missing exclude: dropped {len(missed)} of {len(topics)} topics that "
              f"{_some(runs, 'run', show=10)} {'does' if len(runs) == 1 else 'do'} not return (topic"
              f"{'s' * (len(missed) != 1)} {_some(missed, show=10)}); the study uses the other {len(kept)}.",
              file=sys.stderr)
    return judged.subset(topics=kept)


def drop_unreturned_topics(judged: metrics.JudgedRuns, command: str, missing: str, *,
                           quiet: bool = False) -> metrics.JudgedRuns:
    """With ``--missing reml`` or ``henderson`` (which keep the topics some runs miss): ``judged`` without the qrels
    topics no run returns, which hold no scored cell at all, with a note naming them (unless ``quiet``)."""
    import numpy as np

    returned = np.asarray(judged.retrieved).any(axis=0)
    if returned.all():
        return judged
    gone = [t for t, ok in zip(judged.topics, returned) if not ok]
    if not quiet:
        print(f"gtheory {command}: note: --missing {missing}: left out {len(gone)} qrels topic"
              f"{'s' * (len(gone) != 1)} no run returns ({_some(gone, show=10)}); "
              f"{'it holds' if len(gone) == 1 else 'they hold'} no scored cell.", file=sys.stderr)
    return judged.subset(topics=[t for t, ok in zip(judged.topics, returned) if ok])


def check_shape(data: Any, *, min_systems: int = 2, min_topics: int = 2) -> None:
    """Refuse data too small for a study, in the user's terms (not a library's parameter names).

    ``data`` is a :class:`metrics.JudgedRuns` or a systems x topics matrix (DataFrame / array).
    """
    if hasattr(data, "n_systems"):
        n_s, n_t = int(data.n_systems), int(data.n_topics)
    else:
        n_s, n_t = (int(x) for x in data.shape)
    for n, least, what in ((n_s, min_systems, "system"), (n_t, min_topics, "topic")):
        if n < least:
            raise UsageError(f"the data has only {n} {what}{'s' * (n != 1)}; at least {least} are needed.")


#: help of ``--sort``, the same on every subcommand that lists runs
SORT_HELP = "order of the runs listed: by name (default) or by mean score of the first measure, best first"


def add_sort_arg(p: Any) -> None:
    """``--sort {name,mean}`` (:data:`SORT_HELP`)."""
    p.add_argument("--sort", choices=["name", "mean"], default="name", help=SORT_HELP)


#: the help of options that several subcommands take, one text each (an option means the same everywhere)
ALPHA_HELP = "significance level of the tests, in (0, 1) (default 0.05)"
LEVEL_HELP = "confidence level of the intervals, in (0, 1) (default 0.95)"
POWER_HELP = "required power of the tests, in (0, 1) (default 0.8)"
TARGET_HELP = "target Φ (and Eρ² where shown) for the number of topics needed, in (0, 1) (default 0.95)"
SEED_HELP = "seed of the command's random draws (resamples, permutations, splits, starts; default 0)"
CUTOFF_HELP = ("nDCG cut-off k of the tuning study (default 100, as Kanoulas & Aslam's Table 1; named in every output "
               "that uses it; the measures of evaluate, gstudy, plan and compare default to nDCG@10)")
ORIENTATION_HELP = ("layout of SCORES.csv (default auto; 'systems x topics' and 'topics x systems' are the same "
                    "layouts as systems-by-topics and topics-by-systems)")
