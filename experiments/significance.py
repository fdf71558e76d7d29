r"""Significance tests over all system pairs, and the discriminative power of a metric: one import for both.

Given a systems x topics score matrix (any metric, any configuration), these functions test every
pair of systems for a difference in mean score. They live in two modules, by concept, and are all
importable from here (and from :mod:`experiments`):

* :mod:`experiments.discriminative` -- Sakai's paired bootstrap test (:func:`bootstrap_asl`), the
  discriminative power of a metric and its estimated difference required (:func:`discriminative_power`,
  :class:`DiscriminativePower`), and the ASL curves (:func:`plot_asl_curves`);
* :mod:`experiments.pairwise_tests` -- the paired t-test and Wilcoxon signed-rank test
  (:func:`paired_ttest`, :func:`wilcoxon_test`) and Carterette's randomised Tukey HSD
  (:func:`tukey_hsd_randomised`).

Kanoulas & Aslam (CIKM 2009) kept only the top 30 systems by mean score ("near-zero runs are unlikely
to be useful for discussing discriminative power"); every function here takes ``top_k`` for that.

Every result table has one row per unordered system pair :math:`(a, b)`, in the order of
:func:`numpy.triu_indices` over the systems (input order, or best-first when ``top_k`` is given),
with ``mean_diff`` = mean(a) - mean(b).
"""
from __future__ import annotations

from experiments._validation import pair_indices  # noqa: F401  (the pair order of every table here)
from experiments.discriminative import DiscriminativePower, bootstrap_asl, discriminative_power, plot_asl_curves
from experiments.pairwise_tests import paired_ttest, tukey_hsd_randomised, wilcoxon_test

__all__ = [
    "bootstrap_asl",
    "discriminative_power",
    "DiscriminativePower",
    "paired_ttest",
    "wilcoxon_test",
    "tukey_hsd_randomised",
    "plot_asl_curves",
]
