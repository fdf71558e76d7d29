"""experiments.compare.classical, the classical tests of compare: Wilcoxon's continuity correction against scipy and
R (the t and sign tests against scipy are in tests/test_experiments_compare_systems.py)."""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from scipy import stats

from experiments.compare import classical as ct
from test_experiments_compare_resampling import _input


# tied differences (P@10-like tenths) and a zero: the normal approximation, where the correction matters
_TIED = np.array([1, 2, 2, -1, 3, 0, 4, -2, 2, 1, -3, 5]) / 10


@pytest.mark.parametrize("correction", [True, False])
def test_wilcoxon_continuity_correction_is_scipys(correction):
    out = ct.wilcoxon(_input(_TIED, correction=correction))
    ref = stats.wilcoxon(_TIED, method="asymptotic", correction=correction)
    assert out.p[0] == pytest.approx(ref.pvalue, rel=1e-12)
    assert out.statistic[0] == ref.statistic


def test_wilcoxon_default_is_r_wilcox_test_with_its_continuity_correction():
    # R 4.x: wilcox.test(c(0.1, 0.2, 0.2, -0.1, 0.3, 0, 0.4, -0.2, 0.2, 0.1, -0.3, 0.5)) (exact=FALSE: ties/zero):
    # p = 0.139401470709836 with correct=TRUE (the default), 0.127805707173412 with correct=FALSE
    assert ct.wilcoxon(_input(_TIED)).p[0] == pytest.approx(0.139401470709836, rel=1e-12)
    assert ct.wilcoxon(_input(_TIED, correction=False)).p[0] == pytest.approx(0.127805707173412, rel=1e-12)


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not installed (Debian: r-base-core)")
def test_wilcoxon_agrees_with_r_live():
    rng = np.random.default_rng(9)
    D = np.round(rng.normal(0.05, 0.2, (4, 30)), 1)  # tenths: ties, so R and we use the normal approximation
    vecs = ";".join(f"x{i} <- c({', '.join(f'{v:.1f}' for v in d)})" for i, d in enumerate(D))
    code = (vecs + "; for (x in list(" + ", ".join(f"x{i}" for i in range(len(D))) + ")) "
            "cat(sprintf('%.15g %.15g\\n', suppressWarnings(wilcox.test(x)$p.value), "
            "suppressWarnings(wilcox.test(x, correct=FALSE)$p.value)))")
    out = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, timeout=60, check=True).stdout
    r = np.array([[float(v) for v in line.split()] for line in out.strip().splitlines()])
    np.testing.assert_allclose(ct.wilcoxon(_input(D)).p, r[:, 0], rtol=1e-10)
    np.testing.assert_allclose(ct.wilcoxon(_input(D, correction=False)).p, r[:, 1], rtol=1e-10)
