"""experiments.compare.comparison: the outputs of a Comparison (the plot; numbers in other units in scientific
notation in the text, Markdown and LaTeX)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from experiments.compare import compare
from test_experiments_compare_systems import _matrix


def test_plot_draws_one_interval_per_pair():
    import matplotlib

    matplotlib.use("Agg")
    c = compare(_matrix(m=4))
    ax = c.plot()
    assert len(ax.get_yticks()) == len(c.table)


@pytest.mark.parametrize("k", [160, -155])
def test_scores_in_other_units_print_in_scientific_notation(k):
    # scores x 1e160 printed 160-digit differences, x 1e-155 printed 0.0000: the numbers were right, the text not
    import re

    rng = np.random.default_rng(0)
    x = pd.DataFrame(rng.uniform(0, 1, (3, 25)) * 10.0**k, index=pd.Index(["a", "b", "c"], name="system"),
                     columns=pd.Index([f"t{i}" for i in range(25)], name="topic"))
    from experiments import compare_measures

    c = compare(x)
    for out in (c.summary(), c.to_markdown(), c.to_latex(), compare_measures({"m": x}).summary()):
        assert not re.search(r"\d{12,}", out) and "0.0000 " not in out
    d = c.table.loc[0, "diff"]
    assert f"{d:.3e}" in c.summary()
