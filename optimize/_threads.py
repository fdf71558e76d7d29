"""Run the solvers with single-threaded BLAS.

SLSQP's subproblem makes many small LAPACK calls; with a multi-threaded OpenBLAS on a 2-core
machine each call pays thread start-up and the solve runs ~25x slower (measured: 0.19 s vs 4.9 s
for nDCG@100 on TREC-9). This does what ``threadpoolctl`` does (not a dependency here): find the
loaded OpenBLAS libraries and set their thread count for the duration of a ``with`` block.
Silently a no-op where no OpenBLAS is found (other BLAS, other OS).
"""
from __future__ import annotations

import ctypes
import os
from contextlib import contextmanager

_LIBS: list | None = None


def _openblas_libs() -> list:
    global _LIBS
    if _LIBS is not None:
        return _LIBS
    libs = []
    paths: set[str] = set()
    try:
        with open("/proc/self/maps") as fh:
            for line in fh:
                p = line.split()[-1]
                name = os.path.basename(p).lower()
                if "openblas" in name and ".so" in name:
                    paths.add(p)
    except OSError:
        pass
    for p in sorted(paths):
        try:
            lib = ctypes.CDLL(p)
        except OSError:
            continue
        for prefix in ("scipy_openblas", "openblas"):
            for suffix in ("64_", ""):
                get = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
                put = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
                if get is not None and put is not None:
                    libs.append((get, put))
                    break
            else:
                continue
            break
    _LIBS = libs
    return libs


@contextmanager
def single_threaded_blas():
    """Context manager: OpenBLAS limited to one thread inside, restored after."""
    import numpy  # noqa: F401  (make sure the BLAS libraries are loaded)
    import scipy.linalg  # noqa: F401

    libs = _openblas_libs()
    before = [get() for get, _ in libs]
    for _, put in libs:
        put(1)
    try:
        yield
    finally:
        for (_, put), n in zip(libs, before):
            put(n)
