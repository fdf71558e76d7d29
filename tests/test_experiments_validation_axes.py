"""experiments' score arguments are read by their axis names, as gtheory.gstudy reads them (issue 12, item 3)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import experiments


def _matrix(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.random((6, 9)) + np.linspace(0, 1, 6)[:, None]      # systems differ
    return pd.DataFrame(x, index=[f"s{i}" for i in range(6)], columns=[f"t{j}" for j in range(9)]).rename_axis(
        index="system", columns="topic")


def test_transposed_frame_named_topic_is_read_as_systems_by_topics():
    m = _matrix()
    ref = experiments.discriminative_power(m, n_resamples=200, seed=1)
    got = experiments.discriminative_power(m.T, n_resamples=200, seed=1)     # index named 'topic' now
    assert m.T.index.name == "topic"
    pd.testing.assert_frame_equal(got.table, ref.table)
    assert got.n_topics == 9


def test_long_frame_is_pivoted():
    m = _matrix(1)
    long = m.stack().rename("score").reset_index()                 # columns system, topic, score
    assert experiments.kendall_tau(long, m) == pytest.approx(1.0)
    irm = long.rename(columns={"system": "run_id", "topic": "query_id", "score": "value"})
    assert experiments.kendall_tau(irm, m) == pytest.approx(1.0)


def test_unnamed_long_looking_frame_is_refused_with_the_fix():
    m = _matrix(2)
    long = m.stack().reset_index(drop=False)
    long.columns = [0, 1, 2]
    long[0] = long[0].str[1:].astype(int)
    long[1] = long[1].str[1:].astype(int)
    with pytest.raises(ValueError, match="looks like a long table"):
        experiments.discriminative_power(long, n_resamples=50, seed=0)
