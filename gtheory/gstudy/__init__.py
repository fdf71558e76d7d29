"""gtheory.gstudy: the G-study of a score matrix and its D-study. gstudy: the one entry point (balanced or not);
balanced: the crossed systems × topics G-study (GStudy); unbalanced: missing cells (UnbalancedGStudy); reml:
Henderson and REML variance components; designs: general balanced crossed and nested designs; components: the
batched pure-NumPy components and coefficients; intervals: confidence intervals of the ratios and the projection;
coefficients: Φ, Eρ² and the topics needed, shared by every result; bootstrap: resampled systems and topics
(bootstrap_result: its result);
score_matrix, score_csv, score_layout: reading a score matrix (arrays, frames, CSV) and its orientation; outliers:
runs far from the rest; plot: the D-study plot."""
from gtheory.kit.lazy import room_front as _room_front

__getattr__, __dir__, __all__ = _room_front(__name__, internal={
    "ScoreInput": "score_matrix", "coerce_matrix": "score_matrix", "canonical_orientation": "score_layout",
    "competitive_answer": "outliers", "Coefficients": "coefficients", "fields_document": "coefficients",
    "read_fields": "coefficients", "why_never_reached": "coefficients"})
