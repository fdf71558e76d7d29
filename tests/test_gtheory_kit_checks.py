"""Tests of gtheory/kit/checks.py: the argument checks shared by every package (one rule and one message per kind
of parameter: seed, seeds, progress, integers, probabilities, fractions, choices).

References: the vocabulary of docs/architecture.md ("The shared vocabulary") and scipy's message style
("`name` must be ...; got ..."); reproducibility against ``numpy.random.default_rng`` itself.
"""
from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gtheory.kit.checks import (check_choice, check_fraction, check_int, check_probability, check_progress, check_rng,
                                check_seed, check_seeds, progress_writer, seed_sequence, stderr_is_terminal)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_auto_progress_follows_the_terminal(monkeypatch):
    from metrics import _build

    monkeypatch.setattr("sys.stderr", io.StringIO())  # a pipe or a log file: no bar unless asked
    assert check_progress("auto") is False and _build.Progress(5, check_progress("auto")).bar is None
    assert _build.Progress(5, check_progress(True)).bar is not None  # asked: shown anyway
    monkeypatch.setattr("sys.stderr", Terminal())
    assert check_progress("auto") is True and _build.Progress(5, check_progress("auto")).bar is not None
    with pytest.raises(TypeError, match="'auto'"):
        check_progress("yes")


def test_progress_values_and_writer(monkeypatch, capsys):
    said = []
    assert check_progress(None) is False and check_progress(np.bool_(True)) is True
    assert check_progress(said.append) == said.append
    assert progress_writer(False) is None and progress_writer(None) is None
    progress_writer(said.append)("step 1")
    assert said == ["step 1"]
    progress_writer(True)("step 2")  # True: a line on stderr
    assert capsys.readouterr().err == "step 2\n"
    with pytest.raises(TypeError, match=r"`verbose` must be True \(report on stderr\), False, 'auto'.*got int 3"):
        check_progress(3, "verbose")


def test_stderr_is_terminal_survives_odd_streams(monkeypatch):
    monkeypatch.setattr("sys.stderr", object())  # no isatty at all
    assert stderr_is_terminal() is False
    closed = io.StringIO()
    closed.close()
    monkeypatch.setattr("sys.stderr", closed)  # isatty raises ValueError on a closed stream
    assert stderr_is_terminal() is False


@pytest.mark.parametrize("call, exc, message", [
    (lambda: check_int(True, "n"), TypeError, r"`n` must be an integer; got bool True\."),
    (lambda: check_int(2.0, "n"), TypeError, r"`n` must be an integer; got float 2.0\."),
    (lambda: check_int(0, "n_splits", minimum=2), ValueError, r"`n_splits` must be an integer >= 2; got 0\."),
    (lambda: check_probability(1.0, "level"), ValueError, r"`level` must lie strictly between 0 and 1; got 1.0\."),
    (lambda: check_probability("0.5", "level"), TypeError, r"`level` must be a number in \(0, 1\); got str '0.5'\."),
    (lambda: check_fraction(0.0), ValueError, r"`fraction` must lie in \(0, 1\] \(the share of judgments kept\)"),
    (lambda: check_fraction(True), TypeError, r"`fraction` must be a number in \(0, 1\]"),
    (lambda: check_choice("up", "rounding", ("ceil", "floor")), ValueError,
     r"`rounding` must be one of 'ceil', 'floor'; got 'up'\."),
    (lambda: check_seed(-1), ValueError, r"`seed` must be a non-negative integer, None or a numpy.random.Generator; got -1\."),
    (lambda: check_seed(1.5), TypeError, r"`seed` must be a non-negative integer"),
    (lambda: check_seed(True), TypeError, r"`seed` must be a non-negative integer"),
    (lambda: check_seeds(0), ValueError, r"`seeds` must be an integer >= 1; got 0\."),
    (lambda: check_seeds("12"), TypeError, r"`seeds` must be a number of seeds \(n means 0 .. n-1\)"),
    (lambda: check_seeds([]), ValueError, r"`seeds` must not be empty\."),
    (lambda: check_seeds([1, 1]), ValueError, r"`seeds` must be distinct; got \[1, 1\]\."),
    (lambda: check_seeds([1, -2]), ValueError, r"`seeds` must hold non-negative integers; got -2\."),
])
def test_errors_name_the_parameter_the_rule_and_the_value(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_accepted_values_come_back_clean():
    assert check_int(np.int64(3), "n") == 3 and type(check_int(np.int64(3), "n")) is int
    assert check_probability(np.float32(0.5), "level") == 0.5 and check_fraction(1) == 1.0
    assert check_seeds(3) == (0, 1, 2) and check_seeds([5]) == (5,) and check_seeds(np.array([4, 2])) == (4, 2)
    g = np.random.default_rng(1)
    assert check_seed(None) is None and check_seed(g) is g and check_seed(np.int8(7)) == 7


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**63 - 1))
def test_the_same_seed_gives_the_same_stream(seed):
    # check_rng is default_rng of the checked seed: the stream equals NumPy's own for that seed
    assert np.array_equal(check_rng(seed).random(4), np.random.default_rng(seed).random(4))
    # seed_sequence: an int gives SeedSequence(int); a Generator one draw of it, so equal states give equal sequences
    assert seed_sequence(seed).entropy == seed
    a, b = seed_sequence(np.random.default_rng(seed)), seed_sequence(np.random.default_rng(seed))
    assert a.entropy == b.entropy
    ss = np.random.SeedSequence(seed)
    assert seed_sequence(ss) is ss
