r"""The multiple-comparison corrections of :func:`experiments.compare` (declared in
:data:`experiments.compare.registry.CORRECTION_REGISTRY`): the adjusted p-values of a table's pairs, one call per
table (Holm computed here, the others by statsmodels' :func:`~statsmodels.stats.multitest.multipletests`), and the
warning when the test cannot reach the correction's smallest threshold.
"""
from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from . import registry as _registry
from .comparison import _TEST_NAMES
from .registry import CORRECTIONS

__all__ = ["holm", "adjust", "resolution_warning"]


def holm(p: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Holm's step-down adjusted p-values, :math:`\\tilde p_{(i)} = \\max_{k \\le i} \\min(1, (P - k + 1) p_{(k)})`,
    and rejections :math:`\\tilde p \\le \\alpha` — statsmodels' ``multipletests(method="holm")``, which runs a
    garbage collection on every call (20 ms, more than the whole uncorrected table); checked against it."""
    order = np.argsort(p, kind="stable")
    P = len(p)
    adj = np.empty(P)
    adj[order] = np.minimum(1.0, np.maximum.accumulate(p[order] * np.arange(P, 0, -1)))
    return adj <= alpha, adj


def adjust(p: np.ndarray, alpha: float, correction: str) -> tuple[np.ndarray, np.ndarray]:
    """(rejected, adjusted p) over the whole vector of the table's p-values: one call per table."""
    if correction == "none" or len(p) < 2:
        return p <= alpha, p.copy()
    method = CORRECTIONS[correction]
    if method == "holm":
        return holm(p, alpha)
    from statsmodels.stats.multitest import multipletests

    reject, adj, _, _ = multipletests(p, alpha=alpha, method=method)
    return np.asarray(reject, bool), np.asarray(adj, float)


def resolution_warning(test: str, outcome: Any, correction: str, alpha: float, n_pairs: int, n_topics: int,
                        n_resamples: int) -> None:
    """Warn when the smallest p-value the test can give here is above the smallest threshold of the correction: a
    pair that needs that threshold cannot be found significant, however clear the difference (Holm over 1,711
    pairs at alpha = .05 starts at 2.9e-5, below the 1/10,001 of 10,000 random sign vectors)."""
    floor = outcome.p_floor
    if correction == "none":
        thr, what, none = alpha, f"alpha = {alpha:g}", True
    else:
        corr = _registry.correction_named(correction)
        thr = corr.smallest_threshold(alpha, n_pairs)
        what = f"the smallest {correction} threshold over {n_pairs} pairs at alpha = {alpha:g}, {thr:.3g}"
        none = corr.first_step_decides
    if floor <= thr:
        return
    who = ("so no pair can come out significant, however clear its difference" if none else
           "so the pairs that need it cannot come out significant, however clear their difference")
    from gtheory.kit.errors import FixableWarning

    if _registry.test_named(test).resampling and not outcome.exact:
        need = math.ceil(1.0 / thr) - 1
        while 1.0 / (need + 1) > thr:
            need += 1
        warnings.warn(FixableWarning(
            f"with n_resamples = {n_resamples} the {_TEST_NAMES[test]} cannot give a p-value below "
            f"1/{n_resamples + 1} = {floor:.3g}, above {what}, {who}", param="n_resamples",
            fix={"n_resamples": need},
            fix_effect=f"reach it (about {need / n_resamples:.1f}x the resampling time of this call; memory does "
                       "not grow, the resamples run in blocks)"), stacklevel=4)
    else:
        warnings.warn(FixableWarning(
            f"with {n_topics} topics the {_TEST_NAMES[test]} cannot give a p-value below {floor:.3g}, above {what}, "
            f"{who}; more topics, or another test (test='t'), can"),
            stacklevel=4)
