"""Start-up benchmark: ``gtheory --help`` (and each subcommand's ``--help``) against ``python -c "import numpy"``.

Each contender is a fresh Python process (start-up is the point: nothing is cached in the process), run in turn
within each repetition so that a slow spell of a shared machine hits all alike. ``gtheory`` is run as its console
script runs it (``from experiments.cli import main; sys.exit(main())``), with this checkout first on the path.
Wall time of the whole process and the CPU time of the child (user + system, from ``os.wait4``), median of
``--repeat`` (default 7) with min–max, and each command's ratio to ``import numpy`` (the goal: at most 3x). Also
records which heavy modules each command loaded (none should be: scipy.stats, pandas, matplotlib, cvxpy).
Writes benchmarks/results/cli_startup.txt.

    python benchmarks/bench_cli_startup.py [--repeat 7]
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _timing import Timing, finish, header, parser

ROOT = Path(__file__).resolve().parents[1]
CLI = "import sys; from experiments.cli import main; sys.exit(main())"
HEAVY = ("scipy.stats", "pandas", "matplotlib", "cvxpy", "numpy")
PROBE = ("import sys, atexit\n"
         "atexit.register(lambda: sys.__stderr__.write('LOADED ' + ' '.join(m for m in {heavy!r} if m in sys.modules)"
         " + '\\n'))\n"
         "sys.argv = ['gtheory', *{argv!r}]\n" + CLI)


def run_once(argv: list[str], root: Path = ROOT) -> tuple[float, float]:
    """(wall, child CPU) seconds of one fresh process with ``root`` first on the path."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    w0 = time.perf_counter()
    p = subprocess.Popen([sys.executable, *argv], cwd=root, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - w0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode not in (0, 2):  # --help exits 0; a bare `gtheory` prints usage and exits 2
        raise RuntimeError(f"{argv} exited with {p.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def loaded(args: list[str]) -> str:
    """The heavy modules a command leaves in sys.modules (printed by an atexit hook in the child)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-c", PROBE.format(heavy=HEAVY, argv=args)], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=120)
    line = [ln for ln in r.stderr.splitlines() if ln.startswith("LOADED")]
    return (line[-1][len("LOADED"):].strip() or "none") if line else f"? (exit {r.returncode})"


def main() -> None:
    ap = parser(__doc__, repeat=7)
    ap.add_argument("--compare", type=Path, default=None, metavar="CHECKOUT",
                    help="also time `gtheory --help` of another checkout (e.g. a worktree of the previous commit)")
    args = ap.parse_args()
    repeat = 3 if args.quick else args.repeat
    args.repeat = repeat
    sub = ["--help"] if args.quick else ["--help", "evaluate --help", "gstudy --help", "tune --help",
                                         "report --help"]
    contenders = {"python -c 'import numpy'": ["-c", "import numpy"], "python -c pass": ["-c", "pass"]}
    roots = {}
    for s in sub:
        contenders[f"gtheory {s}"] = ["-c", CLI, *s.split()]
    if args.compare is not None:
        rev = subprocess.run(["git", "-C", str(args.compare), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True).stdout.strip() or "other checkout"
        key = f"gtheory --help at {rev} (before)"
        contenders[key] = ["-c", CLI, "--help"]
        roots[key] = args.compare.resolve()
    times = {k: Timing([], []) for k in contenders}
    for k, argv in contenders.items():  # warm-up: the OS file cache
        run_once(argv, roots.get(k, ROOT))
    for _ in range(repeat):
        for k, argv in contenders.items():
            wall, cpu = run_once(argv, roots.get(k, ROOT))
            times[k].wall.append(wall)
            times[k].cpu.append(cpu)
    base = times["python -c 'import numpy'"]
    lines = header("gtheory start-up: --help against `import numpy` (fresh processes)", args)
    lines[2] = (f"timing: median of {repeat} repetitions [min–max] of a fresh process each, wall seconds and the "
                "child's CPU seconds (user+system), contenders interleaved" + ("; QUICK run" if args.quick else ""))
    width = max(map(len, contenders))
    for k, t in times.items():
        lines.append(f"{k:<{width}}  {t.text('ms')}  ratio to import numpy: {t.wall_med / base.wall_med:5.2f}x wall, "
                     f"{t.cpu_med / base.cpu_med:5.2f}x CPU")
    lines.append("")
    lines.append(f"heavy modules loaded (of {', '.join(HEAVY)}):")
    for s in sub:
        lines.append(f"  gtheory {s}: {loaded(s.split())}")
    worst = max(times[f"gtheory {s}"].wall_med / base.wall_med for s in sub)
    lines.append(f"goal: every --help at most 3x `import numpy` (wall); worst here {worst:.2f}x: "
                 f"{'met' if worst <= 3 else 'NOT met'}")
    finish("cli_startup", lines, args)


if __name__ == "__main__":
    main()
