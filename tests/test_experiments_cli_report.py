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


def test_html_report_keeps_a_hostile_run_name_as_text(tmp_path):
    # a run named like markup (its file name) stays text in "Comparing the best runs"; sections numbered in order
    import re

    import numpy as np

    from _markup import parse as _parse

    rng = np.random.default_rng(4)
    docs, topics = [f"d{i}" for i in range(15)], [str(t) for t in range(1, 9)]
    (tmp_path / "q.txt").write_text("".join(f"{t} 0 {d} {rng.integers(0, 3)}\n" for t in topics for d in docs[:8]))
    runs = tmp_path / "runs"
    runs.mkdir()
    names = ["<b onmouseover=alert(1)>best", "<img src=x onerror=alert(1)>", "runC", "runD"]
    for name in names:
        (runs / f"{name}.txt").write_text("".join(f"{t} Q0 {d} {r + 1} {100 - r} tag\n" for t in topics
                                                  for r, d in enumerate(rng.permutation(docs))))
    out = tmp_path / "r"
    assert main(["report", "--runs", str(runs), "--qrels", str(tmp_path / "q.txt"), "--quick", "--cutoff", "10",
                 "--splits", "2", "--n-resamples", "20", "--format", "html", "--out", str(out), "--quiet"]) == 0
    page = (out / "report.html").read_text()
    assert "onmouseover" not in _parse(page).attrs and "onerror" not in _parse(page).attrs
    section = page[page.index("Comparing the best runs"):]
    table = _parse(section[:section.index("</table>") + 8])
    assert sorted(r[0].split(") ", 1)[1] for r in table.rows[1:]) == sorted(names)
    numbers = [int(n) for n in re.findall(r"<h2>(\d+)\. ", page)]
    assert numbers == list(range(1, len(numbers) + 1))
