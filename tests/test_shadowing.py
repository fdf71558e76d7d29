"""A module of the user's project that shadows one of our top-level packages (a ``metrics.py`` beside the script)
gives an ImportError naming the file and the fix, not ``AttributeError: module 'metrics' has no attribute
'load_trec9'`` from deep inside. Real subprocesses, run from a temporary project directory (first on sys.path)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_in(project: Path, code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # our packages come after the project directory ('' first)
    return subprocess.run([sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("importer", ["optimize", "experiments"])
def test_a_metrics_py_of_the_project_is_named(tmp_path, importer):
    (tmp_path / "metrics.py").write_text("def my_metric():\n    return 1\n")
    r = run_in(tmp_path, f"import {importer}")
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("gtheory.kit.siblings.ShadowedPackageError: "), r.stderr
    assert f"`{importer}` needs the `metrics` package of gtheory" in last
    assert f"finds the file {tmp_path / 'metrics.py'} first on sys.path" in last
    assert "Rename that file (e.g. to my_metrics) or run from another directory" in last
    assert "AttributeError" not in r.stderr


def test_an_optimize_package_folder_is_named(tmp_path):
    (tmp_path / "optimize").mkdir()
    (tmp_path / "optimize" / "__init__.py").write_text("")
    r = run_in(tmp_path, "import experiments")
    assert r.returncode == 1
    assert f"`experiments` needs the `optimize` package of gtheory, but `import optimize` finds the folder " \
           f"{tmp_path / 'optimize'} first" in r.stderr
    assert "Rename that folder (e.g. to my_optimize)" in r.stderr


def test_python_m_gtheory_names_an_experiments_folder(tmp_path):
    """`python -m gtheory` from a project with its own experiments/ package: one line on stderr, exit status 1."""
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "__init__.py").write_text("")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "gtheory", "--help"], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith("gtheory: error: `python -m gtheory` needs the `experiments` package of gtheory, but "
                               f"`import experiments` finds the folder {tmp_path / 'experiments'} first on sys.path")


@pytest.mark.parametrize("importer", ["metrics", "optimize", "experiments"])
def test_a_gtheory_py_of_the_project_is_named(tmp_path, importer):
    # `import metrics` too: it needs gtheory.kit, and used to fail with a bare "No module named 'gtheory.kit'"
    (tmp_path / "gtheory.py").write_text("x = 1\n")
    r = run_in(tmp_path, f"import {importer}")
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("gtheory_guard.ShadowedPackageError: "), r.stderr
    assert f"`{importer}` needs the `gtheory` package of gtheory, but `import gtheory` finds " \
           f"the file {tmp_path / 'gtheory.py'} first on sys.path" in last
    assert "No module named" not in r.stderr


def test_no_false_alarm_and_the_user_module_still_importable(tmp_path):
    """gtheory alone (it imports no sibling) works beside a metrics.py of the project, which stays importable."""
    (tmp_path / "metrics.py").write_text("VALUE = 7\n")
    r = run_in(tmp_path, "import gtheory, metrics; print(metrics.VALUE, gtheory.gstudy([[1, 2], [3, 5]]).n_systems)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["7", "2"]
