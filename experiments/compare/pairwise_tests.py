r"""The classical and randomised significance tests over all system pairs.

* :func:`paired_ttest`, :func:`wilcoxon_test` -- the classical tests (via :mod:`scipy.stats`), vectorised over
  pairs;
* :func:`tukey_hsd_randomised` -- Carterette's randomised Tukey HSD, which controls the family-wise
  error over all pairs [1]_.

Sakai's bootstrap test and discriminative power are in :mod:`experiments.discriminative`; both are importable
from :mod:`experiments`. Every result table has one row per unordered
system pair, in the order of :func:`numpy.triu_indices` (input order, or best-first with ``top_k``).

Validated against :func:`scipy.stats.ttest_rel` and :func:`scipy.stats.wilcoxon` pair by pair and a per-trial loop
of the Tukey permutations; see ``tests/test_experiments_significance.py`` and
``tests/test_experiments_compare_pairwise_tests.py``.

References
----------
.. [1] B. Carterette. Multiple testing in statistical analysis of systems-based information retrieval
   experiments. ACM TOIS 30(1), 2012.
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from gtheory.kit.ties import tie_values

from gtheory.kit.checks import check_choice
from gtheory.kit.ties import TIE_REL
from experiments._validation import pair_frame, pair_indices, score_matrix
from gtheory.kit.params import validate_params

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["paired_ttest", "wilcoxon_test", "tukey_hsd_randomised"]

#: The Wilcoxon signed-rank test takes the exact null distribution only below this many non-zero differences (and
#: without zeros or ties), the normal approximation from it on: R's ``wilcox.test`` default ``exact <- (n < 50)``
#: (R's ``?wilcox.test``: "an exact p-value is computed if the samples contain less than 50 finite values and there
#: are no ties"). SciPy's ``method="auto"`` takes the exact distribution up to and including 50.
WILCOXON_EXACT_BELOW = 50


ScoresLike = Any


def tukey_p_values(X: np.ndarray, I: np.ndarray, J: np.ndarray, n_resamples: int,
                   rng: np.random.Generator) -> np.ndarray:
    r"""The randomised Tukey HSD p-value of each pair ``(I[k], J[k])`` of the rows of the systems x topics array
    ``X``: :math:`p = \#\{b : q^{*b} \ge |\bar x_I - \bar x_J|\} / B` over ``n_resamples`` within-topic permutations
    (:func:`tukey_hsd_randomised`'s definition and draws: the same ``rng`` gives the same trials); arrays only."""
    m, n = X.shape
    base = X.T  # n x m: permute along systems within each topic
    means = X.mean(axis=1)
    diff = np.abs(means[I] - means[J])
    # #{b : q_b >= d}, counted block by block via each block's sorted ranges (memory does not grow with B); a range
    # equal to d up to rounding (far below 1e-9 of the scores' magnitude for any realistic number of topics) ties
    # with it and counts
    tie = TIE_REL * float(np.abs(X).max())
    reach = np.zeros(len(diff), dtype=np.int64)
    block = max(1, (1 << 21) // (m * n))
    for start in range(0, n_resamples, block):
        k = min(block, n_resamples - start)
        perm = rng.permuted(np.broadcast_to(base, (k, n, m)), axis=2)
        bmeans = perm.mean(axis=1)  # k x m
        ranges = np.sort(bmeans.max(axis=1) - bmeans.min(axis=1))
        reach += k - np.searchsorted(ranges, diff - tie, side="left")
    return reach / n_resamples


@validate_params()
def paired_ttest(scores: ScoresLike, *, top_k: int | None = None) -> pd.DataFrame:
    r"""Two-sided paired t-test for every system pair (:func:`scipy.stats.ttest_rel`, vectorised).

    .. math::

        t = \frac{\bar z}{\hat\sigma_z/\sqrt n} \sim t_{n-1} \text{ under } H_0: \mu_z = 0,
        \qquad z_j = x_j - y_j

    Parameters
    ----------
    scores : ndarray or DataFrame
        Systems x topics score matrix.
    top_k : int, optional
        Keep only the ``top_k`` systems by mean score.

    Returns
    -------
    DataFrame
        ``system_a``, ``system_b``, ``mean_diff``, ``t``, ``p_value``. Pairs whose differences are
        all zero get ``t = 0`` and ``p_value = 1`` (scipy would return NaN).

    Examples
    --------
    >>> import numpy as np
    >>> from experiments import paired_ttest
    >>> table = paired_ttest(np.random.default_rng(0).random((3, 25)))
    >>> len(table)
    3
    """
    s = score_matrix(scores, top_k)
    I, J = pair_indices(len(s.systems))
    x, y = s.values[I], s.values[J]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        from scipy import stats  # on first use: scipy.stats costs half a second of start-up

        res = stats.ttest_rel(x, y, axis=1)
    t, p = _null_pairs(x, y, np.asarray(res.statistic, float), np.asarray(res.pvalue, float))
    frame = pair_frame(s, I, J, t=t, p_value=p)
    frame.attrs.update(n_topics=s.values.shape[1], test="paired t-test")
    return frame


def _null_pairs(x, y, statistic, p):
    same = np.all(x == y, axis=1)
    return np.where(same, 0.0, statistic), np.where(same, 1.0, p)


@validate_params()
def wilcoxon_test(
    scores: ScoresLike,
    *,
    zero_method: str = "wilcox",
    method: str = "auto",
    correction: bool = True,
    top_k: int | None = None,
) -> pd.DataFrame:
    r"""Two-sided Wilcoxon signed-rank test for every system pair (:func:`scipy.stats.wilcoxon`).

    With :math:`r_j` the rank of :math:`|z_j|` among the non-zero differences (differences equal up to rounding,
    within 1e-9 of the scores' magnitude, are equal: ties and zeros are those of exact arithmetic),
    :math:`W^{+} = \sum_{z_j>0} r_j`; scipy reports :math:`\min(W^+, W^-)` and its p-value
    (exact or normal approximation, per ``method``).

    Parameters
    ----------
    scores : ndarray or DataFrame
        Systems x topics score matrix.
    zero_method : {'wilcox', 'pratt', 'zsplit'}
        How zero differences are treated (scipy's default drops them).
    method : {'auto', 'exact', 'asymptotic'}
        p-value computation. ``'auto'`` decides per pair as R's ``wilcox.test`` (``exact <- (n < 50)``, n the
        number of non-zero differences): the exact null distribution when there are fewer than 50 topics
        (:data:`WILCOXON_EXACT_BELOW`) and no zero or tied differences, the normal approximation (with the
        tie correction, and the continuity correction when ``correction``) otherwise. SciPy's ``'auto'``
        differs at exactly 50 differences, where it takes the exact distribution (``n <= 50``): with 50
        topics (CLEF eHealth 2014, the TREC Web tracks) the p-values are R's, not scipy's ``'auto'``'s.
        For 13 or fewer topics with ties or zeros scipy's ``'auto'`` runs a permutation test (about a
        second per pair, too slow for thousands of pairs); here, as in R, the normal approximation.
    correction : bool
        Continuity correction of the normal approximation: :math:`z = (W^+ - n(n+1)/4 - \operatorname{sign}
        \cdot 1/2)/\sigma` (``scipy.stats.wilcoxon(correction=True)``). Default True, as R's ``wilcox.test``
        (``correct = TRUE``), so the p-values agree with R's; scipy's own default is False. No effect on
        the exact null distribution.
    top_k : int, optional
        Keep only the ``top_k`` systems by mean score.

    Returns
    -------
    DataFrame
        ``system_a``, ``system_b``, ``mean_diff``, ``statistic``, ``p_value``. Pairs whose
        differences are all zero get ``p_value = 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from experiments import wilcoxon_test
    >>> table = wilcoxon_test(np.random.default_rng(0).random((3, 25)))
    >>> list(table.columns)
    ['system_a', 'system_b', 'mean_diff', 'statistic', 'p_value']
    """
    check_choice(zero_method, "zero_method", ("wilcox", "pratt", "zsplit"))
    check_choice(method, "method", ("auto", "exact", "asymptotic"))
    s = score_matrix(scores, top_k)
    I, J = pair_indices(len(s.systems))
    d = _exact_differences(s.values[I] - s.values[J], TIE_REL * float(np.abs(s.values).max()))
    if not isinstance(correction, (bool, np.bool_)):
        from gtheory.kit.errors import ParameterTypeError

        raise ParameterTypeError("correction", f"`correction` must be True or False; got {correction!r}.")
    stat, p = _wilcoxon_rows(d, zero_method, method, bool(correction))
    frame = pair_frame(s, I, J, statistic=stat, p_value=p)
    frame.attrs.update(n_topics=s.values.shape[1], test="Wilcoxon signed-rank")
    return frame


def _wilcoxon_rows(d: np.ndarray, zero_method: str, method: str,
                   correction: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Wilcoxon statistic and two-sided p-value of each row of the per-topic differences ``d`` (pairs x topics, zeros
    and ties already exact: :func:`_exact_differences`); rows that are all zero get p = 1. ``correction``: the
    continuity correction of the normal approximation (R's default)."""
    same = np.all(d == 0, axis=1)
    stat = np.zeros(len(d))
    p = np.ones(len(d))
    # scipy decides method='auto' once for a whole batch (and takes n <= 50); decide per pair as R's wilcox.test:
    # the exact null distribution for n < 50 without zeros or ties in |d|, the normal approximation otherwise.
    groups: dict[str, np.ndarray] = {}
    if method == "auto":
        sorted_abs = np.sort(np.abs(d), axis=1)
        clean = ~np.any(d == 0, axis=1) & ~np.any(np.diff(sorted_abs, axis=1) == 0, axis=1)
        small = d.shape[1] < WILCOXON_EXACT_BELOW  # no zeros in these rows: n non-zero differences = n topics
        groups["exact"] = ~same & clean & small
        groups["asymptotic"] = ~same & ~(clean & small)
    else:
        groups[method] = ~same
    for how, rows in groups.items():
        if not rows.any():
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", (RuntimeWarning, UserWarning))
            from scipy import stats

            res = stats.wilcoxon(d[rows], zero_method=zero_method, method=how, correction=correction, axis=1)
        stat[rows] = res.statistic
        p[rows] = res.pvalue
    return stat, p


def _exact_differences(d: np.ndarray, tol: float) -> np.ndarray:
    """Per-topic differences (pairs x topics) with the zeros and the ties of ``|d|`` that exact arithmetic has.

    With discrete scores (P@10: multiples of 0.1) differences that are equal in exact arithmetic differ in the last
    bits (0.3 - 0.1 = 0.19999999999999998, 0.5 - 0.3 = 0.2), so ranking ``|d|`` breaks their ties by rounding and
    the Wilcoxon statistic, its tie correction and the choice of the exact null distribution all change. Here
    ``|d| <= tol`` is 0 and the magnitudes of each row closer than :data:`TIE_REL` of the row's largest are made
    equal (:func:`gtheory.kit.ties.tie_values`), signs kept.
    """
    a = np.abs(d)
    a = tie_values(np.where(a <= tol, 0.0, a))
    return np.copysign(a, d)


@validate_params()
def tukey_hsd_randomised(
    scores: ScoresLike,
    *,
    n_resamples: int = 1000,
    seed: int | np.random.Generator | None = 0,
    top_k: int | None = None,
) -> pd.DataFrame:
    r"""Randomised Tukey HSD over all system pairs (Carterette [1]_; also used by Sakai).

    Controls the family-wise error rate over the :math:`m(m-1)/2` comparisons: the null distribution
    is that of the *range* of the system means when, within each topic, the scores are randomly
    reassigned to systems.

    Parameters
    ----------
    scores : ndarray or DataFrame
        Systems x topics score matrix.
    n_resamples : int
        Number of random permutations :math:`B`.
    seed : int, Generator or None
        Randomness; the same seed gives the same numbers.
    top_k : int, optional
        Keep only the ``top_k`` systems by mean score (before permuting).

    Returns
    -------
    DataFrame
        ``system_a``, ``system_b``, ``mean_diff``, ``p_value``.

    Notes
    -----
    For trial :math:`b`, permute each topic's column of scores across the :math:`m` systems
    independently, take the system means :math:`\bar x^{*b}_s` and their range
    :math:`q^{*b} = \max_s \bar x^{*b}_s - \min_s \bar x^{*b}_s`. Then

    .. math::

        p_{XY} = \frac{1}{B}\,\#\{b : q^{*b} \ge |\bar x_X - \bar x_Y|\} .

    Permutations are drawn in blocks with ``rng.permuted(block, axis=2)`` on a
    (trials x topics x systems) array, so a given seed always gives the same trials.

    *Ties.* A range within :math:`10^{-9} \max |x|` below :math:`|\bar x_X - \bar x_Y|` counts as
    reaching it: with discrete scores (P@10, binary relevance) many permutations give a range equal to
    an observed difference in exact arithmetic (a permutation among tied scores changes nothing), and
    rounding must not decide them (as :func:`bootstrap_asl`; earlier versions missed some).

    Examples
    --------
    >>> import numpy as np
    >>> from experiments import tukey_hsd_randomised
    >>> scores = np.random.default_rng(0).random((4, 30)) + np.array([[0.5], [0], [0], [0]])
    >>> table = tukey_hsd_randomised(scores, n_resamples=200, seed=1)
    >>> bool(table.loc[0, "p_value"] < 0.05)
    True
    """
    s = score_matrix(scores, top_k)
    I, J = pair_indices(s.values.shape[0])
    p = tukey_p_values(s.values, I, J, n_resamples, np.random.default_rng(seed))
    n = s.values.shape[1]
    frame = pair_frame(s, I, J, p_value=p)
    frame.attrs.update(n_resamples=n_resamples, n_topics=n, test="randomised Tukey HSD (Carterette 2012)")
    return frame


