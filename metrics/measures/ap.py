"""Average precision (AP) and its condensed-list form AP′, on the judged-grade tensor.

.. math::

    \\mathrm{AP}(s, t) = \\frac{1}{R_t} \\sum_{r=1}^{k} \\mathrm{rel}(x_{s,t,r})\\, \\frac{\\mathrm{count}(r)}{r},
    \\qquad \\mathrm{count}(r) = \\sum_{i \\le r} \\mathrm{rel}(x_{s,t,i})

with :math:`\\mathrm{rel}(x) = [x \\ge \\ell]`, :math:`R_t` the judged documents of topic :math:`t` with grade
:math:`\\ge \\ell` (relevant documents not retrieved contribute 0) and :math:`k` the cut-off (default: the whole
list). AP = 0 when :math:`R_t = 0`. AP′ (``judged_only=True``) is AP on the condensed list, Sakai (2007)'s AP′ and
Yilmaz & Aslam (2006)'s induced AP.

Source: trec_eval ``m_map.c`` (``map``) and ``m_map_cut.c`` (``map_cut.k``, which also divides by R). Validated
against pytrec_eval (``map``, ``map_cut``, plain and ``judged_docs_only``) on TREC-9, DL 2019 and Robust 2004.
"""
from __future__ import annotations

import numpy as np

from ._ranked import frame_measure, scored, at_relevant, cell_sum, relevance_at_ranks, safe_divide
from ..io import JudgedRuns
from gtheory.kit.params import validate_params

__all__ = ["average_precision"]


@frame_measure
@validate_params()
def average_precision(
    judged: JudgedRuns, *, cutoff: int | None = None, relevance_level: float = 1, judged_only: bool = False
) -> np.ndarray:
    """Average precision of every system on every topic.

    .. math:: \\mathrm{AP} = \\frac{1}{R} \\sum_{r \\le k} [x_r \\ge \\ell]\\, \\frac{\\mathrm{count}(r)}{r}

    Parameters
    ----------
    judged : the judged-grade tensor (:func:`metrics.judge`).
    cutoff : evaluate the top ``cutoff`` ranks only (trec_eval ``map_cut``; still divided by R). ``None``: whole list.
    relevance_level : grades ≥ this are relevant (trec_eval ``-l``; default 1).
    judged_only : AP′, on the condensed lists (trec_eval ``-J``).

    Returns
    -------
    pandas.DataFrame
        systems × topics in [0, 1]; 1 exactly when all R relevant documents are ranked first.

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import average_precision
    >>> j = single_topic([[1, 0, None, 1]], qrels=[1, 1, 1, 0])   # (1/1 + 2/4) / 3
    >>> float(average_precision(j).iloc[0, 0])
    0.5
    >>> round(float(average_precision(j, judged_only=True).iloc[0, 0]), 6)   # condensed 1, 0, 1: (1 + 2/3) / 3
    0.555556
    """
    v, rel, rl = relevance_at_ranks(judged, cutoff=cutoff, relevance_level=relevance_level, judged_only=judged_only)
    cell, r, (count,) = at_relevant(rel, rel)
    total = cell_sum(cell, count / (r + 1.0), rel.shape)
    return scored(safe_divide(total, v.n_relevant(rl)[None, :]), judged)
