r"""The knee of an incompleteness curve, and Φ of tuned nDCG as the qrels shrink.

* :func:`knee` -- the lowest :math:`f` from which :math:`\tau \ge 0.9` [2]_ (Voorhees' equivalence
  threshold [8]_), per curve of :func:`experiments.incompleteness_study`;
* :func:`tuned_stability_under_incompleteness` -- Φ (generalizability theory) of nDCG with standard and
  tuned discounts as :math:`f` decreases (Kanoulas & Aslam [7]_), on the reduced qrels of
  :func:`metrics.reduce_qrels`.

References
----------
.. [2] T. Bompada, C.-C. Chang, J. Chen, R. Kumar and R. Shenoy. On the robustness of relevance measures with
   incomplete judgments. SIGIR 2007, pp. 359-366.
.. [7] E. Kanoulas and J. A. Aslam. Empirical justification of the gain and discount function for nDCG.
   CIKM 2009.
.. [8] E. M. Voorhees. Evaluation by highly relevant documents. SIGIR 2001, pp. 74-82.
"""
from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any, Callable, Iterable, Literal, Mapping, Sequence

import numpy as np
import pandas as pd

import metrics
from metrics import JudgedRuns
from metrics.io import Rounding, check_fractions, check_judged, reduction_masks, stratify
from gtheory.kit.checks import check_choice
from experiments._stability import stability
from experiments.agreement import kendall_tau, tau_ap
from gtheory.kit.params import ANY_LEVEL, validate_params

__all__ = ["knee", "tuned_stability_under_incompleteness"]

#: Default fractions of the judgments kept (1.0 = the full qrels, the reference).
DEFAULT_FRACTIONS: tuple[float, ...] = (1.0, 0.7, 0.5, 0.3, 0.2, 0.1, 0.05)


#: the columns that name a curve of a study table
GROUP_COLUMNS = ("measure", "judged_only", "discount", "tuned_on")


def _group_keys(study: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The study and the columns naming its curves."""
    if not isinstance(study, pd.DataFrame) or "fraction" not in study.columns:
        raise TypeError("`study` must be a DataFrame from incompleteness_study() (with a 'fraction' column).")
    keys = [k for k in GROUP_COLUMNS if k in study.columns]
    if not keys:
        raise ValueError("`study` has none of the group columns 'measure', 'judged_only', 'discount'.")
    return study, keys


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
    >>> df = pd.DataFrame({"measure": "AP", "judged_only": False, "fraction": [1, .5, .3, .1],
    ...                    "seed": 0, "tau": [1.0, .93, .88, .91]})
    >>> float(knee(df).loc[0, "knee"])
    0.5
    """
    study, keys = _group_keys(study)
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
    from optimize.solvers import identified_depth

    # condensed lists of sparse qrels can be shallower than the cut-off: there nDCG'@cutoff equals
    # nDCG'@depth for every discount, and the ranks past it cannot be tuned (Problem refuses them)
    return lambda j: fn(j, gain=gain, cutoff=min(cutoff, identified_depth(j, judged_only=judged_only)),
                        judged_only=judged_only, **options)


_STABILITY_ORDER = ("phi", "erho2", "phi_1", "topics_needed", "var_system", "var_topic", "var_residual")


def _stability(scores: np.ndarray, n_topics: float, target: float) -> dict[str, float]:
    """The G-study numbers of one matrix (:func:`experiments._stability.stability`, shared with the sweep)."""
    st = stability(scores, n_topics, target)
    return {k: st[k] for k in _STABILITY_ORDER}


@validate_params(relevance_level=ANY_LEVEL)
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
        :func:`optimize.solvers.objective.identified_depth` — which changes no score); a callable ``tune(judged) -> discount vector`` (or an object with ``.discount``) is
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
    judged = check_judged(judged)
    fractions = check_fractions(fractions)  # seeds, cutoff, target, the sampling's: the parameter table
    if isinstance(standard_discounts, str):
        standard_discounts = [standard_discounts]
    standard_discounts = list(standard_discounts)
    if n_topics is None:
        n_topics = judged.n_topics
    if isinstance(n_topics, bool) or not isinstance(n_topics, Real) or not n_topics > 0:
        raise ValueError(f"`n_topics` must be a positive number; got {n_topics!r}.")
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
        strata = stratify(judged, np.random.default_rng(seed), relevance_level)
        masks = reduction_masks(judged, strata, fractions, min_relevant, min_nonrelevant, rounding)
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
