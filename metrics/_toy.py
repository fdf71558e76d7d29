"""Small hand-written judged lists for examples and tests: one topic, a few systems, grades written out.

>>> from metrics._toy import single_topic
>>> j = single_topic([[1, 0, None, 1], [0, 1]], qrels=[1, 1, 0, 0])
>>> j.grades.tolist()   # level codes into j.levels = [0., 1.]; -1 unjudged, -2 absent
[[[1, 0, -1, 1]], [[0, 1, -2, -2]]]
"""
from __future__ import annotations

from collections import Counter
from typing import Sequence

import numpy as np

from .io import ABSENT, UNJUDGED, JudgedRuns

__all__ = ["single_topic"]


def single_topic(
    lists: Sequence[Sequence[float | None]],
    qrels: Sequence[float],
    *,
    systems: Sequence[str] | None = None,
    topic: str = "1",
    missing: str = "zero",
) -> JudgedRuns:
    """A :class:`JudgedRuns` of one topic from ranked lists written as grades.

    Parameters
    ----------
    lists : one ranked list per system; each entry is the grade of the document at that rank, or ``None`` for a
        document without a judgment. An empty list is a system that did not return the topic.
    qrels : the grades of *all* judged documents of the topic (retrieved or not). Each list's graded entries must be
        a sub-multiset of it (a list cannot retrieve more grade-2 documents than the qrels hold).
    systems : system labels (default ``s0, s1, …``).
    """
    qrels = [float(g) for g in qrels]
    levels = np.unique(np.asarray(qrels, dtype=np.float64)) if qrels else np.zeros(0)
    code = {float(v): i for i, v in enumerate(levels)}
    qrels_level = np.array([code[g] for g in qrels], dtype=np.int8)
    depth = max([len(x) for x in lists] + [1])
    S = len(lists)
    grades = np.full((S, 1, depth), ABSENT, dtype=np.int8)
    ids = np.full((S, 1, depth), -1, dtype=np.int32)
    pool: dict[float, list[int]] = {}
    for i, g in enumerate(qrels):
        pool.setdefault(g, []).append(i)
    for s, lst in enumerate(lists):
        used: Counter = Counter()
        for r, g in enumerate(lst):
            if g is None:
                grades[s, 0, r] = UNJUDGED
                continue
            g = float(g)
            if used[g] >= len(pool.get(g, [])):
                raise ValueError(f"list {s} retrieves more documents of grade {g} than the qrels hold")
            grades[s, 0, r] = code[g]
            ids[s, 0, r] = pool[g][used[g]]
            used[g] += 1
    return JudgedRuns(
        grades=grades,
        doc_ids=ids,
        levels=levels.astype(np.float64),
        qrels_level=qrels_level,
        qrels_offsets=np.array([0, len(qrels)], dtype=np.int64),
        systems=tuple(systems) if systems is not None else tuple(f"s{i}" for i in range(S)),
        topics=(str(topic),),
        n_retrieved=np.array([[len(x)] for x in lists], dtype=np.int32),
        missing=missing,
    )
