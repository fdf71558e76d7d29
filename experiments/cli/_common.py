"""Shared pieces of the CLI subcommands: the check of an API option by the parameter table, the one JSON output
(:func:`emit_json`) and the seeds' help.

The data options live in :mod:`._data`, the output paths in :mod:`._outputs`, the error wording in
:mod:`._errors`; each subcommand imports them from there.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from . import UsageError

#: help text of ``--seeds`` (sweep, robustness): the API's one meaning of ``seeds``
SEEDS_HELP = "one value N: the N seeds 0 .. N-1; several values: those seeds"


def check_option(option: str, param: str, value: Any, rule: Any = None) -> None:
    """Refuse ``value`` of ``option`` before any data is read, by the rule of the API's parameter ``param`` in the
    one parameter table (:data:`gtheory.kit.params.PARAMS`; ``rule``, a :class:`~gtheory.kit.params.Rule`, for an
    option whose rule is the command's own). ``None`` (an option not given) passes. ``--alpha must be a
    probability strictly in (0, 1); got 1.5.``"""
    if value is None:
        return
    from gtheory.kit.errors import ParameterError  # the table loads NumPy: not for --help
    from gtheory.kit.params import check_param

    try:
        check_param(param, value, rule)
    except ParameterError as exc:
        shown = f"{value:g}" if isinstance(value, float) else value
        raise UsageError(f"{option} must be {str(exc.rule).removesuffix(' or None')}; got {shown}.") from None


def seed_rule() -> Any:
    """The rule of ``--seed``: the API's ``seed`` as an integer option takes it (no None, no Generator)."""
    from gtheory.kit.params import integer

    return integer(0, rule="a non-negative integer")


def check_least(option: str, value: int | None, least: int = 1, why: str = "") -> None:
    """Refuse an integer option below ``least`` before any data is read (``None``, an option not given, passes):
    ``--seed must be a non-negative integer; got -1.``, ``--top-k must be at least 2 (why); got 1.``"""
    if value is None or value >= least:
        return
    rule = {0: "a non-negative integer", 1: "a positive integer"}.get(least, f"at least {least}")
    raise UsageError(f"{option} must be {rule}{why}; got {value}.")


def seeds_option(values: list[int] | None, default: int) -> tuple[int, ...]:
    """``--seeds``: one value N is the N seeds ``0 .. N-1``, several values are the seeds themselves (the API's
    ``seeds``: an int count or a list); ``None`` (not given) is ``default`` seeds."""
    if values is None:
        values = [default]
    if len(values) == 1:
        if values[0] < 1:
            raise UsageError(f"--seeds N must be a positive number of seeds; got {values[0]} ({SEEDS_HELP}).")
        return tuple(range(values[0]))
    if min(values) < 0:
        raise UsageError(f"--seeds must hold non-negative integers; got {min(values)}.")
    if len(set(values)) != len(values):
        raise UsageError(f"--seeds must be distinct; got {' '.join(map(str, values))}.")
    return tuple(values)


def emit_json(obj: Any, path: str | Path | None = None) -> None:
    """Print ``obj`` as JSON (indent 2, one trailing newline): the ``--json`` output of every subcommand.

    The output is valid JSON (RFC 8259), readable by jq, JavaScript's ``JSON.parse`` and any strict parser:
    a number that is not finite — NaN, ``inf`` or ``-inf``, as a Python float, a NumPy scalar or an element of
    a NumPy array, at any depth of nested dicts, lists and tuples — is written as ``null``, never as the
    ``NaN`` / ``Infinity`` that :func:`json.dumps` writes by default.

    It is the one encoder of every result's ``to_json`` (:func:`gtheory.kit.jsonio.dumps`). Non-ASCII text (Φ, Eρ²,
    σ², ≤, labels and file names) is written as is, readable, unless standard output cannot encode it (e.g. a cp1252 pipe); then it is written as ``\\uXXXX`` escapes, the same
    JSON value. NumPy scalars and arrays become numbers and lists; any other object its ``str``.
    With ``path``, the same text is written to that output (UTF-8, non-ASCII as is) instead of standard output:
    a file (atomically), a device, FIFO or ``/dev/stdout`` (written through), or ``-`` (standard output,
    while the command's own messages go to stderr).
    """
    from gtheory.kit.jsonio import dumps

    text = dumps(obj)
    if path is not None and str(path) != "-":
        from ._outputs import output_text

        output_text(path, text + "\n")
        return
    from ._outputs import STDOUT, mark_written

    stream = STDOUT[0] if path is not None and STDOUT[0] is not None else sys.stdout  # `--out -`: the real one
    try:
        text.encode(getattr(stream, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        text = dumps(obj, ensure_ascii=True)
    stream.write(text + "\n")
    if path is not None:
        stream.flush()
        mark_written(path)
