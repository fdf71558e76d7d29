"""Precision at a cut-off (P@k) and R-precision, on the judged-grade tensor.

.. math::

    P@k(s, t) = \\frac{1}{k} \\sum_{r=1}^{k} \\mathrm{rel}(x_{s,t,r}), \\qquad
    \\mathrm{Rprec}(s, t) = \\frac{1}{R_t} \\sum_{r=1}^{\\min(R_t, n)} \\mathrm{rel}(x_{s,t,r})

with :math:`\\mathrm{rel}(x) = [x \\ge \\ell]` (``relevance_level`` :math:`\\ell`, trec_eval ``-l``), :math:`R_t` the
judged documents of topic :math:`t` with grade :math:`\\ge \\ell`, and :math:`n` the length of the list. Unjudged and
absent documents are not relevant; P@k divides by :math:`k` even when the list is shorter (trec_eval ``P.k``);
R-precision is 0 when :math:`R_t = 0` (trec_eval ``Rprec``).

Source: trec_eval ``m_P.c`` and ``m_Rprec.c`` (Buckley & Voorhees, "Retrieval System Evaluation", in *TREC:
Experiment and Evaluation in Information Retrieval*, MIT Press 2005). Validated against pytrec_eval (``P_k``,
``Rprec``, plain and ``judged_docs_only``) on TREC-9 Web, TREC DL 2019 and Robust 2004 runs.
"""
from __future__ import annotations

import numpy as np

from ._ranked import frame_measure, scored, evaluated_list, level_mask, relevant_levels, safe_divide
from ..io import JudgedRuns
from gtheory.kit.params import REQUIRED_CUTOFF, validate_params

__all__ = ["precision", "r_precision"]


@frame_measure
@validate_params(cutoff=REQUIRED_CUTOFF)
def precision(judged: JudgedRuns, *, cutoff: int = 10, relevance_level: float = 1, judged_only: bool = False) -> np.ndarray:
    """Precision at ``cutoff`` (P@k) of every system on every topic.

    .. math:: P@k = \\frac{1}{k} \\sum_{r=1}^{k} [x_r \\ge \\ell]

    Parameters
    ----------
    judged : the judged-grade tensor (:func:`metrics.judge`).
    cutoff : k, a positive integer (default 10). Ranks past the end of a list count as non-relevant.
    relevance_level : grades ≥ this are relevant (trec_eval ``-l``; default 1).
    judged_only : evaluate the condensed lists (unjudged documents removed; P′@k, trec_eval ``-J``).

    Returns
    -------
    pandas.DataFrame
        systems × topics, in [0, 1]. NaN for topics a run did not return under ``missing="exclude"``.

    Notes
    -----
    trec_eval ``m_P.c``: ``P_k = rel_so_far(k) / k``. Matches pytrec_eval ``P_k`` to 1e-12.

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import precision
    >>> j = single_topic([[1, 0, None, 1]], qrels=[1, 1, 1, 0])
    >>> float(precision(j, cutoff=2).iloc[0, 0]), float(precision(j, cutoff=5).iloc[0, 0])
    (0.5, 0.4)
    >>> float(precision(j, cutoff=2, judged_only=True).iloc[0, 0])   # condensed list: 1, 0, 1
    0.5
    """
    k = cutoff
    rl = relevance_level
    v = evaluated_list(judged, judged_only)
    rel = level_mask(v, relevant_levels(v, rl))[..., :k]
    return scored(rel.sum(axis=-1) / k, judged)


@frame_measure
@validate_params()
def r_precision(judged: JudgedRuns, *, relevance_level: float = 1, judged_only: bool = False) -> np.ndarray:
    """R-precision: precision at rank R, the number of relevant documents of the topic.

    .. math:: \\mathrm{Rprec} = \\frac{1}{R} \\sum_{r=1}^{R} [x_r \\ge \\ell] \\quad (0 \\text{ if } R = 0)

    Parameters
    ----------
    judged : the judged-grade tensor.
    relevance_level : grades ≥ this are relevant (default 1); R counts the judged documents at or above it.
    judged_only : evaluate the condensed lists (trec_eval ``-J``).

    Returns
    -------
    pandas.DataFrame
        systems × topics, in [0, 1]; 1 exactly when the top R documents are all relevant.

    Notes
    -----
    trec_eval ``m_Rprec.c``: looks at the first ``min(num_ret, R)`` documents and divides by R. Matches pytrec_eval
    ``Rprec`` to 1e-12.

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import r_precision
    >>> j = single_topic([[1, 0, 1, 1]], qrels=[1, 1, 1, 0])   # R = 3: top 3 hold 2 relevant
    >>> round(float(r_precision(j).iloc[0, 0]), 4)
    0.6667
    """
    rl = relevance_level
    v = evaluated_list(judged, judged_only)
    R = v.n_relevant(rl)
    rel = level_mask(v, relevant_levels(v, rl))
    cum = np.cumsum(rel, axis=-1, dtype=np.int64)
    idx = np.clip(np.minimum(R, v.depth) - 1, 0, None)  # (T,)
    hits = np.take_along_axis(cum, np.broadcast_to(idx[None, :, None], cum.shape[:2] + (1,)), axis=-1)[..., 0]
    hits = np.where(R[None, :] > 0, hits, 0)
    return scored(safe_divide(hits, R[None, :]), judged)
