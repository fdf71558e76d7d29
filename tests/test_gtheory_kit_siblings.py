"""Tests of gtheory/kit/siblings.py: the guard that a sibling package is this distribution's and not a user's module
of the same name (the subprocess tests from a real project directory are in test_shadowing.py).

Reference: the import system's own view, ``sys.modules`` and each package's ``__gtheory_package__`` marker.
"""
from __future__ import annotations

import sys
import types

import pytest

import gtheory
import metrics
import optimize
from gtheory.kit.siblings import MARKER, ShadowedPackageError, require_siblings, shadow_message


def test_markers_and_in_process_check(monkeypatch):
    import experiments

    for pkg in (metrics, gtheory, optimize, experiments):
        assert getattr(pkg, MARKER) == pkg.__name__
    require_siblings("test", "metrics", "gtheory", "optimize", "experiments")  # ours: no error
    fake = type(sys)("metrics")
    fake.__file__ = "/somewhere/metrics.py"
    monkeypatch.setitem(sys.modules, "metrics", fake)
    with pytest.raises(ShadowedPackageError, match=r"finds the file /somewhere/metrics.py first on sys.path") as e:
        require_siblings("optimize", "metrics")
    assert isinstance(e.value, ImportError) and e.value.name == "metrics"


def test_a_folder_and_a_clone_are_named_as_such(tmp_path):
    # a package folder of the user's project: "the folder ..." (the directory, not its __init__.py)
    (tmp_path / "metrics").mkdir()
    (tmp_path / "metrics" / "__init__.py").write_text("")
    pkg = types.ModuleType("metrics")
    pkg.__file__ = str(tmp_path / "metrics" / "__init__.py")
    msg = shadow_message("optimize", "metrics", pkg)
    assert f"finds the folder {tmp_path / 'metrics'} first on sys.path" in msg and "Rename that folder" in msg
    # a clone of the repository found from its parent: an empty namespace package whose folder holds the package
    clone = tmp_path / "metrics_clone"
    (clone / "metrics").mkdir(parents=True)
    (clone / "metrics" / "__init__.py").write_text("")
    ns = types.ModuleType("metrics")
    ns.__file__ = None
    ns.__path__ = [str(clone)]
    msg = shadow_message("optimize", "metrics", ns)
    assert f"finds the folder {clone}: a clone of the gtheory repository" in msg
    assert f"pip install -e {clone}" in msg


def test_a_module_without_the_marker_is_refused_even_when_named_like_ours(monkeypatch, tmp_path):
    (tmp_path / "optimize").mkdir()
    (tmp_path / "optimize" / "__init__.py").write_text("")
    fake = types.ModuleType("optimize")
    fake.__file__ = str(tmp_path / "optimize" / "__init__.py")
    setattr(fake, MARKER, "metrics")  # a marker naming another package is not this package's
    monkeypatch.setitem(sys.modules, "optimize", fake)
    with pytest.raises(ShadowedPackageError, match="finds the folder " + str(tmp_path / "optimize") + " first"):
        require_siblings("experiments", "optimize")
