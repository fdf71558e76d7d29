"""The one table of parameter rules, keyed by parameter name, and the decorator that applies it.

A parameter that means the same thing everywhere (``seed``, ``n_resamples``, ``alpha``, ``cutoff``, ``progress``,
…) is checked by one rule, written once here in :data:`PARAMS`: the accepted type(s), the rule in words (``"an
integer >= 1"``) and the fix (what to give instead). :func:`validate_params` binds a call's arguments to the
decorated function's signature and checks every argument whose name is in the table before the body runs, so the
body may assume clean values; the cleaned value (``int(np.int64(5))``, ``float(0.05)``) is what the body receives.
A function whose rule legitimately differs (a bootstrap that needs at least 10 resamples, a ``target`` that may be
None) says so at the decorator: ``@validate_params(n_resamples=integer(minimum=10))``; ``name=None`` leaves a
parameter of the table to the body.

An argument out of its rule raises :class:`~gtheory.kit.errors.ParameterError` (a :class:`ValueError`) carrying
``param``, ``rule``, ``value`` and the fix as its advice; a value of the wrong type raises
:class:`~gtheory.kit.errors.ParameterTypeError`, which is also a :class:`TypeError`. The message names the
parameter, the rule and the value, then the fix, in which a setting is in backticks as the parameters are (so the
command line words it with its options, ``--n-resamples 1000``)::

    `n_resamples` must be an integer >= 1; got 0; give the number of resamples, e.g. `n_resamples=1000`

Defaults are checked once, when the function is decorated (a default out of its own rule is a bug, reported at
import), never at call time. Checking costs a dictionary lookup per table parameter and call (no
:meth:`inspect.Signature.bind`), so it is cheap enough for every public function.

This is the model of scikit-learn's ``sklearn.utils._param_validation`` (``validate_params`` and its constraints),
kept to what the project needs.
"""
from __future__ import annotations

import functools
import inspect
import math
from concurrent.futures import Executor
from numbers import Integral, Real
from typing import Any, Callable, Iterable, Mapping, TypeVar

import numpy as np

from .errors import ParameterError, ParameterTypeError

__all__ = ["ANY_LEVEL", "PARAMS", "REQUIRED_CUTOFF", "Rule", "check_param", "choice", "integer", "one_or_many",
           "param_rules", "probability", "real", "validate_params"]

F = TypeVar("F", bound=Callable[..., Any])


class _Invalid(Exception):
    """Raised by a rule's cleaner: the value breaks the rule (``wrong_type``: its type is not accepted)."""

    def __init__(self, wrong_type: bool = False) -> None:
        self.wrong_type = wrong_type


class Rule:
    """One parameter rule: the ``types`` accepted (words, for the docs), the ``rule`` a value must meet (``"an
    integer >= 1"``), the ``fix`` (what to give instead, ``"give the number of resamples, e.g. `n_resamples=1000`"``;
    ``"give <rule>"`` when empty; ``{name}`` stands for the parameter's name)
    and a cleaner that returns the cleaned value or raises (:meth:`clean`). ``example`` is a valid value (for
    tests and docs)."""

    __slots__ = ("types", "rule", "fix", "example", "_clean")

    def __init__(self, types: str, rule: str, fix: str, clean: Callable[[Any], Any], example: Any) -> None:
        self.types, self.rule, self.fix, self.example, self._clean = types, rule, fix, example, clean

    def with_fix(self, fix: str) -> "Rule":
        """The same rule with another fix text (a parameter of the table whose advice names itself)."""
        return Rule(self.types, self.rule, fix, self._clean, self.example)

    def clean(self, value: Any, name: str) -> Any:
        """``value`` cleaned (``int`` for an integer, ``float`` for a real) or a :class:`ParameterError` naming
        ``name``, the rule and the value (:class:`ParameterTypeError` for a value of the wrong type)."""
        try:
            return self._clean(value)
        except _Invalid as bad:
            shown = f"{type(value).__name__} {value!r}" if bad.wrong_type and value is not None else repr(value)
            cls = ParameterTypeError if bad.wrong_type else ParameterError
            fix = (self.fix or f"give {self.rule}").replace("{name}", name)
            err = cls(name, f"`{name}` must be {self.rule}; got {shown}", rule=self.rule, value=value,
                      advice=fix)
            raise err from None

    def accepts(self, value: Any) -> bool:
        """Does ``value`` meet the rule?"""
        try:
            self._clean(value)
        except _Invalid:
            return False
        return True

    def invalid_examples(self) -> list[Any]:
        """Values that break the rule, from a fixed list of the usual mistakes (0, -1, 1.5, True, "x", NaN, None,
        …), for the property tests."""
        candidates = [0, -1, 1.5, True, "x", math.nan, None, -0.5, 2, 1.0, math.inf, object()]
        return [v for v in candidates if not self.accepts(v)]

    def __repr__(self) -> str:
        return f"Rule({self.rule!r})"


# ---------------------------------------------------------------------------------------------------- constructors
def _is_int(value: Any) -> bool:
    return isinstance(value, Integral) and not isinstance(value, (bool, np.bool_))


def _is_real(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, (bool, np.bool_))


def integer(minimum: int = 1, maximum: int | None = None, *, none: bool = False, exclude: tuple[int, ...] = (),
            rule: str = "", fix: str = "") -> Rule:
    """An integer in ``[minimum, maximum]`` (bool refused), cleaned to ``int``; ``none``: None is accepted too;
    ``exclude``: integers refused inside the range (then give the ``rule`` in words)."""
    if not rule:
        rule = f"an integer >= {minimum}" if maximum is None else f"an integer in [{minimum}, {maximum}]"
        if none:
            rule += " or None"

    def clean(v: Any) -> Any:
        if type(v) is int and minimum <= v and (maximum is None or v <= maximum) and v not in exclude:
            return v  # the common case, without the ABC checks below
        if v is None and none:
            return None
        if not _is_int(v):
            raise _Invalid(wrong_type=True)
        if v < minimum or (maximum is not None and v > maximum) or v in exclude:
            raise _Invalid()
        return int(v)

    start = max(minimum, 1) if maximum is None or maximum >= 1 else minimum
    example = next(v for v in range(start, start + len(exclude) + 1) if v not in exclude)
    return Rule("int" + (" | None" if none else ""), rule, fix, clean, example)


def real(low: float = -math.inf, high: float = math.inf, *, low_open: bool = True, high_open: bool = True,
         none: bool = False, rule: str = "", fix: str = "") -> Rule:
    """A finite real number in the interval from ``low`` to ``high`` (open or closed at each end; bool refused),
    cleaned to ``float``; ``none``: None is accepted too."""
    if not rule:
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        rule = f"a number in {lo}{low:g}, {high:g}{hi}"
    if none:
        rule += " or None"

    def clean(v: Any) -> Any:
        if v is None and none:
            return None
        if type(v) is float:
            f = v  # the common case, without the ABC checks below
        elif not _is_real(v):
            raise _Invalid(wrong_type=True)
        else:
            f = float(v)
        if not math.isfinite(f) or (f <= low if low_open else f < low) or (f >= high if high_open else f > high):
            raise _Invalid()
        return f

    inside = (low + high) / 2 if math.isfinite(low) and math.isfinite(high) else (low + 1 if math.isfinite(low)
                                                                                    else 0.0)
    return Rule("float" + (" | None" if none else ""), rule, fix, clean, None if none else inside)


def probability(*, none: bool = False, fix: str = "") -> Rule:
    """A probability strictly between 0 and 1, cleaned to ``float``."""
    return real(0.0, 1.0, none=none, rule="a probability strictly in (0, 1)", fix=fix)


def choice(*options: str, none: bool = False, fix: str = "") -> Rule:
    """One of ``options`` (strings compared by equality); ``none``: None is accepted too."""
    listed = ", ".join(map(repr, options))
    rule = f"one of {listed}" + (" or None" if none else "")

    def clean(v: Any) -> Any:
        if type(v) is str and v in options:
            return v
        if v is None and none:
            return None
        if not isinstance(v, str):
            raise _Invalid(wrong_type=True)
        if v not in options:
            raise _Invalid()
        return v

    return Rule("str" + (" | None" if none else ""), rule, fix, clean, options[0])


def one_or_many(rule: Rule) -> Rule:
    """A value by ``rule`` or a non-empty sequence of them (a list of the cleaned values)."""
    def clean(v: Any) -> Any:
        if isinstance(v, (str, bytes, Mapping)) or not isinstance(v, Iterable):
            return rule._clean(v)
        out = [rule._clean(x) for x in v]
        if not out:
            raise _Invalid()
        return out

    return Rule(f"{rule.types} | Sequence[{rule.types}]", f"{rule.rule}, or a non-empty sequence of them", rule.fix,
                clean, rule.example)


def _clean_seed(v: Any) -> Any:
    if type(v) is int and v >= 0:
        return v
    if v is None or isinstance(v, (np.random.Generator, np.random.SeedSequence)):
        return v
    if not _is_int(v):
        raise _Invalid(wrong_type=True)
    if v < 0:
        raise _Invalid()
    return int(v)


def _clean_seeds(v: Any) -> tuple[int, ...]:
    if _is_int(v):
        if v < 1:
            raise _Invalid()
        return tuple(range(int(v)))
    if isinstance(v, (str, bytes, Mapping)) or not isinstance(v, Iterable):
        raise _Invalid(wrong_type=True)
    out = list(v)
    if not out or not all(_is_int(s) and s >= 0 for s in out) or len(set(out)) != len(out):
        raise _Invalid()
    return tuple(int(s) for s in out)


def _clean_progress(v: Any) -> Any:
    if v is None or isinstance(v, (bool, np.bool_)) or (v == "auto" if isinstance(v, str) else callable(v)):
        return v
    raise _Invalid(wrong_type=True)


def _clean_executor(v: Any) -> Any:
    if v is None or isinstance(v, Executor):
        return v
    raise _Invalid(wrong_type=True)


def _clean_bool(v: Any) -> bool:
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    raise _Invalid(wrong_type=True)


#: seed: one source of randomness (docs/architecture.md, "The shared vocabulary")
SEED = Rule("int | numpy.random.Generator | numpy.random.SeedSequence | None",
            "a non-negative integer, None, a numpy.random.Generator or a numpy.random.SeedSequence",
            "give an integer such as `{name}=0` for a reproducible result, or `{name}=None` for fresh randomness",
            _clean_seed, 0)

#: seeds: repetitions, an int n (the seeds 0 .. n-1) or the distinct seeds
SEEDS = Rule("int | Sequence[int]",
             "a number of seeds >= 1 (n means 0 .. n-1) or a non-empty sequence of distinct non-negative integers",
             "give a count such as `{name}=5`, or the seeds themselves such as `{name}=[0, 1, 2]`", _clean_seeds, 2)

#: progress: bool | str | Callable[[str], Any], default "auto"
PROGRESS = Rule("bool | str | Callable[[str], Any] | None",
                "True, False, None, 'auto' (on stderr when it is a terminal) or a callable taking a message",
                "give `{name}=False` for silence, `{name}=True` for progress on stderr, or a function such as print",
                _clean_progress, "auto")

#: executor: where the independent tasks run
EXECUTOR = Rule("concurrent.futures.Executor | None", "None or a concurrent.futures.Executor",
                "give None (run in this process) or an executor such as ProcessPoolExecutor(), or a Dask client's "
                "client.get_executor()", _clean_executor, None)

BOOLEAN = Rule("bool", "True or False", "give `{name}=True` or `{name}=False`", _clean_bool, False)

#: relevance_level of the judgment sampling: any finite grade (the measures' rule is > 0)
ANY_LEVEL = real(rule="a finite number", fix="give the lowest grade that counts as relevant, e.g. `relevance_level=1`")

#: a cut-off that must be given (an optimised discount or P@k has one weight or one rank per position)
REQUIRED_CUTOFF = integer(1, fix="give the rank cut-off, e.g. `cutoff=10`")

#: The table: parameter name → its rule (docs/architecture.md). A parameter whose rule differs in one function
#: says so at its decorator (``@validate_params(n_resamples=integer(minimum=10))``).
PARAMS: dict[str, Rule] = {
    # randomness and repetitions
    "seed": SEED,
    "seeds": SEEDS,
    "n_resamples": integer(1, fix="give the number of resamples, e.g. `n_resamples=1000`"),
    # error rates, confidence levels, targets
    "alpha": probability(fix="give the significance level, e.g. `alpha=0.05`"),
    "level": probability(fix="give the confidence level, e.g. `level=0.95`"),
    "power": probability(fix="give the power wanted, e.g. `power=0.8`"),
    "target": probability(fix="give the target coefficient, e.g. `target=0.95`"),
    "tau": probability(fix="give the Kendall τ wanted, e.g. `tau=0.9`"),
    # topic set size design (Sakai)
    "approximation": choice("exact", "nagata"),
    "min_diff": real(0.0, rule="a positive finite number",
                     fix="give the true difference between systems to detect, e.g. `min_diff=0.05`"),
    "depths": one_or_many(integer(1, fix="give pool depths (ranks >= 1), e.g. `depths=[10, 20, 50]`")),
    # ranks and systems
    "cutoff": integer(1, none=True, fix="give the rank cut-off, e.g. `cutoff=10`, or None for the whole list"),
    "top_k": integer(2, none=True, fix="give the number of best systems to keep (at least 2), or None for all"),
    "relevance_level": real(0.0, rule="a finite number > 0",
                            fix="give the lowest grade that counts as relevant, e.g. `relevance_level=1`"),
    # resampling of judgments
    "fraction": real(0.0, 1.0, high_open=False, rule="a number in (0, 1] (the share of judgments kept)",
                     fix="give the share of judgments to keep, e.g. `fraction=0.5`"),
    "min_relevant": integer(0, fix="give the fewest relevant judgments a topic keeps, e.g. `min_relevant=1`"),
    "min_nonrelevant": integer(0, fix="give the fewest non-relevant judgments a topic keeps, e.g. `min_nonrelevant=10`"),
    "rounding": choice("ceil", "round", "floor"),
    # tuning
    "what": choice("discount", "gain", "joint"),
    "objective": choice("phi", "erho2"),
    "starts": integer(1, fix="give the number of starting points, e.g. `starts=4`"),
    "agree_tol": real(0.0, low_open=False, rule="a finite number >= 0",
                      fix="give the tolerance within which starts agree, e.g. `agree_tol=1e-6`"),
    "n_splits": integer(1, fix="give the number of topic splits, e.g. `n_splits=10`"),
    # running
    "progress": PROGRESS,
    "executor": EXECUTOR,
    "max_workers": integer(1, none=True, fix="give the number of worker processes, or None for all cores"),
}


def check_param(name: str, value: Any, rule: Rule | None = None) -> Any:
    """``value`` of the parameter ``name`` checked by ``rule`` (its rule in :data:`PARAMS` by default) and
    cleaned: for the few places a decorator cannot reach (a dataclass's fields, a value read from a file).

    >>> check_param("n_resamples", 100)
    100
    >>> check_param("alpha", 0)
    Traceback (most recent call last):
    ...
    gtheory.kit.errors.ParameterError: `alpha` must be a probability strictly in (0, 1); got 0; give the significance level, e.g. `alpha=0.05`
    """
    return (rule or PARAMS[name]).clean(value, name)


_EMPTY = inspect.Parameter.empty


def validate_params(**overrides: Rule | None) -> Callable[[F], F]:
    """Check the decorated function's arguments by the parameter table before its body runs.

    Every parameter whose name is in :data:`PARAMS` is checked by its rule, or by ``overrides[name]`` (a
    :class:`Rule`; ``None`` leaves it to the body). An override names a parameter of the function, in the table or
    not. The body receives the cleaned values. Defaults are checked once, here; a call that passes the default
    object itself is not checked again. The rules applied are in the wrapper's ``__param_rules__``.

    >>> @validate_params(n_resamples=integer(minimum=10))
    ... def f(x, *, n_resamples=1000, alpha=0.05):
    ...     return n_resamples, alpha
    >>> f(None, n_resamples=np.int64(20), alpha=0.1)
    (20, 0.1)
    >>> f(None, n_resamples=5)
    Traceback (most recent call last):
    ...
    gtheory.kit.errors.ParameterError: `n_resamples` must be an integer >= 10; got 5; give the number of resamples, e.g. `n_resamples=1000`
    """
    for name, rule in overrides.items():
        if rule is not None and not isinstance(rule, Rule):
            raise TypeError(f"validate_params: the override of {name!r} must be a Rule or None; got {rule!r}")

    def decorate(fn: F) -> F:
        params = inspect.signature(fn).parameters
        unknown = sorted(set(overrides) - set(params))
        if unknown:
            raise TypeError(f"validate_params: {fn.__qualname__}() has no parameter(s) {unknown}")
        rules: dict[str, Rule] = {}
        checks = []  # (name, positional index or -1, default, cleaned default or _EMPTY when the same)
        for i, (name, p) in enumerate(params.items()):
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            rule = overrides[name] if name in overrides else PARAMS.get(name)
            if rule is None:
                continue
            if not rule.fix and name in PARAMS:  # an override without its own fix keeps the table's
                rule = rule.with_fix(PARAMS[name].fix)
            rules[name] = rule
            cleaned_default = _EMPTY
            if p.default is not _EMPTY:
                try:
                    cleaned = rule.clean(p.default, name)
                except ParameterError as exc:
                    raise TypeError(f"validate_params: the default of {fn.__qualname__}({name}=...) breaks its "
                                    f"rule: {exc}") from None
                if type(cleaned) is not type(p.default) or cleaned != p.default:
                    cleaned_default = cleaned
            index = i if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) else -1
            checks.append((name, index, p.default, cleaned_default, rule.clean))
        checks_t = tuple(checks)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            moved = None
            for name, index, default, cleaned_default, clean in checks_t:
                if name in kwargs:
                    v = kwargs[name]
                    if v is default:
                        if cleaned_default is not _EMPTY:
                            kwargs[name] = cleaned_default
                        continue
                    kwargs[name] = clean(v, name)
                elif 0 <= index < len(args):
                    v = args[index]
                    if v is default:
                        c = default if cleaned_default is _EMPTY else cleaned_default
                    else:
                        c = clean(v, name)
                    if c is not v:
                        if moved is None:
                            moved = list(args)
                        moved[index] = c
                elif cleaned_default is not _EMPTY:
                    kwargs[name] = cleaned_default
            return fn(*(args if moved is None else moved), **kwargs)

        wrapper.__param_rules__ = rules  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


def param_rules(fn: Callable[..., Any]) -> dict[str, Rule]:
    """The rules :func:`validate_params` applies to ``fn``'s parameters (empty if it is not decorated), through
    any decorator wrapped around it that keeps ``__wrapped__`` (:func:`functools.wraps`)."""
    seen = fn
    while seen is not None:
        rules = getattr(seen, "__param_rules__", None)
        if rules is not None:
            return dict(rules)
        seen = getattr(seen, "__wrapped__", None)
    return {}

