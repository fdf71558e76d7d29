"""Tests of experiments/report/result.py: the Study shown concisely (repr, HTML) and as strict, complete JSON."""
from __future__ import annotations

import json


def test_study_displays_concisely(small_study):
    r = repr(small_study)
    assert r.startswith("Study(") and "\n" not in r and len(r) < 250
    html = small_study._repr_html_()
    # header + one row per discount (three standard ones, the in-sample optimum, the adopted one)
    assert html.startswith("<table") and html.count("<tr>") == 1 + 5 and "adopted: " in html


def test_study_json_is_strict_and_complete(small_study):
    doc = json.loads(small_study.to_json())
    assert doc["format"] == "gtheory.experiments.Study/1" and doc["n_topics"] == 20
    assert [r["discount"] for r in doc["discount_table"]] == list(small_study.discount_table.index)
    assert "NaN" not in small_study.to_json() and "Infinity" not in small_study.to_json()
