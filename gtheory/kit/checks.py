"""Input validation shared by every package (scipy's ``_iv`` style): one check, one message, per parameter kind.

``metrics`` is the bottom layer, so these helpers live here and :mod:`optimize` and :mod:`experiments` import
them (``gtheory`` imports no sibling and keeps its own few checks). Each helper returns the cleaned value or
raises an error that names the parameter, states the rule and shows what was given.

The vocabulary they fix:

* ``seed`` — one source of randomness: ``None``, a non-negative int, a :class:`numpy.random.SeedSequence` or a
  :class:`numpy.random.Generator` (:func:`check_rng`).
* ``seeds`` — several independent repetitions: an int ``n`` means the ``n`` seeds ``0 .. n-1``; a sequence
  gives the seeds themselves (``[5]`` is the single seed 5) (:func:`check_seeds`).
* ``progress`` — ``bool | str | Callable[[str], Any] = "auto"`` in every public signature: ``False``/``None``
  (silent), ``True`` (a line on stderr), ``"auto"`` (on stderr only when it is a terminal) or a callable receiving
  progress reports (:func:`check_progress`, :func:`progress_writer`).
"""
from __future__ import annotations

import sys
from numbers import Integral, Real
from typing import Any, Callable, Iterable

import numpy as np

__all__: list[str] = []  # private module


def check_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """An integer ``>= minimum`` (bool is rejected)."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"`{name}` must be an integer; got {type(value).__name__} {value!r}.")
    if value < minimum:
        raise ValueError(f"`{name}` must be an integer >= {minimum}; got {value}.")
    return int(value)


def check_probability(value: Any, name: str) -> float:
    """A real number strictly between 0 and 1."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"`{name}` must be a number in (0, 1); got {type(value).__name__} {value!r}.")
    if not 0.0 < float(value) < 1.0:
        raise ValueError(f"`{name}` must lie strictly between 0 and 1; got {value}.")
    return float(value)


def check_fraction(value: Any, name: str = "fraction") -> float:
    """A share in ``(0, 1]`` (of the judgments kept)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"`{name}` must be a number in (0, 1]; got {type(value).__name__} {value!r}.")
    f = float(value)
    if not (0.0 < f <= 1.0):
        raise ValueError(f"`{name}` must lie in (0, 1] (the share of judgments kept); got {f:g}.")
    return f


def check_choice(value: Any, name: str, choices: tuple[str, ...]) -> str:
    """One of ``choices``."""
    if value not in choices:
        raise ValueError(f"`{name}` must be one of {', '.join(map(repr, choices))}; got {value!r}.")
    return value


def check_seed(seed: Any, name: str = "seed") -> Any:
    """``seed`` checked for :func:`numpy.random.default_rng` and returned unchanged (an int as ``int``).

    Accepted: ``None``, a non-negative integer, a :class:`numpy.random.SeedSequence` or a
    :class:`numpy.random.Generator`.
    """
    if isinstance(seed, bool) or not (
        seed is None or isinstance(seed, (Integral, np.random.Generator, np.random.SeedSequence))
    ):
        raise TypeError(f"`{name}` must be a non-negative integer, None or a numpy.random.Generator; got {seed!r}.")
    if isinstance(seed, Integral):
        if seed < 0:
            raise ValueError(
                f"`{name}` must be a non-negative integer, None or a numpy.random.Generator; got {seed!r}."
            )
        return int(seed)
    return seed


def check_rng(seed: Any, name: str = "seed") -> np.random.Generator:
    """``np.random.default_rng(seed)`` for an int, ``None``, SeedSequence or Generator (see :func:`check_seed`)."""
    return np.random.default_rng(check_seed(seed, name))


def seed_sequence(seed: Any, name: str = "seed") -> np.random.SeedSequence:
    """A :class:`numpy.random.SeedSequence` for ``seed`` (see :func:`check_seed`), to spawn independent streams.

    A Generator gives a sequence seeded from one draw of it, so the same Generator state gives the same streams.
    """
    seed = check_seed(seed, name)
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(int(seed.integers(2**63)))
    return np.random.SeedSequence(seed)


def fixed_seed(seed: Any, name: str = "seed") -> int:
    """One integer seed for ``seed`` (:func:`check_seed`), for procedures that reuse *the same* seed several times
    (the same draws for every configuration or both score matrices) and record it: an int is itself, a
    :class:`numpy.random.Generator` gives one draw of it (the same Generator state gives the same seed), ``None``
    fresh entropy (:class:`numpy.random.SeedSequence`)."""
    seed = check_seed(seed, name)
    if isinstance(seed, int):
        return seed
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(2**63))
    if isinstance(seed, np.random.SeedSequence):
        return int(seed.generate_state(1, np.uint64)[0]) >> 1  # Python ints: NumPy 1.x has no uint64 >> int
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0]) >> 1


def check_seeds(seeds: Any, name: str = "seeds") -> tuple[int, ...]:
    """The seeds of independent repetitions: an int ``n >= 1`` means ``0 .. n-1``; a sequence lists them.

    The seeds of a sequence must be distinct non-negative integers (``[5]`` is the single seed 5).
    """
    if isinstance(seeds, Integral) and not isinstance(seeds, bool):
        seeds = range(check_int(seeds, name, minimum=1))
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Iterable):
        raise TypeError(
            f"`{name}` must be a number of seeds (n means 0 .. n-1) or a sequence of non-negative integers; "
            f"got {seeds!r}."
        )
    out = []
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, Integral) or s < 0:
            raise ValueError(f"`{name}` must hold non-negative integers; got {s!r}.")
        out.append(int(s))
    if not out:
        raise ValueError(f"`{name}` must not be empty.")
    if len(set(out)) != len(out):
        raise ValueError(f"`{name}` must be distinct; got {out}.")
    return tuple(out)


def check_progress(progress: Any, name: str = "progress") -> bool | Callable[[str], Any]:
    """``progress`` as given if it is a bool or a callable taking a message; ``None`` means ``False``; ``"auto"``
    means True when standard error is a terminal, else False (no progress bar in pipes and log files)."""
    if progress is None:
        return False
    if isinstance(progress, str) and progress == "auto":
        return stderr_is_terminal()
    if isinstance(progress, (bool, np.bool_)):
        return bool(progress)
    if callable(progress):
        return progress
    raise TypeError(
        f"`{name}` must be True (report on stderr), False, 'auto' (on stderr when it is a terminal) or a callable "
        f"taking a message; got {type(progress).__name__} {progress!r}."
    )


def stderr_is_terminal() -> bool:
    """Is ``sys.stderr`` a terminal (where a live progress bar belongs)? Also True in a Jupyter kernel (its
    stderr is shown live under the cell); False for pipes, files, a closed or replaced stream without ``isatty``."""
    if type(sys.stderr).__module__.split(".")[0] == "ipykernel":
        return True
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _to_stderr(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def progress_writer(progress: Any, name: str = "progress") -> Callable[[str], Any] | None:
    """Where progress messages go: ``None`` (silent) for ``False``/``None``, a line on stderr for ``True``,
    else the callable itself (:func:`check_progress`)."""
    p = check_progress(progress, name)
    if p is False:
        return None
    return _to_stderr if p is True else p
