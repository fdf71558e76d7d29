"""Reading per-topic score matrices from CSV files and turning user input into a checked matrix.

A score matrix is always returned as systems × topics (rows = systems, columns = topics).

Modules
-------
This module is the public front; each concept lives in its own module:

* :mod:`gtheory.score_layout` — the one rule of every score-matrix input: which axis holds the systems (axis and
  column names, ``orientation``, a first column of row labels), never a guess;
* :mod:`gtheory.score_csv` — :func:`read_scores`: CSV files, wide or long, plain or compressed, errors naming file
  and line;
* :mod:`gtheory.score_matrix` — :func:`as_score_matrix`: arrays, DataFrames and CSV paths checked and coerced.

Every name below is importable from here as before (``from gtheory.io import read_scores``).
"""
from __future__ import annotations

from .score_csv import read_scores
from .score_layout import Orientation
from .score_matrix import ScoreInput, as_score_matrix

__all__ = ["read_scores", "as_score_matrix", "ScoreInput", "Orientation"]
