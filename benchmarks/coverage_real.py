"""Coverage of the bootstrap intervals on real IR score distributions (docs/gtheory.md, "Coverage on real IR scores").

Population resampling: a large real systems x topics score matrix is the *population*; many samples of
``n_s`` systems x ``n_t`` topics are drawn from it, each sample is bootstrapped
(``gstudy(x).bootstrap(n_resamples=B, over=..., seed=m, n_topics=50)``; ``--over auto`` by default here, ``--over both`` is the
package's default since these measurements; expanded basic interval) and
the share of samples whose 95 % interval contains the population's own quantity is counted, for
σ²(s), σ²(t), σ²(st,e), Φ(50), Eρ²(50) and the topics needed for Φ ≥ .95 — for the default (basic),
the percentile and the bias-corrected interval.

The truth (:func:`population_truth`), for each of the two designs (``--design both``, the default, runs both):

* ``--design without`` (systems and topics drawn *without* replacement, as a real collection
  is a subset of distinct systems and topics): the ANOVA components of the full population matrix
  (``gtheory.gstudy(population)``). For a finite crossed population sampled without replacement
  in both facets (Cornfield & Tukey 1956) E MS_st = S²_st, E MS_s = n_t S²_s + (1 − n_t/N_t) S²_st,
  E MS_t = n_s S²_t + (1 − n_s/N_s) S²_st (S² with N − 1 divisors), so the sample's ANOVA estimates
  have expectations S²_s − S²_st/N_t, S²_t − S²_st/N_s, S²_st — exactly the population matrix's own
  ANOVA estimates. These are therefore the quantities the sample estimators are unbiased for (checked
  by enumerating every subsample of a small matrix in tests/test_gtheory_gstudy_bootstrap_real.py). Φ(50),
  Eρ²(50) and the topics needed are the same functions of these components. The intervals assume
  infinite populations; the sampling fractions n/N (printed) make the true sampling variance smaller
  than they assume, so coverage above 95 % is expected there from that alone.
* ``--design with`` (drawn *with* replacement: an infinite population whose systems and topics are
  the population's, each equally likely — the exchangeable array of McCullagh 2000): the components of
  that array, σ²(st) = (N_s−1)(N_t−1)/(N_s N_t) S²_st, σ²(s) = (N_s−1)/N_s (σ̂²(s) + S²_st/N_t),
  σ²(t) likewise (the population's ANOVA estimates σ̂², the same formulas as the boot-p,i expectations in
  gtheory.gstudy.bootstrap). The random-effects model then holds exactly but for the shape of the score
  distribution: this design isolates the effect of bounded, skewed, discrete scores.

Populations: Robust 2004 AP and P@10 (110 x 249), Web 2010 nDCG@20 (88 x 48) — the score matrices of Urbano &
Nagler (SIGIR 2018), read from ``../shared/data/score-matrices/sigir2018-simulation`` or ``--data DIR`` — and
TREC-9 Web nDCG@20 (104 x 50) from the judged-grade tensor shipped with the package. Run from the repository root::

    python benchmarks/coverage_real.py              # 1000 samples x B = 1000 per cell, a few minutes on one core
    python benchmarks/coverage_real.py --quick      # 60 samples x B = 200: seconds, a smoke run
    python benchmarks/coverage_real.py --over both  # the same with boot-p,i (Brennan's procedure for σ²(st))

Prints one Markdown table (the one in docs/gtheory.md) and writes ``benchmarks/results/coverage_real.txt``
(``coverage_real_<over>.txt`` for another procedure).
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

import gtheory
from gtheory.gstudy.bootstrap import _derived
from gtheory.gstudy.bootstrap_result import QUANTITIES

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "score-matrices" / "sigir2018-simulation"
RESULTS = Path(__file__).resolve().parent / "results"
#: label -> file stem of the populations (topics x systems CSVs of the SIGIR 2018 simulation data); "trec9:ndcg20"
#: is nDCG@20 of the TREC-9 Web judged-grade tensor shipped with the package (``metrics.load_trec9()``)
POPULATIONS = {"Robust 2004 AP": "robust2004_ap", "Robust 2004 P@10": "robust2004_p10",
               "Web 2010 nDCG@20": "web2010_ndcg20", "TREC-9 nDCG@20": "trec9:ndcg20"}
KINDS = ("basic", "percentile", "bias_corrected")
N_TOPICS, TARGET = 50, 0.95


def load_population(stem: str, data: Path = DATA) -> NDArray[np.float64]:
    """The systems x topics matrix of ``<data>/<stem>.csv`` (a topics x systems CSV with a ``topic`` column), or for
    ``"trec9:ndcg20"`` nDCG@20 of the TREC-9 judged-grade tensor shipped with the package."""
    import pandas as pd

    if stem == "trec9:ndcg20":
        import metrics

        return metrics.ndcg(metrics.load_trec9(), cutoff=20).to_numpy(dtype=np.float64)

    path = Path(data) / f"{stem}.csv"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: score matrix not found (give its folder with --data).")
    frame = pd.read_csv(path)
    if "topic" in frame.columns:
        frame = frame.set_index("topic")
    x = frame.T.to_numpy(dtype=np.float64)
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{path}: the population matrix has missing or non-finite scores.")
    return x


def population_truth(x: NDArray[np.float64], replace: bool = False, n_topics: float = N_TOPICS,
                     target: float = TARGET) -> NDArray[np.float64]:
    """The true (σ²(s), σ²(t), σ²(st), Φ(n), Eρ²(n), topics needed for Φ ≥ target) of samples from the
    population ``x`` (module docstring): its ANOVA components for sampling without replacement, the
    components of its exchangeable array (N − 1 → N divisors) for sampling with replacement."""
    n_s, n_t = x.shape
    g = gtheory.gstudy(x)
    vs, vt, ve = g.var_system_raw, g.var_topic_raw, g.var_residual_raw
    if replace:
        vs, vt, ve = ((n_s - 1) / n_s * (vs + ve / n_t), (n_t - 1) / n_t * (vt + ve / n_s),
                      (n_s - 1) * (n_t - 1) / (n_s * n_t) * ve)
    return _derived(*(np.array(v) for v in (vs, vt, ve)), float(n_topics), target)


def coverage(x: NDArray[np.float64], n_s: int, n_t: int, n_samples: int, B: int, seed: int,
             replace: bool = False, n_topics: float = N_TOPICS, target: float = TARGET,
             over: str = "auto") -> dict[str, NDArray[np.float64]]:
    """Coverage of the 95 % intervals over ``n_samples`` samples of ``n_s`` x ``n_t`` from ``x``.

    Returns ``{kind: shares (6,)}`` for :data:`KINDS` plus ``"basic_below"``/``"basic_above"`` (share of
    samples whose default interval lies wholly below / above the truth), ``"truth"`` and ``"phi_width"`` (median
    length of the basic interval of Φ(n)). Sample ``m``
    is bootstrapped (procedure ``over``, default the package's) with ``seed=m``; the samples are drawn from
    ``default_rng([seed, n_s, n_t, replace])``."""
    N_s, N_t = x.shape
    if not replace and (n_s > N_s or n_t > N_t):
        raise ValueError(f"a {n_s} x {n_t} sample without replacement from a {N_s} x {N_t} population.")
    truth = population_truth(x, replace, n_topics, target)
    rng = np.random.default_rng([seed, n_s, n_t, int(replace)])
    hits = {k: np.zeros(len(QUANTITIES)) for k in KINDS}
    below, above = np.zeros(len(QUANTITIES)), np.zeros(len(QUANTITIES))
    width = np.empty(n_samples)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gtheory.NegativeVarianceWarning)
        for m in range(n_samples):
            rows = rng.choice(N_s, n_s, replace=replace)
            cols = rng.choice(N_t, n_t, replace=replace)
            b = gtheory.gstudy(x[np.ix_(rows, cols)]).bootstrap(n_resamples=B, over=over, seed=m, n_topics=n_topics,
                                                               target=target)
            for k, (lo, hi) in zip(KINDS, ((b.basic_low, b.basic_high), (b.percentile_low, b.percentile_high),
                                           (b.bc_low, b.bc_high))):
                hits[k] += (np.array(lo) <= truth) & (truth <= np.array(hi))
            width[m] = b.basic_high[3] - b.basic_low[3]
            below += np.array(b.basic_high) < truth
            above += np.array(b.basic_low) > truth
    out = {k: v / n_samples for k, v in hits.items()}
    out.update(basic_below=below / n_samples, basic_above=above / n_samples, truth=truth,
               phi_width=np.array([np.median(width)]))
    return out


def _cell(v: NDArray[np.float64]) -> str:
    return " / ".join(f"{c:.3f}".lstrip("0") if c < 1 else "1.0" for c in v)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=1000, help="samples per population and size (default 1000)")
    ap.add_argument("--B", type=int, default=1000, help="bootstrap resamples per sample (default 1000)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--design", choices=("without", "with", "both"), default="both",
                    help="sampling without / with replacement from the population (default both)")
    ap.add_argument("--over", choices=("auto", "systems", "topics", "both"), default="auto",
                    help="bootstrap procedure (default auto; the package's default is both)")
    ap.add_argument("--data", type=Path, default=DATA, help="folder of the score-matrix CSVs")
    ap.add_argument("--quick", action="store_true", help="60 samples, B = 200 (a smoke run, ±6 points)")
    ap.add_argument("--no-write", action="store_true", help=f"do not write {RESULTS.name}/coverage_real.txt")
    a = ap.parse_args(argv)
    if a.quick:
        a.samples, a.B = 60, 200
    designs = {"without": (False,), "with": (True,), "both": (False, True)}[a.design]
    sizes = ((30, 50), (20, 25))
    lines = [f"over={a.over!r}, {a.samples} samples per row, B = {a.B}, seed {a.seed}; "
             f"cells: σ²(s) / σ²(t) / σ²(st,e) / Φ(50) / Eρ²(50) / topics needed for Φ ≥ .95; "
             f"binomial SE of one share ≈ "
             f"{math.sqrt(.95 * .05 / a.samples):.3f}", "",
             "| population (N_s × N_t) | sample | draw | basic (the default interval) | percentile | bias-corrected "
             "| basic: interval below truth | basic: above truth | median length, basic Φ(50) |",
             "|---|---|---|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    t0, cpu0 = time.perf_counter(), time.process_time()
    for label, stem in POPULATIONS.items():
        x = load_population(stem, a.data)
        for replace in designs:
            for n_s, n_t in sizes:
                if not replace and (n_s >= x.shape[0] or n_t >= x.shape[1]):   # a census is no sample
                    continue
                c = coverage(x, n_s, n_t, a.samples, a.B, a.seed, replace, over=a.over)
                frac = "with repl." if replace else f"without ({n_s / x.shape[0]:.0%}, {n_t / x.shape[1]:.0%})"
                row = (f"| {label} ({x.shape[0]} × {x.shape[1]}) | {n_s} × {n_t} | {frac} | {_cell(c['basic'])} | "
                       f"{_cell(c['percentile'])} | {_cell(c['bias_corrected'])} | {_cell(c['basic_below'])} | "
                       f"{_cell(c['basic_above'])} | {c['phi_width'][0]:.3f} |")
                lines.append(row)
                print(row, flush=True)
    truths = ["", "Truth (without replacement: the population ANOVA; with: its exchangeable array):"]
    for label, stem in POPULATIONS.items():
        x = load_population(stem, a.data)
        for replace in designs:
            t = population_truth(x, replace)
            truths.append(f"  {label:<18} {'with' if replace else 'without':<8} σ²(s) {t[0]:.5g}  "
                          f"σ²(t) {t[1]:.5g}  σ²(st) {t[2]:.5g}  Φ(50) {t[3]:.4f}  Eρ²(50) {t[4]:.4f}  "
                          f"topics needed {t[5]:g}")
    truths.append(f"\nwall {time.perf_counter() - t0:.0f} s, CPU {time.process_time() - cpu0:.0f} s "
                  f"(OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')})")
    print("\n".join(truths))
    lines += truths
    if not a.no_write and not a.quick:
        RESULTS.mkdir(exist_ok=True)
        name = "coverage_real.txt" if a.over == "auto" else f"coverage_real_{a.over}.txt"
        tmp = RESULTS / f".{name}.tmp"
        tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
        os.replace(tmp, RESULTS / name)


if __name__ == "__main__":
    sys.exit(main())
