"""optimize: stability-optimal nDCG gain and discount vectors (Kanoulas & Aslam, CIKM 2009, §2.3).

Maximise Φ (or Eρ²) of the tuned nDCG's systems × topics matrix over the discount
(:func:`optimize_discount`), the gains (:func:`optimize_gain`) or both (:func:`optimize_joint`);
the worst case over collections and cut-offs (:func:`optimize_minimax`); check out of sample
(:func:`cross_validate`); decide whether tuning pays off on unseen topics, among standard
configurations, low-dimensional families (:func:`optimize_family`) and regularised vectors
(:func:`optimize_regularised`), by nested cross-validation (:func:`recommend`). The maximiser does not depend on the number of topics, because
Φ(n) = nρ/(1+nρ) is increasing in ρ = σ²_s/(σ²_t+σ²_st) for every n.

Example
-------
>>> import metrics, optimize
>>> t = optimize.optimize_discount(metrics.load_trec9(), gain=[0, 1, 2], cutoff=20, starts=1)
>>> bool(t.phi() > 0.9), bool(abs(t.gstudy.phi() - t.phi()) < 1e-9)
(True, True)
"""
__gtheory_package__ = "optimize"  # marker checked by the sibling packages (gtheory/kit/siblings.py)

try:  # before anything imports a sibling: a module of the user's project may shadow one (gtheory/kit/siblings.py)
    from gtheory.kit.siblings import require_siblings as _require_siblings
except ImportError:
    import importlib.util as _u, pathlib as _p  # `gtheory` shadowed? Its guard, from its file beside us, says by what
    _s = _u.spec_from_file_location("gtheory_guard", _p.Path(__file__).resolve().parents[1] / "gtheory/kit/siblings.py")
    _g = _u.module_from_spec(_s); _s.loader.exec_module(_g); _g.explain_shadowed_gtheory("optimize")  # noqa: E702
    raise
_require_siblings("optimize", "metrics", "gtheory")

from gtheory.kit.lazy import lazy_package as _lazy_package

#: every public name and the module that defines it, in the documented order: the one list of the public names
#: (``__all__`` is its keys; each name is imported from its module on first use, PEP 562, so that the import
#: stays cheap)
_EXPORTS: dict[str, str] = {
    # tuning one problem (optimize/solvers/)
    "optimize_discount": "solvers.tune", "optimize_gain": "solvers.tune", "optimize_joint": "solvers.tune",
    "optimize_minimax": "solvers.robust",
    # should I tune? (optimize/recommend/)
    "cross_validate": "recommend.validation",
    "recommend": "recommend.recommend",
    "Recommendation": "recommend.recommendation",
    "tune_parameters": "recommend.parameters", "ParameterTuning": "recommend.parameters",
    # the low-dimensional tuners and the rest of the solvers' room
    "optimize_family": "solvers.families",
    "optimize_regularised": "solvers.regularised",
    "FAMILIES": "solvers.families",
    "tune_problem": "solvers.tune",
    "optimality_bound": "solvers.bound", "OptimalityBound": "solvers.bound",
    "Problem": "solvers.objective", "stability_and_gradient": "solvers.objective",
    "Tuning": "solvers.result", "SolverRun": "solvers.result",
    # the warnings and errors of a tuning (optimize/errors.py)
    "OptimizationWarning": "errors", "OptimizationError": "errors", "GradeMismatchWarning": "errors",
    "FailedTuningWarning": "errors", "DataMismatchWarning": "errors",
    "SOLVERS": "solvers.tune",
    "STANDARD_CONFIGS": "recommend.validation",
}
__getattr__, __dir__ = _lazy_package(__name__, _EXPORTS)

__all__ = list(_EXPORTS)
