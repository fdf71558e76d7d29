"""experiments.compare: comparing systems as papers do. systems: compare(), every pair (or every system against a
baseline) on one score matrix; comparison: its result, Comparison, and the outputs; table: compare_measures(), the
runs x measures table of a paper; registry: the one registry of the tests and corrections; classical and
resampling: the registry's tests by family, one function each; corrections: the multiple-comparison corrections;
pairwise_tests: the all-pairs t, Wilcoxon and randomised Tukey HSD tables."""
from gtheory.kit.lazy import room_front as _room_front
__getattr__, __dir__, __all__ = _room_front(__name__, internal={
    "TEST_REGISTRY": "registry", "CORRECTION_REGISTRY": "registry", "TESTS": "registry", "CORRECTIONS": "registry",
    "tests_help": "registry", "corrections_help": "registry", "N_RESAMPLES_RULE": "systems", "comparison_csv": "comparison"})
