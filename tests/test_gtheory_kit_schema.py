"""gtheory.kit.schema: one declared schema per result type, one reader for every ``from_json``.

For every result type of the comparison and topic-planning surfaces: a valid document round-trips exactly, and a
document with one field mutated — deleted, given a value of the wrong type, out of its range, null where null is not
allowed — is refused with a DocumentError naming that field (never read as a number, never a KeyError later)."""
from __future__ import annotations

import functools
import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gtheory.kit.errors import DocumentError
from gtheory.kit.schema import Field, check_document, count, integer, real


@functools.lru_cache(maxsize=None)
def _documents() -> dict[str, tuple[type, dict, str]]:
    """name -> (class, its schema, a valid document's JSON text): small real results, computed once."""
    import gtheory
    import metrics
    from experiments.budget import TopicBudget, topic_depth_budget
    from experiments.compare import Comparison, compare
    from experiments.compare.comparison import COMPARISON_SCHEMA
    from experiments.compare import ComparisonTable, compare_measures
    from experiments.compare.table import _TABLE_SCHEMA
    from gtheory.topics.curves import TopicCurves
    from gtheory.topics.plan import TopicPlan
    from gtheory.topics.topic_set_size import TopicSetSize

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.random((4, 20)) * 0.5 + np.linspace(0.3, 0.0, 4)[:, None],
                     index=pd.Index(["a", "b", "c", "d"], name="system"), columns=pd.Index(range(20), name="topic"))
    out = {"Comparison": (Comparison, COMPARISON_SCHEMA, compare(X, correction="holm").to_json()),
           "Comparison/baseline": (Comparison, COMPARISON_SCHEMA, compare(X, baseline="b", test="randomization",
                                                                          n_resamples=200).to_json()),
           "ComparisonTable": (ComparisonTable, _TABLE_SCHEMA, compare_measures({"AP": X, "P@10": X * 0.9},
                                                                                baseline="a").to_json())}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in ("paired-t", "anova", "ci"):
            kw = {"ci_width": 0.1} if method == "ci" else {"min_diff": 0.1}
            out[f"TopicSetSize/{method}"] = (TopicSetSize, TopicSetSize.JSON_SCHEMA,
                                             gtheory.topic_set_size(X, method=method, **kw).to_json())
        out["TopicPlan"] = (TopicPlan, TopicPlan.JSON_SCHEMA, gtheory.plan(X, min_diff=0.1).to_json())
        from experiments.incomplete import SignificanceConfusion, significance_confusion
        from experiments.incomplete.confusion import _CONFUSION_SCHEMA
        from experiments.discriminative import _POWER_SCHEMA, DiscriminativePower, discriminative_power

        out["DiscriminativePower"] = (DiscriminativePower, _POWER_SCHEMA,
                                      discriminative_power(X, 0.05, n_resamples=50, seed=0).to_json())
        out["SignificanceConfusion"] = (SignificanceConfusion, _CONFUSION_SCHEMA,
                                        significance_confusion(X, X * 0.9 + 0.01, test="t").to_json())
        need = gtheory.gstudy(X.to_numpy()).topics_needed(0.95, level=0.9)
        out["TopicsNeeded"] = (type(need), type(need).JSON_SCHEMA, need.to_json())
        out["TopicCurves"] = (TopicCurves, TopicCurves.JSON_SCHEMA, gtheory.topic_curves(X, repeats=3).to_json())
        judged = metrics.load_trec9().subset(topics=list(range(8)), systems=list(range(6)))
        out["TopicBudget"] = (TopicBudget, TopicBudget.JSON_SCHEMA,
                              topic_depth_budget(judged, "nDCG@10", depths=[5, 10]).to_json())
    return out


NAMES = ["Comparison", "Comparison/baseline", "ComparisonTable", "TopicSetSize/paired-t", "TopicSetSize/anova",
         "TopicSetSize/ci", "TopicPlan", "TopicCurves", "TopicBudget", "TopicsNeeded",
         "DiscriminativePower", "SignificanceConfusion"]


@pytest.mark.parametrize("name", NAMES)
def test_valid_documents_round_trip_exactly(name):
    cls, _, text = _documents()[name]
    back = cls.from_json(text)
    assert back.to_json() == text
    assert cls.from_json(back.to_json()).to_json() == text


def _wrong(rule: Field, value):
    """Values ``rule`` must refuse in place of ``value`` (a valid one): wrong types, out of range, null."""
    k = rule.kind
    bad = []
    if not rule.nullable and k != "any":
        bad.append(None)
    if k in ("str", "choice"):
        bad += [12345, True] + (["nonsense"] if k == "choice" else [])
    elif k == "bool":
        bad += ["False", "true", 0, 1]
    elif k in ("int", "count"):
        bad += [str(value if isinstance(value, int) else 5), 5.7, True, [5]]
        if rule.low is not None:
            bad.append(int(rule.low) - 3)
    elif k == "float":
        bad += [str(value if isinstance(value, (int, float)) else 0.05), True, [0.05]]
        if rule.low is not None:
            bad.append(rule.low if rule.low_open else rule.low - 1.0)
        if rule.high is not None:
            bad.append(rule.high if rule.high_open else rule.high + 6.0)
    elif k in ("list", "object", "table", "records"):
        bad += ["x", 3.5]
    return bad


def _mutations(name: str) -> list[tuple[str, str, object]]:
    """(field, what, new value or DELETE) for every field of the document, and for each table cell of its first
    row; the field a refusal must name."""
    _, schema, text = _documents()[name]
    d = json.loads(text)
    out = []
    for key, rule in schema.items():
        if key in d and rule.required:
            out.append((key, key, "DELETE"))
        for v in _wrong(rule, d.get(key)):
            out.append((key, key, v))
        if rule.kind == "table" and rule.columns and d[key]["rows"]:
            cols = ([d[key]["index"]] if d[key]["index"] else []) + d[key]["columns"]
            for i, c in enumerate(cols):
                for v in _wrong(rule.columns[c], d[key]["rows"][0][i]):
                    out.append((f"{key}.{c} row 0", f"{key}/{i}", v))
    out.append(("unknown_field", "unknown_field", 1))
    return out




def _cases():
    return [(name, *m) for name in NAMES for m in _mutations(name)]


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_a_mutated_field_is_refused_naming_it(data):
    cases = _cases()
    name, field, where, value = data.draw(st.sampled_from(cases), label="mutation")
    cls, _, text = _documents()[name]
    d = json.loads(text)
    if "/" in where:  # a table cell
        key, i = where.split("/")
        d[key]["rows"][0][int(i)] = value
    elif value == "DELETE":
        del d[where]
    else:
        d[where] = value
    with pytest.raises(DocumentError) as err:
        cls.from_json(json.dumps(d))
    assert err.value.field == field, (name, where, value, str(err.value))
    assert repr(field) in str(err.value)


def test_the_cases_of_the_issue():
    from experiments.compare import Comparison
    from gtheory.topics.topic_set_size import TopicSetSize
    from experiments.budget import TopicBudget

    docs = _documents()
    c = json.loads(docs["Comparison"][2])
    for value in ("0.05", 7, None):
        with pytest.raises(DocumentError, match="'alpha' must be a finite number in \\(0, 1\\)"):
            Comparison.from_json(json.dumps({**c, "alpha": value}))
    with pytest.raises(DocumentError, match="'test' must be one of"):
        Comparison.from_json(json.dumps({**c, "test": "nonsense"}))
    c["table"]["rows"][0][-1] = "False"
    with pytest.raises(DocumentError, match="'table.significant row 0' must be a boolean"):
        Comparison.from_json(json.dumps(c))
    s = json.loads(docs["TopicSetSize/paired-t"][2])
    with pytest.raises(DocumentError, match="'n' must be a whole number >= 1"):
        TopicSetSize.from_json(json.dumps({**s, "n": -3}))
    b = json.loads(docs["TopicBudget"][2])
    b["table"]["rows"][0][0] = 5.7
    with pytest.raises(DocumentError, match="'table.depth row 0' must be an integer >= 1; got float 5.7"):
        TopicBudget.from_json(json.dumps(b))
    for key in ("means", "table", "n_topics"):
        d = json.loads(docs["Comparison"][2])
        del d[key]
        with pytest.raises(DocumentError, match=f"field '{key}' is missing"):
            Comparison.from_json(json.dumps(d))


def test_fields_that_depend_on_each_other():
    from experiments.compare import Comparison
    from gtheory.topics.topic_set_size import TopicSetSize

    docs = _documents()
    c = json.loads(docs["Comparison"][2])
    with pytest.raises(DocumentError, match="'baseline' must be one of the compared systems"):
        Comparison.from_json(json.dumps({**c, "baseline": "zzz"}))
    with pytest.raises(DocumentError, match="'correction' must be 'none' with test 'tukey-hsd'"):
        Comparison.from_json(json.dumps({**c, "test": "tukey-hsd"}))
    c["table"]["rows"][0][0] = "not-a-system"
    with pytest.raises(DocumentError, match="'table.a' must name compared systems"):
        Comparison.from_json(json.dumps(c))
    s = json.loads(docs["TopicSetSize/ci"][2])
    with pytest.raises(DocumentError, match="'ci_width' must be given"):
        TopicSetSize.from_json(json.dumps({**s, "ci_width": None}))


def test_the_rules():
    assert check_document({"n": 5.0, "x": 0.5}, {"n": count(1), "x": real(0, 1)}, "f") == {"n": 5, "x": 0.5}
    assert check_document({"n": None}, {"n": count(1)}, "f")["n"] == math.inf
    for doc, schema, field in (({"n": 5.5}, {"n": integer()}, "n"), ({"x": math.nan}, {"x": real()}, "x"),
                               ({}, {"x": real()}, "x"), ({"x": 1, "y": 2}, {"x": real()}, "y")):
        with pytest.raises(DocumentError) as err:
            check_document(doc, schema, "f")
        assert err.value.field == field and isinstance(err.value, ValueError)
