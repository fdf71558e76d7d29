"""Reading TREC qrels files (``qid iter docno grade``: 4 whitespace-separated columns; ``iter`` is ignored) into
:class:`Qrels`, the way trec_eval does, with errors that name file, line and problem (:mod:`metrics.io.trec_lines`).

Grades: any finite real number. trec_eval reads grades with C's ``atol`` (the integer prefix of the text: 1.9 → 1,
``1e1`` → 1); we keep the real value, and ``Qrels.grade_atol`` keeps trec_eval's reading where it is not ``trunc``
(``judge(..., grades="trec_eval")``).

Negative grades are kept: trec_eval treats grades that truncate to a negative integer (≤ -1) as *pooled but
unjudged* — not relevant, not counted in N, dropped from condensed (``-J``) lists, unjudged for ``infAP`` — and a
grade in (-1, 0) as judged non-relevant; so do we (:func:`metrics.io._grades.pooled_unjudged`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ._columns import hash_rows, split_columns
from ._grades import atol_grades
from .inputs import is_in_memory, qrels_columns
from .trec_runs import Run, RunSet
from .trec_lines import (PathLike, TrecFormatError, _as_str, _column_floats, _floats, _read_bytes, _tokenise,
                         _topic_codes, natural_topic_order)

__all__ = ["Qrels", "read_qrels"]


@dataclass(frozen=True, eq=False)
class Qrels:
    """Relevance judgments: one row per judged (topic, docno) with its real-valued grade.

    Attributes
    ----------
    topic, docno : numpy object arrays of str
    grade : float64 array (real values kept; negative grades kept)
    line : 1-based line number of each judgment in ``path``
    path : where it was read from (``"<memory>"`` when built from a DataFrame)
    """

    topic: np.ndarray
    docno: np.ndarray
    grade: np.ndarray
    line: np.ndarray
    path: str = "<memory>"
    #: the grade trec_eval reads from each grade's text (C's ``atol``, :func:`metrics.io._grades.c_atol`) when it
    #: differs from ``trunc(grade)`` for some judgment (``1e1``: 10 here, 1 to trec_eval); None otherwise. Used by
    #: ``judge(..., grades="trec_eval")``.
    grade_atol: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return int(self.grade.size)

    @property
    def topics(self) -> list[str]:
        """Judged topics in natural order."""
        return natural_topic_order(self.topic)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"topic": self.topic, "docno": self.docno, "grade": self.grade, "line": self.line})

    @classmethod
    def from_frame(cls, df: pd.DataFrame, path: str = "<memory>") -> "Qrels":
        """Build from a DataFrame with columns ``query_id, doc_id, relevance`` (ir_measures / ir_datasets naming) or
        ``topic, docno, grade``; errors name ``path`` and the row. See :mod:`metrics.io.inputs` for the rules and the
        other in-memory forms (dicts, named tuples)."""
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"`df` must be a pandas DataFrame; got {type(df).__name__}")
        return cls(*qrels_columns(df, source=path))

    def summary_frame(self) -> pd.DataFrame:
        """Judgments per topic and grade (rows: topics, columns: grades) (what ``summary()`` returned before the result protocol)."""
        return pd.crosstab(pd.Series(self.topic, name="topic"), pd.Series(self.grade, name="grade")).reindex(
            self.topics
        )

    def summary(self) -> str:
        """The judgments as text: how many per grade, and per topic (fewest, median, most); the table per topic
        and grade is :meth:`summary_frame`."""
        frame = self.summary_frame()
        per_topic = frame.sum(axis=1).to_numpy()
        lines = [f"Qrels from {self.path}: {len(self)} judgments of {len(frame)} topics"]
        if len(self):
            lines.append("  per grade: " + ", ".join(f"{float(g):g}: {int(n)}" for g, n in frame.sum().items()))
            lines.append(f"  per topic: {int(per_topic.min())} to {int(per_topic.max())} "
                         f"(median {float(np.median(per_topic)):g})")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:  # notebook display: concise, not the arrays
        grades = ", ".join(f"{g:g}" for g in np.unique(self.grade))
        return f"Qrels({len(self)} judgments, {len(set(self.topic))} topics, grades [{grades}], from {self.path!r})"

    def _repr_html_(self) -> str:
        from gtheory.kit.display import kv_table

        return kv_table("Qrels", {"judgments": len(self), "topics": len(set(self.topic)),
                                  "grades": ", ".join(f"{g:g}" for g in np.unique(self.grade)), "from": self.path})


def _check_qrels_duplicates(q: Qrels) -> None:
    key = pd.MultiIndex.from_arrays([q.topic, q.docno])
    dup = key.duplicated()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        first = int(np.flatnonzero((q.topic == q.topic[i]) & (q.docno == q.docno[i]))[0])
        raise TrecFormatError(
            q.path,
            int(q.line[i]),
            f"docno {q.docno[i]!r} is judged twice for topic {q.topic[i]!r} (first at line {q.line[first]})",
        )


def read_qrels(path: PathLike) -> Qrels:
    """Read a TREC qrels file (``qid iter docno grade``; plain, .gz, .bz2 or .xz).

    Parameters
    ----------
    path : path to the qrels file, or qrels in memory (a DataFrame, a ``{qid: {docid: grade}}`` dict or ``Qrel``
        named tuples; :mod:`metrics.io.inputs`).

    Returns
    -------
    Qrels

    Raises
    ------
    TrecFormatError
        A line without 4 columns, a non-numeric or non-finite grade, or a (topic, docno) judged twice; the message
        names the file, the line and the problem.
    FileNotFoundError

    Notes
    -----
    Real-valued grades are kept exactly (trec_eval truncates them with ``atol``); negative grades are kept.
    """
    if is_in_memory(path, (Run, RunSet, Qrels), (Run,)):  # a DataFrame, a {qid: {docid: grade}} dict or Qrel tuples
        return Qrels(*qrels_columns(path))
    raw = _read_bytes(path)
    cols = split_columns(raw, 4)
    if cols is None:  # the string reader (and its errors)
        text = raw.decode("utf-8")
        tokens, lines = _tokenise(text, 4, path, "qrels lines are 'qid iter docno grade'")
        if not lines.size:
            raise TrecFormatError(path, None, "the qrels file holds no judgments")
        grade_text = tokens[3::4]
        grade = _floats(grade_text, lines, path, "grade")
        q = Qrels(np.array(tokens[0::4], dtype=object), np.array(tokens[2::4], dtype=object), grade, lines, str(path),
                  atol_grades(grade_text, grade))
        _check_qrels_duplicates(q)
        return q
    del raw
    grade = _column_floats(cols, 3, Path(path), "grade")
    g_bytes = cols.fixed(3)  # tokens that atol reads differently from trunc: an exponent, or beyond C's long
    if g_bytes is None:
        cand = np.arange(cols.n)
    else:
        m = g_bytes.view(np.uint8).reshape(cols.n, -1)
        cand = np.flatnonzero(((m == 101) | (m == 69)).any(axis=1) | (np.abs(grade) >= 2.0**63))
    grade_atol = atol_grades({int(i): cols.token(int(i), 3) for i in cand}, grade) if cand.size else None
    tcode, topics = _topic_codes(cols.fixed(0))
    docno_b = cols.fixed(2)
    pair = hash_rows(docno_b) + tcode.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    lines = cols.line_numbers()
    topic = np.array(topics, dtype=object)[tcode]  # one str object per distinct topic
    q = Qrels(topic, _as_str(docno_b), grade, lines, str(path), grade_atol)
    if pd.Series(pair).duplicated().any():  # a repeat, or a hash collision: decide on the strings
        _check_qrels_duplicates(q)
    return q

