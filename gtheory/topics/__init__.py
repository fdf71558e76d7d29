"""gtheory.topics: how many topics a test collection needs. topic_set_size: Sakai's topic set size design (paired
t, ANOVA, confidence interval width); noncentral: the noncentral t and F tails it rests on; gt_mappings: G-theory's
Φ mapped to τ, power, swaps and sensitivity (gt2*); curves: those mappings over a range of topic counts; plan: every
answer side by side from one pilot."""
from gtheory.kit.lazy import room_front as _room_front

__getattr__, __dir__, __all__ = _room_front(__name__)
