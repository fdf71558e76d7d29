"""Lazy public names for a package's ``__init__`` (PEP 562): ``import gtheory`` stays cheap and each public name's
module is imported the first time the name is used (``gtheory.gstudy``, ``from gtheory import gstudy``).

One implementation for the four packages (the shared kit: ``import metrics`` loads only ``gtheory.kit``).
"""
from __future__ import annotations

import importlib
import sys
import types
from typing import Any, Callable

__all__ = ["lazy_package"]


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


def lazy_package(package: str, exports: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Make ``package`` (being initialised) resolve ``exports`` lazily; returns its ``__getattr__`` and ``__dir__``.

    ``exports`` is the package's one table of public names: each name and the module that defines it, a submodule by
    its relative name (``"gstudy"``), any other module by its full dotted name (``"gtheory.kit.errors"``: a name
    containing a dot is absolute); the package's ``__all__`` is its keys. A name is imported from its module on first
    access and then cached in the package's namespace; any submodule is reachable as an attribute too
    (``gtheory.<submodule>``), as after an eager import.
    """
    module = sys.modules[package]
    where = {name: sub if "." in sub else f"{package}.{sub}" for name, sub in exports.items()}
    module.__dict__["_lazy_exports"] = where
    module.__class__ = _LazyPackage

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
