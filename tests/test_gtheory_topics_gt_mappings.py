"""gt2tau (gtheory/topics/gt_mappings.py): Urbano, Marrero & Martín's (SIGIR 2013) mappings, equal to gt4ireval's functions.

The reference is gt4ireval's own R code (file R/gt2tau.R of Urbano's package: ``gt2tau <- function(Erho2)
Erho2 ^ 2.84729794002905`` and so on), evaluated by R itself on a grid (skipped when Rscript is absent), plus values
written out from that evaluation so the test also runs without R.
"""
from __future__ import annotations

import math
import shutil
import subprocess

import numpy as np
import pytest

import gtheory
from gtheory.topics import gt_mappings as g

#: gt4ireval's functions, as its R/gt2tau.R defines them (the argument checks left out)
R_FUNCTIONS = """
gt2tau <- function(Erho2) Erho2 ^ 2.84729794002905
gt2tauAP <- function(Erho2) Erho2 ^ 3.98652984123827
gt2power <- function(Erho2) Erho2 ^ 4.77902509574171
gt2minor <- function(Erho2) (1-Erho2) ^ 1.53337366741287
gt2major <- function(Erho2) (1-Erho2) ^ 2.62976839002005
gt2asens <- function(Erho2) (1-Erho2) ^ 1.54402996734738
gt2rsens <- function(Phi) (1-Phi) ^ 1.29759126030214
gt2rmse <- function(Phi) (1-Phi) ^ 3.27642726002903
"""
OURS = {"gt2tau": g.gt2tau, "gt2tauAP": g.gt2tau_ap, "gt2power": g.gt2power, "gt2minor": g.gt2minor,
        "gt2major": g.gt2major, "gt2asens": g.gt2asens, "gt2rsens": g.gt2rsens, "gt2rmse": g.gt2rmse}

#: R 4.2's output of the functions above at (0.9, 0.5, 0.75, 0.6, 0.95, 0.3, 0.7, 0.85), one each, %.15f
PINNED = [("gt2tau", 0.9, 0.740823570006479), ("gt2tauAP", 0.5, 0.063086282905191),
          ("gt2power", 0.75, 0.252880092865830), ("gt2minor", 0.6, 0.245363110994576),
          ("gt2major", 0.95, 0.000378959189555), ("gt2asens", 0.3, 0.576536399761985),
          ("gt2rsens", 0.7, 0.209660737883507), ("gt2rmse", 0.85, 0.001997666291401)]


@pytest.mark.parametrize("name,x,expected", PINNED)
def test_pinned_values_of_gt4ireval(name, x, expected):
    assert OURS[name](x) == pytest.approx(expected, abs=2e-15)  # R printed 15 decimals


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not installed (Debian: r-base-core)")
def test_equal_gt4ireval_functions_evaluated_by_r():
    grid = np.round(np.linspace(0.01, 0.99, 99), 2)
    code = R_FUNCTIONS + f"x <- c({', '.join(map(str, grid))})\n" + "".join(
        f"cat(sprintf('%.17g', {name}(x)), '\\n')\n" for name in OURS)
    out = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, timeout=60, check=True).stdout
    rows = [np.array(line.split(), dtype=float) for line in out.strip().splitlines()]
    for (name, fn), ref in zip(OURS.items(), rows):
        # the same power function of the same double in two libms: equal to a few units in the last place
        np.testing.assert_allclose(fn(grid), ref, rtol=1e-14, atol=1e-300, err_msg=name)


def test_shapes_and_directions():
    x = np.linspace(0.05, 0.95, 19)
    for name in ("gt2tau", "gt2tauAP", "gt2power"):  # agreement rises with Eρ²
        assert np.all(np.diff(OURS[name](x)) > 0)
    for name in ("gt2minor", "gt2major", "gt2asens", "gt2rsens", "gt2rmse"):  # error rates fall
        assert np.all(np.diff(OURS[name](x)) < 0)
    assert isinstance(g.gt2tau(0.5), float) and g.gt2tau(x).shape == x.shape
    d = g.gt2data(0.9, 0.8)
    assert set(d) == {"tau", "tau_ap", "power", "minor", "major", "asens", "rsens", "rmse"}
    assert d["tau"] == g.gt2tau(0.9) and d["rmse"] == g.gt2rmse(0.8)


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, 1.5, math.nan, [0.5, 1.0], "x"])
def test_outside_the_unit_interval_is_refused_as_gt4ireval(bad):
    with pytest.raises(gtheory.ParameterError, match="`erho2`"):
        g.gt2tau(bad)
    with pytest.raises(gtheory.ParameterError, match="`phi`"):
        g.gt2rmse(bad)


def test_exported():
    for name in ("gt2tau", "gt2tau_ap", "gt2power", "gt2minor", "gt2major", "gt2asens", "gt2rsens", "gt2rmse",
                 "gt2data"):
        assert name in gtheory.__all__ and callable(getattr(gtheory, name))


@pytest.mark.parametrize("bad", ["0.5", b"0.5", ["0.5", "0.6"], None, object()])
def test_text_is_not_a_coefficient(bad):
    # a string was converted by NumPy and mapped as a number ("0.5" gave 0.139)
    with pytest.raises(gtheory.ParameterError, match="`erho2`"):
        gtheory.gt2tau(bad)
