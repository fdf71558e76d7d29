"""Tests of gtheory/gstudy/reml.py: the variance-component estimators of a systems × topics matrix with missing cells —
Henderson's Method 1 (analogous ANOVA, Brennan 2001 ch. 7) and REML (the profiled criterion of lme4).

External references:
* R lme4 1.1-31: ``lmer(score ~ 1 + (1|system) + (1|topic), REML = TRUE)`` with bobyqa run to
  rhoend = 1e-12; the script is tests/data/lme4/lme4_reml.R, its output tests/data/lme4/lme4_reml.json.
  Run live when Rscript with lme4 is installed (skipped otherwise).
* the balanced ANOVA (:func:`gtheory.variance_components`), which Henderson's Method 1 and REML
  (for interior optima) equal on a complete matrix.
* the harmonic mean of topics per system written out by hand.
(Brennan's published missing-data example, through :func:`gtheory.gstudy`, is in test_gtheory_gstudy_unbalanced.py.)
"""
from __future__ import annotations

import inspect
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import gtheory
from gtheory import MissingCellsWarning, gstudy, variance_components
from gtheory.gstudy.reml import _Reml, harmonic_topics, henderson_components, henderson_t_terms, reml_components

from conftest import SHARED, brennan_missing

FIXTURES = Path(__file__).parent / "data" / "lme4"


def _fixture_matrix(inp: dict) -> np.ndarray:
    """The input matrix of one lme4 fit, rebuilt from the shared data by the recorded rule."""
    path = SHARED / inp["matrix"]
    if not path.is_file():
        pytest.skip(f"shared data not found: {path}")
    if "seed" not in inp:
        return brennan_missing().to_numpy(dtype=float)
    x = gtheory.read_scores(path, orientation=inp["orientation"]).to_numpy().copy()
    x[np.random.default_rng(inp["seed"]).random(x.shape) < inp["remove_fraction"]] = np.nan
    return x


LME4_FITS = json.loads((FIXTURES / "lme4_reml.json").read_text())["fits"]


# ------------------------------------------------------------------ agreement with the balanced case
def test_complete_matrix_henderson_and_reml_equal_anova():
    rng = np.random.default_rng(7)
    x = rng.normal(0, 0.3, (15, 1)) + rng.normal(0, 0.5, (1, 12)) + rng.normal(0, 0.4, (15, 12))
    vc = variance_components(x)
    h = henderson_components(x)
    np.testing.assert_allclose([h.system, h.topic, h.residual], [vc.system, vc.topic, vc.residual], rtol=1e-12)
    r, info = reml_components(x)
    assert vc.system > 0 and vc.topic > 0  # interior optimum: REML = ANOVA for balanced data
    np.testing.assert_allclose([r.system, r.topic, r.residual], [vc.system, vc.topic, vc.residual], rtol=1e-6)
    assert info["success"]
    # batched Henderson on a stack with missing cells = one at a time
    xs = np.stack([x, x + rng.normal(0, 0.1, x.shape)])
    xs[rng.random(xs.shape) < 0.2] = np.nan
    hb = henderson_components(xs)
    for b in range(2):
        one = henderson_components(xs[b])
        np.testing.assert_allclose([hb.system[b], hb.topic[b], hb.residual[b]],
                                   [one.system, one.topic, one.residual], rtol=1e-12)




# ------------------------------------------------------------------ lme4
def _reml_stopping_region(model: _Reml, theta: np.ndarray, ftol: float) -> np.ndarray:
    """Half-widths in θ of the region where the REML optimiser may stop: {θ : dev(θ) − dev(θ*) ≤ ftol}.

    Nelder–Mead stops when its simplex spans at most ``ftol`` in the criterion (and ``xatol`` in θ); where the
    criterion is flat that leaves θ free within ½ δᵀHδ ≤ ftol, i.e. |δ_i| ≤ √(2 ftol (H⁻¹)_ii), H the criterion's
    Hessian at the optimum (central differences here)."""
    h = 1e-4 * np.abs(theta)
    H = np.empty((2, 2))
    for a in range(2):
        for b in range(2):
            ea, eb = np.eye(2)[a] * h[a], np.eye(2)[b] * h[b]
            H[a, b] = (model.deviance(theta + ea + eb) - model.deviance(theta + ea - eb)
                       - model.deviance(theta - ea + eb) + model.deviance(theta - ea - eb)) / (4 * h[a] * h[b])
    return np.sqrt(2 * ftol * np.diag(np.linalg.inv(H)))


@pytest.mark.parametrize("fit", LME4_FITS, ids=[f["file"] for f in LME4_FITS])
def test_reml_matches_lme4_fixture(fit):
    x = _fixture_matrix(fit["input"])
    with pytest.warns(MissingCellsWarning):
        g = gstudy(x, missing="reml")
    model = _Reml(x)
    ref = np.array([fit["var_system"], fit["var_topic"], fit["var_residual"], fit["mu"]])
    theta_ref = np.sqrt(ref[:2] / ref[2])  # lme4's θ = σ_s/σ_e, σ_t/σ_e
    # 1. the criterion and the estimates as functions of θ are lme4's: evaluated at lme4's θ they give lme4's
    #    numbers to rounding (no optimiser involved)
    dev, s2e, mu = model.parts(theta_ref)
    np.testing.assert_allclose([*(theta_ref**2 * s2e), s2e, mu, dev], [*ref, fit["remlcrit"]], rtol=1e-9)
    # 2. our optimiser reaches lme4's optimum within its own stopping rule: the criterion to within ftol
    #    (reml_components' fatol relative to the criterion's size), θ within the region that ftol leaves free
    #    (both optimisers stop somewhere in it: twice its half-width), and so the components within the change
    #    that region makes in them (first-order propagation, central differences)
    fatol = inspect.signature(reml_components).parameters["fatol"].default
    ftol = fatol * max(1.0, abs(fit["remlcrit"]))
    assert abs(g.reml_deviance - fit["remlcrit"]) <= ftol
    dtheta = 2 * _reml_stopping_region(model, theta_ref, ftol)

    def estimates(theta):
        _, e, m = model.parts(theta)
        return np.array([theta[0] ** 2 * e, theta[1] ** 2 * e, e, m])

    step = 1e-6 * theta_ref
    jac = np.column_stack([(estimates(theta_ref + d) - estimates(theta_ref - d)) / (2 * d[i])
                           for i, d in enumerate(np.diag(step))])
    tol = np.abs(jac) @ dtheta
    ours = np.array([g.var_system, g.var_topic, g.var_residual, g.grand_mean])
    assert np.all(np.abs(ours - ref) <= tol), (ours - ref, tol)
    assert np.all(tol <= 1e-4 * np.abs(ref))  # the region is small: the comparison still means something


def _have_lme4() -> bool:
    if shutil.which("Rscript") is None:
        return False
    r = subprocess.run(["Rscript", "-e", "library(lme4)"], capture_output=True)
    return r.returncode == 0


@pytest.mark.skipif(not _have_lme4(), reason="Rscript with lme4 not installed (Debian: r-cran-lme4)")
def test_reml_matches_lme4_live(tmp_path):
    fits = [f for f in LME4_FITS if f["file"] in ("brennan_missing.csv", "web2013_ap_missing20.csv")]
    files = []
    for f in fits:
        x = _fixture_matrix(f["input"])
        long = pd.DataFrame(x).stack().rename("score").reset_index().dropna()  # missing cells: absent rows
        long.columns = ["system", "topic", "score"]
        long.to_csv(tmp_path / f["file"], index=False, float_format="%.17g")
        files.append(str(tmp_path / f["file"]))
    out = subprocess.run(["Rscript", str(FIXTURES / "lme4_reml.R"), *files], capture_output=True, text=True,
                         check=True).stdout
    for line, f in zip(out.strip().splitlines(), fits):
        r = json.loads(line)
        # the long file read back: absent rows are missing cells
        with pytest.warns(MissingCellsWarning):
            g = gstudy(tmp_path / f["file"], missing="reml", orientation="long")
        for key in ("var_system", "var_topic", "var_residual"):
            assert getattr(g, key) == pytest.approx(r[key], rel=1e-6), key



# ------------------------------------------------------------------ by hand
def test_henderson_t_terms_of_a_small_matrix_by_hand():
    # x = [[1, 2], [3, nan]]: cells 1, 2, 3; T_s = Σ_s (Σ_t x)²/n_s = 3²/2 + 3²/1 = 13.5;
    # T_t = (1 + 3)²/2 + 2²/1 = 12; T_st = 1 + 4 + 9 = 14; T_mu = 6²/3 = 12
    t = henderson_t_terms(np.array([[1.0, 2.0], [3.0, np.nan]]))
    assert t["T_s"] == pytest.approx(13.5) and t["T_t"] == pytest.approx(12.0)
    assert t["T_st"] == pytest.approx(14.0) and t["T_mu"] == pytest.approx(12.0)


def test_harmonic_topics_by_hand():
    # systems scored on 4, 3 and 5 topics: 3 / (1/4 + 1/3 + 1/5) = 3.8298
    mask = np.zeros((3, 5), dtype=bool)
    mask[0, :4] = mask[1, :3] = mask[2, :] = True
    assert harmonic_topics(mask) == pytest.approx(3 / (1 / 4 + 1 / 3 + 1 / 5), rel=1e-15)
    assert harmonic_topics(np.ones((2, 7), dtype=bool)) == pytest.approx(7.0, rel=1e-15)


def test_estimates_do_not_depend_on_a_constant_shift():
    # variance components are invariant to adding a constant to every score (the centring of both estimators);
    # tolerances: Henderson is closed form (rounding of sums of squares, 1e-9 relative for scores near 100);
    # REML stops within its optimiser's tolerance (1e-6 relative, the balanced-case agreement above)
    rng = np.random.default_rng(5)
    x = rng.normal(0, 0.3, (12, 1)) + rng.normal(0, 0.4, (1, 10)) + rng.normal(0, 0.3, (12, 10))
    x[rng.random(x.shape) < 0.2] = np.nan
    h, h100 = henderson_components(x), henderson_components(x + 100)
    np.testing.assert_allclose([h.system, h.topic, h.residual], [h100.system, h100.topic, h100.residual], rtol=1e-9)
    r, _ = reml_components(x)
    r100, _ = reml_components(x + 100)
    np.testing.assert_allclose([r.system, r.topic, r.residual], [r100.system, r100.topic, r100.residual], rtol=1e-5)
