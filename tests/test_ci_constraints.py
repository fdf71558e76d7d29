"""The minimum-versions CI pass (.ci/run) installs exactly the lower bounds pyproject.toml declares: every
dependency (core and test extra) is pinned in .ci/minimum-constraints.txt to its ``>=`` bound, and nothing else."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python >= 3.11

ROOT = Path(__file__).resolve().parents[1]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_constraints_pin_every_declared_lower_bound():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lower: dict[str, str] = {}
    for req in project["dependencies"] + project["optional-dependencies"]["test"]:
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)(?:\[([a-z,]+)\])?>=([0-9][0-9a-z.]*)", req.replace(" ", ""))
        assert m, f"pyproject.toml: {req!r} is not 'name>=version' (the minimum-versions pass needs a lower bound)"
        name, extras, version = m.groups()
        assert _norm(name) not in lower, f"pyproject.toml: {name} is declared twice"
        lower[_norm(name)] = version
        for extra in (extras or "").split(","):
            if extra:  # dask[distributed]: the extra's package at the same release
                lower[_norm(extra)] = version
    pins = {}
    for line in (ROOT / ".ci" / "minimum-constraints.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            pins[_norm(name)] = version.strip()
    assert set(pins) == set(lower)
    for name, version in lower.items():
        # "pandas>=2.0" is met by the pin 2.0.0: compare release numbers padded with zeros
        want = [int(x) for x in version.split(".")]
        got = [int(x) for x in pins[name].split(".")]
        width = max(len(want), len(got))
        assert want + [0] * (width - len(want)) == got + [0] * (width - len(got)), (name, version, pins[name])
