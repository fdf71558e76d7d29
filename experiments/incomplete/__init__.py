"""experiments.incomplete: how a measure holds up as the judgments shrink. study: incompleteness_study(), τ, drift,
discriminative power and significance decisions over reduced qrels, and summarize_study(); knee: the knee of a curve
and Φ of tuned nDCG under reduced qrels; confusion: Bompada et al.'s confusion matrix of significance decisions;
plots: the figures of the study; robustness: robustness_study(), the study `gtheory robustness` prints."""
from gtheory.kit.lazy import room_front as _room_front
__getattr__, __dir__, __all__ = _room_front(__name__)
