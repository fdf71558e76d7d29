r"""The resampling tests of :func:`experiments.compare`, one function each (declared in
:mod:`experiments.compare.registry`): Fisher's paired randomisation test (exact enumeration when it fits), Sakai's
paired studentised bootstrap test and Carterette's randomised Tukey HSD.

Every function takes a :class:`~experiments.compare.registry.PairsInput` — the per-topic differences of every pair,
already **standardised** (divided by a power of two near the scores' largest magnitude, so that the statistics do not
depend on the units: scores x 1e160 or x 1e-155 give the same p-values, with no overflow or underflow) and with the
zeros and ties of exact arithmetic (:func:`experiments.compare.pairwise_tests._exact_differences`) — and returns a
:class:`~experiments.compare.registry.PairsOutcome`: the statistic and the two-sided p-value of every pair, whether
the null distribution was enumerated exactly, the resamples drawn, and the smallest p-value the test could have
given here (``p_floor``: a multiple-comparison threshold below it cannot be reached, :func:`experiments.compare`
warns). The classical tests are :mod:`experiments.compare.classical`.

Resampling runs in blocks whose size depends only on the number of topics (about 32 MB of sign vectors or resampled
topics at a time), so memory does not grow with ``n_resamples`` and the same seed gives the same numbers whatever
the number of pairs.
"""
from __future__ import annotations

import numpy as np

from gtheory.kit.ties import TIE_REL

from .registry import PairsInput, PairsOutcome

__all__ = ["randomization", "bootstrap", "tukey_hsd", "MAX_RESAMPLES"]

#: the largest ``n_resamples`` of :func:`experiments.compare`: a p-value resolution of 1e-8, far below any corrected
#: threshold of an IR table (Holm over 5,356 pairs at alpha = 0.01 needs about 535,600); beyond it a table takes hours
MAX_RESAMPLES = 100_000_000
#: elements of one block (32 MB of float64): sign vectors x topics, and pairs x sign vectors
_BLOCK_ELEMENTS = 1 << 22
#: at most this many bootstrap replicates per block (the bootstrap keeps 2 x 128 pairs x replicates sums)
_BOOTSTRAP_BLOCK = 1 << 15


def _block_rows(n: int) -> int:
    return max(1, _BLOCK_ELEMENTS // max(n, 1))


def _count_reaching(D: np.ndarray, ST: np.ndarray, thr: np.ndarray) -> np.ndarray:
    """#{columns s of ST : |D s| >= thr} per row of D, in blocks of pairs (bounded memory)."""
    P = D.shape[0]
    N = ST.shape[1]
    count = np.empty(P, dtype=np.int64)
    block = max(1, _BLOCK_ELEMENTS // N)
    for start in range(0, P, block):
        stop = min(P, start + block)
        sums = D[start:stop] @ ST
        np.abs(sums, out=sums)
        count[start:stop] = np.count_nonzero(sums >= thr[start:stop, None], axis=1)
    return count


def _all_signs(k: int) -> np.ndarray:
    """The 2^k sign vectors of length k (rows, float +-1)."""
    codes = np.arange(2 ** k, dtype=np.int64)
    return 1.0 - 2.0 * ((codes[:, None] >> np.arange(k, dtype=np.int64)) & 1)


def _exact_counts(D: np.ndarray, thr: np.ndarray) -> np.ndarray:
    """#{s in {-1, +1}^n : |D s| >= thr} per row of ``D``, over all 2^n sign vectors, by meeting in the middle: the
    topics split in halves of n1 and n2, every sum is a + b with a one of the 2^n1 sums of the first half and b one
    of the 2^n2 of the second; with b sorted, the b reaching a + b >= thr or a + b <= -thr (disjoint for thr > 0) are
    two binary searches per a. Work 2^(n/2) log per pair instead of 2^n n; memory bounded by blocks of pairs."""
    P, n = D.shape
    n1 = n // 2
    S1, S2 = _all_signs(n1), _all_signs(n - n1)
    count = np.full(P, 2 ** n, dtype=np.int64)  # thr <= 0 (an observed sum of 0): every sign vector reaches it
    width = max(len(S1), len(S2))
    block = max(1, _BLOCK_ELEMENTS // width)
    for start in range(0, P, block):
        stop = min(P, start + block)
        A = D[start:stop, :n1] @ S1.T
        Bs = np.sort(D[start:stop, n1:] @ S2.T, axis=1)
        for r in range(stop - start):  # per pair: each step vectorised over the 2^n1 half-sums
            t = thr[start + r]
            if t > 0:
                b, a = Bs[r], A[r]
                hi = len(b) - np.searchsorted(b, t - a, side="left")
                lo = np.searchsorted(b, -t - a, side="right")
                count[start + r] = int(hi.sum() + lo.sum())
    return count


def randomization(inp: PairsInput) -> PairsOutcome:
    r"""Fisher's paired randomisation test of every pair: :math:`p = \#\{s : |\sum_j s_j d_j| \ge |\sum_j d_j|\}/N`.

    Exact when :math:`2^n \le` ``n_resamples``: all :math:`2^n` sign vectors are counted by meeting in the middle
    (:func:`_exact_counts`: 25 topics take milliseconds, not 2^25 x 25 products), and the smallest p is
    :math:`2/2^n`. Otherwise ``n_resamples`` random sign vectors shared by all pairs, drawn in blocks
    of rows, and :math:`p = (k+1)/(B+1)` (Phipson & Smyth 2010), never below :math:`1/(B+1)`."""
    D = inp.D
    P, n = D.shape
    n_resamples = inp.n_resamples
    obs = D.sum(axis=1)
    # a sum equal to the observed one in exact arithmetic counts as reaching it, whatever rounding does
    thr = np.abs(obs) - TIE_REL * np.abs(D).sum(axis=1)
    rows = _block_rows(n)
    if 2 ** n <= n_resamples:
        count = _exact_counts(D, thr)
        return PairsOutcome(obs / n, np.minimum(count / 2 ** n, 1.0), True, 2 ** n, 2.0 / 2 ** n)
    count = np.zeros(P, dtype=np.int64)
    for start in range(0, n_resamples, rows):
        k = min(rows, n_resamples - start)
        S = 1.0 - 2.0 * inp.rng.integers(0, 2, size=(k, n))
        count += _count_reaching(D, np.ascontiguousarray(S.T), thr)
    p = np.minimum((count + 1) / (n_resamples + 1), 1.0)
    return PairsOutcome(obs / n, p, False, n_resamples, 1.0 / (n_resamples + 1))


def bootstrap(inp: PairsInput) -> PairsOutcome:
    """Sakai's paired studentised bootstrap test (:func:`experiments.discriminative._bootstrap_differences`), the
    replicates drawn and counted in blocks; p = #{b : |t*_b| >= |t|} / B (0 when no replicate reaches: p < 1/B)."""
    from experiments.discriminative import _bootstrap_differences

    D = inp.D
    n = D.shape[1]
    n_resamples = inp.n_resamples
    rows = max(1, min(_BOOTSTRAP_BLOCK, _block_rows(n)))
    exceed = np.zeros(D.shape[0])
    t = None
    for start in range(0, n_resamples, rows):
        k = min(rows, n_resamples - start)
        t, p, _ = _bootstrap_differences(D, k, inp.rng)
        exceed += np.rint(p * k)
    return PairsOutcome(np.asarray(t, float), exceed / n_resamples, False, n_resamples, 0.0)


def tukey_hsd(inp: PairsInput) -> PairsOutcome:
    """Carterette's randomised Tukey HSD over the compared systems (:func:`experiments.tukey_hsd_randomised`); the
    statistic is the difference in means."""
    from .pairwise_tests import tukey_p_values

    X, I, J = inp.X, inp.I, inp.J
    p = tukey_p_values(X, I, J, inp.n_resamples, inp.rng)  # the range's null is shared: any pairs, one draw
    return PairsOutcome(X[I].mean(axis=1) - X[J].mean(axis=1), p, False, inp.n_resamples, 0.0)
