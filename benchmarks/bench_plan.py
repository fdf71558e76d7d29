"""Benchmark: gtheory.plan (G-theory, expected τ and the topic set size rows) on the shared collections.

Run:  python benchmarks/bench_plan.py  [--quick] [--repeat 5] [--out benchmarks/results/plan.txt]

The requirement of the issue: the power and G-theory rows of ``gtheory plan`` in at most 5 s on each shared
collection. Timed per collection: ``gtheory.plan(x, min_diff=0.05)`` on its score matrix (all 7 rows: Φ, Eρ², τ,
paired and two-sample t, ANOVA of all systems, CI; each test row three times, for the size and its interval), and
the three exact sizes alone. Side by side, the alternative: R's ``power.t.test`` (paired, two-sample) and
``power.anova.test`` for the same three sizes, timed inside one R process (``system.time`` over the repetitions, so
R's start-up is not counted), when Rscript is installed. Also checked: the exact sizes equal R's rounded up.

The score matrices: the SIGIR 2018 simulation matrices (TREC Web 2010–2014, Robust 2004) and nDCG@10 of the TREC-9
Web, TREC DL 2019 and Robust 2004 runs (scored once, outside the timed region).
"""
from __future__ import annotations

import math
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import DATA, finish, header, measure, one_core, parser  # noqa: E402

import gtheory  # noqa: E402

MATRICES = DATA / "score-matrices" / "sigir2018-simulation"


def collections(quick: bool) -> list[tuple[str, np.ndarray]]:
    out = []
    files = sorted(MATRICES.glob("*.csv"))
    if quick:
        files = files[:3]
    for f in files:
        x = gtheory.read_scores(f, orientation="topics-by-systems")
        out.append((f.stem, x.to_numpy()))
    try:
        import metrics

        sets = [("trec9 nDCG@10", metrics.load_trec9)]
        for name, fn in sets:
            out.append((name, metrics.evaluate(fn(), "nDCG@10").to_numpy()))
    except Exception as exc:  # pragma: no cover - the embedded data is part of the package
        print(f"skipping the runs: {exc}", file=sys.stderr)
    return out


def r_times(cases: list[tuple[str, float, int]], repeat: int) -> list[tuple[float, list[int]]] | None:
    """Per case (variance, systems): R's seconds per call of the three sizes (median over ``repeat``), and the sizes."""
    if shutil.which("Rscript") is None:
        return None
    body = []
    for _, v, m in cases:
        body.append(
            f"f <- function() c(power.t.test(delta=0.05, sd=sqrt(2*{v!r}), power=.8, type='paired', strict=TRUE)$n, "
            f"power.t.test(delta=0.05, sd=sqrt({v!r}), power=.8, type='two.sample', strict=TRUE)$n, "
            f"power.anova.test(groups={m}, between.var=0.05^2/2/({m}-1), within.var={v!r}, power=.8)$n); "
            f"n <- f(); t <- replicate({repeat}, system.time(f())[['elapsed']]); "
            "cat(median(t), ceiling(n), '\\n')")
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:  # a script file: Rscript -e takes at most ~10,000 characters
        script = Path(tmp) / "sizes.R"
        script.write_text("\n".join(body) + "\n", encoding="utf-8")
        out = subprocess.run(["Rscript", str(script)], capture_output=True, text=True, timeout=600, check=True)
    rows = []
    for line in out.stdout.strip().splitlines():
        vals = line.split()
        if not vals or not vals[0].replace(".", "", 1).replace("e-", "", 1).isdigit():
            print(f"R said: {line}", file=sys.stderr)  # a note of R's, not a result row
            continue
        rows.append((float(vals[0]), [int(float(v)) for v in vals[1:]]))
    return rows


def main(argv: list[str] | None = None) -> int:
    args = parser(__doc__.splitlines()[0]).parse_args(argv)
    if args.quick:
        args.repeat = min(args.repeat, 3)
    data = collections(args.quick)
    lines = header("gtheory.plan benchmark (benchmarks/bench_plan.py)", args)
    lines += [f"{'collection':<28}{'systems x topics':>17}  {'plan() (7 rows)':<60}  {'3 exact sizes':<28}  "
              f"{'R: 3 sizes':>12}", ""]
    cases = []
    worst = 0.0
    timings = {}
    with warnings.catch_warnings(), one_core():
        warnings.simplefilter("ignore")
        for name, x in data:
            v, m, n = gtheory.within_system_variance(x)
            cases.append((name, v, m))

            def sizes(x=x, m=m):
                return [gtheory.topic_set_size(x, method=k, min_diff=0.05, **({"n_systems": m} if k == "anova" else {})).n
                        for k in ("paired-t", "two-sample-t", "anova")]

            t = measure({"plan": lambda x=x: gtheory.plan(x, min_diff=0.05), "sizes": sizes}, repeat=args.repeat)
            timings[name] = (t, sizes(), x.shape)
            worst = max(worst, max(t["plan"].wall))
    r = r_times(cases, args.repeat)
    agree = True
    for i, (name, _, _) in enumerate(cases):
        t, ours, shape = timings[name]
        r_text = "      –"
        if r is not None:
            r_sec, r_n = r[i]
            agree &= ours == r_n
            r_text = f"{r_sec * 1e3:9.1f} ms" + ("" if ours == r_n else f" (R n {r_n} ≠ {ours})")
        lines.append(f"{name:<28}{f'{shape[0]} x {shape[1]}':>17}  {t['plan'].text('ms'):<60}  "
                     f"wall {t['sizes'].wall_med * 1e3:8.1f} ms        {r_text:>12}")
    lines += ["", f"slowest plan() call over all collections and repetitions: {worst:.3f} s wall "
                  f"({'within' if worst <= 5 else 'OVER'} the 5 s requirement)"]
    if r is not None:
        lines.append(f"exact sizes equal R's power.t.test / power.anova.test rounded up on every collection: {agree}")
    else:
        lines.append("R not installed: no side-by-side timing or agreement check")
    finish("plan", lines, args)
    return 0 if worst <= 5 and agree else 1


if __name__ == "__main__":
    sys.exit(main())
