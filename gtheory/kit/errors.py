"""The one error protocol of the package: errors and warnings that name the parameter and carry their fix as data.

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
:class:`metrics.FractionalGradeWarning` are among them. :class:`ParameterError` — a parameter out of its rule — is
one of them too, with ``param`` first and, where known, the ``rule`` it breaks and the ``value`` given.

It lives in the shared kit (:mod:`gtheory.kit`), the layer below every package: ``metrics.FixableError``,
``metrics.FixableWarning`` and ``gtheory.ParameterError`` are these very classes.
"""
from __future__ import annotations

from typing import Any

__all__ = ["DocumentError", "FixableError", "FixableWarning", "ParameterError", "ParameterTypeError", "python_fix"]


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
        return (_rebuild, (type(self), self.statement, self.param, self.fix, self.fix_effect, self.advice,
                           getattr(self, "rule", None), getattr(self, "value", None)))


def _rebuild(cls: type, statement: str, param: str | None, fix: dict, fix_effect: str, advice: str,
             rule: str | None = None, value: Any = None) -> Any:
    obj = cls.__new__(cls)
    obj.args = (obj._set_fix(statement, param, fix, fix_effect, advice),)
    obj.rule, obj.value = rule, value
    return obj


class FixableError(_Fixable, ValueError):
    """A :class:`ValueError` whose advice is data (module :mod:`gtheory.kit.errors`): ``statement``, ``param``, ``fix``,
    ``fix_effect`` and ``advice``; ``str(err)`` is the statement followed by the advice.

    >>> err = FixableError("`judged` is read with `missing='exclude'`", param="judged", fix={"missing": "zero"},
    ...                    fix_effect="score a topic a run does not return 0")
    >>> str(err)
    "`judged` is read with `missing='exclude'`; pass missing='zero' to score a topic a run does not return 0"
    >>> err.fix
    {'missing': 'zero'}
    """

    rule: str | None = None
    value: Any = None

    def __init__(self, statement: str, *, param: str | None = None, fix: dict[str, Any] | None = None,
                 fix_effect: str = "", advice: str | None = None) -> None:
        super().__init__(self._set_fix(statement, param, fix, fix_effect, advice))


class FixableWarning(_Fixable, UserWarning):
    """A :class:`UserWarning` whose advice is data, as :class:`FixableError`. Warn with an instance,
    ``warnings.warn(FixableWarning(...))``, so that ``caught.message`` keeps the attributes."""

    def __init__(self, statement: str, *, param: str | None = None, fix: dict[str, Any] | None = None,
                 fix_effect: str = "", advice: str | None = None) -> None:
        super().__init__(self._set_fix(statement, param, fix, fix_effect, advice))


class ParameterError(FixableError):
    """A parameter of a library function has a value it cannot take.

    A :class:`ValueError` (so ``except ValueError`` still catches it) and a :class:`FixableError`: it carries the
    parameter's name in :attr:`param`, and where the raiser knows them the ``rule`` the value breaks
    (``"an integer >= 1"``), the ``value`` given and a ``fix``. A front end (the ``gtheory`` command line) names the
    option the user typed for ``param`` from one table of parameter → option, without reading the message.

    >>> err = ParameterError("cutoff", "`cutoff` must be a positive integer; got 0", rule="an integer >= 1", value=0)
    >>> err.param, err.rule, err.value, str(err)
    ('cutoff', 'an integer >= 1', 0, '`cutoff` must be a positive integer; got 0')
    """

    def __init__(self, param: str, message: str, *, rule: str | None = None, value: Any = None,
                 fix: dict[str, Any] | None = None, fix_effect: str = "", advice: str | None = None) -> None:
        super().__init__(message, param=param, fix=fix, fix_effect=fix_effect, advice=advice)
        self.rule, self.value = rule, value


class ParameterTypeError(ParameterError, TypeError):
    """A :class:`ParameterError` whose value has the wrong type (a string where a number goes): also a
    :class:`TypeError`, as Python's own checks raise, so ``except TypeError`` and ``except ValueError`` both catch
    it. Raised by the parameter table (:mod:`gtheory.kit.params`).

    >>> err = ParameterTypeError("cutoff", "`cutoff` must be an integer >= 1; got str '10'", rule="an integer >= 1",
    ...                          value="10")
    >>> isinstance(err, TypeError), isinstance(err, ValueError), err.param
    (True, True, 'cutoff')
    """


class DocumentError(FixableError):
    """A result document (the JSON a ``to_json`` wrote, maybe edited since) breaks its declared schema
    (:mod:`gtheory.kit.schema`): a :class:`ValueError` naming the document's format and the ``field`` at fault
    (``"alpha"``, ``"table.depth row 2"``), with what it must be and what it is.

    >>> err = DocumentError("gtheory.TopicSetSize/1", "n", "must be a whole number >= 1; got int -3")
    >>> err.field, str(err)
    ('n', "not a valid gtheory.TopicSetSize/1 document: field 'n' must be a whole number >= 1; got int -3")
    """

    def __init__(self, fmt: str, field: str, problem: str) -> None:
        super().__init__(f"not a valid {fmt} document: field {field!r} {problem}")
        self.format, self.field, self.problem = fmt, field, problem

    def __reduce__(self):  # picklable with its field
        return (DocumentError, (self.format, self.field, self.problem))
