"""Benchmark: closed-form G-study vs statsmodels OLS + anova_lm on a 100 × 50 score matrix.

Run:  python benchmarks/bench_gstudy.py  [--quick] [--repeat 5] [--out benchmarks/results/gstudy.txt]

All contenders are timed in the same run on the same matrix (Robust 2004 AP, first 100 systems ×
first 50 topics, from the sigir2018-simulation score matrices; a seeded random matrix if that
file is absent). statsmodels gets the long-format DataFrame prepared outside the timed region,
so its figure is the model fit + ANOVA table only. The script also checks that the numbers agree.
"""
from __future__ import annotations

import sys
import timeit
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import DATA as SHARED, Timing, finish, header, measure, one_core, parser, ratio  # noqa: E402

import gtheory  # noqa: E402

DATA = SHARED / "score-matrices" / "sigir2018-simulation" / "robust2004_ap.csv"


def per_call(fn, repeat: int, min_time: float = 0.2) -> Timing:
    """CPU and wall seconds per call: ``repeat`` repetitions of an auto-sized number of calls (>= ``min_time`` s)."""
    number, _ = timeit.Timer(fn).autorange()
    number = max(1, int(number * min_time / 0.2))
    return measure({"f": fn}, repeat=repeat, number=number)["f"]


def fmt(s: float) -> str:
    return f"{s * 1e6:10.1f} µs" if s < 1e-2 else f"{s * 1e3:10.2f} ms"


def main(argv: list[str] | None = None) -> int:
    ap = parser(__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=1000, help="matrices in the batched run")
    args = ap.parse_args(argv)
    if args.quick:
        args.repeat, args.batch = min(args.repeat, 3), min(args.batch, 100)

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

    with warnings.catch_warnings(), one_core():
        warnings.simplefilter("ignore")
        r = args.repeat
        t_vc = per_call(lambda: gtheory.variance_components(x), r)
        t_phi = per_call(lambda: gtheory.phi_from_components(*gtheory.variance_components(x)[:3]), r)
        t_gs = per_call(lambda: gtheory.gstudy(x), r)
        t_gs_df = per_call(lambda: gtheory.gstudy(X), r)
        t_sm = per_call(sm_anova, r, min_time=1.0 if not args.quick else 0.2)
        t_batch = per_call(lambda: gtheory.variance_components(batch), r)
        t_loop = per_call(lambda: [gtheory.variance_components(b) for b in batch[:100]], r)

    per_matrix_batch = t_batch.cpu_med / args.batch
    per_matrix_loop = t_loop.cpu_med / 100
    lines = header("gtheory G-study benchmark (benchmarks/bench_gstudy.py)", args) + [
        f"pandas {pd.__version__}, statsmodels {statsmodels.__version__}",
        f"matrix: {source}; agreement with statsmodels: max relative difference of mean squares {rel:.1e}",
        "",
    ]
    rows = [
        ("statsmodels ols(...).fit() + anova_lm (reference)", t_sm),
        ("gtheory.variance_components(ndarray)  [closed form]", t_vc),
        ("gtheory.phi_from_components(*variance_components(x))", t_phi),
        ("gtheory.gstudy(ndarray)  [validated, result object]", t_gs),
        ("gtheory.gstudy(DataFrame)  [labels kept]", t_gs_df),
    ]
    for name, t in rows:
        lines.append(f"{name:<56}{t.text('us')}   statsmodels / this: {ratio(t_sm, t)}")
    lines += [
        "",
        f"batched: variance_components on ({args.batch}, 100, 50): {t_batch.text('ms')} per batch = "
        f"{per_matrix_batch * 1e6:.1f} µs CPU per matrix",
        f"         loop of single calls: {per_matrix_loop * 1e6:.1f} µs CPU per matrix "
        f"(batching {per_matrix_loop / per_matrix_batch:.1f}x faster per matrix; "
        f"{t_sm.cpu_med / per_matrix_batch:.0f}x statsmodels)",
    ]
    finish("gstudy", lines, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
