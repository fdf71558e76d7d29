"""The shared kit: the bottom layer every package of gtheory stands on (docs/architecture.md).

It imports nothing from ``metrics``, ``optimize`` or ``experiments`` (nor from the rest of ``gtheory``) and nothing
heavier than NumPy at import time, so ``import metrics`` stays light. One concept per module:

* :mod:`gtheory.kit.errors` — the one error protocol: :class:`~gtheory.kit.errors.FixableError` (a problem and its
  fix as data), :class:`~gtheory.kit.errors.ParameterError` (a parameter out of its rule), ``FixableWarning``;
* :mod:`gtheory.kit.checks` — the checks of one function's own parameters (integers, probabilities, choices) and
  the helpers of ``seed`` and ``progress``, built on the parameter table's rules;
* :mod:`gtheory.kit.params` — the one table of parameter rules keyed by parameter name (:data:`PARAMS`) and the
  decorator that checks a public function's arguments by it (:func:`~gtheory.kit.params.validate_params`);
* :mod:`gtheory.kit.jsonio` — the result protocol's JSON: :class:`~gtheory.kit.jsonio.JsonResult`, the one strict
  encoder, the readers of a result document and its tables;
* :mod:`gtheory.kit.output` — the one writer of every output file (CSV, JSON, figures, reports, ``.npz``):
  atomic for regular files, written through for devices, FIFOs and standard output; CSV text cells neutralised
  against formula injection;
* :mod:`gtheory.kit.output_checks` — the checks of an output before any work (writable, not an input, not given
  twice) and the record of one command's outputs (what an interrupted command wrote);
* :mod:`gtheory.kit.display` — the notebook display helpers (HTML tables) and number formatting;
* :mod:`gtheory.kit.render` — one renderer per output format (text, Markdown, LaTeX, HTML, plot labels), each with
  one escaping rule for text from the data;
* :mod:`gtheory.kit.schema` — the declared schema of a result document and the one reader that checks it;
* :mod:`gtheory.kit.compressed` — compressed input files told by their leading bytes (gzip, bzip2, xz), for every
  reader of runs, qrels and score files;
* :mod:`gtheory.kit.ties` — equality up to rounding (:data:`~gtheory.kit.ties.TIE_REL`), used by every rank
  statistic and randomised test;
* :mod:`gtheory.kit.executors` — the one ``executor=`` convention of the resampling loops (in this process or on
  any :class:`concurrent.futures.Executor`, results in task order);
* :mod:`gtheory.kit.lazy` — the lazy public names of every package (PEP 562), so importing one stays cheap;
* :mod:`gtheory.kit.siblings` — the check that the sibling packages are this project's (not a user's module of the
  same name).

The writer's names are importable from here (``from gtheory.kit import write_text``; standard library only), and so
are the parameter table's (``from gtheory.kit import validate_params``; loaded on first use, as it needs NumPy);
import the other modules by name (``from gtheory.kit.checks import fixed_seed``).
"""
from __future__ import annotations

from .output import (
    OutputError,
    csv_safe,
    csv_unsafe,
    open_output,
    output_directory,
    output_path,
    target_kind,
    write_bytes,
    write_csv,
    write_text,
)

from typing import Any

_PARAMS_NAMES = ("ANY_LEVEL", "PARAMS", "REQUIRED_CUTOFF", "Rule", "check_param", "choice", "integer", "one_or_many", "param_rules", "probability", "real",
                 "validate_params")

__all__ = ["OutputError", "csv_safe", "csv_unsafe", "open_output", "output_directory", "output_path", "target_kind",
           "write_bytes", "write_csv", "write_text", *_PARAMS_NAMES]


def __getattr__(name: str) -> Any:  # PEP 562: the parameter table loads NumPy, so only on first use
    if name in _PARAMS_NAMES:
        from . import params

        return getattr(params, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
