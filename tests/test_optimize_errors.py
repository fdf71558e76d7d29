"""Tests of optimize.errors: each warning and error of a tuning is public under one name, defined here, and the
warnings are UserWarnings that a filter on the class silences or raises (as pyproject's ``filterwarnings`` and users
do), while the error is what ``strict=True`` raises (tests/test_optimize_solvers_tune.py raises it)."""
from __future__ import annotations

import warnings

import pytest

import optimize
from optimize import errors

_WARNINGS = ("OptimizationWarning", "GradeMismatchWarning", "FailedTuningWarning", "DataMismatchWarning")


@pytest.mark.parametrize("name", errors.__all__)
def test_each_warning_and_error_is_public_under_one_name(name):
    cls = getattr(optimize, name)
    assert cls is getattr(errors, name) and cls.__module__ == "optimize.errors" and name in optimize.__all__
    assert cls.__doc__ and len(cls.__doc__.strip()) > 20


@pytest.mark.parametrize("name", _WARNINGS)
def test_a_filter_on_the_class_catches_its_warning_and_no_other(name):
    cls = getattr(optimize, name)
    others = [getattr(optimize, n) for n in _WARNINGS if n != name]
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("ignore")
        warnings.filterwarnings("always", category=cls)
        for c in [cls, *others]:
            warnings.warn("a tuning", c)
    assert issubclass(cls, UserWarning) and [r.category for r in rec] == [cls]
    with warnings.catch_warnings():
        warnings.simplefilter("error", cls)
        with pytest.raises(cls):
            warnings.warn("a tuning", cls)


def test_the_error_is_a_runtime_error_and_not_a_warning():
    assert issubclass(optimize.OptimizationError, RuntimeError)
    assert not issubclass(optimize.OptimizationError, Warning)
