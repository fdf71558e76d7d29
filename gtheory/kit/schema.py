r"""The declared schema of a result document and the one reader that checks it (every ``from_json`` of the
comparison and topic-planning results goes through :func:`read_document`).

A result's JSON (:mod:`gtheory.kit.jsonio`) is data a user may have edited, or a file that is not what it says. A
schema declares, for each field of a result type, its type, its range and whether it is required; the reader
refuses a document that breaks it with a :class:`~gtheory.kit.errors.DocumentError` naming the field (and, for a
table, the column and row) — never a number read from ``"0.05"``, a count truncated from 5.7, the string ``"False"``
taken as true, or a ``KeyError`` later in ``summary()``.

Rules (:class:`Field`; one constructor per kind):

* :func:`text` — a string; :func:`choice` — one of the listed values (``"t"``, ``"wilcoxon"`` …);
* :func:`flag` — a JSON boolean (``true``/``false``; not ``"False"``, not 0/1);
* :func:`integer` — a JSON integer (not a boolean, not 5.7; ``5.0`` is 5), within its range;
* :func:`real` — a JSON number (not a string, not a boolean), finite, within its range (open or closed ends);
* :func:`count` — a number of topics or judgments: an integral number >= ``low``, or ``null`` for "never reached"
  (read as ``inf``) where the field allows it;
* :func:`list_of` — a list whose items follow one rule; :func:`obj` — an object with its own schema;
  :func:`table` — a :func:`gtheory.kit.jsonio.table` value (``index``, ``columns``, ``rows``) whose columns follow
  their rules, cell by cell; :func:`records` — a list of objects (a DataFrame's records), each checked by a schema;
* ``nullable=True`` on any rule: ``null`` is allowed and read as ``null_as`` (None, NaN or inf, as the writer meant:
  non-finite numbers are written as ``null``). ``required=False``: the field may be absent (older documents), read
  as ``default``.

A field the schema does not declare is refused too (a misspelt key is not silently ignored).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from .errors import DocumentError
from .jsonio import load_document, table_back

__all__ = ["Field", "text", "choice", "flag", "integer", "real", "count", "list_of", "obj", "table", "records",
           "anything", "check_value", "read_document", "check_document",
           "read_fields_document"]

_MISSING = object()


@dataclass(frozen=True)
class Field:
    """One field's rule (module docstring). ``describe`` is the rule in words, for the error."""

    kind: str
    describe: str
    required: bool = True
    nullable: bool = False
    null_as: Any = None
    default: Any = None
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple = ()
    item: "Field | None" = None
    schema: "Mapping[str, Field] | None" = None
    columns: "Mapping[str, Field] | None" = None
    check: "Callable[[Any], str] | None" = None

    def but(self, **kw: Any) -> "Field":
        """This rule with some attributes changed (``real(...).but(nullable=True)``)."""
        from dataclasses import replace

        return replace(self, **kw)


def _range(low, high, low_open, high_open) -> str:
    if low is not None and high is not None:
        return f" in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    if low is not None:
        return f" {'>' if low_open else '>='} {low:g}"
    if high is not None:
        return f" {'<' if high_open else '<='} {high:g}"
    return ""


def text(**kw: Any) -> Field:
    """A string."""
    return Field("str", "a string", **kw)


def choice(*values: Any, **kw: Any) -> Field:
    """One of ``values``."""
    return Field("choice", "one of " + ", ".join(map(repr, values)), choices=tuple(values), **kw)


def flag(**kw: Any) -> Field:
    """A JSON boolean."""
    return Field("bool", "a boolean (true or false)", **kw)


def integer(low: float | None = None, high: float | None = None, **kw: Any) -> Field:
    """A JSON integer within ``[low, high]``."""
    return Field("int", "an integer" + _range(low, high, False, False), low=low, high=high, **kw)


def real(low: float | None = None, high: float | None = None, *, low_open: bool = False, high_open: bool = False,
         **kw: Any) -> Field:
    """A finite JSON number within its range."""
    return Field("float", "a finite number" + _range(low, high, low_open, high_open), low=low, high=high,
                 low_open=low_open, high_open=high_open, **kw)


def count(low: float = 0, *, never: bool = True, **kw: Any) -> Field:
    """An integral number >= ``low``; with ``never``, ``null`` = never reached, read as ``inf``."""
    kw.setdefault("nullable", never)
    kw.setdefault("null_as", math.inf if never else None)
    return Field("count", f"a whole number >= {low:g}" + (" (null: never reached)" if never else ""), low=low, **kw)


def list_of(item: Field, **kw: Any) -> Field:
    """A list, each item by ``item``."""
    return Field("list", f"a list (each item {item.describe})", item=item, **kw)


def obj(schema: Mapping[str, Field] | None = None, **kw: Any) -> Field:
    """A JSON object; checked by ``schema`` when given."""
    return Field("object", "an object", schema=schema, **kw)


def table(columns: Mapping[str, Field] | None = None, *, index: Field | None = None, cells: Field | None = None,
          **kw: Any) -> Field:
    """A :func:`gtheory.kit.jsonio.table` value whose columns (index included) are exactly ``columns``; or, for a
    table whose columns are data (one per measure), a named index checked by ``index`` and every other column's
    cells by ``cells``."""
    return Field("table", "a table {'index', 'columns', 'rows'}", columns=columns, item=cells, schema=(
        {"": index} if index is not None else None), **kw)


def records(columns: Mapping[str, Field] | None = None, **kw: Any) -> Field:
    """A list of objects (a DataFrame's records); each record's keys checked by ``columns`` when given."""
    return Field("records", "a list of records (objects)", columns=columns, **kw)


def anything(**kw: Any) -> Field:
    """Any JSON value (checked elsewhere, e.g. by the nested result's own reader)."""
    return Field("any", "any value", **kw)


def _shown(v: Any) -> str:
    text_ = repr(v)
    return f"{type(v).__name__} {text_[:60]}{'…' if len(text_) > 60 else ''}"


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_value(rule: Field, v: Any, where: str, fmt: str) -> Any:
    """``v`` checked by ``rule`` and read back (null as ``rule.null_as``; an integral float as int for integers and
    counts); :class:`DocumentError` naming ``where`` otherwise."""
    def bad(why: str = "") -> DocumentError:
        return DocumentError(fmt, where, f"must be {rule.describe}; got {why or _shown(v)}")

    if v is None:
        if rule.nullable:
            return rule.null_as
        if rule.kind != "any":
            raise bad("null")
        return None
    k = rule.kind
    if k == "any":
        out = v
    elif k == "str":
        if not isinstance(v, str):
            raise bad()
        out = v
    elif k == "choice":
        if isinstance(v, bool) or v not in rule.choices or type(v) not in {type(c) for c in rule.choices}:
            raise bad()
        out = v
    elif k == "bool":
        if not isinstance(v, bool):
            raise bad()
        out = v
    elif k in ("int", "count"):
        if not _is_number(v) or not math.isfinite(v) or float(v) != int(v):
            raise bad()
        out = int(v)
        if (rule.low is not None and out < rule.low) or (rule.high is not None and out > rule.high):
            raise bad()
    elif k == "float":
        if not _is_number(v) or not math.isfinite(v):
            raise bad()
        lo, hi = rule.low, rule.high
        if lo is not None and (v <= lo if rule.low_open else v < lo) or \
                hi is not None and (v >= hi if rule.high_open else v > hi):
            raise bad()
        out = float(v)
    elif k == "list":
        if not isinstance(v, list):
            raise bad()
        out = [check_value(rule.item, x, f"{where}[{i}]", fmt) for i, x in enumerate(v)]  # type: ignore[arg-type]
    elif k == "object":
        if not isinstance(v, dict):
            raise bad()
        out = check_document(v, rule.schema, fmt, prefix=f"{where}.") if rule.schema is not None else v
    elif k == "table":
        out = _check_table(rule, v, where, fmt, bad)
    elif k == "records":
        if not isinstance(v, list) or not all(isinstance(r, dict) for r in v):
            raise bad()
        out = v
        if rule.columns is not None:
            out = [check_document(r, rule.columns, fmt, prefix=f"{where}[{i}].") for i, r in enumerate(v)]
    else:  # pragma: no cover - a schema's own mistake
        raise ValueError(f"unknown rule kind {k!r}")
    if rule.check is not None and (why := rule.check(out)):
        raise DocumentError(fmt, where, why)
    return out


def _check_table(rule: Field, v: Any, where: str, fmt: str, bad: Callable[..., DocumentError]) -> dict[str, Any]:
    ok = (isinstance(v, dict) and set(v) == {"index", "columns", "rows"} and isinstance(v["columns"], list)
          and isinstance(v["rows"], list) and all(isinstance(r, list) for r in v["rows"])
          and (v["index"] is None or isinstance(v["index"], str)) and all(isinstance(c, str) for c in v["columns"]))
    if not ok:
        raise bad(_shown(v))
    names = ([v["index"]] if v["index"] is not None else []) + v["columns"]
    if len(set(names)) != len(names):
        raise DocumentError(fmt, where, f"names a column twice: {names}")
    if rule.columns is not None:
        spec = rule.columns
    else:  # data columns: the named index, then one rule for every other column
        if v["index"] is None:
            raise DocumentError(fmt, where, "must have a named index (its row labels)")
        spec = {v["index"]: rule.schema[""], **{c: rule.item for c in v["columns"]}}  # type: ignore[index]
    if missing := [c for c in spec if c not in names and spec[c].required]:
        raise DocumentError(fmt, f"{where}.{missing[0]}", "is missing (a column of the table)")
    if extra := [c for c in names if c not in spec]:
        raise DocumentError(fmt, f"{where}.{extra[0]}", "is not a column of this table")
    rows = []
    for i, r in enumerate(v["rows"]):
        if len(r) != len(names):
            raise DocumentError(fmt, f"{where} row {i}", f"has {len(r)} cells for {len(names)} columns")
        rows.append([check_value(spec[c], x, f"{where}.{c} row {i}", fmt) for c, x in zip(names, r)])
    return {"index": v["index"], "columns": v["columns"], "rows": rows}


def check_document(d: Mapping[str, Any], schema: Mapping[str, Field], fmt: str, *, prefix: str = "") -> dict[str, Any]:
    """Every field of ``d`` checked by ``schema`` (the fields read back; absent optional ones as their default); a
    missing required field or one the schema does not declare is refused, naming it."""
    if missing := [k for k, r in schema.items() if r.required and k not in d]:
        raise DocumentError(fmt, prefix + missing[0], "is missing")
    if extra := [k for k in d if k not in schema]:
        raise DocumentError(fmt, prefix + extra[0], "is not a field of this document")
    return {k: (check_value(r, d[k], prefix + k, fmt) if k in d else r.default) for k, r in schema.items()}


def read_document(text_or_path: Any, fmt: str, schema: Mapping[str, Field]) -> dict[str, Any]:
    """The fields of the result document ``text_or_path`` (JSON text or a path, :func:`gtheory.kit.jsonio.read_json`)
    whose ``"format"`` is ``fmt``, each checked by ``schema`` (:func:`check_document`) and read back."""
    return check_document(load_document(text_or_path, fmt), schema, fmt)


def read_fields_document(cls: Any, text_or_path: Any, tables: dict[str, tuple[str, ...]],
                         context: tuple[str, ...] = ()) -> dict[str, Any]:
    """The fields of a :func:`gtheory.kit.jsonio.fields_document` (JSON text or a path) for ``cls(**fields)``: the
    document's ``"format"`` must be ``cls.JSON_FORMAT`` and its fields exactly the dataclass's (ValueError naming the ones that
    differ), each checked by the class's ``JSON_SCHEMA`` when it declares one (:func:`read_document`: a
    :class:`~gtheory.kit.errors.DocumentError` naming the field); each field named in ``tables`` is read back as
    a DataFrame whose listed columns are floats (None → NaN).
    The caller converts what JSON cannot say (inf written as null, integer columns). ``context``: keys a writer
    adds beside the fields (declared in the schema, e.g. a command's ``source``), read past and dropped."""
    from dataclasses import fields

    schema = getattr(cls, "JSON_SCHEMA", None)
    if schema is not None:  # the declared schema: every field's type and range, by the one reader
        d = read_document(text_or_path, cls.JSON_FORMAT, schema)
    else:
        d = load_document(text_or_path, cls.JSON_FORMAT)
    for key in context:
        d.pop(key, None)
    names = {f.name for f in fields(cls)}
    if set(d) != names:
        raise ValueError(f"not a {cls.JSON_FORMAT} document: fields {sorted(set(d) ^ names)} differ")
    for name, floats in tables.items():
        d[name] = table_back(d[name], name, floats)
    return d
