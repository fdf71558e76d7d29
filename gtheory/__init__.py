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

from .components import (
    VarianceComponents,
    erho2_from_components,
    phi_from_components,
    stability_ratio,
    variance_components,
)
from .designs import Design, DesignDStudy, DesignGStudy, Effect, gstudy_design, parse_design
from .bootstrap import BootstrapResult, dstudy_subset
from .errors import MissingCellsWarning, NegativeVarianceWarning, ParameterError
from .gstudy import CoefficientInterval, GStudy, TopicsNeeded, gstudy, topics_needed_for_ratio
from .intervals import project
from .io import as_score_matrix, read_scores
from .plot import plot_dstudy
from .unbalanced import UnbalancedGStudy

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
]
