"""Reciprocal rank (RR, RR@k; trec_eval ``recip_rank``) on the judged-grade tensor.

.. math::

    \\mathrm{RR}@k(s, t) = \\begin{cases} 1 / r^{*} & \\text{if } r^{*} \\le k \\\\ 0 & \\text{otherwise,} \\end{cases}
    \\qquad r^{*} = \\min\\{\\, r : x_{s,t,r} \\ge \\ell \\,\\}

with :math:`\\ell` the relevance level (trec_eval ``-l``), :math:`r^{*}` the rank of the first relevant document
(:math:`\\infty` when the list holds none) and :math:`k` the cut-off (default: the whole list). Unjudged and absent
documents are not relevant; they take up ranks in the original list and are removed from the condensed list
(``judged_only=True``, trec_eval ``-J``), which moves the first relevant document up. The mean over topics is the
mean reciprocal rank (MRR; MRR@10 on MS MARCO passage ranking).

Source: trec_eval ``m_recip_rank.c`` (``recip_rank``, no cut-off: the first ``i`` with ``rel(i) >= relevance_level``
gives ``1.0 / (i + 1)``, else 0). Introduced as the TREC-5 confusion track measure (Kantor & Voorhees 2000) and the
TREC-8 question answering measure (Voorhees 1999); reported for TREC DL 2019 (Craswell et al. 2020). Validated
against pytrec_eval (``recip_rank``, plain and ``judged_docs_only``; RR@k on runs truncated to k) on TREC-9 Web,
TREC DL 2019 and Robust 2004 runs.
"""
from __future__ import annotations

import numpy as np

from ._ranked import frame_measure, scored, relevance_at_ranks
from ..io import JudgedRuns
from gtheory.kit.params import validate_params

__all__ = ["reciprocal_rank"]


@frame_measure
@validate_params()
def reciprocal_rank(
    judged: JudgedRuns, *, cutoff: int | None = None, relevance_level: float = 1, judged_only: bool = False
) -> np.ndarray:
    """Reciprocal rank of the first relevant document, of every system on every topic.

    .. math:: \\mathrm{RR}@k = \\frac{1}{r^{*}}\\,[r^{*} \\le k], \\qquad r^{*} = \\min\\{r : x_r \\ge \\ell\\}

    Parameters
    ----------
    judged : the judged-grade tensor (:func:`metrics.judge`).
    cutoff : look at the top ``cutoff`` ranks only (RR@k, e.g. MRR@10 of MS MARCO). ``None`` (default): the whole
        list, as trec_eval ``recip_rank``.
    relevance_level : grades ≥ this are relevant (trec_eval ``-l``; default 1). TREC DL passage judgments count
        grades ≥ 2 as relevant: use ``relevance_level=2`` (``RR(rel=2)@10``) there.
    judged_only : evaluate the condensed lists (unjudged documents removed; RR′, trec_eval ``-J``).

    Returns
    -------
    pandas.DataFrame
        systems × topics, in {0} ∪ {1/r}; 0 when no relevant document is retrieved (within the cut-off), also when
        the topic has no relevant documents at all. NaN for topics a run did not return under ``missing="exclude"``.

    Notes
    -----
    trec_eval ``m_recip_rank.c``. An unjudged document (not in the qrels, or a grade ≤ -1: pooled but unjudged) is
    not relevant but keeps its rank, so it pushes the first relevant document down; past the end of a list there is
    nothing (absent), so a short list without a relevant document scores 0, whatever the cut-off. With
    ``judged_only=True`` those unjudged documents are dropped first and the judged ones move up, so RR′ ≥ RR.
    Matches pytrec_eval ``recip_rank`` to 1e-12 (exactly, in practice: the same ``1.0 / rank``).

    References
    ----------
    .. [1] P. B. Kantor and E. M. Voorhees, "The TREC-5 confusion track: comparing retrieval methods for scanned
       text", *Information Retrieval* 2(2–3), 165–176, 2000.
    .. [2] E. M. Voorhees, "The TREC-8 question answering track report", *Proc. TREC-8*, 77–82, 1999.
    .. [3] N. Craswell, B. Mitra, E. Yilmaz, D. Campos and E. M. Voorhees, "Overview of the TREC 2019 deep learning
       track", *Proc. TREC 2019*, 2020 (arXiv:2003.07820).

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import reciprocal_rank
    >>> j = single_topic([[0, None, 1, 1], [None, 0]], qrels=[1, 1, 1, 0])
    >>> reciprocal_rank(j)["1"].round(4).tolist()   # first relevant at rank 3; none in the second list
    [0.3333, 0.0]
    >>> float(reciprocal_rank(j, cutoff=2).iloc[0, 0])   # RR@2: rank 3 is past the cut-off
    0.0
    >>> float(reciprocal_rank(j, judged_only=True).iloc[0, 0])   # condensed list 0, 1, 1: rank 2
    0.5
    """
    _, rel, _ = relevance_at_ranks(judged, cutoff=cutoff, relevance_level=relevance_level, judged_only=judged_only)
    found = rel.any(axis=-1)
    first = rel.argmax(axis=-1) if rel.shape[-1] else np.zeros(found.shape, dtype=np.intp)  # 0-based rank
    return scored(np.where(found, 1.0 / (first + 1.0), 0.0), judged)
