"""Benchmark: what centring the data before the sums of squares costs in gtheory.variance_components.

Run:  python benchmarks/bench_centring.py  [--quick] [--repeat 5] [--out benchmarks/results/centring.txt]

Side by side in one process, interleaved: the current ``variance_components`` (the data shifted by the first
system's mean before any sum, so ``X + 1e12`` gives the components of ``X``) and the formula it replaced (sums of
the raw scores, copied below as it was), on one 100 × 50 matrix and on a batch of 1000 of them — the optimiser's
path. The script also checks what the centring buys: the components of ``X + 1e12`` against those of ``X``.
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import finish, header, measure, one_core, parser, ratio  # noqa: E402

import gtheory  # noqa: E402


def uncentred(scores):
    """The components as computed before centring (means of the raw scores)."""
    x = np.asarray(scores, dtype=np.float64)
    n_s, n_t = x.shape[-2], x.shape[-1]
    mean_s = x.sum(axis=-1) / n_t
    mean_t = x.sum(axis=-2) / n_s
    grand = mean_s.mean(axis=-1)
    ds = mean_s - grand[..., None]
    dt = mean_t - grand[..., None]
    resid = x - mean_s[..., :, None]
    resid -= dt[..., None, :]
    ms_s = n_t * np.einsum("...i,...i->...", ds, ds) / (n_s - 1)
    ms_t = n_s * np.einsum("...i,...i->...", dt, dt) / (n_t - 1)
    ms_e = np.einsum("...ij,...ij->...", resid, resid) / ((n_s - 1) * (n_t - 1))
    return (ms_s - ms_e) / n_t, (ms_t - ms_e) / n_s, ms_e


def main(argv: list[str] | None = None) -> int:
    ap = parser(__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=1000, help="matrices in the batched run")
    args = ap.parse_args(argv)
    if args.quick:
        args.repeat, args.batch = min(args.repeat, 3), min(args.batch, 100)
    rng = np.random.default_rng(0)
    # dyadic scores (multiples of 2**-10): X + 1e12 is then exact, so any difference is the computation's
    x = np.round((rng.normal(0.3, 0.1, (100, 1)) + rng.normal(0, 0.2, (1, 50)) + rng.normal(0, 0.1, (100, 50)))
                 * 1024) / 1024
    batch = x[None] + np.round(rng.normal(0, 0.01, (args.batch, *x.shape)) * 1024) / 1024
    ref = gtheory.variance_components(x)
    off_new = gtheory.variance_components(x + 1e12)
    off_old = uncentred(x + 1e12)
    err_new = max(abs(float(a) / float(b) - 1) for a, b in zip(off_new[:3], ref[:3]))
    err_old = max(abs(float(a) / float(b) - 1) for a, b in zip(off_old, ref[:3]))
    with warnings.catch_warnings(), one_core():
        warnings.simplefilter("ignore")
        single = measure({"centred": lambda: gtheory.variance_components(x), "raw": lambda: uncentred(x)},
                         repeat=args.repeat, number=2000 if not args.quick else 200)
        batched = measure({"centred": lambda: gtheory.variance_components(batch), "raw": lambda: uncentred(batch)},
                          repeat=args.repeat, number=3)
    lines = header("centred sums of squares (benchmarks/bench_centring.py)", args) + [
        f"accuracy, X + 1e12 (dyadic X, so X + 1e12 is exact): largest relative error of a component "
        f"centred {err_new:.1e}, raw sums {err_old:.1e}",
        "",
        f"one 100 x 50 matrix   centred {single['centred'].text('us')}",
        f"                      raw     {single['raw'].text('us')}   raw / centred: {ratio(single['raw'], single['centred'])}",
        f"batch ({args.batch}, 100, 50) centred {batched['centred'].text('ms')}",
        f"                      raw     {batched['raw'].text('ms')}   raw / centred: {ratio(batched['raw'], batched['centred'])}",
    ]
    finish("centring", lines, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
