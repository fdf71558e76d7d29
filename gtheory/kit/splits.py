r"""One rule for random topic splits, shared by every cross-validation loop of the project.

:func:`topic_splits` is used by :func:`optimize.cross_validate`, :func:`optimize.recommend` (its outer splits,
and the inner splits of each fitting part) and :func:`optimize.tune_parameters`: the same seed gives the same
splits in all three.

Rule: ``rng = numpy.random.default_rng(seed)``; split :math:`b` draws ``perm = rng.permutation(n_topics)``; its
fitting (training) part is ``sort(perm[:n_train])`` and its held-out part ``sort(perm[n_train:])``, with
:math:`n_{train} = \mathrm{round}(\text{train\_fraction}\cdot T)` (Python's ``round``: halves to even, so 0.5 of 25
topics trains on 12, of 27 on 14) unless ``train_size`` gives it. The splits are drawn one after the other from
the one generator; a caller that draws more (``recommend``'s inner splits) continues from the generator passed in.
"""
from __future__ import annotations

import numbers

import numpy as np

from .params import check_param, integer, probability, validate_params

__all__ = ["topic_splits"]


#: the topics split: at least one on each side
_N_TOPICS = integer(2, fix="give the number of topics (at least 2)")


@validate_params()
def topic_splits(
    n_topics: int,
    *,
    n_splits: int,
    train_fraction: float = 0.5,
    train_size: int | None = None,
    seed: int | np.random.Generator | None = None,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n_splits`` random splits of the topics ``0 … n_topics-1`` into (train, held-out) index arrays.

    Parameters
    ----------
    n_topics : number of topics T (≥ 2).
    n_splits : number of splits (≥ 1).
    train_fraction : share of the topics in the training part: ``round(train_fraction * T)`` of them.
    train_size : the training part's size instead (1 … T-1).
    seed : ``None``, a non-negative int or a :class:`numpy.random.Generator` (then drawn from, and advanced:
        the caller may continue drawing from it).

    Returns
    -------
    list of (train, test)
        Sorted int64 arrays, disjoint, together all topics.

    Examples
    --------
    >>> [(a.tolist(), b.tolist()) for a, b in topic_splits(4, n_splits=1, seed=0)]
    [([0, 2], [1, 3])]
    """
    # n_splits and seed: the parameter table (gtheory.kit.params); n_topics and train_fraction by its constructors
    T = check_param("n_topics", n_topics, _N_TOPICS)
    if train_size is None:
        n_train = int(round(check_param("train_fraction", train_fraction, probability()) * T))
    else:
        if isinstance(train_size, bool) or not isinstance(train_size, numbers.Integral):
            raise ValueError(f"`train_size` must be an integer; got {train_size!r}.")
        n_train = int(train_size)
    if not 1 <= n_train <= T - 1:
        raise ValueError(f"the training part must leave at least 1 topic on each side; got {n_train} of {T} topics.")
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(int(n_splits)):
        perm = rng.permutation(T)
        out.append((np.sort(perm[:n_train]), np.sort(perm[n_train:])))
    return out
