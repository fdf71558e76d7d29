"""Benchmark: closed-form G-study vs statsmodels OLS + anova_lm on a 100 × 50 score matrix.

Run:  python benchmarks/bench_gstudy.py  [--out benchmarks/results/gstudy.txt]

All contenders are timed in the same run on the same matrix (Robust 2004 AP, first 100 systems ×
first 50 topics, from the sigir2018-simulation score matrices; a seeded random matrix if that
file is absent). statsmodels gets the long-format DataFrame prepared outside the timed region,
so its figure is the model fit + ANOVA table only. The script also checks that the numbers agree.
"""
from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
import timeit
import warnings
from pathlib import Path

import numpy as np

import gtheory

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "score-matrices" / "sigir2018-simulation" / "robust2004_ap.csv"


def best_per_call(fn, *, min_time: float = 0.3, repeat: int = 5) -> tuple[float, float]:
    """(min, median) seconds per call over ``repeat`` rounds of an auto-sized number of calls."""
    t = timeit.Timer(fn)
    number, _ = t.autorange()
    number = max(1, int(number * min_time / 0.2))
    times = [x / number for x in t.repeat(repeat=repeat, number=number)]
    return min(times), statistics.median(times)


def fmt(s: float) -> str:
    return f"{s * 1e6:10.1f} µs" if s < 1e-2 else f"{s * 1e3:10.2f} ms"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "gstudy.txt"))
    ap.add_argument("--batch", type=int, default=1000, help="matrices in the batched run")
    args = ap.parse_args(argv)

    import pandas as pd
    import statsmodels
    import statsmodels.api as sm
    from statsmodels.formula.api import ols

    if DATA.exists():
        X = gtheory.read_scores(DATA, orientation="topics-by-systems").iloc[:100, :50]
        source = f"{DATA.name}, first 100 systems x 50 topics"
    else:  # pragma: no cover
        X = pd.DataFrame(np.random.default_rng(0).random((100, 50)))
        source = "random 100 x 50 (seed 0)"
    x = X.to_numpy()
    long = X.rename_axis(index="system", columns="topic").stack().rename("score").reset_index()

    def sm_anova():
        return sm.stats.anova_lm(ols("score ~ C(system) + C(topic)", data=long).fit())

    # agreement first
    table = sm_anova()
    vc = gtheory.variance_components(x)
    g = gtheory.gstudy(X)
    rel = max(
        abs(vc.ms_system / table.loc["C(system)", "mean_sq"] - 1),
        abs(vc.ms_topic / table.loc["C(topic)", "mean_sq"] - 1),
        abs(vc.ms_residual / table.loc["Residual", "mean_sq"] - 1),
        abs(g.ms_system / table.loc["C(system)", "mean_sq"] - 1),
    )
    assert rel < 1e-10, rel

    rng = np.random.default_rng(1)
    batch = x[None] + rng.normal(0, 0.01, (args.batch, *x.shape))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_vc = best_per_call(lambda: gtheory.variance_components(x))
        t_phi = best_per_call(lambda: gtheory.phi_from_components(*gtheory.variance_components(x)[:3]))
        t_gs = best_per_call(lambda: gtheory.gstudy(x))
        t_gs_df = best_per_call(lambda: gtheory.gstudy(X))
        t_sm = best_per_call(sm_anova, min_time=1.0, repeat=3)
        t_batch = best_per_call(lambda: gtheory.variance_components(batch), repeat=3)
        t_loop = best_per_call(lambda: [gtheory.variance_components(b) for b in batch[:100]], repeat=3)

    per_matrix_batch = t_batch[0] / args.batch
    per_matrix_loop = t_loop[0] / 100
    lines = [
        "gtheory G-study benchmark (benchmarks/bench_gstudy.py)",
        f"date: {time.strftime('%Y-%m-%d %H:%M:%S')}   python {platform.python_version()}   "
        f"numpy {np.__version__}   pandas {pd.__version__}   statsmodels {statsmodels.__version__}",
        f"machine: {platform.machine()} {platform.processor() or ''}".rstrip(),
        f"matrix: {source}; agreement with statsmodels: max relative difference of mean squares {rel:.1e}",
        "",
        f"{'contender':<58}{'min / call':>14}{'median / call':>16}{'statsmodels ÷':>15}",
    ]
    rows = [
        ("statsmodels ols(...).fit() + anova_lm (reference)", t_sm),
        ("gtheory.variance_components(ndarray)  [closed form]", t_vc),
        ("gtheory.phi_from_components(*variance_components(x))", t_phi),
        ("gtheory.gstudy(ndarray)  [validated, result object]", t_gs),
        ("gtheory.gstudy(DataFrame)  [labels kept]", t_gs_df),
    ]
    for name, (tmin, tmed) in rows:
        lines.append(f"{name:<58}{fmt(tmin):>14}{fmt(tmed):>16}{t_sm[0] / tmin:>14.0f}x")
    lines += [
        "",
        f"batched: variance_components on ({args.batch}, 100, 50): {fmt(t_batch[0])} per batch = "
        f"{fmt(per_matrix_batch).strip()} per matrix",
        f"         loop of single calls:                  {fmt(per_matrix_loop).strip()} per matrix "
        f"(batching {per_matrix_loop / per_matrix_batch:.1f}x faster per matrix; "
        f"{t_sm[0] / per_matrix_batch:.0f}x statsmodels)",
    ]
    text = "\n".join(lines)
    print(text)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text + "\n", encoding="utf-8")
    print(f"\nwritten to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
