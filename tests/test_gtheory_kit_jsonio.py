"""Tests of gtheory/kit/jsonio.py: the one strict JSON encoder of the result protocol and its readers.

Reference: RFC 8259 as Python's own parser enforces it (``json.loads`` with ``parse_constant`` refusing NaN and
Infinity): every document written must parse there; round trips (``table`` → ``table_back``,
``fields_document`` → ``read_fields_document``) must give back what was written.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from gtheory.kit.jsonio import (fields_document, fields_equal, jsonable, load_document, looks_utf16, loads,
                                read_json, table, table_back)
from gtheory.kit.schema import read_fields_document


def _strict(text: str):
    def refuse(constant):
        raise AssertionError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def test_the_one_encoder():
    from gtheory.kit.jsonio import dumps, number

    obj = {2.0: np.float32(np.inf), np.int64(3): np.array([[1.0, np.nan]]), "t": (np.bool_(True), None),
           "f": pd.DataFrame({"a": [1.5, -np.inf]}, index=pd.Index(["x", "y"], name="k"))}
    assert _strict(dumps(obj)) == {"2.0": None, "3": [[1.0, None]], "t": [True, None],
                                   "f": [{"k": "x", "a": 1.5}, {"k": "y", "a": None}]}
    assert number(None) != number(None) and number(None, math.inf) == math.inf
    assert number(0.5) == 0.5


def test_the_one_writer_is_atomic_with_the_usual_permissions(tmp_path):
    """``json_text`` (every result's ``to_json``) writes through a renamed temporary file: a new file gets the
    permissions of a new file (not mkstemp's owner-only ones), a replaced file keeps its own; no temporary is left."""
    import os
    import stat

    from gtheory.kit.jsonio import json_text

    mask = os.umask(0o022)
    os.umask(mask)
    new = tmp_path / "new.json"
    assert json_text({"a": math.nan}, new, indent=None) == '{"a": null}' == new.read_text(encoding="utf-8")
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~mask
    new.chmod(0o640)
    json_text({"a": 1}, new)
    assert stat.S_IMODE(new.stat().st_mode) == 0o640 and _strict(new.read_text(encoding="utf-8")) == {"a": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.json"]


finite_or_not = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-2**62, 2**62), st.none(),
                          st.booleans(), st.text(max_size=5))
nested = st.recursive(finite_or_not, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                             st.dictionaries(st.text(max_size=4), inner, max_size=4)),
                      max_leaves=20)


def _expected(o):
    """What strict JSON keeps of ``o``: non-finite floats become None, everything else as it is."""
    if isinstance(o, float) and not math.isfinite(o):
        return None
    if isinstance(o, list):
        return [_expected(v) for v in o]
    if isinstance(o, dict):
        return {k: _expected(v) for k, v in o.items()}
    return o


@settings(max_examples=100, deadline=None)
@given(nested)
def test_any_nesting_is_strict_json_with_non_finite_numbers_as_null(o):
    from gtheory.kit.jsonio import dumps

    assert _strict(dumps(o)) == _expected(o)
    # the same values as NumPy scalars in an array (float64 NaN/inf included) encode the same
    if isinstance(o, list) and o and all(isinstance(v, float) for v in o):
        assert jsonable(np.array(o)) == _expected(o)


def test_table_round_trip_keeps_index_columns_and_nan():
    f = pd.DataFrame({"a": [1.5, np.nan, -np.inf], "b": ["x", "y", "z"]}, index=pd.Index([3, 1, 2], name="n"))
    doc = json.loads(json.dumps(table(f), allow_nan=False))  # what a reader of the file gets
    assert doc == {"index": "n", "columns": ["a", "b"], "rows": [[3, 1.5, "x"], [1, None, "y"], [2, None, "z"]]}
    back = table_back(doc, "t", floats=("a",))
    assert list(back.index) == [3, 1, 2] and back.index.name == "n" and list(back.columns) == ["a", "b"]
    assert back["a"].iloc[0] == 1.5 and np.isnan(back["a"].iloc[1]) and np.isnan(back["a"].iloc[2])  # -inf → null → NaN
    unnamed = table(pd.DataFrame({"a": [1]}))
    assert unnamed["index"] is None and table_back(unnamed, "t").equals(pd.DataFrame({"a": [1]}))
    with pytest.raises(ValueError, match=r"field 'curve' must be a table \{'index', 'columns', 'rows'\}"):
        table_back([1, 2], "curve")


@dataclass(frozen=True)
class _Result:
    JSON_FORMAT = "gtheory.test-result"
    n: int
    frame: pd.DataFrame
    label: str

    __eq__ = fields_equal


def test_fields_document_round_trip_and_strict_reader(tmp_path):
    r = _Result(3, pd.DataFrame({"x": [0.5, np.nan]}, index=pd.Index(["a", "b"], name="k")), "é")
    doc = fields_document(r)
    assert doc["format"] == "gtheory.test-result" and doc["n"] == 3
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc, allow_nan=False), encoding="utf-8")
    for source in (json.dumps(doc), path, str(path)):
        back = _Result(**read_fields_document(_Result, source, {"frame": ("x",)}))
        assert back == r
    assert fields_equal(r, 3) is NotImplemented
    with pytest.raises(ValueError, match=r"not a gtheory.test-result document: fields \['extra'\] differ"):
        read_fields_document(_Result, json.dumps({**doc, "extra": 1}), {})
    with pytest.raises(ValueError, match=r"not a gtheory.test-result document \(format 'other'\)"):
        load_document(json.dumps({**doc, "format": "other"}), "gtheory.test-result")
    with pytest.raises(ValueError, match=r"not a gtheory.test-result document \(format 'list'\)"):
        load_document("[1]", "gtheory.test-result")


def test_readers_name_what_is_wrong(tmp_path):
    with pytest.raises(ValueError, match=r"^not a GStudy JSON document: Expecting"):
        read_json("{oops", "GStudy")
    with pytest.raises(ValueError, match=r"nested too deeply \(arrays or objects more than \d+ levels deep\)"):
        loads("[" * 100_000 + "]" * 100_000, "GStudy")
    with pytest.raises(TypeError, match=r"`text_or_path` must be JSON text or a file path; got int"):
        read_json(3, "GStudy")
    utf16 = tmp_path / "u16.json"
    utf16.write_text('{"a": 1}', encoding="utf-16")
    with pytest.raises(ValueError, match=r"not a GStudy JSON document: UTF-16: convert to UTF-8"):
        read_json(utf16, "GStudy")
    latin = tmp_path / "latin.json"
    latin.write_bytes('{"a": "é"}'.encode("latin-1"))
    with pytest.raises(ValueError, match=r"not UTF-8 text \(byte 7\)"):
        read_json(latin, "GStudy")


def test_looks_utf16():
    assert looks_utf16("\ufeffab".encode("utf-16-le")) and looks_utf16(b"\xfe\xff\x00a")
    assert looks_utf16("plain ascii text".encode("utf-16-be"))  # no BOM: NULs at every other byte
    assert not looks_utf16(b"plain ascii text") and not looks_utf16(b"ab")



@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_non_json_constants_are_refused(token):
    # Python's parser takes these by default; the writer never writes them (null), so a reader must not take them
    with pytest.raises(ValueError, match=f"not a thing JSON document: {token} is not JSON"):
        loads(f'{{"a": [1, {token}]}}', "thing")
    with pytest.raises(ValueError, match=f"{token} is not JSON"):
        load_document(f'{{"format": "thing/1", "a": {token}}}', "thing/1")
    assert loads('{"a": null}', "thing") == {"a": None}  # null, what the writer writes, is read


def test_a_key_given_twice_is_refused():
    # Python keeps the last of two equal keys, other readers the first: a document that says two things is refused
    for text in ('{"cutoff": 10, "cutoff": 100}', '{"a": {"b": 1, "b": 2}}', '[{"x": 1}, {"y": 2, "y": 3}]'):
        with pytest.raises(ValueError, match="not a thing JSON document: the key '(cutoff|b|y)' is given twice"):
            loads(text, "thing")
    assert loads('{"a": {"b": 1}, "b": {"a": 2}}', "thing") == {"a": {"b": 1}, "b": {"a": 2}}  # same key, two objects


def test_a_table_result_is_equal_field_by_field_and_not_hashable():
    from dataclasses import dataclass

    import pandas as pd

    from gtheory.kit.jsonio import TableResult

    @dataclass(frozen=True, eq=False)
    class R(TableResult):
        n: int
        table: pd.DataFrame

    a, b = R(1, pd.DataFrame({"x": [1.0, 2.0]})), R(1, pd.DataFrame({"x": [1.0, 2.0]}))
    assert a == b and not (a != b)
    assert a != R(1, pd.DataFrame({"x": [1.0, 3.0]})) and a != R(2, a.table)
    assert (a == "R") is False
    with pytest.raises(TypeError):
        hash(a)
