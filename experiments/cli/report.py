"""``gtheory report``: write the Kanoulas & Aslam (CIKM 2009) tuning study of a collection as a report.

The report holds: the tuned discount vs the Zipf, log and linear discounts (Table 1, Figs. 2, 3, 6), Φ against
the number of topics with confidence bands (Fig. 4), the tuned gain ratios by cut-off vs linear / exponential gains
(Tables 2, 3), Kendall τ / τ_AP between the induced system rankings with scatter plots naming the best systems
(Table 4, Figs. 7, 8), ASL curves of Sakai's bootstrap (Fig. 9), an out-of-sample check (tune on half the topics,
measure on the other half) and — on the embedded TREC-9 data — the paper's published TREC 9 numbers beside the
measured ones. Its last section says how to read each part.

--format html writes one self-contained page (figures embedded, nothing else needed: it can be mailed);
--format md writes Markdown that refers to the figure files. Both formats also write the figures (PNG, or SVG with
--figure-format svg) and tables.json (every number unrounded) into --out.

Fig. 9 (ASL curves) and the unconstrained / joint discounts are at nDCG@20 as in the paper unless you give
--cutoff (then at that cut-off) or --asl-cutoff.

The default run takes a few minutes on TREC-9; --quick (fewer cut-offs, B = 200, 3 splits) takes well under a
minute.

examples:
  gtheory report --out report/                       # embedded TREC-9, Markdown
  gtheory report --quick --format html --out /tmp/r  # quick HTML version, one file
  gtheory report --quick --format html --figure-format svg --out /tmp/r
  gtheory report --runs runs/ --qrels qrels.txt --cutoff 20 --out my-collection/
  gtheory report --runs runs/ --qrels qrels.txt --title "TREC 2019 DL passage" --out dl19/
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from ._data import CUTOFF_HELP, SEED_HELP
from ._data import add_data_args, add_quiet_arg, add_resamples_arg, check_shape, drop_missed_topics, load_judged
from ._common import check_option, emit_json, seed_rule
from ._outputs import check_output_path, mark_written
from ._errors import in_option_names
from . import UsageError


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "report",
        help="write the paper's tuning study on a collection (Markdown/HTML + figures)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_data_args(p)
    p.add_argument("--out", metavar="DIR", default="gtheory-report",
                   help="directory for the report and its figures (created; default ./gtheory-report)")
    p.add_argument("--format", choices=["md", "html"], default="md",
                   help="report format (default md); html is one self-contained file with the figures embedded")
    p.add_argument("--figure-format", choices=["png", "svg"], default="png",
                   help="figure format, in the HTML and as files (default png)")
    p.add_argument("--cutoff", type=int, default=None, help=CUTOFF_HELP)  # Tables 1, 3, 4; Fig. 9 unless --asl-cutoff
    p.add_argument("--asl-cutoff", type=int, default=None,
                   help="cut-off of Fig. 9 (ASL curves) and of the unconstrained / joint discounts (default: "
                        "--cutoff when given, else 20 as in the paper)")
    p.add_argument("--quick", action="store_true",
                   help="fewer cut-offs, B = 200, 3 topic splits: under a minute (tests, CI)")
    add_resamples_arg(p, None, "bootstrap replicates and swap-method trials (default 1000; 200 with --quick)")
    p.add_argument("--splits", type=int, default=None,
                   help="topic splits of the out-of-sample check (default 10; 3 with --quick)")
    p.add_argument("--seed", type=int, default=0, help=SEED_HELP)
    p.add_argument("--title", default=None,
                   help="the collection's name in the report's title (default: the folder of --runs, or the "
                        "data's own description, e.g. the embedded TREC-9 data's)")
    add_quiet_arg(p)
    p.add_argument("--json", action="store_true",
                   help="print the files written and the key numbers as JSON (instead of the report's path)")
    return p


#: the Python API's (ReportSettings') parameter names in messages → the options of this command
_OPTIONS = {"cutoff": "--cutoff", "n_resamples": "--n-resamples", "n_splits": "--splits", "seed": "--seed", "format": "--format", "title": "--title",
            "out_dir": "--out", "judged": "the data", "curves": "section 7's τ curve"}


def run(args: argparse.Namespace) -> int:
    from experiments.report import ReportSettings, check_report_directory, default_title, run_study, write_report

    cutoff = 100 if args.cutoff is None else args.cutoff
    asl_cutoff = args.asl_cutoff if args.asl_cutoff is not None else (20 if args.cutoff is None else args.cutoff)
    # before loading and minutes of study, not after
    for option, param, value in (("--cutoff", "cutoff", cutoff), ("--asl-cutoff", "cutoff", asl_cutoff),
                                 ("--n-resamples", "n_resamples", args.n_resamples), ("--splits", "n_splits", args.splits)):
        check_option(option, param, value)  # the API's rules (gtheory.kit.params)
    check_option("--seed", "seed", args.seed, seed_rule())
    if args.title is not None and not args.title.strip():
        raise UsageError("--title must not be empty")
    out = check_output_path(args.out, "--out", directory=True, args=args, quiet=args.quiet)
    check_report_directory(out)  # a directory of other files is not replaced: refused before minutes of study
    t0 = time.perf_counter()

    def say(msg: str) -> None:
        if not args.quiet:
            print(f"[{time.perf_counter() - t0:6.1f} s] {msg}", file=sys.stderr, flush=True)

    judged = drop_missed_topics(load_judged(args), "report", quiet=args.quiet)
    check_shape(judged)
    say(f"data: {judged.n_systems} systems x {judged.n_topics} topics, grades "
        f"{', '.join(f'{g:g}' for g in judged.levels)}")
    factory = ReportSettings.quick if args.quick else ReportSettings.default
    overrides: dict[str, Any] = {"seed": args.seed}
    if args.n_resamples is not None:
        overrides["n_resamples"] = args.n_resamples
    if args.splits is not None:
        overrides["n_splits"] = args.splits
    if cutoff > judged.depth:
        raise UsageError(f"--cutoff {cutoff} exceeds the run depth {judged.depth}; give --cutoff {judged.depth} or "
                         "less")
    if args.asl_cutoff is not None and args.asl_cutoff > judged.depth:
        raise UsageError(f"--asl-cutoff {args.asl_cutoff} exceeds the run depth {judged.depth}; give --asl-cutoff "
                         f"{judged.depth} or less")
    overrides["asl_cutoff"] = asl_cutoff
    settings = factory(cutoff=cutoff, **overrides)
    # cut-offs deeper than the runs (e.g. 200 with --depth 100) are dropped rather than refused
    settings = settings.fit_depth(judged.depth)
    title = args.title
    if title is None and args.runs and not judged.report.get("description"):
        title = default_title(args.runs) or None
    try:
        study = run_study(judged, settings=settings, progress=say, title=title)
    except (ValueError, TypeError) as exc:
        raise in_option_names(exc, _OPTIONS) from None
    say("writing figures and the report")
    # a temporary directory that replaces --out at the end
    path = write_report(study, out, format=args.format, figure_format=args.figure_format)
    mark_written(out)
    say(f"done in {time.perf_counter() - t0:.0f} s")
    if not args.json and not args.quiet and study.verdict:
        print(f"Should I tune nDCG@{study.settings.cutoff}? {study.verdict}", file=sys.stderr)
    if args.json:
        emit_json(_summary(study, path, args.figure_format))
    else:
        print(path)
    return 0


def _summary(study: Any, path: Path, figure_format: str = "png") -> dict[str, Any]:
    """The files written and the numbers a reader looks for first (tables.json holds every number)."""
    import math

    from experiments.report import FIGURES, figure_file

    def num(v: Any) -> Any:  # NaN and inf are written as null by emit_json
        return float(v)

    def count(v: Any) -> Any:  # topics needed: an integer, or null when never reached (inf)
        v = num(v)
        return int(v) if math.isfinite(v) and v.is_integer() else v

    out = path.parent
    dt, cv = study.discount_table, study.cv_summary
    return {
        "report": str(path),
        "tables": str(out / "tables.json"),
        "figures": [str(out / figure_file(name, figure_format)) for name in FIGURES],
        "collection": study.name,
        "verdict": study.verdict,
        "adopted": {a.what: a.row_label for a in study.adopted},
        "n_systems": study.n_systems,
        "n_topics": study.n_topics,
        "cutoff": study.settings.cutoff,
        "target": study.settings.target,
        "topics_needed": {d: count(dt.loc[d, "topics_needed"]) for d in dt.index},
        "phi": {d: num(dt.loc[d, "phi"]) for d in dt.index},
        "kendall_tau_vs_optimal": {d: num(study.tau_discount.loc["optimal", d])
                                   for d in study.tau_discount.columns if d != "optimal"},
        "discriminative_power": {c: num(v) for c, v in study.power["power"].items()},
        "held_out_phi": {f"{what} {cfg}": num(v) for (what, cfg), v in cv["phi_test"].items()},
        "seconds": num(study.seconds),
    }
