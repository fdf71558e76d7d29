"""Building the judged-grade tensor, run by run, into preallocated arrays (the internals of :func:`metrics.judge`).

* :func:`index_qrels` holds the judgments in one hash table keyed by (topic, docno): run documents are looked up
  in it directly (no global factorisation of every docno of every run).
* :func:`judge_file` / :func:`judge_run` turn one run into :class:`JudgedRows` — per retrieved document within the
  depth: topic, rank, grade code and judged-document id — small enough to pass between processes.
* :class:`TensorBuilder` writes those rows into the ``grades`` / ``doc_ids`` arrays, allocated once for all systems
  (grown only if a later run is deeper than every earlier one); peak memory stays near the final tensor's size.
* :func:`judge_files` reads files in this process (``workers=1``) or in worker processes, in file order, with an
  optional progress bar on stderr.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np
import pandas as pd

from ._columns import MAX_WIDTH, hash_rows
from .trec_lines import _read_bytes, _topic_codes, natural_topic_order
from .trec_qrels import Qrels
from .trec_runs import Run, _Duplicate, _parse_fields

ABSENT, UNJUDGED = -2, -1
_TOPIC_K = np.uint64(0xC2B2AE3D27D4EB4F)


@dataclass(frozen=True)
class QrelsIndex:
    """The judgments of the evaluated topics, grouped by topic (file order within a topic).

    Row ``i`` (of all judgments) has level code ``row_level[i]``, per-topic id ``row_id[i]``, topic ``row_topic[i]``
    and docno ``docno[i]``. ``key_index`` maps the hash of (topic, docno bytes) to the row; ``None`` when two
    judgments' hashes collide (then the string lookup is used).
    """

    topics: tuple[str, ...]
    levels: np.ndarray
    row_level: np.ndarray
    row_id: np.ndarray
    row_topic: np.ndarray
    offsets: np.ndarray
    docno: np.ndarray  # object array of str
    docno_bytes: np.ndarray  # zero-padded bytes (entries wider than MAX_WIDTH are never looked up)
    key_index: pd.Index | None

    @property
    def id_dtype(self) -> np.dtype:
        """int16 when every topic has fewer than 32767 judgments, else int32."""
        most = int(np.diff(self.offsets).max(initial=0))
        return np.dtype(np.int16 if most < np.iinfo(np.int16).max else np.int32)

    def rows_of(self, tpos: np.ndarray, docno: np.ndarray, doc_hash: np.ndarray | None) -> np.ndarray:
        """Judgment row of each (qrels topic position, docno), or -1 if not judged.

        ``docno``: zero-padded bytes with their ``doc_hash`` (byte reader), or str objects (``doc_hash`` None).
        """
        if doc_hash is not None and self.key_index is not None:
            cand = self.key_index.get_indexer(_pair_keys(doc_hash, tpos))
            hit = np.flatnonzero(cand >= 0)
            c = cand[hit]
            ok = _equal_padded(self.docno_bytes[c], docno[hit]) & (self.row_topic[c] == tpos[hit])  # hashes collide
            out = np.full(tpos.size, -1, dtype=np.int64)
            out[hit[ok]] = c[ok]
            return out
        if docno.dtype != object:
            docno = np.array([d.decode("utf-8") for d in docno.tolist()], dtype=object)
        pairs = pd.MultiIndex.from_arrays([self.row_topic, self.docno])
        return pairs.get_indexer(pd.MultiIndex.from_arrays([tpos, docno]))


def _equal_padded(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a == b`` for zero-padded ``S<8k>`` arrays (any two widths), compared as 64-bit words."""
    wa, wb = a.dtype.itemsize // 8, b.dtype.itemsize // 8
    if a.size == 0 or wa == 0 or wb == 0 or not (a.flags.c_contiguous and b.flags.c_contiguous):
        return a == b
    A, B = a.view(np.uint64).reshape(-1, wa), b.view(np.uint64).reshape(-1, wb)
    eq = A[:, 0] == B[:, 0]
    for k in range(1, max(wa, wb)):
        if k < wa and k < wb:
            eq &= A[:, k] == B[:, k]
        else:  # the wider one's extra words must be padding
            eq &= (A[:, k] if k < wa else B[:, k]) == 0
    return eq


def _pair_keys(doc_hash: np.ndarray, tpos: np.ndarray) -> np.ndarray:
    """(topic, docno) keys: the docno's (already mixed) hash xor a multiple of the topic position."""
    return doc_hash ^ (tpos.astype(np.uint64) + np.uint64(1)) * _TOPIC_K


def index_qrels(qrels: Qrels, topics: Sequence[str] | None) -> QrelsIndex:
    """Index ``qrels`` for the evaluated ``topics`` (default: all, in natural order)."""
    tq = natural_topic_order(qrels.topic)
    if topics is not None:
        topics = [str(t) for t in topics]
        unknown = sorted(set(topics) - set(tq))
        if unknown:
            raise ValueError(f"`topics` not in the qrels: {unknown[:5]}")
        tq = topics
    tpos = pd.Index(tq).get_indexer(qrels.topic)
    sel = tpos >= 0
    tpos, docno, grade = tpos[sel], qrels.docno[sel], qrels.grade[sel]
    order = np.argsort(tpos, kind="stable")  # judged docs grouped by topic, in file order within a topic
    tpos, docno, grade = tpos[order], docno[order], grade[order]
    levels, level = np.unique(grade, return_inverse=True)
    if levels.size > 126:
        raise ValueError(f"the qrels hold {levels.size} distinct grades; at most 126 are supported")
    counts = np.bincount(tpos, minlength=len(tq))
    offsets = np.r_[0, np.cumsum(counts)].astype(np.int64)
    row_id = np.arange(tpos.size) - offsets[tpos]
    encoded = [d.encode("utf-8") for d in docno.tolist()]
    width = max([len(e) for e in encoded if len(e) <= MAX_WIDTH], default=1)
    short = np.array([e if len(e) <= MAX_WIDTH else b"" for e in encoded], dtype=f"S{-(-max(width, 1) // 8) * 8}")
    keys = _pair_keys(hash_rows(short), tpos)
    keys[np.array([len(e) > MAX_WIDTH for e in encoded], dtype=bool)] = 0  # never looked up (see MAX_WIDTH)
    key_index = pd.Index(keys)
    if not key_index.is_unique or any(b"\x00" in e for e in encoded):  # NumPy bytes drop trailing NULs
        key_index = None
    return QrelsIndex(
        tuple(tq), levels, level.astype(np.int8), row_id.astype(np.int32), tpos.astype(np.int32), offsets,
        docno, short, key_index,
    )


@dataclass(frozen=True)
class JudgedRows:
    """One run judged: for each retrieved document within the depth, its topic position, rank - 1, level code
    (or UNJUDGED) and judged-document id (-1 if unjudged); plus the run's report entries."""

    tpos: np.ndarray
    r0: np.ndarray
    code: np.ndarray
    doc_id: np.ndarray
    n_retrieved: np.ndarray  # (n_topics,)
    unknown_topics: list[str]
    beyond_depth: int
    dropped: int
    duplicate: _Duplicate | None = None
    tags: tuple[str, ...] = ()  # the file's distinct run tags when there are several

    @property
    def depth(self) -> int:
        return int(self.r0.max(initial=-1)) + 1


def _rows(topics: list[str], tcode: np.ndarray, docno: np.ndarray, doc_hash: np.ndarray | None, order: np.ndarray,
          rank: np.ndarray, qi: QrelsIndex, depth: int, dropped: int) -> JudgedRows:
    """Judge rows given per row in file order (``tcode``, ``docno``) with ``order``/``rank`` their rank order."""
    T = len(qi.topics)
    pos = {t: i for i, t in enumerate(qi.topics)}
    topic_map = np.array([pos.get(t, -1) for t in topics], dtype=np.int64)
    unknown = [t for t, m in zip(topics, topic_map) if m < 0]
    tpos_row = topic_map[tcode]
    rank_row = np.empty(rank.size, dtype=np.int64)
    rank_row[order] = rank
    evaluated = tpos_row >= 0
    within = evaluated & (rank_row <= depth)
    cut = int(np.count_nonzero(evaluated) - np.count_nonzero(within))
    if within.all():  # the usual case: every row counts, no copies
        sel: np.ndarray | slice = slice(None)
    else:
        sel = np.flatnonzero(within)
    tpos = tpos_row[sel]
    judged = qi.rows_of(tpos, docno[sel], None if doc_hash is None else doc_hash[sel])
    hit = judged >= 0
    code = np.where(hit, qi.row_level[judged], np.int8(UNJUDGED)).astype(np.int8)
    doc_id = np.where(hit, qi.row_id[judged], -1).astype(np.int32)
    n_ret = np.bincount(tpos, minlength=T).astype(np.int32)
    return JudgedRows(tpos.astype(np.int32), (rank_row[sel] - 1).astype(np.int32), code, doc_id, n_ret, unknown, cut,
                      dropped)


def judge_run(run: Run, qi: QrelsIndex, depth: int) -> JudgedRows:
    """Judge an in-memory :class:`Run` (rows already in rank order)."""
    tcode, topics = _topic_codes(run.topic)
    n = len(run)
    return _rows(topics, tcode, run.docno, None, np.arange(n), run.rank, qi, depth, run.duplicates_dropped)


def judge_file(path: Path, qi: QrelsIndex, depth: int, ties: str, duplicates: str) -> JudgedRows:
    """Read, order and judge one run file."""
    f = _parse_fields(_read_bytes(path), path, ties, duplicates)
    f = replace(f, cols=None)  # the file's bytes and token positions are not needed any more
    if f.duplicate is not None:
        empty = np.zeros(0, dtype=np.int32)
        return JudgedRows(empty, empty, empty.astype(np.int8), empty, np.zeros(len(qi.topics), np.int32), [], 0, 0,
                          f.duplicate)
    rows = _rows(f.topics, f.tcode, f.docno, f.doc_hash, f.order, f.rank, qi, depth, f.dropped)
    return replace(rows, tags=f.tags) if f.tags else rows


class TensorBuilder:
    """``grades`` (int8) and ``doc_ids`` for ``n_systems`` runs, filled one run at a time.

    The arrays are allocated at the first run's depth (capped at ``depth``) and regrown only when a later run is
    deeper; so the peak is the final tensor plus one run's rows, unless runs come in increasing depth.
    """

    def __init__(self, n_systems: int, qi: QrelsIndex, depth: int) -> None:
        self.S, self.T, self.max_depth = n_systems, len(qi.topics), depth
        self.id_dtype = qi.id_dtype
        self.grades: np.ndarray | None = None
        self.doc_ids: np.ndarray | None = None
        self.n_retrieved = np.zeros((n_systems, self.T), dtype=np.int32)

    def _allocate(self, K: int) -> None:
        g = np.full((self.S, self.T, K), ABSENT, dtype=np.int8)
        d = np.full((self.S, self.T, K), -1, dtype=self.id_dtype)
        if self.grades is not None:
            k = self.grades.shape[2]
            g[:, :, :k] = self.grades
            d[:, :, :k] = self.doc_ids
        self.grades, self.doc_ids = g, d

    def add(self, s: int, rows: JudgedRows) -> None:
        need = max(min(rows.depth, self.max_depth), 1)
        if self.grades is None or need > self.grades.shape[2]:
            self._allocate(need)
        self.grades[s, rows.tpos, rows.r0] = rows.code
        self.doc_ids[s, rows.tpos, rows.r0] = rows.doc_id
        self.n_retrieved[s] = rows.n_retrieved

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self.grades is None:
            self._allocate(1)
        return self.grades, self.doc_ids, self.n_retrieved


_WORKER: dict = {}


def _init_worker(qi: QrelsIndex, depth: int, ties: str, duplicates: str) -> None:
    _WORKER.update(qi=qi, depth=depth, ties=ties, duplicates=duplicates)


def _judge_in_worker(path: str) -> JudgedRows:
    w = _WORKER
    return judge_file(Path(path), w["qi"], w["depth"], w["ties"], w["duplicates"])


def judge_files(files: Sequence[Path], qi: QrelsIndex, depth: int, ties: str, duplicates: str,
                workers: int | None) -> Iterator[JudgedRows]:
    """Judged rows of each file, in file order: in this process for one worker, else in ``workers`` processes."""
    n = workers or min(len(files), os.cpu_count() or 1)
    if n > 1 and len(files) > 1:
        from concurrent.futures import ProcessPoolExecutor  # here: loading a saved tensor needs no multiprocessing

        with ProcessPoolExecutor(n, initializer=_init_worker, initargs=(qi, depth, ties, duplicates)) as ex:
            yield from ex.map(_judge_in_worker, [str(f) for f in files], chunksize=max(1, len(files) // (8 * n)))
    else:
        for f in files:
            yield judge_file(f, qi, depth, ties, duplicates)


class Progress:
    """Progress of ingest: a tqdm bar on stderr that shows only when ingest lasts more than ``delay`` seconds (and
    ``enabled`` is True), or each step as a message to ``enabled`` when it is a callable."""

    def __init__(self, total: int, enabled: bool | Callable[[str], Any], desc: str = "judging runs",
                 delay: float = 2.0) -> None:
        self.bar = None
        self.say = enabled if callable(enabled) else None
        self.total, self.desc, self.done = total, desc, 0
        if enabled is True and total > 1:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=desc, unit="run", file=sys.stderr, delay=delay, leave=False)

    def update(self) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.update()
        elif self.say is not None:
            self.say(f"{self.desc}: {self.done}/{self.total}")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def build(results: Iterable[JudgedRows], n_systems: int, qi: QrelsIndex, depth: int, progress: Progress):
    """Fill a :class:`TensorBuilder` from ``results``; returns it and the per-run report pieces (in order)."""
    tb = TensorBuilder(n_systems, qi, depth)
    pieces: list[JudgedRows] = []
    try:
        for s, rows in enumerate(results):
            if rows.duplicate is None:
                tb.add(s, rows)
            pieces.append(_without_rows(rows))
            progress.update()
    finally:
        progress.close()
    return tb, pieces


def _without_rows(r: JudgedRows) -> JudgedRows:
    e = np.zeros(0, dtype=np.int32)
    return JudgedRows(e, e, e.astype(np.int8), e, r.n_retrieved, r.unknown_topics, r.beyond_depth, r.dropped,
                      r.duplicate, r.tags)
