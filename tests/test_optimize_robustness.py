"""optimize.recommend on hard inputs: a Generator as seed, a callable as progress. (The tuning front ends' hard
inputs are in test_optimize_solvers_tune.py, minimax in test_optimize_solvers_robust.py, cross_validate's arguments in
test_optimize_recommend_validation.py.)"""
from __future__ import annotations

import numpy as np
import pytest

import metrics
import optimize


@pytest.fixture(scope="module")
def j(embedded_trec9):
    return embedded_trec9


def test_a_generator_seeds_recommend_and_the_bootstrap(j):
    # the same Generator state gives the same result; the result records no seed (a Generator is not one number)
    import gtheory

    sub = j.subset(systems=range(0, 104, 4))
    a, b = (optimize.recommend(sub, cutoff=10, n_splits=4, n_inner=2, n_seeds=2, seed=np.random.default_rng(3),
                               progress=False) for _ in range(2))
    assert a.outer.equals(b.outer) and a.choice == b.choice and a.seed is None
    g = gtheory.gstudy(metrics.ndcg(sub, cutoff=10))
    x, y = (g.bootstrap(n_resamples=50, seed=np.random.default_rng(1)) for _ in range(2))
    assert x.to_dict() == y.to_dict() and x.seed is None


def test_the_children_of_a_generator_seed_are_its_seed_sequence_children():
    # reference: Generator.spawn (NumPy >= 1.25) spawns the seed sequence of the generator's bit generator; built here
    # from numpy.random.SeedSequence(3), which default_rng(3) wraps, so NumPy 1.24's path is checked against it too
    from optimize.recommend.nested import seed_list

    kids = seed_list(np.random.default_rng(3), 3)
    want = [np.random.default_rng(s) for s in np.random.SeedSequence(3).spawn(2)]
    assert len(kids) == 3 and all(np.array_equal(k.random(5), w.random(5)) for k, w in zip(kids[1:], want))


def test_recommend_progress_may_be_a_callable(j):
    # one `progress` type across the project: True/False or a callable receiving each message
    got: list[str] = []
    optimize.recommend(j.subset(systems=range(0, 104, 4)), cutoff=10, n_splits=3, n_inner=2, n_seeds=1, seed=0,
                       progress=got.append)
    assert got == [f"recommend: outer splits: {i}/5" for i in range(1, 6)]  # 3 outer + the final selection + refit
    with pytest.raises(TypeError, match="`progress` must be True"):
        optimize.recommend(j, cutoff=10, progress="yes")
