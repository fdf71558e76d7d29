"""The one registry of comparison tests and corrections: compare's choices and dispatch, the CLI's --test and
--correction choices, ``gtheory compare --help`` and the table of docs/compare.md all come from it (they agree here),
and each correction's smallest threshold is the one statsmodels applies (a p-value just below it is rejected, just
above it is not)."""
from __future__ import annotations

import argparse
import inspect
import math
from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from experiments.compare import registry as reg
from experiments.cli import compare as cli_compare
from experiments.compare import CORRECTIONS, TESTS, compare

ROOT = Path(__file__).resolve().parents[1]


def _parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser()
    return cli_compare.register(top.add_subparsers())


def _choices(parser: argparse.ArgumentParser, dest: str) -> tuple:
    return tuple(next(a for a in parser._actions if a.dest == dest).choices)


def test_compare_cli_help_and_docs_take_their_tests_from_the_registry():
    names = tuple(t.name for t in reg.TEST_REGISTRY)
    corrections = tuple(c.name for c in reg.CORRECTION_REGISTRY)
    assert TESTS == names and tuple(CORRECTIONS) == corrections
    parser = _parser()
    assert _choices(parser, "test") == names
    assert _choices(parser, "correction") == ("none", *corrections)
    helptext = parser.format_help()
    for t in reg.TEST_REGISTRY:
        assert f"  {t.name:<14} {t.title}" in helptext
    for c in reg.CORRECTION_REGISTRY:
        assert f"  {c.name:<14} {c.title}" in helptext
    docs = (ROOT / "docs" / "compare.md").read_text(encoding="utf-8")
    assert reg.tests_markdown() in docs, ("docs/compare.md must hold the registry's table verbatim: paste "
                                          "experiments.compare.registry.tests_markdown()")


def test_compare_dispatches_through_the_registry_not_an_if_chain():
    src = inspect.getsource(compare)
    assert "test ==" not in src and "elif test" not in src and "test in (" not in src
    for t in reg.TEST_REGISTRY:  # every entry resolves to a function of its family with the common signature
        fn = t.function
        assert fn.__module__ in ("experiments.compare.classical", "experiments.compare.resampling")
        assert list(inspect.signature(fn).parameters) == ["inp"]


@pytest.mark.parametrize("name", [t.name for t in reg.TEST_REGISTRY])
def test_every_registered_test_returns_an_outcome_per_pair(name):
    rng = np.random.default_rng(3)
    X = rng.random((3, 8))
    I, J = np.triu_indices(3, 1)
    out = reg.test_named(name).function(reg.PairsInput(X[I] - X[J], X, I, J, 64, np.random.default_rng(0)))
    assert out.statistic.shape == out.p.shape == (3,)
    assert np.all((out.p >= 0) & (out.p <= 1))
    assert out.p_floor <= out.p.min() + 1e-15  # the floor is a floor
    assert (out.n_resamples > 0) == reg.test_named(name).resampling


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")  # statsmodels' Šidák of p = 1: log1p(-1)
@pytest.mark.parametrize("correction", reg.CORRECTION_REGISTRY, ids=lambda c: c.name)
@pytest.mark.parametrize("P", [2, 7, 40])
def test_smallest_threshold_is_statsmodels_first_rejection(correction, P):
    # one p-value at the threshold (x (1 -+ 1e-9)), the others 1: statsmodels rejects it exactly below
    alpha = 0.05
    thr = correction.smallest_threshold(alpha, P)
    for factor, rejected in ((1 - 1e-9, True), (1 + 1e-9, False)):
        p = np.ones(P)
        p[0] = thr * factor
        reject = multipletests(p, alpha=alpha, method=correction.method)[0]
        if correction.name == "hommel" and not rejected:
            # Hommel can reject above alpha/P when the other p-values are small; with the others at 1 it cannot
            assert not reject[0]
        else:
            assert bool(reject[0]) is rejected, (correction.name, P, factor)
    assert 0 < thr <= alpha and math.isfinite(thr)
