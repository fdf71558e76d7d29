"""A session at the command line: each subcommand from --runs/--qrels (reads and judges every run file) against
the same subcommand from --judged (the tensor of ``gtheory judge``, read once), on the shared TREC DL 2019 and
DL 2021 passage runs.

Each command is a fresh process, as in a shell session; the contenders run in turn within each repetition (a
slow spell of the shared machine hits both alike). Wall time of the process and the child's CPU time (user +
system, ``os.wait4``), median of ``--repeat`` (default 5) with min–max, and the ratio --judged / --runs (the goal:
at most 0.5). The outputs of both are compared (the same standard output, byte for byte, apart from the line that
names the data source). Writes benchmarks/results/judged_cli.txt.

    python benchmarks/bench_judged_cli.py [--repeat 5] [--quick]
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _timing import DATA, Timing, finish, header, parser

ROOT = Path(__file__).resolve().parents[1]
CLI = "import sys; from experiments.cli import main; sys.exit(main())"
COLLECTIONS = {
    "trec-dl-2019-passage": ("runs_judged_full_xz", "qrels.dl19-passage.txt"),
    "trec-dl-2021-passage": ("runs_judged_xz", "qrels.dl21-passage.txt"),
}
#: the start-up floor: the interpreter alone, and with the imports a --judged command cannot avoid
IMPORTS = {"python (nothing)": "pass", "import numpy": "import numpy",
           "import numpy, scipy.special": "import numpy, scipy.special", "import numpy, pandas": "import numpy, pandas",
           "import numpy, pandas, scipy.special": "import numpy, pandas, scipy.special",
           "import scipy.optimize": "import scipy.optimize"}
COMMANDS = {
    "evaluate": ["evaluate", "--measure", "nDCG@10", "--measure", "AP"],
    "gstudy": ["gstudy", "--measure", "nDCG@10"],
    "plan": ["plan", "--measure", "nDCG@10", "--min-diff", "0.05"],
    "compare": ["compare", "--measure", "nDCG@10", "--correction", "holm"],
}


#: the children's compiled modules, kept outside the tree: an installed package has its .pyc files (pip compiles them),
#: so no process recompiles the project's sources, whatever PYTHONDONTWRITEBYTECODE says in the caller's shell
PYCACHE = tempfile.mkdtemp(prefix="gtheory-bench-pycache-")


def run_once(argv: list[str], code: str = CLI) -> tuple[float, float, str]:
    """(wall, child CPU seconds, standard output) of one fresh ``gtheory`` process (or of ``python -c code``)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "PYTHONPYCACHEPREFIX": PYCACHE}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryFile() as out:
        w0 = time.perf_counter()
        p = subprocess.Popen([sys.executable, "-c", code, *argv], cwd=ROOT, env=env, stdout=out,
                             stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - w0
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"gtheory {' '.join(argv)} failed")
        out.seek(0)
        text = out.read().decode()
    return wall, usage.ru_utime + usage.ru_stime, text


#: the imports each --judged command is checked for (the two that weigh most on a fresh process's start)
WATCHED = ("pandas", "scipy.special")


def loaded_modules(argv: list[str]) -> list[str]:
    """Which of :data:`WATCHED` one fresh ``gtheory`` process had imported when it ended (run apart, untimed)."""
    code = (f"import sys\nfrom experiments.cli import main\nrc = main(sys.argv[1:])\n"
            f"sys.stderr.write('\\nLOADED:' + ','.join(m for m in {WATCHED!r} if m in sys.modules))\nsys.exit(rc)")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONPYCACHEPREFIX": PYCACHE}
    r = subprocess.run([sys.executable, "-c", code, *argv], cwd=ROOT, env=env, capture_output=True, text=True)
    last = r.stderr.rsplit("LOADED:", 1)
    return [m for m in last[1].strip().split(",") if m] if len(last) == 2 else ["(not known: the command failed)"]


def _same(a: str, b: str) -> bool:
    """The outputs agree apart from the first line of gstudy/plan, which names the source (runs or --judged)."""
    strip = [ln for ln in a.splitlines() if " over runs in " not in ln]
    other = [ln for ln in b.splitlines() if " over judgments " not in ln]
    return strip == other


def _reading(runs: Path, qrels: Path, tensor: str, repeat: int) -> str:
    """In one process: the work --judged replaces (metrics.judge of the files) against what it does instead
    (JudgedRuns.load and the check of the recorded sources), without the interpreter's start-up and imports that
    both command lines pay."""
    import metrics
    from _timing import measure, one_core, ratio
    from experiments.cli._sources import changed_sources

    def load() -> None:
        changed_sources(metrics.JudgedRuns.load(tensor).report["sources"])

    with one_core():
        t = measure({"judge": lambda: metrics.judge(str(runs), str(qrels), progress=False, workers=1),
                     "load": load}, repeat=repeat)
    return (f"reading in one process: metrics.judge (workers=1) {t['judge'].text('s')}; --judged (load + sources check) "
            f"{t['load'].text('s')}; ratio judge / load: {ratio(t['judge'], t['load'])}")


def main() -> None:
    ap = parser(__doc__, repeat=5)
    args = ap.parse_args()
    repeat = 3 if args.quick else args.repeat
    args.repeat = repeat
    lines = header("gtheory subcommands: --runs/--qrels against --judged (fresh processes)", args)
    lines[2] = (f"timing: median of {repeat} repetitions [min–max] of a fresh process each, wall seconds and the "
                "child's CPU seconds (user+system), contenders interleaved; the project's modules compiled once "
                "(bytecode cache, as installed), not at every start" + ("; QUICK run" if args.quick else ""))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    if load > 1.0:  # more than half of a 2-core machine busy before we start
        lines.insert(3, f"NOTE: a busy machine (load average {load:.2f} at start): other processes take cores from the "
                        "2 workers that read the runs for --runs/--qrels, so its wall time is nearer its CPU time and "
                        "the wall ratios are lower than on a quiet machine")
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name, (runs, qrels) in COLLECTIONS.items():
            base = DATA / name
            data = ["--runs", str(base / runs), "--qrels", str(base / qrels)]
            tensor = str(Path(tmp) / f"{name}.npz")
            t_judge = Timing([], [])
            for _ in range(1 if args.quick else 3):
                w, c, _ = run_once(["judge", *data, "--out", tensor, "--quiet"])
                t_judge.wall.append(w)
                t_judge.cpu.append(c)
            n_runs = len([f for f in (base / runs).iterdir() if not f.name.startswith(".")])
            lines.append(f"## {name}: {n_runs} runs; gtheory judge once: {t_judge.text('s')}")
            lines.append("  " + _reading(base / runs, base / qrels, tensor, repeat))
            commands = COMMANDS if not args.quick else {"evaluate": COMMANDS["evaluate"]}
            for cmd, argv in commands.items():
                contenders = {"--runs/--qrels": [*argv, *data], "--judged": [*argv, "--judged", tensor]}
                times = {k: Timing([], []) for k in contenders}
                outs = {k: run_once(a)[2] for k, a in contenders.items()}  # warm-up: the OS file cache
                for _ in range(repeat):
                    for k, a in contenders.items():
                        w, c, _ = run_once(a)
                        times[k].wall.append(w)
                        times[k].cpu.append(c)
                r = times["--judged"].wall_med / times["--runs/--qrels"].wall_med
                worst = max(worst, r)
                same = _same(outs["--runs/--qrels"], outs["--judged"])
                for k, t in times.items():
                    lines.append(f"  {cmd:<9} {k:<15} {t.text('s')}")
                lines.append(f"  {cmd:<9} ratio --judged / --runs: {r:.2f} wall, "
                             f"{times['--judged'].cpu_med / times['--runs/--qrels'].cpu_med:.2f} CPU; same output: "
                             f"{'yes' if same else 'NO'}; --judged imported: "
                             f"{', '.join(loaded_modules(contenders['--judged'])) or 'neither pandas nor scipy.special'}")
            lines.append("")
    lines.append(f"goal: --judged at most 0.5 x the time of --runs/--qrels (wall); worst here {worst:.2f}: "
                 f"{'met' if worst <= 0.5 else 'NOT met'}")
    floor = {name: Timing([], []) for name in IMPORTS}
    for _ in range(repeat):
        for name, code in IMPORTS.items():
            w, c, _ = run_once([], code)
            floor[name].wall.append(w)
            floor[name].cpu.append(c)
    lines.append("what every command line pays before its work, which --judged cannot save (a fresh interpreter "
                 "importing only):")
    for name, t in floor.items():
        lines.append(f"  {name:<30} {t.text('s')}")
    finish("judged_cli", lines, args)


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(PYCACHE, ignore_errors=True)
