"""A clear error when a module of the user's project shadows one of this distribution's top-level packages.

The distribution installs four top-level packages with common names: ``metrics``, ``gtheory``, ``optimize`` and
``experiments``. Run from a project that has its own ``metrics.py`` (or ``optimize.py``, an ``experiments/``
package, …), Python finds that file first on ``sys.path`` — the script's directory comes before site-packages — and
``import metrics`` inside ``optimize`` gets it; the failure would surface much later and far away, as
``AttributeError: module 'metrics' has no attribute 'load_trec9'``. So every package carries a marker,
``__gtheory_package__`` (its own name), and a package that imports a sibling calls :func:`require_siblings` first:
a sibling without the marker raises :class:`ShadowedPackageError` naming the file that shadows it and the fix.

This module lives in ``gtheory`` because ``gtheory`` imports no sibling (it stands alone) and is the distribution's
own name, the least likely to be taken by a user's module.
"""
from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType

__all__ = ["MARKER", "ShadowedPackageError", "require_siblings", "shadow_message", "explain_shadowed_gtheory"]

#: the attribute every top-level package of the distribution sets to its own name
MARKER = "__gtheory_package__"


class ShadowedPackageError(ImportError):
    """A sibling package's name resolves to another module (a file of the user's project, found first on
    ``sys.path``)."""


def _location(module: object) -> str:
    path = getattr(module, "__file__", None)
    if path:
        return os.path.dirname(path) if os.path.basename(path) == "__init__.py" else path
    portions = list(getattr(module, "__path__", []) or [])  # a namespace package: a folder without __init__.py
    return portions[0] if portions else repr(module)


def shadow_message(importer: str, name: str, module: object) -> str:
    """The error text: which package needed ``name``, the file or folder that took its place, and the fix."""
    where = _location(module)
    what = "folder" if os.path.isdir(where) else "file"
    if getattr(module, "__file__", None) is None and os.path.isfile(os.path.join(where, name, "__init__.py")):
        # a folder without __init__.py that holds the package: a clone of this repository named like the package,
        # found from its parent directory as an empty namespace package
        return (
            f"`{importer}` needs the `{name}` package of gtheory, but `import {name}` finds the folder {where}: a clone "
            f"of the gtheory repository, imported as an empty namespace package because the current directory (its "
            f"parent) comes first on sys.path. Install the clone with `pip install -e {where}` (reinstall if it is "
            f"installed: the editable install puts the clone's root on sys.path, where the package is found) or run "
            f"from another directory."
        )
    return (
        f"`{importer}` needs the `{name}` package of gtheory, but `import {name}` finds the {what} {where} first on "
        f"sys.path: a module of your project shadows it. Rename that {what} (e.g. to my_{name}) or run from "
        f"another directory (the directory of the script you run, or the current one for `python -c` / `-m` and "
        f"notebooks, comes first on sys.path)."
    )


def require_siblings(importer: str, *names: str) -> None:
    """Import each of ``names`` and check it is this distribution's package (its ``__gtheory_package__`` marker).

    Parameters
    ----------
    importer : the package asking (for the message).
    names : the sibling packages it imports.

    Raises
    ------
    ShadowedPackageError
        A name resolves to another module; the message names its file and the fix.
    """
    for name in names:
        module: ModuleType | None = sys.modules.get(name)
        if module is None:
            module = importlib.import_module(name)
        if getattr(module, MARKER, None) != name:
            raise ShadowedPackageError(shadow_message(importer, name, module), name=name)


def explain_shadowed_gtheory(importer: str) -> None:
    """For a sibling package whose import of ``gtheory.kit`` just failed: raise :class:`ShadowedPackageError` naming
    what took ``gtheory``'s place (a ``gtheory.py`` of the user's project, or a clone of this repository imported
    from its parent folder as an empty namespace package); return if ``gtheory`` is not shadowed, so the caller
    re-raises the original error. The caller loads this module from its file (``gtheory`` itself cannot be imported
    then)."""
    found = sys.modules.get("gtheory")
    if found is None or getattr(found, MARKER, None) == "gtheory":
        return
    raise ShadowedPackageError(shadow_message(importer, "gtheory", found), name="gtheory") from None
