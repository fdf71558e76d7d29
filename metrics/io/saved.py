"""The file format of the judged-grade tensor: :meth:`metrics.JudgedRuns.save` writes its arrays as ``.npz``
(zlib-compressed; no pickles) or ``.npz.xz`` (LZMA), and :meth:`metrics.JudgedRuns.load` reads them back, checking
every array (dtype, shape, range) so that a damaged or foreign file is one error naming the file and the array.

Format version 1: the members ``format_version``, ``grades`` (int8 cell codes), ``judged_ids`` (the document id of
each judged cell, in C order; -1 elsewhere is implied), ``doc_id_dtype``, ``levels``, ``qrels_level``,
``qrels_offsets``, ``systems``, ``topics``, ``n_retrieved``, ``missing`` and, optionally, ``sources`` (a JSON text).
"""
from __future__ import annotations

import io
import lzma
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from ._grades import ABSENT, UNJUDGED
from .trec_lines import PathLike
from gtheory.kit.compressed import existing_file
from gtheory.kit.errors import FixableError

__all__ = ["write_saved", "read_saved"]

_FORMAT_VERSION = 1
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
#: the arrays :meth:`JudgedRuns.save` writes (other members of an archive are not read)
_SAVED = frozenset({"format_version", "grades", "judged_ids", "doc_id_dtype", "levels", "qrels_level",
                    "qrels_offsets", "systems", "topics", "n_retrieved", "missing"})
#: optional members: ``sources`` (a JSON text: what the tensor was judged from, see :meth:`JudgedRuns.save`)
_OPTIONAL = frozenset({"sources"})
_XZ_MAGIC = b"\xfd7zXZ\x00"


def _not_saved(p: Path, head: bytes) -> FixableError:
    """The error for a file that is not a saved tensor; text (a qrels or run file?) says how to read it."""
    if head and all(b in b"\t\n\r" or 32 <= b < 127 or b >= 128 for b in head):
        return FixableError(f"{p}: not a saved JudgedRuns (.npz written by JudgedRuns.save): it is a text file "
                            "(TREC qrels or a run?)", fix={"qrels": ...},
                            advice="read qrels and runs with metrics.judge(runs, qrels)")
    return FixableError(f"{p}: not a saved JudgedRuns (.npz written by JudgedRuns.save): not a ZIP archive")


def _from_saved(z: dict, p: Path) -> dict[str, Any]:
    """The fields of the tensor (:class:`~metrics.JudgedRuns`' keyword arguments) from the arrays of a saved file, every array checked (dtype, shape, range): one error naming the
    file and the array for anything :meth:`JudgedRuns.save` cannot have written."""
    def bad(problem: str) -> FixableError:
        return FixableError(f"{p}: a damaged JudgedRuns file: {problem}; save it again with JudgedRuns.save")

    lacking = _SAVED - {"format_version"} - set(z)
    report: dict = {"loaded_from": str(p)}
    if "sources" in z:
        import json

        src = z["sources"]
        try:
            sources = json.loads(str(src)) if src.shape == () and src.dtype.kind == "U" else None
        except ValueError:
            sources = None
        if not isinstance(sources, dict):
            raise FixableError(f"{p}: a damaged JudgedRuns file: 'sources' is not a JSON object; save it again "
                               "with JudgedRuns.save")
        report["sources"] = sources
    if lacking:
        raise FixableError(f"{p}: not a JudgedRuns .npz file (lacks {sorted(lacking)})")
    version = z.get("format_version")
    if version is not None and (version.shape != () or version.dtype.kind not in "iu"
                                or int(version) != _FORMAT_VERSION):
        raise bad(f"format_version {version!r}, expected {_FORMAT_VERSION}")

    def ints(name: str, ndim: int) -> np.ndarray:
        a = z[name]
        if a.dtype.kind not in "iu" or a.ndim != ndim:
            raise bad(f"'{name}' must be a {ndim}-D array of integers; got {a.dtype} of shape {a.shape}")
        return a

    grades = ints("grades", 3)
    S, T, K = grades.shape
    levels = z["levels"]
    if levels.dtype.kind not in "iuf" or levels.ndim != 1:
        raise bad(f"'levels' must be a 1-D array of numbers; got {levels.dtype} of shape {levels.shape}")
    levels = levels.astype(np.float64)
    if not np.isfinite(levels).all():
        raise bad(f"'levels' holds a non-finite grade ({levels.tolist()[:10]})")
    if levels.size > 127 or np.any(np.diff(levels) <= 0):
        raise bad(f"'levels' must be at most 127 distinct grades in ascending order; got {levels.tolist()[:10]}")
    if grades.size and (grades.min() < ABSENT or grades.max() >= levels.size):
        raise bad(f"'grades' holds codes {int(grades.min())}..{int(grades.max())}; the codes are {ABSENT} (absent), "
                  f"{UNJUDGED} (unjudged) and 0..{levels.size - 1} (the {levels.size} levels)")
    grades = grades.astype(np.int8, copy=False)
    qrels_level = ints("qrels_level", 1)
    if qrels_level.size and (qrels_level.min() < 0 or qrels_level.max() >= levels.size):
        raise bad(f"'qrels_level' holds codes beyond the {levels.size} levels")
    offsets = ints("qrels_offsets", 1)
    if offsets.shape != (T + 1,) or offsets[0] != 0 or offsets[-1] != qrels_level.size or np.any(np.diff(offsets) < 0):
        raise bad(f"'qrels_offsets' must rise from 0 to {qrels_level.size} in {T + 1} entries")
    id_dtype = z["doc_id_dtype"]
    try:
        dtype = np.dtype(str(id_dtype)) if id_dtype.shape == () and id_dtype.dtype.kind == "U" else None
    except TypeError:
        dtype = None
    if dtype is None or dtype.kind != "i":
        raise bad(f"'doc_id_dtype' must name a signed integer type; got {id_dtype!r}")
    judged = grades >= 0
    ids = ints("judged_ids", 1)
    if ids.size != int(judged.sum()):
        raise bad(f"'judged_ids' has {ids.size} entries for {int(judged.sum())} judged cells of 'grades'")
    doc_ids = np.full(grades.shape, -1, dtype=dtype)
    if ids.size:
        if ids.min() < 0 or int(ids.max()) > np.iinfo(dtype).max:
            raise bad("'judged_ids' holds ids beyond the judged documents of their topics")
        doc_ids[judged] = ids
        n_t = np.diff(offsets)[:, None]
        start = offsets[:-1].astype(np.int64)[:, None]
        for s in range(S):  # one system at a time: temporaries of one system's size
            ok, d = judged[s], doc_ids[s]
            if np.any((d >= n_t) & ok):
                raise bad("'judged_ids' holds ids beyond the judged documents of their topics")
            if qrels_level.size and np.any((qrels_level.take(d + start, mode="clip") != grades[s]) & ok):
                raise bad("'grades' and 'qrels_level' disagree on the grade of judged documents")
    names = {}
    for name, n in (("systems", S), ("topics", T)):
        a = z[name]
        if a.dtype.kind != "U" or a.shape != (n,):
            raise bad(f"'{name}' must be {n} strings; got {a.dtype} of shape {a.shape}")
        names[name] = tuple(str(x) for x in a)
        if len(set(names[name])) != n:
            raise bad(f"'{name}' repeats a label")
    n_ret = ints("n_retrieved", 2)
    if n_ret.shape != (S, T) or (n_ret.size and n_ret.min() < 0):
        raise bad(f"'n_retrieved' must be non-negative counts of shape {(S, T)}; got shape {n_ret.shape}")
    missing = z["missing"]
    if missing.shape != () or missing.dtype.kind != "U" or str(missing) not in ("zero", "exclude"):
        raise bad(f"'missing' must be 'zero' or 'exclude'; got {missing!r}")
    return dict(grades=grades, doc_ids=doc_ids, levels=levels, qrels_level=qrels_level.astype(np.int8, copy=False),
               qrels_offsets=offsets.astype(np.int64, copy=False), systems=names["systems"], topics=names["topics"],
               n_retrieved=n_ret.astype(np.int32, copy=False), missing=str(missing),
               report=report)


def write_saved(path: PathLike, arrays: Mapping[str, np.ndarray], sources: Mapping[str, Any] | None = None) -> None:
    """Write a tensor's ``arrays`` (the members of the module docstring but ``format_version`` and ``sources``) to
    ``path``, with ``sources`` as a JSON text (see :meth:`metrics.JudgedRuns.save`)."""
    arrays = {"format_version": np.array(_FORMAT_VERSION), **arrays}
    if sources is not None:
        import json

        arrays["sources"] = np.array(json.dumps(dict(sources), sort_keys=True))
    from gtheory.kit.output import open_output, target_kind  # the package's one writer (imported when saving)

    p = Path(path)
    through = target_kind(p) in ("fd", "special")  # a device, FIFO or /dev/stdout: written through, as named
    buf = io.BytesIO()
    if p.suffix == ".xz":
        np.savez(buf, **arrays)
        data = lzma.compress(buf.getvalue(), preset=9)
    else:
        np.savez_compressed(buf, **arrays)
        data = buf.getvalue()
        if p.suffix != ".npz" and not through:  # as np.savez_compressed(path) names it
            p = p.with_name(p.name + ".npz")
    with open_output(p, "wb") as fh:  # a file: a temporary file renamed over `path`, complete or untouched
        fh.write(data)


def read_saved(path: PathLike) -> dict[str, Any]:
    """The fields of a tensor written by :func:`write_saved` (:class:`~metrics.JudgedRuns`' keyword arguments), every
    array checked (see :meth:`metrics.JudgedRuns.load` for the errors)."""
    p = existing_file(path, if_directory="{path}: is a directory; give a file written by JudgedRuns.save (.npz)")
    try:
        with open(p, "rb") as fh:
            head = fh.read(512)
        src: object = p
        if head.startswith(_XZ_MAGIC):
            data = lzma.open(p).read()
            head, src = data[:512], io.BytesIO(data)
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise FixableError(f"{p}: not a saved JudgedRuns: cannot read or decompress it ({exc})") from None
    if not head.startswith(_ZIP_MAGIC):
        raise _not_saved(p, head)
    import zipfile
    import zlib

    try:
        with np.load(src, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files if k in _SAVED | _OPTIONAL}  # each member read (and decompressed) here
    except (ValueError, OSError, EOFError, KeyError, RuntimeError, zipfile.BadZipFile, zlib.error,
            NotImplementedError) as exc:
        raise FixableError(f"{p}: a damaged or truncated JudgedRuns file ({type(exc).__name__}: "
                           f"{' '.join(str(exc).split())[:200]}); save it again with JudgedRuns.save") from None
    return _from_saved(arrays, p)
