"""Shared test fixtures: the real collections in the shared data directory, judged once per test session.

``SHARED`` is the data directory (``<repo root>/../shared/data``); every test reads shared data through it, by
``shared("sub", "path")`` (the path, or a skip when it is not there) or the ``needs_shared`` mark. The session fixtures ``trec9``, ``dl19`` and
``robust04`` return a :class:`Collection`: the :class:`metrics.JudgedRuns` of a fixed subset of runs (chosen to keep
the suite fast, see ``SUBSETS``) with the qrels and run file paths it was built from, and — parsed lazily, once —
the same files in pytrec_eval's dict form for parity checks against trec_eval. Tests that need the data are skipped
when it is not there.

Example::

    def test_something(dl19):
        j = dl19.judged                       # 37 systems × 43 topics
        ref = pytrec_eval.RelevanceEvaluator(dl19.trec_qrels, {"map"}).evaluate(dl19.trec_runs[j.systems[0]])
"""
from __future__ import annotations

import lzma
import os
import tempfile
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import pytest

import metrics

# figures are drawn off screen in the tests (the docstring examples do not pick a backend; a user's session has one)
os.environ.setdefault("MPLBACKEND", "Agg")

try:  # no .hypothesis/ example database in the working directory: every file a test writes is under pytest's tmp;
    # derandomized, so a run is reproducible: the same hypothesis release draws the same examples on every machine
    # (a failure in CI is the one a developer gets), and a new example needs a new release or a new test
    from hypothesis import settings as _hypothesis_settings

    _hypothesis_settings.register_profile("gtheory-tests", database=None, derandomize=True)
    _hypothesis_settings.load_profile("gtheory-tests")
except ImportError:  # pragma: no cover - hypothesis is in the test extra
    pass


@pytest.fixture(scope="session", autouse=True)
def _temporary_files_under_pytest_tmp(tmp_path_factory):
    """Whatever asks the system for a temporary file or folder (``tempfile`` here, ``TMPDIR`` in subprocesses: a
    browser's profile, a doctest's ``mkdtemp``) gets one under pytest's temporary directory, not the system's /tmp."""
    where = tmp_path_factory.mktemp("tmp")
    patch = pytest.MonkeyPatch()
    for var in ("TMPDIR", "TEMP", "TMP"):
        patch.setenv(var, str(where))
    patch.setattr(tempfile, "tempdir", str(where))
    yield where
    patch.undo()


#: the shared real-data directory (read its README.md)
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
#: Brennan's (2001) synthetic p x i design with missing cells, as published with GeneralizIT (shared data)
BRENNAN_MISSING = SHARED / "gtheory-textbook" / "brennan2001_via_GeneralizIT" / "synthetic_missing_p_x_i.csv"


def brennan_missing() -> "pd.DataFrame":
    """The table of :data:`BRENNAN_MISSING` (persons x items, NaN where missing, person labels as str); the calling
    test is skipped when the shared data is absent."""
    import pandas as pd

    if not BRENNAN_MISSING.is_file():
        pytest.skip("shared textbook data not found")
    df = pd.read_csv(BRENNAN_MISSING, index_col=0)
    df.index = df.index.astype(str)
    return df

#: mark for tests that read ``SHARED``: skipped when the data directory is not there
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason=f"shared data not found at {SHARED}")


def shared(*parts: str) -> Path:
    """``SHARED / parts``; skips the calling test (or fixture) when that file or directory is not there."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not found: {path}")
    return path


#: (run files, qrels) of each collection, relative to SHARED; runs are every ``step``-th file in name order
SUBSETS = {
    # 26 of the 104 TREC-9 Web runs, all 50 topics
    "trec9": (("trec9-web-wt10g/runs_full_xz", 4), "trec9-web-wt10g/qrels.trec9.web.451-500.txt"),
    # all 37 DL 2019 passage runs (some return only 5-50 documents per topic), 43 topics
    "dl19": (("trec-dl-2019-passage/runs_judged_full_xz", 1), "trec-dl-2019-passage/qrels.dl19-passage.txt"),
    # 5 of the 10 submitted Robust 2004 runs + 3 of the 7 later baselines (short lists for some topics), 249 topics;
    # the runs also hold topic 672, which has no judgments
    "robust04": (
        (
            "trec-robust2004-subset/runs_full_xz/historical_submitted",
            2,
            "trec-robust2004-subset/runs_full_xz/new_2018_baselines",
            3,
        ),
        "trec-robust2004-subset/qrels.robust2004.txt",
    ),
    # 21 of the 63 DL 2021 passage runs (judged documents only, 100 deep), 53 topics
    "dl21": (("trec-dl-2021-passage/runs_judged_xz", 3), "trec-dl-2021-passage/qrels.dl21-passage.txt"),
    # 22 of the 65 CLEF eHealth 2014 task 3 runs (1,000 deep, graded 0-2), 50 topics
    "clef": (("clef-ehealth-2014-task3/runs_xz", 3), "clef-ehealth-2014-task3/qrels.clef2014.test.graded.txt"),
}


@dataclass(frozen=True, eq=False)
class Collection:
    """A judged real collection: ``judged`` (systems in the order of ``runs``), ``qrels`` and ``runs`` paths."""

    name: str
    judged: metrics.JudgedRuns
    qrels: Path
    runs: tuple[Path, ...]

    @cached_property
    def run_of(self) -> dict[str, Path]:
        """System name → run file."""
        return dict(zip(self.judged.systems, self.runs))

    @cached_property
    def trec_qrels(self) -> dict:
        """The qrels as ``pytrec_eval.parse_qrel`` reads them."""
        import pytrec_eval

        with open(self.qrels) as fh:
            return pytrec_eval.parse_qrel(fh)

    @cached_property
    def trec_runs(self) -> dict[str, dict]:
        """System name → the run as ``pytrec_eval.parse_run`` reads it."""
        import pytrec_eval

        out = {}
        for system, path in self.run_of.items():
            with lzma.open(path, "rt") as fh:
                out[system] = pytrec_eval.parse_run(fh)
        return out


def run_files(name: str) -> tuple[list[Path], Path]:
    """The run files and the qrels file of collection ``name`` (see ``SUBSETS``)."""
    dirs, qrels = SUBSETS[name]
    files: list[Path] = []
    for d, step in zip(dirs[::2], dirs[1::2]):
        files += sorted(p for p in (SHARED / d).iterdir() if not p.name.startswith("."))[::step]
    return files, SHARED / qrels


def _collection(name: str) -> Collection:
    if not SHARED.is_dir():
        pytest.skip(f"shared data not found at {SHARED}")
    files, qrels = run_files(name)
    return Collection(name, metrics.judge(files, qrels), qrels, tuple(files))


@pytest.fixture(scope="session")
def embedded_trec9() -> metrics.JudgedRuns:
    """``metrics.load_trec9()`` (the TREC-9 judged-grade tensor shipped in the package), loaded once per session.

    Its arrays are read-only, so a library function that writes into its input — or a test that edits the shared
    object — fails loudly here instead of changing what later tests see. (``trec9`` is the same collection judged
    from the shared run files, with its run and qrels paths.)"""
    j = metrics.load_trec9()
    for value in vars(j).values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return j


@pytest.fixture(scope="session")
def trec9() -> Collection:
    return _collection("trec9")


@pytest.fixture(scope="session")
def dl19() -> Collection:
    return _collection("dl19")


@pytest.fixture(scope="session")
def robust04() -> Collection:
    return _collection("robust04")


@pytest.fixture(scope="session")
def dl21() -> Collection:
    return _collection("dl21")


@pytest.fixture(scope="session")
def clef() -> Collection:
    return _collection("clef")


#: the fixtures of the five shared collections with runs, for tests that check a surface on each
COLLECTIONS = ("trec9", "dl19", "robust04", "dl21", "clef")


#: the SIGIR 2018 simulation score matrices (topics x systems CSVs), used by the experiments tests
SCORE_MATRICES = SHARED / "score-matrices" / "sigir2018-simulation"


def load_matrix(name: str) -> "pd.DataFrame":
    """A systems x topics DataFrame from the topics x systems CSVs of the SIGIR 2018 simulation data."""
    import pandas as pd

    frame = pd.read_csv(shared("score-matrices", "sigir2018-simulation", f"{name}.csv"))
    if "topic" in frame.columns:
        frame = frame.set_index("topic")
    return frame.T


def fresh_cli(argv: list[str], modules: tuple[str, ...] = ("pandas", "scipy")) -> tuple[str, list[str]]:
    """``gtheory argv`` in a fresh interpreter: its standard output and which of ``modules`` it had imported at exit
    (a --judged command's terminal output should need neither pandas nor scipy: its start-up is most of its time)."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    code = ("import sys\nfrom experiments.cli import main\nrc = main(sys.argv[1:])\n"
            f"sys.stderr.write('\\nLOADED:' + ' '.join(m for m in {modules!r} if m in sys.modules) + '\\n')\n"
            "sys.exit(rc)")
    r = subprocess.run([sys.executable, "-c", code, *argv], cwd=root, env={**os.environ, "PYTHONPATH": str(root)},
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    last = [ln for ln in r.stderr.splitlines() if ln.startswith("LOADED:")]
    assert last, r.stderr
    return r.stdout, last[-1][len("LOADED:"):].split()


def judged_against_runs(tmp_path: Path, capsys, command: str, options: list[str],
                        modules: tuple[str, ...] = ("pandas", "scipy")) -> tuple[str, str, list[str]]:
    """``gtheory judge`` on :func:`toy_runs`, then ``gtheory command options`` from ``--runs/--qrels`` (in this
    process) and from ``--judged`` (in a fresh one, :func:`fresh_cli`): both standard outputs, the line naming the
    data source taken out of each, and the ``modules`` the ``--judged`` process had imported."""
    from experiments.cli import main

    runs, qrels = toy_runs(tmp_path)
    judged = tmp_path / "judged.npz"
    assert main(["judge", "--runs", str(runs), "--qrels", str(qrels), "--out", str(judged), "--quiet"]) == 0
    capsys.readouterr()
    assert main([command, "--runs", str(runs), "--qrels", str(qrels), *options]) == 0
    want = capsys.readouterr().out
    got, loaded = fresh_cli([command, "--judged", str(judged), *options], modules)
    return (want.replace(f"over runs in {runs} (qrels {qrels})", ""), got.replace(f"over judgments {judged}", ""),
            loaded)


def toy_runs(tmp_path: Path) -> tuple[Path, Path]:
    """Four random TREC runs (15 documents) over four topics and a graded qrels file, written under ``tmp_path``."""
    import numpy as np

    rng = np.random.default_rng(4)
    docs = [f"d{i}" for i in range(15)]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 {d} {rng.integers(0, 3)}\n" for t in ("1", "2", "3", "4") for d in docs[:8]))
    runs = tmp_path / "runs"
    runs.mkdir()
    for s in "ABCD":
        lines = []
        for t in ("1", "2", "3", "4"):
            for r, d in enumerate(rng.permutation(docs)):
                lines.append(f"{t} Q0 {d} {r + 1} {100 - r} run{s}\n")
        (runs / f"run{s}.txt").write_text("".join(lines))
    return runs, qrels


@pytest.fixture(scope="session")
def study():
    """``experiments.run_study(metrics.load_trec9(), quick=True)``: the quick study of the embedded TREC-9
    data at nDCG@100, computed once per test session for the report's tests (a quick study takes ~15 s). A test
    module with a ``study`` fixture of its own (test_experiments_study.py: the demo's) overrides it."""
    from experiments import run_study

    return run_study(metrics.load_trec9(), quick=True)


@pytest.fixture(scope="session")
def small_study():
    """A fast report study on 20 topics of TREC-9 at nDCG@20 (a few seconds; not recognised as the published
    collection), computed once per test session for the report's tests."""
    from experiments import ReportSettings, run_study

    judged = metrics.load_trec9().subset(topics=list(range(20)))
    s = ReportSettings.quick(cutoff=20, discount_cutoffs=(10, 20), gain_cutoffs=(10, 20), n_resamples=50, n_splits=2,
                             starts=1)
    return run_study(judged, settings=s)
