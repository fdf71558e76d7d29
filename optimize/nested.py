r"""Keep your nDCG or switch? A two-tier rule against the user's baseline.

**Tier 1** (:mod:`optimize.recommend_fixed`): the fixed configurations (the other standards) are compared with the
baseline on *all* topics by a paired topic bootstrap of the Φ(1) difference, Bonferroni over the standards; the best
one whose corrected lower bound is above 0 becomes the *reference* (else the baseline). **Tier 2** (this module): the
nested cross-validation below, its selection among the reference and the tuned candidates only, each tuned candidate
judged against the reference — a tuned vector is adopted only over tier 1's choice, on held-out evidence. The
verdict says which tier decided (:mod:`optimize.recommend_verdict`). In what follows, "the baseline" of tier 2 is
the reference.

:func:`recommend` starts from a **baseline** — the nDCG the user would use without the tool, by default
trec_eval's (linear gains, log2 discount) — and treats every other configuration as a *switch* that must earn
its place on topics that took no part in choosing or fitting it:

* the other **standard configurations** (:data:`optimize.STANDARD_CONFIGS`: log2, zipf, linear discounts;
  linear, exponential gains),
* the **tuned families** (:mod:`optimize.families`: one or two parameters),
* the **regularised full vectors** (:mod:`optimize.regularised`, λ on a grid; λ = 0 is today's tuner).

Procedure, per seed (Varma & Simon 2006; Cawley & Talbot 2010). Outer loop: ``n_splits`` random halvings
of the topics (:func:`gtheory.kit.topic_splits`) into a fitting part :math:`A_b` and a held-out part
:math:`B_b`. Every tuned candidate is fitted on :math:`A_b` and every candidate scored by Φ(1) on :math:`B_b`
(:math:`\phi_{cb}`). Inner loop (the *selection*): ``n_inner`` random halvings of :math:`A_b` only; the
candidate with the best mean inner held-out Φ(1) is found and the simplest candidate within one standard
error of it is chosen (the one-standard-error rule, Hastie, Tibshirani & Friedman 2009, §7.10; the baseline
is the simplest, then the other standards, 1-parameter families, 2-parameter, regularised vectors by
decreasing λ). :math:`d_b = \phi_{\mathrm{sel}(b), b} - \phi_{0b}` is the honest out-of-sample gain of the
*whole switching procedure* over the baseline (0 on a split where it keeps). The final choice :math:`c^*`
is the same selection run on all topics.

The rule. A seed switches to :math:`c^* \ne` baseline only if

1. the procedure's mean held-out gain has a positive lower bound: :math:`\bar d - t_{J-1,\,(1+\ell)/2}\,
   \sqrt{(1/J + n_{test}/n_{fit})\,s_d^2} > 0`, the corrected resampled t interval of Nadeau & Bengio (2003)
   for :math:`J` overlapping random splits at level :math:`\ell` (``level``, 0.95);
2. :math:`c^*` itself beats the baseline on at least ``min_wins`` (80 %) of the outer splits, and
3. on average by more than ``min_effect`` (default 0).

The procedure is run with ``n_seeds`` (5) independent seeds; :func:`recommend` switches only when at least
``min_agreement`` (75 %: 4 of 5) of them make the same switch, and otherwise keeps the baseline — its
configuration and nDCG exactly. With fewer than :data:`MIN_SPLITS` outer splits it does not decide.

Why this rule. (1) is a statement about the procedure that will actually be applied — choose among all
alternatives on these topics, then switch — not about the best-looking candidate, whose outer score is
selected after the fact and so is optimistic; the correction term :math:`n_{test}/n_{fit}` keeps the interval
honest although the random halvings overlap (the naive t interval is far too narrow). (2) guards against a
mean carried by one or two splits. The seed majority makes the decision a property of the data, not of one
random partition. Each guard errs toward keeping: a wrong keep costs the user what they had, a wrong switch
costs stability and comparability with published numbers. The false-switch rate and the share of real gains
captured are measured by simulation on three collections in docs/should-i-tune.md
(``benchmarks/calibrate_recommend.py``).

The reported gain is the procedure's pooled over all seeds' outer splits: mean held-out Φ(1) difference with
its corrected interval, shown on the Φ(n) scale at the collection's own topic count through
:math:`\Phi(n) = n\rho/(1+n\rho)`, :math:`\rho = \Phi(1)/(1-\Phi(1))` (monotone, so the interval maps
endpoint by endpoint), and as topics saved for Φ ≥ ``target``.

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
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import special

import metrics
from metrics import JudgedRuns
from gtheory.kit.checks import check_progress

from gtheory.kit.errors import ParameterError
from gtheory.kit.ties import TIE_REL
from gtheory.kit.splits import topic_splits

from ._ratio import JointModel, RatioModel, coefficients, topics_needed
from .candidates import FIT_TOL, JOINT_ROUNDS, LAMBDAS, Candidate, _candidates  # noqa: F401
from .candidates import _jsonable_spec, _use_spec, _vectors_of
from .families import FAMILIES, tuning_from_vector
from .objective import Problem
from .recommendation import Recommendation
from .recommend_fixed import FIXED_STREAM, N_RESAMPLES, FixedDecision, fixed_index, standard_indices, tier_one  # noqa: F401
from .recommend_verdict import PHI_MEANING, tier_reason as _tier_reason, verdict as _verdict_text
from ._threads import single_threaded_blas
from gtheory.kit.params import REQUIRED_CUTOFF, integer, validate_params

__all__ = ["recommend", "LAMBDAS", "MIN_SPLITS", "corrected_interval", "topics_to_decide"]

#: seconds before the progress bar appears (work shorter than this shows none)
_PROGRESS_DELAY = 2.0

#: fewer outer splits per seed than this cannot decide: the baseline is kept and the verdict says so
MIN_SPLITS = 5


def corrected_interval(diffs: NDArray, n_test: int, n_fit: int, level: float = 0.95) -> tuple[float, float, float]:
    r"""``(mean, lo, hi)`` of paired differences over ``J`` overlapping random splits: the corrected
    resampled t interval of Nadeau & Bengio (2003), variance :math:`(1/J + n_{test}/n_{fit})\,s^2`."""
    d = np.asarray(diffs, dtype=np.float64)
    J = d.size
    m = float(d.mean()) if J else math.nan
    if J < 2 or not np.all(np.isfinite(d)):
        return m, math.nan, math.nan
    se = math.sqrt((1.0 / J + n_test / n_fit) * float(d.var(ddof=1)))
    q = float(special.stdtrit(J - 1, 0.5 + level / 2))  # the t quantile; scipy.special, not the heavy scipy.stats import
    return m, m - q * se, m + q * se


def _select(model, cands: list[Candidate], pool: NDArray, splits: list, objective: str,
            allowed: list[int] | None = None) -> tuple[int, NDArray]:
    """Index of the candidate the inner cross-validation on ``pool`` chooses (one-SE rule) among ``allowed``
    (default all), and the inner held-out Φ(1) matrix (candidates × inner splits). ``splits`` are the inner
    :func:`gtheory.kit.topic_splits` of ``pool`` (positions in ``pool``), drawn by :func:`_plan_seed`."""
    S = np.empty((len(cands), len(splits)))
    for i, (a, b) in enumerate(splits):
        xs = np.stack([c.fit(pool[a])[0] for c in cands])
        S[:, i] = coefficients(model.scores(xs, pool[b]), objective)["phi_1"]
    n_fit = len(splits[0][0])
    return _one_se(cands, S, len(pool) - n_fit, n_fit, allowed), S


def _one_se(cands: list[Candidate], S: NDArray, n_test: int, n_fit: int, allowed: list[int] | None = None) -> int:
    allowed = list(range(len(cands))) if allowed is None else list(allowed)
    means = S.mean(axis=1)
    best = max(allowed, key=lambda c: (means[c], -c))
    J = S.shape[1]
    eligible = []
    for c in allowed:
        d = S[c] - S[best]
        se = math.sqrt((1.0 / J + n_test / n_fit) * float(d.var(ddof=1))) if J > 1 else 0.0
        if means[c] >= means[best] - se:
            eligible.append(c)
    return min(eligible, key=lambda c: (cands[c].complexity, -means[c]))


def _wins(d: np.ndarray) -> int:
    """Outer splits on which a candidate beats the reference: held-out Φ(1) higher by more than rounding
    (:data:`gtheory.kit.ties.TIE_REL`), so that a candidate equal to it (a family fitted at the reference's
    parameter) never wins by noise."""
    return int((np.asarray(d) > TIE_REL).sum())


def seed_list(seed: int | np.random.Generator | None, n_seeds: int) -> list:
    """The seeds of the reseeded procedure: ``seed`` itself first (so its outer splits are those of
    :func:`optimize.cross_validate` with the same seed), then ``n_seeds - 1`` children of
    ``numpy.random.SeedSequence(seed)`` (of the generator's, for a Generator)."""
    if isinstance(seed, np.random.Generator):
        return [seed, *_spawn(seed, n_seeds - 1)]
    ss = np.random.SeedSequence(seed)
    return [seed if seed is not None else ss, *ss.spawn(n_seeds - 1)]


def _spawn(gen: np.random.Generator, n: int) -> list[np.random.Generator]:
    """``gen.spawn(n)``: ``n`` independent child generators of ``gen``'s seed sequence. ``Generator.spawn`` is NumPy
    1.25's; before, the same children are built from the bit generator's seed sequence (what ``spawn`` does), so a
    Generator gives the same streams on every supported NumPy."""
    if hasattr(gen, "spawn"):
        return list(gen.spawn(n))
    bg = gen.bit_generator  # pragma: no cover - NumPy < 1.25 (the minimum-versions pass of .ci/run)
    return [np.random.Generator(type(bg)(s)) for s in bg._seed_seq.spawn(n)]  # pragma: no cover


@dataclass
class _SeedRun:
    """One seed's nested cross-validation: held-out Φ(1) (splits × candidates), ratios, fitted labels, the inner
    selection per split, the final selection on all of ``pool`` and its inner Φ(1)."""

    phi: NDArray
    ratio: NDArray
    labels: list[list[str]]
    selected: NDArray
    final: int
    inner: NDArray
    n_fit: int
    n_test: int


def _plan_seed(pool: NDArray, seed, n_splits: int, n_inner: int) -> list[tuple[NDArray, NDArray | None, list]]:
    """One seed's splits, drawn in one stream from ``numpy.random.default_rng(seed)``: the ``n_splits`` outer
    halvings of ``pool`` (:func:`gtheory.kit.topic_splits`, so the same as :func:`optimize.cross_validate`'s with
    this seed), then each fitting half's ``n_inner`` inner halvings, then the final selection's inner halvings of
    all of ``pool``. Returns the tasks ``(fitting topics, held-out topics or None for the final selection, inner
    splits)``; the fits draw no random numbers, so a task's result depends only on the task."""
    rng = np.random.default_rng(seed)
    outer = topic_splits(len(pool), n_splits=n_splits, seed=rng)
    tasks: list[tuple[NDArray, NDArray | None, list]] = []
    for a, h in outer:
        A = pool[a]
        tasks.append((A, pool[h], topic_splits(len(A), n_splits=n_inner, seed=rng)))
    tasks.append((pool, None, topic_splits(len(pool), n_splits=n_inner, seed=rng)))
    return tasks


def _run_task(model, cands: list[Candidate], task: tuple, objective: str, allowed: list[int] | None = None) -> tuple:
    """One outer split: ``(selected, held-out Φ(1) per candidate, ratio per candidate, labels)``; or, for the final
    selection (no held-out part), ``(final, inner Φ(1) matrix)``. The selection is among ``allowed``."""
    A, B, inner = task
    sel, S = _select(model, cands, A, inner, objective, allowed)
    if B is None:
        return sel, S
    fits = [c.fit(A) for c in cands]
    co = coefficients(model.scores(np.stack([x for x, _ in fits]), B), objective)
    return sel, co["phi_1"], co["r"], [lab for _, lab in fits]


def _assemble_seed(results: list[tuple], n_fit: int, n_test: int) -> _SeedRun:
    *outer, (final, inner) = results
    return _SeedRun(phi=np.array([r[1] for r in outer]), ratio=np.array([r[2] for r in outer]),
                    labels=[r[3] for r in outer], selected=np.array([r[0] for r in outer], dtype=int),
                    final=int(final), inner=inner, n_fit=n_fit, n_test=n_test)


def _run_seed(model, cands: list[Candidate], pool: NDArray, seed, n_splits: int, n_inner: int,
              objective: str, step: Callable[[], None], allowed: list[int] | None = None) -> _SeedRun:
    """One seed's nested cross-validation, here (:func:`_run_seeds` spreads the same tasks over processes)."""
    plan = _plan_seed(pool, seed, n_splits, n_inner)
    results = []
    for task in plan:
        results.append(_run_task(model, cands, task, objective, allowed))
        step()
    return _assemble_seed(results, len(plan[0][0]), len(pool) - len(plan[0][0]))


#: what the forked workers of :func:`_run_seeds` read (set just before the fork, cleared after)
_SHARED: tuple | None = None


def _task_worker(i: int) -> tuple[tuple, list[list[str]]]:
    model, cands, tasks, objective, allowed = _SHARED
    for c in cands:
        c.failures.clear()
    out = _run_task(model, cands, tasks[i], objective, allowed)
    return out, [list(c.failures) for c in cands]


def _run_seeds(model, cands, pool, seeds, n_splits, n_inner, objective, step, n_jobs: int,
               allowed: list[int] | None = None) -> list[_SeedRun]:
    """The seeds' runs. With ``n_jobs`` > 1 every outer split of every seed (and each seed's final selection) is one
    task of a pool of ``n_jobs`` forked processes — ``n_seeds × (n_splits + 1)`` tasks of about equal size, so the
    processes stay busy to the end (5 seeds on 2 processes as whole seeds would leave one idle for a fifth of the
    time). The splits are all drawn here first (:func:`_plan_seed`), the precomputed matrices are shared by the
    fork, not copied, and a task's result does not depend on where it runs: any ``n_jobs`` gives the same runs."""
    import multiprocessing as mp

    if int(n_jobs) <= 1 or "fork" not in mp.get_all_start_methods():
        return [_run_seed(model, cands, pool, s, n_splits, n_inner, objective, step, allowed) for s in seeds]
    plans = [_plan_seed(pool, s, n_splits, n_inner) for s in seeds]
    tasks = [t for plan in plans for t in plan]
    global _SHARED
    _SHARED = (model, cands, tasks, objective, allowed)
    try:
        with mp.get_context("fork").Pool(min(int(n_jobs), len(tasks))) as workers:
            results = []
            for out, failures in workers.imap(_task_worker, range(len(tasks))):
                results.append(out)
                for c, f in zip(cands, failures):
                    c.failures.extend(f)
                step()
    finally:
        _SHARED = None
    per, n_fit = n_splits + 1, len(tasks[0][0])
    return [_assemble_seed(results[i * per:(i + 1) * per], n_fit, len(pool) - n_fit) for i in range(len(seeds))]


@dataclass
class Decision:
    """The rule's outcome on one pool of topics (what :func:`recommend` reports, and what the calibration in
    ``benchmarks/calibrate_recommend.py`` scores on the other topics)."""

    adopt: bool
    decided: bool
    index: int  # the candidate to use (0: the baseline)
    alternative: int  # the candidate the evidence is about
    seed_decisions: list[str]
    agreement: int
    diff: float
    lo: float
    hi: float
    wins: int
    n_outer: int
    p0: float  # pooled held-out Φ(1) of the reference
    runs: list[_SeedRun]
    reference: int = 0  # tier 2's reference: the configuration tier 1 chose (0: the baseline)
    fixed: FixedDecision | None = None  # tier 1's outcome (None: the nested rule alone, as the calibration's tier 2)
    tier: int = 1  # 1: the configuration to use is the one tier 1 chose (the baseline when keeping); 2: a tuned one


def _seed_decision(run: _SeedRun, cands: list[Candidate], min_wins: float, min_effect: float,
                   level: float, ref: int = 0) -> str:
    """One seed's decision: the name of the candidate to switch to, or ``"keep"`` (keep the reference ``ref``:
    module docstring's rule)."""
    c = run.final
    if c == ref:
        return "keep"
    J = run.phi.shape[0]
    proc = run.phi[np.arange(J), run.selected] - run.phi[:, ref]
    _, lo, _ = corrected_interval(proc, run.n_test, run.n_fit, level)
    e = run.phi[:, c] - run.phi[:, ref]
    ok = (math.isfinite(lo) and lo > 0 and _wins(e) >= math.ceil(min_wins * J - 1e-9)
          and float(e.mean()) > max(min_effect, TIE_REL))
    return cands[c].name if ok else "keep"


def tuned_allowed(cands: list[Candidate], reference: int) -> list[int]:
    """Tier 2's selection set: the reference (tier 1's choice) and the tuned candidates (families, vectors) — the
    other fixed configurations were decided by tier 1 on all topics."""
    return [reference] + [i for i, c in enumerate(cands) if c.kind not in ("baseline", "standard")]


def decide(model, cands: list[Candidate], pool: NDArray, seeds: list, *, n_splits: int, n_inner: int,
           objective: str, min_wins: float, min_effect: float, min_agreement: float, level: float,
           step: Callable[[], None] = lambda: None, n_jobs: int = 1, reference: int = 0,
           allowed: list[int] | None = None) -> Decision:
    """Run the reseeded nested cross-validation on the topics ``pool`` of ``model`` and apply the switching rule
    against ``reference`` (tier 2: a tuned candidate must beat tier 1's choice), the selection among ``allowed``
    (default: all candidates, the nested rule alone)."""
    runs = _run_seeds(model, cands, pool, seeds, n_splits, n_inner, objective, step, n_jobs, allowed)
    ref = int(reference)
    decisions = [_seed_decision(r, cands, min_wins, min_effect, level, ref) for r in runs]
    names = [c.name for c in cands]
    counts = {d: decisions.count(d) for d in dict.fromkeys(decisions)}
    top = max(counts, key=lambda d: (counts[d], d == "keep"))  # a tie goes to keep
    decided = n_splits >= MIN_SPLITS
    need = math.ceil(min_agreement * len(seeds) - 1e-9)
    adopt = decided and top != "keep" and counts[top] >= need
    index = names.index(top) if adopt else ref
    agreement = counts[top] if adopt else counts.get("keep", 0)
    # the evidence: the adopted candidate; when keeping, what the seeds' final selections preferred
    pick = [c for c in (range(len(cands)) if allowed is None else allowed) if c != ref]
    if adopt:
        alt = index
    else:
        finals = [r.final for r in runs if r.final != ref]
        phi = np.concatenate([r.phi for r in runs])
        alt = (max(set(finals), key=lambda c: (finals.count(c), -c)) if finals
               else (max(pick, key=lambda c: (phi[:, c].mean(), -c)) if pick else ref))
    proc = np.concatenate([r.phi[np.arange(len(r.selected)), r.selected] - r.phi[:, ref] for r in runs])
    m, lo, hi = corrected_interval(proc, runs[0].n_test, runs[0].n_fit, level)
    e = np.concatenate([r.phi[:, alt] - r.phi[:, ref] for r in runs])
    p0 = float(np.concatenate([r.phi[:, ref] for r in runs]).mean())
    return Decision(adopt=bool(adopt), decided=decided, index=index, alternative=alt, seed_decisions=decisions,
                    agreement=int(agreement), diff=m, lo=lo, hi=hi, wins=_wins(e), n_outer=len(proc), p0=p0,
                    runs=runs, reference=ref, tier=2 if adopt else 1)


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
    families : the tuned families (default all of :data:`optimize.families.FAMILIES` ``[what]``; the
        discount families for ``"joint"``).
    lambdas : penalty strengths of the regularised full-vector candidates (0 = unregularised).
    penalty : ``"ridge"`` or ``"smooth"`` (:func:`optimize.optimize_regularised`).
    min_wins : share of a seed's outer splits the chosen alternative must win against the baseline (default 0.8).
    min_agreement : share of the seeds that must reach the same switch (default 0.75: 4 of 5).
    min_effect : the chosen alternative's mean held-out Φ(1) gain over the baseline must exceed this (default 0).
    level : confidence level of the interval whose lower bound must be positive (default 0.95).
    n_resamples : paired topic resamples of tier 1 (default :data:`optimize.recommend_fixed.N_RESAMPLES`, 4,000).
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
    Tier 1 (:mod:`optimize.recommend_fixed`) compares the other standard configurations with the baseline on all
    topics (paired topic bootstrap of the Φ(1) difference, the lower end of its 95 % interval Bonferroni-corrected
    over the standards) and chooses the reference: the best standard whose bound is above 0, else the baseline.
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
    with single_threaded_blas():  # many small BLAS calls: threads only cost hand-offs (optimize._threads)
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


def combine(dec: Decision, fixed: FixedDecision) -> Decision:
    """The whole rule: tier 2's decision ``dec`` (against tier 1's choice, ``dec.reference``) with tier 1's
    ``fixed``: a tuned candidate tier 2 adopts (tier 2), else tier 1's choice (tier 1; the baseline when keeping)."""
    dec.fixed = fixed
    if dec.adopt:
        dec.tier = 2
    elif dec.decided and dec.reference != 0:
        dec.adopt, dec.index, dec.tier = True, dec.reference, 1
    else:
        dec.tier = 1
    return dec


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
    for col in ("all_topics_diff", "all_topics_lo", "all_topics_hi", "all_topics_share"):
        table[col] = math.nan
    if fixed is not None:  # tier 1's evidence, on all topics, for the fixed configurations
        for j, i in enumerate(standard_indices(cands)):
            table.loc[names[i], ["all_topics_diff", "all_topics_lo", "all_topics_hi", "all_topics_share"]] = (
                float(fixed.diff[j]), float(fixed.lo[j]), float(fixed.hi[j]), float(fixed.share[j]))
    failed = [c for c in cands if c.failures]
    if failed:  # optimiser failures are reported, not hidden: the scores are those of the points reached
        import warnings

        from .result import OptimizationWarning

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


