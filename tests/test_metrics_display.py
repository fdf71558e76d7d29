"""Tests of metrics/_display.py: metrics' notebook display helpers are the shared kit's (one implementation), and a
shadowed ``gtheory`` is named by the guard of gtheory/kit/siblings.py instead of failing deep inside an import.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

import gtheory

ROOT = Path(__file__).resolve().parents[1]


def test_metrics_display_helpers_are_the_kits_and_import_metrics_loads_only_the_kit():
    # one implementation (gtheory.kit.display); metrics stands on the shared kit only: importing it loads no
    # G-theory module (gtheory's own __init__ is lazy) and none of pandas' or scipy's weight for the kit
    import subprocess
    import sys

    import metrics._display

    assert (metrics._display.fmt, metrics._display.html_table, metrics._display.kv_table) == (
        gtheory.kit.display.fmt, gtheory.kit.display.html_table, gtheory.kit.display.kv_table)
    code = ("import sys, metrics; bad = sorted(m for m in sys.modules if m.startswith('gtheory.') and "
            "not m.startswith('gtheory.kit')); assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_a_shadowed_gtheory_is_named_by_the_guard(monkeypatch):
    # `gtheory` resolves to a user's file once metrics is loaded: loading metrics' display helpers must name that file
    # (the guard of gtheory/kit/siblings.py, loaded from its path), not fail with "'gtheory' is not a package"
    import importlib
    import types

    import metrics
    from gtheory.kit.siblings import ShadowedPackageError

    fake = types.ModuleType("gtheory")
    fake.__file__ = "/somewhere/gtheory.py"
    monkeypatch.setitem(sys.modules, "gtheory", fake)
    for name in ("gtheory.kit", "gtheory.kit.display", "metrics._display"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.delattr(metrics, "_display", raising=False)
    with pytest.raises(ImportError, match=r"`metrics` needs the `gtheory` package of gtheory, but `import gtheory` "
                                          r"finds the file /somewhere/gtheory.py first on sys.path") as err:
        importlib.import_module("metrics._display")
    assert type(err.value).__name__ == ShadowedPackageError.__name__ and err.value.name == "gtheory"
