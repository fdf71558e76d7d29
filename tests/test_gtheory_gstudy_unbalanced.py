"""Tests of gtheory.gstudy.unbalanced (G-study with missing cells: Henderson's Method 1 and REML).

External references:
* Brennan (2001) synthetic p × i data with missing cells, as transcribed in GeneralizIT's fixtures
  (see the data SOURCE.txt): T terms, components, Eρ² and Φ.
* the estimators themselves (gtheory/gstudy/reml.py: against R lme4 and the balanced ANOVA) are tested in
  test_gtheory_gstudy_reml.py.
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import gtheory
from gtheory import MissingCellsWarning, gstudy
from gtheory.gstudy.reml import henderson_t_terms
from gtheory.gstudy.unbalanced import UnbalancedGStudy

from conftest import SHARED, brennan_missing

FIXTURES = Path(__file__).parent / "data" / "lme4"


def _published(value: float, pub: str) -> None:
    decimals = len(pub.split(".")[1])
    assert abs(value - float(pub)) <= 0.5 * 10.0**-decimals + 1e-12, (value, pub)


# ------------------------------------------------------------------ published numbers
def test_brennan_missing_data_henderson():
    with pytest.warns(MissingCellsWarning, match=r"13 of 72 cells \(18\.1%\) are missing"):
        g = gstudy(brennan_missing(), missing="henderson")
    assert isinstance(g, UnbalancedGStudy)
    t = henderson_t_terms(brennan_missing().to_numpy(dtype=float))
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


def test_complete_matrix_ignores_missing_option():
    x = np.random.default_rng(0).random((6, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingCellsWarning)
        g = gstudy(x, missing="reml")
    assert type(g) is gtheory.GStudy
    assert g.var_system == gstudy(x).var_system



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
        g = gstudy(brennan_missing(), missing="reml")
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
    brennan_missing().rename_axis("system").to_csv(p)
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
    long = brennan_missing().rename_axis(index="system", columns="topic").stack().rename("score").reset_index().dropna()
    assert len(long) == 59  # 13 of the 72 system/topic pairs have no row
    with pytest.raises(ValueError, match="13 system/topic pairs missing"):
        gstudy(long)
    with pytest.warns(MissingCellsWarning, match="13 of 72"):
        g = gstudy(long, missing="henderson")
    _published(g.var_system, ".0473")
