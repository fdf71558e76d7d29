r"""Keep your nDCG or switch? A two-tier rule against the user's baseline.

**Tier 1** (:mod:`optimize.recommend.fixed`): the fixed configurations (the other standards) are compared with the
baseline on *all* topics by a studentised topic-swap randomisation test of the Φ(1) difference, Bonferroni over the
standards; the best one that passes becomes the *reference* (else the baseline). **Tier 2** (this module): the
nested cross-validation below, its selection among the reference and the tuned candidates only, each tuned candidate
judged against the reference — a tuned vector is adopted only over tier 1's choice, on held-out evidence. The
verdict says which tier decided (:mod:`optimize.recommend.verdict`). In what follows, "the baseline" of tier 2 is
the reference.

:func:`recommend` starts from a **baseline** — the nDCG the user would use without the tool, by default
trec_eval's (linear gains, log2 discount) — and treats every other configuration as a *switch* that must earn
its place on topics that took no part in choosing or fitting it:

* the other **standard configurations** (:data:`optimize.STANDARD_CONFIGS`: log2, zipf, linear discounts;
  linear, exponential gains),
* the **tuned families** (:mod:`optimize.solvers.families`: one or two parameters),
* the **regularised full vectors** (:mod:`optimize.solvers.regularised`, λ on a grid; λ = 0 is today's tuner).

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
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from numpy.typing import NDArray
from scipy import special

from gtheory.kit.checks import check_progress
from gtheory.kit.ties import TIE_REL
from gtheory.kit.splits import topic_splits

from ..solvers import coefficients
from .candidates import Candidate
from .fixed import FixedDecision

__all__ = ["decide", "combine", "Decision", "MIN_SPLITS", "corrected_interval", "seed_list", "tuned_allowed"]

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


