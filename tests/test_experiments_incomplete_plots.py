"""Tests of experiments/incomplete_plots.py: the figures of the incompleteness study."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

import metrics
from metrics import JudgedRuns

from experiments import (incompleteness_study, plot_discriminative_power, plot_mean_drift, plot_phi_vs_fraction,
                         plot_tau_vs_fraction, tuned_stability_under_incompleteness)


@pytest.fixture(scope="module")
def small() -> JudgedRuns:
    """20 systems, all 50 topics: enough for rankings, fast enough for studies."""
    return metrics.load_trec9().subset(systems=np.arange(0, 104, 5)[:20])


@pytest.fixture(scope="module")
def study_small(small):
    measures = {"nDCG@100": "nDCG@100", "AP": "AP", "P@10 (callable)": lambda j: metrics.evaluate(j, "P@10")}
    return incompleteness_study(small, measures, fractions=(1.0, 0.5, 0.1), seeds=2, test="bootstrap", B=300)


def test_plots(study_small, small):
    import matplotlib.pyplot as plt

    ax = plot_tau_vs_fraction(study_small)
    labels = ax.get_legend_handles_labels()[1]
    assert "AP" in labels and "AP′ (condensed)" in labels and "τ = 0.9" in labels
    assert ax.get_xlabel() == "fraction of judgments kept (f)" and "Kendall" in ax.get_ylabel()
    assert len(ax.lines) == 6 + 1
    ax = plot_tau_vs_fraction(study_small, value="accuracy", threshold=None, log_x=True)
    assert ax.get_xscale() == "log" and "accuracy" in ax.get_ylabel()
    ax = plot_mean_drift(study_small, value="drift")
    assert ax.get_legend() is not None and "mean score" in ax.get_ylabel()
    ax = plot_discriminative_power(study_small)
    y = ax.lines[0].get_ydata()
    assert np.all((0 <= y) & (y <= 1)) and "discriminative power" in ax.get_ylabel()
    tuned = tuned_stability_under_incompleteness(small, (1.0, 0.5), seeds=1, cutoff=20, tune=False)
    ax = plot_phi_vs_fraction(tuned, target=0.95)
    assert ax.get_legend_handles_labels()[1] == ["log2", "zipf", "linear", "target 0.95"]
    with pytest.raises(ValueError, match="no 'power' column"):
        plot_discriminative_power(study_small.drop(columns="power"))
    plt.close("all")
