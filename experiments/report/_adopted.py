r"""The configuration the report recommends, as the report shows it: :class:`Adopted`, and the one adapter
from :class:`optimize.Recommendation` to it (:func:`adopted_from`).

The report (:func:`experiments.run_study`) compares configurations in many tables and figures; the one it recommends
must appear in each of them, computed with its own gain and discount, beside the *baseline* a user would have
used without the tool (trec_eval's nDCG: linear gains, log2 discount). Everything the report needs of a
recommendation goes through :func:`adopted_from`, so a change of the recommend engine changes that function only.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

import metrics

__all__ = ["Adopted", "adopted_from", "BASELINE_GAIN", "BASELINE_DISCOUNT", "BASELINE_LABEL", "KEPT_BASELINE"]

#: the baseline: the nDCG a user computes without the tool (trec_eval's ``ndcg_cut``)
BASELINE_GAIN = "linear"
BASELINE_DISCOUNT = "log2"
BASELINE_LABEL = "trec_eval nDCG (linear gains, log2 discount)"
#: the row label of an adopted configuration that is the baseline itself
KEPT_BASELINE = "adopted: baseline kept (trec_eval nDCG)"

#: relative tolerance under which two normalised vectors are the same configuration (nDCG is scale-free in both)
_SAME = 1e-9


@dataclass(frozen=True)
class Adopted:
    """One recommended configuration, as every table and figure of the report shows it.

    Attributes
    ----------
    what : ``"discount"``, ``"gain"`` or ``"joint"`` — what the recommendation tuned.
    cutoff : the nDCG cut-off k it was made at.
    label : the configuration's short name (``"rbp(p=0.8083)"``, ``"log2"``).
    switch : True when it is a switch away from the baseline (``adopt …``), False when it keeps a standard.
    is_baseline : its nDCG equals the baseline's (same normalised gain and discount vectors).
    levels, gain : grades and their gains (nDCG is invariant to scaling the gains).
    discount : per-rank weights for ranks 1..cutoff.
    verdict : the recommendation's one-line verdict (without the clause on what Φ means, which the report
        states once).
    """

    what: str
    cutoff: int
    label: str
    switch: bool
    is_baseline: bool
    levels: np.ndarray
    gain: np.ndarray
    discount: np.ndarray
    verdict: str

    @property
    def row_label(self) -> str:
        """The label of its row / series in the report: ``"adopted: rbp(p=0.8083)"``; the baseline kept is
        :data:`KEPT_BASELINE`."""
        if self.is_baseline:  # the same words whatever was tuned: one configuration, one name
            return KEPT_BASELINE
        return f"adopted: {self.label}" + ("" if self.switch else " (kept)")

    def ndcg(self, judged: metrics.JudgedRuns, cutoff: int | None = None) -> pd.DataFrame:
        """nDCG@``cutoff`` (default: its own) with its gain and discount (a smaller cut-off truncates the
        discount; nDCG is scale-free, so truncation is the same configuration at fewer ranks)."""
        k = self.cutoff if cutoff is None else int(cutoff)
        if k > self.discount.size:
            raise ValueError(f"`cutoff` {k} exceeds the adopted discount's {self.discount.size} ranks.")
        gain = {float(lv): float(g) for lv, g in zip(self.levels, self.gain)}
        return metrics.ndcg(judged, gain=gain, discount=self.discount[:k], cutoff=k)


def _unit(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    s = np.abs(v).max() if v.size else 0.0
    return v / s if s > 0 else v


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = _unit(a), _unit(b)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= _SAME))


def adopted_from(rec: Any) -> Adopted:
    """The report's view of an :class:`optimize.Recommendation` — the only place that reads its fields.

    Reads ``what``, ``cutoff``, ``adopt``, ``verdict`` and the configuration's vectors: the baseline-rule fields
    ``levels`` / ``gain_vector`` / ``discount_vector`` and its fitted form ``alternative_label`` (or ``measure``) when the
    recommendation has them, else ``tuning.levels`` / ``gain`` / ``discount`` and ``label``. Whether it is the
    baseline is decided from the vectors (normalised to their largest entry), not from names.
    """
    k = int(rec.cutoff)
    new_fields = len(getattr(rec, "discount_vector", None) or ()) > 0  # the engine with a baseline rule
    levels = np.asarray(rec.levels if new_fields else rec.tuning.levels, dtype=float)
    gain = np.asarray(rec.gain_vector if new_fields else rec.gain, dtype=float)
    discount = np.asarray(rec.discount_vector if new_fields else rec.discount, dtype=float)[:k]
    base_gain = metrics.measures.gains.gain_vector(BASELINE_GAIN, levels)
    base_discount = np.asarray(metrics.measures.discounts.discount_vector(BASELINE_DISCOUNT, k, cutoff=k), dtype=float)[:k]
    is_baseline = _same(gain, base_gain) and _same(discount, base_discount)
    if new_fields:
        label = str(getattr(rec, "alternative_label", None) or getattr(rec, "measure", None) or rec.label)
    else:
        label = str(rec.label or rec.choice)
    verdict = str(rec.verdict)
    meaning = str(getattr(rec, "phi_meaning", "") or "")
    if meaning:  # the report says once what Φ means, not in each verdict (with its own full stop: no ". ." left)
        verdict = " ".join(verdict.replace(meaning.rstrip(".") + ".", "").replace(meaning, "").split())
    return Adopted(what=str(rec.what), cutoff=k, label=label, switch=bool(rec.adopt), is_baseline=is_baseline,
                   levels=levels, gain=gain, discount=discount, verdict=verdict)


def adopted_summary(a: Adopted) -> dict[str, Any]:
    """Plain JSON values of ``a`` (``tables.json``): label, what, cut-off, switch, baseline flag, vectors."""
    return {"what": a.what, "cutoff": a.cutoff, "label": a.label, "row_label": a.row_label, "switch": a.switch,
            "is_baseline": a.is_baseline, "levels": a.levels.tolist(), "gain": a.gain.tolist(),
            "discount": [x if math.isfinite(x) else None for x in a.discount.tolist()], "verdict": a.verdict}
