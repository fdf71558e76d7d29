r"""Should I tune? Nested cross-validation over topics, and a verdict users can trust out of sample.

:func:`recommend` compares, on topics that took no part in choosing or fitting them,

* the **standard configurations** (:data:`optimize.STANDARD_CONFIGS`: log2, zipf, linear discounts;
  linear, exponential gains),
* the **tuned families** (:mod:`optimize.families`: one or two parameters),
* the **regularised full vectors** (:mod:`optimize.regularised`, λ on a grid; λ = 0 is today's tuner),

and recommends one.

Procedure (Varma & Simon 2006; Cawley & Talbot 2010). Outer loop: ``n_splits`` random halvings of
the topics into a fitting part :math:`A_b` and a held-out part :math:`B_b`. Every tuned candidate is
fitted on :math:`A_b` and every candidate scored by Φ(1) on :math:`B_b` (:math:`\phi_{cb}`). Inner
loop (the *selection*): ``n_inner`` random halvings of :math:`A_b` only; the candidate with the best
mean inner held-out Φ(1) is found, and the simplest candidate within one standard error of it is
chosen (the one-standard-error rule, Hastie, Tibshirani & Friedman 2009, §7.10; simplicity: the
reference standard, other standards, 1-parameter families, 2-parameter, regularised vectors by
decreasing λ). :math:`\phi_{\mathrm{sel}(b), b}` is the honest out-of-sample Φ(1) of the *whole
procedure*. The final choice is the same selection run on all topics, refitted on all topics.

Verdict. Let :math:`s^*` be the standard configuration with the best mean outer Φ(1). A tuned choice
:math:`c^*` is adopted only when its paired held-out difference :math:`\phi_{c^*b} - \phi_{s^*b}`
is positive on at least ``min_wins`` (default 80 %) of the outer splits and on average, and the
whole selection procedure does not lose to :math:`s^*` on average out of sample; otherwise
:math:`s^*` is kept. Intervals for the mean paired difference over the overlapping random splits use
the corrected resampled t statistic of Nadeau & Bengio (2003): variance
:math:`(1/J + n_{test}/n_{fit})\,s^2` over :math:`J` splits, t quantile with :math:`J-1` degrees of freedom.
Topics needed (Φ ≥ ``target``) are computed from each held-out G-study; "saves N topics" is the
mean paired difference of the best standard's and the choice's.

References
----------
.. [1] S. Varma and R. Simon (2006). Bias in error estimation when using cross-validation for model
       selection. BMC Bioinformatics 7:91.
.. [2] G. C. Cawley and N. L. C. Talbot (2010). On over-fitting in model selection and subsequent
       selection bias in performance evaluation. JMLR 11, 2079–2107.
.. [3] C. Nadeau and Y. Bengio (2003). Inference for the generalization error. Machine Learning 52.
.. [4] E. Kanoulas and J. A. Aslam (2009). Empirical justification of the gain and discount function
       for nDCG. CIKM 2009.
"""
from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import stats

import metrics
from metrics import JudgedRuns
from gtheory.kit.checks import check_progress, seed_sequence

from gtheory.kit.display import signed
from gtheory.kit.ties import TIE_REL
from gtheory.intervals import check_open_unit

from ._ratio import JointModel, RatioModel, coefficients, topics_needed
from .families import FAMILIES, fit_family, tuning_from_vector
from .multistart import check_seed
from .objective import Problem, check_objective
from .recommendation import Recommendation
from ._threads import single_threaded_blas
from .regularised import fit_vector, reference_vector
from .validation import STANDARD_CONFIGS

__all__ = ["recommend", "LAMBDAS", "corrected_interval"]

#: coordinate-ascent rounds (discount, then gain) of a joint candidate
JOINT_ROUNDS = 2

#: seconds before the progress bar appears (work shorter than this shows none)
_PROGRESS_DELAY = 2.0

#: default penalty strengths of the regularised candidates (0 is the unregularised full vector)
LAMBDAS = (1.0, 0.1, 0.0)


@dataclass
class Candidate:
    """One configuration the nested cross-validation can choose: ``fit(topics) -> (x, label)``."""

    name: str
    kind: str  # "standard", "family", "regularised"
    complexity: float
    fit: Callable[[NDArray | None], tuple[NDArray, str]]
    n_params: int
    #: messages of the fits whose optimiser did not converge (regularised vectors: L-BFGS-B's iteration limit)
    failures: list[str] = field(default_factory=list)


def corrected_interval(diffs: NDArray, n_test: int, n_fit: int, level: float = 0.95) -> tuple[float, float, float]:
    r"""``(mean, lo, hi)`` of paired differences over ``J`` overlapping random splits: the corrected
    resampled t interval of Nadeau & Bengio (2003), variance :math:`(1/J + n_{test}/n_{fit})\,s^2`."""
    d = np.asarray(diffs, dtype=np.float64)
    J = d.size
    m = float(d.mean()) if J else math.nan
    if J < 2 or not np.all(np.isfinite(d)):
        return m, math.nan, math.nan
    se = math.sqrt((1.0 / J + n_test / n_fit) * float(d.var(ddof=1)))
    q = float(stats.t.ppf(0.5 + level / 2, J - 1))
    return m, m - q * se, m + q * se


def _joint_candidates(model: JointModel, objective: str, lambdas, families, penalty: str,
                      rounds: int = JOINT_ROUNDS) -> list[Candidate]:
    """Standards, (discount family × gain power) and regularised (discount, gain) pairs, each pair fitted
    by coordinate ascent: ``rounds`` alternations of the discount (gain fixed) and the gain (discount fixed)."""
    out: list[Candidate] = []
    k = model.k
    for name, (g, d) in STANDARD_CONFIGS["joint"].items():
        dv = metrics.discount_vector(d, k, cutoff=k)
        gv = metrics.gain_vector(g, model.levels)[model.positive]
        x = np.r_[dv / dv.sum(), gv / gv.sum()]
        out.append(Candidate(name, "standard", 0.0 if name == "linear+log2" else 0.1,
                             lambda idx, x=x, name=name: (x, name), 0))
    gfam = FAMILIES["gain"]["power"]
    g0 = metrics.gain_vector("linear", model.levels)[model.positive]
    g0 = g0 / g0.sum()
    for fname in families:
        dfam = FAMILIES["discount"][fname]

        def fit(idx, dfam=dfam):
            g = g0
            for _ in range(rounds):
                td, d, _ = fit_family(model.discount_view(g, idx), dfam, None, objective)
                tg, g, _ = fit_family(model.gain_view(d, idx), gfam, None, objective)
            return np.r_[d, g], f"{dfam.label(td)}+{gfam.label(tg)}"

        two = fname == "topflat"
        out.append(Candidate(f"{fname}({dfam.param})+power(gamma)", "family", 3.0 if two else 2.0, fit,
                             3 if two else 2))
    dref = metrics.discount_vector("log2", k)
    dref = dref / dref.sum()
    warm: dict[bytes, tuple] = {}
    for lam in sorted(lambdas, reverse=True):
        name = "full vectors" if lam == 0 else f"{penalty}(λ={lam:g})"
        failures: list[str] = []

        def fit(idx, lam=lam, failures=failures):
            key = b"all" if idx is None else np.asarray(idx).tobytes()
            d, g = warm.get(key, (dref, g0))
            for _ in range(rounds):
                d, _, ok, msg, _ = fit_vector(model.discount_view(g, idx), None, objective, lam, dref, penalty, x0=d)
                if not ok:
                    failures.append(f"discount: {msg}")
                g, _, ok, msg, _ = fit_vector(model.gain_view(d, idx), None, objective, lam, g0, penalty, x0=g)
                if not ok:
                    failures.append(f"gain: {msg}")
            warm.clear()
            warm[key] = (d, g)
            return np.r_[d, g], ("tuned gain and discount vectors" if lam == 0 else f"{penalty}(λ={lam:g})")

        out.append(Candidate(name, "regularised", 4.0 + 1.0 / (1.0 + lam), fit, model.n - 2, failures))
    return out


def _candidates(model: RatioModel, what: str, objective: str, gain, discount, lambdas, families,
                penalty: str) -> list[Candidate]:
    if what == "joint":
        return _joint_candidates(model, objective, lambdas, families, penalty)
    out: list[Candidate] = []
    ref_name = "log2" if what == "discount" else "linear"
    for name, (g, d) in STANDARD_CONFIGS[what].items():
        v = (metrics.discount_vector(d, model.n, cutoff=model.n) if what == "discount"
             else metrics.gain_vector(g, model.levels)[model.positive])
        v = np.asarray(v, dtype=np.float64) / np.sum(v)
        out.append(Candidate(name, "standard", 0.0 if name == ref_name else 0.1,
                             lambda idx, v=v, name=name: (v, name), 0))
    for fname in families:
        fam = FAMILIES[what][fname]

        def fit(idx, fam=fam):
            theta, x, _ = fit_family(model, fam, idx, objective)
            return x, fam.label(theta)

        two = fname == "topflat"
        out.append(Candidate(f"{fname}({fam.param})", "family", 2.0 if two else 1.0, fit, 2 if two else 1))
    ref = reference_vector(model, "log2" if what == "discount" else "linear")
    warm: dict[bytes, NDArray] = {}  # decreasing λ on the same topics: each fit starts from the previous one
    for lam in sorted(lambdas, reverse=True):
        name = "full vector" if lam == 0 else f"{penalty}(λ={lam:g})"
        failures: list[str] = []

        def fit(idx, lam=lam, failures=failures):
            key = b"all" if idx is None else np.asarray(idx).tobytes()
            x, f, ok, msg, nit = fit_vector(model, idx, objective, lam, ref, penalty, x0=warm.get(key))
            if not ok:
                failures.append(msg)
            warm.clear()
            warm[key] = x
            return x, (f"tuned {what} vector" if lam == 0 else f"{penalty}(λ={lam:g})")

        out.append(Candidate(name, "regularised", 3.0 + 1.0 / (1.0 + lam), fit, model.n - 1, failures))
    return out


def _select(model: RatioModel, cands: list[Candidate], pool: NDArray, rng: np.random.Generator, n_inner: int,
            objective: str) -> tuple[int, NDArray]:
    """Index of the candidate the inner cross-validation on ``pool`` chooses (one-SE rule), and the
    inner held-out Φ(1) matrix (candidates × inner splits)."""
    n_fit = len(pool) // 2 + len(pool) % 2
    S = np.empty((len(cands), n_inner))
    for i in range(n_inner):
        perm = rng.permutation(pool)
        fit_idx, test_idx = np.sort(perm[:n_fit]), np.sort(perm[n_fit:])
        xs = np.stack([c.fit(fit_idx)[0] for c in cands])
        S[:, i] = coefficients(model.scores(xs, test_idx), objective)["phi_1"]
    return _one_se(cands, S, len(pool) - n_fit, n_fit), S


def _one_se(cands: list[Candidate], S: NDArray, n_test: int, n_fit: int) -> int:
    means = S.mean(axis=1)
    best = int(np.argmax(means))
    J = S.shape[1]
    eligible = []
    for c in range(len(cands)):
        d = S[c] - S[best]
        se = math.sqrt((1.0 / J + n_test / n_fit) * float(d.var(ddof=1))) if J > 1 else 0.0
        if means[c] >= means[best] - se:
            eligible.append(c)
    return min(eligible, key=lambda c: (cands[c].complexity, -means[c]))


def _wins(d: np.ndarray) -> int:
    """Outer splits on which a candidate beats the standard: held-out Φ(1) higher by more than rounding
    (:data:`gtheory.kit.ties.TIE_REL`), so that a candidate equal to the standard (a family fitted at the standard's
    parameter) never wins by noise."""
    return int((d > TIE_REL).sum())


def _check(judged, what, cutoff, target, seed, n_splits, n_inner, objective, lambdas, families, min_wins, penalty):
    if not isinstance(judged, JudgedRuns):
        raise TypeError(f"`judged` must be a metrics.JudgedRuns; got {type(judged).__name__}.")
    if what not in ("discount", "gain", "joint"):
        raise ValueError(f"`what` must be 'discount', 'gain' or 'joint'; got {what!r}.")
    check_open_unit("target", target)
    check_seed(seed)
    check_objective(objective)
    for name, v, least in (("n_splits", n_splits, 2), ("n_inner", n_inner, 2)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < least:
            raise ValueError(f"`{name}` must be an integer ≥ {least}; got {v!r}.")
    if judged.n_topics < 8:
        raise ValueError(f"nested cross-validation needs at least 8 topics (2 per inner part); got {judged.n_topics}.")
    bad = [lam for lam in lambdas if isinstance(lam, bool) or not isinstance(lam, (int, float, np.integer, np.floating))
           or not (np.isfinite(lam) and lam >= 0)]
    if bad:
        raise ValueError(f"`lambdas` must be non-negative numbers; got {list(lambdas)!r}.")
    known = FAMILIES["discount" if what == "joint" else what]
    unknown = [f for f in families if f not in known]
    if unknown:
        raise ValueError(f"`families` for the {what} must be among {', '.join(known)}; got {unknown!r}.")
    if not (isinstance(min_wins, (int, float)) and 0 < min_wins <= 1):
        raise ValueError(f"`min_wins` must be a share in (0, 1]; got {min_wins!r}.")
    if penalty not in ("ridge", "smooth"):
        raise ValueError(f"`penalty` must be 'ridge' or 'smooth'; got {penalty!r}.")


def recommend(
    judged: JudgedRuns,
    cutoff: int = 100,
    *,
    what: str = "discount",
    target: float = 0.95,
    seed: int | None = 0,
    gain: metrics.gains.GainSpec = "linear",
    discount: metrics.discounts.DiscountSpec = "log2",
    objective: str = "phi",
    n_splits: int = 10,
    n_inner: int = 4,
    families: tuple[str, ...] | None = None,
    lambdas: tuple[float, ...] = LAMBDAS,
    penalty: str = "ridge",
    min_wins: float = 0.8,
    progress: bool | str | Callable[[str], Any] = "auto",
) -> Recommendation:
    r"""Which discount (or gain) to adopt, judged on topics that took no part in choosing it.

    Parameters
    ----------
    judged : metrics.JudgedRuns
    cutoff : nDCG cut-off k.
    what : ``"discount"`` (gain ``gain`` fixed), ``"gain"`` (discount ``discount`` fixed) or ``"joint"``
        (both tuned: each discount family paired with the gain power family, regularised vector pairs,
        fitted by :data:`JOINT_ROUNDS` rounds of coordinate ascent; standards ``linear+log2``, … of
        :data:`optimize.STANDARD_CONFIGS`).
    target : Φ target of the topics-needed figures (default 0.95).
    seed : seed of every random split (outer and inner); same seed, same recommendation.
    objective : what the tuned candidates maximise, ``"phi"`` or ``"erho2"``; candidates are always
        compared by held-out Φ(1).
    n_splits : outer random halvings (default 10).
    n_inner : inner random halvings of each fitting half, for the selection (default 4).
    families : the tuned families (default all of :data:`optimize.families.FAMILIES` ``[what]``; the
        discount families for ``"joint"``).
    lambdas : penalty strengths of the regularised full-vector candidates (0 = unregularised).
    penalty : ``"ridge"`` or ``"smooth"`` (:func:`optimize.optimize_regularised`).
    min_wins : share of outer splits a tuned choice must win against the best standard to be adopted.
    progress : ``"auto"`` (default): a progress bar on stderr (after 2 s) when stderr is a terminal (not into pipes
        or log files); ``True`` shows it anyway, ``False`` never; a callable instead receives a message per outer
        split.

    Returns
    -------
    Recommendation
        ``verdict``, the configuration (``gain``, ``discount``, ``tuning``) and the tables behind it.

    Notes
    -----
    The procedure is the nested cross-validation of the module docstring: outer splits assess,
    inner splits select (Varma & Simon 2006; Cawley & Talbot 2010). The candidates' objective is
    Φ(1) of Kanoulas & Aslam (2009, §2.3).

    Examples
    --------
    >>> import metrics, optimize
    >>> rec = optimize.recommend(metrics.load_trec9(), 10, n_splits=3, n_inner=2, progress=False)
    >>> rec.verdict.split(":")[0] in ("keep log2", "keep zipf", "keep linear") or rec.adopt
    True
    """
    if families is None:
        families = tuple(FAMILIES["discount"]) if what == "joint" else tuple(FAMILIES.get(what, ()))
    families = tuple(families)
    _check(judged, what, cutoff, target, seed, n_splits, n_inner, objective, lambdas, families, min_wins, penalty)
    Problem(judged, cutoff, what, gain=gain, discount=discount, objective=objective)  # checks the configuration
    t0 = time.perf_counter()
    model = JointModel(judged, cutoff) if what == "joint" else RatioModel(judged, cutoff, what, gain=gain,
                                                                          discount=discount)
    cands = _candidates(model, what, objective, gain, discount, lambdas, families, penalty)
    T = judged.n_topics
    n_fit = T // 2 + T % 2
    seqs = seed_sequence(seed).spawn(2 * n_splits + 1)
    rows, chosen_b = [], []
    bar = _progress(progress, n_splits + 1)
    with single_threaded_blas():  # many small BLAS calls: threads only cost hand-offs (optimize._threads)
        try:
            for b in range(n_splits):
                perm = np.random.default_rng(seqs[b]).permutation(T)
                A, B = np.sort(perm[:n_fit]), np.sort(perm[n_fit:])
                sel, _ = _select(model, cands, A, np.random.default_rng(seqs[n_splits + b]), n_inner, objective)
                chosen_b.append(sel)
                fits = [c.fit(A) for c in cands]
                co = coefficients(model.scores(np.stack([x for x, _ in fits]), B), objective)
                for i, c in enumerate(cands):
                    r = float(co["r"][i])
                    rows.append({"split": b, "candidate": c.name, "fitted": fits[i][1],
                                 "phi_1": float(co["phi_1"][i]), "ratio": r,
                                 "topics_needed": topics_needed(r, target), "selected": i == sel})
                bar.update(1)
            final, inner = _select(model, cands, np.arange(T), np.random.default_rng(seqs[-1]), n_inner, objective)
            fitted = [c.fit(None) for c in cands]
            bar.update(1)
        finally:
            bar.close()
    outer = pd.DataFrame(rows)
    co_all = coefficients(model.scores(np.stack([x for x, _ in fitted])), objective)
    return _assemble(judged, model, cands, outer, chosen_b, final, inner, fitted, co_all, what=what, cutoff=cutoff,
                     target=target, seed=seed if seed is None or isinstance(seed, (int, np.integer)) else None,
                     gain=gain, discount=discount, objective=objective, n_splits=n_splits,
                     n_inner=n_inner, min_wins=min_wins, n_test=T - n_fit, n_fit=n_fit, t0=t0)


def _progress(on: bool | Callable[[str], Any], total: int, desc: str = "recommend: outer splits"):
    on = check_progress(on)
    if callable(on):  # the project's one `progress` type: a callable gets each step as a message
        class _Say:
            done = 0

            def update(self, n: int = 1) -> None:
                self.done += n
                on(f"{desc}: {self.done}/{total}")

            def close(self) -> None: ...
        return _Say()
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        on = False
    if not on:
        class _Null:
            def update(self, n: int = 1) -> None: ...
            def close(self) -> None: ...
        return _Null()
    return tqdm(total=total, desc=desc, file=sys.stderr, delay=_PROGRESS_DELAY, leave=False)


def _assemble(judged, model, cands, outer, chosen_b, final, inner, fitted, co_all, *, what, cutoff, target, seed,
              gain, discount, objective, n_splits, n_inner, min_wins, n_test, n_fit, t0) -> Recommendation:
    phi = outer.pivot(index="split", columns="candidate", values="phi_1")
    need = outer.pivot(index="split", columns="candidate", values="topics_needed")
    names = [c.name for c in cands]
    standards = [c.name for c in cands if c.kind == "standard"]
    best_std = max(standards, key=lambda s: (phi[s].mean(), -standards.index(s)))
    cmp_rows = []
    for c in names:
        for s in standards:
            d = (phi[c] - phi[s]).to_numpy()
            m, lo, hi = corrected_interval(d, n_test, n_fit)
            cmp_rows.append({"candidate": c, "standard": s, "diff": m, "lo": lo, "hi": hi,
                             "wins": _wins(d), "n_splits": n_splits})
    comparisons = pd.DataFrame(cmp_rows)
    table_rows = []
    for i, c in enumerate(cands):
        d = (phi[c.name] - phi[best_std]).to_numpy()
        m, lo, hi = corrected_interval(d, n_test, n_fit)
        saved = (need[best_std] - need[c.name]).to_numpy()
        sm, slo, shi = corrected_interval(saved, n_test, n_fit) if np.all(np.isfinite(saved)) else (math.nan,) * 3
        table_rows.append({
            "candidate": c.name, "kind": c.kind, "n_params": c.n_params, "fitted": fitted[i][1],
            "phi_1_in_sample": float(co_all["phi_1"][i]), "inner_phi_1": float(inner[i].mean()),
            "outer_phi_1": float(phi[c.name].mean()), "outer_sd": float(phi[c.name].std(ddof=1)),
            "diff_vs_best_standard": m, "diff_lo": lo, "diff_hi": hi, "wins": _wins(d),
            "topics_needed": float(np.median(need[c.name])), "topics_saved": sm, "topics_saved_lo": slo,
            "topics_saved_hi": shi, "times_selected": int(sum(1 for s in chosen_b if s == i)),
            "fit_failures": len(c.failures),
        })
    table = pd.DataFrame(table_rows).set_index("candidate")
    failed = [c for c in cands if c.failures]
    if failed:  # optimiser failures are reported, not hidden: the scores are those of the points reached
        import warnings

        from .result import OptimizationWarning

        warnings.warn("; ".join(f"{c.name}: {len(c.failures)} fit(s) did not converge ({c.failures[0]})" for c in failed)
                      + " — their held-out scores are those of the points the optimiser stopped at (the table's "
                      "fit_failures column counts them).", OptimizationWarning, stacklevel=3)
    proc = np.array([phi[names[s]].iloc[b] for b, s in enumerate(chosen_b)])
    pm, plo, phi_hi = corrected_interval(proc - phi[best_std].to_numpy(), n_test, n_fit)
    choice = cands[final]
    row = table.loc[choice.name]
    need_wins = math.ceil(min_wins * n_splits - 1e-9)
    wins_ok = bool(row["wins"] >= need_wins and row["diff_vs_best_standard"] > TIE_REL)
    adopt = choice.kind != "standard" and wins_ok and pm >= 0
    noun = {"gain": "gains", "discount": "discount", "joint": "gains and discount"}[what]
    if adopt:
        rec_name, x = choice.name, fitted[final][0]
        saved = _fmt_saved(row)
        verdict = (f"adopt tuned {noun} {fitted[final][1]}: {saved} out of sample "
                   f"(held-out Φ(1) {signed(row['diff_vs_best_standard'], 3)} [{signed(row['diff_lo'], 3)}, {signed(row['diff_hi'], 3)}] "
                   f"vs {best_std}, better on {int(row['wins'])}/{n_splits} splits)")
    else:
        rec_name = best_std
        x = fitted[names.index(best_std)][0]
        if choice.kind == "standard":  # report the best tuned candidate's evidence
            tuned = table[table["kind"] != "standard"]
            row = tuned.loc[tuned["outer_phi_1"].idxmax()] if len(tuned) else row
            reason = "no tuned candidate beats the standard ones by more than its noise on the inner splits"
        elif not wins_ok:
            reason = f"adoption needs {need_wins}/{n_splits} splits won"
        else:
            reason = f"the selection procedure itself loses {abs(pm):.4f} held-out Φ(1) against {best_std}"
        verdict = (f"keep {best_std}: tuning does not generalise here ({signed(row['diff_vs_best_standard'], 3)} "
                   f"[{signed(row['diff_lo'], 3)}, {signed(row['diff_hi'], 3)}] held-out Φ(1) for {row.name}, better on "
                   f"{int(row['wins'])}/{n_splits} splits; {reason})")
    kind = "standard" if rec_name in standards else choice.kind
    label = fitted[names.index(rec_name)][1]
    tuning = tuning_from_vector(judged, cutoff, what, x, gain=gain, discount=discount, objective=objective,
                                solver=("standard" if kind == "standard" else f"recommend:{kind}"),
                                message=f"recommended: {label}", seconds=time.perf_counter() - t0)
    return Recommendation(
        what=what, cutoff=int(cutoff), objective=objective, target=float(target), seed=seed, n_splits=n_splits,
        n_inner=n_inner, min_wins=float(min_wins), n_systems=judged.n_systems, n_topics=judged.n_topics,
        choice=rec_name, label=label, kind=kind, adopt=bool(adopt), selected=choice.name, best_standard=best_std,
        verdict=verdict, procedure_diff=pm, procedure_lo=plo, procedure_hi=phi_hi, table=table,
        comparisons=comparisons, outer=outer, tuning=tuning, seconds=time.perf_counter() - t0,
    )


def _fmt_saved(row: pd.Series) -> str:
    m, lo, hi = row["topics_saved"], row["topics_saved_lo"], row["topics_saved_hi"]
    if not math.isfinite(m):
        return "topics saved not estimable (a held-out half gives Φ no target reach)"
    return f"saves {m:.0f} [{lo:.0f}, {hi:.0f}] topics"
