"""A cheap start: ``gtheory --help`` (and every subcommand's) imports no scipy.stats, pandas, matplotlib or cvxpy, and
the four packages resolve their public names lazily (PEP 562) without changing what those names are. The time itself
is measured in benchmarks/bench_cli_startup.py (not here: a timed unit test would depend on the machine)."""
from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from experiments.cli import SUBCOMMANDS
from gtheory.kit.lazy import TOP_PACKAGES

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("scipy.stats", "pandas", "matplotlib", "cvxpy")
PACKAGES = ("gtheory", "metrics", "optimize", "experiments")


def loaded_after(code: str) -> list[str]:
    """The heavy modules in sys.modules after ``code`` ran in a fresh interpreter (SystemExit caught)."""
    probe = (f"import sys\ntry:\n    exec({code!r})\nexcept SystemExit:\n    pass\n"
             f"sys.stderr.write('\\nLOADED:' + ' '.join(m for m in {HEAVY!r} if m in sys.modules) + '\\n')")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    last = [ln for ln in r.stderr.splitlines() if ln.startswith("LOADED:")]
    assert last, r.stderr
    return last[-1][len("LOADED:"):].split()


@pytest.mark.parametrize("argv", [["--help"], []] + [[c, "--help"] for c in SUBCOMMANDS])
def test_help_imports_nothing_heavy(argv):
    code = f"import sys; from experiments.cli import main; sys.argv = ['gtheory', *{argv!r}]; sys.exit(main())"
    assert loaded_after(code) == []


def test_python_m_gtheory_help_imports_nothing_heavy():
    assert loaded_after("import runpy, sys; sys.argv = ['gtheory', '--help']; "
                        "runpy.run_module('gtheory', run_name='__main__')") == []


def test_importing_the_packages_imports_nothing_heavy():
    assert loaded_after("import gtheory, metrics, optimize, experiments") == []


@pytest.mark.parametrize("name", PACKAGES)
def test_every_public_name_resolves_and_dir_lists_it(name):
    pkg = importlib.import_module(name)
    assert set(pkg.__all__) <= set(dir(pkg))
    for attr in pkg.__all__:
        value = getattr(pkg, attr)
        assert not isinstance(value, type(sys)), f"{name}.{attr} is a module, not the public object"
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        getattr(pkg, "no_such_name")


@pytest.mark.parametrize("name", PACKAGES)
def test_the_one_table_names_each_public_name_once_with_its_defining_module(name):
    """``_EXPORTS`` (each public name and its module) is the package's one list: ``__all__`` is its keys, in order,
    and each function's or class's module is the one the table names (not a module that re-exports it)."""
    pkg = importlib.import_module(name)
    assert pkg.__all__ == list(pkg._EXPORTS)
    for attr, sub in pkg._EXPORTS.items():
        home = sub if sub.split(".")[0] in TOP_PACKAGES else f"{name}.{sub}"  # relative: a module or a room's
        obj = getattr(importlib.import_module(home), attr)
        assert getattr(pkg, attr) is obj
        if isinstance(obj, type) or callable(obj):
            assert obj.__module__ == home, f"{name}.{attr} is defined in {obj.__module__}, the table says {home}"


def test_a_public_name_that_is_also_a_submodule_stays_the_public_object():
    # gtheory.gstudy is the function although gtheory/gstudy/ is a room and gtheory/gstudy/gstudy.py a module;
    # importing them (`from gtheory.gstudy import gstudy`, as the other packages do) must not rebind the name
    code = ("import importlib, types, gtheory, metrics, experiments\n"
            "import gtheory.gstudy.gstudy, metrics.measures.ndcg, metrics.measures.evaluate, experiments.sweep\n"
            "from gtheory.gstudy.gstudy import gstudy as _f\n"
            "assert callable(gtheory.gstudy) and not isinstance(gtheory.gstudy, types.ModuleType)\n"
            "assert gtheory.gstudy is importlib.import_module('gtheory.gstudy.gstudy').gstudy\n"
            "assert metrics.ndcg is importlib.import_module('metrics.measures.ndcg').ndcg\n"
            "assert metrics.evaluate is importlib.import_module('metrics.measures.evaluate').evaluate\n"
            "from experiments import sweep; assert sweep is importlib.import_module('experiments.sweep').sweep\n"
            "assert gtheory.topics.__name__ == 'gtheory.topics'  # a submodule stays reachable\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
