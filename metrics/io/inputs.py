"""Runs and qrels from memory: DataFrames, pytrec_eval-style dicts and ir_measures / ir_datasets named tuples.

Every function that takes a run or qrels *path* (:func:`metrics.judge`, :func:`metrics.read_qrels`,
:func:`metrics.read_run`, :func:`metrics.read_runs`) also takes these in-memory forms; they are turned into the same
:class:`~metrics.Run` / :class:`~metrics.Qrels` objects the file readers build, with the same rules (this module
turns each form into checked columns, :func:`qrels_columns` and :func:`run_rows`; :mod:`metrics.io.trec_qrels` and
:mod:`metrics.io.trec_runs` build the objects from them, as from a file's columns):

* ranking: score descending, ties by docno descending (trec_eval's order; scores compared in float32 like
  trec_eval's C ``float``), or ``ties="input"`` (tied documents in input order) or ``ties="rank"`` (a ``rank``
  column of a DataFrame, ascending);
* a docno twice for one topic: an error, or ``duplicates="first"`` keeps the first occurrence (input order);
* a (topic, docno) judged twice in the qrels: an error;
* ids are strings (integer ids are written in decimal, as in a file); scores and grades finite real numbers.

Forms
-----
run, one system
    a DataFrame with columns ``query_id, doc_id, score`` (ir_measures / ir_datasets naming), ``q_id, doc_id, score``
    (ranx's ``Run.from_df`` columns) or ``topic, docno, score`` (this package's naming; they may be mixed); a dict
    ``{qid: {docid: score}}`` (pytrec_eval); an iterable of named tuples with fields ``query_id, doc_id, score``
    (ir_measures ``ScoredDoc``, what ir_datasets' ``scoreddocs_iter()`` yields); a ranx ``Run`` (named by its
    ``name``).
several systems
    a DataFrame with a further column ``run`` (or ``system``); a dict ``{system: {qid: {docid: score}}}``; a dict
    ``{system: <any one-system form>}``; a list of ranx ``Run`` objects with distinct names. Systems keep the order
    of first appearance.
qrels
    a DataFrame with ``query_id, doc_id, relevance``, ``topic, docno, grade`` or ranx's ``q_id, doc_id, score``
    (the grade is ``score`` only with ranx's ``q_id``); a ranx ``Qrels``; a dict ``{qid: {docid: grade}}``;
    an iterable of named tuples with fields ``query_id, doc_id, relevance`` (ir_measures ``Qrel``, what
    ir_datasets' ``qrels_iter()`` yields; other fields such as ``iteration`` are ignored).

ir_measures and ranx are not needed: any object with those attribute names is accepted (a ranx ``Run``/``Qrels`` is
any object with a ``to_dict()`` method and a ``run``/``qrels`` attribute).

Errors are :class:`InputFormatError` (a :class:`~metrics.TrecFormatError`) naming the row — a DataFrame's
index label, an iterable's item number (from 0) or a dict's keys — instead of a file and line.
"""
from __future__ import annotations

import operator
import os
from collections.abc import Iterable, Mapping
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from gtheory.kit.checks import c_float

from gtheory.kit.errors import FixableError
from .trec_lines import DUP_EFFECT, DUP_FIX, TrecFormatError, check_read_options, natural_topic_order

__all__ = ["InputFormatError", "is_in_memory", "qrels_columns", "RankedRows", "run_rows"]

#: accepted column names, each role: (ir_measures / ir_datasets name, this package's name[, ranx's name])
_TOPIC = ("query_id", "topic", "q_id")
_DOC = ("doc_id", "docno")
_SYSTEM = ("run", "system")
_GRADE = ("relevance", "grade")

#: default system name of a one-system input without a name
DEFAULT_RUN_NAME = "run"


class InputFormatError(TrecFormatError):
    """Malformed in-memory run or qrels. ``str(err)`` reads ``"<source>, <where>: <problem>"``, where ``where`` names
    the row: ``row 17`` (a DataFrame's index label), ``item 3`` (an iterable, from 0) or ``['451']['WTX-1']`` (a dict).

    A :class:`~metrics.TrecFormatError`, so one ``except`` catches bad files and bad in-memory inputs alike;
    ``path`` is the source (``"run DataFrame"``, ...), ``line`` is None and ``where`` names the row.
    """

    def __init__(self, source: str, where: str | None, problem: str, fix: dict[str, Any] | None = None,
                 fix_effect: str = "") -> None:
        FixableError.__init__(self, f"{source}, {where}: {problem}" if where else f"{source}: {problem}", fix=fix,
                              fix_effect=fix_effect)
        self.path = source
        self.line = None
        self.where = where
        self.problem = problem
        self.counts: dict[str, int] = {}

    def __reduce__(self):
        return (type(self), (self.path, self.where, self.problem, self.fix, self.fix_effect))


# ------------------------------------------------------------------------------------------------ dispatch
def _ranx(obj: Any, attr: str) -> bool:
    """Is ``obj`` a ranx ``Run`` (``attr="run"``) or ``Qrels`` (``attr="qrels"``)? Duck-typed, so ranx is not needed:
    an object, not a dict or DataFrame, with a ``to_dict()`` method and a ``run`` / ``qrels`` attribute (ranx 0.3)."""
    return (not isinstance(obj, (str, bytes, os.PathLike, pd.DataFrame, Mapping))
            and callable(getattr(obj, "to_dict", None)) and hasattr(obj, attr))


def _from_ranx(obj: Any) -> Any:
    """A ranx ``Run``/``Qrels`` as the dict ``{q_id: {doc_id: value}}`` its ``to_dict()`` gives (a plain dict, in
    ranx's order); a list or tuple of ranx Runs, or a dict of them, as ``{name: {q_id: {doc_id: score}}}`` (named
    by each Run's ``name``, which must then be set and distinct); anything else unchanged."""
    if _ranx(obj, "run") or _ranx(obj, "qrels"):
        return {q: dict(docs) for q, docs in obj.to_dict().items()}
    if isinstance(obj, (list, tuple)) and obj and all(_ranx(r, "run") for r in obj):
        names = [getattr(r, "name", None) for r in obj]
        if not all(isinstance(n, str) and n for n in names) or len(set(names)) != len(names):
            raise InputFormatError("ranx runs", None, f"several ranx Runs need distinct names (Run(..., name=...)); "
                                                      f"got {names}; or give a dict {{name: run}}")
        return {n: _from_ranx(r) for n, r in zip(names, obj)}
    if isinstance(obj, Mapping) and obj and any(_ranx(v, "run") for v in obj.values()):
        return {k: _from_ranx(v) for k, v in obj.items()}
    return obj


def is_in_memory(obj: Any, read: tuple[type, ...] = (), listed: tuple[type, ...] = ()) -> bool:
    """Whether ``obj`` is one of the in-memory forms: not a path, a list of paths, nor an object already read (an
    instance of ``read``: the caller's ``Run``/``RunSet``/``Qrels``), nor a list of paths and ``listed`` objects (a
    list of ``Run``)."""
    if isinstance(obj, (str, bytes, os.PathLike, *read)):
        return False
    if _ranx(obj, "run") or _ranx(obj, "qrels"):
        return True
    if isinstance(obj, (pd.DataFrame, Mapping)):
        return True
    if isinstance(obj, (list, tuple)):
        return bool(obj) and not all(isinstance(x, (str, os.PathLike, *listed)) for x in obj)
    return isinstance(obj, Iterable)


def _kind(obj: Any) -> str:
    return "DataFrame" if isinstance(obj, pd.DataFrame) else "dict" if isinstance(obj, Mapping) else "iterable"


# -------------------------------------------------------------------------------------------- columns
def _column(df: pd.DataFrame, names: tuple[str, ...], source: str, role: str) -> pd.Series:
    present = [n for n in names if n in df.columns]
    if len(present) > 1:
        raise InputFormatError(source, None,
                               f"both columns {present[0]!r} and {present[1]!r} give the {role}; keep one")
    if not present:
        raise InputFormatError(
            source, None,
            f"no {role} column: expected {' or '.join(map(repr, names))}; the columns are {list(map(str, df.columns))}",
        )
    return df[present[0]]


def _shown(v: Any) -> str:
    """``repr`` of a value as the user wrote it (``nan``, ``1.5``; not ``np.float64(nan)``)."""
    return repr(v.item() if isinstance(v, np.generic) else v)


def _ids(values: Any, where: Callable[[int], str], source: str, what: str) -> np.ndarray:
    """Topic or document ids as an object array of str: strings kept, integers written in decimal (as in a file);
    anything else (floats, missing values, empty or whitespace-holding strings) is refused, naming the row."""
    arr = np.asarray(values, dtype=object) if not isinstance(values, np.ndarray) else values
    if arr.size == 0:
        return arr.astype(object)
    if arr.dtype.kind in "iu":
        return arr.astype(str).astype(object)
    if arr.dtype.kind == "U":
        arr = arr.astype(object)
    if arr.dtype.kind != "O":
        i = 0
        raise InputFormatError(source, where(i), f"{what} {_shown(arr[i])} is a {arr.dtype} value; ids are strings "
                                                 "(or integers) — convert the column with .astype(str)")
    inferred = pd.api.types.infer_dtype(arr, skipna=False) if arr.size else "string"
    if inferred != "string":
        is_str = np.fromiter((type(v) is str for v in arr), dtype=bool, count=arr.size)
        is_int = np.fromiter((isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in arr),
                             dtype=bool, count=arr.size)
        bad = np.flatnonzero(~(is_str | is_int))
        if bad.size:
            i = int(bad[0])
            v = arr[i]
            hint = (" — convert float ids with .astype(int).astype(str)" if isinstance(v, (float, np.floating))
                    and not pd.isna(v) else "")
            if v is None or (isinstance(v, (float, np.floating)) and np.isnan(v)) or v is pd.NA:
                raise InputFormatError(source, where(i), f"{what} is missing ({_shown(v)})")
            raise InputFormatError(source, where(i), f"{what} {_shown(v)} is not a string{hint}")
        arr = np.array([v if type(v) is str else str(int(v)) for v in arr], dtype=object)
    lens = np.fromiter(map(len, arr), dtype=np.int64, count=arr.size)
    empty = np.flatnonzero(lens == 0)
    if empty.size:
        raise InputFormatError(source, where(int(empty[0])), f"{what} is the empty string")
    joined = "".join(arr.tolist())
    if any(c in joined for c in " \t\n\r\f\v"):
        i = next(i for i, v in enumerate(arr) if any(c in v for c in " \t\n\r\f\v"))
        raise InputFormatError(source, where(i), f"{what} {arr[i]!r} holds whitespace, which a TREC file cannot hold "
                                                 "(strip the ids?)")
    return arr


def _reals(values: Any, where: Callable[[int], str], source: str, what: str) -> np.ndarray:
    """Scores or grades as float64: real numbers (or numeric strings, as a file holds); NaN/inf, booleans and
    anything non-numeric are refused, naming the row."""
    arr = values if isinstance(values, np.ndarray) else np.asarray(values, dtype=object)
    if arr.size == 0:
        return np.zeros(0, dtype=np.float64)
    if arr.dtype.kind == "b":
        raise InputFormatError(source, where(0), f"{what} {_shown(arr[0])} is a boolean; give numbers")
    if arr.dtype.kind in "iuf":
        x = arr.astype(np.float64)
    elif arr.dtype.kind == "O" and pd.api.types.infer_dtype(arr, skipna=False) in ("floating", "integer",
                                                                                  "mixed-integer-float"):
        x = arr.astype(np.float64)  # Python/NumPy numbers (no booleans, strings or None): one vectorised cast
    else:
        x = np.empty(arr.size, dtype=np.float64)
        for i, v in enumerate(arr):
            if isinstance(v, (bool, np.bool_)) or v is None:
                raise InputFormatError(source, where(i), f"{what} {_shown(v)} is not a number")
            try:  # a numeric string in C syntax, as a file holds it (float() would read "1_0" as 10)
                x[i] = c_float(v) if isinstance(v, str) else float(v)
            except (TypeError, ValueError):
                raise InputFormatError(source, where(i), f"{what} {_shown(v)} is not a number") from None
    bad = np.flatnonzero(~np.isfinite(x))
    if bad.size:
        i = int(bad[0])
        raise InputFormatError(source, where(i),
                               f"{what} {_shown(arr[i])} is not finite ({what} must be a real number)")
    return x


# ------------------------------------------------------------------------------------------ flatteners
class _Flat:
    """Columns of one in-memory input in input order, with a function naming row ``i``."""

    def __init__(self, topic: Any, docno: Any, value: Any, where: Callable[[int], str], source: str,
                 system: Any = None, rank: Any = None) -> None:
        self.topic, self.docno, self.value, self.where, self.source = topic, docno, value, where, source
        self.system, self.rank = system, rank


def _from_frame(df: pd.DataFrame, source: str, value: tuple[str, ...], role: str, *, runs: bool) -> _Flat:
    labels = df.index

    def where(i: int) -> str:
        return f"row {_shown(labels[i])}"  # the index label: row 17, row 'x'; not np.int64(17)

    system = None
    if runs:
        present = [n for n in _SYSTEM if n in df.columns]
        if present:
            system = _column(df, _SYSTEM, source, "system name")
    rank = df["rank"].to_numpy() if runs and "rank" in df.columns else None
    return _Flat(_column(df, _TOPIC, source, "topic").to_numpy(), _column(df, _DOC, source, "document").to_numpy(),
                 _column(df, value, source, role).to_numpy(), where, source,
                 None if system is None else system.to_numpy(), rank)


def _from_dict(d: Mapping, source: str, prefix: str = "") -> _Flat:
    """``{qid: {docid: value}}`` flattened in dict order."""
    topics: list = []
    docs: list = []
    values: list = []
    for q, inner in d.items():
        if not isinstance(inner, Mapping):
            raise InputFormatError(source, f"{prefix}[{q!r}]", f"expected a dict {{docid: value}}, got "
                                                               f"{type(inner).__name__}")
        topics.extend([q] * len(inner))
        docs.extend(inner.keys())
        values.extend(inner.values())

    def where(i: int) -> str:
        return f"{prefix}[{topics[i]!r}][{docs[i]!r}]"

    return _Flat(topics, docs, values, where, source)


def _from_records(items: Iterable, source: str, value: str) -> _Flat:
    """An iterable of named tuples (or any objects) with attributes ``query_id``, ``doc_id`` and ``value``."""
    rows = list(items)
    kind = type(rows[0]) if rows else None
    fields = getattr(kind, "_fields", None)
    if fields and {"query_id", "doc_id", value} <= set(fields) and all(type(r) is kind for r in rows):
        # one named-tuple type throughout (as ir_datasets yields): each column by position, at C speed
        topics, docs, values = (list(map(operator.itemgetter(fields.index(n)), rows))
                                for n in ("query_id", "doc_id", value))
        return _Flat(topics, docs, values, lambda i: f"item {i}", source)
    topics = []
    docs = []
    values = []
    for i, r in enumerate(rows):
        try:
            topics.append(r.query_id)
            docs.append(r.doc_id)
            values.append(getattr(r, value))
        except AttributeError:
            fields = getattr(r, "_fields", None)
            raise InputFormatError(
                source, f"item {i}",
                f"expected a named tuple with fields query_id, doc_id, {value} (ir_measures "
                f"{'ScoredDoc' if value == 'score' else 'Qrel'}); got {type(r).__name__}"
                + (f" with fields {fields}" if fields else f" {r!r}"[:120]),
            ) from None

    def where(i: int) -> str:
        return f"item {i}"

    return _Flat(topics, docs, values, where, source)


def _flat(obj: Any, source: str, value_field: str, value_cols: tuple[str, ...], role: str, *, runs: bool) -> _Flat:
    if isinstance(obj, pd.DataFrame):
        return _from_frame(obj, source, value_cols, role, runs=runs)
    if isinstance(obj, Mapping):
        return _from_dict(obj, source)
    if isinstance(obj, Iterable) and not isinstance(obj, (str, bytes)):
        return _from_records(obj, source, value_field)
    raise TypeError(f"expected a path, a DataFrame, a dict or an iterable of named tuples; got {type(obj).__name__}")


# ----------------------------------------------------------------------------------------------- qrels
def qrels_columns(obj: Any, *, source: str | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, str]:
    """The columns of :class:`~metrics.Qrels` — ``(topic, docno, grade, line, path)`` — from a DataFrame
    (``query_id, doc_id, relevance`` or ``topic, docno, grade``), a dict ``{qid: {docid: grade}}`` or an iterable of
    ``Qrel`` named tuples (see the module docstring).

    ``line`` holds the row position (from 1) in input order; ``path`` the ``source`` description.

    Raises
    ------
    InputFormatError
        A missing column, a bad id or grade, or a (topic, docno) judged twice; the message names the row.
    """
    if _ranx(obj, "qrels"):
        source = source or "ranx Qrels"
        obj = _from_ranx(obj)
    source = source or f"qrels {_kind(obj)}"
    grade_cols = _GRADE
    if isinstance(obj, pd.DataFrame) and "q_id" in obj.columns and not any(c in obj.columns for c in _GRADE):
        grade_cols = ("score",)  # ranx's qrels frame: q_id, doc_id, score (the grade)
    f = _flat(obj, source, "relevance", grade_cols, "grade (relevance)", runs=False)
    topic = _ids(f.topic, f.where, source, "topic")
    if topic.size == 0:
        raise InputFormatError(source, None, "holds no judgments")
    docno = _ids(f.docno, f.where, source, "docno")
    grade = _reals(f.value, f.where, source, "grade")
    dup = pd.MultiIndex.from_arrays([topic, docno]).duplicated()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        first = int(np.flatnonzero((topic == topic[i]) & (docno == docno[i]))[0])
        raise InputFormatError(source, f.where(i), f"docno {docno[i]!r} is judged twice for topic {topic[i]!r} "
                                                   f"(first at {f.where(first)})")
    return topic, docno, grade, np.arange(1, topic.size + 1), source


# ------------------------------------------------------------------------------------------------- runs
#: one system's rows in rank order, as the fields of :class:`~metrics.Run` in its order (``Run(*rows)``): name,
#: topic, docno, score, line, rank, path, ties, duplicates_dropped
RankedRows = tuple  # (str, ndarray, ndarray, ndarray, ndarray, ndarray, str, str, int)


def _ranked(name: str, f: _Flat, rows: np.ndarray | slice, ties: str, duplicates: str) -> RankedRows:
    """One system's rows (positions ``rows`` of ``f``) in trec_eval order (see module docstring)."""
    src = f.source
    pos = np.arange(len(f.topic))[rows]

    def where(i: int) -> str:
        return f.where(int(pos[i]))

    def take(v: Any) -> Any:
        a = v if isinstance(v, np.ndarray) else np.asarray(v, dtype=object)
        return a[rows]

    topic = _ids(take(f.topic), where, src, "topic")
    if topic.size == 0:
        raise InputFormatError(src, None, f"run {name!r} holds no results")
    docno = _ids(take(f.docno), where, src, "docno")
    score = _reals(take(f.value), where, src, "score")
    key = None
    if ties == "rank":
        if f.rank is None:
            raise InputFormatError(src, None, "ties='rank' needs a 'rank' column (ranks ascending)")
        key = _reals(take(f.rank), where, src, "rank")
    nat = natural_topic_order(pd.unique(topic).tolist())
    tcode = pd.Index(nat, dtype=object).get_indexer(topic).astype(np.int64)
    dcode, duniq = pd.factorize(docno)
    pair = tcode * max(len(duniq), 1) + dcode
    dup = pd.Series(pair).duplicated().to_numpy()
    dropped = 0
    keep = np.arange(topic.size)
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        if duplicates == "error":
            first = int(np.flatnonzero(pair == pair[i])[0])
            raise InputFormatError(src, where(i), f"docno {docno[i]!r} appears twice for topic {topic[i]!r} in run "
                                                  f"{name!r} (first at {where(first)})", fix=DUP_FIX, fix_effect=DUP_EFFECT)
        keep = np.flatnonzero(~dup)
        dropped = int(dup.sum())
    t, d, s = tcode[keep], docno[keep], score[keep]
    if key is not None:
        primary = key[keep]
    elif ties == "trec_eval":
        with np.errstate(over="ignore"):  # beyond float32's range: ±inf, as in C's conversion (metrics.io.trec_runs)
            primary = -s.astype(np.float32)  # trec_eval holds scores as C floats: equal in float32 means tied
    else:
        primary = -s
    order = np.lexsort((primary, t))  # stable: ties in input order
    if ties == "trec_eval":  # ties by docno descending (string order = UTF-8 byte order, as strcmp)
        ts, ps = t[order], primary[order]
        same = (ts[1:] == ts[:-1]) & (ps[1:] == ps[:-1])
        if same.any():
            tied = np.zeros(order.size, dtype=bool)
            tied[1:] |= same
            tied[:-1] |= same
            _, dinv = np.unique(d[order][tied].astype(str), return_inverse=True)  # rank only the tied docnos
            dkey = np.zeros(order.size, dtype=np.int64)
            dkey[tied] = -dinv.astype(np.int64)
            order = order[np.lexsort((dkey, ps, ts))]
    tc = t[order]
    starts = np.flatnonzero(np.r_[True, tc[1:] != tc[:-1]])
    rank = np.arange(tc.size) - np.repeat(starts, np.diff(np.r_[starts, tc.size])) + 1
    line = pos[keep][order] + 1
    return name, np.array(nat, dtype=object)[tc], d[order], s[order], line, rank, src, ties, dropped


def _one_or_many(obj: Any) -> str:
    """``"one"`` (a one-system form) or ``"many"`` (a DataFrame with a system column, or a dict of systems)."""
    if isinstance(obj, pd.DataFrame):
        return "many" if any(n in obj.columns for n in _SYSTEM) else "one"
    if isinstance(obj, Mapping):
        for v in obj.values():
            if isinstance(v, Mapping):
                if v:  # {qid: {docid: score}} or {system: {qid: {docid: score}}}: look one level down
                    return "many" if isinstance(next(iter(v.values())), Mapping) else "one"
                continue
            if isinstance(v, (pd.DataFrame, Iterable)) and not isinstance(v, (str, bytes)):
                return "many"  # {system: DataFrame or iterable of named tuples}
            return "one"
    return "one"


def run_rows(obj: Any, *, ties: str = "trec_eval", duplicates: str = "error",
             names: Sequence[str] | None = None, source: str | None = None) -> list[RankedRows]:
    """Each system's ranked rows from any in-memory run form (see the module docstring): one system (named ``"run"``
    unless ``names`` gives one) or several (a ``run``/``system`` column, or a dict keyed by system), in order of first
    appearance. ``ties`` and ``duplicates`` as in :func:`metrics.read_run`.

    Raises
    ------
    InputFormatError
        A missing column, a bad id or score, a docno twice for a topic (unless ``duplicates="first"``); the message
        names the row.
    """
    check_read_options(ties, duplicates)
    if _ranx(obj, "run"):
        source = source or "ranx Run"
        if names is None and isinstance(getattr(obj, "name", None), str) and obj.name:
            names = [obj.name]
    elif isinstance(obj, (list, tuple)) and obj and all(_ranx(r, "run") for r in obj):
        source = source or "ranx Runs"
    obj = _from_ranx(obj)
    source = source or f"run {_kind(obj)}"
    runs: list[RankedRows] = []
    if _one_or_many(obj) == "one":
        f = _flat(obj, source, "score", ("score",), "score", runs=True)
        label = names[0] if names else DEFAULT_RUN_NAME
        runs.append(_ranked(label, f, slice(None), ties, duplicates))
    elif isinstance(obj, pd.DataFrame):
        f = _flat(obj, source, "score", ("score",), "score", runs=True)
        sysname = _ids(f.system, f.where, source, "system name")
        codes, uniq = pd.factorize(sysname)
        for c, nm in enumerate(uniq):
            runs.append(_ranked(str(nm), f, np.flatnonzero(codes == c), ties, duplicates))
    else:
        for nm, sub in obj.items():
            if not isinstance(nm, str) or not nm:
                raise InputFormatError(source, f"[{nm!r}]", "a system name must be a non-empty string")
            if isinstance(sub, Mapping):
                f = _from_dict(sub, source, prefix=f"[{nm!r}]")
            else:
                f = _flat(sub, f"{source} [{nm!r}]", "score", ("score",), "score", runs=True)
                if f.system is not None:
                    raise InputFormatError(f.source, None, "a run inside a dict of systems has its own run/system "
                                                           "column; give one or the other")
            runs.append(_ranked(nm, f, slice(None), ties, duplicates))
    if names is not None:
        if len(names) != len(runs):
            raise ValueError(f"`names` has {len(names)} entries for {len(runs)} systems")
        runs = [(str(n), *r[1:]) for r, n in zip(runs, names)]
    seen: set[str] = set()
    for name, *_ in runs:
        if name in seen:
            raise ValueError(f"two systems are named {name!r}; system names must be unique")
        seen.add(name)
    return runs
