"""What a grade means, shared by the readers, the tensor and the measures (no dependency but :mod:`gtheory.kit.errors`):
the two cell codes of the judged-grade tensor that are not grades, trec_eval's pooled-unjudged grades, and the policy
for fractional grades."""
from __future__ import annotations

import numpy as np

from gtheory.kit.errors import FixableWarning

__all__ = ["UNJUDGED", "ABSENT", "pooled_unjudged", "apply_grade_policy", "c_atol", "atol_grades", "FractionalGradeWarning", "GRADE_POLICIES"]


#: sentinel in ``JudgedRuns.grades``: a retrieved document with no judgment
UNJUDGED: int = -1
#: sentinel in ``JudgedRuns.grades``: no document at this rank (the run returned fewer documents)
ABSENT: int = -2


def pooled_unjudged(levels: np.ndarray) -> np.ndarray:
    r"""Per-level bool: grades that mark a document *pooled but unjudged* in trec_eval.

    trec_eval reads a grade with ``atol`` (``form_res_rels.c``), i.e. truncates it towards 0, and
    treats a negative result as pooled-but-unjudged: not in N, dropped by ``-J``, no gain. So a
    grade ``g`` is pooled-unjudged iff :math:`\operatorname{trunc}(g) < 0`, i.e. :math:`g \le -1`;
    a grade in (-1, 0) truncates to 0 and is judged non-relevant.

    >>> pooled_unjudged(np.array([-2.0, -1.0, -0.5, 0.0, 1.0])).tolist()
    [True, True, False, False, False]
    """
    return np.trunc(np.asarray(levels, dtype=np.float64)) < 0


#: ``grades=`` policies of :func:`metrics.judge`
GRADE_POLICIES = ("exact", "trec_eval")


class FractionalGradeWarning(FixableWarning):
    """The qrels hold non-integer grades, which trec_eval would truncate (``atol``) and this package keeps exactly;
    the fix for trec_eval's numbers is data, ``fix={"grades": "trec_eval"}`` (module :mod:`gtheory.kit.errors`)."""


#: C's ``long`` range (LP64: trec_eval on Linux and macOS), to which ``atol`` (``strtol``) clamps
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def c_atol(text: str) -> int:
    """The integer C's ``atol`` reads from ``text`` (glibc: ``strtol(text, NULL, 10)``), as trec_eval reads a grade
    (``get_qrels.c``: ``rel = atol(rel_text)``): leading white space skipped, an optional sign, then the longest run
    of ASCII digits 0-9; the first other character ends the number, and no digit at all reads 0; a value beyond
    C's ``long`` is clamped to it (glibc's ``strtol``). Python's ``int`` is not this: ``atol("1e1")`` is 1,
    ``atol("2.5e1")`` 2, ``atol(" 3x")`` 3, ``atol(".5")`` 0, ``atol("-1.9")`` -1.

    >>> [c_atol(t) for t in ["1e1", "2.5e1", " 3x", "+7", "-0.5", "", "x", "1e-1"]]
    [1, 2, 3, 7, 0, 0, 0, 1]
    """
    i, n = 0, len(text)
    while i < n and text[i] in " \t\n\v\f\r":
        i += 1
    sign = 1
    if i < n and text[i] in "+-":
        sign = -1 if text[i] == "-" else 1
        i += 1
    j = i
    while j < n and "0" <= text[j] <= "9":
        j += 1
    if j == i:
        return 0
    return min(max(sign * int(text[i:j]), _LONG_MIN), _LONG_MAX)


def atol_grades(texts, values: np.ndarray) -> np.ndarray | None:
    """The grades trec_eval reads (:func:`c_atol`) where they differ from ``trunc(values)`` — tokens written with
    an exponent (``1e1``: 10 as a number, 1 to ``atol``) or beyond C's ``long`` —, as a full array, or None when
    ``trunc(values)`` is already trec_eval's reading of every grade. ``texts`` are the grade tokens as written
    (a sequence aligned with ``values``, or a mapping {row: text} holding at least every token that is not a
    plain decimal)."""
    values = np.asarray(values, dtype=np.float64)
    items = texts.items() if hasattr(texts, "items") else enumerate(texts)
    out = None
    for i, t in items:
        if ("e" in t or "E" in t or abs(values[i]) >= 2.0**63):
            a = float(c_atol(t))
            if a != np.trunc(values[i]):
                if out is None:
                    out = np.trunc(values)
                out[i] = a
    return out


def apply_grade_policy(qrels, grades: str, *, stacklevel: int = 3):
    r"""``qrels`` with the grades :func:`metrics.judge` uses under ``grades``; warn once if some differ from trec_eval's.

    ``"exact"`` (default) keeps every real grade (a 1.9 earns more gain than a 1, ``1e1`` is 10); ``"trec_eval"``
    reads each grade as trec_eval does, with C's ``atol`` (:func:`c_atol`): the integer prefix of the text, i.e.
    :math:`g \mapsto \operatorname{trunc}(g)` for decimals (1.9 → 1, -1.5 → -1) and the digits before the
    exponent otherwise (``1e1`` → 1, ``2.5e1`` → 2), so the numbers equal trec_eval's. (Grades read from files keep
    that reading in ``qrels.grade_atol``; in-memory grades have no text and are truncated.) With ``"exact"`` a
    :class:`FractionalGradeWarning` names the first grade trec_eval reads differently; ``"trec_eval"`` converts
    silently, as asked.

    ``qrels`` is a :class:`metrics.Qrels` (duck-typed: ``grade``, ``topic``, ``docno``, ``line``, ``path``,
    optionally ``grade_atol``).
    """
    from dataclasses import replace

    if grades not in GRADE_POLICIES:
        raise ValueError(f"`grades` must be one of {GRADE_POLICIES}; got {grades!r}")
    g = np.asarray(qrels.grade, dtype=np.float64)
    atol = getattr(qrels, "grade_atol", None)
    te = np.trunc(g) if atol is None else np.asarray(atol, dtype=np.float64)
    differ = np.flatnonzero(te != g)
    if not differ.size:
        return qrels
    if grades == "trec_eval":
        return replace(qrels, grade=te, grade_atol=None) if atol is not None else replace(qrels, grade=te)
    import warnings

    frac = np.flatnonzero(g != np.trunc(g))
    i = int(frac[0]) if frac.size else int(differ[0])
    in_memory = str(qrels.path).startswith(("qrels ", "<memory>"))  # metrics.io.inputs names its sources so
    where = "" if in_memory else f" (line {int(qrels.line[i])})"
    if frac.size:
        statement = (f"{qrels.path}: {frac.size} non-integer grade(s), e.g. {g[i]:g} for topic {qrels.topic[i]!r}, "
                     f"docno {qrels.docno[i]!r}{where}; they are kept exactly (`grades='exact'`), while trec_eval "
                     "truncates them to integers (atol)")
    else:
        statement = (f"{qrels.path}: {differ.size} grade(s) written with an exponent, e.g. {g[i]:g} for topic "
                     f"{qrels.topic[i]!r}, docno {qrels.docno[i]!r}{where}; they are read as numbers "
                     f"(`grades='exact'`), while trec_eval's atol reads only the digits before the exponent "
                     f"({te[i]:g})")
    warnings.warn(FractionalGradeWarning(statement, fix={"grades": "trec_eval"}, fix_effect="get trec_eval's numbers"),
                  stacklevel=stacklevel)
    return qrels
