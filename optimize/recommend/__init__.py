"""optimize.recommend: should I tune? The two-tier rule against the user's baseline, and the out-of-sample checks.
recommend: the public recommend, from the data to its result; nested: tier 2, the nested cross-validation of the
tuned candidates, and the two tiers combined; fixed: tier 1, the fixed configurations on all topics (paired topic
bootstrap); verdict: the verdict's words; candidates: what the rule chooses among; recommendation: its result
(Recommendation); validation: cross_validate, a tuning checked on held-out topics; parameters: tune_parameters,
any parameterised measure tuned and checked the same way."""
from gtheory.kit.lazy import room_front as _room_front

__getattr__, __dir__, __all__ = _room_front(__name__, internal={"LAMBDAS": "candidates"})
