"""optimize: stability-optimal nDCG gain and discount vectors (Kanoulas & Aslam 2009, §2.3)."""
from .objective import Problem, stability_and_gradient
from .result import OptimizationError, OptimizationWarning, SolverRun, Tuning
from .tune import optimize_discount, optimize_gain, optimize_joint, tune_problem

__all__ = [
    "optimize_discount",
    "optimize_gain",
    "optimize_joint",
    "tune_problem",
    "Problem",
    "stability_and_gradient",
    "Tuning",
    "SolverRun",
    "OptimizationWarning",
    "OptimizationError",
]
