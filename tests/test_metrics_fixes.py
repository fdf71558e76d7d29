"""Tests of metrics/fixes.py: ``metrics.fixes`` is the shared kit's error protocol under the name metrics has always
used, and metrics' own errors carry their fix as data (parameter, value) for a front end to read.

Reference: the attributes documented in docs/architecture.md ("Errors and their fixes"); what each raiser's
parameter is, read from its signature.
"""
from __future__ import annotations

import numpy as np
import pytest

import gtheory.kit.errors
import metrics
import metrics.fixes


def test_the_names_are_the_kits():
    # one protocol: an error raised in metrics is caught as the kit's class and vice versa
    assert metrics.fixes.FixableError is gtheory.kit.errors.FixableError is metrics.FixableError
    assert metrics.fixes.FixableWarning is gtheory.kit.errors.FixableWarning is metrics.FixableWarning
    assert metrics.fixes.python_fix is gtheory.kit.errors.python_fix
    assert set(metrics.fixes.__all__) == {"FixableError", "FixableWarning", "python_fix"}


@pytest.mark.parametrize("call, param, fix", [
    (lambda: metrics.discount_vector("linear", 5), None, {"cutoff": ...}),
    (lambda: metrics.discount_vector("rbp(p=2)", 5), "p", {}),
    (lambda: metrics.gain_vector([0, 1], np.array([0.0, 1.5])), "gain", {"gain": ...}),
    (lambda: metrics.gain_vector([0, np.nan], np.array([0.0, 1.0])), "gain", {}),
])
def test_metrics_errors_carry_the_parameter_and_fix(call, param, fix):
    with pytest.raises(metrics.fixes.FixableError) as err:
        call()
    assert isinstance(err.value, ValueError)
    assert err.value.param == param and err.value.fix == fix
    if fix:  # the advice ends the message
        assert str(err.value).endswith(err.value.advice) and err.value.advice


def test_low_coverage_warning_suggests_judged_only():
    assert issubclass(metrics.LowCoverageWarning, metrics.fixes.FixableWarning)
    with pytest.warns(metrics.LowCoverageWarning) as w:
        metrics.judge({"q": {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.5}}, {"q": {"a": 1}})
    assert w[0].message.fix == {"judged_only": True}
