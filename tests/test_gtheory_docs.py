"""The runnable examples in gtheory's docstrings run and give the printed results; the public
API is exported and documented; gtheory imports nothing from the other packages."""
from __future__ import annotations

import doctest
import importlib
import subprocess
import sys

import pytest

import gtheory

MODULES = ["gtheory", "gtheory.gstudy.components", "gtheory.gstudy.gstudy", "gtheory.gstudy.intervals",
           "gtheory.gstudy.designs", "gtheory.gstudy.score_layout", "gtheory.gstudy.score_csv",
           "gtheory.gstudy.score_matrix", "gtheory.gstudy.plot", "gtheory.errors", "gtheory.topics.topic_set_size",
           "gtheory.topics.power", "gtheory.topics.gt_mappings", "gtheory.topics.plan", "gtheory.topics.curves"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


@pytest.mark.parametrize("name", gtheory.__all__)
def test_public_names_documented(name):
    obj = getattr(gtheory, name)
    assert obj.__doc__ and len(obj.__doc__.strip()) > 20


def test_standalone_import():
    code = ("import sys, gtheory; bad = [m for m in sys.modules if m.split('.')[0] in "
            "('metrics', 'optimize', 'experiments')]; print(bad); sys.exit(1 if bad else 0)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
