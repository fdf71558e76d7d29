"""Tests of experiments/incomplete/plots.py: the figures of the incompleteness study."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import metrics
from metrics import JudgedRuns

from experiments import (incompleteness_study, plot_discriminative_power, plot_mean_drift, plot_phi_vs_fraction,
                         plot_tau_vs_fraction, tuned_stability_under_incompleteness)


@pytest.fixture(scope="module")
def small(embedded_trec9) -> JudgedRuns:
    """20 systems, all 50 topics: enough for rankings, fast enough for studies."""
    return embedded_trec9.subset(systems=np.arange(0, 104, 5)[:20])


@pytest.fixture(scope="module")
def study_small(small):
    measures = {"nDCG@100": "nDCG@100", "AP": "AP", "P@10 (callable)": lambda j: metrics.evaluate(j, "P@10")}
    return incompleteness_study(small, measures, fractions=(1.0, 0.5, 0.1), seeds=2, test="bootstrap", n_resamples=300)


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


def _hand_study():
    # two curves, three fractions, two seeds; means, minima and maxima over the seeds are worked out below
    return pd.DataFrame({
        "measure": "AP", "judged_only": [False] * 6 + [True] * 6,
        "fraction": [1.0, 1.0, 0.5, 0.5, 0.1, 0.1] * 2, "seed": [0, 1] * 6,
        "tau": [1.0, 1.0, 0.9, 0.8, 0.6, 0.4, 1.0, 1.0, 0.95, 0.93, 0.9, 0.7],
    })


def test_each_curve_is_the_mean_over_seeds_with_a_min_max_band():
    from matplotlib.collections import PolyCollection

    ax = plot_tau_vs_fraction(_hand_study(), threshold=0.85)
    plain, condensed = ax.lines[0], ax.lines[1]
    np.testing.assert_allclose(plain.get_xdata(), [0.1, 0.5, 1.0])
    np.testing.assert_allclose(plain.get_ydata(), [0.5, 0.85, 1.0], atol=1e-15)
    np.testing.assert_allclose(condensed.get_ydata(), [0.8, 0.94, 1.0], atol=1e-15)
    assert ax.get_legend_handles_labels()[1] == ["AP", "AP′ (condensed)", "τ = 0.85"]
    assert ax.lines[2].get_ydata()[0] == 0.85  # the threshold line
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 2
    # the band spans min..max over the seeds: at f = 0.1 of the plain curve, 0.4..0.6
    ys = bands[0].get_paths()[0].vertices[:, 1]
    assert ys.min() == pytest.approx(0.4) and ys.max() == pytest.approx(1.0)
    plt.close("all")


def test_plots_refuse_what_is_not_a_study():
    with pytest.raises(TypeError, match=r"`study` must be the DataFrame of incompleteness_study\(\)"):
        plot_tau_vs_fraction([1, 2])
    with pytest.raises(ValueError, match=r"`value` 'nope' is not a column of the study"):
        plot_tau_vs_fraction(_hand_study(), value="nope")


def test_tuned_curves_are_labelled_by_discount_and_qrels():
    df = pd.DataFrame({"discount": ["log2", "log2", "tuned", "tuned"], "tuned_on": ["", "", "full", "full"],
                       "fraction": [1.0, 0.5] * 2, "seed": 0, "phi": [0.9, 0.8, 0.95, 0.85]})
    ax = plot_phi_vs_fraction(df, target=0.9)
    assert ax.get_legend_handles_labels()[1] == ["log2", "tuned (full qrels)", "target 0.9"]
    plt.close("all")
