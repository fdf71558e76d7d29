"""docs/build_api.py: the API reference lists every public name; docs/index.md links every docs page."""
from __future__ import annotations

import importlib
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _builder():
    spec = importlib.util.spec_from_file_location("build_api", DOCS / "build_api.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _public_names():
    builder = _builder()
    return [(pkg, name) for pkg in builder.PACKAGES for name in importlib.import_module(pkg).__all__]


def test_script_writes_every_public_name(tmp_path):
    out = tmp_path / "api.md"
    proc = subprocess.run([sys.executable, str(DOCS / "build_api.py"), "--out", str(out)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    headings = set(re.findall(r"^### `([\w.]+)", text, flags=re.M))
    missing = [f"{p}.{n}" for p, n in _public_names() if f"{p}.{n}" not in headings]
    assert not missing, f"not in the generated API reference: {missing}"
    assert "0x" not in text  # deterministic: no memory addresses


def test_entries_carry_signature_and_first_paragraph():
    builder = _builder()
    entry = builder.describe("experiments", "sweep")
    assert entry.startswith("### `experiments.sweep(judged: JudgedRuns, cutoffs:")
    assert "Stability of nDCG over a grid" in entry
    assert builder.first_paragraph("  One.\n  two\n\n  Three.") == "One. two"
    assert "*constant*" in builder.describe("experiments", "SWEEP_COLUMNS")


def test_committed_api_reference_is_current():
    text = (DOCS / "api.md").read_text(encoding="utf-8")
    missing = [f"{p}.{n}" for p, n in _public_names() if f"### `{p}.{n}" not in text]
    assert not missing, f"docs/api.md lacks {missing}: run python docs/build_api.py"


def test_index_links_every_docs_page():
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    links = set(re.findall(r"\]\(([^)#]+\.md)(?:#[^)]*)?\)", index))
    pages = {p.name for p in DOCS.glob("*.md")} - {"index.md"}
    assert pages <= links, f"docs/index.md does not link {sorted(pages - links)}"
    assert all((DOCS / link).exists() for link in links), "docs/index.md links a page that does not exist"
