"""Tests of experiments/sweep/grid.py: the grid of a sensitivity sweep — its order, its axes validated and
normalised, its tasks, its JSON, and cut-offs written as text."""
from __future__ import annotations

import pytest

import experiments as ex
from experiments.sweep import SweepGrid
from experiments.sweep.grid import parse_cutoff
from gtheory.errors import ParameterError

GRID = dict(cutoffs=[10, 50], gains=["linear", "exponential"], discounts=["log2", "zipf"],
            fractions=[1.0, 0.4], seeds=[0, 3])


def test_grid_expansion_and_order():
    g = ex.SweepGrid.of(**GRID)
    assert len(g) == 2 * 2 * 2 * 2 * 2
    assert g.tasks() == [(1.0, 0), (1.0, 3), (0.4, 0), (0.4, 3)]
    pts = g.points()
    assert list(pts.columns) == ["cutoff", "gain", "discount", "fraction", "seed"]
    assert len(pts) == len(g) and not pts.duplicated().any()
    # the last axis varies fastest, then gain, cutoff, seed, fraction
    assert pts.iloc[:3].values.tolist() == [[10, "linear", "log2", 1.0, 0], [10, "linear", "zipf", 1.0, 0],
                                            [10, "exponential", "log2", 1.0, 0]]


def test_scalar_axes_and_labelled_specs():
    g = ex.SweepGrid.of(cutoffs=None, gains={"0-1-4": [0, 1, 4]}, discounts="rbp(p=0.8)", fractions=0.5, seeds=[7])
    assert (g.cutoffs, g.fractions, g.seeds) == ((None,), (0.5,), (7,))
    assert g.points().values.tolist() == [[None, "0-1-4", "rbp(p=0.8)", 0.5, 7]]


def test_seeds_int_is_a_count_everywhere():
    # one meaning of `seeds` (as in incompleteness_study): an int n is the n seeds 0 .. n-1, a list gives them
    grid = ex.SweepGrid.of(10, "linear", "log2", [1.0, 0.5], 2)
    assert grid.seeds == (0, 1) and ex.SweepGrid.of(10, "linear", "log2", [1.0, 0.5], [2]).seeds == (2,)
    with pytest.raises(ValueError, match=r"for the single seed 0 pass \[0\]"):
        ex.SweepGrid.of(10, "linear", "log2", [1.0], 0)


def test_tasks_and_configurations_make_the_grid():
    g = SweepGrid.of(**GRID)
    assert len(g.tasks()) * len(g.configurations()) == len(g) == len(g.points())
    assert g.configurations()[:2] == [(10, ("linear", "linear"), ("log2", "log2")),
                                      (10, ("linear", "linear"), ("zipf", "zipf"))]
    assert ex.SweepGrid is SweepGrid


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(cutoffs=[10, 0]), ValueError, r"`cutoffs` must hold positive integers .*got 0"),
        (dict(cutoffs=[True]), ValueError, r"`cutoffs` must hold positive integers"),
        (dict(gains=["linear", "linear"]), ValueError, r"`gains` must be distinct; 'linear' repeated"),
        (dict(discounts="log"), ValueError, r"`discounts`: unknown discount family 'log'"),
        (dict(fractions="0.5"), TypeError, r"`fractions` must be a sequence of numbers in \(0, 1\]"),
        (dict(fractions=[0.0]), ValueError, r"`fractions` must hold numbers in \(0, 1\]"),
        (dict(gains={3: "linear"}), TypeError, r"`gains` must hold gain family names"),
    ],
)
def test_bad_axes_name_the_axis(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        SweepGrid.of(**kwargs)


def test_json_round_trip_keeps_grade_keys_and_none():
    g = SweepGrid.of(cutoffs=[10, None], gains={"steep": {0: 0.0, 1: 1.0, 2.5: 4.0}}, discounts=["log2"],
                     fractions=[1.0, 0.5], seeds=[1, 2])
    back = SweepGrid.from_json(g.to_json())
    assert back == g and back.gains[0][1] == {0: 0.0, 1: 1.0, 2.5: 4.0}  # JSON's string keys read back as grades
    with pytest.raises(TypeError, match="a function specification cannot be written as JSON"):
        SweepGrid.of(gains={"f": lambda grades: grades}).to_json()


def test_cut_offs_as_text():
    assert [parse_cutoff(t) for t in ("20", " 5", "none", "ALL", "full")] == [20, 5, None, None, None]
    for bad in ("0", "-3", "ten", "2.5"):
        with pytest.raises(ParameterError, match="`cutoffs` takes positive integers or 'none'") as err:
            parse_cutoff(bad)
        assert err.value.param == "cutoffs"
