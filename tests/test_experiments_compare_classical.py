"""experiments.compare.classical, the classical tests of compare: Wilcoxon's continuity correction against scipy and
R (the t and sign tests against scipy are in tests/test_experiments_compare_systems.py)."""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from scipy import stats

from experiments import wilcoxon_test
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


def _continuous_pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Two runs' scores on n topics, continuous (no zero or tied difference), a moderate mean difference (p ~ 0.1-0.5,
    where the exact distribution and the normal approximation differ in the third digit)."""
    rng = np.random.default_rng(n)
    a = np.round(rng.uniform(0.2, 0.8, n), 6)
    b = np.round(a - rng.normal(0.02, 0.1, n), 6)
    assert np.all(a != b) and np.unique(np.abs(a - b)).size == n
    return a, b


def test_wilcoxon_takes_the_exact_distribution_below_50_topics_as_r_and_not_scipys_auto_at_50():
    # R's wilcox.test: exact <- (n < 50) (n the non-zero differences) and no ties; scipy's method="auto": n <= 50.
    # At 49 both are exact; at 50 we are scipy's asymptotic (continuity-corrected), not its auto; at 51 both approximate
    for n, how in ((49, "exact"), (50, "asymptotic"), (51, "asymptotic")):
        a, b = _continuous_pairs(n)
        d = a - b
        ref = stats.wilcoxon(d, method=how, correction=True)
        out = ct.wilcoxon(_input(d))
        assert out.p[0] == pytest.approx(ref.pvalue, rel=1e-12)
        assert out.statistic[0] == ref.statistic
        # the exact null distribution has a floor 2/2^n; the normal approximation has none
        assert out.p_floor == (2.0 / 2 ** n if n < 50 else 0.0)
        assert wilcoxon_test(np.vstack([a, b])).loc[0, "p_value"] == pytest.approx(ref.pvalue, rel=1e-12)
    # the case that mattered: at 50 topics scipy's auto (exact) is a different number, so the check above can fail
    a, b = _continuous_pairs(50)
    assert abs(stats.wilcoxon(a - b).pvalue - ct.wilcoxon(_input(a - b)).p[0]) > 1e-4


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not installed (Debian: r-base-core)")
def test_wilcoxon_agrees_with_r_live_at_49_50_51_topics(tmp_path):
    # R itself: wilcox.test(a, b, paired=TRUE) with its defaults (exact when n < 50 without zeros or ties, else the
    # normal approximation with correct=TRUE); one run with a zero difference at 49 topics (R: approximation, n = 48)
    cases = [_continuous_pairs(n) for n in (49, 50, 51)]
    a, b = _continuous_pairs(49)
    b = b.copy()
    b[3] = a[3]
    cases.append((a, b))
    path = tmp_path / "pairs.txt"
    path.write_text("".join(" ".join(f"{v:.17g}" for v in row) + "\n" for pair in cases for row in pair))
    code = (f"l <- lapply(strsplit(readLines('{path}'), ' '), as.numeric); "
            "for (k in seq(1, length(l), 2)) cat(sprintf('%.17g %s\\n', "
            "suppressWarnings(wilcox.test(l[[k]], l[[k + 1]], paired = TRUE))$p.value, "
            "suppressWarnings(wilcox.test(l[[k]], l[[k + 1]], paired = TRUE))$method))")
    out = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, timeout=60, check=True).stdout
    lines = out.strip().splitlines()
    assert len(lines) == len(cases)
    r_p = np.array([float(line.split()[0]) for line in lines])
    r_exact = ["exact" in line for line in lines]
    assert r_exact == [True, False, False, False]  # R's own rule, as documented: 49 exact, 50 and 51 not, zero not
    ours = np.array([ct.wilcoxon(_input(a - b)).p[0] for a, b in cases])
    api = np.array([wilcoxon_test(np.vstack(pair)).loc[0, "p_value"] for pair in cases])
    # psignrank and scipy's exact distribution are both exact sums; pnorm of the same z: agreement to rounding
    np.testing.assert_allclose(ours, r_p, rtol=1e-10)
    np.testing.assert_allclose(api, r_p, rtol=1e-10)
