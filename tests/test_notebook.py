"""examples/trec9_tour.ipynb executes top to bottom in a real Jupyter kernel (nbclient + ipykernel) and shows
what it says it shows: HTML tables for the result objects, the D-study plot, numbers that agree with the library.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parent.parent / "examples" / "trec9_tour.ipynb"


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), "commit the notebook without outputs"
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}  # the kernel's inline backend draws the plots
    cwd = tmp_path_factory.mktemp("notebook")
    client = nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(cwd)}})
    client.execute(env=env)  # raises CellExecutionError, with the cell and traceback, if any cell fails
    return nb


def _outputs(nb, source_start: str) -> list[dict]:
    cells = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith(source_start)]
    assert len(cells) == 1, source_start
    return cells[0].outputs


def _data(outputs, mime: str) -> str:
    found = [o["data"][mime] for o in outputs if o.get("output_type") in ("execute_result", "display_data")
             and mime in o.get("data", {})]
    assert found, f"no {mime} output"
    return found[0]


def test_notebook_shows_result_objects_as_html_tables(executed):
    for start, name in (("judged = ", "JudgedRuns"), ("g = gtheory.gstudy", "GStudy"),
                        ("needed = ", "TopicsNeeded"), ("tuning = ", "Tuning")):
        outs = _outputs(executed, start)
        html = _data(outs, "text/html")
        assert html.startswith("<table") and name in html
        assert _data(outs, "text/plain").startswith(name + "(")


def test_notebook_draws_the_plots(executed):
    for start in ("ax = g.plot", "import numpy as np"):
        png = _data(_outputs(executed, start), "image/png")
        assert len(png) > 5_000  # base64 of a real figure


def test_notebook_numbers_agree_with_the_library(embedded_trec9, executed):
    import gtheory
    import metrics

    g = gtheory.gstudy(metrics.ndcg(embedded_trec9, cutoff=20))
    assert f"Φ(50) = {g.phi(50):.4g}" in _data(_outputs(executed, "g = gtheory.gstudy"), "text/plain")
    log = gtheory.gstudy(metrics.ndcg(embedded_trec9, gain="linear", discount="log2", cutoff=20))
    text = "".join(o.get("text", "") for o in _outputs(executed, "log_phi = "))
    tuned, log_phi = map(float, re.search(r"tuned discount ([\d.]+), log discount ([\d.]+)", text).groups())
    assert log_phi == pytest.approx(log.phi(50), abs=5e-5)
    assert tuned >= log_phi  # in sample the optimum is at least as stable as log (log is in its search space)
