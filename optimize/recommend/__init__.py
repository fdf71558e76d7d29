"""optimize.recommend: should I tune? The two-tier rule against the user's baseline. fixed: tier 1, the fixed
configurations on all topics (paired topic bootstrap)."""
from gtheory.kit.lazy import room_front as _room_front

__getattr__, __dir__, __all__ = _room_front(__name__, internal={
    "FIXED_STREAM": "fixed", "N_RESAMPLES": "fixed", "FixedDecision": "fixed", "fixed_index": "fixed",
    "standard_indices": "fixed", "tier_one": "fixed"})
