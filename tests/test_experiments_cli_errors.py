"""How the command line reports errors: the user's (exit 2, one line, the option named through the subcommand's
parameter → option table) and the program's own (exit 1, one line with a --traceback hint)."""
from __future__ import annotations

import pytest

import gtheory
from experiments.cli import main


def test_parameter_error_names_the_option(capsys, monkeypatch):
    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)
    assert main(["demo", "--splits", "0"]) == 2
    err = capsys.readouterr().err
    # one line: the option (not the parameter), the table's rule, the value, and the fix worded with the option
    assert err.startswith("gtheory demo: error: --splits must be an integer >= 1; got 0") and err.count("\n") == 1
    assert "n_splits" not in err and "--splits 10" in err


def test_a_bug_exits_1_with_a_traceback_hint(capsys, monkeypatch):
    import experiments.study

    monkeypatch.delenv("GTHEORY_DEBUG", raising=False)

    def broken(*a, **kw):
        raise KeyError("no such column")

    monkeypatch.setattr(experiments.study, "check_demo_parameters", broken)
    assert main(["demo", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error: KeyError" in err and "rerun with --traceback" in err
    # --traceback, before or after the subcommand's options, lets the exception through
    for argv in (["--traceback", "demo", "--quiet"], ["demo", "--quiet", "--traceback"]):
        with pytest.raises(KeyError, match="no such column"):
            main(argv)


def test_parameter_error_is_a_value_error_with_the_name():
    err = gtheory.ParameterError("n_splits", "`n_splits` must be a positive integer; got 0")
    assert isinstance(err, ValueError) and err.param == "n_splits"
