"""Library errors in the terms of the command line: each parameter a message names becomes the option the user
typed (one table per subcommand, ``_OPTIONS``), and the few pieces of advice only a Python caller could follow
become what a CLI user can do (:data:`CLI_ADVICE`)."""
from __future__ import annotations

import re

from . import UsageError


#: advice of the Python API that every subcommand rewrites (:func:`in_option_names`): what the CLI user can do
CLI_ADVICE = {
    "`judged` uses missing='exclude'": "the data is read with --missing exclude",
    "judge with missing='zero' or subset the topics": "use --missing zero",
    "(a JudgedRuns with missing='exclude'?)": "(--missing exclude?)",
}


def in_option_names(exc: Exception | str, options: dict[str, str],
                    advice: dict[str, str] | None = None) -> UsageError:
    """``exc`` (or a message) from the Python API as a one-line CLI error in the terms of the options the user typed.

    An error with a structured fix (``exc.fix``, ``{"duplicates": "first"}``, and ``exc.fix_effect``) has the
    fix worded with the options (``pass --duplicates first to ...``). A :class:`gtheory.ParameterError` carries the parameter's name (``exc.param``); its option is named even
    when the message does not quote the parameter.

    Each `parameter` the message names in backticks becomes its option (``options`` maps the parameter, or a
    backticked phrase such as ``tune=True``, to the option: ``{"top_k": "--top-k"}``); a backticked name not in
    ``options`` is kept. ``advice`` maps phrases of the message that only a Python caller could follow
    (``"pass a mapping {grade: gain}"``) to what the CLI user can do instead; they are replaced verbatim, before
    the parameter names, as are the phrases of :data:`CLI_ADVICE`, which hold for every subcommand.
    """
    msg = str(exc)
    fix = getattr(exc, "fix", None)  # a structured fix (metrics.TrecFormatError): {parameter: value}, worded here
    if fix and all(k in options for k in fix):
        from metrics.trecio import python_fix

        msg = msg.replace(python_fix(fix, exc.fix_effect),  # type: ignore[union-attr]
                          "pass " + " ".join(f"{options[k]} {v}" for k, v in fix.items()) + f" to {exc.fix_effect}")
    param = getattr(exc, "param", None)  # a gtheory.ParameterError names its parameter
    if param in options and f"`{param}`" not in msg:
        msg = f"{options[param]}: {msg}"
    for phrase, instead in {**(advice or {}), **CLI_ADVICE}.items():
        msg = msg.replace(phrase, instead)
    msg = re.sub(r"`([^`\n]+)`", lambda m: options.get(m.group(1), m.group(0)), msg)
    return UsageError(" ".join(msg.split()))
