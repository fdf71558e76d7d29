"""Errors and warnings that carry their fix as data: the shared kit's (:mod:`gtheory.kit.errors`), under the name
``metrics.fixes`` they have always had."""
from gtheory.kit.errors import FixableError, FixableWarning, python_fix

__all__ = ["FixableError", "FixableWarning", "python_fix"]
