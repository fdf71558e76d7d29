"""Tests of optimize/multistart.py: starting points, seeds, the best of several runs."""
from __future__ import annotations

import numpy as np
import pytest

import gtheory
import metrics
import optimize
from optimize.objective import Problem


@pytest.fixture(scope="module")
def trec9():
    return metrics.load_trec9()


@pytest.fixture(scope="module")
def j(trec9):
    return trec9


def test_good_seeds_are_accepted(j):
    from optimize.multistart import starting_points

    p = Problem(j, 10, "discount", gain=[0, 1, 2])
    a = starting_points(p, 6, seed=np.int64(3))
    b = starting_points(p, 6, seed=3)
    assert all(np.array_equal(x, y) for (_, x), (_, y) in zip(a, b))
    assert len(starting_points(p, 6, seed=None)) == 6
    with pytest.raises(ValueError, match=r"`seed` must be a non-negative integer, None or a numpy.random.Generator; got -2\."):
        starting_points(p, 6, seed=-2)


def test_a_generator_is_accepted_as_seed_and_is_reproducible(j):
    # experiments accepted a numpy.random.Generator as `seed`; optimize now does too (random starts 5 and 6)
    a = optimize.optimize_discount(j, gain=[0, 1, 2], cutoff=10, starts=6, seed=np.random.default_rng(7))
    b = optimize.optimize_discount(j, gain=[0, 1, 2], cutoff=10, starts=6, seed=np.random.default_rng(7))
    assert np.array_equal(a.discount, b.discount) and a.phi() == b.phi()
    from optimize.multistart import starting_points

    p = Problem(j, 10, "discount", gain=[0, 1, 2])
    x = starting_points(p, 6, seed=np.random.default_rng(3))
    y = starting_points(p, 6, seed=np.random.default_rng(3))
    assert all(np.array_equal(u, v) for (_, u), (_, v) in zip(x, y))
    assert not np.array_equal(x[-1][1], starting_points(p, 6, seed=np.random.default_rng(4))[-1][1])
