"""experiments.compare.resampling, the resampling tests of compare, one function each: resampling in bounded blocks
(the same numbers as one block, memory that does not grow with n_resamples) and exact enumeration of the
randomisation test in blocks (25 topics: 2^25 sign vectors)."""
from __future__ import annotations

import tracemalloc
from itertools import product

import numpy as np
import pytest

from experiments.compare import resampling as ct
from experiments.compare.registry import PairsInput


def _input(D, B=1000, seed=0, X=None, I=None, J=None, correction=True):
    D = np.atleast_2d(np.asarray(D, float))
    return PairsInput(D, X if X is not None else D, I if I is not None else np.zeros(len(D), int),
                      J if J is not None else np.zeros(len(D), int), B, np.random.default_rng(seed), correction)


def _brute(d):
    """p of Fisher's randomisation test by enumerating all 2^n sign vectors (the definition)."""
    signs = np.array(list(product([1.0, -1.0], repeat=len(d))))
    sums = np.abs(signs @ d)
    return np.mean(sums >= abs(d.sum()) - 1e-12)


def test_exact_enumeration_in_blocks_equals_brute_force(monkeypatch):
    rng = np.random.default_rng(1)
    D = np.round(rng.normal(0.02, 0.1, (3, 11)), 2)  # ties and zeros as discrete measures have
    D[2, :4] = [0.1, -0.1, 0.2, -0.2]
    D[2, 4:] = 0.0  # an observed sum of 0: every sign vector reaches it
    one = ct.randomization(_input(D, B=2 ** 11))
    monkeypatch.setattr(ct, "_BLOCK_ELEMENTS", 64)  # one pair per block of the meet-in-the-middle counts
    blocks = ct.randomization(_input(D, B=2 ** 11))
    assert one.exact and blocks.exact and one.n_resamples == 2 ** 11
    np.testing.assert_array_equal(one.p, blocks.p)
    np.testing.assert_allclose(one.p, [_brute(d) for d in D], rtol=0, atol=1e-15)
    assert one.p_floor == 2 / 2 ** 11


@pytest.mark.parametrize("n", [1, 2, 5])
def test_exact_enumeration_of_few_topics(n):
    d = np.random.default_rng(n).normal(0.05, 0.1, n)
    assert ct.randomization(_input(d, B=2 ** n)).p[0] == pytest.approx(_brute(d), abs=1e-15)


def test_exact_randomisation_at_25_topics_runs_in_bounded_memory():
    # all 25 differences equal: only the all-plus and all-minus sign vectors reach |sum| = 25, p = 2 / 2^25
    # (before: a 2^25 x 25 sign matrix, 6.7 GB, MemoryError)
    tracemalloc.start()
    out = ct.randomization(_input(np.full(25, 0.1), B=2 ** 25))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert out.exact and out.p[0] == 2 / 2 ** 25
    assert peak < 200e6  # blocks of 32 MB (plus the codes), not 6.7 GB


def test_monte_carlo_memory_does_not_grow_with_n_resamples(monkeypatch):
    monkeypatch.setattr(ct, "_BLOCK_ELEMENTS", 1 << 16)  # small blocks, so that two sizes of B are both many blocks
    D = np.random.default_rng(2).normal(0.01, 0.1, (4, 20))
    peaks = []
    for B in (20_000, 200_000):
        tracemalloc.start()
        out = ct.randomization(_input(D, B=B))
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert not out.exact and out.n_resamples == B and out.p_floor == 1 / (B + 1)
        # unbiased estimate (k+1)/(B+1) of the exact p: within 5 Monte Carlo standard errors
        exact = ct.randomization(_input(D, B=2 ** 20)).p
        assert np.all(np.abs(out.p - exact) <= 5 * np.sqrt(exact * (1 - exact) / B) + 2 / B)
    assert peaks[1] < 1.5 * peaks[0]  # 10x the resamples, the same memory


def test_bootstrap_in_blocks_is_one_block_when_it_fits_and_close_otherwise(monkeypatch):
    from experiments.discriminative import _bootstrap_differences

    D = np.random.default_rng(4).normal(0.03, 0.1, (5, 20))
    ref = _bootstrap_differences(D, 500, np.random.default_rng(7))[1]
    np.testing.assert_array_equal(ct.bootstrap(_input(D, B=500, seed=7)).p, ref)
    monkeypatch.setattr(ct, "_BOOTSTRAP_BLOCK", 64)  # 8 blocks, the last ragged
    p = ct.bootstrap(_input(D, B=500, seed=7)).p
    assert np.all(np.abs(p * 500 - np.rint(p * 500)) < 1e-9)  # whole counts out of 500
    big = _bootstrap_differences(D, 20000, np.random.default_rng(8))[1]
    assert np.all(np.abs(p - big) <= 5 * np.sqrt(big * (1 - big) / 500) + 2 / 500)


def test_tukey_counts_block_by_block_as_the_sorted_ranges_did():
    from experiments.compare.pairwise_tests import tukey_hsd_randomised

    X = np.random.default_rng(5).random((5, 12))
    B = 3000
    got = tukey_hsd_randomised(X, n_resamples=B, seed=3)["p_value"].to_numpy()
    # the former rule: all ranges, drawn in the same blocks, sorted once; p = #{b : q_b >= |diff| - tie} / B
    rng = np.random.default_rng(3)
    m, n = X.shape
    block = max(1, (1 << 21) // (m * n))
    ranges = []
    for start in range(0, B, block):
        k = min(block, B - start)
        perm = rng.permuted(np.broadcast_to(X.T, (k, n, m)), axis=2).mean(axis=1)
        ranges.append(perm.max(axis=1) - perm.min(axis=1))
    ranges = np.sort(np.concatenate(ranges))
    I, J = np.triu_indices(m, 1)
    diff = np.abs(X.mean(axis=1)[I] - X.mean(axis=1)[J])
    ref = (B - np.searchsorted(ranges, diff - 1e-9 * np.abs(X).max(), side="left")) / B
    np.testing.assert_array_equal(got, ref)
