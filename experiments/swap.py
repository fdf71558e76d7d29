r"""The swap method: how often do two disjoint topic sets disagree about which system is better?

Voorhees & Buckley [1]_ estimate the *swap rate* of a metric empirically: draw two disjoint topic
subsets :math:`Q` and :math:`Q'` of size :math:`c`, compare every system pair on the mean over each,
and call it a *swap* when the two subsets order the pair differently. Binning the comparisons by the
absolute difference observed on :math:`Q` gives the swap rate as a function of the difference and of
:math:`c`, and hence the smallest difference for which the swap rate stays at or below 5% -- the
difference one needs before believing that system A beats system B [2]_ [3]_.

* :func:`swap_rates` -- the tidy table of swap rates by topic-set size and difference bin;
* :func:`min_difference_for_swap_rate` -- the minimum difference with a swap rate at or below a
  given rate, the highest mean observed and the relative difference (their ratio), and how many
  comparisons actually reach it (Sakai's "sensitivity" [2]_) -- the columns of Sakai's tables.

Two ways of drawing the subsets are offered: ``sampling='without_replacement'`` (Voorhees &
Buckley; the results Sakai reports in [2]_) and ``sampling='bootstrap'`` (Sakai's with-replacement
variant [4]_: :math:`Q` drawn with replacement from the topic set, :math:`Q'` with replacement from
the topics not in :math:`Q`, so the two never share a topic).

Validated against a straightforward loop simulation using the same random draws; see
``tests/test_experiments_swap.py``.

References
----------
.. [1] E. M. Voorhees and C. Buckley. The effect of topic set size on retrieval experiment error.
   SIGIR 2002, pp. 316-323.
.. [2] T. Sakai. On the reliability of information retrieval metrics based on graded relevance.
   Information Processing & Management 43(2), 2007 (Section 3, "swap method").
.. [3] P. Ahlgren and L. Grönqvist. Evaluation of retrieval effectiveness with incomplete relevance
   data: theoretical and experimental comparison of three measures. IP&M 44(1), 2008, Section 6.1.
.. [4] T. Sakai. Evaluating evaluation metrics based on the bootstrap. SIGIR 2006; and T. Sakai. The
   reliability of metrics based on graded relevance. AIRS 2005 (with-replacement swap method).
"""
from __future__ import annotations

from numbers import Real
from typing import Any, Iterable, Literal

import numpy as np
import pandas as pd


from gtheory.kit.checks import check_choice, check_int, check_probability
from gtheory.kit.ties import TIE_REL
from experiments._validation import pair_indices, score_matrix
from gtheory.kit.params import validate_params

__all__ = ["swap_rates", "min_difference_for_swap_rate", "DEFAULT_SWAP_BINS"]

ScoresLike = Any

#: Voorhees & Buckley's bins of width 0.01 on [0, 0.2), then one bin for every larger difference.
DEFAULT_SWAP_BINS: tuple[float, ...] = tuple(np.round(np.arange(0.0, 0.2001, 0.01), 10)) + (np.inf,)

_BLOCK_ELEMENTS = 1 << 20

_COLUMNS = ["topic_set_size", "bin", "bin_lower", "bin_upper", "n_comparisons", "n_swaps", "swap_rate", "max_mean"]


def _edges(bins: Any, spread: float) -> np.ndarray:
    if bins is None:
        return np.asarray(DEFAULT_SWAP_BINS, dtype=float)
    if isinstance(bins, Real) and not isinstance(bins, bool):
        width = float(bins)
        if not width > 0 or not np.isfinite(width):
            raise ValueError(f"`bins` as a bin width must be a positive number; got {bins!r}.")
        k = max(1, int(np.ceil(spread / width - 1e-12)))
        return np.append(np.arange(k) * width, np.inf)
    try:
        edges = np.asarray(bins, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            f"`bins` must be None, a bin width or a sequence of bin edges; got {type(bins).__name__}."
        ) from None
    if edges.ndim != 1 or edges.size < 2:
        raise ValueError(f"`bins` must hold at least 2 edges; got {edges.tolist()!r}.")
    if edges[0] != 0.0 or np.any(np.diff(edges) <= 0) or np.isnan(edges).any():
        raise ValueError(
            "`bins` edges must start at 0 and increase strictly (e.g. [0, 0.01, ..., 0.2, inf]); "
            f"got {edges.tolist()!r}."
        )
    return edges


def _sizes(topic_set_sizes: Any, n: int) -> list[int]:
    half = n // 2
    if topic_set_sizes is None:
        sizes = list(range(5, half + 1, 5))
        if not sizes or sizes[-1] != half:
            sizes.append(half)
        return sizes
    if isinstance(topic_set_sizes, (int, np.integer)) and not isinstance(topic_set_sizes, bool):
        topic_set_sizes = [topic_set_sizes]
    if not isinstance(topic_set_sizes, Iterable) or isinstance(topic_set_sizes, (str, bytes)):
        raise TypeError(
            "`topic_set_sizes` must be an int or a sequence of ints; got "
            f"{type(topic_set_sizes).__name__}."
        )
    sizes = [check_int(c, "topic_set_sizes", minimum=1) for c in topic_set_sizes]
    if not sizes:
        raise ValueError("`topic_set_sizes` must not be empty.")
    too_big = [c for c in sizes if c > half]
    if too_big:
        raise ValueError(
            f"`topic_set_sizes` must not exceed half the number of topics ({n} // 2 = {half}) so that "
            f"two disjoint subsets fit; got {too_big}."
        )
    return sizes


def _draw_subsets(
    rng: np.random.Generator, n: int, c: int, n_resamples: int, sampling: str
) -> tuple[np.ndarray, np.ndarray]:
    """Topic indices (B x c each) of the two disjoint subsets, drawn as documented in swap_rates."""
    if sampling == "without_replacement":
        order = np.argsort(rng.random((n_resamples, n)), axis=1)
        return order[:, :c], order[:, c:2 * c]
    first = rng.integers(0, n, size=(n_resamples, c))
    u = rng.random((n_resamples, c))
    used = np.zeros((n_resamples, n), dtype=bool)
    used[np.arange(n_resamples)[:, None], first] = True
    # unused topics first, in ascending topic order (stable sort of the 0/1 flags)
    order = np.argsort(used, axis=1, kind="stable")
    n_free = n - used.sum(axis=1)
    second = np.take_along_axis(order, np.floor(u * n_free[:, None]).astype(np.int64), axis=1)
    return first, second


def _subset_means(values: np.ndarray, subsets: np.ndarray) -> np.ndarray:
    """B x m mean scores over each replicate's subset (repeated topics counted repeatedly)."""
    n_resamples, c = subsets.shape
    n = values.shape[1]
    weights = np.bincount((subsets + n * np.arange(n_resamples)[:, None]).ravel(), minlength=n_resamples * n)
    return (weights.reshape(n_resamples, n) / c) @ values.T


@validate_params()
def swap_rates(
    scores: ScoresLike,
    *,
    topic_set_sizes: int | Iterable[int] | None = None,
    bins: float | Iterable[float] | None = None,
    n_resamples: int = 1000,
    seed: int | np.random.Generator | None = 0,
    sampling: Literal["without_replacement", "bootstrap"] = "without_replacement",
    top_k: int | None = None,
) -> pd.DataFrame:
    r"""Swap rates by difference bin and topic-set size (Voorhees & Buckley [1]_, Sakai [2]_).

    Parameters
    ----------
    scores : ndarray or DataFrame
        Systems x topics score matrix (at least 2 systems and 2 topics; no NaN).
    topic_set_sizes : int or sequence of int, optional
        Subset sizes :math:`c`, each at most ``n_topics // 2``. Default: 5, 10, ... up to
        ``n_topics // 2`` (which is always included).
    bins : float or sequence of float, optional
        Bin edges for :math:`|d|`, starting at 0 and increasing (``inf`` allowed as the last edge);
        or a bin width. Bins are closed on the left, ``[lower, upper)``; the last bin also takes
        every larger difference. Default :data:`DEFAULT_SWAP_BINS`: width 0.01 up to 0.2, then
        :math:`[0.2, \infty)` as in [1]_ [3]_.
    n_resamples : int
        Pairs of topic subsets drawn per size, :math:`B` (1000 in [1]_ [2]_ [3]_).
    seed : int, Generator or None
        Randomness; the same seed gives the same numbers.
    sampling : {'without_replacement', 'bootstrap'}
        How the two disjoint subsets are drawn (see Notes).
    top_k : int, optional
        Keep only the ``top_k`` systems by mean score over all topics.

    Returns
    -------
    DataFrame
        Tidy, one row per (size, bin), all bins listed: ``topic_set_size``, ``bin``
        (:class:`pandas.Interval`), ``bin_lower``, ``bin_upper``, ``n_comparisons``, ``n_swaps``,
        ``swap_rate`` (NaN for an empty bin), and ``max_mean``: the highest mean score of any system
        over any of the :math:`2B` topic subsets of that size (the same for every bin of a size; Sakai's
        column (ii) [2]_, the denominator of the relative difference in
        :func:`min_difference_for_swap_rate`). ``attrs`` records ``n_resamples``, ``sampling``, ``n_topics`` and
        ``n_pairs``.

    Notes
    -----
    For each size :math:`c` and trial :math:`b = 1..B`, draw disjoint :math:`Q_b, Q'_b`; for every
    system pair (X, Y) let :math:`d = \bar X_{Q_b} - \bar Y_{Q_b}` and
    :math:`d' = \bar X_{Q'_b} - \bar Y_{Q'_b}`. The comparison goes in the bin of :math:`|d|`, and is
    a swap when the subsets disagree, :math:`d\,d' < 0` (a tie on either subset is not a swap; a
    difference within :math:`10^{-9} \max |x|` of 0 is a tie — means of discrete scores often tie in
    exact arithmetic, and rounding must not make swaps of them, as earlier versions did):

    .. math::

        \text{swap rate}(c, \text{bin}) = \frac{\#\{(b, X, Y) : |d| \in \text{bin},\ d\,d' < 0\}}
                                               {\#\{(b, X, Y) : |d| \in \text{bin}\}} .

    The random draws, in order, for each size in ``topic_set_sizes``:

    * ``'without_replacement'``: ``order = argsort(rng.random((B, n)), axis=1)``;
      :math:`Q_b` = ``order[b, :c]``, :math:`Q'_b` = ``order[b, c:2c]``.
    * ``'bootstrap'``: :math:`Q_b` = ``rng.integers(0, n, size=(B, c))[b]`` (with replacement);
      then ``u = rng.random((B, c))`` and :math:`Q'_b[k]` is the topic at position
      ``floor(u[b, k] * len(F_b))`` of ``F_b``, the ascending list of topics not in :math:`Q_b`
      (with replacement, disjoint from :math:`Q_b`). Means count a repeated topic repeatedly.

    All pairs and trials are computed at once: the subset means are products of a B x n weight
    matrix with the scores.

    Examples
    --------
    >>> import numpy as np
    >>> from experiments import swap_rates
    >>> scores = np.random.default_rng(0).random((8, 50))
    >>> table = swap_rates(scores, topic_set_sizes=[10, 25], n_resamples=200, seed=0)
    >>> list(table.columns)
    ['topic_set_size', 'bin', 'bin_lower', 'bin_upper', 'n_comparisons', 'n_swaps', 'swap_rate', 'max_mean']
    >>> int(table.groupby("topic_set_size").n_comparisons.sum().iloc[0])   # 200 trials x 28 pairs
    5600
    """
    s = score_matrix(scores, top_k)
    check_choice(sampling, "sampling", ("without_replacement", "bootstrap"))
    rng = np.random.default_rng(seed)
    values = s.values
    m, n = values.shape
    sizes = _sizes(topic_set_sizes, n)
    edges = _edges(bins, float(values.max() - values.min()))
    n_bins = edges.size - 1
    I, J = pair_indices(m)
    P = I.size
    block = max(1, _BLOCK_ELEMENTS // n_resamples)

    tie = TIE_REL * float(np.abs(values).max())  # a mean difference this close to 0 is a tie
    rows = []
    for c in sizes:
        first, second = _draw_subsets(rng, n, c, n_resamples, sampling)
        m1 = _subset_means(values, first)
        m2 = _subset_means(values, second)
        max_mean = float(max(m1.max(), m2.max()))
        comparisons = np.zeros(n_bins, dtype=np.int64)
        swaps = np.zeros(n_bins, dtype=np.int64)
        for start in range(0, P, block):
            sl = slice(start, start + block)
            d1 = m1[:, I[sl]] - m1[:, J[sl]]
            d2 = m2[:, I[sl]] - m2[:, J[sl]]
            # a difference equal to an edge in exact arithmetic (P@10 over 25 topics: 0.02 = 5/250) is in the bin
            # that edge opens, whatever its last bits: differences within the tie tolerance below an edge count at it
            a1 = np.abs(d1)
            k = np.minimum(np.searchsorted(edges, a1 + tie, side="right") - 1, n_bins - 1).ravel()
            comparisons += np.bincount(k, minlength=n_bins)
            swap = (d1 * d2 < 0) & (a1 > tie) & (np.abs(d2) > tie)
            swaps += np.bincount(k, weights=swap.ravel(), minlength=n_bins).astype(np.int64)
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = np.where(comparisons > 0, swaps / np.maximum(comparisons, 1), np.nan)
        for b in range(n_bins):
            rows.append(
                (c, pd.Interval(edges[b], edges[b + 1], closed="left"), edges[b], edges[b + 1],
                 int(comparisons[b]), int(swaps[b]), float(rate[b]), max_mean)
            )
    table = pd.DataFrame(rows, columns=_COLUMNS)
    table.attrs.update(n_resamples=n_resamples, sampling=sampling, n_topics=n, n_pairs=P)
    return table


def min_difference_for_swap_rate(swaps: pd.DataFrame, rate: float = 0.05) -> pd.DataFrame:
    r"""The smallest difference whose swap rate stays at or below ``rate``, per topic-set size.

    Parameters
    ----------
    swaps : DataFrame
        The result of :func:`swap_rates`.
    rate : float
        Largest acceptable swap rate (5% in [1]_ [2]_ [3]_).

    Returns
    -------
    DataFrame
        Indexed by ``topic_set_size``, the columns of Sakai's swap-method tables [2]_ (Tables 2-4,
        columns (i)-(iv)) plus two:

        * ``min_difference`` -- (i) the absolute difference required (NaN when no bin qualifies);
        * ``max_mean`` -- (ii) the highest mean score observed over all systems and topic subsets
          (NaN for a table without the ``max_mean`` column of :func:`swap_rates`);
        * ``relative_difference`` -- (iii) ``min_difference / max_mean`` (e.g. Sakai's
          0.11 / 0.5392 = 20% for Relaxed-AveP on NTCIR-3 Chinese);
        * ``share_of_comparisons`` -- (iv) the fraction of all comparisons that reach the
          difference: how often system pairs actually satisfy the requirement ("sensitivity");
        * ``swap_rate_above`` -- the pooled swap rate of the comparisons with :math:`|d|` at least
          ``min_difference``, and ``n_comparisons``.

        This is the *swap-based* difference required. The *bootstrap-based* one of Sakai 2006 is
        :attr:`experiments.DiscriminativePower.estimated_difference`
        (:func:`experiments.discriminative_power`); the two answer different questions and need not agree.

    Notes
    -----
    With bins :math:`[\ell_k, u_k)` ordered by :math:`\ell_k`, the minimum difference is

    .. math::

        \delta_c = \min\{\ell_k : \text{swap rate}(c, k') \le \text{rate for every non-empty bin }
                   k' \ge k\}

    -- "if the difference is at least :math:`\delta`, we are at least 95% confident that the system
    with the higher value is better" (Ahlgren & Grönqvist [3]_, §6.1, after [1]_). Requiring all
    larger bins to qualify keeps an unlucky sparse bin at the far end from being ignored.

    Examples
    --------
    >>> import numpy as np
    >>> from experiments import swap_rates, min_difference_for_swap_rate
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.random((10, 50)) * 0.5 + np.linspace(0, 0.3, 10)[:, None]
    >>> table = min_difference_for_swap_rate(swap_rates(scores, topic_set_sizes=[25], n_resamples=300))
    >>> list(table.columns)
    ['min_difference', 'max_mean', 'relative_difference', 'share_of_comparisons', 'swap_rate_above', 'n_comparisons']
    """
    rate = check_probability(rate, "rate")
    if not isinstance(swaps, pd.DataFrame):
        raise TypeError(f"`swaps` must be the DataFrame returned by swap_rates(); got {type(swaps).__name__}.")
    missing = [c for c in ("topic_set_size", "bin_lower", "n_comparisons", "n_swaps") if c not in swaps.columns]
    if missing:
        raise ValueError(
            f"`swaps` must be the DataFrame returned by swap_rates(); it lacks columns {missing}."
        )
    out = []
    for c, group in swaps.groupby("topic_set_size", sort=False):
        group = group.sort_values("bin_lower")
        comparisons = group["n_comparisons"].to_numpy()
        n_swaps = group["n_swaps"].to_numpy()
        lower = group["bin_lower"].to_numpy()
        max_mean = float(group["max_mean"].max()) if "max_mean" in group.columns else np.nan
        bad = (comparisons > 0) & (n_swaps > rate * comparisons)
        total = int(comparisons.sum())
        nothing = dict(min_difference=np.nan, max_mean=max_mean, relative_difference=np.nan,
                       share_of_comparisons=0.0, swap_rate_above=np.nan, n_comparisons=total)
        if bad[-1] or total == 0:
            out.append((c, nothing))
            continue
        # first bin after the last offending one
        k = int(np.flatnonzero(bad)[-1]) + 1 if bad.any() else 0
        reach = int(comparisons[k:].sum())
        if reach == 0:  # nothing observed beyond the last offending bin: no evidence either way
            out.append((c, nothing))
            continue
        d = float(lower[k])
        out.append((c, dict(
            min_difference=d, max_mean=max_mean,
            relative_difference=d / max_mean if max_mean > 0 else np.nan,
            share_of_comparisons=reach / total, swap_rate_above=float(n_swaps[k:].sum() / reach),
            n_comparisons=total,
        )))
    return pd.DataFrame(
        [r for _, r in out],
        index=pd.Index([c for c, _ in out], name="topic_set_size"),
        columns=["min_difference", "max_mean", "relative_difference", "share_of_comparisons", "swap_rate_above",
                 "n_comparisons"],
    )
