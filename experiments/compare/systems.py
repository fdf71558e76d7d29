r"""Compare systems as IR papers do: paired tests per pair, multiple-comparison correction, effect sizes, intervals.

:func:`compare` tests every pair of systems (or every system against a baseline) on one systems x topics score
matrix and returns a :class:`Comparison`: one row per pair with both means, the difference and its interval, the
test statistic, the p-value and the corrected p-value, the effect size and the verdict. :func:`compare_measures`
does the same for several measures and lays the means out as the runs x measures table of a paper
(:class:`ComparisonTable`: LaTeX with booktabs, Markdown, HTML, CSV), with markers of significant differences.

Tests (all two-sided; ``d_j = x_{a,j} - x_{b,j}`` the per-topic differences of the pair, n topics), declared once
in :mod:`experiments.compare.registry` and computed in :mod:`experiments.compare.classical` and
:mod:`experiments.compare.resampling`:

* ``"t"`` — the paired t-test, :math:`t = \bar d / (s_d/\sqrt n)` on n - 1 degrees of freedom
  (:func:`scipy.stats.ttest_rel`);
* ``"wilcoxon"`` — the Wilcoxon signed-rank test (:func:`scipy.stats.wilcoxon`; exact null distribution when
  n < 50 without zeros or ties, R's rule (scipy's ``"auto"`` is exact at n = 50 too), the normal approximation
  otherwise, with the continuity correction of R's ``wilcox.test`` unless ``continuity_correction=False``; zeros
  dropped);
* ``"sign"`` — the sign test: the number of positive differences among the non-zero ones is Binomial(n', 1/2)
  under H0 (:func:`scipy.stats.binomtest`);
* ``"randomization"`` — Fisher's paired randomisation (permutation) test: under H0 each difference's sign is a
  fair coin, :math:`p = \#\{s : |\sum_j s_j d_j| \ge |\sum_j d_j|\} / N`. Exact (all :math:`N = 2^n` sign
  vectors, counted by meeting in the middle) when :math:`2^n` is at most ``n_resamples``; otherwise
  ``n_resamples`` random sign vectors shared by all pairs, drawn in blocks, and the unbiased estimate
  :math:`p = (k + 1)/(B + 1)` (Phipson & Smyth 2010) — never 0;
* ``"bootstrap"`` — Sakai's paired studentised bootstrap test (:func:`experiments.bootstrap_asl`, Sakai 2006),
  ``n_resamples`` replicates shared by all pairs;
* ``"tukey-hsd"`` — the randomised Tukey HSD (:func:`experiments.tukey_hsd_randomised`, Carterette 2012), which
  controls the family-wise error over all pairs of the compared systems itself (no further correction).

Corrections (``correction``): ``"holm"``, ``"bonferroni"``, ``"bh"`` (Benjamini–Hochberg), ``"by"``
(Benjamini–Yekutieli), ``"sidak"``, ``"holm-sidak"``, ``"hommel"`` — computed by statsmodels'
:func:`~statsmodels.stats.multitest.multipletests` over the pairs of the table, one call per table (Holm computed
here: statsmodels' collects garbage on every call); a pair is significant when its (adjusted) p-value is at most
``alpha`` (statsmodels' rule). When the smallest p-value the test can give is above the correction's smallest
threshold, a warning says how many resamples are needed.

Units: every statistic is computed on the scores divided by a power of two at their largest magnitude, so p-values
and effect sizes do not depend on the units; V_E at rounding level (below 1e-9 of the scores' magnitude) is 0.

Effect sizes (``effect_size``): ``"sakai"`` — :math:`\bar d / \sqrt{V_E}`, with :math:`V_E` the residual mean
square of the two-way systems x topics ANOVA without replication over all compared systems (Sakai, *Statistical
reform in information retrieval?*, SIGIR Forum 2014; *Laboratory Experiments in IR*, 2018, ch. 5); ``"dz"`` —
Cohen's :math:`d_z = \bar d / s_d`.

The interval of each difference is the paired-t interval :math:`\bar d \pm t_{1-\alpha/2,\,n-1}\, s_d/\sqrt n`
at level 1 - ``alpha``, per pair (not simultaneous), whatever the test.

Ties follow the rest of the package: differences equal in exact arithmetic are made equal before ranking or
counting (:data:`gtheory.kit.ties.TIE_REL`), so discrete measures (P@10) are not decided by rounding.

References
----------
T. Sakai. Statistical significance, power, and sample sizes: a systematic review of SIGIR and TOIS, 2006-2015.
SIGIR 2016. — B. Carterette. Multiple testing in statistical analysis of systems-based IR experiments. TOIS 30(1),
2012. — M. D. Smucker, J. Allan, B. Carterette. A comparison of statistical significance tests for IR evaluation.
CIKM 2007. — B. Phipson, G. K. Smyth. Permutation p-values should never be zero. SAGMB 9(1), 2010.
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Sequence

import numpy as np

from gtheory.kit.checks import check_choice
from gtheory.kit.params import BOOLEAN, integer, validate_params
from gtheory.kit.ties import TIE_REL, tie_values
from experiments._validation import Labels, Scores, keep_top_k, pair_indices, score_matrix

from . import registry as _registry
from .comparison import _TEST_NAMES, Comparison, _label
from .corrections import adjust, resolution_warning
from .pairwise_tests import _exact_differences
from .registry import CORRECTIONS, TESTS, PairsInput
from .resampling import MAX_RESAMPLES

__all__ = ["compare", "residual_variance", "N_RESAMPLES_RULE"]


# ----------------------------------------------------------------------------------------------- V_E


def residual_variance(values: np.ndarray) -> float:
    r""":math:`V_E`, the residual mean square of the two-way ANOVA without replication of a systems x topics matrix:
    :math:`\sum_{ij}(x_{ij} - \bar x_{i\cdot} - \bar x_{\cdot j} + \bar x)^2 / ((m-1)(n-1))` (computed on the
    doubly-centred matrix, so an offset in the scores does not cost precision)."""
    m, n = values.shape
    r = values - values.mean(axis=1, keepdims=True) - values.mean(axis=0, keepdims=True) + values.mean()
    return float(np.einsum("ij,ij->", r, r) / ((m - 1) * (n - 1)))


def _unit(X: np.ndarray) -> float:
    """The power of two at or just above the largest |score| (1 for an all-zero matrix): dividing by it is exact, so
    the standardised scores of ``X`` and of ``X * 10**k`` differ only by the rounding of the product."""
    top = float(np.abs(X).max())
    if top == 0.0:
        return 1.0
    return math.ldexp(1.0, math.frexp(top)[1])


# ----------------------------------------------------------------------------------------------- results


# ----------------------------------------------------------------------------------------------- compare


def _check_inputs(test, correction, effect_size):
    check_choice(test, "test", TESTS)
    if correction is None:
        correction = "none"
    check_choice(correction, "correction", ("none", *CORRECTIONS))
    if _registry.test_named(test).controls_family and correction != "none":
        from gtheory.errors import ParameterError

        raise ParameterError("correction", f"the {_TEST_NAMES[test]} controls the family-wise error over all pairs "
                             f"itself; use correction=None with test={test!r} (got {correction!r}).")
    check_choice(effect_size, "effect_size", ("sakai", "dz"))
    return correction  # alpha and n_resamples: the parameter table (gtheory.kit.params)


def _check_labels(s: Scores) -> None:
    """Refuse system labels that are distinct values but print alike (``1`` and ``"1"``): every output shows labels
    as text, so the two rows could not be told apart (the labels are compared as the user wrote them)."""
    if not s.labelled:
        return
    texts = [_label(x) for x in s.systems]
    dup = _first_repeat(texts)
    if dup is not None:
        same = [x for x, t in zip(s.systems, texts) if t == dup]
        raise ValueError(f"`scores` has system labels that are different values but print alike: "
                         f"{', '.join(f'{x!r} ({type(x).__name__})' for x in same)}; the outputs could not tell "
                         "them apart. Rename one (e.g. scores.rename(index={...})).")


def _first_repeat(items: Sequence[Any]) -> Any:
    """The first item met a second time (None when every item is distinct)."""
    seen: set[Any] = set()
    for x in items:
        if x in seen:
            return x
        seen.add(x)
    return None


def did_you_mean(name: Any, labels: Any) -> str:
    """``"; did you mean 'X'?"`` with the label closest to ``name`` (:func:`difflib.get_close_matches`, the labels as
    text), or ``""`` when none is close: an unknown run named by a prefix (``COMPL_EN_Run.1`` for
    ``COMPL_EN_Run.1.dat``) or a typo."""
    import difflib

    texts = [str(x) for x in labels]
    text = str(name)
    close = [t for t in texts if t.startswith(text) or text.startswith(t)][:1] or \
        difflib.get_close_matches(text, texts, n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _appended(labels: Any, label: Any) -> Any:
    """``labels`` (a :class:`pandas.Index` or :class:`~experiments._validation.Labels`) followed by ``label``."""
    if isinstance(labels, Labels):
        return labels.append([label])
    import pandas as pd

    return labels.append(pd.Index([label]))


def _select(s: Scores, systems: Sequence[Any] | None, top_k: int | None, baseline: Any) -> Scores:
    if systems is not None:
        if isinstance(systems, (str, bytes)):
            raise TypeError(f"`systems` must be a list of system labels, not one string; give systems=[{systems!r}].")
        wanted = list(systems)
        idx = s.systems.get_indexer(wanted)
        if (idx < 0).any():
            missing = [w for w, i in zip(wanted, idx) if i < 0]
            raise ValueError(f"`systems` names {len(missing)} system(s) not in `scores`: "
                             f"{', '.join(map(repr, missing[:5]))}{', ...' if len(missing) > 5 else ''}"
                             f"{did_you_mean(missing[0], s.systems) or '.'}")
        twice = _first_repeat(idx.tolist())
        if twice is not None:
            raise ValueError(f"`systems` lists a system twice: {wanted[idx.tolist().index(twice)]!r}.")
        s = s.take(idx)
    if top_k is not None:
        s = keep_top_k(s, top_k)
    return s


def _pairs(kept: Scores, baseline: Any) -> tuple[np.ndarray, np.ndarray]:
    m = len(kept.systems)
    if baseline is None:
        return pair_indices(m)
    b = kept.systems.get_loc(baseline)
    I = np.array([i for i in range(m) if i != b], dtype=np.intp)
    return I, np.full(len(I), b, dtype=np.intp)


#: compare's rule for n_resamples: bounded, so that a table ends (the resamples run in blocks: memory is not the limit)
N_RESAMPLES_RULE = integer(1, MAX_RESAMPLES, fix="give at most 100,000,000 resamples (a p-value resolution of 1e-8), "
                                                 "e.g. `n_resamples=10000`")


@validate_params(n_resamples=N_RESAMPLES_RULE, continuity_correction=BOOLEAN)
def compare(
    scores: Any,
    *,
    test: str = "t",
    correction: str | None = None,
    baseline: Any = None,
    alpha: float = 0.05,
    seed: int | np.random.Generator | None = 0,
    n_resamples: int = 10000,
    effect_size: str = "sakai",
    systems: Sequence[Any] | None = None,
    top_k: int | None = None,
    measure: str | None = None,
    continuity_correction: bool = True,
) -> Comparison:
    r"""Test every pair of systems, or every system against ``baseline``, on one score matrix.

    The statistics are computed on standardised scores (divided by a power of two at the scores' magnitude), so the
    p-values and effect sizes do not depend on the units and the means, differences and intervals scale with them.

    Parameters
    ----------
    scores : DataFrame or ndarray
        Systems x topics score matrix (DataFrame index = run names), e.g. one measure of
        :func:`metrics.evaluate`. No NaN; each topic and each system once; system labels that print alike
        (``1`` and ``"1"``) are refused.
    test : {'t', 'wilcoxon', 'sign', 'randomization', 'bootstrap', 'tukey-hsd'}
        The paired test (:data:`experiments.compare.registry.TEST_REGISTRY`: definitions, assumptions, sources).
    correction : {None, 'holm', 'bonferroni', 'bh', 'by', 'sidak', 'holm-sidak', 'hommel'}
        Multiple-comparison correction over the pairs of the table (statsmodels' ``multipletests``, one call per
        table; Holm computed here, checked against it). Not with ``'tukey-hsd'``, which controls the family-wise
        error itself.
    baseline : label, optional
        Compare each other system with this one (rows ``a`` = the system, ``b`` = the baseline); all pairs if None.
    alpha : float
        Significance level, in (0, 1); the intervals are at level 1 - alpha.
    seed : int, Generator or None
        Randomness of the randomisation, bootstrap and Tukey tests; the same seed gives the same numbers.
    n_resamples : int
        Sign vectors (randomisation; exact enumeration instead when 2^n_topics <= n_resamples), bootstrap
        replicates, or Tukey permutations; at most 100,000,000. Drawn in blocks: memory does not grow with it. When
        the smallest p-value it allows (1/(n_resamples + 1)) is above the smallest threshold of ``correction``, a
        :class:`~gtheory.kit.errors.FixableWarning` says how many resamples are needed.
    effect_size : {'sakai', 'dz'}
        Sakai's diff / sqrt(V_E) (V_E: the residual variance of the two-way ANOVA of the compared systems) or
        Cohen's d_z = diff / s_d. When V_E is 0 (the systems differ by a constant on every topic, up to rounding:
        below 1e-9 of the scores' magnitude), Sakai's effect sizes are +-inf (0/0: NaN), ``residual_variance`` is 0,
        there is no minimum detectable difference, and a warning says so.
    systems : sequence of labels, optional
        Compare only these systems (in this order).
    top_k : int, optional
        Compare only the ``top_k`` systems by mean (best first); the baseline is always kept.
    measure : str, optional
        The measure's name, shown in the outputs.
    continuity_correction : bool
        Wilcoxon's normal approximation with the continuity correction (default, R's ``wilcox.test``) or without
        (scipy's default); no effect on the other tests or on Wilcoxon's exact null distribution.

    Returns
    -------
    Comparison
        ``table`` has one row per pair; ``means`` the mean of each compared system.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from experiments import compare
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame(rng.random((3, 40)) + [[0.3], [0.0], [0.0]],
    ...                  index=pd.Index(["new", "bm25", "ql"], name="system"))
    >>> c = compare(X, test="t", correction="holm", baseline="bm25")
    >>> c.table[["a", "b", "significant"]].values.tolist()
    [['new', 'bm25', True], ['ql', 'bm25', False]]
    """
    # validation
    correction = _check_inputs(test, correction, effect_size)
    s = score_matrix(scores, arrays=True)  # a LabelledMatrix stays arrays: no pandas
    _check_labels(s)
    if baseline is not None and baseline not in s.systems:
        raise ValueError(f"`baseline` {baseline!r} is not one of the systems of `scores` "
                         f"({', '.join(map(repr, list(s.systems[:5])))}{', ...' if len(s.systems) > 5 else ''})"
                         f"{did_you_mean(baseline, s.systems) or '.'}")
    kept = _select(s, systems, top_k, baseline)
    if baseline is not None and baseline not in kept.systems:
        kept = Scores(np.vstack([kept.values, s.values[s.systems.get_loc(baseline)]]),
                      _appended(kept.systems, baseline), kept.topics, kept.labelled)
    if len(kept.systems) < 2:
        raise ValueError("`compare` needs at least 2 systems after `systems`/`top_k`.")
    # standardised scores: every statistic is unit-free, every location scales back by `unit`
    unit = _unit(kept.values)
    X = kept.values / unit
    m, n = X.shape
    I, J = _pairs(kept, baseline)
    zero = TIE_REL * float(np.abs(X).max())
    D = _exact_differences(X[I] - X[J], zero)
    # dispatch
    entry = _registry.test_named(test)
    outcome = entry.function(PairsInput(
        D, X, I, J, n_resamples, np.random.default_rng(seed), continuity_correction))
    p = np.asarray(outcome.p, dtype=float)
    resolution_warning(test, outcome, correction, alpha, len(p), n, n_resamples)
    # correction: one call over the table's p-values
    reject, p_adj = adjust(p, alpha, correction)
    # the table: means, differences, intervals, effect sizes (standardised, then back in the scores' units)
    from scipy.special import stdtrit  # what scipy.stats.t.ppf evaluates, without importing scipy.stats

    means = X.mean(axis=1)
    diff = means[I] - means[J]
    sd = D.std(axis=1, ddof=1) if n > 1 else np.full(len(D), np.nan)
    sd = np.where(sd <= zero, 0.0, sd)
    half = stdtrit(n - 1, 1.0 - alpha / 2.0) * sd / math.sqrt(n)
    ve = residual_variance(X)
    if not math.sqrt(max(ve, 0.0)) > zero:  # V_E at rounding level: the systems differ by constants
        ve = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        es = diff / math.sqrt(ve) if effect_size == "sakai" else diff / sd
        es = np.where(np.abs(diff) <= zero, np.where((sd if effect_size == "dz" else ve) == 0, np.nan, 0.0), es)
    if ve == 0.0:
        warnings.warn(
            "V_E = 0: the compared systems differ by a constant on every topic (up to rounding), so the residual "
            "variance is 0, Sakai's effect sizes are +-inf (NaN for equal systems) and there is no minimum "
            "detectable difference", UserWarning, stacklevel=3)
    labels = kept.systems
    pairs = {
        "a": [_label(x) for x in labels[I]], "b": [_label(x) for x in labels[J]],  # typed by Comparison
        "mean_a": means[I] * unit, "mean_b": means[J] * unit, "diff": diff * unit,
        "ci_lo": (diff - half) * unit, "ci_hi": (diff + half) * unit,
        "statistic": np.asarray(outcome.statistic, float) * (unit if entry.statistic_in_units else 1.0),
        "p": p, "p_adjusted": np.asarray(p_adj, float),
        "effect_size": np.asarray(es, float), "significant": np.asarray(reject, bool),
    }
    mdd = math.nan
    if n >= 3 and ve > 0:
        from gtheory.topics import min_detectable_difference

        mdd = float(min_detectable_difference("paired-t", n, variance=ve, alpha=alpha, power=0.8)) * unit
    order = np.argsort(-tie_values(means), kind="stable")
    return Comparison(
        test=test, correction=correction, alpha=alpha, baseline=None if baseline is None else _label(baseline),
        effect_size=effect_size, measure=measure, n_systems=m, n_topics=n, n_resamples=int(outcome.n_resamples),
        exact=bool(outcome.exact),
        seed=seed if isinstance(seed, (int, type(None))) and not isinstance(seed, bool) else None,
        residual_variance=ve * unit * unit, pairs=pairs, systems=tuple(_label(x) for x in labels[order]),
        system_means=means[order] * unit, min_detectable_difference=mdd,
    )
