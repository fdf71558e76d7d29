"""Grade categories shared by the readers, the tensor and the measures (no other dependencies)."""
from __future__ import annotations

import numpy as np

__all__ = ["pooled_unjudged"]


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
