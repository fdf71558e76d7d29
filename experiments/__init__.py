"""Experiments on score matrices: how stable, discriminative and consistent is an evaluation setup?

This package sits on top of :mod:`metrics`, :mod:`gtheory` and :mod:`optimize`. The statistical
checking tools below take plain systems x topics score matrices (NumPy arrays or pandas DataFrames
with systems as the index and topics as the columns) from any metric in any configuration:

Ranking agreement (:mod:`experiments.agreement`)
    :func:`kendall_tau`, :func:`tau_ap`, :func:`rmse`, :func:`tau_matrix`, :func:`plot_mean_scatter`.
Significance and discriminative power (:mod:`experiments.discriminative`, :mod:`experiments.pairwise_tests`)
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

from typing import TYPE_CHECKING as _TYPE_CHECKING

from gtheory.kit.lazy import lazy_package as _lazy_package

if _TYPE_CHECKING:  # the names below, imported on first use (PEP 562) so that the import stays cheap
    from experiments.agreement import kendall_tau, plot_mean_scatter, rmse, tau_ap, tau_matrix
    from experiments.discriminative import DiscriminativePower, bootstrap_asl, discriminative_power, plot_asl_curves
    from experiments.pairwise_tests import paired_ttest, tukey_hsd_randomised, wilcoxon_test
    from experiments.compare import Comparison, compare
    from experiments.compare_table import ComparisonTable, compare_measures
    from experiments.swap import DEFAULT_SWAP_BINS, min_difference_for_swap_rate, swap_rates
    from experiments.incomplete import (
        DEFAULT_FRACTIONS,
        SignificanceConfusion,
        incompleteness_study,
        knee,
        reduce_qrels,
        reduction_mask,
        significance_confusion,
        summarize_study,
        tuned_stability_under_incompleteness,
    )
    from experiments.incomplete_plots import (
        plot_discriminative_power,
        plot_mean_drift,
        plot_phi_vs_fraction,
        plot_tau_vs_fraction,
    )
    from experiments.sweep import SWEEP_COLUMNS, SweepGrid, sweep
    from experiments.check import ConfigurationCheck, check_configurations, check_tuning
    from experiments.study import DemoStudy, demo_study
    from experiments.robustness import RobustnessStudy, robustness_study
    from experiments.budget import TopicBudget, pool_mask, topic_depth_budget
    from experiments.report_study import ReportSettings, run_study
    from experiments.report_render import write_report

#: each submodule and the public names it defines (the imports above, for type checkers)
_EXPORTS: dict[str, tuple[str, ...]] = {
    'agreement': ('kendall_tau', 'plot_mean_scatter', 'rmse', 'tau_ap', 'tau_matrix'),
    'discriminative': ('DiscriminativePower', 'bootstrap_asl', 'discriminative_power', 'plot_asl_curves'),
    'pairwise_tests': ('paired_ttest', 'tukey_hsd_randomised', 'wilcoxon_test'),
    'compare': ('Comparison', 'compare'),
    'compare_table': ('ComparisonTable', 'compare_measures'),
    'swap': ('DEFAULT_SWAP_BINS', 'min_difference_for_swap_rate', 'swap_rates'),
    'incomplete': ('DEFAULT_FRACTIONS', 'SignificanceConfusion', 'incompleteness_study', 'knee', 'reduce_qrels',
                   'reduction_mask', 'significance_confusion', 'summarize_study',
                   'tuned_stability_under_incompleteness'),
    'incomplete_plots': ('plot_discriminative_power', 'plot_mean_drift', 'plot_phi_vs_fraction',
                         'plot_tau_vs_fraction'),
    'sweep': ('SWEEP_COLUMNS', 'SweepGrid', 'sweep'),
    'check': ('ConfigurationCheck', 'check_configurations', 'check_tuning'),
    'study': ('DemoStudy', 'demo_study'),
    'robustness': ('RobustnessStudy', 'robustness_study'),
    'budget': ('TopicBudget', 'pool_mask', 'topic_depth_budget'),
    'report_study': ('ReportSettings', 'run_study'),
    'report_render': ('write_report',),
}
__getattr__, __dir__ = _lazy_package(__name__, _EXPORTS)

__all__ = [
    "topic_depth_budget",
    "TopicBudget",
    "pool_mask",
    # agreement
    "kendall_tau",
    "tau_ap",
    "rmse",
    "tau_matrix",
    "plot_mean_scatter",
    # comparing systems (experiments.compare)
    "compare",
    "compare_measures",
    "Comparison",
    "ComparisonTable",
    # significance
    "bootstrap_asl",
    "discriminative_power",
    "DiscriminativePower",
    "paired_ttest",
    "wilcoxon_test",
    "tukey_hsd_randomised",
    "plot_asl_curves",
    # swap method
    "swap_rates",
    "min_difference_for_swap_rate",
    "DEFAULT_SWAP_BINS",
    # incomplete judgments
    "reduce_qrels",
    "reduction_mask",
    "incompleteness_study",
    "summarize_study",
    "knee",
    "significance_confusion",
    "SignificanceConfusion",
    "tuned_stability_under_incompleteness",
    "DEFAULT_FRACTIONS",
    "plot_tau_vs_fraction",
    "plot_mean_drift",
    "plot_discriminative_power",
    "plot_phi_vs_fraction",
    # sensitivity sweeps
    "sweep",
    "SweepGrid",
    "SWEEP_COLUMNS",
    # configuration checks and the demo study (gtheory check / gtheory demo)
    "check_configurations",
    "check_tuning",
    "ConfigurationCheck",
    "demo_study",
    "DemoStudy",
    "robustness_study",
    "RobustnessStudy",
    # the Kanoulas & Aslam study as a report (gtheory report)
    "run_study",
    "ReportSettings",
    "write_report",
]
