"""Shared measurement rules of the benchmarks: same work on both sides, CPU and wall time, median of at least 5
with min–max, the machine's load recorded, results written atomically to benchmarks/results/.

Every contender is called in turn within each repetition (so a slow spell of a shared machine hits all alike).
BLAS is limited to one thread on both sides (:func:`one_core`) unless a script says otherwise, so CPU time is each
side's own work on one core.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
DATA = HERE.parents[1] / "shared" / "data"


@dataclass
class Timing:
    """CPU and wall seconds of repeated calls: medians and ranges."""

    cpu: list[float]
    wall: list[float]

    @property
    def cpu_med(self) -> float:
        return statistics.median(self.cpu)

    @property
    def wall_med(self) -> float:
        return statistics.median(self.wall)

    def scaled(self, factor: float) -> "Timing":
        return Timing([c * factor for c in self.cpu], [w * factor for w in self.wall])

    def text(self, unit: str = "ms") -> str:
        f = {"s": 1.0, "ms": 1e3, "us": 1e6}[unit]
        u = "µs" if unit == "us" else unit
        return (f"CPU {self.cpu_med * f:9.3f} {u} [{min(self.cpu) * f:.3f}–{max(self.cpu) * f:.3f}]  "
                f"wall {self.wall_med * f:9.3f} {u} [{min(self.wall) * f:.3f}–{max(self.wall) * f:.3f}]")


def measure(fns: dict[str, Callable[[], object]], repeat: int = 5, number: int = 1) -> dict[str, Timing]:
    """Time every function ``number`` times per repetition, ``repeat`` repetitions, interleaved; per call."""
    out = {k: Timing([], []) for k in fns}
    for fn in fns.values():  # warm-up (imports, caches of the data, not of the measured results)
        fn()
    for _ in range(repeat):
        for k, fn in fns.items():
            c, w = time.process_time(), time.perf_counter()
            for _ in range(number):
                fn()
            out[k].cpu.append((time.process_time() - c) / number)
            out[k].wall.append((time.perf_counter() - w) / number)
    return out


def ratio(slow: Timing, fast: Timing) -> str:
    """``slow / fast`` as CPU and wall ratios of the medians."""
    return f"{slow.cpu_med / fast.cpu_med:8.1f}x CPU, {slow.wall_med / fast.wall_med:8.1f}x wall"


#: the BLAS thread pools seen inside :func:`one_core` blocks (recorded in the result file by :func:`finish`)
_SEEN_INSIDE: set[str] = set()


def blas_threads() -> str:
    """The loaded BLAS / OpenMP thread pools and their current thread counts, e.g.
    ``"openblas libscipy_openblas64_ 1 thread, openblas libscipy_openblas 1 thread"``."""
    from threadpoolctl import threadpool_info

    pools = [f"{i['internal_api']} {Path(i['filepath']).name.split('-')[0].removesuffix('.so')} "
             f"{i['num_threads']} thread{'s' if i['num_threads'] != 1 else ''}" for i in threadpool_info()]
    return ", ".join(sorted(pools)) or "no BLAS thread pool found"


@contextmanager
def one_core() -> Iterator[None]:
    """Every loaded BLAS limited to one thread (both sides of a comparison run on one core); checked on entry (a
    pool still above one thread raises) and recorded for the result file."""
    import scipy.linalg  # noqa: F401  (load SciPy's BLAS too before limiting)
    from threadpoolctl import threadpool_info, threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        busy = [i["filepath"] for i in threadpool_info() if i["user_api"] == "blas" and i["num_threads"] != 1]
        if busy:  # pragma: no cover - threadpoolctl could not limit a library
            raise RuntimeError(f"BLAS still multi-threaded inside one_core(): {busy}")
        _SEEN_INSIDE.add(blas_threads())
        yield


def load() -> str:
    """The machine's load average (1, 5, 15 min) and cores, for the record."""
    try:
        a, b, c = os.getloadavg()
        return f"load average {a:.2f} {b:.2f} {c:.2f} on {os.cpu_count()} cores"
    except OSError:  # pragma: no cover
        return f"load average unavailable, {os.cpu_count()} cores"


def header(title: str, args: argparse.Namespace) -> list[str]:
    import scipy

    return [
        f"# {title}",
        f"date {time.strftime('%Y-%m-%d %H:%M:%S')}; python {platform.python_version()}, numpy {np.__version__}, "
        f"scipy {scipy.__version__}, {platform.machine()}; {load()} at start",
        f"timing: median of {args.repeat} repetitions [min–max], CPU (process) and wall seconds, contenders "
        f"interleaved; BLAS limited to 1 thread on both sides{'; QUICK run (smaller work, not for the record)' if args.quick else ''}",
        "",
    ]


def parser(doc: str, repeat: int = 5) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a short run (smaller work, 3 repetitions) to check the script")
    ap.add_argument("--repeat", type=int, default=repeat, help=f"repetitions (default {repeat}; at least 5 for the record)")
    ap.add_argument("--out", type=Path, default=None, help="result file (default benchmarks/results/<name>.txt)")
    return ap


def finish(name: str, lines: list[str], args: argparse.Namespace) -> None:
    """Print the table and write it atomically (a temporary file in the same directory, then os.replace)."""
    seen = [f"BLAS thread pools inside the timed blocks (one_core): {b}" for b in sorted(_SEEN_INSIDE)]
    lines = lines + [""] + seen + [f"{load()} at end"]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    out = args.out or (RESULTS / (f"{name}.quick.txt" if args.quick else f"{name}.txt"))
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, out)
    print(f"written to {out}", file=sys.stderr)
