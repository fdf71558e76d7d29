"""The docstring examples of experiments' plotting and resampling modules run as written (doctest), drawn off screen
(tests/conftest.py sets the Agg backend; the examples do not choose one, as a user's session would not)."""
from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["experiments.agreement", "experiments.discriminative", "experiments.incomplete.plots"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
