"""Run the solvers with single-threaded BLAS (through ``threadpoolctl``).

SLSQP's subproblem makes many small LAPACK/BLAS calls; with a multi-threaded OpenBLAS on a
2-core machine each call pays thread hand-off and the solve runs ~25x slower (measured: 0.19 s
vs 4.9 s for nDCG@100 on TREC-9). :func:`single_threaded_blas` is
``threadpoolctl.threadpool_limits(1, user_api="blas")`` after making sure NumPy's and SciPy's
BLAS libraries are loaded (threadpoolctl limits only the libraries loaded when the block is
entered); the previous limits are restored on exit. A no-op where no supported BLAS is found.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

from threadpoolctl import ThreadpoolController

__all__ = ["single_threaded_blas"]


@lru_cache(maxsize=1)
def _controller() -> ThreadpoolController:
    """One controller per process: inspecting the loaded libraries costs 1.5-3 ms, so do it once."""
    import numpy  # noqa: F401  (NumPy's OpenBLAS)
    import scipy.linalg  # noqa: F401  (SciPy's OpenBLAS, used by SLSQP's subproblem)
    import scipy.optimize  # noqa: F401

    return ThreadpoolController()


@contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Context manager: every loaded BLAS limited to one thread inside, restored after."""
    with _controller().limit(limits=1, user_api="blas"):
        yield
