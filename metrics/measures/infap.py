"""Inferred AP (infAP) exactly as trec_eval computes it.

For the relevant document at 0-based rank :math:`j` (the rank counts every document: judged, unjudged and pooled),
with :math:`a` relevant, :math:`b` judged non-relevant and :math:`u` pooled-but-unjudged documents above it:

.. math::

    \\mathrm{infAP} = \\frac{1}{R} \\sum_{j:\\,\\mathrm{rel}} \\begin{cases}
        1 & j = 0 \\\\
        \\dfrac{1}{j + 1} + \\dfrac{j}{j + 1} \\cdot \\dfrac{a + b + u}{j} \\cdot
        \\dfrac{a + \\varepsilon}{a + b + 2\\varepsilon} & j > 0
    \\end{cases}, \\qquad \\varepsilon = 10^{-5}

The expected precision above rank :math:`j + 1`: documents outside the pool (unjudged, not in the qrels) count as
non-relevant, those pooled but not judged (negative grades in the qrels) as relevant in the proportion
:math:`a/(a+b)` of the judged ones above. Absent documents (past the end of the list) only advance the rank.
Judged non-relevant means a grade in :math:`[0, \\ell)`; R counts grades :math:`\\ge \\ell`. infAP = 0 when R = 0.

References: Yilmaz & Aslam (2006), "Estimating average precision with incomplete and imperfect judgments", CIKM;
trec_eval ``m_infap.c`` (``INFAP_EPSILON = 0.00001``). Validated against pytrec_eval ``infAP`` (including qrels with
grade -1) on TREC-9, DL 2019 and Robust 2004.
"""
from __future__ import annotations

import numpy as np

from ._ranked import frame_measure, scored, at_relevant, cell_sum, evaluated_list, level_mask, nonrelevant_levels, relevant_levels, safe_divide
from ..io import JudgedRuns, pooled_unjudged
from gtheory.kit.params import validate_params

__all__ = ["inferred_ap", "INFAP_EPSILON"]

#: trec_eval's smoothing constant in infAP's precision estimate
INFAP_EPSILON: float = 1e-5


@frame_measure
@validate_params()
def inferred_ap(judged: JudgedRuns, *, relevance_level: float = 1, judged_only: bool = False) -> np.ndarray:
    """Inferred average precision (infAP) of every system on every topic, as trec_eval.

    .. math:: \\mathrm{infAP} = \\frac{1}{R} \\sum_{j:\\,\\mathrm{rel}} \\Bigl(\\frac{1}{j+1} + \\frac{j}{j+1}
        \\cdot \\frac{a+b+u}{j} \\cdot \\frac{a+\\varepsilon}{a+b+2\\varepsilon}\\Bigr)

    (1 for a relevant document at the first rank; symbols in the module docstring).

    Parameters
    ----------
    judged : the judged-grade tensor. Qrels grades < 0 mark pooled-but-unjudged documents.
    relevance_level : grades ≥ this are relevant (default 1).
    judged_only : evaluate the condensed lists (unjudged and pooled-but-unjudged documents removed; trec_eval
        ``-J``), where infAP equals AP′.

    Returns
    -------
    pandas.DataFrame
        systems × topics. With complete judgments (no unjudged document) infAP equals AP.

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import inferred_ap
    >>> j = single_topic([[1, None, -1, 1]], qrels=[1, 1, 0, -1])
    >>> # rank 4: 1/4 + 3/4 * (1 + 0 + 1)/3 * (1 + eps)/(1 + 2 eps); then over R = 2
    >>> round(float(inferred_ap(j).iloc[0, 0]), 6)
    0.874998
    """
    rl = relevance_level
    v = evaluated_list(judged, judged_only)
    rel = level_mask(v, relevant_levels(v, rl))
    nonrel = level_mask(v, nonrelevant_levels(v, rl))
    pooled = level_mask(v, pooled_unjudged(v.levels))
    cell, r, (count, b, u) = at_relevant(rel, rel, nonrel, pooled)
    a = count - 1.0  # relevant above; b judged non-relevant above; u pooled-but-unjudged above
    j = r.astype(np.float64)
    eps = INFAP_EPSILON
    term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((a + b + u) / np.maximum(j, 1.0)) * ((a + eps) / (a + b + 2 * eps))
    term[r == 0] = 1.0  # a relevant document at the first rank
    total = cell_sum(cell, term, rel.shape)
    return scored(safe_divide(total, v.n_relevant(rl)[None, :]), judged)
