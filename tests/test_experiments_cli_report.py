"""Tests of the ``gtheory report`` subcommand's option handling (experiments/cli/report.py); the report itself
(run through the command) is tested in tests/test_experiments_report.py."""
from __future__ import annotations

import pytest

from experiments.cli import main


@pytest.mark.parametrize(
    "argv, message",
    [
        (["report", "--cutoff", "0"], "--cutoff must be an integer >= 1; got 0"),
        (["report", "--n-resamples", "-3", "--quick"], "--n-resamples must be an integer >= 1; got -3"),
        (["report", "--judged", "/nonexistent/tensor.npz"], "tensor.npz"),
        (["report", "--cutoff", "5000", "--quick"], "exceeds the run depth"),
    ],
)
def test_report_bad_option_exit_2_one_line(argv, message, capsys, tmp_path):
    rc = main([*argv, "--out", str(tmp_path / "r"), "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_report_out_is_a_file(tmp_path, capsys):
    f = tmp_path / "file.txt"
    f.write_text("x")
    rc = main(["report", "--quick", "--out", str(f), "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2 and f"--out {f}: is a file, not a directory" in err


def test_report_bad_format_is_argparse_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["report", "--format", "pdf"])
    assert exc.value.code == 2
    assert "invalid choice: 'pdf'" in capsys.readouterr().err
