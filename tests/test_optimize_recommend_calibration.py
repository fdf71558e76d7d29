"""Calibration of recommend's switching rule on half-collections (a few cells; the full table is
benchmarks/calibrate_recommend.py, recorded in docs/should-i-tune.md).

Protocol: random topic halvings; the rule runs on one half, its advice (the baseline when it keeps) is scored by Φ(1)
on the other half against the baseline's Φ(1) there. Targets (the issue's done-when): the mean held-out difference is
at least -0.001; where some candidate beats the baseline out of sample by 0.02 or more, the advice captures at least
half of it. The halves are disjoint, so the scores are out of sample by construction; 4 halvings keep the cost low.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _calibration():
    spec = importlib.util.spec_from_file_location("calibrate_recommend", ROOT / "benchmarks" / "calibrate_recommend.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_CELLS: dict[tuple, dict] = {}


def _cell(request, name: str, cutoff: int, what: str) -> dict:
    key = (name, cutoff, what)
    if key not in _CELLS:
        judged = request.getfixturevalue(name).judged
        _CELLS[key] = _calibration().cell(judged, cutoff, what, halvings=4, n_seeds=1, stability_seeds=0,
                                          families=("rbp", "power") if what == "discount" else ("power",),
                                          lambdas=(0.1,))
    return _CELLS[key]


@pytest.mark.slow
@pytest.mark.parametrize("name, cutoff, what", [("dl19", 100, "discount"), ("trec9", 10, "gain")])
def test_advice_is_safe_out_of_sample(request, name, cutoff, what):
    r = _cell(request, name, cutoff, what)
    adv = np.array(r["advice_per_halving"])
    assert adv.size == 4 and r["switches"] == int((adv != 0).sum())  # a keep scores exactly 0
    assert r["advice"] >= -0.001, r


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="known gap (docs/should-i-tune.md, Calibration): on half of DL 2019 (21 topics) "
                   "the rule keeps log2 although steeper discounts gain ~0.036 held-out Φ(1); the 95 % corrected lower "
                   "bound is too wide at ~10 held-out topics per split")
def test_advice_captures_half_of_a_real_gain(request):
    r = _cell(request, "dl19", 100, "discount")
    assert r["real"] >= 0.02, r  # the cell has a real gain to capture
    assert r["advice"] >= 0.5 * r["real"], r
