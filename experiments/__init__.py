"""Experiments on score matrices: how stable, discriminative and consistent is an evaluation setup?

This package sits on top of :mod:`metrics`, :mod:`gtheory` and :mod:`optimize`. The statistical
checking tools below take plain systems x topics score matrices (NumPy arrays or pandas DataFrames
with systems as the index and topics as the columns) from any metric in any configuration:

Ranking agreement (:mod:`experiments.agreement`)
    :func:`kendall_tau`, :func:`tau_ap`, :func:`rmse`, :func:`tau_matrix`, :func:`plot_mean_scatter`.
Significance and discriminative power (:mod:`experiments.discriminative`, :mod:`experiments.compare.pairwise_tests`)
    :func:`bootstrap_asl`, :func:`discriminative_power`, :func:`paired_ttest`, :func:`wilcoxon_test`,
    :func:`tukey_hsd_randomised`, :func:`plot_asl_curves`.
Comparing systems as papers do (:mod:`experiments.compare`)
    :func:`compare` (paired tests, multiple-comparison corrections, effect sizes, intervals) and
    :func:`compare_measures` (the runs x measures table: LaTeX, Markdown, HTML, CSV).
Swap method (:mod:`experiments.swap`)
    :func:`swap_rates`, :func:`min_difference_for_swap_rate`.
Sensitivity sweeps (:mod:`experiments.sweep`)
    :func:`sweep` over cut-offs x gains x discounts x qrels fractions x seeds, in parallel (:class:`SweepGrid`).

Everything that samples takes a ``seed`` (int or :class:`numpy.random.Generator`); the same seed gives
the same numbers.
"""
__gtheory_package__ = "experiments"  # marker checked by the sibling packages (gtheory/kit/siblings.py)

try:  # before anything imports a sibling: a module of the user's project may shadow one (gtheory/kit/siblings.py)
    from gtheory.kit.siblings import require_siblings as _require_siblings
except ImportError:
    import importlib.util as _u, pathlib as _p  # `gtheory` shadowed? Its guard, from its file beside us, says by what
    _s = _u.spec_from_file_location("gtheory_guard", _p.Path(__file__).resolve().parents[1] / "gtheory/kit/siblings.py")
    _g = _u.module_from_spec(_s); _s.loader.exec_module(_g); _g.explain_shadowed_gtheory("experiments")  # noqa: E702
    raise
_require_siblings("experiments", "metrics", "gtheory", "optimize")

from gtheory.kit.lazy import lazy_package as _lazy_package

#: every public name and the module that defines it, in the documented order: the one list of the public names
#: (``__all__`` is its keys; each name is imported from its module on first use, PEP 562, so that the import
#: stays cheap)
_EXPORTS: dict[str, str] = {
    "topic_depth_budget": "budget", "TopicBudget": "budget", "pool_mask": "budget",
    # agreement
    "kendall_tau": "agreement", "tau_ap": "agreement", "rmse": "agreement", "tau_matrix": "agreement",
    "plot_mean_scatter": "agreement",
    # comparing systems (experiments.compare)
    "compare": "compare.systems",
    "compare_measures": "compare.table",
    "Comparison": "compare.comparison",
    "ComparisonTable": "compare.table",
    # significance
    "bootstrap_asl": "discriminative", "discriminative_power": "discriminative",
    "DiscriminativePower": "discriminative",
    "paired_ttest": "compare.pairwise_tests", "wilcoxon_test": "compare.pairwise_tests",
    "tukey_hsd_randomised": "compare.pairwise_tests",
    "plot_asl_curves": "discriminative",
    # swap method
    "swap_rates": "swap", "min_difference_for_swap_rate": "swap", "DEFAULT_SWAP_BINS": "swap",
    # incomplete judgments
    "incompleteness_study": "incomplete.study", "summarize_study": "incomplete.study", "knee": "incomplete.knee",
    "significance_confusion": "incomplete.confusion", "SignificanceConfusion": "incomplete.confusion",
    "tuned_stability_under_incompleteness": "incomplete.knee", "DEFAULT_FRACTIONS": "incomplete.knee",
    "plot_tau_vs_fraction": "incomplete.plots", "plot_mean_drift": "incomplete.plots",
    "plot_discriminative_power": "incomplete.plots", "plot_phi_vs_fraction": "incomplete.plots",
    # sensitivity sweeps
    "sweep": "sweep.run", "SweepGrid": "sweep.grid", "SWEEP_COLUMNS": "sweep.run",
    # configuration checks and the demo study (gtheory check / gtheory demo)
    "check_configurations": "check", "check_tuning": "check", "ConfigurationCheck": "check",
    "demo_study": "study", "DemoStudy": "study",
    "robustness_study": "incomplete.robustness", "RobustnessStudy": "incomplete.robustness",
    # the Kanoulas & Aslam study as a report (gtheory report)
    "run_study": "report.study", "ReportSettings": "report.settings",
    "write_report": "report.render",
}
__getattr__, __dir__ = _lazy_package(__name__, _EXPORTS)

__all__ = list(_EXPORTS)
