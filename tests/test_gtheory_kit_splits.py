"""gtheory.kit.topic_splits: the one topic-splitting rule of cross_validate, recommend and tune_parameters."""
from __future__ import annotations

import numpy as np
import pytest

from gtheory.kit.splits import topic_splits


def test_splits_partition_the_topics_with_the_documented_sizes():
    for T, frac, n_train in ((50, 0.5, 25), (25, 0.5, 12), (27, 0.5, 14), (43, 0.5, 22), (10, 0.3, 3)):
        for tr, te in topic_splits(T, n_splits=3, train_fraction=frac, seed=1):
            assert len(tr) == n_train and len(te) == T - n_train  # round(frac * T), halves to even
            assert np.array_equal(np.sort(np.r_[tr, te]), np.arange(T))
            assert np.all(np.diff(tr) > 0) and np.all(np.diff(te) > 0)
    (tr, te), = topic_splits(9, n_splits=1, train_size=7, seed=0)
    assert len(tr) == 7 and len(te) == 2


def test_the_rule_is_a_permutation_per_split_from_one_generator():
    # an independent statement of the documented rule (what cross_validate always did)
    rng = np.random.default_rng(11)
    expected = []
    for _ in range(4):
        perm = rng.permutation(30)
        expected.append((np.sort(perm[:15]), np.sort(perm[15:])))
    got = topic_splits(30, n_splits=4, seed=11)
    for (a, b), (c, d) in zip(got, expected):
        assert np.array_equal(a, c) and np.array_equal(b, d)


def test_same_seed_same_splits_and_a_generator_continues():
    a = topic_splits(20, n_splits=5, seed=3)
    b = topic_splits(20, n_splits=5, seed=3)
    assert all(np.array_equal(x[0], y[0]) for x, y in zip(a, b))
    c = topic_splits(20, n_splits=5, seed=4)
    assert not all(np.array_equal(x[0], y[0]) for x, y in zip(a, c))
    g = np.random.default_rng(3)
    first = topic_splits(20, n_splits=2, seed=g)
    second = topic_splits(20, n_splits=3, seed=g)  # continues: together the five splits of seed 3
    assert all(np.array_equal(x[0], y[0]) for x, y in zip(first + second, a))


@pytest.mark.parametrize("kw, match", [
    (dict(n_topics=1, n_splits=1), "`n_topics` must be an integer >= 2"),
    (dict(n_topics=10, n_splits=0), "`n_splits` must be an integer >= 1"),
    (dict(n_topics=10, n_splits=1, train_fraction=1.0), r"`train_fraction` must be a probability strictly in \(0, 1\)"),
    (dict(n_topics=10, n_splits=1, train_size=10), "at least 1 topic on each side"),
    (dict(n_topics=10, n_splits=1, seed=-1), "`seed` must be a non-negative integer, None"),
    (dict(n_topics=10, n_splits=1, seed=1.5), "`seed` must be a non-negative integer, None"),
])
def test_bad_arguments_are_refused(kw, match):
    with pytest.raises(ValueError, match=match):
        topic_splits(**kw)


def test_cross_validate_recommend_and_tune_parameters_use_the_same_splits(embedded_trec9, monkeypatch):
    # the three loops draw their outer splits from the one function with the same arguments: record what each used
    import optimize
    from optimize.recommend import nested, parameters, validation

    j = embedded_trec9.subset(systems=range(0, 104, 8))
    seen: dict[str, list] = {}

    def spy(name, real):
        def wrapped(n_topics, **kw):
            out = real(n_topics, **kw)
            seen.setdefault(name, out)  # the first call: the outer splits
            return out
        return wrapped

    for mod in (validation, nested, parameters):
        monkeypatch.setattr(mod, "topic_splits", spy(mod.__name__, mod.topic_splits))
    optimize.cross_validate(j, cutoff=10, n_splits=3, starts=1, seed=5)
    optimize.recommend(j, cutoff=10, n_splits=3, n_inner=2, n_seeds=1, families=("rbp",), lambdas=(), seed=5, progress=False)
    optimize.tune_parameters(j, "RBP(p={p})@10", {"p": (0.5, 0.95)}, n_splits=3, seed=5)
    a, b, c = (seen[m] for m in ("optimize.recommend.validation", "optimize.recommend.nested", "optimize.recommend.parameters"))
    assert len(a) == len(b) == len(c) == 3
    for x, y, z in zip(a, b, c):
        assert np.array_equal(x[0], y[0]) and np.array_equal(y[0], z[0])
        assert np.array_equal(x[1], y[1]) and np.array_equal(y[1], z[1])
