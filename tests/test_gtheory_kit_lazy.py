"""Tests of gtheory/kit/lazy.py: a package's public names resolved on first use (PEP 562).

Reference: the import system itself — ``sys.modules`` says what was imported — on a throw-away package written
under tmp_path, and on the four packages of the distribution in a fresh interpreter.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def toy_package(tmp_path, monkeypatch):
    """A package ``lazytoy`` with a function ``area`` in the submodule ``area.py`` (a name that is also a module)."""
    pkg = tmp_path / "lazytoy"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(textwrap.dedent("""
        from gtheory.kit.lazy import lazy_package
        __getattr__, __dir__ = lazy_package(__name__, {"area": "area", "UNIT": "area", "helper": "other"})
    """))
    (pkg / "area.py").write_text("UNIT = 'm2'\ndef area(w, h):\n    return w * h\n")
    (pkg / "other.py").write_text("def helper():\n    return 42\n")
    (pkg / "extra.py").write_text("VALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m == "lazytoy" or m.startswith("lazytoy.")]:
        monkeypatch.delitem(sys.modules, name)
    yield
    for name in [m for m in sys.modules if m == "lazytoy" or m.startswith("lazytoy.")]:
        del sys.modules[name]


def test_names_are_imported_on_first_use_and_cached(toy_package):
    import lazytoy

    assert "lazytoy.area" not in sys.modules and "lazytoy.other" not in sys.modules
    assert lazytoy.helper() == 42
    assert "lazytoy.other" in sys.modules and "lazytoy.area" not in sys.modules  # only what was used
    assert "helper" in vars(lazytoy)  # cached in the namespace: __getattr__ is not called again
    assert {"UNIT", "area", "helper"} <= set(dir(lazytoy))  # dir lists the lazy names before their first use
    assert "UNIT" not in vars(lazytoy)


def test_a_public_name_that_is_also_a_submodule_keeps_meaning_the_object(toy_package):
    import lazytoy

    assert lazytoy.area(2, 3) == 6  # the function, although importing area.py binds the module to the package
    import lazytoy.area  # noqa: F401  (an explicit submodule import must not rebind the name either)

    assert callable(lazytoy.area) and lazytoy.area(2, 3) == 6 and lazytoy.UNIT == "m2"
    from lazytoy import area

    assert area(1, 1) == 1


def test_submodules_are_reachable_and_unknown_names_raise_attribute_error(toy_package):
    import lazytoy

    assert lazytoy.extra.VALUE == 7  # any submodule, as after an eager import
    with pytest.raises(AttributeError, match=r"module 'lazytoy' has no attribute 'nothing'"):
        lazytoy.nothing
    with pytest.raises(AttributeError):
        lazytoy.__wrapped__  # dunder names are never looked up as submodules


def test_a_broken_submodule_reports_its_own_import_error(toy_package, tmp_path):
    (tmp_path / "lazytoy" / "broken.py").write_text("import no_such_module_anywhere\n")
    import lazytoy

    with pytest.raises(ModuleNotFoundError, match="no_such_module_anywhere"):
        lazytoy.broken


def test_import_of_the_packages_loads_none_of_their_modules():
    # in a fresh interpreter: `import gtheory, metrics` imports the lazy machinery and no public module
    code = ("import sys, gtheory, metrics; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('gtheory', 'metrics')))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    loaded = set(eval(r.stdout))
    assert {"gtheory", "metrics", "gtheory.kit.lazy"} <= loaded
    assert not loaded & {"gtheory.gstudy", "gtheory.gstudy.balanced", "metrics.measures.ndcg", "metrics.io.judged"}


def test_import_metrics_loads_only_the_kit_of_gtheory():
    # metrics stands on the shared kit only: importing it loads no G-theory module (gtheory's own __init__ is lazy)
    code = ("import sys, metrics; bad = sorted(m for m in sys.modules if m.startswith('gtheory.') and "
            "not m.startswith('gtheory.kit')); assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_a_dotted_module_in_the_table_is_absolute(toy_package, tmp_path):
    # a name defined outside the package (metrics.FixableError is gtheory.kit.errors') is listed by its full module
    (tmp_path / "lazytoy" / "__init__.py").write_text(
        "from gtheory.kit.lazy import lazy_package\n"
        "__getattr__, __dir__ = lazy_package(__name__, {'FixableError': 'gtheory.kit.errors', 'helper': 'other'})\n")
    import lazytoy
    import gtheory.kit.errors

    assert lazytoy.FixableError is gtheory.kit.errors.FixableError and lazytoy.helper() == 42


@pytest.fixture
def toy_rooms(tmp_path, monkeypatch):
    """A package ``roomtoy`` with one room ``shapes`` (a subpackage) whose public names the package's table places."""
    pkg = tmp_path / "roomtoy"
    (pkg / "shapes").mkdir(parents=True)
    (pkg / "__init__.py").write_text(textwrap.dedent("""
        from gtheory.kit.lazy import lazy_package
        _EXPORTS = {"square": "shapes.square", "circle": "shapes.round", "top": "top"}
        __getattr__, __dir__ = lazy_package(__name__, _EXPORTS)
        __all__ = list(_EXPORTS)
    """))
    (pkg / "shapes" / "__init__.py").write_text(textwrap.dedent("""
        from gtheory.kit.lazy import room_front
        __getattr__, __dir__, __all__ = room_front(__name__, internal={"_side": "square"})
    """))
    (pkg / "shapes" / "square.py").write_text("def _side(a):\n    return a ** 0.5\ndef square(a):\n    return a * a\n")
    (pkg / "shapes" / "round.py").write_text("def circle(r):\n    return 3 * r * r\n")
    (pkg / "top.py").write_text("def top():\n    return 'top'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    for name in [m for m in sys.modules if m == "roomtoy" or m.startswith("roomtoy.")]:
        del sys.modules[name]


def test_a_room_serves_the_names_its_package_places_in_it(toy_rooms):
    import roomtoy.shapes

    assert roomtoy.shapes.__all__ == ["square", "circle"]  # the package's order; the internal name is not public
    assert "roomtoy.shapes.square" not in sys.modules  # lazy, as the package front
    assert roomtoy.shapes.square(3) == 9 and roomtoy.square(3) == 9 and roomtoy.circle(1) == 3
    assert roomtoy.shapes.square is roomtoy.square  # one object, two fronts of one table entry
    from roomtoy.shapes import _side  # lent to the package's other rooms

    assert _side(9) == 3.0 and "_side" not in roomtoy.__all__
    assert roomtoy.top() == "top"
    with pytest.raises(AttributeError):
        roomtoy.shapes.top  # a name the table places elsewhere is not served by this room


def test_a_room_of_a_package_without_a_table_is_refused(tmp_path, monkeypatch):
    (tmp_path / "plainpkg" / "room").mkdir(parents=True)
    (tmp_path / "plainpkg" / "__init__.py").write_text("")
    (tmp_path / "plainpkg" / "room" / "__init__.py").write_text(
        "from gtheory.kit.lazy import room_front\n__getattr__, __dir__, __all__ = room_front(__name__)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImportError, match="plainpkg.*no lazy table"):
        import plainpkg.room  # noqa: F401
    for name in [m for m in sys.modules if m.startswith("plainpkg")]:
        del sys.modules[name]
