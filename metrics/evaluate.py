"""One entry point for every measure: ``evaluate(judged, "AP")``, names in ir_measures syntax (see
:mod:`metrics.measures`) mapped to the functions of :mod:`metrics`.

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

from typing import Callable, Iterable

import pandas as pd

from .ap import average_precision
from .bpref import bpref, bpref_10, bpref_n, bpref_r, rank_eff
from .cg import andcg, dcg, ncg
from .counts import judged_at_k, num_rel, num_rel_ret, num_ret
from .err import GDEVAL_MAX_GRADE, err
from .evaluation import Evaluation
from .fixes import FixableError
from .infap import inferred_ap
from .judged import JudgedRuns
from .measures import MEASURE_SPECS, Measure, MeasureError, _is_ir_measures, parse_measure
from .ndcg import ndcg
from .precision import precision, r_precision
from .qmeasure import q_measure, r_measure
from .rbp import rbp, rbp_residual
from .recall import recall, success
from .rr import reciprocal_rank

__all__ = ["evaluate", "measure_names"]


#: the problems of parameters that exclude or need each other in a name (MeasureError: the CLI names the measure)
_DCG_GAIN = "give either `dcg` (ir_measures) or `gain`, not both"
_P_RBP = "`p` is the persistence of discount=rbp; give discount=rbp with it"
_B_JARVELIN = "`b` is the log base of discount=jarvelin; give discount=jarvelin with it"
_REL_GAIN = "give either `rel` (binary RBP) or `gain`, not both"


def _rel(m: Measure) -> dict:
    return {"relevance_level": m.param("rel")} if m.param("rel") is not None else {}


def _gain_discount(m: Measure) -> dict:
    if m.param("gain") is not None and m.param("dcg") is not None:
        raise MeasureError(f"{m}: {_DCG_GAIN}", str(m), _DCG_GAIN)
    out = {}
    if m.param("gain") is not None:
        out["gain"] = m.param("gain")
    if m.param("dcg") == "exp-log2":
        out["gain"] = "exponential"
    discount = m.param("discount")
    p, b = m.param("p"), m.param("b")
    if p is not None and discount != "rbp":
        raise MeasureError(f"{m}: {_P_RBP}", str(m), _P_RBP)
    if b is not None and discount != "jarvelin":
        raise MeasureError(f"{m}: {_B_JARVELIN}", str(m), _B_JARVELIN)
    if discount == "rbp" and p is not None:
        discount = f"rbp(p={p!r})"
    elif discount == "jarvelin" and b is not None:
        discount = f"jarvelin(b={b!r})"
    if discount is not None:
        out["discount"] = discount
    return out


def _cut(m: Measure) -> dict:
    return {"cutoff": m.cutoff} if m.cutoff is not None else {}


def _ndcg(j: JudgedRuns, m: Measure, jo: bool) -> pd.DataFrame:
    return ndcg(j, cutoff=m.cutoff, judged_only=jo, **_gain_discount(m))


def _rbp(j: JudgedRuns, m: Measure, jo: bool) -> pd.DataFrame:
    kw = {"p": m.param("p", 0.8), **_cut(m)}
    if m.param("rel") is not None:
        if m.param("gain") is not None:
            raise MeasureError(f"{m}: {_REL_GAIN}", str(m), _REL_GAIN)
        kw["gain"] = f"binary(level={float(m.param('rel'))})"
    elif m.param("gain") is not None:
        kw["gain"] = m.param("gain")
    return rbp(j, judged_only=jo, **kw)


def _q(fn: Callable) -> Callable:
    def run(j: JudgedRuns, m: Measure, jo: bool) -> pd.DataFrame:
        kw = {"beta": m.param("beta", 1.0), **_rel(m)}
        if m.param("gain") is not None:
            kw["gain"] = m.param("gain")
        return fn(j, judged_only=jo, **kw)

    return run


_DISPATCH: dict[str, Callable[[JudgedRuns, Measure, bool], pd.DataFrame]] = {
    "AP": lambda j, m, jo: average_precision(j, judged_only=jo, **_cut(m), **_rel(m)),
    "P": lambda j, m, jo: precision(j, cutoff=m.cutoff, judged_only=jo, **_rel(m)),
    "Rprec": lambda j, m, jo: r_precision(j, judged_only=jo, **_rel(m)),
    "Bpref": lambda j, m, jo: bpref(j, judged_only=jo, **_rel(m)),
    "bpref10": lambda j, m, jo: bpref_10(j, judged_only=jo, **_rel(m)),
    "bpref_R": lambda j, m, jo: bpref_r(j, judged_only=jo, **_rel(m)),
    "bpref_N": lambda j, m, jo: bpref_n(j, judged_only=jo, **_rel(m)),
    "RankEff": lambda j, m, jo: rank_eff(j, judged_only=jo, **_rel(m)),
    "infAP": lambda j, m, jo: inferred_ap(j, judged_only=jo, **_rel(m)),
    "RR": lambda j, m, jo: reciprocal_rank(j, judged_only=jo, **_cut(m), **_rel(m)),
    "nDCG": _ndcg,
    "DCG": lambda j, m, jo: dcg(j, judged_only=jo, **_cut(m), **_gain_discount(m)),
    "nCG": lambda j, m, jo: ncg(j, judged_only=jo, **_cut(m), **_gain_discount(m)),
    "AnDCG": lambda j, m, jo: andcg(j, cutoff=m.cutoff, judged_only=jo, **_gain_discount(m)),
    "RBP": _rbp,
    "RBP_residual": lambda j, m, jo: rbp_residual(j, p=m.param("p", 0.8), judged_only=jo, **_cut(m)),
    "Q": _q(q_measure),
    "Rmeasure": _q(r_measure),
    "R": lambda j, m, jo: recall(j, cutoff=m.cutoff, judged_only=jo, **_rel(m)),
    "Success": lambda j, m, jo: success(j, cutoff=m.cutoff, judged_only=jo, **_rel(m)),
    "ERR": lambda j, m, jo: err(j, max_grade=m.param("max_grade", GDEVAL_MAX_GRADE), judged_only=jo, **_cut(m)),
    "Judged": lambda j, m, jo: judged_at_k(j, **_cut(m)),  # a property of the original list: no condensed form
    "NumRel": lambda j, m, jo: num_rel(j, **_rel(m)),
    "NumRet": lambda j, m, jo: (num_rel_ret(j, judged_only=jo, **_rel(m)) if m.param("rel") is not None
                                else num_ret(j, judged_only=jo)),
}
assert set(_DISPATCH) == set(MEASURE_SPECS), "every measure name needs a function"


def measure_names() -> list[str]:
    """The measure names :func:`evaluate` knows (canonical spellings; see :mod:`metrics.measures` for aliases)."""
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
        canonical name) and ``judged_only``. A list of measures: an :class:`~metrics.evaluation.Evaluation`, a
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


def _evaluate_one(judged: JudgedRuns, m: Measure, judged_only: bool | None) -> pd.DataFrame:
    in_name = m.param("judged_only")
    if judged_only is not None and in_name is not None and judged_only != in_name:
        raise FixableError(f"`judged_only={judged_only}` contradicts the measure {str(m)!r}", param="judged_only")
    jo = bool(judged_only if judged_only is not None else (in_name or False))
    out = _DISPATCH[m.name](judged, m, jo)
    out.attrs["measure"] = str(m)
    out.attrs["judged_only"] = jo and "judged_only" in m.spec.params
    return out
