"""Benchmark: REML with missing cells (direct profiled REML vs statsmodels MixedLM) and the bootstrap
(resampling counts vs copies of the resampled matrices).

Run:  python benchmarks/bench_unbalanced.py  [--out benchmarks/results/unbalanced.txt]

Same matrix, same process, same cores for every contender: TREC Web 2010 nDCG@20 (88 systems x
48 topics, from the shared sigir2018-simulation score matrices; a seeded random matrix if absent)
with 20 % of the cells removed at random (seed 2). CPU (process time) and wall time per call,
median of 5 rounds with min-max, reported as ratios. The script also checks that the numbers agree.
statsmodels gets its long DataFrame prepared outside the timed region.
"""
from __future__ import annotations

import argparse
import platform
import statistics
import time
import warnings
from pathlib import Path

import numpy as np

import gtheory
from gtheory.gstudy.bootstrap import _counts_of, _weighted_components
from gtheory.gstudy.reml import reml_components

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "score-matrices" / "sigir2018-simulation" / "web2010_ndcg20.csv"


def timed(fn, rounds: int = 5) -> tuple[list[float], list[float]]:
    """(wall, cpu) seconds of ``rounds`` calls."""
    wall, cpu = [], []
    for _ in range(rounds):
        w, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return wall, cpu


def line(name: str, wall: list[float], cpu: list[float]) -> str:
    return (f"{name:<44} wall {statistics.median(wall) * 1e3:9.2f} ms [{min(wall) * 1e3:.2f}-{max(wall) * 1e3:.2f}]"
            f"   cpu {statistics.median(cpu) * 1e3:9.2f} ms [{min(cpu) * 1e3:.2f}-{max(cpu) * 1e3:.2f}]")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "unbalanced.txt"))
    args = ap.parse_args(argv)
    import pandas as pd
    import statsmodels.formula.api as smf

    if DATA.exists():
        x = gtheory.read_scores(DATA, orientation="topics-by-systems").to_numpy().copy()
        source = f"{DATA.name} (88 x 48)"
    else:  # pragma: no cover
        rng = np.random.default_rng(0)
        x = rng.normal(0, .05, (88, 1)) + rng.normal(0, .14, (1, 48)) + rng.normal(0, .12, (88, 48))
        source = "random 88 x 48 (seed 0)"
    full = x.copy()
    x[np.random.default_rng(2).random(x.shape) < 0.2] = np.nan
    long = pd.DataFrame(x).stack().rename("score").reset_index().dropna()
    long.columns = ["system", "topic", "score"]
    long["g"] = 1

    out = [f"bench_unbalanced: {source}, 20 % of cells removed; {platform.processor() or platform.machine()}, "
           f"Python {platform.python_version()}", ""]

    ours = reml_components(x)[0]
    w_ours, c_ours = timed(lambda: reml_components(x))

    def sm_fit():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return smf.mixedlm("score ~ 1", long, groups="g", re_formula="0",
                               vc_formula={"system": "0 + C(system)", "topic": "0 + C(topic)"}).fit(reml=True)

    fit = sm_fit()
    w_sm, c_sm = timed(sm_fit, rounds=3)
    vc = dict(zip(fit.model.exog_vc.names, fit.vcomp))
    rel = max(abs(vc["system"] / float(ours.system) - 1), abs(vc["topic"] / float(ours.topic) - 1),
              abs(fit.scale / float(ours.residual) - 1))
    out += ["REML, crossed random effects with missing cells",
            line("gtheory direct profiled REML", w_ours, c_ours),
            line("statsmodels MixedLM (variance components)", w_sm, c_sm),
            f"  ratio statsmodels / gtheory: wall {statistics.median(w_sm) / statistics.median(w_ours):.0f}x, "
            f"cpu {statistics.median(c_sm) / statistics.median(c_ours):.0f}x;  max relative difference {rel:.1e}", ""]

    B = 1000
    rng = np.random.default_rng(1)
    rows, cols = rng.integers(0, 88, (B, 88)), rng.integers(0, 48, (B, 48))

    def by_counts():
        return _weighted_components(full, _counts_of(rows, 88), _counts_of(cols, 48))

    def by_copies():
        res = []
        for lo in range(0, B, 200):
            vc_ = gtheory.variance_components(full[rows[lo:lo + 200, :, None], cols[lo:lo + 200, None, :]])
            res.append(np.stack([vc_.system, vc_.topic, vc_.residual], -1))
        return np.concatenate(res)

    diff = float(np.max(np.abs(by_counts() - by_copies())))
    w_a, c_a = timed(by_counts)
    w_b, c_b = timed(by_copies)
    out += [f"boot-p,i, {B} resamples of the complete 88 x 48 matrix",
            line("resampling counts (three matrix products)", w_a, c_a),
            line("copies of the resampled matrices", w_b, c_b),
            f"  ratio copies / counts: wall {statistics.median(w_b) / statistics.median(w_a):.1f}x, "
            f"cpu {statistics.median(c_b) / statistics.median(c_a):.1f}x;  max abs difference {diff:.1e}"]
    text = "\n".join(out)
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
