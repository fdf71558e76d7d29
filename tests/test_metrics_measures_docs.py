"""The runnable examples in the measure modules' docstrings give the printed results (several are the papers' worked
examples), and every public measure function documents its formula, parameters and an example."""
from __future__ import annotations

import doctest
import importlib
import inspect

import pytest

import metrics

MODULES = [
    "metrics._toy", "metrics.measures.precision", "metrics.measures.rr", "metrics.measures.ap",
    "metrics.measures.bpref", "metrics.measures.infap", "metrics.measures.rbp", "metrics.measures.qmeasure",
    "metrics.measures.cg", "metrics.measures.names", "metrics.measures.evaluate", "metrics.measures.recall",
    "metrics.measures.err", "metrics.measures.counts",
]  # fmt: skip
FUNCTIONS = [
    "average_precision", "precision", "r_precision", "reciprocal_rank", "bpref", "bpref_10", "bpref_r", "bpref_n",
    "rank_eff", "inferred_ap", "rbp", "rbp_residual", "q_measure", "r_measure", "dcg", "ncg", "andcg", "recall",
    "success", "err", "judged_at_k", "num_rel", "num_ret", "num_rel_ret",
]  # fmt: skip


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("name", FUNCTIONS)
def test_measure_functions_documented_and_keyword_only(name):
    f = getattr(metrics, name)
    assert name in metrics.__all__
    doc = f.__doc__
    assert ".. math::" in doc and "Examples" in doc and ">>>" in doc
    params = list(inspect.signature(f).parameters.values())
    assert params[0].name == "judged"
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[1:]), "options after the data are keyword-only"
    assert all(p.annotation is not inspect.Parameter.empty for p in params)
