"""Tests of experiments/report/wording.py: counts as the report prints them."""
from __future__ import annotations

import numpy as np

from experiments.report.wording import fmt_count


def test_counts_are_integers_and_fractions_only_when_fractional():
    assert [fmt_count(v) for v in (26.0, 26, np.int64(3), 26.5, 26.25, 0.0, np.nan, np.inf)] == \
        ["26", "26", "3", "26.5", "26.25", "0", "–", "∞"]
