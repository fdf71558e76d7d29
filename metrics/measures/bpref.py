"""bpref and its relatives (bpref-10, bpref_R, bpref_N) and RankEff: measures built only from judged documents.

For a topic with :math:`R` relevant and :math:`N` judged non-relevant documents, let :math:`n(r)` be the number of
judged non-relevant documents ranked above the relevant document at rank :math:`r` (unjudged documents are ignored).
The sums run over the *retrieved* relevant documents; relevant documents not retrieved contribute 0.

.. math::

    \\mathrm{bpref} &= \\frac{1}{R} \\sum_{r:\\,\\mathrm{rel}} \\Bigl(1 - \\frac{\\min(n(r), R)}{\\min(N, R)}\\Bigr)
      \\quad\\text{(trec_eval; the term is 1 when } n(r) = 0\\text{)} \\\\
    \\mathrm{bpref\\_R} &= \\frac{1}{R} \\sum_{r:\\,\\mathrm{rel}} \\Bigl(1 - \\frac{\\min(n(r), R)}{R}\\Bigr)
      \\quad\\text{(Buckley \\& Voorhees 2004, eq. 1 of Ahlgren \\& Grönqvist)} \\\\
    \\mathrm{bpref\\text{-}10} &= \\frac{1}{R} \\sum_{r:\\,\\mathrm{rel}} \\Bigl(1 - \\frac{\\min(n(r), R + 10)}{R + 10}\\Bigr)
      \\quad\\text{(Ahlgren \\& Grönqvist 2008, eq. 4)} \\\\
    \\mathrm{bpref\\_N} &= \\frac{1}{R} \\sum_{r:\\,\\mathrm{rel}} \\Bigl(1 - \\frac{n(r)}{N}\\Bigr)
      \\quad\\text{(Sakai 2007; trec_eval's former bpref_allnonrel)} \\\\
    \\mathrm{RankEff} &= \\frac{\\sum_{r:\\,\\mathrm{rel}} I(r)}{R\\,N}, \\quad I(r) = N - n(r)
      \\quad\\text{(Ahlgren \\& Grönqvist 2008, eq. 5)}

:math:`I(r)` counts the judged non-relevant documents ranked *below* the relevant one, with Ahlgren & Grönqvist's
practical definition: a judged non-relevant document that was not retrieved counts as ranked below every retrieved
document. RankEff therefore equals bpref_N (Sakai & Kando 2008, §2). All are 0 when :math:`R = 0`; when
:math:`N = 0` no preference can be violated and each retrieved relevant document contributes 1.

Judged non-relevant means a grade in :math:`(-1, \\ell)`; grades ≤ -1 (pooled-but-unjudged in trec_eval) count
neither in :math:`n(r)` nor in :math:`N`, as in trec_eval ``m_bpref.c``.

References: Buckley & Voorhees (2004), "Retrieval evaluation with incomplete information", SIGIR; Ahlgren &
Grönqvist (2008), "Evaluation of retrieval effectiveness with incomplete relevance data", IP&M 44; Sakai & Kando
(2008), "On information retrieval metrics designed for evaluation with incomplete relevance assessments", IRJ 11;
trec_eval ``m_bpref.c``. ``bpref`` is validated against pytrec_eval ``bpref``; the others against the papers' worked
examples and hand computation.
"""
from __future__ import annotations

from typing import Literal

import numpy as np

from ._ranked import (
    frame_measure,
    scored,
    at_relevant,
    cell_sum,
    evaluated_list,
    level_mask,
    nonrelevant_levels,
    relevant_levels,
    safe_divide,
)
from ..io import JudgedRuns
from gtheory.kit.params import validate_params

__all__ = ["bpref", "bpref_10", "bpref_r", "bpref_n", "rank_eff"]

_Kind = Literal["trec_eval", "R", "10", "N", "rankeff"]


def _bpref_family(judged: JudgedRuns, kind: _Kind, relevance_level: float, judged_only: bool) -> np.ndarray:
    rl = relevance_level
    v = evaluated_list(judged, judged_only)
    rel = level_mask(v, relevant_levels(v, rl))
    nonrel = level_mask(v, nonrelevant_levels(v, rl))
    cell, _, (n_above,) = at_relevant(rel, nonrel)  # judged non-relevant above each retrieved relevant document
    T = v.n_topics
    R_t = v.n_relevant(rl).astype(np.float64)
    N_t = v.n_nonrelevant(rl).astype(np.float64)
    R, N = R_t[cell % T], N_t[cell % T]
    if kind == "trec_eval":
        term = np.where(n_above > 0, 1.0 - np.minimum(n_above, R) / np.maximum(np.minimum(N, R), 1.0), 1.0)
    elif kind == "R":
        term = 1.0 - np.minimum(n_above, R) / R
    elif kind == "10":
        term = 1.0 - np.minimum(n_above, R + 10.0) / (R + 10.0)
    elif kind == "N":
        term = np.where(N > 0, 1.0 - n_above / np.maximum(N, 1.0), 1.0)
    else:  # RankEff: the sum of I(r) = N - n(r) over R * N; with N = 0, (retrieved relevant) / R
        below = cell_sum(cell, N - n_above, rel.shape)
        found = cell_sum(cell, np.ones_like(N), rel.shape)
        value = np.where(N_t[None, :] > 0, safe_divide(below, (R_t * N_t)[None, :]), safe_divide(found, R_t[None, :]))
        return scored(value, judged)
    return scored(safe_divide(cell_sum(cell, term, rel.shape), R_t[None, :]), judged)


@frame_measure
@validate_params()
def bpref(judged: JudgedRuns, *, relevance_level: float = 1, judged_only: bool = False) -> np.ndarray:
    """bpref exactly as trec_eval computes it.

    .. math:: \\mathrm{bpref} = \\frac{1}{R} \\sum_{r:\\,x_r \\ge \\ell}
        \\Bigl(1 - \\frac{\\min(n(r), R)}{\\min(N, R)}\\Bigr)

    where :math:`n(r)` counts the judged non-relevant documents (grade in :math:`[0, \\ell)`) above rank :math:`r`
    (the term is 1 when :math:`n(r) = 0`); see the module docstring.

    Parameters
    ----------
    judged : the judged-grade tensor.
    relevance_level : grades ≥ this are relevant (default 1).
    judged_only : evaluate the condensed lists. bpref ignores unjudged documents anyway, so this changes nothing.

    Returns
    -------
    pandas.DataFrame
        systems × topics in [0, 1].

    Notes
    -----
    trec_eval ``m_bpref.c`` (Buckley & Voorhees 2004). The denominator is :math:`\\min(N, R)`, not R, so topics with
    fewer judged non-relevant than relevant documents are not capped below 1. Matches pytrec_eval ``bpref`` to 1e-12.

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import bpref
    >>> j = single_topic([[1, 0, None, 1]], qrels=[1, 1, 0, 0, 0])   # R = 2, N = 3: (1 + (1 - 1/2)) / 2
    >>> float(bpref(j).iloc[0, 0])
    0.75
    """
    return _bpref_family(judged, "trec_eval", relevance_level, judged_only)


@frame_measure
@validate_params()
def bpref_r(judged: JudgedRuns, *, relevance_level: float = 1, judged_only: bool = False) -> np.ndarray:
    """bpref as Buckley & Voorhees (2004) defined it (Sakai's bpref_R): the top-R non-relevant documents, over R.

    .. math:: \\mathrm{bpref\\_R} = \\frac{1}{R} \\sum_{r:\\,x_r \\ge \\ell} \\Bigl(1 - \\frac{\\min(n(r), R)}{R}\\Bigr)

    Equals trec_eval's :func:`bpref` whenever :math:`N \\ge R`. Ahlgren & Grönqvist (2008, eq. 6) show it equals
    RankEff restricted to the R highest-ranked judged non-relevant documents.

    Parameters and return value as :func:`bpref`.

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import bpref_r
    >>> j = single_topic([[0, 1, 1]], qrels=[1, 1, 0])   # R = 2, N = 1: (1 - 1/2) + (1 - 1/2), over 2
    >>> float(bpref_r(j).iloc[0, 0])
    0.5
    """
    return _bpref_family(judged, "R", relevance_level, judged_only)


@frame_measure
@validate_params()
def bpref_10(judged: JudgedRuns, *, relevance_level: float = 1, judged_only: bool = False) -> np.ndarray:
    """bpref-10 (Buckley & Voorhees 2004), in Ahlgren & Grönqvist's practical form (their eq. 4).

    .. math:: \\mathrm{bpref\\text{-}10} = \\frac{1}{R} \\sum_{r:\\,x_r \\ge \\ell}
        \\Bigl(1 - \\frac{\\min(n(r), R + 10)}{R + 10}\\Bigr)

    The top :math:`R + 10` judged non-relevant documents are compared with each relevant one, which makes the
    measure less coarse for topics with one or two relevant documents.

    Parameters and return value as :func:`bpref`.

    Examples
    --------
    Ahlgren & Grönqvist (2008), Table 4: 30 judged documents, 2 relevant; both methods score 0.500.

    >>> from metrics._toy import single_topic
    >>> from metrics import bpref_10
    >>> m1 = [1] + [0] * 12 + [1] + [0] * 16
    >>> m2 = [1] + [0] * 28 + [1]
    >>> bpref_10(single_topic([m1, m2], qrels=[1, 1] + [0] * 28)).round(3).values.ravel().tolist()
    [0.5, 0.5]
    """
    return _bpref_family(judged, "10", relevance_level, judged_only)


@frame_measure
@validate_params()
def bpref_n(judged: JudgedRuns, *, relevance_level: float = 1, judged_only: bool = False) -> np.ndarray:
    """bpref_N (Sakai 2007): every judged non-relevant document counts, scaled by N.

    .. math:: \\mathrm{bpref\\_N} = \\frac{1}{R} \\sum_{r:\\,x_r \\ge \\ell} \\Bigl(1 - \\frac{n(r)}{N}\\Bigr)

    Equal to :func:`rank_eff` (Sakai & Kando 2008). Each term is 1 when N = 0.

    Parameters and return value as :func:`bpref`.

    Examples
    --------
    >>> from metrics._toy import single_topic
    >>> from metrics import bpref_n
    >>> j = single_topic([[0, 1]], qrels=[1, 1, 0, 0])   # (1 - 1/2) / 2
    >>> float(bpref_n(j).iloc[0, 0])
    0.25
    """
    return _bpref_family(judged, "N", relevance_level, judged_only)


@frame_measure
@validate_params()
def rank_eff(judged: JudgedRuns, *, relevance_level: float = 1, judged_only: bool = False) -> np.ndarray:
    """RankEff (Grönqvist 2005), with Ahlgren & Grönqvist's practical definition for unretrieved documents (eq. 5).

    .. math:: \\mathrm{RankEff} = \\frac{\\sum_{r:\\,x_r \\ge \\ell} I(r)}{R\\,N}

    :math:`I(r)` is the number of judged non-relevant documents ranked below the relevant document at rank
    :math:`r`, where a judged non-relevant document that was not retrieved is ranked below every retrieved one;
    unjudged documents are ignored. 0 when R = 0; ``(retrieved relevant) / R`` when N = 0.

    Parameters and return value as :func:`bpref`.

    Examples
    --------
    Ahlgren & Grönqvist (2008), Table 4: 0.786 for M1, 0.500 for M2; and their 6-document example (two relevant,
    four non-relevant; M2 retrieves only four documents): 1 for both.

    >>> from metrics._toy import single_topic
    >>> from metrics import rank_eff
    >>> m1 = [1] + [0] * 12 + [1] + [0] * 16
    >>> m2 = [1] + [0] * 28 + [1]
    >>> rank_eff(single_topic([m1, m2], qrels=[1, 1] + [0] * 28)).round(3).values.ravel().tolist()
    [0.786, 0.5]
    >>> rank_eff(single_topic([[1, 1, 0, 0, 0, 0], [1, 1, 0, 0]], qrels=[1, 1, 0, 0, 0, 0])).values.ravel().tolist()
    [1.0, 1.0]
    """
    return _bpref_family(judged, "rankeff", relevance_level, judged_only)
