r"""The study behind the report: :func:`run_study` computes every table of Kanoulas & Aslam (CIKM 2009) §3 on one
:class:`metrics.JudgedRuns` and returns a :class:`Study` (a frozen result: numbers unrounded).

One concept: the computation. Its settings are :mod:`experiments.report.settings`, its result
:mod:`experiments.report.result`; the figures are drawn by :mod:`experiments.report.figures`, the report's sections
assembled by :mod:`experiments.report.sections` and rendered (Markdown, HTML, JSON) by
:mod:`experiments.report.render`; the words and number formats they share are :mod:`experiments.report.wording`.
What is computed, in the paper's numbering, is listed in docs/report.md.

References
----------
.. [1] E. Kanoulas and J. A. Aslam (2009). Empirical justification of the gain and discount
       function for nDCG. CIKM 2009.
.. [2] T. Sakai (2006). Evaluating evaluation metrics based on the bootstrap. SIGIR 2006.
.. [3] R. L. Brennan (2001). Generalizability Theory. Springer.
"""
from __future__ import annotations

import math
import time
import warnings
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

import gtheory
import metrics
from metrics import JudgedRuns
from gtheory.kit.checks import progress_writer
from gtheory.kit.params import REQUIRED_CUTOFF, validate_params

from ._adopted import KEPT_BASELINE, Adopted, adopted_from
from .published import PUBLISHED_TREC9
from .result import Study
from .settings import STANDARD_DISCOUNTS, ReportSettings, _check_title, _label, is_trec9
from .wording import IN_SAMPLE

__all__ = ["run_study", "power_variants"]

#: The paper's TREC 9 numbers live in :mod:`experiments.report.published` (one copy for the report and the tests).
#: Table 1 (topics needed at nDCG@100, linear gains, per discount) matches Φ ≥ 0.90 — the paper's text —
#: not the Φ ≥ 0.95 of its caption; Table 3 (per gain, log discount) likewise matches 0.90 on this data.


def _gstudy(X: pd.DataFrame | np.ndarray) -> gtheory.GStudy:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
        return gtheory.gstudy(X)


#: the columns of the report's discount and gain tables (:meth:`gtheory.GStudy.as_row`)
_ROW_KEYS = ("var_system", "var_topic", "var_residual", "share_system", "share_topic", "share_residual",
             "phi", "erho2", "topics_needed")


def _gstudy_row(g: gtheory.GStudy, target: float) -> dict[str, float]:
    row = g.as_row(g.n_topics, target)
    return {k: row[k] for k in _ROW_KEYS}


def _quiet(fn: Callable[..., Any], *a: Any, **kw: Any) -> Any:
    """Call an optimiser with its warnings silenced (non-convergence is kept in ``Tuning.success``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **kw)


def power_variants(judged: JudgedRuns, adopted: Sequence[Adopted], asl_cutoff: int,
                   joint: pd.DataFrame) -> dict[str, tuple[int, pd.DataFrame]]:
    """The configurations of the discriminative-power comparison (Fig. 9): label → (cut-off, systems × topics nDCG).

    The paper's four at ``asl_cutoff`` (the in-sample optimal gain + discount ``joint``, labelled as the in-sample
    optimum; linear + log labelled as the baseline; exponential + log; linear + linear), and every adopted
    configuration at its own cut-off with the baseline at that cut-off beside it. An adopted configuration that is
    the baseline is the baseline's row, named :data:`experiments.report._adopted.KEPT_BASELINE` (never two rows of one
    configuration)."""
    ka = asl_cutoff

    def at(k: int) -> str:
        return "" if k == ka else f", nDCG@{k}"

    kept = {a.cutoff for a in adopted if a.is_baseline}
    v: dict[str, tuple[int, pd.DataFrame]] = {
        f"optimal gain + optimal discount ({IN_SAMPLE})": (ka, joint),
        (KEPT_BASELINE if ka in kept else _BASELINE_SERIES): (ka, metrics.ndcg(judged, cutoff=ka)),
        "exponential gain + log discount": (ka, metrics.ndcg(judged, gain="exponential", discount="log2", cutoff=ka)),
        "linear gain + linear discount": (ka, metrics.ndcg(judged, gain="linear", discount="linear", cutoff=ka))}
    for a in adopted:
        base = (KEPT_BASELINE if a.cutoff in kept else _BASELINE_SERIES) + at(a.cutoff)
        if base not in v:
            v[base] = (a.cutoff, metrics.ndcg(judged, cutoff=a.cutoff))
        if not a.is_baseline:
            v.setdefault(a.row_label + at(a.cutoff), (a.cutoff, a.ndcg(judged)))
    return v


_BASELINE_SERIES = "baseline: linear gain + log discount"


def _swap_table(scores: Mapping[str, pd.DataFrame], *, n_resamples: int, seed: int, rate: float = 0.05) -> pd.DataFrame:
    """Swap rates at half the topics per configuration (:func:`experiments.swap_rates`, Voorhees & Buckley 2002):
    the pooled swap rate over all system pairs and trials, the smallest mean difference whose swap rate stays
    at or below ``rate`` (:func:`experiments.min_difference_for_swap_rate`) and the share of comparisons that
    reach it."""
    import experiments

    rows = []
    for key, X in scores.items():
        c = X.shape[1] // 2
        t = experiments.swap_rates(X, topic_set_sizes=[c], n_resamples=n_resamples, seed=seed)
        m = experiments.min_difference_for_swap_rate(t, rate).iloc[0]
        rows.append({"configuration": key, "topic_set_size": c,
                     "swap_rate": float(t["n_swaps"].sum() / max(int(t["n_comparisons"].sum()), 1)),
                     "min_difference": float(m["min_difference"]),
                     "share_of_comparisons": float(m["share_of_comparisons"])})
    return pd.DataFrame(rows).set_index("configuration")


def _grade_ratio(tuning: Any, grade: float) -> float:
    return float(tuning.gain_ratios.get(float(grade), math.nan))


def _family_ratio(name: str, levels: np.ndarray, grade: float) -> float:
    g = metrics.measures.gains.gain_vector(name, levels)
    lv = list(levels)
    low = levels[levels > 0][0]
    return float(g[lv.index(grade)] / g[lv.index(low)])


# ------------------------------------------------------------------------------------------------ study
@validate_params(cutoff=REQUIRED_CUTOFF)
def run_study(
    judged: JudgedRuns,
    *,
    cutoff: int = 100,
    quick: bool = False,
    settings: ReportSettings | None = None,
    progress: bool | Callable[[str], None] | None = None,
    published: bool | None = None,
    title: str | None = None,
) -> Study:
    r"""Run the Kanoulas & Aslam (2009) tuning study on ``judged``.

    Parameters
    ----------
    judged : metrics.JudgedRuns
        Systems × topics × ranks judged grades (:func:`metrics.judge`, :func:`metrics.load_trec9`).
    cutoff : int
        Main nDCG cut-off (ignored when ``settings`` is given).
    quick : bool
        :meth:`ReportSettings.quick` instead of :meth:`ReportSettings.default` (ignored with ``settings``).
    settings : ReportSettings, optional
        Full control over cut-offs, B, splits, starts and seed.
    progress : bool or callable, optional
        A short message before each step: ``True`` prints it on stderr, a callable is called with it.
    published : bool, optional
        Attach the paper's TREC 9 numbers; default: when :func:`is_trec9`.
    title : str, optional
        The collection's name in the report's title (default: the data's description up to its first ':', or
        the file it was loaded from; see :func:`default_title`).

    Returns
    -------
    Study

    Notes
    -----
    Stability is the G-theory dependability of the systems × topics nDCG matrix,
    :math:`\Phi(n) = \sigma^2_s / (\sigma^2_s + (\sigma^2_t + \sigma^2_{st,e})/n)` [3]_, and the
    topics needed are the smallest n with Φ(n) ≥ target. Optimal vectors maximise Φ
    (:mod:`optimize`). Everything random is seeded by ``settings.seed``.

    Examples
    --------
    >>> import metrics
    >>> from experiments import ReportSettings, run_study
    >>> s = ReportSettings.quick(cutoff=20, discount_cutoffs=(20,), gain_cutoffs=(20,), n_splits=2, n_resamples=50)
    >>> study = run_study(metrics.load_trec9().subset(topics=range(20)), settings=s)   # doctest: +SKIP
    >>> list(study.discount_table.index)                                               # doctest: +SKIP
    ['zipf', 'linear', 'log2', 'optimal']
    """
    import optimize  # experiments sits on top of optimize

    import experiments

    t0 = time.perf_counter()
    if not isinstance(judged, JudgedRuns):
        raise TypeError(f"`judged` must be a metrics.JudgedRuns; got {type(judged).__name__}.")
    if settings is None:
        settings = (ReportSettings.quick if quick else ReportSettings.default)(cutoff=cutoff)
    settings.validate(judged)
    s = settings
    say = progress_writer(progress) or (lambda msg: None)
    levels = np.asarray(judged.levels, dtype=float)
    pos = levels[levels > 0]
    k = s.cutoff
    notes: list[str] = []
    collection = _check_title(title) if title is not None else _label(judged)

    # first the advice: every table below shows the adopted configuration beside the ones it compares
    say("should I tune? nested cross-validation (optimize.recommend), discount and gain")
    verdicts, adopted = [], []
    for what in ("discount", "gain") if judged.n_topics >= 8 else ():  # nested CV: 2 topics per inner part
        rec = optimize.recommend(judged, cutoff=k, what=what, n_splits=max(s.n_splits, 2), target=s.target, seed=s.seed,
                                 progress=False)
        adopted.append(adopted_from(rec))
        verdicts.append(f"{what.capitalize()}: {adopted[-1].verdict.rstrip('.')}.")
    verdict = " ".join(verdicts)
    adopted_by = {a.what: a for a in adopted}

    # Table 1 / Fig. 2 / Fig. 4: discounts
    say(f"tuning the discount (linear gains) at k = {', '.join(map(str, s.discount_cutoffs))}")
    discount_tunings = {}
    # asl_cutoff too: Figs. 3 and 6 compare the constrained optimum there with the unconstrained and joint ones
    for kk in sorted(set(s.discount_cutoffs) | {k, s.asl_cutoff}):
        discount_tunings[kk] = _quiet(optimize.optimize_discount, judged, gain="linear", cutoff=kk, starts=s.starts, seed=s.seed)
    scores: dict[str, pd.DataFrame] = {}
    for name in STANDARD_DISCOUNTS:
        scores[name] = metrics.ndcg(judged, gain="linear", discount=name, cutoff=k)
    scores["optimal"] = discount_tunings[k].ndcg(judged)
    if "discount" in adopted_by:
        scores["adopted"] = adopted_by["discount"].ndcg(judged)
    gstudies = {name: _gstudy(X) for name, X in scores.items()}
    discount_table = pd.DataFrame({n: _gstudy_row(g, s.target) for n, g in gstudies.items()}).T
    discount_table.index.name = "discount"

    say(f"unconstrained discount at k = {s.asl_cutoff}")
    unconstrained = _quiet(optimize.optimize_discount, judged, gain="linear", cutoff=s.asl_cutoff, monotone=False,
                           starts=s.starts, seed=s.seed)

    # Table 2: gains
    say(f"tuning the gains (log discount) at k = {', '.join(map(str, s.gain_cutoffs))}")
    gain_tunings: dict[int, dict[str, Any]] = {}
    joint_tunings: dict[int, Any] = {}
    for kk in sorted(set(s.gain_cutoffs) | {k}):
        gain_tunings[kk] = {
            "constrained": _quiet(optimize.optimize_gain, judged, discount="log2", cutoff=kk, starts=s.starts, seed=s.seed),
            "unconstrained": _quiet(optimize.optimize_gain, judged, discount="log2", cutoff=kk, monotone=False,
                                    starts=s.starts, seed=s.seed),
        }
    joint_ks = sorted(set(s.gain_cutoffs if s.joint_cutoffs is None else s.joint_cutoffs) | {s.asl_cutoff})
    say(f"tuning gain and discount jointly at k = {', '.join(map(str, joint_ks))}")
    for kk in joint_ks:
        joint_tunings[kk] = _quiet(optimize.optimize_joint, judged, cutoff=kk, starts=s.starts, seed=s.seed)
    rows = []
    for kk, tt in gain_tunings.items():
        for grade in pos[1:] if pos.size > 1 else pos:
            row = {"cutoff": kk, "grade": float(grade),
                   "unconstrained": _grade_ratio(tt["unconstrained"], grade),
                   "constrained": _grade_ratio(tt["constrained"], grade),
                   "joint": _grade_ratio(joint_tunings[kk], grade) if kk in joint_tunings else math.nan,
                   "linear": _family_ratio("linear", levels, grade),
                   "exponential": _family_ratio("exponential", levels, grade),
                   "phi_constrained": tt["constrained"].phi(), "phi_unconstrained": tt["unconstrained"].phi()}
            rows.append(row)
    gain_ratio_table = pd.DataFrame(rows).set_index(["cutoff", "grade"]).sort_index()

    # Table 3: gains at the main cut-off (log discount)
    for name in ("exponential", "linear"):
        scores[f"{name} gain"] = metrics.ndcg(judged, gain=name, discount="log2", cutoff=k)
    scores["optimal gain"] = gain_tunings[k]["constrained"].ndcg(judged)
    gain_names = ["exponential", "linear", "optimal"]
    if "gain" in adopted_by:
        scores["adopted gain"] = adopted_by["gain"].ndcg(judged)
        gain_names.append("adopted")
    for gname in gain_names:
        gstudies[f"{gname} gain"] = _gstudy(scores[f"{gname} gain"])
    gain_table = pd.DataFrame({n: _gstudy_row(gstudies[f"{n} gain"], s.target) for n in gain_names}).T
    gain_table.index.name = "gain"

    # Table 4 / Figs. 7, 8
    say("rank correlations (Kendall τ, τ_AP, RMSE)")
    disc = {n: scores[n] for n in ("zipf", "linear", "log2", "optimal", "adopted") if n in scores}
    tau_discount = experiments.tau_matrix(disc)
    tau_ap_discount = experiments.tau_matrix(disc, method="tau_ap", variant="b")
    agr = []
    pairs = [("optimal", ("zipf", "linear", "log2")), ("optimal gain", ("exponential gain", "linear gain"))]
    pairs += [(ref, (base,)) for ref, base, what in (("adopted", "log2", "discount"), ("adopted gain", "linear gain", "gain"))
              if ref in scores and not adopted_by[what].is_baseline]  # the baseline against itself says nothing
    for ref, others in pairs:
        for o in others:
            agr.append({"reference": ref, "configuration": o,
                        "kendall_tau": experiments.kendall_tau(scores[ref], scores[o]),
                        "tau_ap": experiments.tau_ap(scores[ref], scores[o], variant="b"),
                        "rmse": experiments.rmse(scores[ref], scores[o])})
    agreement = pd.DataFrame(agr).set_index(["reference", "configuration"])

    # Fig. 9: discriminative power at asl_cutoff
    ka = s.asl_cutoff
    say(f"bootstrap ASLs (top {s.top_k} systems, B = {s.n_resamples}, nDCG@{ka})")
    jt = joint_tunings[ka]
    variants = power_variants(judged, adopted, ka, jt.ndcg(judged))
    top_k = min(s.top_k, judged.n_systems)
    asl, prow = {}, []
    for name, (kk, X) in variants.items():
        dp = experiments.discriminative_power(X, s.alpha, n_resamples=s.n_resamples, seed=s.seed, top_k=top_k)
        asl[name] = dp.table
        prow.append({"configuration": name, "cutoff": kk, "power": dp.power, "n_significant": dp.n_significant,
                     "n_pairs": dp.n_pairs, "estimated_difference": dp.estimated_difference,
                     "phi": float(_gstudy(X).phi())})
    power = pd.DataFrame(prow).set_index("configuration")

    say(f"swap rates at {judged.n_topics // 2} topics (B = {s.n_resamples})")
    swap = _swap_table({key: scores[key] for key in ("zipf", "linear", "log2", "optimal", "adopted",
                                                     "exponential gain", "optimal gain", "adopted gain")
                        if key in scores}, n_resamples=s.n_resamples, seed=s.seed)

    # out of sample
    say(f"out-of-sample check ({s.n_splits} topic splits, discount and gain)")
    cv_kw = dict(cutoff=k, n_splits=s.n_splits, target=s.target, seed=s.seed, starts=min(s.starts, 2))
    cv_discount = optimize.cross_validate(judged, what="discount", gain="linear", **cv_kw)
    cv_gain = optimize.cross_validate(judged, what="gain", discount="log2", **cv_kw)
    cv_summary = _cv_summary({"discount": cv_discount, "gain": cv_gain})

    if published is None:
        published = is_trec9(judged)
    checked = [discount_tunings[kk] for kk in set(s.discount_cutoffs) | {k}]
    if not all(t.success for t in [*checked, unconstrained, *joint_tunings.values()]):
        notes.append("at least one optimisation did not report convergence (see the tables' Φ).")
    return Study(
        name=collection, description=str(judged.report.get("description") or ""), n_systems=judged.n_systems, n_topics=judged.n_topics, levels=levels, settings=s,
        discount_table=discount_table, discount_tunings=discount_tunings, unconstrained=unconstrained,
        joint_tunings=joint_tunings, gain_tunings=gain_tunings, gain_ratio_table=gain_ratio_table,
        gain_table=gain_table, tau_discount=tau_discount, tau_ap_discount=tau_ap_discount, agreement=agreement,
        scores=scores, gstudies=gstudies, asl=asl, power=power, cv_discount=cv_discount, cv_gain=cv_gain,
        cv_summary=cv_summary, published=PUBLISHED_TREC9 if published else None,
        seconds=time.perf_counter() - t0, notes=notes, verdict=verdict, adopted=tuple(adopted), swap=swap,
        topics=_topics(scores, s))


def _topics(scores: Mapping[str, pd.DataFrame], s: ReportSettings) -> Any:
    """Section 7 from the study's trec_eval nDCG at the main cut-off (the plan's rows; no depth budget, which would
    re-judge the runs at every depth: ``gtheory budget`` does that)."""
    from .topics import topics_section

    return topics_section(scores["log2"], measure=f"nDCG@{s.cutoff}", target=s.target, seed=s.seed, heading=None)


def _cv_summary(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Mean Φ and topics needed per configuration on the tuning and held-out halves; share of
    splits where the tuned configuration's held-out Φ beats each standard one."""
    out = []
    for what, cv in tables.items():
        test = cv[cv.part == "test"].pivot(index="split", columns="config", values="phi")
        for cfg, grp in cv.groupby("config", sort=False):
            tr, te = grp[grp.part == "train"], grp[grp.part == "test"]
            out.append({
                "tuned": what, "config": cfg,
                "phi_train": tr.phi.mean(), "phi_test": te.phi.mean(),
                "topics_needed_test": te.topics_needed_phi.replace(np.inf, np.nan).median(),
                "tuned_wins_test": (float((test["tuned"] > test[cfg]).mean()) if cfg != "tuned" else math.nan),
                "n_topics_test": int(te.n_topics.iloc[0]),
            })
    return pd.DataFrame(out).set_index(["tuned", "config"])
