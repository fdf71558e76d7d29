"""DCG, nCG@k and AnDCG@k: hand computation and cross-checks against metrics.ndcg at each rank.

References: Järvelin & Kekäläinen (2002); Sakai (2007), IP&M 43, eq. 7 (AnDCG).
"""
from __future__ import annotations

import numpy as np
import pytest

from metrics import andcg, dcg, ncg, ndcg
from metrics._toy import single_topic

LIST = [0, 2, None, 1, 3]
QRELS = [3, 2, 1, 1, 0]


def test_dcg_by_hand():
    j = single_topic([LIST], qrels=QRELS)
    d = lambda r: 1 / np.log2(r + 1)  # noqa: E731
    assert dcg(j).iloc[0, 0] == pytest.approx(2 * d(2) + 1 * d(4) + 3 * d(5), abs=1e-15)
    assert dcg(j, cutoff=2).iloc[0, 0] == pytest.approx(2 * d(2), abs=1e-15)
    assert dcg(j, judged_only=True).iloc[0, 0] == pytest.approx(2 * d(2) + 1 * d(3) + 3 * d(4), abs=1e-15)
    assert dcg(j, gain="exponential", discount="zipf").iloc[0, 0] == pytest.approx(3 / 2 + 1 / 4 + 7 / 5, abs=1e-15)


def test_ncg_by_hand():
    """cg = 0, 2, 2, 3, 6; ideal gains 3, 2, 1, 1 → cg* = 3, 5, 6, 7, 7."""
    j = single_topic([LIST], qrels=QRELS)
    assert [ncg(j, cutoff=k).iloc[0, 0] for k in (1, 2, 3, 4, 5)] == pytest.approx([0, 2 / 5, 2 / 6, 3 / 7, 6 / 7], abs=1e-15)
    assert ncg(j).iloc[0, 0] == pytest.approx(6 / 7, abs=1e-15)


@pytest.mark.parametrize("ell", [1, 3, 5, 8])
@pytest.mark.parametrize("discount", ["log2", "jarvelin(b=2)"])
def test_andcg_is_mean_of_ndcg_at_each_rank(ell, discount):
    """AnDCG_l = (1/l) Σ_{r ≤ l} nDCG@r, with nDCG@r from metrics.ndcg (independent code path)."""
    j = single_topic([LIST, [3, 2, 1, 1], [], [None, None, 1]], qrels=QRELS)
    want = np.mean([ndcg(j, discount=discount, cutoff=r).to_numpy() for r in range(1, ell + 1)], axis=0)
    np.testing.assert_allclose(andcg(j, cutoff=ell, discount=discount).to_numpy(), want, rtol=0, atol=1e-14)


def test_andcg_by_hand_and_ideal():
    j = single_topic([[0, 1], [1, 0]], qrels=[1, 0])
    got = andcg(j, cutoff=2)["1"].to_numpy()
    assert got == pytest.approx([(0 + (1 / np.log2(3)) / 1) / 2, 1.0], abs=1e-15)
    with pytest.raises(ValueError, match="`cutoff` must be an integer >= 1"):
        andcg(j, cutoff=0)
