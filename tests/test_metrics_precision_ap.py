"""P@k, R-precision and AP by hand (trec_eval m_P.c, m_Rprec.c, m_map.c definitions); trec_eval parity on real
runs is in test_metrics_parity.py."""
from __future__ import annotations

import numpy as np
import pytest

from metrics import average_precision, precision, r_precision
from metrics._toy import single_topic

J = single_topic([[1, 0, None, 2, 0, 1], [None, None], []], qrels=[2, 1, 1, 1, 0, 0])  # R = 4


def test_precision_by_hand():
    assert precision(J, cutoff=1)["1"].tolist() == [1.0, 0.0, 0.0]
    assert precision(J, cutoff=4)["1"].tolist() == [0.5, 0.0, 0.0]
    assert precision(J, cutoff=10)["1"].tolist() == [0.3, 0.0, 0.0]  # shorter list: still divided by 10
    assert precision(J, cutoff=2, relevance_level=2).iloc[0, 0] == 0.0
    assert precision(J, cutoff=3, judged_only=True).iloc[0, 0] == pytest.approx(2 / 3)  # condensed: 1, 0, 2


def test_r_precision_by_hand():
    assert r_precision(J)["1"].tolist() == [0.5, 0.0, 0.0]  # top 4: 1, 0, -, 2
    assert r_precision(J, judged_only=True).iloc[0, 0] == 0.5  # condensed top 4: 1, 0, 2, 0
    assert r_precision(J, relevance_level=2).iloc[0, 0] == 0.0  # R = 1, rank 1 has grade 1
    short = single_topic([[1, 1]], qrels=[1, 1, 1, 1, 1])  # two retrieved of R = 5
    assert r_precision(short).iloc[0, 0] == pytest.approx(2 / 5)


def test_average_precision_by_hand():
    # relevant at ranks 1, 4, 6: (1/1 + 2/4 + 3/6) / 4
    assert average_precision(J).iloc[0, 0] == pytest.approx((1 + 0.5 + 0.5) / 4, abs=1e-15)
    assert average_precision(J, cutoff=4).iloc[0, 0] == pytest.approx((1 + 0.5) / 4, abs=1e-15)  # map_cut: still / R
    # AP′: condensed 1, 0, 2, 0, 1 → (1 + 2/3 + 3/5) / 4
    assert average_precision(J, judged_only=True).iloc[0, 0] == pytest.approx((1 + 2 / 3 + 3 / 5) / 4, abs=1e-15)
    assert average_precision(J, relevance_level=2).iloc[0, 0] == pytest.approx(1 / 4, abs=1e-15)  # R = 1, at rank 4
    assert average_precision(J)["1"].tolist()[1:] == [0.0, 0.0]


def test_missing_policy_and_errors():
    e = single_topic([[1], []], qrels=[1], missing="exclude")
    for f in (lambda j: precision(j, cutoff=1), r_precision, average_precision):
        out = f(e)
        assert out.iloc[0, 0] == 1.0 and np.isnan(out.iloc[1, 0])
        assert out.index.name == "system" and out.columns.name == "topic"
    with pytest.raises(ValueError, match=r"`cutoff` must be a positive integer; got 0"):
        precision(J, cutoff=0)
    with pytest.raises(ValueError, match=r"`cutoff` must be a positive integer or None; got 2.5"):
        average_precision(J, cutoff=2.5)
    with pytest.raises(TypeError, match="`relevance_level` must be a number"):
        average_precision(J, relevance_level="1")
    with pytest.raises(TypeError, match="`judged` must be a metrics.JudgedRuns"):
        average_precision(np.zeros((2, 2)))
    with pytest.raises(TypeError, match="`judged_only` must be True or False"):
        average_precision(J, judged_only="yes")
