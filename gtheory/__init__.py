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
    # the G-study and its D-study (gtheory/gstudy/)
    "gstudy": "gstudy.gstudy", "GStudy": "gstudy.balanced", "TopicsNeeded": "gstudy.coefficients",
    "topics_needed_for_ratio": "gstudy.coefficients",
    "project": "gstudy.intervals",
    "CoefficientInterval": "gstudy.coefficients",
    "NegativeVarianceWarning": "errors", "ParameterError": "gtheory.kit.errors", "MissingCellsWarning": "errors",
    "PrecisionLossWarning": "errors",
    "UnbalancedGStudy": "gstudy.unbalanced",
    "BootstrapResult": "gstudy.bootstrap_result", "dstudy_subset": "gstudy.bootstrap",
    "variance_components": "gstudy.components", "VarianceComponents": "gstudy.components",
    "phi_from_components": "gstudy.components", "erho2_from_components": "gstudy.components",
    "stability_ratio": "gstudy.components",
    "read_scores": "gstudy.score_csv",
    "as_score_matrix": "gstudy.score_matrix",
    "gstudy_design": "gstudy.designs", "parse_design": "gstudy.design_parse", "Design": "gstudy.design_parse",
    "Effect": "gstudy.design_parse", "DesignGStudy": "gstudy.designs", "DesignDStudy": "gstudy.designs",
    "plot_dstudy": "gstudy.plot",
    # how many topics: topic set size, G-theory's mappings, curves and the plan (gtheory/topics/)
    "topic_set_size": "topics.topic_set_size", "TopicSetSize": "topics.topic_set_size",
    "power_at": "topics.power", "expected_ci_width": "topics.power",
    "min_detectable_difference": "topics.power", "within_system_variance": "topics.topic_set_size",
    "gt2tau": "topics.gt_mappings", "gt2tau_ap": "topics.gt_mappings", "gt2power": "topics.gt_mappings",
    "gt2minor": "topics.gt_mappings", "gt2major": "topics.gt_mappings", "gt2asens": "topics.gt_mappings",
    "gt2rsens": "topics.gt_mappings", "gt2rmse": "topics.gt_mappings", "gt2data": "topics.gt_mappings",
    "plan": "topics.plan", "TopicPlan": "topics.plan",
    "topic_curves": "topics.curves", "TopicCurves": "topics.curves",
}
__getattr__, __dir__ = _lazy_package(__name__, _EXPORTS)

__all__ = list(_EXPORTS)
