"""Judging: :func:`judge` builds the judged-grade tensor (:class:`~metrics.JudgedRuns`) of runs against qrels —
files, objects or in-memory forms — with the checks that they belong together (:func:`check_coverage`) and the
report of what was ignored or noticed. The reading and judging of the rows is :mod:`metrics.io._build`."""
from __future__ import annotations

import warnings
from typing import Any, Callable, Literal, Sequence

import numpy as np

from . import _build
from ._grades import apply_grade_policy
from .coverage import InputMismatchError, _listed, _per_rank, coverage_warnings
from .inputs import is_in_memory
from .judged import JudgedRuns
from .trec_lines import PathLike, check_read_options, natural_topic_order
from .trec_qrels import Qrels, read_qrels
from .trec_runs import Run, RunSet, _expand, _run_name, duplicate_error, read_run, runs_from_memory
from gtheory.kit.checks import check_progress
from gtheory.kit.errors import FixableError, FixableWarning
from gtheory.kit.params import validate_params

__all__ = ["judge", "DepthWarning", "DEFAULT_DEPTH", "check_coverage"]

Missing = Literal["zero", "exclude"]
#: ranks kept per topic when ``judge`` is given no depth: the TREC limit
DEFAULT_DEPTH = 1000


class DepthWarning(FixableWarning):
    """:func:`judge` without a ``depth`` cut runs that rank documents below the TREC limit of 1000: trec_eval without
    ``-M`` evaluates those rows (``fix``: a ``depth``)."""


# ------------------------------------------------------------------------------------------------------- judge
_WHAT = {"runs": "run files, a directory of runs, a RunSet, or runs in memory (a DataFrame or a dict)",
         "qrels": "a qrels file, a Qrels, or qrels in memory (a DataFrame or a dict)"}


@validate_params()
def judge(
    runs: RunSet | Sequence[Run] | PathLike | Sequence[PathLike],
    qrels: Qrels | PathLike,
    depth: int | None = None,
    *,
    missing: Missing = "zero",
    topics: Sequence[str] | None = None,
    ties: str = "trec_eval",
    duplicates: str = "error",
    workers: int | None = None,
    grades: str = "exact",
    progress: bool | str | Callable[[str], Any] = "auto",
) -> JudgedRuns:
    """Build the judged-grade tensor of ``runs`` against ``qrels``.

    Parameters
    ----------
    runs : a :class:`RunSet` from :func:`read_runs`, or run file paths / a directory of runs (then files are read,
        parsed and judged in ``workers`` processes, with ``ties`` and ``duplicates`` as in :func:`read_run`), or runs
        in memory (:mod:`metrics.io.inputs`): a DataFrame ``query_id, doc_id, score[, run]`` (or ``topic, docno,
        score[, system]``), a dict ``{qid: {docid: score}}`` or ``{system: {qid: {docid: score}}}``, an iterable of
        ``ScoredDoc`` named tuples (ir_datasets' ``scoreddocs_iter()``), ranked by the same rules as files.
    qrels : a :class:`Qrels`, the path of a qrels file, or qrels in memory: a DataFrame ``query_id, doc_id,
        relevance`` (or ``topic, docno, grade``), a dict ``{qid: {docid: grade}}`` or ``Qrel`` named tuples
        (ir_datasets' ``qrels_iter()``).
    depth : ranks kept per topic (trec_eval's ``-M``). ``None`` (default) keeps 1000, the TREC limit, and warns
        :class:`DepthWarning` when some run ranks documents below 1000: trec_eval's own default is no limit, so on
        such runs AP, recall and NumRet differ from trec_eval without ``-M``. An explicit ``depth`` (1000 as
        ``trec_eval -M 1000``, or more) cuts silently. The rows cut per run are in ``report["rows_beyond_depth"]``.
        The tensor's depth is the smaller of this and the deepest ranked list.
    missing : policy for a qrels topic that a run does not return: ``"zero"`` (default) scores it 0 in every measure,
        as ``trec_eval -c`` does (RBP's residual is then 1: the whole weight is unexamined); ``"exclude"`` makes
        measures give NaN for it.
    topics : evaluate only these qrels topics (default: every topic in the qrels, in natural order).
    grades : ``"exact"`` (default) keeps real-valued grades exactly and warns once
        (:class:`metrics.FractionalGradeWarning`) when some are not integers; ``"trec_eval"`` truncates
        them towards 0 as trec_eval's ``atol`` does (1.9 → 1), for trec_eval's numbers.
    ties, duplicates : how run files are read (see :func:`read_run`). With ``duplicates="error"`` every run file
        is read before the error, which lists each file that repeats a docno with its count (``err.counts``).
    workers : processes reading run files (default: the number of CPUs; ``1`` reads in this process).
    progress : ``"auto"`` (default) shows a progress bar on stderr when reading run files takes more than about 2
        seconds and stderr is a terminal (never into a pipe or a log file); ``True`` shows it anyway, ``False``
        never; a callable receives a message per run read instead.

    Returns
    -------
    JudgedRuns
        ``report`` lists run topics absent from the qrels (ignored, as trec_eval does), qrels topics a run misses,
        topics with no relevant document, and rows cut by ``depth``; ``coverage`` the judged share of what the runs
        retrieved (:class:`~metrics.io.coverage.Coverage`).

    Raises
    ------
    metrics.InputMismatchError
        The runs and qrels share no topic, or no run retrieved a judged document (the message quotes a topic or a
        docno of each side); a run without any judged document, or less than half of the top-10 documents judged,
        warns (:class:`metrics.LowCoverageWarning`).
    TrecFormatError
        A malformed run or qrels file (naming file, line and problem).
    ValueError
        Two runs with one system name, bad options.

    Notes
    -----
    Topics are those of the qrels: a topic that only appears in runs is ignored (counted in ``report``). Ranks follow
    the order the runs were read with (trec_eval's score-descending, docno-descending order by default). Run files
    are read one at a time into a tensor allocated once, so memory stays close to the final tensor's size.
    """
    for arg, value in (("runs", runs), ("qrels", qrels)):
        if value is None or isinstance(value, (bool, int, float, bytes)):
            raise TypeError(f"`{arg}` must be {_WHAT[arg]}; got {'None' if value is None else type(value).__name__}")
    warn_cut = depth is None
    depth = DEFAULT_DEPTH if depth is None else depth
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise ValueError(f"`depth` must be a positive integer; got {depth!r}")
    check_read_options(ties, duplicates)
    if missing not in ("zero", "exclude"):
        raise ValueError(f"`missing` must be 'zero' or 'exclude'; got {missing!r}")
    if is_in_memory(qrels, (Run, RunSet, Qrels), (Run,)):  # DataFrame, {qid: {docid: grade}} or Qrel named tuples
        qrels = read_qrels(qrels)
    if is_in_memory(runs, (Run, RunSet, Qrels), (Run,)):  # DataFrame, {qid: {docid: score}} dicts or ScoredDoc tuples
        runs = runs_from_memory(runs, ties=ties, duplicates=duplicates)
    elif isinstance(runs, Run):
        runs = [runs]
    if not isinstance(qrels, Qrels):
        qrels = read_qrels(qrels)
    qrels = apply_grade_policy(qrels, grades)
    qi = _build.index_qrels(qrels, topics)
    depth = int(depth)
    files = None
    if isinstance(runs, RunSet) or (isinstance(runs, (list, tuple)) and runs and all(isinstance(r, Run) for r in runs)):
        run_list = list(runs)
        names = [r.name for r in run_list]
        _check_unique_names(names, [r.path for r in run_list], "runs")
        results = (_build.judge_run(r, qi, depth) for r in run_list)
    else:
        files = _expand(runs)
        names = [_run_name(f) for f in files]
        _check_unique_names(names, [str(f) for f in files], "files")
        results = _build.judge_files(files, qi, depth, ties, duplicates, workers)
    if not names:
        raise ValueError("no runs to judge")
    show = check_progress(progress)
    bar = _build.Progress(len(names), False if isinstance(runs, RunSet) else show)
    tensor, pieces = _build.build(results, len(names), qi, depth, bar)
    found = [r.duplicate for r in pieces if r.duplicate is not None]
    if found:
        raise duplicate_error(found)
    grade_codes, ids, n_ret = tensor.arrays()
    judged = JudgedRuns(
        grades=grade_codes,
        doc_ids=ids,
        levels=qi.levels.astype(np.float64),
        qrels_level=qi.row_level,
        qrels_offsets=qi.offsets,
        systems=tuple(names),
        topics=qi.topics,
        n_retrieved=n_ret,
        missing=missing,
        report=_report(names, pieces, n_ret, qi, missing),
    )
    if files is None:
        get_run = list(runs).__getitem__
    else:  # files: read one again only to quote it in an error message
        get_run = lambda i: read_run(files[i], name=names[i], ties=ties, duplicates="first")  # noqa: E731
    check_coverage(judged, qrels, get_run, topics_selected=topics is not None)
    cut = judged.report["rows_beyond_depth"]
    if warn_cut and cut:
        total = sum(cut.values())
        some = ", ".join(f"{k} ({v})" for k, v in list(cut.items())[:5]) + (f" and {len(cut) - 5} more" if len(cut) > 5
                                                                            else "")
        warnings.warn(DepthWarning(
            f"{total} row(s) ranked below {depth} were not read, in {len(cut)} run(s): {some}. trec_eval without -M "
            "evaluates them, so AP, recall and NumRet can differ from its numbers",
            param="depth", fix={"depth": ...}, advice=f"pass depth={depth} to keep the TREC limit without this "
            "warning (trec_eval -M), or a larger depth to read them"), stacklevel=2)
    return judged


def _check_unique_names(names: list[str], sources: list[str], what: str) -> None:
    """Two runs with one system name would be two rows with one label: refused, naming both sources."""
    if len(set(names)) == len(names):
        return
    first: dict[str, str] = {}
    clashes = []
    for nm, src in zip(names, sources):
        if nm in first:
            clashes.append(f"{nm!r}: {first[nm]} and {src}")
        else:
            first[nm] = src
    dup = sorted({n for n in names if names.count(n) > 1})
    if what == "files":
        raise FixableError(f"several run files give the same system name(s) {dup} ({'; '.join(clashes)})",
                           fix={"names": ...}, advice="read them with read_runs(names=...)")
    raise ValueError(
        f"several runs have the same name(s) {dup} ({'; '.join(clashes)}); each run is one system: give each "
        "Run a distinct `name`"
    )


def _report(names: list[str], pieces: list, n_ret: np.ndarray, qi, missing: str) -> dict:
    missing_topics = {nm: [qi.topics[t] for t in np.flatnonzero(n_ret[i] == 0)] for i, nm in enumerate(names)}
    rel_levels = qi.levels > 0
    has_rel = np.zeros(len(qi.topics), dtype=bool)
    if qi.row_level.size:
        topic_of = np.repeat(np.arange(len(qi.topics)), np.diff(qi.offsets))
        has_rel[topic_of[rel_levels[qi.row_level]]] = True
    return {
        "run_topics_not_in_qrels": {nm: r.unknown_topics for nm, r in zip(names, pieces) if r.unknown_topics},
        "qrels_topics_missing_from_run": {k: v for k, v in missing_topics.items() if v},
        "topics_without_relevant": [qi.topics[t] for t in np.flatnonzero(~has_rel)],
        "rows_beyond_depth": {nm: r.beyond_depth for nm, r in zip(names, pieces) if r.beyond_depth},
        "duplicates_dropped": {nm: r.dropped for nm, r in zip(names, pieces) if r.dropped},
        "mixed_tags": {nm: list(r.tags) for nm, r in zip(names, pieces) if r.tags},
        "missing_policy": missing,
    }


# --------------------------------------------------------------------------------------------------- checks
def _example_mismatch(run: Run, qrels: Qrels, topics: Sequence[str]) -> str:
    """``run``'s first document for a topic the qrels judge, beside the qrels' documents of that topic, with a hint
    when the docnos differ only by a prefix, a suffix or case (looked for among the run's top 20 for that topic)."""
    tset = set(topics)
    rows = np.flatnonzero([t in tset for t in run.topic])
    if not rows.size:
        return ""
    i = int(rows[0])
    t, d = str(run.topic[i]), str(run.docno[i])
    judged_docs = [str(x) for x in qrels.docno[qrels.topic == t]]
    text = f"e.g. run {run.name!r} ranks {d!r} at rank {int(run.rank[i])} for topic {t!r}, where the qrels judge " \
           f"{', '.join(map(repr, judged_docs[:3]))}" + (" ..." if len(judged_docs) > 3 else "")
    lower = {q.lower() for q in judged_docs}
    for r in run.docno[rows[:20]][run.topic[rows[:20]] == t]:
        r = str(r)
        for q in judged_docs:
            if r == q:
                continue
            if r.endswith(q):
                return text + f" (the run's docnos carry a prefix {r[: len(r) - len(q)]!r} the qrels lack?)"
            if q.endswith(r):
                return text + f" (the qrels' docnos carry a prefix {q[: len(q) - len(r)]!r} the run lacks?)"
            if r.startswith(q):
                return text + f" (the run's docnos carry a suffix {r[len(q):]!r} the qrels lack?)"
            if q.startswith(r):
                return text + f" (the qrels' docnos carry a suffix {q[len(r):]!r} the run lacks?)"
        if r.lower() in lower:
            return text + " (the docnos differ in case?)"
    return text


def check_coverage(
    judged: JudgedRuns,
    qrels: "Qrels",
    run: Callable[[int], Run],
    *,
    topics_selected: bool = False,
    stacklevel: int = 3,
) -> None:
    """Refuse runs and qrels that do not match; warn about very low coverage (see the module docstring).

    ``run(i)`` gives system ``i``'s :class:`Run` (read again only to quote an example in an error message).

    Raises
    ------
    InputMismatchError
        No run returns a qrels topic (message: example topics of both sides), or no run retrieved a judged document
        (message: a run's docno beside the qrels' docnos for the same topic).
    """
    n_ret = judged.n_retrieved
    if int(n_ret.sum()) == 0:
        rep = judged.report.get("run_topics_not_in_qrels", {})
        run_topics = natural_topic_order(t for ts in rep.values() for t in ts)
        qt = list(judged.topics)
        which = "the selected `topics`" if topics_selected else "the qrels"
        raise InputMismatchError(
            f"the runs and {which} share no topic: the runs' topics are {_listed(run_topics, 5)} "
            f"({len(run_topics)} topics), {which}' {_listed(qt, 5)} ({len(qt)} topics); are these the qrels of "
            "this collection, and are the topic ids written alike?"
        )
    if not (_per_rank(judged.grades, lambda x: x >= 0) > 0).any():
        s = int(np.flatnonzero(n_ret.sum(axis=1))[0])
        example = _example_mismatch(run(s), qrels, judged.topics)
        raise InputMismatchError(
            f"no run retrieved a single judged document ({int(n_ret.sum())} documents retrieved for "
            f"{int((n_ret > 0).any(axis=0).sum())} qrels topics, none of them in the qrels)"
            + (f": {example}" if example else "")
            + "; every measure would be 0. Do the run and qrels docnos match (prefix, case, collection)?"
        )
    coverage_warnings(judged, stacklevel=stacklevel + 1)
