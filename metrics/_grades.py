"""Grade categories shared by the readers, the tensor and the measures (no dependency but :mod:`metrics.fixes`)."""
from __future__ import annotations

import numpy as np

from .fixes import FixableWarning

__all__ = ["pooled_unjudged", "apply_grade_policy", "FractionalGradeWarning", "GRADE_POLICIES"]


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
    the fix for trec_eval's numbers is data, ``fix={"grades": "trec_eval"}`` (module :mod:`metrics.fixes`)."""


def apply_grade_policy(qrels, grades: str, *, stacklevel: int = 3):
    r"""``qrels`` with the grades :func:`metrics.judge` uses under ``grades``; warn once if some are fractional.

    ``"exact"`` (default) keeps every real grade (a 1.9 earns more gain than a 1); ``"trec_eval"`` truncates towards
    0, :math:`g \mapsto \operatorname{trunc}(g)`, as trec_eval's ``atol`` does for decimal grades (1.9 → 1,
    -1.5 → -1), so the numbers equal trec_eval's. (``atol`` reads only the integer prefix of the text: ``2e1`` is 2
    to trec_eval but 20 here — exponent notation in grades is not supported for parity.) With ``"exact"`` a
    :class:`FractionalGradeWarning` names the first fractional grade; ``"trec_eval"`` truncates silently, as asked.

    ``qrels`` is a :class:`metrics.Qrels` (duck-typed: ``grade``, ``topic``, ``docno``, ``line``, ``path``).
    """
    from dataclasses import replace

    if grades not in GRADE_POLICIES:
        raise ValueError(f"`grades` must be one of {GRADE_POLICIES}; got {grades!r}")
    g = np.asarray(qrels.grade, dtype=np.float64)
    frac = np.flatnonzero(g != np.trunc(g))
    if not frac.size:
        return qrels
    if grades == "trec_eval":
        return replace(qrels, grade=np.trunc(g))
    import warnings

    i = int(frac[0])
    in_memory = str(qrels.path).startswith(("qrels ", "<memory>"))  # metrics.inputs names its sources so
    where = "" if in_memory else f" (line {int(qrels.line[i])})"
    warnings.warn(FractionalGradeWarning(
        f"{qrels.path}: {frac.size} non-integer grade(s), e.g. {g[i]:g} for topic {qrels.topic[i]!r}, docno "
        f"{qrels.docno[i]!r}{where}; they are kept exactly (`grades='exact'`), while trec_eval truncates them "
        "to integers (atol)", fix={"grades": "trec_eval"}, fix_effect="get trec_eval's numbers",
    ), stacklevel=stacklevel)
    return qrels
