"""experiments.compare.corrections: the adjusted p-values of compare() against statsmodels' multipletests (Holm
computed here, the others through it)."""
from __future__ import annotations

import numpy as np
import pytest

from experiments.compare import compare
from test_experiments_compare_systems import _matrix


@pytest.mark.parametrize("correction,method", [("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh"),
                                               ("by", "fdr_by"), ("hommel", "hommel")])
def test_corrections_equal_statsmodels_multipletests(correction, method):
    from statsmodels.stats.multitest import multipletests

    X = _matrix(m=6, shift=(0.2, 0.0, 0.05, 0.1, 0.0, 0.15))
    raw = compare(X, test="t")
    c = compare(X, test="t", correction=correction, alpha=0.05)
    reject, adj, _, _ = multipletests(raw.table["p"].to_numpy(), alpha=0.05, method=method)
    np.testing.assert_allclose(c.table["p_adjusted"], adj, rtol=1e-12)
    np.testing.assert_array_equal(c.table["significant"], reject)
    assert (c.table["p_adjusted"] >= c.table["p"] - 1e-15).all()


def test_holm_is_statsmodels_holm():
    from statsmodels.stats.multitest import multipletests

    from experiments.compare.corrections import holm

    rng = np.random.default_rng(9)
    for P in (2, 5, 28, 300):
        p = rng.random(P) ** 3
        p[: P // 3] = p[0]  # ties
        rej, adj = holm(p, 0.05)
        ref_rej, ref_adj = multipletests(p, alpha=0.05, method="holm")[:2]
        np.testing.assert_allclose(adj, ref_adj, rtol=1e-15)
        np.testing.assert_array_equal(rej, ref_rej)
