"""metrics.measures: IR measures on the judged-grade tensor, and their names. registry: MEASURE_SPECS, the one table
of measures (parameters, function, spellings) and MeasureError; names: Measure and parse_measure (measure names
parsed against the registry); evaluate: evaluate(), measures by name; evaluation: Evaluation, its result;
families: the parametric-family syntax shared by gains and discounts; gains, discounts: gain and discount vectors;
_ranked: the lists a measure is computed on, and per-topic frames; sparse: the relevant cells of a tensor (fast
nDCG); one module per family of measures: ndcg, cg (DCG, nCG, AnDCG), ap, bpref, counts, err, infap, precision,
qmeasure, rbp, recall, rr."""
from gtheory.kit.lazy import room_front as _room_front

__getattr__, __dir__, __all__ = _room_front(__name__, internal={
    "parse_family": "families", "ndcg_values": "ndcg", "DISCOUNT_SUFFIXES": "discounts",
    "RelevantCells": "sparse", "relevant_cells": "sparse", "matvec": "sparse",
    "measure_scores": "evaluate", "as_frame": "_ranked", "masked": "_ranked", "evaluation_summary": "evaluation",
})
