"""The layering rules of docs/architecture.md, checked on the source: packages import only public names of one
another, the shared kit stands at the bottom and stays light."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOPS = ("gtheory", "metrics", "optimize", "experiments")


def _imports(path: Path):
    """(line, module, names) of every absolute import in ``path``, function-level and TYPE_CHECKING ones included."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name, []


def _resolved_imports(path: Path):
    """(line, module, names) of every import in ``path``, relative ones resolved to their absolute module."""
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            yield node.lineno, module, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name, []


def _library_modules():
    for top in TOPS:
        yield from sorted((ROOT / top).rglob("*.py"))


def test_no_module_imports_a_private_module_or_name_of_another_package():
    bad = []
    for path in _library_modules():
        own = path.relative_to(ROOT).parts[0]
        for line, module, names in _imports(path):
            parts = module.split(".")
            if parts[0] not in TOPS or parts[0] == own:
                continue
            if any(p.startswith("_") for p in parts[1:]) or any(n.startswith("_") for n in names):
                bad.append(f"{path.relative_to(ROOT)}:{line}: {module} {names}")
    assert not bad, "\n".join(bad)


def test_the_kit_imports_nothing_of_the_project_and_nothing_heavy():
    kit = ROOT / "gtheory" / "kit"
    for path in sorted(kit.glob("*.py")):
        for line, module, _ in _imports(path):
            top = module.split(".")[0]
            assert top not in TOPS or module.startswith("gtheory.kit"), f"{path.name}:{line} imports {module}"
    names = ", ".join(f"gtheory.kit.{p.stem}" for p in sorted(kit.glob("*.py")) if p.stem != "__init__")
    code = (f"import sys, {names}; heavy = [m for m in ('pandas', 'scipy', 'matplotlib', 'cvxpy', 'statsmodels') "
            "if m in sys.modules]; assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


import pytest  # noqa: E402  (appended with the test below, to keep this file's other lines as they are)




@pytest.mark.parametrize("top", ["gtheory", "metrics", "optimize",
                                 "experiments"])
def test_every_library_module_has_a_test_file_named_for_it(top):
    """tests/ mirrors the modules (one test module per module): ``pkg/sub/_mod.py`` is tested in
    ``tests/test_pkg_sub_mod.py`` (leading underscores of each part stripped; ``__init__`` and ``__main__`` excepted)."""
    assert top in TOPS
    missing = []
    for path in sorted((ROOT / top).rglob("*.py")):
        if path.stem in ("__init__", "__main__"):
            continue
        parts = [p.lstrip("_") for p in path.relative_to(ROOT).with_suffix("").parts]
        expected = ROOT / "tests" / f"test_{'_'.join(parts)}.py"
        if not expected.is_file():
            missing.append(f"{path.relative_to(ROOT)} -> tests/{expected.name}")
    assert not missing, f"{len(missing)} modules without their test file:\n" + "\n".join(missing)


@pytest.mark.parametrize("top", TOPS)
def test_no_library_module_over_600_lines(top):
    """Rooms of one concept (issue 32): a module past 600 lines holds more than one concept and is split by concept."""
    big = [f"{p.relative_to(ROOT)}: {n}" for p in sorted((ROOT / top).rglob("*.py"))
           if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600]
    assert not big, big


# ------------------------------------------------------------------ rooms: subpackages entered by their front
# A package that holds several concepts keeps each in a room, a subpackage whose ``__init__`` (gtheory.kit.lazy's
# room_front) is its one front. Code outside a room imports from that front (or the package's), never from a
# module inside it; and within a package the modules import one another without a circle, imports inside
# functions included (a circle closed inside a function is still two concepts that need each other).

def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _rooms() -> set[str]:
    return {_module_name(p) for top in TOPS for p in (ROOT / top).rglob("__init__.py") if p.parent != ROOT / top}


def _room_of(module: str, rooms: set[str]) -> str | None:
    inside = [r for r in rooms if module == r or module.startswith(r + ".")]
    return max(inside, key=len) if inside else None


def test_code_outside_a_room_imports_from_its_front():
    rooms = _rooms()
    bad = []
    for path in _library_modules():
        here = _module_name(path)
        for line, module, _ in _resolved_imports(path):
            room = _room_of(module, rooms)
            if room is None or module == room or room == "gtheory.kit":  # the kit: one toolbox, imported by module
                continue
            if _room_of(here, rooms) != room:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {module} (use its front, {room})")
    assert not bad, "\n".join(bad)


def _defining_module(module: str, name: str) -> str:
    """Where ``from module import name`` really takes ``name`` from: through a lazy front, its defining module."""
    import importlib

    if not (ROOT / module.replace(".", "/") / "__init__.py").is_file():
        return module  # a module, not a front
    table = importlib.import_module(module).__dict__.get("_lazy_exports", {})
    if name in table:
        return table[name]
    if f"{module}.{name}" in {_module_name(p) for p in _library_modules()}:
        return f"{module}.{name}"
    return module


def _import_graph(top: str) -> dict[str, set[str]]:
    names = {_module_name(p): p for p in sorted((ROOT / top).rglob("*.py"))}
    graph: dict[str, set[str]] = {m: set() for m in names}
    for here, path in names.items():
        if path.name == "__init__.py":  # a front's imports are lazy or the kit's: no edge of the package's graph
            continue
        for _, module, imported in _resolved_imports(path):
            if module.split(".")[0] != top:
                continue
            targets = [_defining_module(module, n) for n in imported] if imported else [module]
            graph[here] |= {t for t in targets if t in names and t != here and not names[t].name == "__init__.py"}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


@pytest.mark.parametrize("top", TOPS)
def test_no_import_circle_inside_a_package(top):
    circles = _circles(_import_graph(top))
    assert not circles, "\n".join(" <-> ".join(c) for c in circles)


def test_the_circle_check_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


# ------------------------------------------------------------------ no compatibility scaffolding (issue 32)
# Nothing was released, so no caller needs an old spelling: each thing has one name, and a shim that comes back
# (a renamed parameter that warns, a moved name served by a module's __getattr__, a hidden old CLI option) fails here.

def test_the_library_raises_no_future_or_deprecation_warning():
    found = [f"{p.relative_to(ROOT)}:{k}" for p in _library_modules()
             for k, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if "FutureWarning" in line or "DeprecationWarning" in line]
    assert not found, "old spellings kept with a warning:\n" + "\n".join(found)


def test_no_module_level_getattr_outside_package_fronts():
    """A module-level ``__getattr__`` (PEP 562) serves lazy names in a package's ``__init__``; anywhere else it
    serves names that moved away."""
    found = []
    for path in _library_modules():
        if path.name == "__init__.py":
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            names = ([node.name] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else
                     [t.id for t in node.targets if isinstance(t, ast.Name)] if isinstance(node, ast.Assign) else [])
            if "__getattr__" in names:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, found


def test_no_subcommand_takes_an_old_option_spelling():
    from experiments.cli import build_parser

    parser = build_parser()
    (sub,) = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    assert len(sub.choices) >= 10  # every subcommand is looked at
    old = {"--B", "--condensed"}
    bad = {name: sorted(old & set(p._option_string_actions)) for name, p in sub.choices.items()}
    assert not any(bad.values()), {k: v for k, v in bad.items() if v}


def _only_reexports(tree: ast.Module) -> bool:
    """A module whose body is only a docstring, imports, ``__all__`` and ``try``/``if`` blocks of the same: it
    defines nothing and only gives other modules' names a second import path."""
    def plain(nodes) -> bool:
        for n in nodes:
            if isinstance(n, (ast.Import, ast.ImportFrom, ast.Pass)):
                continue
            if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant):  # the docstring
                continue
            if (isinstance(n, (ast.Assign, ast.AnnAssign))
                    and [getattr(t, "id", None) for t in (n.targets if isinstance(n, ast.Assign) else [n.target])]
                    == ["__all__"]):
                continue
            if isinstance(n, ast.Try) and plain(n.body) and all(plain(h.body) or _raises(h.body) for h in n.handlers):
                continue
            if isinstance(n, ast.If) and plain(n.body) and plain(n.orelse):
                continue
            return False
        return True
    return plain(tree.body) and any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.walk(tree))


def _raises(nodes) -> bool:
    return bool(nodes) and isinstance(nodes[-1], ast.Raise)


def test_no_library_module_only_re_exports():
    """One import path per name (issue 32): a module that defines nothing (only imports and ``__all__``) is a second
    front for names defined elsewhere; importers use the defining module. Package ``__init__`` files are the fronts."""
    fronts = [str(p.relative_to(ROOT)) for p in _library_modules()
              if p.stem not in ("__init__", "__main__") and _only_reexports(ast.parse(p.read_text(encoding="utf-8")))]
    assert not fronts, fronts


def test_the_check_finds_a_module_that_only_re_exports():
    # the rule above on modules written for it: a front is found, a module that defines one thing is not
    front = '"""A front."""\nfrom __future__ import annotations\ntry:\n    from .a import f\nexcept ImportError:\n' \
            '    raise\nfrom .b import g as h\n__all__ = ["f", "h"]\n'
    assert _only_reexports(ast.parse(front))
    assert not _only_reexports(ast.parse(front + "X = 1\n"))
    assert not _only_reexports(ast.parse(front + "def f():\n    pass\n"))


def _names_written_more_than_once(source: str) -> list[str]:
    """The public names (keys of the ``_EXPORTS`` dict literal: name -> defining module) that the ``__init__`` source
    writes again: a repeated key, an import of the name, or the name as a string elsewhere (an ``__all__`` list);
    also ``__all__`` not derived from the table."""
    tree = ast.parse(source)
    table = [n for n in tree.body if isinstance(n, ast.AnnAssign) and getattr(n.target, "id", "") == "_EXPORTS"]
    assert len(table) == 1 and isinstance(table[0].value, ast.Dict), "one _EXPORTS table, a dict literal"
    keys = [k.value for k in table[0].value.keys]
    written = list(keys)
    entries = {id(k) for k in table[0].value.keys} | {id(v) for v in table[0].value.values}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            written += [a.asname or a.name for a in node.names if (a.asname or a.name) in keys]
        elif isinstance(node, ast.Constant) and node.value in keys and id(node) not in entries:
            written.append(node.value)
    alls = [n for n in tree.body if isinstance(n, ast.Assign) and [getattr(t, "id", "") for t in n.targets] == ["__all__"]]
    if len(alls) != 1 or ast.unparse(alls[0].value) != "list(_EXPORTS)":
        written.append("__all__")
    return sorted({w for w in written if written.count(w) > 1 or w == "__all__"})


@pytest.mark.parametrize("top", TOPS)
def test_each_package_init_writes_each_public_name_once(top):
    """Each public name is written in one place, the package's ``_EXPORTS`` table; ``__all__`` is derived from it."""
    assert _names_written_more_than_once((ROOT / top / "__init__.py").read_text(encoding="utf-8")) == []


def test_the_check_finds_a_name_written_twice():
    one = '_EXPORTS: dict[str, str] = {"f": "a", "g": "g"}\n__all__ = list(_EXPORTS)\n'
    assert _names_written_more_than_once(one) == []
    assert _names_written_more_than_once(one.replace('"g": "g"}', '"g": "g", "f": "b"}')) == ["f"]
    assert _names_written_more_than_once("if T:\n    from .a import f\n" + one) == ["f"]
    assert _names_written_more_than_once(one.replace("list(_EXPORTS)", '["f", "g"]')) == ["__all__", "f", "g"]
