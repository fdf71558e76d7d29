"""Library errors and warnings in the terms of the command line, from the data they carry, not from their wording.

Each parameter a message names in backticks becomes the option the user typed (one table per subcommand,
``_OPTIONS``, over :data:`DATA_OPTIONS`); the parameter an error is about (``err.param``) is named; a fix carried as
data (``err.fix``, :mod:`gtheory.kit.errors`) is worded with the options, or, for a parameter the CLI has no option for,
with what a CLI user does instead (:data:`CLI_FIXES`, keyed by parameter).
"""
from __future__ import annotations

import ast
import re
from typing import Any

from . import UsageError

#: the data options every subcommand shares (``--runs/--qrels`` readers): parameter → option
DATA_OPTIONS = {"depth": "--depth", "missing": "--missing", "duplicates": "--duplicates", "grades": "--grades",
                "judged": "the data"}

#: what a CLI user does about a parameter that has no option of its own (a fix ``{parameter: ...}``)
CLI_FIXES = {
    "names": "a system's name is its run file's name (without .gz, .txt, ...): rename the files so that each is "
             "distinct",
    "gain": "give a gain family instead (--gain linear, exponential or binary)",
}

_TICKED = re.compile(r"`([^`\n]+)`")


def option_words(ref: str, options: dict[str, str]) -> str | None:
    """A parameter (``missing``) or a setting (``missing='exclude'``, ``judged_only=True``) as the user types it
    (``--missing``, ``--missing exclude``, ``--judged-only``); None when ``options`` has no option for it."""
    if ref in options:
        return options[ref]
    name, eq, text = ref.partition("=")
    if not eq or name.strip() not in options:
        return None
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError):
        value = text.strip()
    return _setting(options[name.strip()], value)


def _setting(option: str, value: Any) -> str:
    if value is True:
        return option
    if isinstance(value, (list, tuple)):
        return f"{option} {' '.join(map(str, value))}"
    return f"{option} {value}"


def cli_fix(exc: Any, options: dict[str, str], fixes: dict[str, str]) -> str | None:
    """The fix ``exc`` carries (``exc.fix``, ``exc.fix_effect``) as a CLI user applies it: ``use --duplicates first
    to ...`` when every parameter has an option and a value; else what ``fixes`` says for the parameter; else None
    (the Python advice does not apply to the command line)."""
    fix = getattr(exc, "fix", None) or {}
    if all(k in options and v is not Ellipsis for k, v in fix.items()):
        effect = getattr(exc, "fix_effect", "")
        return "use " + " ".join(_setting(options[k], v) for k, v in fix.items()) + (f" to {effect}" if effect else "")
    said = [fixes[k] for k in fix if k in fixes]
    return "; ".join(said) if said else None


def in_option_names(exc: Exception | str, options: dict[str, str], advice: dict[str, str] | None = None,
                    where: str = "") -> UsageError:
    """``exc`` (a library error or warning, or a message) as a one-line CLI message in the terms of the options.

    ``options`` maps a parameter to its option (``{"top_k": "--top-k"}``), over :data:`DATA_OPTIONS`. An error with
    a fix as data (``exc.fix``, :mod:`gtheory.kit.errors`) is its ``statement`` followed by the fix worded by
    :func:`cli_fix`, with ``advice`` (keyed by parameter, over :data:`CLI_FIXES`) for a parameter without an
    option. The parameter the error is about (``exc.param``) is named first unless the message names it. Each
    `parameter` or `parameter=value` in backticks becomes its option (:func:`option_words`); others are kept.
    ``where`` (``"--measure nDCG"``) is put before the message.
    """
    options = {**DATA_OPTIONS, **options}
    msg = str(exc)
    if getattr(exc, "fix", None):
        words = cli_fix(exc, options, {**CLI_FIXES, **(advice or {})})
        msg = exc.statement + (f"; {words}" if words else "")  # type: ignore[union-attr]
    param = getattr(exc, "param", None)
    if param in options and not re.search(rf"`{re.escape(param)}(=[^`]*)?`", msg):
        msg = f"{options[param]}: {msg}"
    msg = _TICKED.sub(lambda m: option_words(m.group(1), options) or m.group(0), msg)
    return UsageError(" ".join(f"{where}: {msg}".split()) if where else " ".join(msg.split()))


#: the parameters of a measure name as the library's messages call them → the key the user writes in the name
#: (``AP(rel=2)`` is ``relevance_level``; the others have one spelling)
MEASURE_KEYS = {"relevance_level": "rel", "p": "p", "b": "b", "beta": "beta", "max_grade": "max_grade",
                "judged_only": "judged_only", "gain": "gain", "discount": "discount", "dcg": "dcg", "k": "k"}


def measure_error(name: str, exc: Exception) -> UsageError:
    """A library error about the measure ``name`` of --measure as one CLI message, always ``--measure NAME: ...``
    (every subcommand that takes --measure words it so): the problem without the name when the error carries it
    apart (:class:`metrics.MeasureError`), the parameters in backticks as the user writes them in the name."""
    import metrics  # its lazy front: no measure module is loaded by this

    if isinstance(exc, metrics.MeasureError):
        return in_option_names(f"{exc.problem}.", MEASURE_KEYS, where=f"--measure {name}")
    advice = {"cutoff": f"give the cut-off in the name, e.g. {name}@100"}
    return in_option_names(exc, MEASURE_KEYS, advice, where=f"--measure {name}")
