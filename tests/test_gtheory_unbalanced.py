"""Tests of gtheory.unbalanced (G-study with missing cells: Henderson's Method 1 and REML).

External references:
* Brennan (2001) synthetic p × i data with missing cells, as transcribed in GeneralizIT's fixtures
  (see the data SOURCE.txt): T terms, components, Eρ² and Φ.
* R lme4 1.1-31: ``lmer(score ~ 1 + (1|system) + (1|topic), REML = TRUE)`` with bobyqa run to
  rhoend = 1e-12; the script is tests/data/lme4/lme4_reml.R, its output tests/data/lme4/lme4_reml.json.
  Run live when Rscript with lme4 is installed (skipped otherwise).
* the balanced ANOVA (:func:`gtheory.variance_components`), which Henderson's Method 1 and REML
  (for interior optima) equal on a complete matrix.
"""
from __future__ import annotations

import inspect
import json
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import gtheory
from gtheory import MissingCellsWarning, gstudy, variance_components
from gtheory.unbalanced import (
    UnbalancedGStudy,
    _Reml,
    henderson_components,
    henderson_t_terms,
    reml_components,
)

from conftest import SHARED

BRENNAN_MISSING = SHARED / "gtheory-textbook" / "brennan2001_via_GeneralizIT" / "synthetic_missing_p_x_i.csv"
FIXTURES = Path(__file__).parent / "data" / "lme4"


def _published(value: float, pub: str) -> None:
    decimals = len(pub.split(".")[1])
    assert abs(value - float(pub)) <= 0.5 * 10.0**-decimals + 1e-12, (value, pub)


def _brennan() -> pd.DataFrame:
    if not BRENNAN_MISSING.is_file():
        pytest.skip("shared textbook data not found")
    df = pd.read_csv(BRENNAN_MISSING, index_col=0)
    df.index = df.index.astype(str)
    return df


def _fixture_matrix(inp: dict) -> np.ndarray:
    """The input matrix of one lme4 fit, rebuilt from the shared data by the recorded rule."""
    path = SHARED / inp["matrix"]
    if not path.is_file():
        pytest.skip(f"shared data not found: {path}")
    if "seed" not in inp:
        return _brennan().to_numpy(dtype=float)
    x = gtheory.read_scores(path, orientation=inp["orientation"]).to_numpy().copy()
    x[np.random.default_rng(inp["seed"]).random(x.shape) < inp["remove_fraction"]] = np.nan
    return x


LME4_FITS = json.loads((FIXTURES / "lme4_reml.json").read_text())["fits"]


# ------------------------------------------------------------------ published numbers
def test_brennan_missing_data_henderson():
    with pytest.warns(MissingCellsWarning, match=r"13 of 72 cells \(18\.1%\) are missing"):
        g = gstudy(_brennan(), missing="henderson")
    assert isinstance(g, UnbalancedGStudy)
    t = henderson_t_terms(_brennan().to_numpy(dtype=float))
    for k, pub in zip(("T_s", "T_t", "T_st", "T_mu"), (".8", ".7432", ".0", ".2034")):
        _published(t[k] - int(t[k]), pub)
    assert [int(t[k]) for k in ("T_s", "T_t", "T_st", "T_mu")] == [27, 24, 37, 23]
    _published(g.var_system, ".0473")
    _published(g.var_topic, ".0117")
    _published(g.var_residual, ".1840")
    # Brennan's coefficients use the harmonic mean of items per person (12 / (4/6 + 3/5 + 5/4) = 4.768) and the rounded
    # components; from those they are reproduced to the printed digit ...
    assert g.n_topics_harmonic == pytest.approx(12 / (4 / 6 + 3 / 5 + 5 / 4))
    rounded = gtheory.phi_from_components(0.0473, 0.0117, 0.1840, g.n_topics_harmonic)
    _published(float(rounded), ".5354")
    _published(float(gtheory.erho2_from_components(0.0473, 0.1840, g.n_topics_harmonic)), ".5507")
    # ... and from the unrounded components they differ by less than 4e-4
    assert g.phi() == pytest.approx(0.5354, abs=4e-4)
    assert g.erho2() == pytest.approx(0.5507, abs=4e-4)


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


def test_complete_matrix_ignores_missing_option():
    x = np.random.default_rng(0).random((6, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingCellsWarning)
        g = gstudy(x, missing="reml")
    assert type(g) is gtheory.GStudy
    assert g.var_system == gstudy(x).var_system


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


# ------------------------------------------------------------------ done-when: recovery
@pytest.mark.parametrize("name", ["web2010_ndcg20.csv", "web2013_ap.csv", "robust2004_ap.csv"])
@pytest.mark.parametrize("frac, seed", [(0.1, 11), (0.2, 12), (0.4, 13)])
def test_missing_at_random_recovers_complete_components(name, frac, seed):
    path = SHARED / "score-matrices" / "sigir2018-simulation" / name
    if not path.is_file():
        pytest.skip("shared data not found")
    full = gtheory.read_scores(path, orientation="topics-by-systems").to_numpy()
    ref = gstudy(full)
    x = full.copy()
    x[np.random.default_rng(seed).random(x.shape) < frac] = np.nan
    # REML replicates are one optimisation each: 50 of them, on the two smaller collections
    methods = [("henderson", 500)] + ([("reml", 50)] if name != "robust2004_ap.csv" else [])
    for method, n_boot in methods:
        with pytest.warns(MissingCellsWarning, match=f"{100 * np.isnan(x).mean():.1f}%"):
            g = gstudy(x, missing=method)
        b = g.bootstrap(n_resamples=n_boot, over="both", seed=seed)
        for q in ("var_system", "var_topic", "var_residual"):
            lo, hi = b.interval(q, "bias_corrected")
            assert lo <= getattr(ref, q) <= hi, (method, q, lo, getattr(ref, q), hi)


# ------------------------------------------------------------------ options and errors
def test_missing_default_error_and_bad_value():
    x = np.random.default_rng(0).random((5, 4))
    x[1, 2] = np.nan
    with pytest.raises(ValueError, match="contains 1 NaN value"):
        gstudy(x)
    with pytest.raises(ValueError, match="`missing` must be 'error', 'exclude', 'henderson' or 'reml'; got 'zero'"):
        gstudy(x, missing="zero")
    x[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinite"):
        gstudy(x, missing="reml")


def test_missing_exclude_drops_topics():
    x = np.random.default_rng(0).random((5, 4))
    x[1, 2] = np.nan
    with pytest.warns(MissingCellsWarning, match=r"1 of 20 cells \(5\.0%\).*drops 1 of 4 topics"):
        g = gstudy(x, missing="exclude")
    assert g.n_topics == 3 and g.topics == ("0", "1", "3")
    assert g.var_system == gstudy(np.delete(x, 2, axis=1)).var_system


def test_empty_system_and_too_few_cells():
    x = np.random.default_rng(0).random((4, 4))
    x[2] = np.nan
    with pytest.raises(ValueError, match="system '2' has no score on any topic"):
        gstudy(x, missing="henderson")
    y = np.full((3, 3), np.nan)
    y[0], y[:, 0] = [1, 2, 3], [1, 2, 3]
    with pytest.raises(ValueError, match="too few to separate"):
        gstudy(y, missing="reml")


def test_unbalanced_refuses_normal_theory_intervals():
    with pytest.warns(MissingCellsWarning):
        g = gstudy(_brennan(), missing="reml")
    with pytest.raises(ValueError, match=r"need a complete matrix.*13 missing cells.*bootstrap"):
        g.interval("phi")
    assert g.topics_needed(0.9).n_low is None
    assert "REML" in g.summary() and "18.1%" in g.summary()
    assert g.plot().get_ylabel() != "" and g.dstudy().shape[1] == 2
    assert g.phi(50) == pytest.approx(float(gtheory.phi_from_components(g.var_system, g.var_topic,
                                                                        g.var_residual, 50)))


def test_read_scores_allow_missing(tmp_path):
    p = tmp_path / "long.csv"
    p.write_text("system,topic,score\na,1,0.5\na,2,0.25\nb,1,0.75\nb,2,\nc,2,0.1\n")
    with pytest.raises(ValueError, match="line 5: missing score"):
        gtheory.read_scores(p)
    df = gtheory.read_scores(p, allow_missing=True)
    assert df.shape == (3, 2) and np.isnan(df.loc["b", "2"]) and np.isnan(df.loc["c", "1"])


# ------------------------------------------------------------------ command line
def test_cli_gstudy_missing_reml(tmp_path, capsys):
    from experiments.cli import main

    p = tmp_path / "scores.csv"
    _brennan().rename_axis("system").to_csv(p)
    assert main(["gstudy", str(p), "--missing", "henderson", "--json"]) == 0
    out, err = capsys.readouterr()
    d = json.loads(out)
    assert d["method"] == "henderson" and d["n_missing"] == 13 and d["level"] is None
    _published(d["components"]["system"]["variance"], ".0473")
    assert "18.1%" in err
    assert main(["gstudy", str(p), "--missing", "reml"]) == 0
    assert "REML" in capsys.readouterr().out
    assert main(["gstudy", str(p)]) == 2
    assert "--missing reml" in capsys.readouterr().err
    assert main(["tune", "--missing", "reml"]) == 2
    assert "--missing reml applies to gstudy only" in capsys.readouterr().err


def test_long_frame_with_absent_rows():
    long = _brennan().rename_axis(index="system", columns="topic").stack().rename("score").reset_index().dropna()
    assert len(long) == 59  # 13 of the 72 system/topic pairs have no row
    with pytest.raises(ValueError, match="13 system/topic pairs missing"):
        gstudy(long)
    with pytest.warns(MissingCellsWarning, match="13 of 72"):
        g = gstudy(long, missing="henderson")
    _published(g.var_system, ".0473")
