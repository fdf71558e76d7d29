"""Generalizability theory for IR evaluation: how stable is a metric over topics?

The crossed systems × topics G-study (:func:`gstudy`) gives variance components, Φ, Eρ², the
number of topics needed and confidence intervals; :func:`gstudy_design` handles general balanced
crossed and nested designs (assessors, query variants, collections); :func:`variance_components`
is the batched pure-NumPy path for optimisers.

This package stands alone: it takes any score matrix and imports nothing from ``metrics``,
``optimize`` or ``experiments``.

Example
-------
>>> import numpy as np
>>> import gtheory
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(0.5, 0.1, (20, 1)) + rng.normal(0, 0.1, (20, 30))   # 20 systems x 30 topics
>>> g = gtheory.gstudy(X)
>>> bool(g.erho2(30) >= g.phi(30))
True
"""
__gtheory_package__ = "gtheory"  # marker the sibling packages check (gtheory/kit/siblings.py)

from typing import TYPE_CHECKING as _TYPE_CHECKING

from gtheory.kit.lazy import lazy_package as _lazy_package

if _TYPE_CHECKING:  # the names below, imported on first use (PEP 562) so that the import stays cheap
    from .components import (
        VarianceComponents,
        erho2_from_components,
        phi_from_components,
        stability_ratio,
        variance_components,
    )
    from .designs import Design, DesignDStudy, DesignGStudy, Effect, gstudy_design, parse_design
    from .bootstrap import BootstrapResult, dstudy_subset
    from .errors import MissingCellsWarning, NegativeVarianceWarning, ParameterError, PrecisionLossWarning
    from .gstudy import CoefficientInterval, GStudy, TopicsNeeded, gstudy, topics_needed_for_ratio
    from .intervals import project
    from .score_csv import read_scores
    from .score_matrix import as_score_matrix
    from .plot import plot_dstudy
    from .unbalanced import UnbalancedGStudy
    from .gt_mappings import gt2asens, gt2data, gt2major, gt2minor, gt2power, gt2rmse, gt2rsens, gt2tau, gt2tau_ap
    from .curves import TopicCurves, topic_curves
    from .plan import TopicPlan, plan
    from .topic_set_size import (TopicSetSize, expected_ci_width, min_detectable_difference, power_at,
                                 topic_set_size, within_system_variance)

#: each submodule and the public names it defines (the imports above, for type checkers)
_EXPORTS: dict[str, tuple[str, ...]] = {
    'components': ('VarianceComponents', 'erho2_from_components', 'phi_from_components', 'stability_ratio',
                   'variance_components'),
    'designs': ('Design', 'DesignDStudy', 'DesignGStudy', 'Effect', 'gstudy_design', 'parse_design'),
    'bootstrap': ('BootstrapResult', 'dstudy_subset'),
    'errors': ('MissingCellsWarning', 'NegativeVarianceWarning', 'ParameterError', 'PrecisionLossWarning'),
    'gstudy': ('CoefficientInterval', 'GStudy', 'TopicsNeeded', 'gstudy', 'topics_needed_for_ratio'),
    'intervals': ('project',),
    'score_csv': ('read_scores',),
    'score_matrix': ('as_score_matrix',),
    'plot': ('plot_dstudy',),
    'unbalanced': ('UnbalancedGStudy',),
    'gt_mappings': ('gt2asens', 'gt2data', 'gt2major', 'gt2minor', 'gt2power', 'gt2rmse', 'gt2rsens', 'gt2tau',
                    'gt2tau_ap'),
    'curves': ('TopicCurves', 'topic_curves'),
    'plan': ('TopicPlan', 'plan'),
    'topic_set_size': ('TopicSetSize', 'expected_ci_width', 'min_detectable_difference', 'power_at',
                       'topic_set_size', 'within_system_variance'),
}
__getattr__, __dir__ = _lazy_package(__name__, _EXPORTS)

__all__ = [
    "gstudy",
    "GStudy",
    "TopicsNeeded",
    "topics_needed_for_ratio",
    "project",
    "CoefficientInterval",
    "NegativeVarianceWarning",
    "ParameterError",
    "MissingCellsWarning",
    "PrecisionLossWarning",
    "UnbalancedGStudy",
    "BootstrapResult",
    "dstudy_subset",
    "variance_components",
    "VarianceComponents",
    "phi_from_components",
    "erho2_from_components",
    "stability_ratio",
    "read_scores",
    "as_score_matrix",
    "gstudy_design",
    "parse_design",
    "Design",
    "Effect",
    "DesignGStudy",
    "DesignDStudy",
    "plot_dstudy",
    "topic_set_size",
    "TopicSetSize",
    "power_at",
    "expected_ci_width",
    "min_detectable_difference",
    "within_system_variance",
    "gt2tau",
    "gt2tau_ap",
    "gt2power",
    "gt2minor",
    "gt2major",
    "gt2asens",
    "gt2rsens",
    "gt2rmse",
    "gt2data",
    "plan",
    "TopicPlan",
    "topic_curves",
    "TopicCurves",
]
