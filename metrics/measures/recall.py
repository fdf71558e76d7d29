"""Recall at a cut-off (R@k) and Success at a cut-off (Success@k), on the judged-grade tensor.

.. math::

    R@k(s, t) = \\frac{\\mathrm{count}(k)}{R_t}, \\qquad
    \\mathrm{Success}@k(s, t) = [\\mathrm{count}(k) > 0], \\qquad
    \\mathrm{count}(k) = \\sum_{r=1}^{\\min(k, n)} [x_{s,t,r} \\ge \\ell]

with :math:`\\ell` the relevance level (trec_eval ``-l``), :math:`R_t` the judged documents of topic :math:`t` with
grade :math:`\\ge \\ell` and :math:`n` the length of the list. R@k is 0 when :math:`R_t = 0`. Unjudged and absent
documents are not relevant. ``judged_only=True`` evaluates the condensed lists (trec_eval ``-J``).

Names: ``R@k`` is ir_measures' (also ``Recall@k``; trec_eval ``recall.k``); ``Success@k`` is ir_measures' and
trec_eval's ``success.k`` — what some papers call "Recall@k" (a relevant document in the top k), which TREC calls
Success@k.

Source: trec_eval ``m_recall.c`` and ``m_success.c`` (Buckley & Voorhees, "Retrieval System Evaluation", in *TREC:
Experiment and Evaluation in Information Retrieval*, MIT Press 2005). Validated against pytrec_eval (``recall_k``,
``success_k``, plain and ``judged_docs_only``, ``-l 1`` and ``-l 2``) on TREC-9 Web, TREC DL 2019 and Robust 2004.
"""
from __future__ import annotations

import numpy as np

from ._ranked import frame_measure, scored, relevance_at_ranks, safe_divide
from ..io import JudgedRuns
from gtheory.kit.params import REQUIRED_CUTOFF, validate_params

__all__ = ["recall", "success"]


@frame_measure
@validate_params(cutoff=REQUIRED_CUTOFF)
def recall(judged: JudgedRuns, *, cutoff: int, relevance_level: float = 1, judged_only: bool = False) -> np.ndarray:
    """Recall at ``cutoff`` (R@k): the share of the topic's relevant documents in the top k.

    .. math:: R@k = \\frac{1}{R} \\sum_{r=1}^{k} [x_r \\ge \\ell] \\quad (0 \\text{ if } R = 0)

    Parameters
    ----------
    judged : the judged-grade tensor (:func:`metrics.judge`).
    cutoff : k, a positive integer (required; ``R@100`` is TREC DL's second official measure). A list shorter than k
        contributes the relevant documents it has.
    relevance_level : grades ≥ this are relevant (trec_eval ``-l``; default 1); R counts the judged documents at or
        above it.
    judged_only : evaluate the condensed lists (unjudged documents removed; trec_eval ``-J``).

    Returns
    -------
    pandas.DataFrame
        systems × topics, in [0, 1]; 0 for a topic without relevant documents. NaN for topics a run did not return
        under ``missing="exclude"``.

    Notes
    -----
    trec_eval ``m_recall.c``: ``recall_k = rel_so_far(k) / num_rel``. Matches pytrec_eval ``recall_k`` to 1e-12.

    References
    ----------
    .. [1] C. Buckley and E. M. Voorhees, "Retrieval system evaluation", in *TREC: Experiment and Evaluation in
       Information Retrieval*, E. M. Voorhees and D. K. Harman (eds.), MIT Press, 2005, 53–75.

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import recall
    >>> j = single_topic([[1, 0, None, 1]], qrels=[1, 1, 1, 0])   # R = 3
    >>> round(float(recall(j, cutoff=2).iloc[0, 0]), 4), round(float(recall(j, cutoff=10).iloc[0, 0]), 4)
    (0.3333, 0.6667)
    """
    k = cutoff
    v, rel, rl = relevance_at_ranks(judged, cutoff=k, relevance_level=relevance_level, judged_only=judged_only)
    return scored(safe_divide(rel.sum(axis=-1), v.n_relevant(rl)[None, :]), judged)


@frame_measure
@validate_params(cutoff=REQUIRED_CUTOFF)
def success(judged: JudgedRuns, *, cutoff: int, relevance_level: float = 1, judged_only: bool = False) -> np.ndarray:
    """Success at ``cutoff`` (Success@k): 1 if a relevant document is in the top k, else 0.

    .. math:: \\mathrm{Success}@k = \\Big[\\sum_{r=1}^{k} [x_r \\ge \\ell] > 0\\Big]

    Parameters
    ----------
    judged : the judged-grade tensor (:func:`metrics.judge`).
    cutoff : k, a positive integer (required).
    relevance_level : grades ≥ this are relevant (trec_eval ``-l``; default 1).
    judged_only : evaluate the condensed lists (unjudged documents removed; trec_eval ``-J``).

    Returns
    -------
    pandas.DataFrame
        systems × topics, 0.0 or 1.0. NaN for topics a run did not return under ``missing="exclude"``.

    Notes
    -----
    trec_eval ``m_success.c`` (``success.1,5,10`` by default). Success@k = [RR ≥ 1/k], and its mean over topics is
    the share of topics answered in the top k. Matches pytrec_eval ``success_k`` exactly.

    References
    ----------
    .. [1] C. Buckley and E. M. Voorhees, "Retrieval system evaluation", in *TREC: Experiment and Evaluation in
       Information Retrieval*, MIT Press, 2005, 53–75.

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import success
    >>> j = single_topic([[0, None, 1], [0, 0]], qrels=[1, 0, 0])
    >>> success(j, cutoff=2)["1"].tolist(), success(j, cutoff=3)["1"].tolist()
    ([0.0, 0.0], [1.0, 0.0])
    """
    k = cutoff
    _, rel, _ = relevance_at_ranks(judged, cutoff=k, relevance_level=relevance_level, judged_only=judged_only)
    return scored(rel.any(axis=-1).astype(float), judged)
