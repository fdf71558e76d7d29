"""The public shared kit: small helpers that every package of the project uses (docs/architecture.md).

It imports nothing from ``metrics``, ``optimize`` or ``experiments`` and nothing heavy at import time (no pandas,
no SciPy), so :mod:`metrics` can import it lazily inside functions without loading the G-study code.

* :mod:`gtheory.kit.output` — the one writer of every output file (CSV, JSON, figures, reports, ``.npz``):
  atomic for regular files, written through for devices, FIFOs and standard output; CSV text cells neutralised
  against formula injection.
"""
from __future__ import annotations

from .output import (
    OutputError,
    csv_safe,
    open_output,
    output_directory,
    output_path,
    target_kind,
    write_bytes,
    write_csv,
    write_text,
)

__all__ = ["OutputError", "csv_safe", "open_output", "output_directory", "output_path", "target_kind", "write_bytes",
           "write_csv", "write_text"]
