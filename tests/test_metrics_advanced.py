"""Tests of metrics/advanced.py: the public building blocks that optimize and experiments use (the stratified
sampling behind reduce_qrels, the sparse relevant cells, the family parser).

References: per-topic counts of relevant and non-relevant judgments written out here; ``reduction_mask`` (tested
against the sampling formula in test_metrics_reduce.py) for the multi-fraction masks; SciPy's own ``A @ x`` for
the CSR product.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from metrics import advanced, reduction_mask
from metrics._toy import single_topic


def test_every_public_function_is_documented():
    undocumented = [name for name in advanced.__all__
                    if callable(getattr(advanced, name)) and not isinstance(getattr(advanced, name), type(advanced.Rounding))
                    and not (getattr(advanced, name).__doc__ or "").strip()]
    assert undocumented == []


def test_check_fractions_sorts_descending_and_names_the_parameter():
    assert advanced.check_fractions([0.1, 1, 0.5]) == (1.0, 0.5, 0.1)
    with pytest.raises(TypeError, match=r"`fractions` must be a sequence of numbers in \(0, 1\]; got 0.5"):
        advanced.check_fractions(0.5)
    with pytest.raises(ValueError, match=r"`fractions` must be distinct; got \[0.5, 0.5\]"):
        advanced.check_fractions([0.5, 0.5])
    with pytest.raises(ValueError, match=r"`fractions` must be a number in \(0, 1\]") as caught:
        advanced.check_fractions([0.5, 0])
    assert caught.value.param == "fractions"  # each fraction by the parameter table's rule of `fraction`
    with pytest.raises(ValueError, match="`fractions` must not be empty"):
        advanced.check_fractions([])


def test_check_judged():
    # (the sampling's relevance_level, min_relevant, min_nonrelevant and rounding are the parameter table's:
    # tests/test_gtheory_kit_params.py)
    with pytest.raises(TypeError, match="`judged` must be a metrics.JudgedRuns"):
        advanced.check_judged([[1]])


def test_strata_count_each_topics_relevant_and_nonrelevant_judgments():
    # one topic, qrels grades 2, 1, 0, 0, -2 at relevance level 1: R = 2, N = 3 (the -2 is a judgment of
    # non-relevance for the sampling)
    j = single_topic([[2]], qrels=[2, 1, 0, 0, -2])
    st = advanced.strata(j, np.random.default_rng(0), 1.0)
    assert st.counts.tolist() == [2, 3]
    levels = j.levels[j.qrels_level]
    assert st.stratum.tolist() == [0 if g >= 1 else 1 for g in levels]
    for k in (0, 1):  # ranks within each stratum are a permutation of 0..count-1
        assert sorted(st.rank[st.stratum == k].tolist()) == list(range(st.counts[k]))


def test_reduction_masks_are_reduction_mask():
    j = single_topic([[1, 0, 1]], qrels=[1] * 30 + [0] * 60)
    fr = advanced.check_fractions([0.5, 0.2])
    masks = advanced.reduction_masks(j, advanced.strata(j, np.random.default_rng(3), 1.0), fr, 1, 10, "ceil")
    assert np.array_equal(masks, reduction_mask(j, list(fr), seed=3))
    assert masks.sum(axis=1).tolist() == [15 + 30, 6 + 12]  # ceil(f R) + ceil(f N)


def test_matvec_is_the_csr_product():
    rng = np.random.default_rng(1)
    A = sp.random(40, 30, density=0.2, format="csr", random_state=2, dtype=np.float64)
    x = rng.random(30)
    # the same products summed in the same row order: equal to rounding (1e-12 on values of order 1)
    np.testing.assert_allclose(advanced.matvec(A, x), A @ x, rtol=0, atol=1e-12)


def test_relevant_cells_built_once_per_tensor():
    j = single_topic([[1, 0, None, 2]], qrels=[2, 1, 0])
    rc = advanced.relevant_cells(j)
    assert isinstance(rc, advanced.RelevantCells) and advanced.relevant_cells(j) is rc
    assert (rc.n_systems, rc.n_topics) == (1, 1) and rc.levels.tolist() == [0.0, 1.0, 2.0]
    assert advanced.relevant_cells(j, judged_only=True) is not rc


def test_parse_family_is_the_measures_parser():
    assert advanced.parse_family("rbp(0.5)", {"rbp": ("p",)}, "discount family") == ("rbp", {"p": 0.5})
