"""optimize.solvers: maximise the stability of the tuned nDCG over one problem. objective: the problem (Φ or Eρ²
of the systems × topics matrix) and its exact gradient; parametrize: monotone vectors as increments; slsqp, cvx,
multistart: the solvers (SLSQP and L-BFGS-B with exact gradients, the convex formulation, the starting points);
_threads: one BLAS thread per worker; tune: the front ends (optimize_discount, optimize_gain, optimize_joint);
robust: the worst case over collections and cut-offs; result: Tuning and SolverRun (result_document: a Tuning's
JSON read back strictly); bound: a certified upper bound on Φ(1) (certificate: why it is one, and a search
without the SDP); _ratio: nDCG as a ratio of two linear maps, for the low-dimensional tuners; families: one- and
two-parameter families; regularised: full vectors shrunk toward a reference."""
from gtheory.kit.lazy import room_front as _room_front

__getattr__, __dir__, __all__ = _room_front(__name__, internal={
    "Objective": "objective", "identified_depth": "objective",
    "RatioModel": "_ratio", "JointModel": "_ratio", "coefficients": "_ratio", "topics_needed": "_ratio",
    "single_threaded_blas": "_threads",
    "fit_family": "families", "tuning_from_vector": "families",
    "fit_vector": "regularised", "reference_vector": "regularised"})
