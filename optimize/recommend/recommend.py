r"""Keep your nDCG or switch? :func:`recommend`, the two-tier rule against the user's baseline, from the data to its
:class:`~optimize.Recommendation`: the arguments checked, the baseline parsed, the candidates built, tier 1
(:mod:`optimize.recommend.fixed`) and tier 2 (the nested cross-validation, :mod:`optimize.recommend.nested`, where
the rule and its references are) run, and the result assembled — the gain on the Φ(n) scale at the collection's
own topic count, the topics saved and the topics a keep would need to decide (:func:`topics_to_decide`).
"""
from __future__ import annotations

import math
import time
from typing import Any, Callable

import numpy as np
import pandas as pd
from numpy.typing import NDArray

import metrics
from metrics import JudgedRuns
from gtheory.kit.errors import ParameterError
from gtheory.kit.params import REQUIRED_CUTOFF, integer, validate_params

from ..solvers import FAMILIES, JointModel, Problem, RatioModel, coefficients, single_threaded_blas, topics_needed
from ..solvers import tuning_from_vector
from .candidates import LAMBDAS, _candidates, _jsonable_spec, _use_spec, _vectors_of
from .fixed import FIXED_STREAM, N_RESAMPLES, fixed_index, standard_indices, tier_one
from .nested import MIN_SPLITS, Decision, _progress, _spawn, _wins, combine, corrected_interval, decide, seed_list
from .nested import tuned_allowed
from .recommendation import Recommendation
from .verdict import PHI_MEANING, tier_reason as _tier_reason, verdict as _verdict_text

__all__ = ["recommend", "topics_to_decide"]


def _check(judged, what, n_inner, n_seeds, lambdas, families, min_wins, penalty, min_agreement, min_effect):
    """The checks of :func:`recommend`'s own parameters; what, cutoff, target, level, seed, objective and n_splits
    are the parameter table's (gtheory.kit.params), at its decorator."""
    if not isinstance(judged, JudgedRuns):
        raise TypeError(f"`judged` must be a metrics.JudgedRuns; got {type(judged).__name__}.")
    for name, v, least in (("n_inner", n_inner, 2), ("n_seeds", n_seeds, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < least:
            raise ValueError(f"`{name}` must be an integer ≥ {least}; got {v!r}.")
    if judged.n_topics < 8:
        raise ValueError(f"nested cross-validation needs at least 8 topics (2 per inner part); got {judged.n_topics}.")
    positive = [float(v) for v in judged.levels if v > 0]
    if what in ("gain", "joint") and len(positive) < 2:
        grades = f"one positive grade ({positive[0]:g})" if positive else "no positive grade"
        raise ParameterError(
            "what", f"`what` {what!r}: the qrels have {grades}, and nDCG is the same for every positive gain of a "
            "single grade (it is a ratio to the ideal DCG), so there are no gains to tune; recommend the discount "
            "instead.", rule="gains to tune need at least two positive grades", value=what,
            fix={"what": "discount"}, fix_effect="recommend the discount, the only part of nDCG these grades leave")
    bad = [lam for lam in lambdas if isinstance(lam, bool) or not isinstance(lam, (int, float, np.integer, np.floating))
           or not (np.isfinite(lam) and lam >= 0)]
    if bad:
        raise ValueError(f"`lambdas` must be non-negative numbers; got {list(lambdas)!r}.")
    known = FAMILIES["discount" if what == "joint" else what]
    unknown = [f for f in families if f not in known]
    if unknown:
        raise ValueError(f"`families` for the {what} must be among {', '.join(known)}; got {unknown!r}.")
    for name, v in (("min_wins", min_wins), ("min_agreement", min_agreement)):
        if isinstance(v, bool) or not (isinstance(v, (int, float)) and 0 < v <= 1):
            raise ValueError(f"`{name}` must be a share in (0, 1]; got {v!r}.")
    if isinstance(min_effect, bool) or not (isinstance(min_effect, (int, float)) and math.isfinite(min_effect)
                                            and min_effect >= 0):
        raise ValueError(f"`min_effect` must be a non-negative number; got {min_effect!r}.")
    if penalty not in ("ridge", "smooth"):
        raise ValueError(f"`penalty` must be 'ridge' or 'smooth'; got {penalty!r}.")


def parse_baseline(baseline: str | None, what: str, cutoff: int, gain: Any, discount: Any) -> tuple[Any, Any]:
    """``(gain, discount)`` of the baseline: ``gain`` and ``discount`` when ``baseline`` is None, else those of the
    nDCG measure spec ``baseline`` (e.g. ``"nDCG@10"`` = linear gains and log2 discount, trec_eval's;
    ``"nDCG(discount=rbp,p=0.8)@10"``; :func:`metrics.parse_measure`), whose cut-off, if given, must be ``cutoff``."""
    if baseline is None:
        return gain, discount
    if not isinstance(baseline, str):
        raise TypeError(f"`baseline` must be an nDCG measure such as 'nDCG@10' or 'nDCG(discount=zipf)@10'; "
                        f"got {type(baseline).__name__}.")
    m = metrics.parse_measure(baseline)
    if m.name != "nDCG" or m.param("judged_only"):
        raise ValueError(f"`baseline` must be an nDCG measure such as 'nDCG@10' or 'nDCG(discount=zipf)@10'; "
                         f"got {baseline!r}.")
    if m.cutoff is not None and m.cutoff != cutoff:
        raise ValueError(f"`baseline` {baseline!r} has cut-off {m.cutoff}, but `cutoff` is {cutoff}; give the same.")
    g = m.param("gain") or "linear"
    d = m.param("discount") or "log2"
    p, b = m.param("p"), m.param("b")
    if p is not None and d != "rbp" or b is not None and d != "jarvelin":
        raise ValueError(f"`baseline` {baseline!r}: p goes with discount=rbp, b with discount=jarvelin.")
    if d == "rbp" and p is not None:
        d = f"rbp(p={p!r})"
    elif d == "jarvelin" and b is not None:
        d = f"jarvelin(b={b!r})"
    return g, d


def measure_spec(gain: Any, discount: Any, cutoff: int, levels: NDArray) -> str | None:
    """The nDCG measure spec of a (gain, discount) configuration (:func:`metrics.parse_measure`'s canonical form),
    or None when either has no name the measure grammar knows (vectors; ``topflat``, ``power`` … discounts)."""
    g = gain
    if not isinstance(g, str):
        try:
            gv = metrics.gain_vector(g, levels)
        except (TypeError, ValueError):
            return None
        if np.array_equal(gv, metrics.gain_vector("linear", levels)):
            g = "linear"
        else:
            return None
    if not isinstance(discount, str):
        return None
    import re

    mt = re.fullmatch(r"\s*(rbp|jarvelin)\s*\(\s*(p|b)\s*=\s*([^)]+)\)\s*", discount)
    params = f"discount={discount},gain={g}" if mt is None else f"discount={mt[1]},gain={g},{mt[2]}={mt[3]}"
    try:
        return str(metrics.parse_measure(f"nDCG({params})@{int(cutoff)}"))
    except ValueError:
        return None


@validate_params(cutoff=REQUIRED_CUTOFF, n_splits=integer(2))
def recommend(
    judged: JudgedRuns,
    *,
    cutoff: int = 100,
    what: str = "discount",
    baseline: str | None = None,
    target: float = 0.95,
    seed: int | np.random.Generator | None = 0,
    gain: metrics.measures.gains.GainSpec = "linear",
    discount: metrics.measures.discounts.DiscountSpec = "log2",
    objective: str = "phi",
    n_splits: int = 10,
    n_inner: int = 4,
    n_seeds: int = 5,
    families: tuple[str, ...] | None = None,
    lambdas: tuple[float, ...] = LAMBDAS,
    penalty: str = "ridge",
    min_wins: float = 0.8,
    min_agreement: float = 0.75,
    min_effect: float = 0.0,
    level: float = 0.95,
    n_resamples: int = N_RESAMPLES,
    n_jobs: int | None = None,
    progress: bool | str | Callable[[str], Any] = "auto",
) -> Recommendation:
    r"""Keep your nDCG, or switch? Every alternative must beat the baseline on topics that took no part in choosing it.

    Parameters
    ----------
    judged : metrics.JudgedRuns
    cutoff : nDCG cut-off k.
    what : ``"discount"`` (the gain fixed), ``"gain"`` (the discount fixed) or ``"joint"`` (both: each discount
        family paired with the gain power family, regularised vector pairs, fitted by :data:`JOINT_ROUNDS` rounds
        of coordinate ascent).
    baseline : the nDCG the user would use without this tool, as a measure spec (``"nDCG@10"``,
        ``"nDCG(discount=zipf)@10"``, ``"nDCG(discount=rbp,p=0.8)@10"``; :func:`metrics.parse_measure`); it sets
        ``gain`` and ``discount``. Default: ``gain`` and ``discount`` (linear gains, log2 discount: trec_eval's
        nDCG). "Keep" always means this configuration.
    target : Φ target of the topics-needed figures (default 0.95).
    seed : seed of every split; the first of the ``n_seeds`` seeds (:func:`seed_list`), so its outer splits are
        :func:`gtheory.kit.topic_splits` ``(T, n_splits=n_splits, seed=seed)`` — those of
        :func:`optimize.cross_validate` with the same seed.
    gain, discount : the fixed part, and the baseline (unless ``baseline`` is given).
    objective : what the tuned candidates maximise, ``"phi"`` or ``"erho2"``; candidates are always
        compared by held-out Φ(1).
    n_splits : outer random halvings per seed (default 10; fewer than :data:`MIN_SPLITS` cannot decide).
    n_inner : inner random halvings of each fitting half, for the selection (default 4).
    n_seeds : independent reseedings of the whole procedure (default 5).
    families : the tuned families (default all of :data:`optimize.solvers.families.FAMILIES` ``[what]``; the
        discount families for ``"joint"``).
    lambdas : penalty strengths of the regularised full-vector candidates (0 = unregularised).
    penalty : ``"ridge"`` or ``"smooth"`` (:func:`optimize.optimize_regularised`).
    min_wins : share of a seed's outer splits the chosen alternative must win against the baseline (default 0.8).
    min_agreement : share of the seeds that must reach the same switch (default 0.75: 4 of 5).
    min_effect : the chosen alternative's mean held-out Φ(1) gain over the baseline must exceed this (default 0).
    level : 1 − the familywise one-sided level of tier 1's test, and the confidence level of the intervals whose
        lower bound must be positive in tier 2 (default 0.95).
    n_resamples : topic swaps (and paired topic resamples of the reported interval) of tier 1 per round (default
        :data:`optimize.recommend.fixed.N_RESAMPLES`, 4,000).
    n_jobs : processes running the seeds (default: as many as CPUs, at most ``n_seeds``; 1 runs them here).
        The result does not depend on it.
    progress : ``"auto"`` (default): a progress bar on stderr (after 2 s) when stderr is a terminal (not into pipes
        or log files); ``True`` shows it anyway, ``False`` never; a callable instead receives a message per outer
        split.

    Returns
    -------
    Recommendation
        ``verdict``, ``adopt``, the configuration to use (``measure``, ``gain_vector``, ``discount_vector``,
        ``tuning``), the evidence (``diff`` [``diff_lo``, ``diff_hi``], ``splits_won``, ``agreement``) and the
        tables behind it.

    Notes
    -----
    Tier 1 (:mod:`optimize.recommend.fixed`) compares the other standard configurations with the baseline on all
    topics (the studentised topic-swap randomisation test of the Φ(1) difference, one-sided at (1 − ``level``)/m,
    Bonferroni over the m standards; Janssen 1997, Chung & Romano 2013) and chooses the reference: the best standard
    that passes, else the baseline.
    Tier 2 is the nested rule below among the reference and the tuned candidates, against the reference.
    The rule, per seed (module docstring): the inner cross-validation on all topics chooses an alternative; the
    seed switches to it only if (1) the nested procedure's held-out Φ(1) gain over the baseline has a corrected
    resampled lower bound (Nadeau & Bengio 2003) above 0, (2) the alternative beats the baseline on at least
    ``min_wins`` of the outer splits and (3) by more than ``min_effect`` on average. The recommendation switches
    only when at least ``min_agreement`` of the seeds make the same switch; otherwise it keeps the baseline, and
    then its nDCG is the baseline's, bit for bit. The candidates' objective is Φ(1) of Kanoulas & Aslam (2009, §2.3).

    Examples
    --------
    >>> import metrics, optimize
    >>> rec = optimize.recommend(metrics.load_trec9(), cutoff=10, n_splits=3, n_inner=2, n_seeds=1, progress=False)
    >>> rec.decided, rec.adopt, rec.measure   # 3 splits cannot decide: the baseline is kept
    (False, False, 'nDCG(discount=log2,gain=linear)@10')
    """
    if families is None:
        families = tuple(FAMILIES["discount"]) if what == "joint" else tuple(FAMILIES.get(what, ()))
    families = tuple(families)
    _check(judged, what, n_inner, n_seeds, lambdas, families, min_wins, penalty, min_agreement, min_effect)
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 100:
        raise ValueError(f"`n_resamples` must be an integer ≥ 100; got {n_resamples!r}.")
    gain, discount = parse_baseline(baseline, what, cutoff, gain, discount)
    Problem(judged, cutoff, what, gain=gain, discount=discount, objective=objective)  # checks the configuration
    t0 = time.perf_counter()
    model = JointModel(judged, cutoff) if what == "joint" else RatioModel(judged, cutoff, what, gain=gain,
                                                                          discount=discount)
    cands = _candidates(model, what, objective, gain, discount, lambdas, families, penalty)
    T = judged.n_topics
    seeds = seed_list(seed, n_seeds)
    fixed_rng = (_spawn(seed, 1)[0] if isinstance(seed, np.random.Generator)
                 else np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(FIXED_STREAM,))))
    bar = _progress(progress, n_seeds * (n_splits + 1) + 1)
    pool = np.arange(T)
    with single_threaded_blas():  # many small BLAS calls: threads only cost hand-offs (optimize.solvers._threads)
        try:
            fixed = tier_one(model, cands, level=level, n_resamples=n_resamples, rng=fixed_rng)
            ref = fixed_index(cands, fixed) if n_splits >= MIN_SPLITS else 0
            dec = decide(model, cands, pool, seeds, n_splits=n_splits, n_inner=n_inner, objective=objective,
                         min_wins=min_wins, min_effect=min_effect, min_agreement=min_agreement, level=level,
                         step=lambda: bar.update(1), n_jobs=_jobs(n_jobs, n_seeds), reference=ref,
                         allowed=tuned_allowed(cands, ref))
            dec = combine(dec, fixed)
            fitted = [c.fit(pool) for c in cands]
            bar.update(1)
        finally:
            bar.close()
    co_all = coefficients(model.scores(np.stack([x for x, _ in fitted])), objective)
    return _assemble(judged, model, cands, dec, fitted, co_all, what=what, cutoff=cutoff, target=target,
                     seed=seed if seed is None or isinstance(seed, (int, np.integer)) else None, gain=gain,
                     discount=discount, objective=objective, n_splits=n_splits, n_inner=n_inner, min_wins=min_wins,
                     level=level, t0=t0)


def _jobs(n_jobs: int | None, n_seeds: int) -> int:
    if n_jobs is None:
        import os

        return max(1, min(n_seeds, os.cpu_count() or 1))
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs < 1:
        raise ValueError(f"`n_jobs` must be a positive integer or None; got {n_jobs!r}.")
    return int(n_jobs)


def _phi_n(p1: float, n: int) -> float:
    """Φ(n) from Φ(1) (Brennan 2001: Φ(n) = nρ/(1+nρ), ρ = Φ(1)/(1−Φ(1)))."""
    if not math.isfinite(p1):
        return math.nan
    p1 = min(max(p1, 0.0), 1.0)
    if p1 >= 1.0:
        return 1.0
    r = p1 / (1.0 - p1)
    return n * r / (1.0 + n * r)


def _need(p1: float, target: float) -> float:
    if not math.isfinite(p1) or p1 <= 0:
        return math.inf
    return topics_needed(p1 / (1.0 - p1) if p1 < 1 else math.inf, target)


def _assemble(judged, model, cands, dec: Decision, fitted, co_all, *, what, cutoff, target, seed, gain, discount,
              objective, n_splits, n_inner, min_wins, level, t0) -> Recommendation:
    runs = dec.runs
    n_test, n_fit = runs[0].n_test, runs[0].n_fit
    names = [c.name for c in cands]
    J = n_splits
    rows = []
    for s, r in enumerate(runs):
        for b in range(J):
            for i, c in enumerate(cands):
                rr = float(r.ratio[b, i])
                rows.append({"split": s * J + b, "seed_index": s, "candidate": c.name, "fitted": r.labels[b][i],
                             "phi_1": float(r.phi[b, i]), "ratio": rr, "topics_needed": topics_needed(rr, target),
                             "selected": bool(i == r.selected[b])})
    outer = pd.DataFrame(rows)
    phi = outer.pivot(index="split", columns="candidate", values="phi_1")[names]
    need = outer.pivot(index="split", columns="candidate", values="topics_needed")[names]
    standards = [c.name for c in cands if c.kind in ("baseline", "standard")]
    best_std = max(standards, key=lambda s: (phi[s].mean(), -standards.index(s)))
    base = names[0]
    comparisons = []
    for c in names:
        for s in standards:
            d = (phi[c] - phi[s]).to_numpy()
            m, lo, hi = corrected_interval(d, n_test, n_fit, level)
            comparisons.append({"candidate": c, "standard": s, "diff": m, "lo": lo, "hi": hi, "wins": _wins(d),
                                "n_splits": len(d)})
    comparisons = pd.DataFrame(comparisons)
    selected_all = np.concatenate([r.selected for r in runs])
    table_rows = []
    for i, c in enumerate(cands):
        d = (phi[c.name] - phi[best_std]).to_numpy()
        m, lo, hi = corrected_interval(d, n_test, n_fit, level)
        db = (phi[c.name] - phi[base]).to_numpy()
        mb, lob, hib = corrected_interval(db, n_test, n_fit, level)
        saved = (need[base] - need[c.name]).to_numpy()
        sm, slo, shi = corrected_interval(saved, n_test, n_fit, level) if np.all(np.isfinite(saved)) else (math.nan,) * 3
        table_rows.append({
            "candidate": c.name, "kind": c.kind, "n_params": c.n_params, "fitted": fitted[i][1],
            "phi_1_in_sample": float(co_all["phi_1"][i]), "inner_phi_1": float(runs[0].inner[i].mean()),
            "outer_phi_1": float(phi[c.name].mean()), "outer_sd": float(phi[c.name].std(ddof=1)),
            "diff_vs_best_standard": m, "diff_lo": lo, "diff_hi": hi, "wins": _wins(d),
            "diff_vs_baseline": mb, "baseline_lo": lob, "baseline_hi": hib, "wins_vs_baseline": _wins(db),
            "topics_needed": float(np.median(need[c.name])), "topics_saved": sm, "topics_saved_lo": slo,
            "topics_saved_hi": shi, "times_selected": int((selected_all == i).sum()),
            "times_chosen": int(sum(r.final == i for r in runs)), "fit_failures": len(c.failures),
        })
    table = pd.DataFrame(table_rows).set_index("candidate")
    fixed = dec.fixed
    for col in ("all_topics_diff", "all_topics_lo", "all_topics_hi", "all_topics_share", "all_topics_p"):
        table[col] = math.nan
    if fixed is not None:  # tier 1's evidence, on all topics, for the fixed configurations
        for j, i in enumerate(standard_indices(cands)):
            table.loc[names[i], ["all_topics_diff", "all_topics_lo", "all_topics_hi", "all_topics_share",
                                  "all_topics_p"]] = (
                float(fixed.diff[j]), float(fixed.lo[j]), float(fixed.hi[j]), float(fixed.share[j]),
                float(fixed.p[j]) if fixed.p is not None else math.nan)
    failed = [c for c in cands if c.failures]
    if failed:  # optimiser failures are reported, not hidden: the scores are those of the points reached
        import warnings

        from ..errors import OptimizationWarning

        warnings.warn("; ".join(f"{c.name}: {len(c.failures)} fit(s) did not converge ({c.failures[0]})" for c in failed)
                      + " — their held-out scores are those of the points the optimiser stopped at (the table's "
                      "fit_failures column counts them).", OptimizationWarning, stacklevel=3)
    T = judged.n_topics
    std = standard_indices(cands)
    f_alt = fixed.index if fixed is not None and fixed.adopt else (fixed.best if fixed is not None else 0)
    tier1_switch = bool(dec.adopt and dec.tier == 1)
    if tier1_switch:  # the evidence is tier 1's: all topics, paired topic bootstrap
        alt_i = std[fixed.index]
        p0, m, lo, hi = float(fixed.phi[0]), float(fixed.diff[fixed.index]), float(fixed.lo[fixed.index]), \
            float(fixed.hi[fixed.index])
        wins = _wins((phi[names[alt_i]] - phi[base]).to_numpy())
    else:
        alt_i = dec.alternative
        p0, m, lo, hi = dec.p0, dec.diff, dec.lo, dec.hi
        wins = dec.wins
    alt = cands[alt_i]
    phi_b, phi_a = _phi_n(p0, T), _phi_n(p0 + m, T)
    phi_lo = _phi_n(p0 + lo, T) - phi_b if math.isfinite(lo) else math.nan
    phi_hi = _phi_n(p0 + hi, T) - phi_b if math.isfinite(hi) else math.nan
    saved = _need(p0, target) - _need(p0 + m, target)
    to_decide = topics_to_decide(m, lo, T) if dec.decided and not dec.adopt else math.nan
    base_spec = measure_spec(gain, discount, cutoff, model.levels) or f"nDCG@{cutoff} with the given gain and discount"
    chosen = cands[dec.index]
    x = fitted[dec.index][0]
    label = fitted[dec.index][1]
    levels = tuple(float(v) for v in judged.levels)
    if dec.adopt:
        g_use, d_use = _use_spec(chosen, label, what, gain, discount)
        measure = measure_spec(g_use, d_use, cutoff, model.levels) if g_use is not None else None
        gv, dv = _vectors_of(model, what, x, gain, discount, cutoff)
    else:
        measure = measure_spec(gain, discount, cutoff, model.levels)
        gv = tuple(float(v) for v in metrics.gain_vector(gain, model.levels))
        dv = tuple(float(v) for v in metrics.discount_vector(discount, int(cutoff), cutoff=int(cutoff)))
    verdict = _verdict_text(dec, cands, fitted, base_spec, measure, label, T, phi_b, phi_a, phi_lo, phi_hi, saved,
                            target, n_splits, min_wins, level, to_decide, alt_i=alt_i, wins=wins,
                            min_splits=MIN_SPLITS)
    kind = "standard" if chosen.kind in ("baseline", "standard") else chosen.kind
    tuning = tuning_from_vector(judged, cutoff, what, x, gain=gain, discount=discount, objective=objective,
                                solver=("standard" if kind == "standard" else f"recommend:{kind}"),
                                message=f"recommended: {label}", seconds=time.perf_counter() - t0)
    return Recommendation(
        what=what, cutoff=int(cutoff), objective=objective, target=float(target), seed=seed, n_splits=n_splits,
        n_inner=n_inner, min_wins=float(min_wins), n_systems=judged.n_systems, n_topics=T,
        choice=chosen.name, label=label, kind=kind, adopt=bool(dec.adopt), selected=cands[runs[0].final].name,
        best_standard=best_std, verdict=verdict, procedure_diff=m, procedure_lo=lo, procedure_hi=hi, table=table,
        comparisons=comparisons, outer=outer, tuning=tuning, seconds=time.perf_counter() - t0,
        baseline=base_spec, decided=bool(dec.decided), measure=measure, levels=levels, gain_vector=gv,
        discount_vector=dv, alternative=alt.name, alternative_label=fitted[alt_i][1], diff=m, diff_lo=lo,
        diff_hi=hi, phi_n_baseline=phi_b, phi_n_adopted=phi_a, phi_n_diff=phi_a - phi_b, phi_n_lo=phi_lo,
        phi_n_hi=phi_hi, topics_saved=saved, splits_won=wins, n_outer=dec.n_outer, n_seeds=len(runs),
        seed_decisions=tuple(dec.seed_decisions), agreement=dec.agreement, phi_meaning=PHI_MEANING,
        base_gain=_jsonable_spec(gain), base_discount=_jsonable_spec(discount), topics_to_decide=to_decide,
        tier=int(dec.tier), tier_reason=_tier_reason(dec, cands, fitted, T, level),
        reference=names[dec.reference], fixed_choice=names[std[fixed.index]] if fixed is not None else base,
        fixed_alternative=names[std[f_alt]] if fixed is not None else base,
        fixed_diff=float(fixed.diff[f_alt]) if fixed is not None else math.nan,
        fixed_lo=float(fixed.lo[f_alt]) if fixed is not None else math.nan,
        fixed_hi=float(fixed.hi[f_alt]) if fixed is not None else math.nan,
        fixed_share=float(fixed.share[f_alt]) if fixed is not None else math.nan,
        fixed_p=float(fixed.p[f_alt]) if fixed is not None and fixed.p is not None else math.nan,
        fixed_m=int(fixed.m) if fixed is not None else 0,
        n_resamples=int(fixed.n_resamples) if fixed is not None else 0,
    )


def topics_to_decide(diff: float, lo: float, n_topics: int) -> float:
    r"""Topics at which a held-out gain of this size would clear its interval, if it held: the projection a
    verdict that keeps gives for a positive but not reliable gain.

    The corrected resampled interval of :func:`recommend` is :math:`\bar d \pm t\,s\sqrt{1/J + n_2/n_1}`
    (Nadeau & Bengio 2003) with :math:`s^2` the variance of the per-split difference of Φ(1), which for a
    configuration that is not refitted shrinks as :math:`1/n` with the number of topics :math:`n` (each split's
    Φ(1) is estimated from :math:`n/2` topics); so the half-width :math:`h = \bar d - \ell` at ``n_topics``
    becomes :math:`h\sqrt{n/n'}` at :math:`n'`, and the lower end reaches 0 at

    .. math::  n' = n \left(\frac{\bar d - \ell}{\bar d}\right)^2 .

    Tuned configurations' splits vary more with fewer topics than :math:`1/n` (their fits are noisier too), so
    for them this is an overestimate (measured on the shared collections: the per-split standard deviation on
    half the topics is 1.3–1.5× the whole collection's for fixed configurations, about :math:`\sqrt 2`, and up
    to 1.8× for tuned ones; docs/should-i-tune.md). It assumes the mean gain stays what it is, which is the question
    more topics would answer. NaN when the gain is not positive or the interval already excludes 0; the
    result is rounded up to a whole topic.

    >>> topics_to_decide(0.01, -0.01, 50)   # half-width twice the mean: four times the topics
    200.0
    """
    if not (math.isfinite(diff) and math.isfinite(lo)) or diff <= 0 or lo > 0:
        return math.nan
    return float(math.ceil(n_topics * ((diff - lo) / diff) ** 2 - 1e-9))
