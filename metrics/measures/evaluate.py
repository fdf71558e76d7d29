"""One entry point for every measure: ``evaluate(judged, "AP")``, names in ir_measures syntax (see
:mod:`metrics.measures.names`) mapped to the functions of :mod:`metrics` by the one table of measures,
:data:`metrics.MEASURE_SPECS` (:mod:`metrics.measures.registry`: a measure's parameters, function, arguments and spellings).

| name (evaluate)                         | function                                   |
|-----------------------------------------|--------------------------------------------|
| ``AP``, ``AP@k``                        | :func:`metrics.average_precision`          |
| ``P@k``                                 | :func:`metrics.precision`                  |
| ``Rprec``                               | :func:`metrics.r_precision`                |
| ``RR``, ``RR@k``                        | :func:`metrics.reciprocal_rank`            |
| ``Bpref``                               | :func:`metrics.bpref` (trec_eval)          |
| ``bpref10``, ``bpref_R``, ``bpref_N``   | :func:`metrics.bpref_10`, ``bpref_r``, ``bpref_n`` |
| ``RankEff``                             | :func:`metrics.rank_eff`                   |
| ``infAP``                               | :func:`metrics.inferred_ap`                |
| ``nDCG``, ``nDCG@k``                    | :func:`metrics.ndcg`                       |
| ``DCG``, ``nCG``, ``AnDCG@k``           | :func:`metrics.dcg`, ``ncg``, ``andcg``    |
| ``RBP(p=…)``, ``RBP_residual(p=…)``     | :func:`metrics.rbp`, ``rbp_residual``      |
| ``Q(beta=…)``, ``Rmeasure(beta=…)``     | :func:`metrics.q_measure`, ``r_measure``   |
| ``R@k`` (``Recall@k``)                  | :func:`metrics.recall`                     |
| ``Success@k``                           | :func:`metrics.success`                    |
| ``ERR``, ``ERR@k``                      | :func:`metrics.err` (``max_grade=4``)      |
| ``Judged``, ``Judged@k``                | :func:`metrics.judged_at_k`                |
| ``NumRel``                              | :func:`metrics.num_rel`                    |
| ``NumRet``                              | :func:`metrics.num_ret`                    |
| ``NumRelRet`` (``NumRet(rel=1)``)       | :func:`metrics.num_rel_ret`                |

Parameters in the name: ``rel`` is the relevance level (trec_eval ``-l``; for RBP, binary gain at that level),
``judged_only`` (or a prime, ``AP'``) the condensed list, ``p`` RBP's persistence (default 0.8), ``beta`` Q's and
R-measure's β (default 1), ``gain``/``discount`` a named gain/discount family, ``dcg=exp-log2`` ir_measures'
exponential-gain nDCG, ``max_grade`` ERR's top grade (default 4, as ``gdeval.pl``).

Several measures at once: ``evaluate(judged, ["AP", "nDCG@10", "R@100"])`` returns a dict from each measure's
canonical name to its systems × topics frame (the frame a one-measure call returns).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

import numpy as np

from ._ranked import _labelled
from .evaluation import Evaluation
from gtheory.kit.errors import FixableError
from ..io import JudgedRuns
from .names import MEASURE_SPECS, Measure, _is_ir_measures, parse_measure

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["evaluate", "measure_names"]


def measure_names() -> list[str]:
    """The measure names :func:`evaluate` knows (canonical spellings; see :mod:`metrics.measures.names` for aliases)."""
    return list(MEASURE_SPECS)


def evaluate(
    judged: JudgedRuns, measure: str | Measure | object | Iterable[str | Measure | object], *,
    judged_only: bool | None = None,
) -> pd.DataFrame | Evaluation:
    """Evaluate measures, named in ir_measures syntax, for every system and topic.

    Parameters
    ----------
    judged : the judged-grade tensor (:func:`metrics.judge`).
    measure : a name such as ``"AP"``, ``"P@10"``, ``"R@100"``, ``"RR@10"``, ``"nDCG@20"``, ``"ERR@20"``,
        ``"Judged@10"``, ``"RBP(p=0.8)"``, ``"Q(beta=1)"``, ``"AP'"``; a trec_eval name (``"ndcg_cut.10"``,
        ``"P.10"``, ``"recall.100"``, ``"map"``, ``"recip_rank"``, ``"num_rel_ret"``); a :class:`Measure`; an
        ir_measures measure object (``ir_measures.nDCG@10``); or a list (any iterable) of these.
    judged_only : evaluate the condensed lists (AP′, Q′, nDCG′, …; trec_eval ``-J``). ``None`` (default) takes it
        from the measure (``judged_only=True`` or a prime), else False. Judged@k and NumRel do not change with it.

    Returns
    -------
    pandas.DataFrame or Evaluation
        One measure: systems × topics (index ``system``, columns ``topic``); ``df.attrs`` holds ``measure`` (the
        canonical name) and ``judged_only``. A list of measures: an :class:`~metrics.measures.evaluation.Evaluation`, a
        read-only mapping from each canonical name (``"nDCG@10"`` for ``"ndcg_cut.10"``), in the order given, to that
        frame (``res["AP"]``, as the dict earlier versions returned), with the per-run table of trec_eval's ``all``
        rows (``res.means()``: the mean over topics, totals for the counts), ``summary()``, ``per_topic()`` (one long
        table ``system, topic, measure, score``), ``to_csv``/``to_json``/``from_json``.

    Raises
    ------
    ValueError
        An unknown measure (the message lists the known ones), a malformed name (the message shows the grammar),
        ``judged_only`` contradicting the measure's own ``judged_only``, an empty list, or the same measure twice in a
        list (also under two spellings).

    Notes
    -----
    The formulas and sources are in each function's docstring and in ``docs/measures.md``.

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import evaluate
    >>> j = single_topic([[1, 0, None, 1]], qrels=[1, 1, 1, 0])
    >>> float(evaluate(j, "AP").iloc[0, 0]), round(float(evaluate(j, "AP'").iloc[0, 0]), 4)
    (0.5, 0.5556)
    >>> float(evaluate(j, "P@2").iloc[0, 0])
    0.5
    >>> res = evaluate(j, ["AP", "recall.2", "Judged@4"])
    >>> list(res), [round(float(df.iloc[0, 0]), 4) for df in res.values()]
    (['AP', 'R@2', 'Judged@4'], [0.5, 0.3333, 0.75])
    >>> res.means().round(4).to_dict("records")
    [{'AP': 0.5, 'R@2': 0.3333, 'Judged@4': 0.75}]
    """
    if judged_only is not None and not isinstance(judged_only, bool):
        raise TypeError(f"`judged_only` must be True, False or None; got {judged_only!r}")
    if isinstance(measure, (str, Measure)) or _is_ir_measures(measure):
        return _evaluate_one(judged, parse_measure(measure), judged_only)
    try:
        items = list(measure)  # type: ignore[arg-type]
    except TypeError:
        parse_measure(measure)  # raises the TypeError that names what a measure may be
        raise
    if not items:
        raise ValueError("`measure` is an empty list; give at least one measure, e.g. ['AP', 'nDCG@10']")
    parsed: dict[str, Measure] = {}
    for item in items:
        m = parse_measure(item)
        if str(m) in parsed:
            raise ValueError(f"the measure {str(m)!r} is given twice (as {item!s}); give each measure once")
        parsed[str(m)] = m
    return Evaluation({name: _evaluate_one(judged, m, judged_only) for name, m in parsed.items()})


def measure_scores(judged: JudgedRuns, measure: str | Measure | object, *, judged_only: bool | None = None
                   ) -> np.ndarray:
    """The scores of one measure (any name :func:`evaluate` takes) as a float64 (n_systems, n_topics) array, in
    ``judged``'s order of systems and topics: what :func:`evaluate` returns for it, without the labels (and without
    importing pandas: the command line's terminal tables). Errors as :func:`evaluate`'s."""
    if judged_only is not None and not isinstance(judged_only, bool):
        raise TypeError(f"`judged_only` must be True, False or None; got {judged_only!r}")
    return _scores_one(judged, parse_measure(measure), judged_only)[0]


def _scores_one(judged: JudgedRuns, m: Measure, judged_only: bool | None) -> tuple[np.ndarray, bool]:
    """The scores of ``m`` (the registry's function, by its array core) and whether they are of condensed lists."""
    in_name = m.param("judged_only")
    if judged_only is not None and in_name is not None and judged_only != in_name:
        raise FixableError(f"`judged_only={judged_only}` contradicts the measure {str(m)!r}", param="judged_only")
    jo = bool(judged_only if judged_only is not None else (in_name or False))
    import metrics  # the package: its measure functions, by the names the registry gives (metrics.measures.registry)

    name, kwargs = m.spec.call(m, jo)
    return getattr(metrics, name).scores(judged, **kwargs), jo and "judged_only" in m.spec.params


def _evaluate_one(judged: JudgedRuns, m: Measure, judged_only: bool | None) -> pd.DataFrame:
    values, jo = _scores_one(judged, m, judged_only)
    out = _labelled(values, judged)  # scored already: the frame the measure's function returns
    out.attrs["measure"] = str(m)
    out.attrs["judged_only"] = jo
    return out
