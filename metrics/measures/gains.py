"""Gain functions of nDCG: the value of a document of each relevance grade.

A gain is given per *grade* and turned into a per-level vector aligned with ``JudgedRuns.levels`` by
:func:`gain_vector`. Named families (Järvelin & Kekäläinen 2002; Burges et al. 2005):

* ``"linear"``: :math:`g(x) = x` for :math:`x > 0` (trec_eval's ndcg: the grade itself),
* ``"exponential"`` (``"exponential(base=b)"``): :math:`g(x) = b^x - 1` for :math:`x > 0`, default :math:`b = 2`,
* ``"binary"`` (``"binary(level=l)"``): :math:`g(x) = 1` if :math:`x \\ge l` (default 1) else 0.

Grades ≤ -1 have gain 0 whatever the specification (they are pooled-but-unjudged); grades :math:`\\le 0` have
gain 0 in every family (grade 0: judged non-relevant; negative grades: pooled but
unjudged in trec_eval, so ``judged_only`` lists drop them). Real-valued grades are used as they are (no truncation).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Union

import numpy as np

from .families import check_finite_vector, parse_family
from ..io import pooled_unjudged
from gtheory.kit.errors import FixableError

__all__ = ["GainSpec", "gain_vector", "GAIN_FAMILIES"]

GainSpec = Union[str, Sequence[float], np.ndarray, Mapping[float, float], Callable[[np.ndarray], np.ndarray]]

#: named gain families and their parameters
GAIN_FAMILIES: dict[str, tuple[str, ...]] = {"linear": (), "exponential": ("base",), "binary": ("level",)}


def gain_vector(gain: GainSpec, levels: np.ndarray) -> np.ndarray:
    """Per-level gains (float64, aligned with ``levels``) for a gain specification.

    Parameters
    ----------
    gain
        * a family name (:data:`GAIN_FAMILIES`), e.g. ``"linear"``, ``"exponential(base=3)"``;
        * a vector indexed by grade: ``gain[x]`` is the gain of grade ``x`` (needs integer grades; negative grades
          get 0);
        * a mapping ``{grade: gain}``; grades ≤ 0 missing from it get 0, a positive grade missing is an error;
        * a callable applied to the array of grades.
    levels : the distinct grades (``JudgedRuns.levels``).

    Raises
    ------
    ValueError
        Unknown family, a grade the vector/mapping does not cover, non-integer grades with a vector, non-finite gains.
    """
    levels = np.asarray(levels, dtype=np.float64)
    if isinstance(gain, str):
        name, params = parse_family(gain, GAIN_FAMILIES, "gain family")
        x = levels
        if name == "linear":
            g = np.where(x > 0, x, 0.0)
        elif name == "exponential":
            base = params.get("base", 2.0)  # range-checked by parse_family (finite, > 1), as every parameter
            g = np.where(x > 0, np.power(base, np.maximum(x, 0)) - 1.0, 0.0)
        else:
            g = (x >= params.get("level", 1.0)).astype(np.float64)
    elif callable(gain):
        g = np.asarray(gain(levels.copy()), dtype=np.float64)
        if g.shape != levels.shape:
            raise ValueError(f"the gain callable returned shape {g.shape} for {levels.size} grades")
    elif isinstance(gain, Mapping):
        table = {float(k): float(v) for k, v in gain.items()}
        missing = [x for x in levels if x > 0 and float(x) not in table]
        if missing:
            shown = ", ".join(f"{float(x):g}" for x in missing)  # plain numbers, not np.float64(3.0)
            raise ValueError(f"the gain mapping has no value for grade(s) {shown} found in the qrels")
        g = np.array([table.get(float(x), 0.0) for x in levels])
    else:
        vec = check_finite_vector(gain, "gain", "gains per grade")
        if vec.ndim != 1 or vec.size == 0:
            raise ValueError(f"a gain vector must be 1-D and non-empty (indexed by grade); got shape {vec.shape}")
        if not np.all(levels == np.round(levels)):
            raise FixableError(
                f"`gain` with numbers gives one gain per integer grade 0, 1, 2, ..., but the qrels hold non-integer "
                f"grades {levels[levels != np.round(levels)].tolist()}", param="gain", fix={"gain": ...},
                advice="pass a mapping {grade: gain} instead",
            )
        too_big = levels[levels >= vec.size]
        if too_big.size:
            raise FixableError(
                f"`gain` has {vec.size} entries (grades 0..{vec.size - 1}) but the qrels hold grade(s) "
                f"{too_big.tolist()}", param="gain"
            )
        g = np.where(levels >= 0, vec[np.clip(levels, 0, None).astype(np.int64)], 0.0)
    if not np.all(np.isfinite(g)):
        raise FixableError(f"`gain` must give finite gains; got {g.tolist()}", param="gain")
    # grades <= -1 are pooled-but-unjudged (trec_eval): they carry no gain, whatever the specification says
    return np.where(pooled_unjudged(levels), 0.0, g)
