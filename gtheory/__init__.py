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

from gtheory.kit.lazy import lazy_package as _lazy_package

#: every public name and the module that defines it, in the documented order: the one list of the public names
#: (``__all__`` is its keys; each name is imported from its module on first use, PEP 562, so that the import
#: stays cheap)
_EXPORTS: dict[str, str] = {
    "gstudy": "gstudy", "GStudy": "balanced", "TopicsNeeded": "coefficients", "topics_needed_for_ratio": "coefficients",
    "project": "intervals",
    "CoefficientInterval": "coefficients",
    "NegativeVarianceWarning": "errors", "ParameterError": "gtheory.kit.errors", "MissingCellsWarning": "errors",
    "PrecisionLossWarning": "errors",
    "UnbalancedGStudy": "unbalanced",
    "BootstrapResult": "bootstrap", "dstudy_subset": "bootstrap",
    "variance_components": "components", "VarianceComponents": "components", "phi_from_components": "components",
    "erho2_from_components": "components", "stability_ratio": "components",
    "read_scores": "score_csv",
    "as_score_matrix": "score_matrix",
    "gstudy_design": "designs", "parse_design": "designs", "Design": "designs", "Effect": "designs",
    "DesignGStudy": "designs", "DesignDStudy": "designs",
    "plot_dstudy": "plot",
    "topic_set_size": "topic_set_size", "TopicSetSize": "topic_set_size", "power_at": "topic_set_size",
    "expected_ci_width": "topic_set_size", "min_detectable_difference": "topic_set_size",
    "within_system_variance": "topic_set_size",
    "gt2tau": "gt_mappings", "gt2tau_ap": "gt_mappings", "gt2power": "gt_mappings", "gt2minor": "gt_mappings",
    "gt2major": "gt_mappings", "gt2asens": "gt_mappings", "gt2rsens": "gt_mappings", "gt2rmse": "gt_mappings",
    "gt2data": "gt_mappings",
    "plan": "plan", "TopicPlan": "plan",
    "topic_curves": "curves", "TopicCurves": "curves",
}
__getattr__, __dir__ = _lazy_package(__name__, _EXPORTS)

__all__ = list(_EXPORTS)
