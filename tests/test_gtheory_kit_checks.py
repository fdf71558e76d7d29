"""Tests of gtheory/kit/checks.py: the checks of one function's own parameters (integers, probabilities, choices) and
the helpers of seed and progress, all built on the parameter table's rules (gtheory/kit/params.py; the table itself
is tested in tests/test_gtheory_kit_params.py).

References: the vocabulary of docs/architecture.md ("The shared vocabulary") and scipy's message style
("`name` must be ...; got ..."); reproducibility against ``numpy.random.default_rng`` itself.
"""
from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gtheory.kit.checks import (c_float, check_choice, check_int, check_probability, check_progress, fixed_seed, progress_writer,
                                seed_sequence, stderr_is_terminal)
from gtheory.kit.errors import ParameterError


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_auto_progress_follows_the_terminal(monkeypatch):
    from metrics.io import _build

    monkeypatch.setattr("sys.stderr", io.StringIO())  # a pipe or a log file: no bar unless asked
    assert check_progress("auto") is False and _build.Progress(5, check_progress("auto")).bar is None
    assert _build.Progress(5, check_progress(True)).bar is not None  # asked: shown anyway
    monkeypatch.setattr("sys.stderr", Terminal())
    assert check_progress("auto") is True and _build.Progress(5, check_progress("auto")).bar is not None
    with pytest.raises(TypeError, match="'auto'") as caught:
        check_progress("yes")
    assert caught.value.param == "progress"


def test_progress_values_and_writer(monkeypatch, capsys):
    said = []
    assert check_progress(None) is False and check_progress(np.bool_(True)) is True
    assert check_progress(said.append) == said.append
    assert progress_writer(False) is None and progress_writer(None) is None
    progress_writer(said.append)("step 1")
    assert said == ["step 1"]
    progress_writer(True)("step 2")  # True: a line on stderr
    assert capsys.readouterr().err == "step 2\n"
    with pytest.raises(TypeError, match=r"`verbose` must be True, False, None, 'auto'.*got int 3"):
        check_progress(3, "verbose")


def test_stderr_is_terminal_survives_odd_streams(monkeypatch):
    monkeypatch.setattr("sys.stderr", object())  # no isatty at all
    assert stderr_is_terminal() is False
    closed = io.StringIO()
    closed.close()
    monkeypatch.setattr("sys.stderr", closed)  # isatty raises ValueError on a closed stream
    assert stderr_is_terminal() is False


@pytest.mark.parametrize("call, exc, param, rule", [
    (lambda: check_int(True, "n"), TypeError, "n", "an integer >= 1"),
    (lambda: check_int(2.0, "n"), TypeError, "n", "an integer >= 1"),
    (lambda: check_int(0, "n_splits", minimum=2), ValueError, "n_splits", "an integer >= 2"),
    (lambda: check_probability(1.0, "level"), ValueError, "level", "a probability strictly in (0, 1)"),
    (lambda: check_probability("0.5", "level"), TypeError, "level", "a probability strictly in (0, 1)"),
    (lambda: check_choice("up", "rounding", ("ceil", "floor")), ValueError, "rounding", "one of 'ceil', 'floor'"),
    (lambda: fixed_seed(-1), ValueError, "seed", "a non-negative integer"),
    (lambda: fixed_seed(1.5, "test_seed"), TypeError, "test_seed", "a non-negative integer"),
    (lambda: seed_sequence(True), TypeError, "seed", "a non-negative integer"),
])
def test_errors_name_the_parameter_the_rule_and_the_value(call, exc, param, rule):
    with pytest.raises(exc) as caught:
        call()
    err = caught.value
    assert isinstance(err, ParameterError) and err.param == param and rule in err.rule
    assert f"`{param}`" in str(err) and rule in str(err) and "got" in str(err)  # names the parameter, rule and value


def test_accepted_values_come_back_clean():
    assert check_int(np.int64(3), "n") == 3 and type(check_int(np.int64(3), "n")) is int
    assert check_probability(np.float32(0.5), "level") == 0.5 and type(check_probability(1 / 2, "level")) is float
    assert check_choice("ceil", "rounding", ("ceil", "floor")) == "ceil"
    assert fixed_seed(np.int8(7)) == 7 and type(fixed_seed(np.int8(7))) is int


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**63 - 1))
def test_the_same_seed_gives_the_same_stream(seed):
    # fixed_seed of an int is itself; of a Generator one draw of it (equal states, equal seeds)
    assert fixed_seed(seed) == seed
    assert fixed_seed(np.random.default_rng(seed)) == fixed_seed(np.random.default_rng(seed))
    # seed_sequence: an int gives SeedSequence(int); a Generator one draw of it, so equal states give equal sequences
    assert seed_sequence(seed).entropy == seed
    a, b = seed_sequence(np.random.default_rng(seed)), seed_sequence(np.random.default_rng(seed))
    assert a.entropy == b.entropy
    ss = np.random.SeedSequence(seed)
    assert seed_sequence(ss) is ss


@given(st.floats(allow_nan=False))
def test_c_float_reads_every_float_python_writes(x):
    # repr and the exponent forms are what every writer of the package and of trec_eval produce
    assert c_float(repr(x)) == x and c_float(f"{x:e}") == float(f"{x:e}")


@pytest.mark.parametrize("token", ["1_0", "\u0663", "\uff13", "1,5", "0x10", "", "1e", "--1", "infinit"])
def test_c_float_refuses_what_only_python_reads(token):
    with pytest.raises(ValueError, match="not a number in C syntax"):
        c_float(token)
