r"""Incomplete judgments: how robust is a measure when the qrels shrink?

The qrels are reduced per topic to a fraction :math:`f` of their judged relevant and judged non-relevant
documents, by the sampling of Buckley & Voorhees [1]_ as used by Bompada et al. [2]_ and Sakai & Kando [3]_;
any measure is recomputed on the reduced judgments (plain and condensed lists, [3]_ [5]_) directly on the
judged-grade tensor (:class:`metrics.JudgedRuns`, via its per-topic document ids: no run or qrels file is
read again), and compared with the full-qrels results:

* :func:`reduction_mask` / :func:`reduce_qrels` -- the reduced qrels (nested across :math:`f`);
* :func:`incompleteness_study` -- per measure, list type (plain/condensed), :math:`f` and seed: Kendall's
  :math:`\tau` and :math:`\tau_{AP}` against the full-qrels ranking, the drift of absolute mean values and
  RMSE, Sakai's discriminative power [3]_ [6]_ and Bompada's confusion matrix of significance decisions [2]_;
* :func:`knee` -- the lowest :math:`f` from which :math:`\tau \ge 0.9` [2]_ (Voorhees' equivalence threshold);
* :func:`significance_confusion` -- Bompada's confusion matrix (with accuracy and g-mean) for one pair of
  score matrices;
* :func:`tuned_stability_under_incompleteness` -- Φ (generalizability theory) of nDCG with standard and
  tuned discounts as :math:`f` decreases (Kanoulas & Aslam [7]_).

Plots are in :mod:`experiments.incomplete_plots`.

Sampling (Buckley & Voorhees 2004, §3)
--------------------------------------
For each topic, the judged relevant documents (grade :math:`\ge` ``relevance_level``, default 1) and the
judged non-relevant documents (every other judged document, *including negative grades*: a -2 "spam"
judgment is a judgment of non-relevance and is sampled, kept or dropped like a 0) are put in two random
orders. The :math:`f`-qrels keep the first

.. math::

    R_f = \min\bigl(R,\ \max(1, \lceil fR \rceil)\bigr), \qquad
    N_f = \min\bigl(N,\ \max(10, \lceil fN \rceil)\bigr)

documents of each order (Bompada et al. [2]_ §4 give :math:`\lceil\cdot\rceil`; ``rounding="round"`` and
``"floor"`` are available; the minimums 1 and 10 are Buckley & Voorhees'). As one order per seed serves
every :math:`f`, the :math:`f`-qrels are *nested*: :math:`f < f'` implies :math:`f`-qrels
:math:`\subseteq f'`-qrels. Stratified sampling of this kind is essentially random sampling from the whole
judged set (Yilmaz & Aslam [4]_). Dropped judgments become *unjudged* (:data:`metrics.UNJUDGED`): a
measure treats them as it treats any unjudged document (non-relevant in the plain list, removed in the
condensed list).

References
----------
.. [1] C. Buckley and E. M. Voorhees. Retrieval evaluation with incomplete information. SIGIR 2004, pp. 25-32.
.. [2] T. Bompada, C.-C. Chang, J. Chen, R. Kumar and R. Shenoy. On the robustness of relevance measures with
   incomplete judgments. SIGIR 2007, pp. 359-366.
.. [3] T. Sakai and N. Kando. On information retrieval metrics designed for evaluation with incomplete
   relevance assessments. Information Retrieval 11(5), 2008, pp. 447-470.
.. [4] E. Yilmaz and J. A. Aslam. Estimating average precision with incomplete and imperfect judgments.
   CIKM 2006, pp. 102-111.
.. [5] T. Sakai. Alternatives to bpref. SIGIR 2007, pp. 71-78.
.. [6] T. Sakai. Evaluating evaluation metrics based on the bootstrap. SIGIR 2006, pp. 525-532.
.. [7] E. Kanoulas and J. A. Aslam. Empirical justification of the gain and discount function for nDCG.
   CIKM 2009.
.. [8] E. M. Voorhees. Evaluation by highly relevant documents. SIGIR 2001, pp. 74-82.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, Callable, Iterable, Literal, Mapping, Sequence, Union

import numpy as np
import pandas as pd

import metrics
from metrics import JudgedRuns
from gtheory._display import fmt, html_table, kv_table
from experiments._validation import (
    as_scores,
    align_pair,
    check_choice,
    check_int,
    check_probability,
    check_rng,
    pair_indices,
)
from experiments._stability import stability
from experiments.agreement import kendall_tau, rmse, tau_ap
from experiments.significance import bootstrap_asl, paired_ttest, wilcoxon_test

__all__ = [
    "reduction_mask",
    "reduce_qrels",
    "incompleteness_study",
    "summarize_study",
    "knee",
    "significance_confusion",
    "SignificanceConfusion",
    "tuned_stability_under_incompleteness",
    "DEFAULT_FRACTIONS",
]

#: Default fractions of the judgments kept (1.0 = the full qrels, the reference).
DEFAULT_FRACTIONS: tuple[float, ...] = (1.0, 0.7, 0.5, 0.3, 0.2, 0.1, 0.05)

Measure = Union[str, Callable[[JudgedRuns], Any]]
Rounding = Literal["ceil", "round", "floor"]
Test = Literal["bootstrap", "t", "wilcoxon"]

_DECISION_LABELS = ("a>b", "n.s.", "a<b")  # significant with a better / not significant / b better


# ================================================================================================ sampling
def _check_judged(judged: Any) -> JudgedRuns:
    if not isinstance(judged, JudgedRuns):
        raise TypeError(
            f"`judged` must be a metrics.JudgedRuns (from metrics.judge or metrics.load_trec9); "
            f"got {type(judged).__name__}."
        )
    return judged


def _check_fraction(f: Any, name: str = "fraction") -> float:
    if isinstance(f, bool) or not isinstance(f, Real):
        raise TypeError(f"`{name}` must be a number in (0, 1]; got {type(f).__name__} {f!r}.")
    f = float(f)
    if not (0.0 < f <= 1.0):
        raise ValueError(f"`{name}` must lie in (0, 1] (the share of judgments kept); got {f:g}.")
    return f


def _check_fractions(fractions: Any) -> tuple[float, ...]:
    if isinstance(fractions, (Real, str)) or fractions is None:
        raise TypeError(f"`fractions` must be a sequence of numbers in (0, 1]; got {fractions!r}.")
    fs = [_check_fraction(f, "fractions") for f in fractions]
    if not fs:
        raise ValueError("`fractions` must not be empty.")
    if len(set(fs)) != len(fs):
        raise ValueError(f"`fractions` must be distinct; got {fs}.")
    return tuple(sorted(fs, reverse=True))


def _check_seeds(seeds: Any) -> tuple[int, ...]:
    if isinstance(seeds, Integral) and not isinstance(seeds, bool):
        seeds = range(check_int(seeds, "seeds", minimum=1))
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Iterable):
        raise TypeError(f"`seeds` must be a number of seeds or a sequence of non-negative integers; got {seeds!r}.")
    out = []
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, Integral) or s < 0:
            raise ValueError(f"`seeds` must hold non-negative integers; got {s!r}.")
        out.append(int(s))
    if not out:
        raise ValueError("`seeds` must not be empty.")
    if len(set(out)) != len(out):
        raise ValueError(f"`seeds` must be distinct; got {out}.")
    return tuple(out)


def _check_minimum(value: Any, name: str) -> int:
    return check_int(value, name, minimum=0)


@dataclass(frozen=True)
class _Strata:
    """One random order of each topic's judged relevant and non-relevant documents (one seed)."""

    stratum: np.ndarray  # per judged doc: 2 * topic + (0 relevant | 1 non-relevant)
    rank: np.ndarray  # per judged doc: its position (0-based) in its stratum's random order
    counts: np.ndarray  # (2 * n_topics,) documents per stratum: R_0, N_0, R_1, N_1, ...


def _strata(judged: JudgedRuns, rng: np.random.Generator, relevance_level: float) -> _Strata:
    """Random order within each (topic, relevant/non-relevant) stratum, vectorised over all topics.

    One global random permutation gives every judged document a distinct key; a lexicographic sort by
    (stratum, key) then lists each stratum's documents in uniformly random order, and a document's rank is
    its position in that order minus the stratum's start.
    """
    n = judged.qrels_level.size
    topic_of = np.repeat(np.arange(judged.n_topics, dtype=np.int64), np.diff(judged.qrels_offsets))
    relevant = judged.levels[judged.qrels_level] >= relevance_level
    stratum = 2 * topic_of + (~relevant)
    key = rng.permutation(n)
    order = np.lexsort((key, stratum))
    counts = np.bincount(stratum, minlength=2 * judged.n_topics)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - starts[stratum[order]]
    return _Strata(stratum, rank, counts)


def _quota(counts: np.ndarray, f: float, minimums: np.ndarray, rounding: str) -> np.ndarray:
    """Documents kept per stratum: min(count, max(minimum, rounding(f * count)))."""
    x = np.round(f * counts, 9)  # 0.7 * 10 = 7.000000000000001 must count as 7
    if rounding == "ceil":
        k = np.ceil(x)
    elif rounding == "round":
        k = np.floor(x + 0.5)  # half up
    else:
        k = np.floor(x)
    return np.minimum(counts, np.maximum(minimums, k)).astype(np.int64)


def _masks(
    judged: JudgedRuns,
    strata: _Strata,
    fractions: Sequence[float],
    min_relevant: int,
    min_nonrelevant: int,
    rounding: str,
) -> np.ndarray:
    minimums = np.tile([min_relevant, min_nonrelevant], judged.n_topics)
    out = np.empty((len(fractions), strata.rank.size), dtype=bool)
    for i, f in enumerate(fractions):
        out[i] = strata.rank < _quota(strata.counts, f, minimums, rounding)[strata.stratum]
    return out


def _sampling_args(relevance_level, min_relevant, min_nonrelevant, rounding):
    if isinstance(relevance_level, bool) or not isinstance(relevance_level, Real):
        raise TypeError(f"`relevance_level` must be a number; got {relevance_level!r}.")
    return (
        float(relevance_level),
        _check_minimum(min_relevant, "min_relevant"),
        _check_minimum(min_nonrelevant, "min_nonrelevant"),
        check_choice(rounding, "rounding", ("ceil", "round", "floor")),
    )


def reduction_mask(
    judged: JudgedRuns,
    fraction: float | Sequence[float],
    seed: int | np.random.Generator | None = 0,
    *,
    relevance_level: float = 1,
    min_relevant: int = 1,
    min_nonrelevant: int = 10,
    rounding: Rounding = "ceil",
) -> np.ndarray:
    r"""Which judgments the :math:`f`-qrels keep (Buckley & Voorhees sampling [1]_ [2]_ [3]_).

    Parameters
    ----------
    judged : metrics.JudgedRuns
        The judged-grade tensor with the full qrels.
    fraction : float or sequence of floats
        Share(s) :math:`f \in (0, 1]` of each topic's judged relevant and non-relevant documents to keep.
    seed : int, Generator or None
        Randomness (:func:`numpy.random.default_rng`); the same seed gives the same random orders, so the
        masks for several fractions drawn with one seed are nested.
    relevance_level : float
        Judged documents with grade :math:`\ge` this are *relevant* (trec_eval's ``-l``); all others,
        negative grades included, are *non-relevant*.
    min_relevant, min_nonrelevant : int
        Buckley & Voorhees' minimums (1 and 10), capped at what the topic has.
    rounding : {"ceil", "round", "floor"}
        How :math:`fR` and :math:`fN` become counts: Bompada et al.'s :math:`\lceil\cdot\rceil` (default),
        half-up rounding, or truncation.

    Returns
    -------
    ndarray of bool
        Over the judged documents in ``judged.qrels_level`` order: shape ``(n_judged,)`` for one fraction,
        ``(n_fractions, n_judged)`` for a sequence (rows in the order given).

    Notes
    -----
    Per topic with :math:`R` relevant and :math:`N` non-relevant judged documents, the first
    :math:`R_f = \min(R, \max(1, \lceil fR\rceil))` of a random order of the relevant and the first
    :math:`N_f = \min(N, \max(10, \lceil fN\rceil))` of a random order of the non-relevant are kept (module
    docstring). Vectorised: one random key per judged document and one lexicographic sort by (topic,
    class, key), no loop over topics or documents.

    Examples
    --------
    >>> import metrics
    >>> from experiments.incomplete import reduction_mask
    >>> j = metrics.load_trec9()
    >>> m = reduction_mask(j, [0.5, 0.1], seed=1)
    >>> m.shape == (2, j.qrels_level.size)
    True
    >>> bool((m[1] <= m[0]).all())      # nested: the 10 % qrels lie inside the 50 % qrels
    True
    """
    judged = _check_judged(judged)
    relevance_level, min_relevant, min_nonrelevant, rounding = _sampling_args(
        relevance_level, min_relevant, min_nonrelevant, rounding
    )
    scalar = isinstance(fraction, Real) and not isinstance(fraction, bool)
    fractions = [_check_fraction(fraction)] if scalar else [_check_fraction(f) for f in fraction]
    rng = check_rng(seed)
    strata = _strata(judged, rng, relevance_level)
    masks = _masks(judged, strata, fractions, min_relevant, min_nonrelevant, rounding)
    return masks[0] if scalar else masks


def reduce_qrels(
    judged: JudgedRuns,
    fraction: float,
    seed: int | np.random.Generator | None = 0,
    *,
    relevance_level: float = 1,
    min_relevant: int = 1,
    min_nonrelevant: int = 10,
    rounding: Rounding = "ceil",
) -> JudgedRuns:
    r"""The judged-grade tensor under the :math:`f`-qrels (Buckley & Voorhees [1]_; Bompada et al. [2]_).

    Keeps, per topic, :math:`\min(R, \max(1, \lceil fR\rceil))` judged relevant and
    :math:`\min(N, \max(10, \lceil fN\rceil))` judged non-relevant documents, drawn at random
    (see :func:`reduction_mask` for the parameters and the module docstring for the procedure); every other
    judgment is forgotten with :meth:`metrics.JudgedRuns.restrict_judgments`, so the documents become
    unjudged wherever a run retrieved them. Nothing is re-read: the tensor's per-topic document ids carry it.

    Returns
    -------
    metrics.JudgedRuns
        ``report["reduction"]`` records the fraction, seed (if an int), minimums, rounding and relevance
        level. For ``fraction=1`` the judged set is unchanged and the grades are identical.

    Examples
    --------
    >>> import metrics
    >>> from experiments import reduce_qrels
    >>> j = metrics.load_trec9()
    >>> r = reduce_qrels(j, 0.3, seed=0)
    >>> bool((r.n_relevant() <= j.n_relevant()).all()), bool((r.n_nonrelevant() >= 10).all())
    (True, True)
    """
    mask = reduction_mask(
        judged,
        _check_fraction(fraction),
        seed,
        relevance_level=relevance_level,
        min_relevant=min_relevant,
        min_nonrelevant=min_nonrelevant,
        rounding=rounding,
    )
    return _apply_mask(
        judged, mask, fraction=float(fraction), seed=seed if isinstance(seed, Integral) else None,
        relevance_level=relevance_level, min_relevant=min_relevant, min_nonrelevant=min_nonrelevant,
        rounding=rounding,
    )


def _apply_mask(judged: JudgedRuns, mask: np.ndarray, **info: Any) -> JudgedRuns:
    out = judged.restrict_judgments(mask)
    out.report["reduction"] = dict(info)
    return out


# ================================================================================================ measures
_NDCG_NAME = re.compile(r"^\s*ndcg(?:@(\d+))?\s*$", re.IGNORECASE)


def _measure_name(measure: Measure) -> str:
    return measure if isinstance(measure, str) else getattr(measure, "__name__", repr(measure))


def _resolve_measure(measure: Measure, key: str) -> Callable[[JudgedRuns, bool], pd.DataFrame]:
    """A function (judged, condensed) -> systems x topics DataFrame for a name or a callable."""
    if isinstance(measure, str):
        evaluate = getattr(metrics, "evaluate", None)
        if evaluate is not None:
            def fn(j: JudgedRuns, condensed: bool) -> pd.DataFrame:
                try:
                    return evaluate(j, measure, judged_only=condensed)
                except ValueError as exc:
                    if "judged_only" in str(exc):
                        raise ValueError(
                            f"`measures[{key!r}]`: {exc} -- name the plain measure (e.g. 'AP', not \"AP'\"); "
                            "the study evaluates the condensed lists itself (`judged_only`)."
                        ) from None
                    raise

            return fn
        m = _NDCG_NAME.match(measure)
        if m is None:
            raise ValueError(
                f"`measures[{key!r}]`: measure {measure!r} needs metrics.evaluate, which this installation "
                "lacks; use 'nDCG' or 'nDCG@k', or pass a callable f(judged) -> systems x topics DataFrame."
            )
        cutoff = int(m.group(1)) if m.group(1) else None
        return lambda j, condensed: metrics.ndcg(j, cutoff=cutoff, judged_only=condensed)
    if callable(measure):
        return lambda j, condensed: measure(j.condensed() if condensed else j)
    raise TypeError(
        f"`measures[{key!r}]` must be a measure name (e.g. 'nDCG@20', 'AP') or a callable "
        f"f(judged) -> systems x topics DataFrame; got {type(measure).__name__}."
    )


def _check_measures(measures: Any) -> dict[str, Measure]:
    if isinstance(measures, str) or callable(measures):
        measures = [measures]
    if isinstance(measures, Mapping):
        out = {str(k): v for k, v in measures.items()}
    elif isinstance(measures, Iterable):
        out = {_measure_name(m): m for m in measures}
    else:
        raise TypeError(
            "`measures` must be a name, a callable, a sequence of them or a mapping name -> measure; "
            f"got {type(measures).__name__}."
        )
    if not out:
        raise ValueError("`measures` must not be empty.")
    return out


def _scores(fn: Callable, judged: JudgedRuns, condensed: bool, key: str) -> np.ndarray:
    """Evaluate and check: a finite float (n_systems, n_topics) array in the tensor's system/topic order."""
    res = fn(judged, condensed)
    if isinstance(res, pd.DataFrame):
        if res.shape == (judged.n_systems, judged.n_topics) and list(map(str, res.index)) != list(judged.systems):
            res = res.reindex(index=list(judged.systems))
        values = res.to_numpy(dtype=np.float64)
    else:
        values = np.asarray(res, dtype=np.float64)
    if values.shape != (judged.n_systems, judged.n_topics):
        raise ValueError(
            f"measure {key!r} returned shape {values.shape}; expected (n_systems, n_topics) = "
            f"({judged.n_systems}, {judged.n_topics})."
        )
    if not np.isfinite(values).all():
        raise ValueError(
            f"measure {key!r} returned NaN or infinite scores (a JudgedRuns with missing='exclude'?); "
            "the study needs a complete systems x topics matrix."
        )
    return values


# ============================================================================================ significance
def _decisions(values: np.ndarray, test: str, alpha: float, B: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Per pair i < j (triu order): p-value (or ASL) and the decision +1 (i better), 0 (n.s.), -1 (j better)."""
    if test == "bootstrap":
        table = bootstrap_asl(values, B=B, seed=seed)
        p = table["asl"].to_numpy()
    elif test == "t":
        table = paired_ttest(values)
        p = table["p_value"].to_numpy()
    else:
        table = wilcoxon_test(values)
        p = table["p_value"].to_numpy()
    sign = np.sign(table["mean_diff"].to_numpy())
    return p, np.where(p < alpha, sign, 0.0).astype(np.int8)


def _confusion_counts(full: np.ndarray, reduced: np.ndarray) -> np.ndarray:
    """3 x 3 counts: rows = full-qrels decision (a>b, n.s., a<b), columns = reduced-qrels decision."""
    code = lambda d: 1 - d.astype(np.int64)  # +1 -> 0, 0 -> 1, -1 -> 2
    return np.bincount(3 * code(full) + code(reduced), minlength=9).reshape(3, 3)


def _confusion_stats(c: np.ndarray) -> dict[str, float]:
    """Bompada's cells and rates from the 3 x 3 directional counts (see SignificanceConfusion)."""
    ns_ns = c[1, 1]
    ns_sig = c[1, 0] + c[1, 2]  # C(1,2): H0 accepted with the full qrels, rejected with the reduced
    sig_ns = c[0, 1] + c[2, 1]  # C(2,1): H0 rejected with the full qrels, accepted with the reduced
    same = c[0, 0] + c[2, 2]
    opposite = c[0, 2] + c[2, 0]
    total = c.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        tp = ns_ns / (ns_ns + ns_sig) if ns_ns + ns_sig else math.nan
        ppv = ns_ns / (ns_ns + sig_ns) if ns_ns + sig_ns else math.nan
        tnr = same / (same + opposite + sig_ns) if same + opposite + sig_ns else math.nan
    return dict(
        n_pairs=int(total),
        ns_ns=int(ns_ns),
        ns_sig=int(ns_sig),
        sig_ns=int(sig_ns),
        sig_same=int(same),
        sig_opposite=int(opposite),
        accuracy=float((ns_ns + same) / total) if total else math.nan,
        tp_rate=float(tp),
        predicted_positive_rate=float(ppv),
        g_mean=float(math.sqrt(tp * ppv)) if not (math.isnan(tp) or math.isnan(ppv)) else math.nan,
        tn_rate=float(tnr),
    )


@dataclass(frozen=True, eq=False)
class SignificanceConfusion:
    r"""Bompada et al.'s confusion matrix of significance decisions, full vs reduced qrels [2]_.

    Every system pair :math:`(a, b)` is tested twice, with the full and with the reduced judgments, and
    each test decides *a>b* (significant, :math:`a` better), *n.s.* (:math:`H_0` accepted) or *a<b*.

    Attributes
    ----------
    matrix : DataFrame
        3 x 3 counts; rows = decision with the full qrels, columns = with the reduced qrels, both in the
        order ``("a>b", "n.s.", "a<b")``.
    alpha : float
        Significance level.
    test : str
        ``"bootstrap"`` (Sakai's paired bootstrap, [6]_), ``"t"`` (paired t-test) or ``"wilcoxon"``
        (Bompada et al.'s choice).
    table : DataFrame
        One row per pair: ``system_a``, ``system_b``, ``mean_diff_full``, ``mean_diff_reduced``,
        ``p_full``, ``p_reduced`` (ASL or p-value), ``decision_full``, ``decision_reduced`` (+1, 0, -1).

    Notes
    -----
    Bompada's 2 x 2 matrix (:attr:`bompada`) indexes by :math:`H_0` accepted (1) / rejected (2), rows for
    the full qrels, columns for the :math:`f`-qrels: :math:`C(1,2)` are pairs significant only with the
    reduced qrels, :math:`C(2,1)` pairs significant only with the full qrels (the paper's false
    positive and false negative errors respectively). A pair significant with both but in *opposite*
    directions sits in :math:`C(2,2)` of the paper; here it is counted separately
    (:attr:`sig_opposite`) and is **not** a correct prediction:

    .. math::

        \text{accuracy} = \frac{C(1,1) + C_{\text{same}}(2,2)}{\sum C}, \qquad
        TP = \frac{C(1,1)}{C(1,1) + C(1,2)}, \qquad P = \frac{C(1,1)}{C(1,1) + C(2,1)}, \qquad
        \text{g-mean} = \sqrt{TP \cdot P}.

    Without opposite-direction pairs (the usual case) the accuracy is Bompada's. :math:`TP` is the paper's
    "fraction of null hypothesis accepted cases that were correctly predicted"; the formula of its
    "predicted positive rate" :math:`P` did not survive in our copy of the paper and is read here as the
    share of the reduced qrels' acceptances that are correct (the positive predictive value), so that
    neither factor depends on the large :math:`C(2,2)` the g-mean is meant to discount. The rates are NaN
    when their denominator is 0. :attr:`tn_rate` (pairs significant with the full qrels that keep the same
    significant direction) is also reported.
    """

    matrix: pd.DataFrame
    alpha: float
    test: str
    table: pd.DataFrame = field(repr=False)

    @property
    def _stats(self) -> dict[str, float]:
        return _confusion_stats(self.matrix.to_numpy())

    @property
    def bompada(self) -> pd.DataFrame:
        """Bompada's 2 x 2 matrix: rows full qrels, columns reduced; "H0 accepted" / "H0 rejected"."""
        s = self._stats
        idx = ["H0 accepted", "H0 rejected"]
        return pd.DataFrame(
            [[s["ns_ns"], s["ns_sig"]], [s["sig_ns"], s["sig_same"] + s["sig_opposite"]]],
            index=pd.Index(idx, name="full qrels"),
            columns=pd.Index(idx, name="reduced qrels"),
        )

    n_pairs = property(lambda self: self._stats["n_pairs"], doc="Number of system pairs.")
    sig_same = property(lambda self: self._stats["sig_same"], doc="Pairs significant with both, same direction.")
    sig_opposite = property(lambda self: self._stats["sig_opposite"], doc="Pairs significant with both, opposite directions.")
    false_positive = property(lambda self: self._stats["sig_ns"], doc="C(2,1): significant with the full qrels only.")
    false_negative = property(lambda self: self._stats["ns_sig"], doc="C(1,2): significant with the reduced qrels only.")
    accuracy = property(lambda self: self._stats["accuracy"], doc="Share of pairs with the same decision.")
    tp_rate = property(lambda self: self._stats["tp_rate"], doc="C(1,1) / (C(1,1) + C(1,2)).")
    predicted_positive_rate = property(lambda self: self._stats["predicted_positive_rate"], doc="C(1,1) / (C(1,1) + C(2,1)).")
    g_mean = property(lambda self: self._stats["g_mean"], doc="sqrt(tp_rate * predicted_positive_rate).")
    tn_rate = property(lambda self: self._stats["tn_rate"], doc="Same significant direction among pairs significant with the full qrels.")

    def summary(self) -> str:
        """A short text report (numbers rounded for display only)."""
        return (
            f"Significance decisions, full vs reduced qrels ({self.test}, alpha={self.alpha:g}, "
            f"{self.n_pairs} pairs)\n{self.matrix.to_string()}\n"
            f"  accuracy {self.accuracy:.4f}   g-mean {self.g_mean:.4f}   "
            f"significant in opposite directions: {self.sig_opposite}"
        )

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return (f"SignificanceConfusion({self.test}, alpha = {self.alpha:g}, {self.n_pairs} pairs: accuracy "
                f"{fmt(self.accuracy)}, g-mean {fmt(self.g_mean)}, opposite directions {self.sig_opposite})")

    def _repr_html_(self) -> str:
        m = self.matrix
        rows = [(f"full: {i}", *m.loc[i].tolist()) for i in m.index]
        matrix = html_table(rows, header=["", *(f"reduced: {c}" for c in m.columns)],
                            caption=f"SignificanceConfusion ({self.test}, alpha = {self.alpha:g}, "
                                    f"{self.n_pairs} pairs)")
        return matrix + kv_table("", {"accuracy": self.accuracy, "g-mean": self.g_mean,
                                      "significant in opposite directions": self.sig_opposite})


def _check_test(test: Any, B: Any, alpha: Any) -> tuple[str, int, float]:
    return (
        check_choice(test, "test", ("bootstrap", "t", "wilcoxon")),
        check_int(B, "B", minimum=1),
        check_probability(alpha, "alpha"),
    )


def significance_confusion(
    full_scores: Any,
    reduced_scores: Any,
    *,
    alpha: float = 0.05,
    test: Test = "bootstrap",
    B: int = 1000,
    seed: int = 0,
    top_k: int | None = None,
) -> SignificanceConfusion:
    r"""Bompada et al.'s confusion matrix: do the full and the reduced qrels reach the same verdicts? [2]_

    Parameters
    ----------
    full_scores, reduced_scores : ndarray or DataFrame
        Systems x topics score matrices of one measure with the full and with the reduced judgments
        (DataFrames are aligned by system label; arrays by row).
    alpha : float
        Significance level.
    test : {"bootstrap", "t", "wilcoxon"}
        Sakai's paired bootstrap (:func:`experiments.bootstrap_asl`, ASL < alpha), the paired t-test or the
        Wilcoxon signed-rank test (Bompada et al.'s) on every system pair.
    B, seed : int
        Bootstrap replicates and seed (``test="bootstrap"`` only). The *same* seed is used for both
        matrices, so identical matrices give identical decisions.
    top_k : int, optional
        Test only the ``top_k`` systems by mean score *with the full qrels* (the same systems for both).

    Returns
    -------
    SignificanceConfusion
        The 3 x 3 matrix, Bompada's 2 x 2, accuracy, g-mean and the per-pair table.

    Notes
    -----
    See :class:`SignificanceConfusion` for the definitions. Bompada et al. drew 300 random pairs; here
    every pair is tested.

    Examples
    --------
    >>> import numpy as np
    >>> from experiments import significance_confusion
    >>> rng = np.random.default_rng(0)
    >>> full = rng.random((5, 30)) + np.linspace(0.5, 0, 5)[:, None]
    >>> cm = significance_confusion(full, full, test="t")
    >>> cm.accuracy
    1.0
    """
    test, B, alpha = _check_test(test, B, alpha)
    if isinstance(seed, bool) or not isinstance(seed, Integral):
        raise TypeError(f"`seed` must be an integer (the same seed serves both matrices); got {seed!r}.")
    a = as_scores(full_scores, "full_scores", require_matrix=True, min_topics=2)
    b = as_scores(reduced_scores, "reduced_scores", require_matrix=True, min_topics=2)
    a, b = align_pair(a, b, ("full_scores", "reduced_scores"))
    if a.values.shape != b.values.shape:
        raise ValueError(
            f"`full_scores` and `reduced_scores` must have the same topics; got {a.values.shape[1]} and "
            f"{b.values.shape[1]} columns."
        )
    if top_k is not None:
        k = check_int(top_k, "top_k", minimum=2)
        if k > len(a.systems):
            raise ValueError(f"`top_k` must not exceed the number of systems ({len(a.systems)}); got {k}.")
        keep = np.argsort(-a.means, kind="stable")[:k]
        a, b = a.take(keep), b.take(keep)
    p_full, d_full = _decisions(a.values, test, alpha, B, seed)
    p_red, d_red = _decisions(b.values, test, alpha, B, seed)
    I, J = pair_indices(len(a.systems))
    table = pd.DataFrame(
        {
            "system_a": a.systems[I].to_numpy(),
            "system_b": a.systems[J].to_numpy(),
            "mean_diff_full": a.means[I] - a.means[J],
            "mean_diff_reduced": b.means[I] - b.means[J],
            "p_full": p_full,
            "p_reduced": p_red,
            "decision_full": d_full,
            "decision_reduced": d_red,
        }
    )
    counts = _confusion_counts(d_full, d_red)
    matrix = pd.DataFrame(
        counts,
        index=pd.Index(list(_DECISION_LABELS), name="full qrels"),
        columns=pd.Index(list(_DECISION_LABELS), name="reduced qrels"),
    )
    return SignificanceConfusion(matrix=matrix, alpha=alpha, test=test, table=table)


# ================================================================================================== study
def incompleteness_study(
    judged: JudgedRuns,
    measures: Mapping[str, Measure] | Sequence[Measure] | Measure,
    fractions: Sequence[float] = DEFAULT_FRACTIONS,
    seeds: int | Iterable[int] = 5,
    *,
    judged_only: bool | Sequence[bool] = (False, True),
    test: Test | None = "bootstrap",
    alpha: float = 0.05,
    B: int = 1000,
    test_seed: int = 0,
    top_k: int | None = None,
    relevance_level: float = 1,
    min_relevant: int = 1,
    min_nonrelevant: int = 10,
    rounding: Rounding = "ceil",
    progress: Callable[[str], None] | None = None,
) -> pd.DataFrame:
    r"""Robustness of measures to incomplete judgments (Buckley & Voorhees [1]_, Bompada et al. [2]_, Sakai & Kando [3]_).

    For every seed, the qrels are reduced to each fraction :math:`f` (nested, :func:`reduction_mask`); every
    measure is recomputed on the reduced tensor, on the plain and/or the condensed lists, and compared with
    the *same measure on the same list type* with the full qrels.

    Parameters
    ----------
    judged : metrics.JudgedRuns
        The tensor with the full qrels.
    measures : name, callable, sequence of them, or mapping label -> measure
        A name is evaluated with ``metrics.evaluate(judged, name, judged_only=...)`` (``"AP"``, ``"P@10"``,
        ``"bpref"``, ``"infAP"``, ``"nDCG@20"``, ...; while ``metrics.evaluate`` is not installed only
        ``"nDCG"``/``"nDCG@k"`` with linear gain and log2 discount are understood). A callable
        ``f(judged) -> systems x topics DataFrame`` is called on the tensor, and on ``judged.condensed()`` for
        the condensed lists.
    fractions : sequence of float
        Fractions :math:`f \in (0, 1]` (default 1, .7, .5, .3, .2, .1, .05). Include 1.0 to see the
        reference row; it needs no reduction.
    seeds : int or sequence of int
        Seeds of the random orders (``5`` means ``range(5)``); ``reduce_qrels(judged, f, seed=s)`` gives the
        same reduced qrels as the study's row for ``s``.
    judged_only : bool or sequence of bool
        ``False``: the original (plain) lists, unjudged documents count as non-relevant; ``True``: the
        condensed lists (Sakai [5]_, AP′, nDCG′). Default both.
    test : {"bootstrap", "t", "wilcoxon"} or None
        Significance test on all system pairs for discriminative power and the confusion matrix
        (``None`` skips both; much faster). The bootstrap uses ``B`` replicates and ``test_seed`` for every
        matrix, so identical matrices give identical decisions.
    alpha : float
        Significance level.
    top_k : int, optional
        Significance only among the ``top_k`` systems by full-qrels mean (Kanoulas & Aslam used 30); the
        rank correlations always use every system.
    relevance_level, min_relevant, min_nonrelevant, rounding
        The sampling, as in :func:`reduction_mask`.
    progress : callable, optional
        Called with a one-line message (``"[3/70] AP: f=0.5, seed 2"``) after each (measure, fraction, seed)
        is done, both list types included; the command line prints these on stderr.

    Returns
    -------
    DataFrame
        One row per (measure, condensed, fraction, seed), sorted by measure (in the order given), list type,
        fraction (descending) and seed:

        ``judged_kept``, ``relevant_kept``
            Share of all judgments / of the relevant judgments kept.
        ``tau``, ``tau_ap``
            Kendall's :math:`\tau_b` (:func:`experiments.kendall_tau`) and :math:`\tau_{AP}`
            (:func:`experiments.tau_ap`) between the system rankings by mean score with the full and the
            reduced qrels. The variant, in column ``tau_ap_variant``, is chosen once per measure so that the
            plain and the condensed curves are comparable: ``"a"`` (the full-qrels ranking as the truth) when
            neither full-qrels ranking of the measure has tied means, else ``"b"`` (symmetric, tie-aware)
            for both list types.
        ``mean_full``, ``mean_reduced``, ``drift``, ``relative_drift``, ``rmse``
            Grand mean score with the full and reduced qrels (Sakai & Kando's Figures 3-4), their difference,
            the difference over ``mean_full``, and the RMSE between system means (:func:`experiments.rmse`).
        ``power``, ``power_full``
            Discriminative power [6]_: share of pairs significant at ``alpha`` with the reduced and with the
            full qrels.
        ``accuracy``, ``g_mean``, ``tp_rate``, ``predicted_positive_rate``, ``ns_ns``, ``ns_sig``,
        ``sig_ns``, ``sig_same``, ``sig_opposite``
            Bompada's confusion matrix of the decisions (:class:`SignificanceConfusion`).

        ``attrs`` records the settings. With :math:`f = 1` every row equals the full-qrels results exactly
        (:math:`\tau = \tau_{AP} = 1`, drift 0, accuracy 1).

    Notes
    -----
    Kendall's :math:`\tau = (C - D)/\sqrt{(C+D+T_a)(C+D+T_b)}` over system pairs (concordant :math:`C`,
    discordant :math:`D`, ties); Voorhees [8]_ considers rankings with :math:`\tau \ge 0.9` equivalent,
    whence :func:`knee`. The cost per (fraction, seed) is one :meth:`~metrics.JudgedRuns.restrict_judgments`
    plus, per measure and list type, one evaluation and (if ``test``) one all-pairs test.

    Examples
    --------
    >>> import metrics
    >>> from experiments import incompleteness_study, knee
    >>> j = metrics.load_trec9()
    >>> df = incompleteness_study(j, {"nDCG@100": "nDCG@100"}, fractions=[1.0, 0.3], seeds=2, test=None)
    >>> sorted(df.fraction.unique().tolist())
    [0.3, 1.0]
    >>> float(df.loc[df.fraction == 1.0, "tau"].min())
    1.0
    """
    judged = _check_judged(judged)
    measures = _check_measures(measures)
    fns = {k: _resolve_measure(m, k) for k, m in measures.items()}
    fractions = _check_fractions(fractions)
    seeds = _check_seeds(seeds)
    conds = (judged_only,) if isinstance(judged_only, (bool, np.bool_)) else tuple(judged_only)
    if not conds or not all(isinstance(c, (bool, np.bool_)) for c in conds) or len(set(conds)) != len(conds):
        raise ValueError(f"`judged_only` must be a bool or distinct bools, e.g. (False, True); got {judged_only!r}.")
    conds = tuple(bool(c) for c in conds)
    if test is not None:
        test, B, alpha = _check_test(test, B, alpha)
        if isinstance(test_seed, bool) or not isinstance(test_seed, Integral):
            raise TypeError(f"`test_seed` must be an integer; got {test_seed!r}.")
    relevance_level, min_relevant, min_nonrelevant, rounding = _sampling_args(
        relevance_level, min_relevant, min_nonrelevant, rounding
    )

    # ---- full-qrels reference, once per (measure, list type)
    ref: dict[tuple[str, bool], dict[str, Any]] = {}
    for key, fn in fns.items():
        for c in conds:
            values = _scores(fn, judged, c, key)
            means = values.mean(axis=1)
            entry: dict[str, Any] = dict(values=values, means=means)
            if test is not None:
                sys_idx = np.arange(judged.n_systems)
                if top_k is not None:
                    k = check_int(top_k, "top_k", minimum=2)
                    if k > judged.n_systems:
                        raise ValueError(f"`top_k` must not exceed the number of systems ({judged.n_systems}); got {k}.")
                    sys_idx = np.argsort(-means, kind="stable")[:k]
                entry["sys_idx"] = sys_idx
                _, entry["decisions"] = _decisions(values[sys_idx], test, alpha, B, test_seed)
            ref[key, c] = entry
        # one tau_AP variant per measure, for the plain and the condensed lists alike: "a" needs an untied
        # reference ranking, so a tie in either list type's full-qrels means makes both "b"
        untied = all(np.unique(ref[key, c]["means"]).size == judged.n_systems for c in conds)
        for c in conds:
            ref[key, c]["tau_ap_variant"] = "a" if untied else "b"

    if progress is not None and not callable(progress):
        raise TypeError(f"`progress` must be a callable taking a message, or None; got {progress!r}.")
    n_steps, step = len(seeds) * len(fractions) * len(fns), 0
    n_judged = judged.qrels_level.size
    relevant = judged.levels[judged.qrels_level] >= relevance_level
    rows: list[dict[str, Any]] = []
    for seed in seeds:
        strata = _strata(judged, np.random.default_rng(seed), relevance_level)
        masks = _masks(judged, strata, fractions, min_relevant, min_nonrelevant, rounding)
        for f, mask in zip(fractions, masks):
            reduced = judged if mask.all() else judged.restrict_judgments(mask)
            judged_kept = mask.sum() / n_judged if n_judged else 1.0
            relevant_kept = mask[relevant].sum() / relevant.sum() if relevant.any() else 1.0
            for key, fn in fns.items():
                for c in conds:
                    r = ref[key, c]
                    values = r["values"] if reduced is judged else _scores(fn, reduced, c, key)
                    means = values.mean(axis=1)
                    mean_full = float(r["values"].mean())
                    mean_red = float(values.mean())
                    row: dict[str, Any] = dict(
                        measure=key,
                        condensed=c,
                        fraction=f,
                        seed=seed,
                        judged_kept=float(judged_kept),
                        relevant_kept=float(relevant_kept),
                        tau=kendall_tau(r["means"], means),
                        tau_ap=tau_ap(r["means"], means, variant=r["tau_ap_variant"]),
                        tau_ap_variant=r["tau_ap_variant"],
                        mean_full=mean_full,
                        mean_reduced=mean_red,
                        drift=mean_red - mean_full,
                        relative_drift=(mean_red - mean_full) / mean_full if mean_full else math.nan,
                        rmse=rmse(r["means"], means),
                    )
                    if test is not None:
                        if values is r["values"]:
                            dec = r["decisions"]
                        else:
                            _, dec = _decisions(values[r["sys_idx"]], test, alpha, B, test_seed)
                        stats = _confusion_stats(_confusion_counts(r["decisions"], dec))
                        row.update(
                            power=float(np.mean(dec != 0)) if dec.size else math.nan,
                            power_full=float(np.mean(r["decisions"] != 0)) if dec.size else math.nan,
                            **stats,
                        )
                    rows.append(row)
                step += 1
                if progress is not None:
                    progress(f"[{step}/{n_steps}] {key}: f={f:g}, seed {seed}")
    df = pd.DataFrame(rows)
    order = {k: i for i, k in enumerate(fns)}
    df = df.sort_values(
        ["measure", "condensed", "fraction", "seed"], ascending=[True, True, False, True], kind="stable",
        key=lambda col: col.map(order) if col.name == "measure" else col,
    ).reset_index(drop=True)
    df.attrs.update(
        fractions=list(fractions),
        seeds=list(seeds),
        test=test,
        alpha=alpha,
        B=B if test == "bootstrap" else None,
        top_k=top_k,
        relevance_level=relevance_level,
        min_relevant=min_relevant,
        min_nonrelevant=min_nonrelevant,
        rounding=rounding,
        n_systems=judged.n_systems,
        n_topics=judged.n_topics,
    )
    return df


def summarize_study(study: pd.DataFrame, values: Sequence[str] | None = None) -> pd.DataFrame:
    """Mean and standard deviation over seeds per (measure, condensed, fraction) of a study table.

    Parameters
    ----------
    study : DataFrame
        From :func:`incompleteness_study` (or :func:`tuned_stability_under_incompleteness`, whose group
        keys ``discount``, ``tuned_on`` are used when present).
    values : sequence of str, optional
        Numeric columns to summarise (default: every numeric column except the keys).

    Returns
    -------
    DataFrame
        Index (measure, condensed, fraction) -- curves in order of first appearance, fractions descending --
        and columns (value, "mean"|"std").

    Examples
    --------
    >>> import pandas as pd
    >>> from experiments.incomplete import summarize_study
    >>> df = pd.DataFrame({"measure": "m", "condensed": False, "fraction": [1.0, 1.0, .5, .5],
    ...                    "seed": [0, 1, 0, 1], "tau": [1.0, 1.0, .8, .9]})
    >>> round(float(summarize_study(df).loc[("m", False, .5), ("tau", "mean")]), 2)
    0.85
    """
    keys = _group_keys(study)
    if values is None:
        values = [c for c in study.columns if c not in (*keys, "fraction", "seed") and pd.api.types.is_numeric_dtype(study[c])
                  and not pd.api.types.is_bool_dtype(study[c])]
    missing = [v for v in values if v not in study.columns]
    if missing:
        raise ValueError(f"`values` names columns not in the study: {missing}; it has {list(study.columns)}.")
    out = study.groupby([*keys, "fraction"], sort=False)[list(values)].agg(["mean", "std"])
    idx = out.index.to_frame(index=False)
    groups = list(zip(*(idx[k] for k in keys)))
    first = {g: i for i, g in reversed(list(enumerate(dict.fromkeys(groups))))}
    order = np.lexsort((-idx["fraction"].to_numpy(dtype=float), [first[g] for g in groups]))
    return out.iloc[order]


def _group_keys(study: pd.DataFrame) -> list[str]:
    if not isinstance(study, pd.DataFrame) or "fraction" not in study.columns:
        raise TypeError("`study` must be a DataFrame from incompleteness_study() (with a 'fraction' column).")
    keys = [k for k in ("measure", "condensed", "discount", "tuned_on") if k in study.columns]
    if not keys:
        raise ValueError("`study` has none of the group columns 'measure', 'condensed', 'discount'.")
    return keys


def knee(
    study: pd.DataFrame,
    threshold: float = 0.9,
    *,
    value: str = "tau",
    aggregate: Literal["mean", "median", "min"] = "mean",
) -> pd.DataFrame:
    r"""The knee of each curve: the lowest fraction from which ``value`` stays :math:`\ge` ``threshold`` [2]_.

    Bompada et al. define the knee as "the lowest :math:`f` value for which the Kendall correlation exceeds
    0.9" (their Table 3; Table 5 does the same for the accuracy curves), 0.9 being Voorhees' threshold for
    equivalent rankings [8]_.

    Parameters
    ----------
    study : DataFrame
        From :func:`incompleteness_study` (grouped by measure and list type) or
        :func:`tuned_stability_under_incompleteness` (grouped by discount).
    threshold : float
        The level (0.9 for :math:`\tau`).
    value : str
        The column: ``"tau"``, ``"tau_ap"``, ``"accuracy"``, ``"g_mean"``, ``"phi"``, ...
    aggregate : {"mean", "median", "min"}
        How the seeds at one fraction are combined before the comparison.

    Returns
    -------
    DataFrame
        One row per curve: ``knee`` (NaN if no fraction qualifies) and ``value_at_knee``.

    Notes
    -----
    The knee is the smallest :math:`f` in the grid such that the aggregated value is :math:`\ge` the
    threshold at :math:`f` *and at every larger* :math:`f` of the grid (a curve that dips below and comes
    back up does not get a knee below its dip).

    Examples
    --------
    >>> import pandas as pd
    >>> from experiments import knee
    >>> df = pd.DataFrame({"measure": "AP", "condensed": False, "fraction": [1, .5, .3, .1],
    ...                    "seed": 0, "tau": [1.0, .93, .88, .91]})
    >>> float(knee(df).loc[0, "knee"])
    0.5
    """
    keys = _group_keys(study)
    if value not in study.columns:
        raise ValueError(f"`value` {value!r} is not a column of the study; got columns {list(study.columns)}.")
    if isinstance(threshold, bool) or not isinstance(threshold, Real):
        raise TypeError(f"`threshold` must be a number; got {threshold!r}.")
    check_choice(aggregate, "aggregate", ("mean", "median", "min"))
    agg = study.groupby([*keys, "fraction"], sort=False)[value].agg(aggregate).reset_index()
    rows = []
    for group, g in agg.groupby(keys, sort=False):
        g = g.sort_values("fraction", ascending=False)
        ok = (g[value] >= threshold).to_numpy()
        n_ok = int(np.argmin(ok)) if not ok.all() else ok.size  # leading run of qualifying fractions
        group = group if isinstance(group, tuple) else (group,)
        if n_ok == 0:
            k, v = math.nan, math.nan
        else:
            k, v = float(g["fraction"].iloc[n_ok - 1]), float(g[value].iloc[n_ok - 1])
        rows.append({**dict(zip(keys, group)), "knee": k, "value_at_knee": v})
    out = pd.DataFrame(rows)
    out.attrs.update(threshold=float(threshold), value=value, aggregate=aggregate)
    return out


# ===================================================================================== tuning under reduction
def _default_tuner(
    gain: Any, cutoff: int | None, judged_only: bool, options: Mapping[str, Any]
) -> Callable[[JudgedRuns], Any]:
    try:
        import optimize
    except ImportError:  # pragma: no cover - optimize is part of this project
        optimize = None
    fn = getattr(optimize, "optimize_discount", None)
    if fn is None:
        raise RuntimeError(
            "`tune=True` needs optimize.optimize_discount, which this installation lacks; pass tune=False, "
            "or a callable tune(judged) -> discount vector."
        )
    if cutoff is None:
        raise ValueError("`tune=True` needs an integer `cutoff` (the tuned discount has `cutoff` entries).")
    from optimize.objective import identified_depth

    # condensed lists of sparse qrels can be shallower than the cut-off: there nDCG'@cutoff equals
    # nDCG'@depth for every discount, and the ranks past it cannot be tuned (Problem refuses them)
    return lambda j: fn(j, gain=gain, cutoff=min(cutoff, identified_depth(j, judged_only=judged_only)),
                        judged_only=judged_only, **options)


_STABILITY_ORDER = ("phi", "erho2", "phi_1", "topics_needed", "var_system", "var_topic", "var_residual")


def _stability(scores: np.ndarray, n_topics: float, target: float) -> dict[str, float]:
    """The G-study numbers of one matrix (:func:`experiments._stability.stability`, shared with the sweep)."""
    st = stability(scores, n_topics, target)
    return {k: st[k] for k in _STABILITY_ORDER}


def tuned_stability_under_incompleteness(
    judged: JudgedRuns,
    fractions: Sequence[float] = DEFAULT_FRACTIONS,
    seeds: int | Iterable[int] = 5,
    *,
    cutoff: int | None = 100,
    gain: Any = (0, 1, 2),
    standard_discounts: Sequence[str] = ("log2", "zipf", "linear"),
    tune: bool | Callable[[JudgedRuns], Any] = True,
    tune_options: Mapping[str, Any] | None = None,
    judged_only: bool = False,
    n_topics: float | None = None,
    target: float = 0.95,
    relevance_level: float = 1,
    min_relevant: int = 1,
    min_nonrelevant: int = 10,
    rounding: Rounding = "ceil",
) -> pd.DataFrame:
    r"""Stability (Φ) of standard and tuned nDCG as the judgments become incomplete.

    For each seed and fraction :math:`f`, the qrels are reduced (:func:`reduction_mask`) and nDCG is computed
    with each standard discount and with a discount *tuned for stability* (Kanoulas & Aslam [7]_): tuned on
    the reduced judgments themselves (``tuned_on="reduced"``: what an evaluator with only the reduced qrels
    would get) and tuned once on the full qrels and applied to the reduced ones (``tuned_on="full"``: does
    a tuned vector keep its advantage when judgments are lost?). The G-study of each systems x topics
    matrix gives Φ and Eρ² (:mod:`gtheory`).

    Parameters
    ----------
    judged : metrics.JudgedRuns
        The tensor with the full qrels.
    fractions, seeds
        As in :func:`incompleteness_study`.
    cutoff : int or None
        nDCG cut-off (Kanoulas & Aslam used 100).
    gain : gain spec
        Per-grade gains for :func:`metrics.ndcg` (default ``(0, 1, 2)``, linear for grades 0/1/2).
    standard_discounts : sequence of str
        Discount names for :func:`metrics.ndcg`.
    tune : bool or callable
        ``True``: tune with ``optimize.optimize_discount(judged, gain=, cutoff=, judged_only=)`` (its
        ``.discount``; where the condensed lists of sparse qrels end before ``cutoff``, at that depth —
        :func:`optimize.objective.identified_depth` — which changes no score); a callable ``tune(judged) -> discount vector`` (or an object with ``.discount``) is
        called instead, on the condensed tensor if ``judged_only``;
        ``False``: standard discounts only.
    tune_options : mapping, optional
        Keyword arguments for ``optimize.optimize_discount`` (e.g. ``{"starts": 1}`` for speed: one tuning
        per fraction and seed).
    judged_only : bool
        Evaluate (and tune on) the condensed lists.
    n_topics : float, optional
        D-study size for ``phi`` and ``erho2`` (default: the collection's number of topics).
    target : float
        Φ target for ``topics_needed`` (0.95).
    relevance_level, min_relevant, min_nonrelevant, rounding
        The sampling, as in :func:`reduction_mask`.

    Returns
    -------
    DataFrame
        One row per (discount, fraction, seed), sorted so (standard discounts in the order given, then tuned on
        the reduced and on the full qrels; fractions descending): ``discount`` (name, or ``"tuned"``), ``tuned_on``
        (``""``, ``"reduced"`` or ``"full"``), ``phi`` and ``erho2`` at ``n_topics``, ``phi_1`` (one
        topic), ``topics_needed`` (for Φ ≥ ``target``), the variance components, ``mean`` and ``tau`` (the
        ranking's Kendall τ against the same discount with the full qrels; for ``tuned_on="reduced"`` against
        the full-qrels-tuned nDCG). With :math:`f = 1` the rows equal the full-qrels G-study exactly.

    Notes
    -----
    .. math::

        \Phi(n) = \frac{\sigma^2_s}{\sigma^2_s + (\sigma^2_t + \sigma^2_{st,e})/n}, \qquad
        E\rho^2(n) = \frac{\sigma^2_s}{\sigma^2_s + \sigma^2_{st,e}/n}

    with the ANOVA variance components (negative estimates set to 0), Brennan (2001) ch. 4. Topics needed:
    the smallest integer :math:`n` with :math:`\Phi(n) \ge` target.

    Examples
    --------
    >>> import metrics
    >>> from experiments import tuned_stability_under_incompleteness
    >>> j = metrics.load_trec9()
    >>> df = tuned_stability_under_incompleteness(j, [1.0, 0.3], seeds=1, standard_discounts=["log2"], tune=False)
    >>> list(df.discount.unique()), bool((df.phi > 0).all())
    (['log2'], True)
    """
    judged = _check_judged(judged)
    fractions = _check_fractions(fractions)
    seeds = _check_seeds(seeds)
    if isinstance(standard_discounts, str):
        standard_discounts = [standard_discounts]
    standard_discounts = list(standard_discounts)
    if n_topics is None:
        n_topics = judged.n_topics
    if isinstance(n_topics, bool) or not isinstance(n_topics, Real) or not n_topics > 0:
        raise ValueError(f"`n_topics` must be a positive number; got {n_topics!r}.")
    target = check_probability(target, "target")
    relevance_level, min_relevant, min_nonrelevant, rounding = _sampling_args(
        relevance_level, min_relevant, min_nonrelevant, rounding
    )
    if tune is True:
        tuner = _default_tuner(gain, cutoff, judged_only, dict(tune_options or {}))
    elif tune is False or tune is None:
        tuner = None
    elif callable(tune):
        tuner = lambda j: tune(j.condensed() if judged_only else j)  # noqa: E731
    else:
        raise TypeError(f"`tune` must be a bool or a callable tune(judged) -> discount vector; got {tune!r}.")
    if not standard_discounts and tuner is None:
        raise ValueError("nothing to evaluate: `standard_discounts` is empty and `tune` is False.")

    def as_vector(res: Any) -> np.ndarray:
        v = np.asarray(getattr(res, "discount", res), dtype=np.float64)
        if v.ndim != 1 or v.size == 0 or not np.isfinite(v).all():
            raise ValueError(f"the tuner must return a finite 1-D discount vector; got shape {v.shape}.")
        return v

    def scores(j: JudgedRuns, discount: Any) -> np.ndarray:
        return metrics.ndcg(j, gain=gain, discount=discount, cutoff=cutoff, judged_only=judged_only).to_numpy()

    specs: list[tuple[str, str, Any]] = [(d, "", d) for d in standard_discounts]
    full_scores: dict[tuple[str, str], np.ndarray] = {(d, ""): scores(judged, d) for d in standard_discounts}
    full_vector = None
    if tuner is not None:
        full_vector = as_vector(tuner(judged))
        full_scores["tuned", "full"] = scores(judged, full_vector)
        specs += [("tuned", "reduced", None), ("tuned", "full", full_vector)]

    rows = []
    for seed in seeds:
        strata = _strata(judged, np.random.default_rng(seed), relevance_level)
        masks = _masks(judged, strata, fractions, min_relevant, min_nonrelevant, rounding)
        for f, mask in zip(fractions, masks):
            reduced = judged if mask.all() else judged.restrict_judgments(mask)
            for name, tuned_on, disc in specs:
                if tuned_on == "reduced":
                    vec = full_vector if reduced is judged else as_vector(tuner(reduced))
                    ref = full_scores["tuned", "full"]
                    s = ref if reduced is judged else scores(reduced, vec)
                else:
                    ref = full_scores[name, tuned_on]
                    s = ref if reduced is judged else scores(reduced, disc)
                rows.append(
                    dict(
                        discount=name,
                        tuned_on=tuned_on,
                        fraction=f,
                        seed=seed,
                        judged_kept=float(mask.mean()) if mask.size else 1.0,
                        **_stability(s, float(n_topics), target),
                        mean=float(s.mean()),
                        tau=kendall_tau(ref.mean(axis=1), s.mean(axis=1)),
                    )
                )
    df = pd.DataFrame(rows)
    spec_order = {(n, on): i for i, (n, on, _) in enumerate(specs)}
    df["_spec"] = [spec_order[n, on] for n, on in zip(df.discount, df.tuned_on)]
    df = (
        df.sort_values(["_spec", "fraction", "seed"], ascending=[True, False, True], kind="stable")
        .drop(columns="_spec")
        .reset_index(drop=True)
    )
    df.attrs.update(
        cutoff=cutoff, gain=list(gain) if isinstance(gain, (list, tuple)) else gain, n_topics=n_topics,
        target=target, judged_only=judged_only, fractions=list(fractions), seeds=list(seeds),
        full_tuned_discount=None if full_vector is None else full_vector.tolist(),
    )
    return df
