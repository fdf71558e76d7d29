"""gtheory.gstudy: the G-study of a score matrix and its D-study. gstudy: the one entry point (balanced or not);
balanced: the crossed systems × topics G-study (GStudy); unbalanced, reml: missing cells (UnbalancedGStudy) and its
Henderson and REML components; design_parse, designs: Brennan's design notation parsed, and the G-study and
D-studies of any balanced crossed and nested design; components: the batched pure-NumPy components and
coefficients; intervals: normal-theory intervals of the ratios and the projection to n topics; coefficients: Φ, Eρ²
and the topics needed, shared by every result; bootstrap, bootstrap_result: resampled systems and topics, and the
result; score_matrix, score_csv, score_layout: a score matrix read (arrays, frames, CSV) and oriented; outliers: runs
far below the rest; plot: the D-study plot."""
from gtheory.kit.lazy import room_front as _room_front

__getattr__, __dir__, __all__ = _room_front(__name__, internal={
    "ScoreInput": "score_matrix", "coerce_matrix": "score_matrix", "canonical_orientation": "score_layout",
    "competitive_answer": "outliers", "Coefficients": "coefficients", "fields_document": "coefficients",
    "read_fields": "coefficients", "why_never_reached": "coefficients", "labelled_gstudy": "gstudy", "checked_matrix": "score_matrix"})
