"""One signature style, and the way old spellings keep working for one release.

Every public function takes its data first and everything else by keyword (``cutoff`` included). Two decorators
let calls written for the earlier signatures keep working for one release, each with a :class:`FutureWarning`
that names the new spelling (the CHANGELOG lists every change):

* :func:`keyword_only` — parameters that were positional and are now keyword-only;
* :func:`renamed` — a parameter that has a new name (``B`` → ``n_resamples``);
* :func:`renamed_field` — the same for a field of a (frozen) dataclass: the old keyword and the old attribute.
"""
from __future__ import annotations

import functools
import inspect
import warnings
from typing import Any, Callable, TypeVar

__all__ = ["keyword_only", "renamed", "renamed_field"]

F = TypeVar("F", bound=Callable[..., Any])


def keyword_only(*names: str) -> Callable[[F], F]:
    """The decorated function's parameters ``names`` (in their old positional order) are keyword-only; a call that
    passes them positionally still works, with a FutureWarning.

    >>> import warnings
    >>> @keyword_only("cutoff")
    ... def f(data, *, cutoff=10):
    ...     return cutoff
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     f([1], 5), w[0].category.__name__
    (5, 'FutureWarning')
    """
    def decorate(fn: F) -> F:
        params = inspect.signature(fn).parameters.values()
        n_positional = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if len(args) > n_positional:
                extra = args[n_positional:]
                if len(extra) > len(names):
                    raise TypeError(f"{fn.__name__}() takes {n_positional} positional argument(s) but {len(args)} "
                                    f"were given; pass {', '.join(names)} by keyword.")
                moved = names[: len(extra)]
                for name, value in zip(moved, extra):
                    if name in kwargs:
                        raise TypeError(f"{fn.__name__}() got multiple values for argument {name!r}")
                    kwargs[name] = value
                warnings.warn(FutureWarning(
                    f"{fn.__name__}(): pass {', '.join(f'{n}=...' for n in moved)} by keyword; positional "
                    f"{'use is' if len(moved) == 1 else 'uses are'} deprecated and will stop working in the next "
                    "release"), stacklevel=2)
                args = args[:n_positional]
            return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


def renamed(old: str, new: str) -> Callable[[F], F]:
    """The decorated function's parameter ``new`` was called ``old``; ``old=...`` still works, with a
    FutureWarning.

    >>> import warnings
    >>> @renamed("B", "n_resamples")
    ... def f(x, *, n_resamples=1000):
    ...     return n_resamples
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     f(0, B=50), w[0].category.__name__
    (50, 'FutureWarning')
    """
    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if old in kwargs:
                if new in kwargs:
                    raise TypeError(f"{fn.__name__}() got both {old!r} and its new name {new!r}; pass {new!r} only")
                kwargs[new] = kwargs.pop(old)
                warnings.warn(FutureWarning(f"{fn.__name__}(): `{old}` is now called `{new}`; the old name will stop "
                                            "working in the next release"), stacklevel=2)
            return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


def renamed_field(old: str, new: str) -> Callable[[type], type]:
    """Class decorator of a dataclass whose field ``new`` was called ``old``: ``Cls(old=...)`` (:func:`renamed`)
    and reading ``obj.old`` still work for one release, each with a FutureWarning.

    >>> import dataclasses, warnings
    >>> @renamed_field("B", "n_resamples")
    ... @dataclasses.dataclass(frozen=True)
    ... class Settings:
    ...     n_resamples: int = 1000
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     s = Settings(B=50)
    ...     s.n_resamples, s.B, [x.category.__name__ for x in w]
    (50, 50, ['FutureWarning', 'FutureWarning'])
    """
    def decorate(cls: type) -> type:
        init = cls.__init__  # type: ignore[misc]
        init.__name__ = cls.__name__  # the warning names the class: "Settings(): `B` is now called ..."
        cls.__init__ = renamed(old, new)(init)  # type: ignore[misc]

        def getter(self: Any) -> Any:
            warnings.warn(FutureWarning(f"{cls.__name__}.{old} is now called {new}; the old name will stop working "
                                        "in the next release"), stacklevel=2)
            return getattr(self, new)

        setattr(cls, old, property(getter, doc=f"Deprecated: :attr:`{new}` (the old name, for one release)."))
        return cls

    return decorate
