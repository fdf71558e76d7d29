"""Mean scores that are equal in exact arithmetic, made equal in floating point before they are compared.

System means of discrete scores (P@10, RR, binary judgments) tie often, but summed from different per-topic values
the floats differ in the last bits (0.1 + 0.2 + 0.3 is not 0.3 + 0.3 + 0.0), so ``>=`` against a quantile or an
``argsort`` would decide such a tie by rounding. :func:`tie_values` makes every group of values closer than
:data:`TIE_REL` of the largest magnitude exactly equal (the smallest of the group), row by row; the selection rules
built on it (``drop_lowest``: keep ties together; ``top``: ties in input order) then hold for the exact means.
The same tolerance as the rank correlations and randomised tests of :mod:`experiments` (scipy.stats'
``permutation_test`` convention of a relative tolerance).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__: list[str] = []  # private module

#: values closer than this fraction of the largest |value| of their row are ties; also the tolerance of the randomised
#: tests of :mod:`experiments` (|t*| against |t|, a range against a difference, a difference against 0): exact ties
#: are common with discrete scores (P@10, binary relevance) and rounding must not decide them
TIE_REL = 1e-9


def tie_values(x: ArrayLike) -> NDArray[np.float64]:
    """``x`` (1-D, or 2-D: each row on its own) with the values of each row that are closer than :data:`TIE_REL`
    of the row's largest |value| made equal to the smallest of their group: the sorted row is split at every gap
    wider than the tolerance. Rows with a NaN or infinite value are returned unchanged.

    >>> vals = np.array([0.1 + 0.2 + 0.3, 0.3 + 0.3 + 0.0, 0.5]) / 3
    >>> bool(vals[0] == vals[1]), bool(tie_values(vals)[0] == tie_values(vals)[1])
    (False, True)
    """
    a = np.array(x, dtype=np.float64)
    if a.ndim not in (1, 2):
        raise ValueError(f"tie_values expects a 1-D or 2-D array; got {a.ndim} dimensions")
    rows = a.reshape(1, -1) if a.ndim == 1 else a
    if rows.shape[1] < 2:
        return a
    ok = np.isfinite(rows).all(axis=1)
    order = np.argsort(rows, axis=1, kind="stable")
    s = np.take_along_axis(rows, order, axis=1)
    tol = TIE_REL * np.abs(s).max(axis=1, keepdims=True, initial=0.0, where=np.isfinite(s))
    new_group = np.ones(s.shape, dtype=bool)
    new_group[:, 1:] = np.diff(s, axis=1) > tol
    idx = np.broadcast_to(np.arange(s.shape[1]), s.shape)
    start = np.maximum.accumulate(np.where(new_group, idx, 0), axis=1)
    tied = np.empty_like(rows)
    np.put_along_axis(tied, order, np.take_along_axis(s, start, axis=1), axis=1)
    out = np.where(ok[:, None], tied, rows)
    return out.reshape(a.shape)
