r"""Incomplete judgments: how robust is a measure when the qrels shrink?

The qrels are reduced per topic to a fraction :math:`f` of their judged relevant and judged non-relevant
documents, by the sampling of Buckley & Voorhees [1]_ as used by Bompada et al. [2]_ and Sakai & Kando [3]_;
any measure is recomputed on the reduced judgments (plain and condensed lists, [3]_ [5]_) directly on the
judged-grade tensor (:class:`metrics.JudgedRuns`, via its per-topic document ids: no run or qrels file is
read again), and compared with the full-qrels results:

* :func:`metrics.reduction_mask` / :func:`metrics.reduce_qrels` -- the reduced qrels (nested across :math:`f`;
  the sampling is described in :mod:`metrics.io.reduce`);
* :func:`incompleteness_study` -- per measure, list type (plain/condensed), :math:`f` and seed: Kendall's
  :math:`\tau` and :math:`\tau_{AP}` against the full-qrels ranking, the drift of absolute mean values and
  RMSE, Sakai's discriminative power [3]_ [6]_ and Bompada's confusion matrix of significance decisions [2]_;
* :func:`knee` (:mod:`experiments.incomplete.knee`) -- the lowest :math:`f` from which :math:`\tau \ge 0.9`
  [2]_ (Voorhees' equivalence threshold);
* :func:`significance_confusion` (:mod:`experiments.incomplete.confusion`) -- Bompada's confusion matrix (with accuracy
  and g-mean) for one pair of score matrices;
* :func:`tuned_stability_under_incompleteness` (:mod:`experiments.incomplete.knee`) -- Φ (generalizability
  theory) of nDCG with standard and tuned discounts as :math:`f` decreases (Kanoulas & Aslam [7]_).

Plots are in :mod:`experiments.incomplete.plots`.

The sampling (Buckley & Voorhees 2004, §3; nested across :math:`f`, dropped judgments become *unjudged*) is
described in :mod:`metrics.io.reduce`.

References
----------
.. [1] C. Buckley and E. M. Voorhees. Retrieval evaluation with incomplete information. SIGIR 2004, pp. 25-32.
.. [2] T. Bompada, C.-C. Chang, J. Chen, R. Kumar and R. Shenoy. On the robustness of relevance measures with
   incomplete judgments. SIGIR 2007, pp. 359-366.
.. [3] T. Sakai and N. Kando. On information retrieval metrics designed for evaluation with incomplete
   relevance assessments. Information Retrieval 11(5), 2008, pp. 447-470.
.. [5] T. Sakai. Alternatives to bpref. SIGIR 2007, pp. 71-78.
.. [6] T. Sakai. Evaluating evaluation metrics based on the bootstrap. SIGIR 2006, pp. 525-532.
.. [7] E. Kanoulas and J. A. Aslam. Empirical justification of the gain and discount function for nDCG.
   CIKM 2009.
.. [8] E. M. Voorhees. Evaluation by highly relevant documents. SIGIR 2001, pp. 74-82.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from metrics import JudgedRuns
from gtheory.kit.checks import fixed_seed, progress_writer
from metrics.io import Rounding, check_judged, reduction_masks, stratify
from experiments._measures import Measure, _check_measures, _resolve_measure, _scores
from experiments._validation import best_first
from experiments.agreement import kendall_tau, rmse, tau_ap
from gtheory.kit.ties import tie_values
from .confusion import Test, _check_test, _confusion_counts, _confusion_stats, _decisions
from .knee import DEFAULT_FRACTIONS, _group_keys, check_fractions
from gtheory.kit.params import ANY_LEVEL, validate_params

__all__ = ["incompleteness_study", "summarize_study"]


# ================================================================================================== study
@validate_params(relevance_level=ANY_LEVEL)
def incompleteness_study(
    judged: JudgedRuns,
    measures: Mapping[str, Measure] | Sequence[Measure] | Measure,
    fractions: Sequence[float] = DEFAULT_FRACTIONS,
    seeds: int | Iterable[int] = 5,
    *,
    judged_only: bool | Sequence[bool] = (False, True),
    test: Test | None = "bootstrap",
    alpha: float = 0.05,
    n_resamples: int = 1000,
    test_seed: int | np.random.Generator | None = 0,
    top_k: int | None = None,
    relevance_level: float = 1,
    min_relevant: int = 1,
    min_nonrelevant: int = 10,
    rounding: Rounding = "ceil",
    progress: bool | str | Callable[[str], Any] = "auto",
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
        (``None`` skips both; much faster). The bootstrap uses ``n_resamples`` replicates and
        ``test_seed`` for every matrix, so identical matrices give identical decisions (a Generator gives one seed,
        drawn from it).
    alpha : float
        Significance level.
    top_k : int, optional
        Significance only among the ``top_k`` systems by full-qrels mean (Kanoulas & Aslam used 30); the
        rank correlations always use every system.
    relevance_level, min_relevant, min_nonrelevant, rounding
        The sampling, as in :func:`reduction_mask`.
    progress : bool, "auto" or callable
        A one-line message (``"[3/70] AP: f=0.5, seed 2"``) after each (measure, fraction, seed) is done, both
        list types included (the shared ``progress`` parameter, docs/architecture.md: ``"auto"`` on stderr when
        it is a terminal).

    Returns
    -------
    DataFrame
        One row per (measure, judged_only, fraction, seed), sorted by measure (in the order given), list type,
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
    judged = check_judged(judged)
    measures = _check_measures(measures)
    fns = {k: _resolve_measure(m, k) for k, m in measures.items()}
    fractions = check_fractions(fractions)  # seeds, alpha, n_resamples, top_k, the sampling's: the parameter table
    conds = (judged_only,) if isinstance(judged_only, (bool, np.bool_)) else tuple(judged_only)
    if not conds or not all(isinstance(c, (bool, np.bool_)) for c in conds) or len(set(conds)) != len(conds):
        raise ValueError(f"`judged_only` must be a bool or distinct bools, e.g. (False, True); got {judged_only!r}.")
    conds = tuple(bool(c) for c in conds)
    if test is not None:
        test = _check_test(test)
        test_seed = fixed_seed(test_seed, "test_seed")  # the same seed for every row's test

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
                    k = top_k
                    if k > judged.n_systems:
                        raise ValueError(f"`top_k` must not exceed the number of systems ({judged.n_systems}); got {k}.")
                    sys_idx = best_first(means)[:k]
                entry["sys_idx"] = sys_idx
                _, entry["decisions"] = _decisions(values[sys_idx], test, alpha, n_resamples, test_seed)
            ref[key, c] = entry
        # one tau_AP variant per measure, for the plain and the condensed lists alike: "a" needs an untied
        # reference ranking, so a tie in either list type's full-qrels means makes both "b"
        untied = all(np.unique(tie_values(ref[key, c]["means"])).size == judged.n_systems for c in conds)
        for c in conds:
            ref[key, c]["tau_ap_variant"] = "a" if untied else "b"

    say = progress_writer(progress)
    n_steps, step = len(seeds) * len(fractions) * len(fns), 0
    n_judged = judged.qrels_level.size
    relevant = judged.levels[judged.qrels_level] >= relevance_level
    rows: list[dict[str, Any]] = []
    for seed in seeds:
        strata = stratify(judged, np.random.default_rng(seed), relevance_level)
        masks = reduction_masks(judged, strata, fractions, min_relevant, min_nonrelevant, rounding)
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
                        judged_only=c,
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
                            _, dec = _decisions(values[r["sys_idx"]], test, alpha, n_resamples, test_seed)
                        stats = _confusion_stats(_confusion_counts(r["decisions"], dec))
                        row.update(
                            power=float(np.mean(dec != 0)) if dec.size else math.nan,
                            power_full=float(np.mean(r["decisions"] != 0)) if dec.size else math.nan,
                            **stats,
                        )
                    rows.append(row)
                step += 1
                if say is not None:
                    say(f"[{step}/{n_steps}] {key}: f={f:g}, seed {seed}")
    df = pd.DataFrame(rows)
    order = {k: i for i, k in enumerate(fns)}
    df = df.sort_values(
        ["measure", "judged_only", "fraction", "seed"], ascending=[True, True, False, True], kind="stable",
        key=lambda col: col.map(order) if col.name == "measure" else col,
    ).reset_index(drop=True)
    df.attrs.update(
        fractions=list(fractions),
        seeds=list(seeds),
        test=test,
        alpha=alpha,
        n_resamples=n_resamples if test == "bootstrap" else None,
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
    """Mean and standard deviation over seeds per (measure, judged_only, fraction) of a study table.

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
        Index (measure, judged_only, fraction) -- curves in order of first appearance, fractions descending --
        and columns (value, "mean"|"std").

    Examples
    --------
    >>> import pandas as pd
    >>> from experiments.incomplete import summarize_study
    >>> df = pd.DataFrame({"measure": "m", "judged_only": False, "fraction": [1.0, 1.0, .5, .5],
    ...                    "seed": [0, 1, 0, 1], "tau": [1.0, 1.0, .8, .9]})
    >>> round(float(summarize_study(df).loc[("m", False, .5), ("tau", "mean")]), 2)
    0.85
    """
    study, keys = _group_keys(study)
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
