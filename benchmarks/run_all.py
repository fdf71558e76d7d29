"""Run every benchmark (benchmarks/bench_*.py) one after the other and record where their results went.

    python benchmarks/run_all.py [--quick] [--only ndcg,significance] [--baseline DIR]

Each script runs alone in its own process (the scripts never overlap, so none competes with another for the
cores), writes its table to benchmarks/results/<name>.txt (``<name>.quick.txt`` with ``--quick``), and can be run
by itself the same way. This driver writes benchmarks/results/run_all.txt (run_all.quick.txt): per script the exit
status, wall and CPU seconds of the process, and the machine's load average before and after (with ``--only``, the
rows of the other scripts are kept from the earlier run and marked so). ``--baseline DIR`` (another copy of the
package, e.g. an earlier commit unpacked with ``git archive``) is passed to the scripts that compare against one
side by side (those with a ``--baseline`` option).
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def scripts(only: list[str] | None) -> list[Path]:
    found = sorted(HERE.glob("bench_*.py"))
    if only:
        found = [p for p in found if p.stem.removeprefix("bench_") in only]
    return found


def takes_option(path: Path, option: str) -> bool:
    """Whether the script has the command-line ``option``."""
    return f'"{option}"' in path.read_text(encoding="utf-8")


def takes_quick(path: Path) -> bool:
    """Whether the script has a ``--quick`` option (every script should; checked so one that lacks it still runs)."""
    return "--quick" in path.read_text(encoding="utf-8")


def loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover
        return "n/a"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="pass --quick to every script (short runs, not for the record)")
    ap.add_argument("--only", default=None, help="comma-separated names, e.g. ndcg,significance")
    ap.add_argument("--baseline", type=Path, default=None,
                    help="another copy of the package, for the scripts that compare against one")
    args = ap.parse_args(argv)
    only = [s.strip() for s in args.only.split(",")] if args.only else None
    env = dict(os.environ)
    root = str(HERE.parent)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    lines = [f"# benchmarks/run_all.py{' --quick' if args.quick else ''}: {time.strftime('%Y-%m-%d %H:%M:%S')}, "
             f"python {sys.version.split()[0]}, {os.cpu_count()} cores", ""]
    failed = 0
    for path in scripts(only):
        cmd = [sys.executable, str(path)] + (["--quick"] if args.quick and takes_quick(path) else [])
        if args.baseline and takes_option(path, "--baseline"):
            cmd += ["--baseline", str(args.baseline.resolve())]
        before = loadavg()
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        print(f"== {path.name}", file=sys.stderr, flush=True)
        proc = subprocess.run(cmd, cwd=root, env=env)
        wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        failed += proc.returncode != 0
        lines.append(f"{path.name:<26} exit {proc.returncode:>3}   wall {wall:8.1f} s   CPU {cpu:8.1f} s   "
                     f"load before {before}, after {loadavg()}")
    out = HERE / "results" / ("run_all.quick.txt" if args.quick else "run_all.txt")
    if only and out.exists():  # keep the earlier rows of the scripts not run this time
        ran = {line.split()[0] for line in lines[2:]}
        kept = [line for line in out.read_text(encoding="utf-8").splitlines()
                if line.startswith("bench_") and line.split()[0] not in ran]
        lines[2:] = sorted(lines[2:] + [line + "   (earlier run)" if "(earlier run" not in line else line
                                        for line in kept])
    lines += ["", "results: benchmarks/results/<name>" + (".quick.txt" if args.quick else ".txt")]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    out.parent.mkdir(exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
