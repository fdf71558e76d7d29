"""Reading TREC-format qrels and runs, the way trec_eval does, with errors that name file, line and problem.

Formats
-------
qrels: ``qid iter docno grade`` (4 whitespace-separated columns; ``iter`` is ignored).
run:   ``qid Q0 docno rank score tag`` (6 columns; the 2nd column is ignored, so ``Q0``, ``q0`` and ``0`` are all
accepted, as trec_eval does; the rank column is ignored unless ``ties="rank"``).

Modules
-------
This module is the public front of the readers; each concept lives in its own module:

* :mod:`metrics.trec_lines` — the lines of a TREC file, shared by both readers: the file's bytes (compressed,
  UTF-8, byte-order mark, NUL and UTF-16 refused), columns, numbers, topic order, :class:`TrecFormatError`;
* :mod:`metrics.trec_runs` — run files: :func:`read_run`, :func:`read_runs`, :class:`Run`, :class:`RunSet`, the
  ranking order (trec_eval's ties) and repeated docnos;
* :mod:`metrics.trec_qrels` — qrels files: :func:`read_qrels`, :class:`Qrels` (real and negative grades).

Every name below is importable from here as before (``from metrics.trecio import read_run``).
"""
from __future__ import annotations

from .trec_lines import PathLike, TrecFormatError, natural_topic_order, utf16_kind
from .trec_qrels import Qrels, read_qrels
from .trec_runs import (DUP_EFFECT, DUP_FIX, Run, RunSet, Ties, check_read_options, duplicate_error, read_run,
                        read_runs)

__all__ = ["TrecFormatError", "Qrels", "Run", "RunSet", "read_qrels", "read_run", "read_runs", "natural_topic_order"]
