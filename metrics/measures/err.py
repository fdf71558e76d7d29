"""Expected reciprocal rank (ERR, ERR@k; Chapelle et al. 2009), as the TREC Web track's ``gdeval.pl`` computes it.

.. math::

    \\mathrm{ERR}@k(s, t) = \\sum_{r=1}^{k} \\frac{1}{r}\\, R_{s,t,r} \\prod_{i=1}^{r-1} (1 - R_{s,t,i}), \\qquad
    R(g) = \\frac{2^{g} - 1}{2^{g_{\\max}}} \\text{ for } g > 0, \\quad R(g) = 0 \\text{ otherwise}

A cascade user scans down the list and stops at rank :math:`r` with probability :math:`R_r`, the satisfaction
probability of the document's grade :math:`g`; ERR is the expected reciprocal of the stopping rank. :math:`g_{\\max}`
(``max_grade``) is the highest grade the scale allows: ``gdeval.pl`` fixes it at 4 (``$MAX_JUDGMENT``, the TREC Web
track's 0–4 scale) whatever the qrels hold, so with DL's 0–3 grades a perfect document stops the user with
probability 7/16, not 1. Pass ``max_grade=3`` for Chapelle et al.'s normalisation by the collection's own top grade.
Unjudged and absent documents, and grades ≤ 0, have :math:`R = 0` (``gdeval.pl`` keeps only judgments > 0).

References: O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan, "Expected reciprocal rank for graded relevance",
*Proc. CIKM 2009*, 621–630 (eq. 4 and Algorithm 2); ``gdeval.pl`` version 1.2a (TREC 2010–2014 Web tracks; shipped
with ir_measures as its ``gdeval`` provider). Validated against ir_measures' gdeval provider (ERR@20, printed to 5
decimals) on TREC-9 Web, TREC DL 2019 and Robust 2004 runs.
"""
from __future__ import annotations

import numpy as np

from ._ranked import frame_measure, scored, evaluated_list
from ..io import JudgedRuns
from gtheory.kit.params import validate_params

__all__ = ["err", "GDEVAL_MAX_GRADE"]

#: ``$MAX_JUDGMENT`` of ``gdeval.pl``: the top of the grade scale ERR's stopping probabilities are scaled by
GDEVAL_MAX_GRADE: int = 4


def _check_max_grade(max_grade: float, levels: np.ndarray) -> float:
    if isinstance(max_grade, bool) or not isinstance(max_grade, (int, float, np.integer, np.floating)):
        raise TypeError(f"`max_grade` must be a number; got {type(max_grade).__name__}")
    top = float(max_grade)
    if not np.isfinite(top) or top <= 0:
        raise ValueError(f"`max_grade` must be a finite number > 0 (the top of the grade scale); got {max_grade!r}")
    above = levels[levels > top]
    if above.size:
        raise ValueError(
            f"the qrels hold grade {float(above.max()):g}, above `max_grade`={top:g}: ERR's stopping probability "
            f"(2^g - 1) / 2^max_grade would exceed 1 (gdeval.pl refuses such qrels); give max_grade >= "
            f"{float(above.max()):g}, e.g. ERR(max_grade={float(above.max()):g})@20"
        )
    return top


@frame_measure
@validate_params()
def err(
    judged: JudgedRuns, *, cutoff: int | None = None, max_grade: float = GDEVAL_MAX_GRADE, judged_only: bool = False
) -> np.ndarray:
    """Expected reciprocal rank (ERR@k) of every system on every topic (Chapelle et al. 2009; ``gdeval.pl``).

    .. math::

        \\mathrm{ERR}@k = \\sum_{r=1}^{k} \\frac{R_r}{r} \\prod_{i<r} (1 - R_i), \\qquad
        R_r = \\frac{2^{\\max(x_r, 0)} - 1}{2^{g_{\\max}}}

    Parameters
    ----------
    judged : the judged-grade tensor (:func:`metrics.judge`).
    cutoff : look at the top ``cutoff`` ranks only (``ERR@20``, the TREC Web track's measure). ``None`` (default):
        the whole list.
    max_grade : :math:`g_{\\max}`, the top of the grade scale (default 4, ``gdeval.pl``'s ``$MAX_JUDGMENT``, which
        ir_measures' ERR uses). A qrels grade above it is an error.
    judged_only : evaluate the condensed lists (unjudged documents removed first; ERR′).

    Returns
    -------
    pandas.DataFrame
        systems × topics, in [0, 1); 0 when no document of grade > 0 is retrieved (within the cut-off). NaN for
        topics a run did not return under ``missing="exclude"``.

    Raises
    ------
    ValueError
        ``max_grade`` not a positive number, or below a grade of the qrels (the stopping probability would exceed 1).

    Notes
    -----
    ``gdeval.pl`` (``sub err``): ``$r = (2**$gain - 1) / (2**$MAX_JUDGMENT); $score += $r * $decay / ($i + 1);
    $decay *= (1 - $r)``, over the ranks up to ``$K``, the gain of an unjudged document or a judgment ≤ 0 being 0.
    Its ranking is trec_eval's (score descending, ties by docno descending), as :func:`metrics.judge` reads runs
    by default. It reports only topics with a judgment > 0; here those topics score 0 (every R is 0). Matches
    ir_measures' ``ERR@20`` (gdeval provider, 5 printed decimals) to within 5e-6.

    References
    ----------
    .. [1] O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan, "Expected reciprocal rank for graded relevance",
       *Proc. CIKM 2009*, 621–630.
    .. [2] C. L. A. Clarke, N. Craswell, I. Soboroff and G. V. Cormack, "Overview of the TREC 2010 Web track",
       *Proc. TREC 2010* (ERR@20 as a primary measure, computed by ``gdeval.pl``).

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import err
    >>> j = single_topic([[2, 0, 4]], qrels=[4, 2, 0])   # R = 3/16, 0, 15/16
    >>> round(float(err(j).iloc[0, 0]), 5)   # 3/16 + (13/16) (15/16) / 3
    0.44141
    >>> round(float(err(j, max_grade=5).iloc[0, 0]), 5)
    0.23535
    """
    k = cutoff
    v = evaluated_list(judged, judged_only)
    top = _check_max_grade(max_grade, v.levels)
    stop = np.where(v.levels > 0, np.power(2.0, np.maximum(v.levels, 0.0)) - 1.0, 0.0) / 2.0**top
    ranks = v.depth if k is None else min(k, v.depth)
    R = v.level_values(stop, ranks=ranks)  # (S, T, ranks)
    reach = np.cumprod(1.0 - R, axis=-1)  # probability the user goes past rank r
    reach = np.concatenate([np.ones(R.shape[:-1] + (1,)), reach[..., :-1]], axis=-1)
    return scored((R * reach / np.arange(1, ranks + 1)).sum(axis=-1), judged)
