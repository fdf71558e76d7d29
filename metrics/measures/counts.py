"""Document counts per system and topic — NumRel, NumRet, NumRelRet (trec_eval ``num_rel``, ``num_ret``,
``num_rel_ret``) — and Judged@k, the share of the top k that is judged.

.. math::

    \\mathrm{NumRel}(s, t) = R_t, \\qquad \\mathrm{NumRet}(s, t) = n_{s,t}, \\qquad
    \\mathrm{NumRelRet}(s, t) = \\sum_{r=1}^{n_{s,t}} [x_{s,t,r} \\ge \\ell], \\qquad
    \\mathrm{Judged}@k(s, t) = \\frac{1}{\\min(k, n_{s,t})} \\sum_{r=1}^{\\min(k, n_{s,t})} [x_{s,t,r} \\text{ judged}]

with :math:`R_t` the judged documents of topic :math:`t` with grade :math:`\\ge \\ell` (relevance level, trec_eval
``-l``), :math:`n_{s,t}` the length of the ranked list (after the ``depth`` of :func:`metrics.judge`, trec_eval
``-M``) and "judged" any document with a qrels entry, whatever its grade (negative grades included).

Sources: trec_eval ``m_num_rel.c``, ``m_num_ret.c``, ``m_num_rel_ret.c`` (validated against pytrec_eval, plain and
``judged_docs_only``, on TREC-9 Web, TREC DL 2019 and Robust 2004); Judged@k as ir_measures' ``Judged`` (its
``judged`` provider, from OpenNIR), reported next to nDCG@10 to flag unjudged documents in the top ranks.
"""
from __future__ import annotations

import numpy as np

from ..io import ABSENT, JudgedRuns, check_judged
from ._ranked import (
    frame_measure,
    scored,
    check_lists,
    evaluated_list,
    list_length,
    relevance_at_ranks,
    safe_divide,
)
from gtheory.kit.params import validate_params

__all__ = ["num_rel", "num_ret", "num_rel_ret", "judged_at_k"]


@frame_measure
@validate_params()
def num_rel(judged: JudgedRuns, *, relevance_level: float = 1, judged_only: bool = False) -> np.ndarray:
    """The number of relevant documents of each topic (NumRel; trec_eval ``num_rel``), for every system.

    .. math:: \\mathrm{NumRel}(s, t) = R_t = |\\{d : \\mathrm{grade}_t(d) \\ge \\ell\\}|

    Parameters
    ----------
    judged : the judged-grade tensor (:func:`metrics.judge`).
    relevance_level : grades ≥ this are relevant (default 1).
    judged_only : accepted for a uniform signature; R is a property of the qrels and does not change.

    Returns
    -------
    pandas.DataFrame
        systems × topics of floats, the same value down each column (R does not depend on the system; under
        ``missing="zero"`` a topic a run did not return has it too, as trec_eval ``-c`` reports). NaN for such topics
        under ``missing="exclude"``.

    Notes
    -----
    trec_eval ``m_num_rel.c``. Matches pytrec_eval ``num_rel`` exactly, with ``-l 1`` and ``-l 2`` (``NumRel(rel=2)``;
    pytrec_eval-terrier 0.5.11 passes ``-l`` through to it, although ir_measures' provider notes it did not).

    References
    ----------
    .. [1] C. Buckley and E. M. Voorhees, "Retrieval system evaluation", in *TREC: Experiment and Evaluation in
       Information Retrieval*, MIT Press, 2005, 53–75.

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import num_rel
    >>> j = single_topic([[2, 0, None], []], qrels=[2, 1, 1, 0])
    >>> num_rel(j)["1"].tolist(), num_rel(j, relevance_level=2)["1"].tolist()
    ([3.0, 3.0], [1.0, 1.0])
    """
    check_lists(judged, judged_only)  # R is the qrels', the same for the condensed lists
    R = judged.n_relevant(relevance_level)
    return scored(np.broadcast_to(R[None, :], judged.shape[:2]), judged)


@frame_measure
def num_ret(judged: JudgedRuns, *, judged_only: bool = False) -> np.ndarray:
    """The number of documents each system returned for each topic (NumRet; trec_eval ``num_ret``).

    .. math:: \\mathrm{NumRet}(s, t) = n_{s,t}

    Parameters
    ----------
    judged : the judged-grade tensor (:func:`metrics.judge`); lists are counted up to its depth (trec_eval ``-M``).
    judged_only : count the condensed lists, i.e. the judged documents only (trec_eval ``-J``).

    Returns
    -------
    pandas.DataFrame
        systems × topics of floats; 0 for a topic a run did not return (NaN under ``missing="exclude"``).

    Notes
    -----
    trec_eval ``m_num_ret.c``. Matches pytrec_eval ``num_ret`` exactly (plain and ``judged_docs_only``).

    References
    ----------
    .. [1] C. Buckley and E. M. Voorhees, "Retrieval system evaluation", in *TREC: Experiment and Evaluation in
       Information Retrieval*, MIT Press, 2005, 53–75.

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import num_ret
    >>> j = single_topic([[2, 0, None], []], qrels=[2, 1, 1, 0])
    >>> num_ret(j)["1"].tolist(), num_ret(j, judged_only=True)["1"].tolist()
    ([3.0, 0.0], [2.0, 0.0])
    """
    return scored(list_length(evaluated_list(judged, judged_only)), judged)


@frame_measure
@validate_params()
def num_rel_ret(
    judged: JudgedRuns, *, relevance_level: float = 1, judged_only: bool = False
) -> np.ndarray:
    """The number of relevant documents each system returned for each topic (NumRelRet; trec_eval ``num_rel_ret``).

    .. math:: \\mathrm{NumRelRet}(s, t) = \\sum_{r=1}^{n_{s,t}} [x_{s,t,r} \\ge \\ell]

    Parameters
    ----------
    judged : the judged-grade tensor (:func:`metrics.judge`).
    relevance_level : grades ≥ this are relevant (trec_eval ``-l``; default 1).
    judged_only : count on the condensed lists (trec_eval ``-J``; the same count, as relevant documents are judged).

    Returns
    -------
    pandas.DataFrame
        systems × topics of floats, between 0 and NumRel. NaN for topics a run did not return under
        ``missing="exclude"``.

    Notes
    -----
    trec_eval ``m_num_rel_ret.c``; ir_measures spells it ``NumRet(rel=1)``. NumRelRet / NumRel is the recall of the
    whole list. Matches pytrec_eval ``num_rel_ret`` exactly (``-l 1`` and ``-l 2``).

    References
    ----------
    .. [1] C. Buckley and E. M. Voorhees, "Retrieval system evaluation", in *TREC: Experiment and Evaluation in
       Information Retrieval*, MIT Press, 2005, 53–75.

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import num_rel_ret
    >>> j = single_topic([[2, 0, None, 1], []], qrels=[2, 1, 1, 0])
    >>> num_rel_ret(j)["1"].tolist(), num_rel_ret(j, relevance_level=2)["1"].tolist()
    ([2.0, 0.0], [1.0, 0.0])
    """
    _, rel, _ = relevance_at_ranks(judged, cutoff=None, relevance_level=relevance_level, judged_only=judged_only)
    return scored(rel.sum(axis=-1), judged)


@frame_measure
@validate_params()
def judged_at_k(judged: JudgedRuns, *, cutoff: int | None = None) -> np.ndarray:
    """The share of the top ``cutoff`` documents that have a judgment (Judged@k, as ir_measures' ``Judged``).

    .. math:: \\mathrm{Judged}@k = \\frac{1}{\\min(k, n)} \\sum_{r=1}^{\\min(k, n)} [x_r \\text{ judged}]

    Parameters
    ----------
    judged : the judged-grade tensor (:func:`metrics.judge`).
    cutoff : k, a positive integer; ``None`` (default): the whole list.

    Returns
    -------
    pandas.DataFrame
        systems × topics, in [0, 1]. A list shorter than k is divided by its length (ir_measures' rule), so a run
        returning 5 judged documents has Judged@10 = 1. A topic a run did not return scores 0 (NaN under
        ``missing="exclude"``; ir_measures reports nothing for it).

    Notes
    -----
    A document is judged when the qrels hold it, whatever its grade: a grade ≤ -1 (pooled but unjudged for
    trec_eval) counts as judged here, as in ir_measures, which looks the document up in the qrels. Judged@k describes
    the original list, so it has no condensed form: ``evaluate(..., judged_only=True)`` leaves it unchanged (on a
    condensed list it would be 1 by construction). ir_measures ranks tied scores by docno ascending where trec_eval
    (and :func:`metrics.judge` by default) ranks them by docno descending; a cut-off through tied scores can then
    count different documents.

    References
    ----------
    .. [1] S. MacAvaney, C. Macdonald and I. Ounis, "Streamlining evaluation with ir-measures", *Proc. ECIR 2022*,
       LNCS 13186, 305–310 (ir_measures; its ``judged`` provider computes Judged@k, adapted from OpenNIR).

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import judged_at_k
    >>> j = single_topic([[1, None, 0, None], [0, 1], []], qrels=[1, 1, 0, 0])
    >>> judged_at_k(j, cutoff=2)["1"].tolist(), judged_at_k(j, cutoff=10)["1"].tolist()
    ([0.5, 1.0, 0.0], [0.5, 1.0, 0.0])
    """
    check_judged(judged)
    k = cutoff
    top = judged.grades if k is None or k >= judged.depth else judged.grades[..., :k]
    n = (top != ABSENT).sum(axis=-1)
    return scored(safe_divide((top >= 0).sum(axis=-1), n), judged)

