"""The argument checks that are not a rule of the parameter table, and the helpers of the shared vocabulary.

A parameter that means the same everywhere is checked by its rule in the one table, :mod:`gtheory.kit.params`
(``seed``, ``seeds``, ``n_resamples``, ``alpha``, ``cutoff``, ``progress``, …), applied by the decorator
:func:`~gtheory.kit.params.validate_params` before a public function's body runs. What is left here is built on the
same rules, so every check raises the same :class:`~gtheory.kit.errors.ParameterError` (param, rule, value):

* :func:`check_int`, :func:`check_probability`, :func:`check_choice` — a parameter of one function only (``top_k``
  of a helper, ``rate``, ``variant``), by the table's rule constructors;
* :func:`seed_sequence`, :func:`fixed_seed` — a checked ``seed`` turned into independent streams or one recorded int;
* :func:`check_progress`, :func:`progress_writer` — ``progress`` resolved (``"auto"``: on stderr when it is a
  terminal) and turned into a writer;
* :func:`c_float` — a number written as text, in C syntax (the readers of scores, weights and gains).

The vocabulary (docs/architecture.md, "The shared vocabulary"):

* ``seed`` — one source of randomness: ``None``, a non-negative int, a :class:`numpy.random.SeedSequence` or a
  :class:`numpy.random.Generator`.
* ``seeds`` — several independent repetitions: an int ``n`` means the ``n`` seeds ``0 .. n-1``; a sequence
  gives the seeds themselves (``[5]`` is the single seed 5).
* ``progress`` — ``bool | str | Callable[[str], Any] = "auto"`` in every public signature: ``False``/``None``
  (silent), ``True`` (a line on stderr), ``"auto"`` (on stderr only when it is a terminal) or a callable receiving
  progress reports (:func:`check_progress`, :func:`progress_writer`).
"""
from __future__ import annotations

import re
import sys
from typing import Any, Callable

import numpy as np

from .params import PARAMS, check_param, choice, integer, probability

__all__: list[str] = []  # private module

#: a number as C's ``strtod`` and trec_eval read it: ASCII digits, an optional ``.`` and exponent, ``inf``/``nan``
C_NUMBER = re.compile(r"\s*[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan)\s*", re.IGNORECASE)


def c_float(token: str) -> float:
    """``float(token)`` for a number in C syntax (:data:`C_NUMBER`), else ``ValueError``.

    Python's ``float`` also reads ``"1_0"`` as 10 and non-ASCII digits (``"٣"``, ``"３"``) as numbers, which no
    other tool reads so: a score, weight or gain written that way is refused, never silently a different number.
    The TREC readers apply the same syntax (:mod:`metrics.io.trec_lines`).

    >>> c_float(" 1e-3"), c_float("-inf")
    (0.001, -inf)
    """
    if not C_NUMBER.fullmatch(token):
        raise ValueError(f"not a number in C syntax: {token!r}")
    return float(token)


def check_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """An integer ``>= minimum`` (bool is rejected), by the table's rule :func:`~gtheory.kit.params.integer`."""
    return check_param(name, value, integer(minimum))


def check_probability(value: Any, name: str) -> float:
    """A real number strictly between 0 and 1 (:func:`~gtheory.kit.params.probability`)."""
    return check_param(name, value, probability())


def check_choice(value: Any, name: str, choices: tuple[str, ...]) -> str:
    """One of ``choices`` (:func:`~gtheory.kit.params.choice`)."""
    return check_param(name, value, choice(*choices))


def seed_sequence(seed: Any, name: str = "seed") -> np.random.SeedSequence:
    """A :class:`numpy.random.SeedSequence` for ``seed`` (the table's rule of ``seed``), to spawn independent
    streams.

    A Generator gives a sequence seeded from one draw of it, so the same Generator state gives the same streams.
    """
    seed = check_param(name, seed, PARAMS["seed"])
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(int(seed.integers(2**63)))
    return np.random.SeedSequence(seed)


def fixed_seed(seed: Any, name: str = "seed") -> int:
    """One integer seed for ``seed`` (the table's rule of ``seed``), for procedures that reuse *the same* seed several times
    (the same draws for every configuration or both score matrices) and record it: an int is itself, a
    :class:`numpy.random.Generator` gives one draw of it (the same Generator state gives the same seed), ``None``
    fresh entropy (:class:`numpy.random.SeedSequence`)."""
    seed = check_param(name, seed, PARAMS["seed"])
    if isinstance(seed, int):
        return seed
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(2**63))
    if isinstance(seed, np.random.SeedSequence):
        return int(seed.generate_state(1, np.uint64)[0]) >> 1  # Python ints: NumPy 1.x has no uint64 >> int
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0]) >> 1


def check_progress(progress: Any, name: str = "progress") -> bool | Callable[[str], Any]:
    """``progress`` as given if it is a bool or a callable taking a message; ``None`` means ``False``; ``"auto"``
    means True when standard error is a terminal, else False (no progress bar in pipes and log files)."""
    progress = check_param(name, progress, PARAMS["progress"])
    if progress is None:
        return False
    if isinstance(progress, str):  # "auto", the only string the rule accepts
        return stderr_is_terminal()
    if isinstance(progress, (bool, np.bool_)):
        return bool(progress)
    return progress


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
