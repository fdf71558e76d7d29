"""Benchmark: what the parameter table's check (gtheory.kit.params.validate_params) costs a public function call.

Run:  python benchmarks/bench_params.py  [--quick] [--repeat 5] [--out benchmarks/results/params.txt]

Side by side in one process, interleaved: each function as the package exports it (decorated: every argument whose
name is in the parameter table checked and cleaned before the body) and its body alone (``__wrapped__``, the same
function without the check), with the same arguments. Three calls: an empty body with three table parameters passed
by keyword (the check's own cost per call), ``metrics.precision`` on a small judged collection (a cheap measure:
the check against a real body), and ``gtheory.topic_set_size`` from a given variance (a closed-form answer, one of
the cheapest public functions that takes table parameters).
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import finish, header, measure, one_core, parser, ratio  # noqa: E402

import gtheory  # noqa: E402
import metrics  # noqa: E402
from gtheory.kit.params import validate_params  # noqa: E402


@validate_params()
def _empty(data, *, n_resamples: int = 1000, alpha: float = 0.05, seed=0):
    return data


def _body(fn):
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    return fn


def main(argv: list[str] | None = None) -> int:
    ap = parser(__doc__.splitlines()[0])
    args = ap.parse_args(argv)
    n = 200 if args.quick else 2000
    judged = metrics.load_trec9().subset(systems=range(10), topics=range(10))
    cases = {
        "empty body, 3 table parameters": (_empty, (None,), dict(n_resamples=500, alpha=0.01, seed=3), n * 10),
        "metrics.precision (10 x 10 x 1000)": (metrics.precision, (judged,), dict(cutoff=10, relevance_level=1), n // 10),
        "gtheory.topic_set_size (given variance)": (gtheory.topic_set_size, (0.02,),
                                                    dict(method="paired-t", min_diff=0.05, alpha=0.05, power=0.8), n),
    }
    lines = header("the parameter table's check per call (benchmarks/bench_params.py)", args)
    with warnings.catch_warnings(), one_core():
        warnings.simplefilter("ignore")
        for name, (fn, a, kw, number) in cases.items():
            body = _body(fn)
            assert body is not fn
            t = measure({"checked": lambda: fn(*a, **kw), "body": lambda: body(*a, **kw)}, repeat=args.repeat,
                        number=number)
            extra = np.array(t["checked"].cpu) - np.array(t["body"].cpu)
            lines += [f"{name}",
                      f"    checked  {t['checked'].text('us')}",
                      f"    body     {t['body'].text('us')}",
                      f"    checked / body: {ratio(t['checked'], t['body'])}; the check: "
                      f"{np.median(extra) * 1e6:.2f} µs CPU per call (median of the repetitions' differences)"]
    finish("params", lines, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
