"""A fix as data: errors and warnings that say which parameter value avoids the problem.

An error or warning that knows what the caller can do about it carries the advice as data, so that a front end (the
``gtheory`` command line) words it in its own terms without reading the message:

* ``statement`` — the problem, without the advice (parameters it names are in backticks: ```gain```,
  ```missing='exclude'```);
* ``param`` — the parameter whose value is at fault, or None;
* ``fix`` — ``{parameter: value}`` that avoids the problem (``{"duplicates": "first"}``); a value of ``...``
  (Ellipsis) means "some value of this parameter" (``{"names": ...}``), when no single value is right; empty when
  no parameter fixes it;
* ``fix_effect`` — what the fix does (``"keep only the first occurrence"``);
* ``advice`` — the fix in Python terms, as the message ends: :func:`python_fix` of ``fix`` and ``fix_effect``
  unless the raiser words it (``"pass a mapping {grade: gain} instead"``).

``str(err)`` is ``statement``, then ``"; "`` and ``advice`` when there is one. :class:`FixableError` and
:class:`FixableWarning` carry these; :class:`metrics.TrecFormatError`, :class:`metrics.LowCoverageWarning` and
:class:`metrics.FractionalGradeWarning` are among them. (:class:`gtheory.ParameterError` carries ``param`` only:
``gtheory`` imports no sibling package.)
"""
from __future__ import annotations

from typing import Any

__all__ = ["FixableError", "FixableWarning", "python_fix"]


def _value(v: Any) -> str:
    return "..." if v is Ellipsis else repr(v)


def python_fix(fix: dict[str, Any], effect: str = "") -> str:
    """A fix (parameter → value) as a Python caller applies it, the advice that ends a message.

    >>> python_fix({"duplicates": "first"}, "keep only the first occurrence")
    "pass duplicates='first' to keep only the first occurrence"
    >>> python_fix({"names": ...})
    'pass names=...'
    """
    return "pass " + ", ".join(f"{k}={_value(v)}" for k, v in fix.items()) + (f" to {effect}" if effect else "")


class _Fixable:
    """The attributes of a fix (module docstring) and the message they make."""

    statement: str
    param: str | None
    fix: dict[str, Any]
    fix_effect: str
    advice: str

    def _set_fix(self, statement: str, param: str | None, fix: dict[str, Any] | None, fix_effect: str,
                 advice: str | None) -> str:
        self.statement, self.param = statement, param
        self.fix, self.fix_effect = dict(fix or {}), fix_effect
        self.advice = advice if advice is not None else (python_fix(self.fix, fix_effect) if self.fix else "")
        return f"{statement}; {self.advice}" if self.advice else statement

    def __reduce__(self):  # picklable with its fix (errors cross process boundaries: judge's worker processes)
        return (_rebuild, (type(self), self.statement, self.param, self.fix, self.fix_effect, self.advice))


def _rebuild(cls: type, statement: str, param: str | None, fix: dict, fix_effect: str, advice: str) -> Any:
    obj = cls.__new__(cls)
    obj.args = (obj._set_fix(statement, param, fix, fix_effect, advice),)
    return obj


class FixableError(_Fixable, ValueError):
    """A :class:`ValueError` whose advice is data (module :mod:`metrics.fixes`): ``statement``, ``param``, ``fix``,
    ``fix_effect`` and ``advice``; ``str(err)`` is the statement followed by the advice.

    >>> err = FixableError("`judged` is read with `missing='exclude'`", param="judged", fix={"missing": "zero"},
    ...                    fix_effect="score a topic a run does not return 0")
    >>> str(err)
    "`judged` is read with `missing='exclude'`; pass missing='zero' to score a topic a run does not return 0"
    >>> err.fix
    {'missing': 'zero'}
    """

    def __init__(self, statement: str, *, param: str | None = None, fix: dict[str, Any] | None = None,
                 fix_effect: str = "", advice: str | None = None) -> None:
        super().__init__(self._set_fix(statement, param, fix, fix_effect, advice))


class FixableWarning(_Fixable, UserWarning):
    """A :class:`UserWarning` whose advice is data, as :class:`FixableError`. Warn with an instance,
    ``warnings.warn(FixableWarning(...))``, so that ``caught.message`` keeps the attributes."""

    def __init__(self, statement: str, *, param: str | None = None, fix: dict[str, Any] | None = None,
                 fix_effect: str = "", advice: str | None = None) -> None:
        super().__init__(self._set_fix(statement, param, fix, fix_effect, advice))
