r"""Out-of-sample check: tune on half of the topics, measure on the other half.

A tuned vector is fitted to the topics that then measure its Φ, which flatters it (the tuned
Φ is the maximum over a family that includes every standard configuration, so in-sample it can
only win). :func:`cross_validate` splits the topics at random into a tuning half and a held-out
half (``n_splits`` times, from ``numpy.random.default_rng(seed)``), tunes on the first and
reports, for the tuned and the standard configurations, Φ, Eρ² and the topics needed on both
halves. The honest gain is ``test`` tuned vs ``test`` standard.

Example
-------
>>> import metrics, optimize
>>> cv = optimize.cross_validate(metrics.load_trec9(), what="discount", cutoff=10, n_splits=2, starts=1)
>>> sorted(cv["config"].unique())
['linear', 'log2', 'tuned', 'zipf']
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

import gtheory
import metrics
from metrics import JudgedRuns

from gtheory.kit.splits import topic_splits

from ..solvers import Objective
from ..errors import OptimizationWarning
from ..solvers import SOLVERS, optimize_discount, optimize_gain, optimize_joint
from gtheory.kit.params import REQUIRED_CUTOFF, check_param, probability, validate_params

__all__ = ["cross_validate", "STANDARD_CONFIGS"]

#: standard (gain, discount) configurations compared with the tuned one, by what is tuned
STANDARD_CONFIGS: dict[str, dict[str, tuple]] = {
    "discount": {"log2": (None, "log2"), "zipf": (None, "zipf"), "linear": (None, "linear")},
    "gain": {"linear": ("linear", None), "exponential": ("exponential", None)},
    "joint": {"linear+log2": ("linear", "log2"), "exponential+log2": ("exponential", "log2"),
              "linear+linear": ("linear", "linear")},
}


def _stats(X: np.ndarray, target: float) -> dict[str, float]:
    # one of many intermediate G-studies: negative estimates are recorded (clipped_*), not warned
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
        g = gtheory.gstudy(X)
    row = g.as_row(g.n_topics, target)
    return {
        "n_topics": g.n_topics,
        **{k: row[k] for k in ("phi_1", "phi", "erho2")},
        "topics_needed_phi": row["topics_needed"],
        "topics_needed_erho2": row["topics_needed_erho2"],
        "clipped_system": bool(g.clipped_system),
        "clipped_topic": bool(g.clipped_topic),
        "clipped_residual": bool(g.clipped_residual),
    }


def _check_args(judged, what, n_splits, train_fraction, target, seed, starts, solver, objective) -> int:
    """Check :func:`cross_validate`'s arguments before any tuning; the number of tuning topics."""
    if not isinstance(judged, JudgedRuns):
        raise TypeError(f"`judged` must be a metrics.JudgedRuns; got {type(judged).__name__}.")
    # what, n_splits, target, seed, starts and objective: the parameter table (gtheory.kit.params)
    check_param("train_fraction", train_fraction, probability())
    if solver not in SOLVERS:
        raise ValueError(f"`solver` must be one of {SOLVERS}; got {solver!r}.")
    T = judged.n_topics
    n_train = int(round(train_fraction * T))
    if not (2 <= n_train <= T - 2):
        raise ValueError(
            f"`train_fraction` must leave at least 2 topics on each side; got {train_fraction!r} of {T} topics."
        )
    return n_train


@validate_params(cutoff=REQUIRED_CUTOFF)
def cross_validate(
    judged: JudgedRuns,
    *,
    what: str = "discount",
    cutoff: int = 100,
    gain: metrics.measures.gains.GainSpec = "linear",
    discount: metrics.measures.discounts.DiscountSpec = "log2",
    objective: Objective = "phi",
    n_splits: int = 10,
    train_fraction: float = 0.5,
    target: float = 0.95,
    seed: int | np.random.Generator | None = 0,
    starts: int = 2,
    solver: str = "auto",
    monotone: bool = True,
) -> pd.DataFrame:
    r"""Topic-split cross-validation of the tuned nDCG against standard configurations.

    Parameters
    ----------
    judged : metrics.JudgedRuns
    what : {"discount", "gain", "joint"}
    cutoff : nDCG cut-off.
    gain, discount : the fixed part (for ``what="discount"`` resp. ``"gain"``), also used for the
        standard configurations' fixed part.
    objective : {"phi", "erho2"} — what the tuning maximises.
    n_splits : number of random splits.
    train_fraction : share of the topics used for tuning (the rest are held out): ``round(train_fraction * T)``
        topics, a half rounded to even as Python's ``round`` does (0.5 of 25 topics tunes on 12, of 27 on 14).
    target : coefficient target for the topics-needed columns.
    seed : seed of the splits (and of the random starts).
    starts, solver, monotone : passed to the tuning function.

    Returns
    -------
    pandas.DataFrame
        One row per split × configuration × part (``train``/``test``): ``split``, ``config``
        (``"tuned"`` or a standard name), ``part``, ``n_topics``, ``phi_1``, ``phi`` and
        ``erho2`` (at the part's number of topics), ``topics_needed_phi``,
        ``topics_needed_erho2`` (for ``target``), ``clipped_system``/``clipped_topic``/
        ``clipped_residual`` (a negative estimate set to 0 in that G-study) and ``success`` of the
        tuning. Nothing is warned: the tunings and G-studies are intermediate, their failures and
        negative estimates are these columns.

    Raises
    ------
    TypeError
        ``judged`` is not a :class:`metrics.JudgedRuns`; ``seed`` is not an integer or None.
    ValueError
        ``what``, ``n_splits``, ``train_fraction`` (a number strictly between 0 and 1 that leaves
        at least 2 topics on each side), ``target`` (strictly between 0 and 1), ``seed``
        (negative), ``starts``, ``solver`` or ``objective`` invalid — all checked before any tuning.

    Notes
    -----
    The splits are :func:`gtheory.kit.topic_splits` (the rule :func:`optimize.recommend` and
    :func:`optimize.tune_parameters` share: the same seed gives the same splits). Split :math:`b` draws a random
    permutation of the :math:`T` topics; the first
    :math:`T_1 = \mathrm{round}(\text{train\_fraction}\cdot T)` form the tuning part :math:`A_b`,
    the rest the held-out part :math:`B_b`. The tuned configuration is the stability-optimal one of
    Kanoulas & Aslam (2009, §2.3) on :math:`A_b` alone,

    .. math::

        \hat x_b = \arg\max_x \Phi_{A_b}(1) = \arg\max_x
        \frac{\sigma^2_s}{\sigma^2_s + \sigma^2_t + \sigma^2_{st}}\Big|_{A_b},

    (Eρ²(1) for ``objective="erho2"``; :func:`optimize_discount`, :func:`optimize_gain` or
    :func:`optimize_joint`), and every configuration is then scored on each part :math:`P` by its
    G-study there: :math:`\Phi_P(n) = n\rho/(1+n\rho)`, :math:`\rho = \sigma^2_s/(\sigma^2_t+\sigma^2_{st})`,
    at :math:`n = |P|`, and the topics needed :math:`\lceil t/((1-t)\rho)\rceil` for the target
    :math:`t`. The paper tunes and measures on the same topics; the held-out part removes the
    optimism of measuring :math:`\hat x_b` on the topics it was fitted to. Coefficients via
    :func:`gtheory.gstudy` (negative components set to 0) of :func:`metrics.ndcg` on
    :meth:`metrics.JudgedRuns.subset` of the topics.

    References
    ----------
    E. Kanoulas and J. A. Aslam (2009). Empirical justification of the gain and discount function
    for nDCG. CIKM 2009.
    """
    n_train = _check_args(judged, what, n_splits, train_fraction, target, seed, starts, solver, objective)
    T = judged.n_topics
    rows = []
    for split, (tr, te) in enumerate(topic_splits(T, n_splits=n_splits, train_size=n_train, seed=seed)):
        train = judged.subset(topics=tr)
        parts = {"train": train, "test": judged.subset(topics=te)}
        kw = dict(objective=objective, starts=starts, seed=seed, solver=solver)
        with warnings.catch_warnings():
            # failure is recorded in the `success` column, negative estimates in `clipped_*`
            warnings.simplefilter("ignore", OptimizationWarning)
            warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
            if what == "discount":
                t = optimize_discount(train, gain=gain, cutoff=cutoff, monotone=monotone, **kw)
            elif what == "gain":
                t = optimize_gain(train, discount=discount, cutoff=cutoff, monotone=monotone, **kw)
            else:
                t = optimize_joint(train, cutoff=cutoff, monotone_gain=monotone, monotone_discount=monotone, **kw)
        configs = {"tuned": (t.gain_mapping, t.discount)}
        for name, (g, d) in STANDARD_CONFIGS[what].items():
            configs[name] = (gain if g is None else g, discount if d is None else d)
        for part, sub in parts.items():
            for name, (g, d) in configs.items():
                X = metrics.ndcg(sub, gain=g, discount=d, cutoff=cutoff).to_numpy()
                rows.append({"split": split, "config": name, "part": part, **_stats(X, target),
                             "success": bool(t.success)})
    return pd.DataFrame(rows)
