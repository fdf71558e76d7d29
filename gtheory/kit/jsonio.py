"""The one JSON encoder of the result types (the result protocol of docs/api.md).

Every ``to_dict``/``to_json`` of a result (:class:`gtheory.GStudy`, :class:`optimize.Tuning`, the studies of
:mod:`experiments`) and every ``--json`` output of the command line goes through :func:`jsonable` and
:func:`dumps`, so all of them write the same strict JSON (RFC 8259, readable by ``jq`` and ``JSON.parse``):

* a number that is not finite — NaN, ``inf`` or ``-inf``, as a Python float, a NumPy scalar or an element of a
  NumPy array, at any depth — is written as ``null`` (never ``NaN``/``Infinity``, never the string ``"inf"``);
  readers turn ``null`` back into NaN or ``inf`` where the field says which (:func:`number`);
* NumPy scalars and arrays become numbers, booleans and lists; tuples become lists; a pandas Series or
  DataFrame becomes a dict / a list of records; any other object its ``str``.

It lives in :mod:`gtheory` (which imports no sibling package) so that :mod:`optimize` and :mod:`experiments` can
share it.
"""
from __future__ import annotations

import json
import math
import sys
from typing import Any

import numpy as np

__all__ = ["fields_document", "fields_equal", "JsonResult", "TableResult", "jsonable", "dumps", "number", "write_text", "json_text", "read_json", "loads", "load_document", "table", "table_back"]


def jsonable(o: Any) -> Any:
    """``o`` as plain JSON values (dict, list, str, int, float, bool, None); non-finite numbers as None."""
    if o is None or isinstance(o, str):
        return o
    if isinstance(o, (bool, np.bool_)):
        return bool(o)
    if isinstance(o, (int, np.integer)):
        return int(o)
    if isinstance(o, (float, np.floating)):
        return float(o) if math.isfinite(o) else None
    if isinstance(o, dict):
        return {(k if isinstance(k, str) else _key(k)): jsonable(v) for k, v in o.items()}
    if isinstance(o, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in o]
    if isinstance(o, np.ndarray):
        return [jsonable(v) for v in o.tolist()] if o.ndim else jsonable(o.item())
    if isinstance(o, np.generic):
        return jsonable(o.item())
    if hasattr(o, "to_dict") and type(o).__module__.startswith("pandas"):
        if hasattr(o, "columns"):  # a DataFrame: its records, the index as columns
            return jsonable(o.reset_index().to_dict(orient="records"))
        return jsonable(o.to_dict())
    return str(o)


def _key(k: Any) -> str:
    """A dict key as :func:`json.dumps` writes it (``2.0`` → ``"2.0"``, ``True`` → ``"true"``), also for NumPy
    scalars (which :func:`json.dumps` refuses as keys)."""
    if isinstance(k, np.generic):
        k = k.item()
    if isinstance(k, (bool, int, float)) or k is None:
        return json.dumps(k)
    return str(k)


def dumps(obj: Any, *, indent: int | None = 2, ensure_ascii: bool = False) -> str:
    """Strict JSON text of ``obj`` through :func:`jsonable` (non-finite numbers as ``null``)."""
    return json.dumps(jsonable(obj), indent=indent, ensure_ascii=ensure_ascii, allow_nan=False)


def number(v: Any, none: float = math.nan) -> Any:
    """A JSON number field read back: None → ``none`` (NaN unless the field says ``inf``)."""
    return none if v is None else v


def write_text(path: Any, text: str) -> None:
    """Write ``text`` to ``path`` with the package's one writer (:func:`gtheory.kit.output.write_text`): atomic for
    a regular file (a temporary file beside it, renamed), written through for a device, FIFO or ``/dev/stdout``;
    a symbolic link is written through."""
    from .output import write_text as _write

    _write(path, text)


class JsonResult:
    """Mixin of the result protocol (docs/api.md): ``to_json`` from the class's ``to_dict``, through this module's one
    encoder."""

    __slots__ = ()

    def to_json(self, path: Any = None, *, indent: int | None = 2) -> str:
        """Strict JSON text of :meth:`to_dict` (RFC 8259: a number that is not finite is ``null``), also written
        atomically to ``path`` if given; the class method ``from_json`` reads it back."""
        return json_text(self.to_dict(), path, indent=indent)  # type: ignore[attr-defined]


class TableResult(JsonResult):
    """Mixin of a result type that holds DataFrame fields (declared ``@dataclass(frozen=True, eq=False)``): equal
    field by field, a DataFrame by ``DataFrame.equals`` (:func:`fields_equal`; the dataclass's generated ``==`` would
    compare the tables elementwise and fail), and therefore not hashable."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return fields_equal(self, other)

    __hash__ = None  # type: ignore[assignment]


def json_text(d: Any, path: Any = None, *, indent: int | None = 2) -> str:
    """The ``to_json`` of every result type: strict JSON text of ``d`` (:func:`dumps`), also written to ``path``
    (:func:`write_text`: atomically for a regular file) if given."""
    text = dumps(d, indent=indent)
    if path is not None:
        write_text(path, text)
    return text


def read_json(text_or_path: Any, what: str) -> Any:
    """The parsed JSON of ``text_or_path``: JSON text (starting with ``{`` or ``[``), or a path to a file
    holding it (the ``from_json`` of every result type). TypeError for anything else; ValueError
    ``not a <what> JSON document: <why>`` for text that is not JSON."""
    import os

    if isinstance(text_or_path, os.PathLike):
        text_or_path = os.fspath(text_or_path)
    if not isinstance(text_or_path, str):
        raise TypeError(f"`text_or_path` must be JSON text or a file path; got {type(text_or_path).__name__}.")
    text = text_or_path
    if not text.lstrip().startswith(("{", "[")):
        with open(text, "rb") as fh:
            raw = fh.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"not a {what} JSON document: " + ("UTF-16: convert to UTF-8" if looks_utf16(raw) else
                             f"not UTF-8 text (byte {exc.start})")) from None
    return loads(text, what)


def looks_utf16(raw: bytes) -> bool:
    """Whether ``raw`` (a file's first bytes) is UTF-16 text: a byte-order mark ``FF FE`` / ``FE FF``, or a NUL in at
    least 40 % of the even or of the odd positions of the first 4 KiB (ASCII saved as UTF-16LE/BE). gtheory's
    readers say "UTF-16: convert to UTF-8" for it (the run and qrels readers of :mod:`metrics` do the same)."""
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return True
    head = raw[:4096]
    return len(head) >= 4 and max(head[0::2].count(0), head[1::2].count(0)) >= 0.4 * (len(head) // 2)


class _Constant(Exception):
    """A ``NaN``/``Infinity``/``-Infinity`` token, which :func:`json.loads` accepts by default."""


def _no_constant(token: str) -> Any:
    raise _Constant(token)


class _Repeated(Exception):
    """A key given twice in one JSON object, which :func:`json.loads` resolves silently (the last one wins)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Repeated(key)
        out[key] = value
    return out


def loads(text: str, what: str) -> Any:
    """``json.loads(text)`` with every failure a ValueError ``not a <what> JSON document: <why>``: text that is
    not JSON (the tokens ``NaN`` and ``Infinity`` included, which Python's parser takes by default: a result read
    back with ``var_system = -inf`` gave made-up coefficients), a key repeated in one object (Python keeps the
    last silently; other readers the first), and JSON nested deeper than Python's recursion limit (``[[[[...]]]]`` 100,000 deep), which
    :func:`json.loads` answers with a :class:`RecursionError`."""
    try:
        return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not a {what} JSON document: {exc}") from None
    except _Repeated as exc:
        raise ValueError(f"not a {what} JSON document: the key {exc.args[0]!r} is given twice in one object (JSON "
                         "readers differ on which one counts; RFC 8259 §4); keep one") from None
    except _Constant as exc:
        raise ValueError(f"not a {what} JSON document: {exc.args[0]} is not JSON (RFC 8259 has no NaN or "
                         "Infinity; a number that is not finite is written as null)") from None
    except RecursionError:
        raise ValueError(f"not a {what} JSON document: nested too deeply (arrays or objects more than "
                         f"{sys.getrecursionlimit()} levels deep)") from None


def load_document(text_or_path: Any, fmt: str) -> dict[str, Any]:
    """The JSON object of ``text_or_path`` (JSON text, or a path to a file holding it, :func:`read_json`) whose
    ``"format"`` is ``fmt`` (without the key). ValueError naming the problem otherwise."""
    d = read_json(text_or_path, fmt)
    if not isinstance(d, dict) or d.get("format") != fmt:
        got = d.get("format") if isinstance(d, dict) else type(d).__name__
        raise ValueError(f"not a {fmt} document (format {got!r})")
    return {k: v for k, v in d.items() if k != "format"}


def table(frame: Any) -> dict[str, Any]:
    """A DataFrame as a JSON value that :func:`table_back` reads back: ``{"index": name or None, "columns": [...],
    "rows": [[...], ...]}`` (the index as the first entry of each row when it is named; a default 0..n-1 index is
    not written). Non-finite numbers are None."""
    named = frame.index.name is not None
    rows = frame.reset_index().to_numpy(dtype=object).tolist() if named else frame.to_numpy(dtype=object).tolist()
    return {"index": frame.index.name, "columns": [str(c) for c in frame.columns], "rows": jsonable(rows)}


def table_back(value: Any, name: str, floats: tuple[str, ...] = ()) -> Any:
    """The DataFrame of a :func:`table` value; the columns ``floats`` as floats (None → NaN). ValueError naming the
    field ``name`` if ``value`` is not such a table."""
    import pandas as pd

    ok = (isinstance(value, dict) and isinstance(value.get("columns"), list) and isinstance(value.get("rows"), list)
          and all(isinstance(r, list) for r in value["rows"]))
    if not ok:
        raise ValueError(f"field {name!r} must be a table {{'index', 'columns', 'rows'}}; got {str(value)[:60]!r}.")
    index = value.get("index")
    columns = ([index] if index is not None else []) + value["columns"]
    frame = pd.DataFrame(value["rows"], columns=columns)
    for c in floats:
        if c in frame:
            frame[c] = frame[c].astype(float)
    return frame.set_index(index) if index is not None else frame


def fields_document(result: Any) -> dict[str, Any]:
    """The ``to_dict`` of a frozen dataclass result derived from its fields: every field as plain JSON values (a
    DataFrame field as a :func:`table`), plus ``"format"`` (the class's ``JSON_FORMAT``); non-finite numbers as None.
    :func:`gtheory.kit.schema.read_fields_document` reads it back."""
    from dataclasses import fields

    out = {}
    for f in fields(result):
        v = getattr(result, f.name)
        out[f.name] = table(v) if hasattr(v, "columns") and hasattr(v, "reset_index") else jsonable(v)
    out["format"] = result.JSON_FORMAT
    return out


def fields_equal(a: Any, b: Any) -> bool:
    """``a == b`` for two dataclass results of the same type, field by field (a DataFrame field by
    ``DataFrame.equals``, an array field by :func:`numpy.array_equal`, NaN equal to NaN as there);
    ``NotImplemented`` for another type."""
    from dataclasses import fields

    if type(a) is not type(b):
        return NotImplemented

    def equal(va: Any, vb: Any) -> bool:
        if isinstance(va, np.ndarray) or isinstance(vb, np.ndarray):
            return (isinstance(va, np.ndarray) and isinstance(vb, np.ndarray) and va.dtype == vb.dtype
                    and np.array_equal(va, vb, equal_nan=va.dtype.kind in "fc"))
        return va.equals(vb) if hasattr(va, "equals") and hasattr(va, "columns") else va == vb

    return all(equal(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))
