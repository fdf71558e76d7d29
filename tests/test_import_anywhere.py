"""`import gtheory` from the clone's parent folder (the layout the README suggests: shared/ beside the clone).

A clone of this repository named ``gtheory`` has no ``__init__.py`` at its root, so from its parent directory
(first on sys.path for ``python -c``, ``-m`` and notebooks) Python imports the clone as an empty namespace package
unless a regular package ``gtheory`` is found anywhere on sys.path. The editable install puts the clone's root on
sys.path as a path entry (pyproject.toml: ``package-dir``), so the package is found and wins; where ``gtheory`` still
resolves to the clone's folder, importing a sibling package says so and how to fix it. Real subprocesses, run from
a temporary parent folder holding a clone named ``gtheory``.
"""
from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import types
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from gtheory.kit.siblings import ShadowedPackageError, shadow_message

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("gtheory", "metrics", "optimize", "experiments")


def clone_named_gtheory(parent: Path) -> Path:
    """A copy of the repository's packages and pyproject.toml in ``parent/gtheory`` (a clone named like the package)."""
    clone = parent / "gtheory"
    clone.mkdir()
    shutil.copy(ROOT / "pyproject.toml", clone)
    for pkg in PACKAGES:
        shutil.copytree(ROOT / pkg, clone / pkg, ignore=shutil.ignore_patterns("__pycache__", "data"))
    return clone


def installed_from() -> tuple[Path | None, bool] | None:
    """How pip installed gtheory: (the local directory it was installed from, or None; whether editable), or None
    when pip did not install it (a build's gtheory.egg-info in the checkout carries no direct_url.json)."""
    for dist in metadata.distributions(name="gtheory"):
        text = dist.read_text("direct_url.json")
        if text:
            info = json.loads(text)
            url = urlparse(info.get("url", ""))
            where = Path(unquote(url.path)).resolve() if url.scheme == "file" else None
            return where, bool(info.get("dir_info", {}).get("editable"))
    return None


def test_the_installed_package_wins_over_a_clone_folder_in_the_current_directory(tmp_path):
    """``cd <clone's parent> && python -c "import gtheory; gtheory.gstudy"`` with this checkout installed as the
    README says (``pip install -e .``): the clone's root is on sys.path, so the package is found, not the folder."""
    how = installed_from()
    if how is None:
        pytest.skip("gtheory is not installed (pip install -e .)")
    where, editable = how
    if editable and where != ROOT:
        pytest.skip(f"the installed gtheory is an editable install of another checkout ({where})")
    clone_named_gtheory(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the install alone, as a user has it
    r = subprocess.run([sys.executable, "-c", "import gtheory; gtheory.gstudy; print(gtheory.__file__)"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, (
        f"import gtheory from the clone's parent folder failed: {r.stderr.strip().splitlines()[-1:]} — an editable "
        "install made before pyproject.toml's package-dir mapping uses an import hook that the namespace package "
        "beats: reinstall with `pip install -e .`")
    found = Path(r.stdout.strip()).resolve()
    assert found.name == "__init__.py" and found.parent.name == "gtheory" and found.parent.parent != tmp_path


def test_a_sibling_import_names_the_clone_folder_and_the_fix(tmp_path):
    """Without the clone's root on sys.path (not installed, or an old editable install), ``gtheory`` is the clone's
    folder; importing optimize or experiments (what the CLI does) stops with a message that says so."""
    clone = clone_named_gtheory(tmp_path)
    site = tmp_path / "site"  # the siblings importable, the gtheory package not (the folder in cwd takes its name)
    site.mkdir()
    for pkg in ("metrics", "optimize", "experiments"):
        (site / pkg).symlink_to(ROOT / pkg, target_is_directory=True)
    for pkg in ("optimize", "experiments"):
        # -S: no site-packages, so no installed gtheory either; the error comes before anything needs numpy
        r = subprocess.run([sys.executable, "-S", "-c", f"import {pkg}"], cwd=tmp_path,
                           env={**os.environ, "PYTHONPATH": str(site)}, capture_output=True, text=True, timeout=120)
        assert r.returncode == 1
        last = r.stderr.strip().splitlines()[-1]
        assert last.startswith("gtheory_guard.ShadowedPackageError: "), r.stderr
        assert f"`{pkg}` needs the `gtheory` package of gtheory, but `import gtheory` finds the folder {clone}: " \
               "a clone of the gtheory repository, imported as an empty namespace package" in last
        assert f"Install the clone with `pip install -e {clone}`" in last


def test_the_message_tells_a_clone_from_a_project_folder(tmp_path):
    clone = clone_named_gtheory(tmp_path)
    ns = types.ModuleType("gtheory")
    ns.__path__ = [str(clone)]  # what Python builds for a folder without __init__.py
    assert "a clone of the gtheory repository" in shadow_message("optimize", "gtheory", ns)
    other = tmp_path / "project" / "gtheory"  # a folder of the user's project, without the package inside
    other.mkdir(parents=True)
    ns.__path__ = [str(other)]
    text = shadow_message("optimize", "gtheory", ns)
    assert "a clone of the gtheory repository" not in text and f"finds the folder {other} first on sys.path" in text


@pytest.mark.parametrize("shadow", ["clone", "gtheory.py"])
def test_metrics_display_names_what_shadows_gtheory(tmp_path, monkeypatch, shadow):
    """metrics stands on gtheory's shared kit only (lazy names, errors, display): the guard of its first kit import
    (metrics/__init__.py) gives the same message, not `No module named 'gtheory.kit'` (the clone's folder, or a
    gtheory.py of the user's project)."""
    if shadow == "clone":
        fake = types.ModuleType("gtheory")
        fake.__path__ = [str(clone_named_gtheory(tmp_path))]
        expected = "a clone of the gtheory repository"
    else:
        (tmp_path / "gtheory.py").write_text("x = 1\n")
        fake = types.ModuleType("gtheory")
        fake.__file__ = str(tmp_path / "gtheory.py")
        expected = f"finds the file {tmp_path / 'gtheory.py'} first on sys.path"
    monkeypatch.setitem(sys.modules, "gtheory", fake)
    for name in [m for m in sys.modules if m.startswith("gtheory.") or m == "metrics" or m.startswith("metrics.")]:
        monkeypatch.delitem(sys.modules, name, raising=False)
    # only the standard finders: an older editable install's import hook would find gtheory.kit.display regardless
    monkeypatch.setattr(sys, "meta_path", [f for f in sys.meta_path
                                           if getattr(f, "__module__", "").startswith("_frozen_importlib")])
    with pytest.raises(ImportError, match=re.escape(expected)) as e:
        importlib.import_module("metrics")
    assert type(e.value).__name__ == ShadowedPackageError.__name__ and e.value.name == "gtheory"
