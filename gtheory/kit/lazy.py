"""Lazy public names for a package's ``__init__`` (PEP 562): ``import gtheory`` stays cheap and each public name's
module is imported the first time the name is used (``gtheory.gstudy``, ``from gtheory import gstudy``).

One implementation for the four packages (the shared kit: ``import metrics`` loads only ``gtheory.kit``).
"""
from __future__ import annotations

import importlib
import sys
import types
from typing import Any, Callable

__all__ = ["lazy_package", "room_front", "TOP_PACKAGES"]


class _LazyPackage(types.ModuleType):
    """A package whose public names are resolved on first use.

    The import system binds a submodule to its parent's attribute once it is loaded
    (``setattr(package, "ndcg", <module ndcg>)``). Where a public name is also the name of a submodule (the
    function ``ndcg`` and the module ``ndcg.py``), that binding would hide the function; it is skipped, so the
    name keeps meaning the public object, as it did when the package imported it eagerly.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        exports = self.__dict__.get("_lazy_exports", {})
        if (name in exports and isinstance(value, types.ModuleType)
                and value.__name__ == f"{self.__name__}.{name}"):
            return
        super().__setattr__(name, value)


#: the distribution's top-level packages: a table entry starting with one of them is a full module path
TOP_PACKAGES = ("gtheory", "metrics", "optimize", "experiments")


def _module_path(package: str, sub: str) -> str:
    """The full dotted name of table entry ``sub`` of ``package``: relative (``"gstudy"``, ``"io.judged"``, a module
    of a room) unless it starts with a top-level package (``"gtheory.kit.errors"``)."""
    return sub if sub.split(".")[0] in TOP_PACKAGES else f"{package}.{sub}"


def _resolver(module: types.ModuleType, where: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    package = module.__name__

    def __getattr__(name: str) -> Any:
        sub = where.get(name)
        if sub is not None:
            value = getattr(importlib.import_module(sub), name)
            module.__dict__[name] = value
            return value
        if not name.startswith("__"):
            try:
                return importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(module.__dict__) | set(where))

    return __getattr__, __dir__


def lazy_package(package: str, exports: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Make ``package`` (being initialised) resolve ``exports`` lazily; returns its ``__getattr__`` and ``__dir__``.

    ``exports`` is the package's one table of public names: each name and the module that defines it, relative to the
    package (``"gstudy"``; a module of one of its rooms, the subpackages, as ``"io.judged"``) or by its full dotted
    name when it starts with a top-level package (``"gtheory.kit.errors"``); the package's ``__all__`` is its keys. A
    name is imported from its module on first access and then cached in the package's namespace; any submodule is
    reachable as an attribute too (``gtheory.<submodule>``), as after an eager import.
    """
    module = sys.modules[package]
    where = {name: _module_path(package, sub) for name, sub in exports.items()}
    module.__dict__["_lazy_exports"] = where
    module.__class__ = _LazyPackage
    return _resolver(module, where)


def room_front(room: str, internal: dict[str, str] | None = None
               ) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """Make the room ``room`` (a subpackage, being initialised) the front of its modules; returns its ``__getattr__``,
    ``__dir__`` and ``__all__``.

    A room serves, lazily, the public names that its package's ``_EXPORTS`` table places in it (written there only,
    once), in the table's order, and ``internal``: names its modules lend to the package's other rooms without
    being public (name -> module relative to the room). Code outside the room imports from this front only.
    """
    package, _, _ = room.rpartition(".")
    parent = importlib.import_module(package)
    table = parent.__dict__.get("_lazy_exports")
    if table is None:
        raise ImportError(f"room {room!r}: its package {package!r} has no lazy table of public names")
    module = sys.modules[room]
    where = {name: sub for name, sub in table.items() if sub.startswith(room + ".")}
    public = list(where)
    where.update({name: f"{room}.{sub}" for name, sub in (internal or {}).items()})
    module.__dict__["_lazy_exports"] = where
    module.__class__ = _LazyPackage
    return (*_resolver(module, where), public)
