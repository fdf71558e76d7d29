"""Every script in examples/ runs to completion (with ``--quick`` when the script offers it).

Scripts are discovered, so examples added later are covered too; the ones whose output we know are also
checked for a line they must print.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SCRIPTS = sorted(EXAMPLES.glob("*.py"))

#: a piece of output each known script must print (regular expressions are not needed)
EXPECTED = {
    "tune_my_collection.py": ["discount tuned for Φ", "held-out topics", "Kendall tau between the two"],
    "topics_needed.py": ["G-study of nDCG@20 on TREC-9 Web: 104 systems x 50 topics", "Φ ≥ 0.95:", "95% CI"],
    "sensitivity_sweep.py": ["18 points in", "most stable on the full qrels: nDCG@"],
    "make_tiny_collection.py": ["wrote 6 runs (8 topics, top 20)"],
}
#: arguments a script needs in a test (its outputs under the test's tmp_path)
ARGS = {"make_tiny_collection.py": lambda tmp: ["--out", str(tmp)]}


def _run(script: Path, *extra: str) -> subprocess.CompletedProcess:
    args = [sys.executable, str(script)]
    if "--quick" in script.read_text(encoding="utf-8"):
        args.append("--quick")
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(args + list(extra), cwd=EXAMPLES.parent, capture_output=True, text=True, timeout=180,
                          env=env)


def test_examples_are_there():
    names = {s.name for s in SCRIPTS}
    assert set(EXPECTED) <= names


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_example_runs(script: Path, tmp_path):
    proc = _run(script, *ARGS.get(script.name, lambda tmp: [])(tmp_path))
    assert proc.returncode == 0, f"{script.name} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    assert proc.stdout.strip(), f"{script.name} printed nothing"
    for piece in EXPECTED.get(script.name, []):
        assert piece in proc.stdout, f"{script.name}: {piece!r} not in its output:\n{proc.stdout[-2000:]}"


def test_topics_needed_writes_the_plot(tmp_path):
    png = tmp_path / "dstudy.png"
    proc = _run(EXAMPLES / "topics_needed.py", "--plot", str(png))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert png.stat().st_size > 10_000 and png.read_bytes()[:4] == b"\x89PNG"


def test_sensitivity_sweep_on_dask_local_cluster(tmp_path):
    pytest.importorskip("dask.distributed")
    out = tmp_path / "sweep.csv"
    proc = _run(EXAMPLES / "sensitivity_sweep.py", "--dask", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "on Dask (LocalCluster, 2 workers)" in proc.stdout
    assert len(out.read_text().splitlines()) == 18 + 1


def test_the_shipped_tiny_collection_is_the_generated_one_and_scores_as_the_embedded_data(embedded_trec9, tmp_path,
                                                                                         monkeypatch):
    """examples/runs/ and examples/qrels.txt (what README and docs/measures.md read) are what the script writes, and
    judged from the files they give the embedded TREC-9 data's nDCG@20 for those runs and topics."""
    import numpy as np

    import metrics

    proc = _run(EXAMPLES / "make_tiny_collection.py", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-2000:]
    shipped = sorted(p.relative_to(EXAMPLES) for p in [EXAMPLES / "qrels.txt", *(EXAMPLES / "runs").iterdir()])
    written = sorted(p.relative_to(tmp_path) for p in [tmp_path / "qrels.txt", *(tmp_path / "runs").iterdir()])
    assert shipped == written
    for rel in shipped:
        assert (EXAMPLES / rel).read_bytes() == (tmp_path / rel).read_bytes(), rel
    monkeypatch.syspath_prepend(str(EXAMPLES))
    from make_tiny_collection import DEPTH, SYSTEMS, TOPICS

    tiny = metrics.judge(EXAMPLES / "runs", EXAMPLES / "qrels.txt")
    ref = metrics.ndcg(embedded_trec9.subset(systems=list(SYSTEMS), topics=list(range(TOPICS))), cutoff=DEPTH)
    got = metrics.ndcg(tiny, cutoff=DEPTH).loc[ref.index, ref.columns]
    np.testing.assert_allclose(got.to_numpy(), ref.to_numpy(), rtol=0, atol=1e-12)
