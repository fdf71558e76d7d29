"""The one table of measures (metrics.measures.registry): every registered measure parses, evaluates and is documented, its
spellings come from its record, and a measure added to the table needs nothing else to be parsed and evaluated."""
from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics import MEASURE_SPECS, evaluate, measure_names, parse_measure
from metrics._toy import single_topic
from metrics.measures.registry import MeasureSpec

DOCS = (Path(__file__).resolve().parents[1] / "docs" / "measures.md").read_text(encoding="utf-8")
J = single_topic([[2, 0, None, 1, 0, 1], [0, 1]], qrels=[2, 1, 1, 0, 0, 0])
SPECS = list(MEASURE_SPECS.values())
EVALUATE_DOC = importlib.import_module("metrics.measures.evaluate").__doc__


def _example(spec: MeasureSpec) -> str:
    return f"{spec.name}@5" if spec.cutoff == "required" else spec.name


def _functions(spec: MeasureSpec) -> set[str]:
    """Every function the record can call: with and without each parameter that changes it (NumRet's rel)."""
    plain = parse_measure(_example(spec))
    names = {spec.function_name(plain)}
    if "rel" in spec.params:
        names.add(spec.function_name(parse_measure(_example(spec).replace(spec.name, f"{spec.name}(rel=1)", 1))))
    return names


def _docs_row(spec: MeasureSpec, function: str) -> str | None:
    """The row of docs/measures.md's table whose `evaluate` names spell this measure and whose function is
    ``function``."""
    pattern = re.compile(rf"`{re.escape(spec.name)}[`@'(]")
    for line in DOCS.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 4 and pattern.search(cells[2]) and cells[3] == f"`{function}`":
            return line
    return None


def test_measure_names_are_the_registry():
    assert measure_names() == list(MEASURE_SPECS) and len(SPECS) >= 24


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_registered_measure_parses_evaluates_and_is_documented(spec):
    m = parse_measure(_example(spec))
    assert m.name == spec.name and m.spec is spec
    out = evaluate(J, m)
    # the toy tensor: 2 systems x 1 topic, every measure defined (R = 3 > 0, both lists non-empty)
    assert out.shape == (2, 1) and np.isfinite(out.to_numpy()).all()
    assert out.attrs["measure"] == str(m)
    for name in _functions(spec):
        fn = getattr(metrics, name)
        # the definition: in the function's docstring, or its module's (nDCG's, with the gain and discount families)
        assert name in metrics.__all__ and fn.__doc__
        assert ".. math::" in fn.__doc__ + (inspect.getmodule(fn).__doc__ or "")
        assert _docs_row(spec, name), f"docs/measures.md has no row for {spec.name} ({name})"
    assert f"``{spec.name}" in EVALUATE_DOC  # the table of evaluate's module docstring
    # the arguments the record builds are the function's own keywords
    kwargs = spec.call(m, judged_only=False)[1]
    assert set(kwargs) <= set(inspect.signature(getattr(metrics, spec.function_name(m))).parameters)
    if "judged_only" in spec.params:  # the condensed form exists and is what the prime asks for
        pd.testing.assert_frame_equal(evaluate(J, _example(spec).replace(spec.name, spec.name + "'", 1)),
                                      evaluate(J, m, judged_only=True))


@pytest.mark.parametrize("spec", [s for s in SPECS if s.aliases], ids=lambda s: s.name)
def test_every_alias_of_a_record_parses_to_its_measure(spec):
    for alias in spec.aliases:
        text, implied = (alias, {}) if isinstance(alias, str) else alias
        cut = "@5" if spec.cutoff == "required" else ""
        m = parse_measure(text + cut)
        assert m.name == spec.name and dict(m.params) == dict(implied)


@pytest.mark.parametrize("spec", [s for s in SPECS if s.trec_cut], ids=lambda s: s.name)
def test_trec_eval_names_with_the_cutoff_come_from_the_record(spec):
    want = parse_measure(f"{spec.name}@10")
    assert parse_measure(f"{spec.trec_cut}_10") == want == parse_measure(f"{spec.trec_cut}.10")


def test_an_unregistered_name_gives_the_clear_error_it_always_gave():
    known = ", ".join(MEASURE_SPECS)
    with pytest.raises(ValueError) as err:
        evaluate(J, "NERR8@10")
    assert str(err.value) == f"unknown measure 'NERR8' in 'NERR8@10'; known measures: {known}"
    with pytest.raises(ValueError, match=re.escape(f"known measures: {known}")):
        parse_measure("ndcg_at_10")


def test_a_measure_added_to_the_table_needs_nothing_else(monkeypatch):
    # one record, pointing at an existing function: parsed, evaluated and listed without any other edit
    spec = MeasureSpec("Prec", {"rel": "number", "judged_only": "bool"}, "required", "precision again", "",
                       "precision", aliases=("prec",))
    monkeypatch.setitem(MEASURE_SPECS, "Prec", spec)
    assert "Prec" in measure_names()
    got, want = evaluate(J, "Prec(rel=2)@3"), evaluate(J, "P(rel=2)@3")
    np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())
    assert got.attrs["measure"] == "Prec(rel=2)@3"
