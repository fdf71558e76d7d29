"""The judged-grade tensor: for systems × topics × ranks, the grade of the document at that rank.

This is the data model every measure, the optimiser and the experiments work on. It holds no document strings and no
scores, only small integers:

* ``grades[s, t, r]`` (int8): the *level code* of the document system ``s`` ranked at ``r + 1`` for topic ``t`` —
  an index into ``levels`` (the distinct qrels grades, ascending) — or one of two sentinels, :data:`UNJUDGED`
  (retrieved but not in the qrels) and :data:`ABSENT` (the run has no document at that rank).
* ``doc_ids[s, t, r]``: the per-topic integer id of that judged document (``-1`` where unjudged/absent). Judged
  document ``i`` of topic ``t`` has level ``qrels_level[qrels_offsets[t] + i]``. These ids let judgments be removed
  (incompleteness studies, :meth:`JudgedRuns.restrict_judgments`) without document strings.
* per-topic grade counts of the qrels (``level_counts``), from which the ideal ranking, R and N follow.
"""
from __future__ import annotations

import io
import lzma
import os
import warnings
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Literal, Mapping, Sequence

import numpy as np
import pandas as pd

from . import _build
from .inputs import is_in_memory
from ._grades import apply_grade_policy, pooled_unjudged
from gtheory.kit.checks import check_progress
from .coverage import Coverage, check_coverage, coverage
from gtheory.kit.errors import FixableError, FixableWarning
from .trec_lines import PathLike, check_read_options
from .trec_qrels import Qrels, read_qrels
from .trec_runs import Run, RunSet, _expand, _run_name, duplicate_error, read_run, runs_from_memory
from gtheory.kit.params import validate_params

__all__ = ["JudgedRuns", "judge", "DepthWarning", "UNJUDGED", "ABSENT", "check_judged"]

#: sentinel in ``JudgedRuns.grades``: a retrieved document with no judgment
UNJUDGED: int = -1
#: sentinel in ``JudgedRuns.grades``: no document at this rank (the run returned fewer documents)
ABSENT: int = -2

Missing = Literal["zero", "exclude"]
_FORMAT_VERSION = 1
#: tensor elements per block of :meth:`JudgedRuns.condensed` (bounds its temporaries to a few MB)
_CONDENSE_BLOCK = 1 << 20
#: ranks kept per topic when ``judge`` is given no depth: the TREC limit
DEFAULT_DEPTH = 1000


class DepthWarning(FixableWarning):
    """:func:`judge` without a ``depth`` cut runs that rank documents below the TREC limit of 1000: trec_eval without
    ``-M`` evaluates those rows (``fix``: a ``depth``)."""


@dataclass(frozen=True, eq=False)
class JudgedRuns:
    """Judged grades of ranked lists, systems × topics × ranks (see the module docstring).

    Attributes
    ----------
    grades : int8 array (n_systems, n_topics, depth) of level codes, :data:`UNJUDGED` or :data:`ABSENT`.
    doc_ids : int16/int32 array, same shape: per-topic judged-document id, -1 if unjudged or absent.
    levels : float64 array (n_levels,): the distinct grades in the qrels, ascending (real values kept).
    qrels_level : int8 array: level code of every judged document, grouped by topic.
    qrels_offsets : int64 array (n_topics + 1,): topic ``t``'s judged documents are
        ``qrels_level[qrels_offsets[t]:qrels_offsets[t + 1]]``.
    systems, topics : labels.
    n_retrieved : int32 array (n_systems, n_topics): documents the run returned for the topic (after ``depth``).
    missing : ``"zero"`` — a topic a run does not return scores 0 (RBP's residual 1), like ``trec_eval -c`` (default); ``"exclude"`` —
        measures give NaN for it.
    report : what was ignored or noticed while building: qrels topics missing from runs, run topics not in the qrels,
        ``topics_without_relevant`` (qrels topics with no document of grade > 0), rows beyond the depth, duplicates.
    coverage : (property) judged share of the retrieved documents per run and cut-off
        (:class:`~metrics.io.coverage.Coverage`).
    fingerprint : (property) a stable hash of the data, recorded by tunings.
    """

    grades: np.ndarray
    doc_ids: np.ndarray
    levels: np.ndarray
    qrels_level: np.ndarray
    qrels_offsets: np.ndarray
    systems: tuple[str, ...]
    topics: tuple[str, ...]
    n_retrieved: np.ndarray
    missing: str = "zero"
    report: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        S, T, K = self.grades.shape
        if self.doc_ids.shape != self.grades.shape:
            raise ValueError(f"`doc_ids` shape {self.doc_ids.shape} differs from `grades` shape {self.grades.shape}")
        if len(self.systems) != S or len(self.topics) != T:
            raise ValueError(
                f"{len(self.systems)} system labels and {len(self.topics)} topic labels for a tensor of shape {self.grades.shape}"
            )
        if self.qrels_offsets.shape != (T + 1,) or self.qrels_offsets[-1] != self.qrels_level.size:
            raise ValueError("`qrels_offsets` must have n_topics + 1 entries ending at len(qrels_level)")
        if self.missing not in ("zero", "exclude"):
            raise ValueError(f"`missing` must be 'zero' or 'exclude'; got {self.missing!r}")
        lv = np.asarray(self.levels)
        if lv.ndim != 1 or lv.dtype.kind not in "iuf" or not np.isfinite(lv).all() or np.any(np.diff(lv) <= 0):
            raise ValueError(f"`levels` must be the distinct finite grades in ascending order; got {lv.tolist()[:10]}")

    # ------------------------------------------------------------------------------------------------ shape
    @property
    def shape(self) -> tuple[int, int, int]:
        return self.grades.shape  # type: ignore[return-value]

    @property
    def n_systems(self) -> int:
        return self.grades.shape[0]

    @property
    def n_topics(self) -> int:
        return self.grades.shape[1]

    @property
    def depth(self) -> int:
        return self.grades.shape[2]

    def __repr__(self) -> str:
        return (
            f"JudgedRuns({self.n_systems} systems × {self.n_topics} topics × depth {self.depth}, "
            f"grades {[float(v) for v in self.levels]}, {self.qrels_level.size} judgments, missing={self.missing!r})"
        )

    def _repr_html_(self) -> str:
        from gtheory.kit.display import kv_table

        return kv_table("JudgedRuns", {
            "systems": self.n_systems, "topics": self.n_topics, "depth": self.depth,
            "grades": ", ".join(f"{float(v):g}" for v in self.levels), "judgments": self.qrels_level.size,
            "missing topics": "score 0" if self.missing == "zero" else "excluded",
            "description": str(self.report.get("description") or self.report.get("loaded_from") or "")})

    def summary(self) -> str:
        """What the tensor holds, as text: systems, topics, depth, grades and the judgments per grade, relevant
        documents per topic, the missing-topic policy, judgment coverage (:attr:`coverage`) and what
        :func:`judge` ignored or noticed (topics a run does not return, run topics not in the qrels, topics without a
        relevant document, rows cut by the depth, duplicates dropped)."""
        def some(items: Sequence, show: int = 8) -> str:
            items = list(items)
            return ", ".join(map(str, items[:show])) + (f" and {len(items) - show} more" if len(items) > show else "")

        per_grade = self.level_counts.sum(axis=0)
        R = self.n_relevant()
        lines = [
            f"JudgedRuns: {self.n_systems} systems x {self.n_topics} topics x depth {self.depth}",
            "judgments per grade: " + ", ".join(f"{float(v):g}: {int(n)}" for v, n in zip(self.levels, per_grade))
            + f" ({int(per_grade.sum())} in all)",
            f"relevant documents per topic (grade >= 1): mean {R.mean():.1f}, min {int(R.min())}, max {int(R.max())}"
            if R.size else "relevant documents per topic: no topics",
            "a topic a run does not return: " + ("scores 0 (as trec_eval -c)" if self.missing == "zero"
                                                 else "excluded (NaN; as trec_eval without -c)"),
            self.coverage.one_line(),
        ]
        missed = {s: t for s, t in zip(self.systems, self.n_retrieved == 0) if t.any()}
        if missed:
            lines.append(f"runs that miss some qrels topics: {len(missed)} ({some(missed)})")
        report = self.report
        notes = (("run topics not in the qrels (ignored)", report.get("run_topics_not_in_qrels")),
                 ("topics without a relevant document", report.get("topics_without_relevant")),
                 ("rows ranked below the depth (not read)", report.get("rows_beyond_depth")),
                 ("repeated lines dropped", report.get("duplicates_dropped")),
                 ("run files with several run tags (read as one system per file)", report.get("mixed_tags")))
        for what, value in notes:
            if value:
                lines.append(f"{what}: " + (some(f"{k} ({len(v) if isinstance(v, list) else v})"
                                                  for k, v in value.items()) if isinstance(value, dict)
                                             else some(value)))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    # ------------------------------------------------------------------------------------------------ qrels
    @cached_property
    def level_counts(self) -> np.ndarray:
        """(n_topics, n_levels) int64: judged documents per topic and grade level."""
        L = self.levels.size
        topic_of = np.repeat(np.arange(self.n_topics), np.diff(self.qrels_offsets))
        return np.bincount(topic_of * L + self.qrels_level, minlength=self.n_topics * L).reshape(self.n_topics, L)

    def n_relevant(self, relevance_level: float = 1) -> np.ndarray:
        """R per topic: judged documents with grade ≥ ``relevance_level`` (trec_eval's ``-l``, default 1)."""
        return self.level_counts[:, self.levels >= relevance_level].sum(axis=1)

    def n_nonrelevant(self, relevance_level: float = 1) -> np.ndarray:
        """N per topic: judged documents with grade < ``relevance_level`` (trec_eval's ``num_nonrel``).

        Grades ≤ -1 are pooled-but-unjudged in trec_eval (:func:`pooled_unjudged`) and are not counted.
        """
        return self.level_counts[:, ~pooled_unjudged(self.levels) & (self.levels < relevance_level)].sum(axis=1)

    @property
    def retrieved(self) -> np.ndarray:
        """(n_systems, n_topics) bool: the run returned at least one document for the topic."""
        return self.n_retrieved > 0

    def level_values(
        self, values: np.ndarray, *, unjudged: float = 0.0, absent: float = 0.0, ranks: int | None = None
    ) -> np.ndarray:
        """Map per-level ``values`` (n_levels,) onto the tensor: float64 (n_systems, n_topics, depth).

        ``unjudged`` and ``absent`` are the values given to the two sentinels. ``ranks`` maps only the first
        ``ranks`` ranks (the gather then touches only those, e.g. for a cut-off).
        """
        table = np.empty(self.levels.size + 2, dtype=np.float64)
        table[: self.levels.size] = values
        table[ABSENT] = absent
        table[UNJUDGED] = unjudged
        return table[self.grades if ranks is None else self.grades[..., :ranks]]

    @cached_property
    def coverage(self) -> Coverage:
        """Judged share of the retrieved documents per run and cut-off, and the topic mismatches
        (:class:`~metrics.io.coverage.Coverage`). Computed from the tensor, so equal after ``save``/``load`` and
        recomputed for a ``subset``; the run topics absent from the qrels are known only to :func:`judge`."""
        return coverage(self)

    @cached_property
    def fingerprint(self) -> str:
        """A stable hash of the data (qrels and runs as judged): ``"jr1:"`` + 32 hex digits of BLAKE2b over the
        system and topic labels, the grade levels, the judgments per topic and grade (:attr:`level_counts`), the
        list lengths and the judged-grade tensor with its document identities.

        Document identities are hashed in a canonical numbering (per topic, in order of first appearance over
        systems and ranks), so the fingerprint does not depend on the order of the qrels lines. Equal for equal data
        whatever the route (files, DataFrames, dicts, ``save``/``load``); different after ``subset`` or
        ``restrict_judgments``. Not the ``missing`` policy (a way to score, not data). Used by tunings to notice
        that they are applied to other data than they were tuned on.
        """
        import hashlib

        h = hashlib.blake2b(digest_size=16)
        for labels in (self.systems, self.topics):
            h.update("\x1f".join(labels).encode("utf-8") + b"\x1e")
        for arr, dt in ((self.levels, "<f8"), (self.level_counts, "<i8"), (self.n_retrieved, "<i4"),
                        (self.grades, "i1"), (self._canonical_ids(), "<i4")):
            a = np.ascontiguousarray(arr, dtype=dt)
            h.update(repr(a.shape).encode() + a.tobytes())
        return "jr1:" + h.hexdigest()

    def _canonical_ids(self) -> np.ndarray:
        """``doc_ids`` renumbered per topic by first appearance (topic-major, then system, then rank); -1 kept."""
        ids = np.ascontiguousarray(self.doc_ids.transpose(1, 0, 2), dtype=np.int64)  # (T, S, K)
        T = ids.shape[0]
        flat = ids.reshape(T, -1)
        pos = np.flatnonzero(flat.ravel() >= 0)
        out = np.full(flat.size, -1, dtype=np.int64)
        if pos.size:
            width = int(flat.max()) + 1
            key = (pos // flat.shape[1]) * width + flat.ravel()[pos]  # topic * width + id, in position order
            uniq, first, inv = np.unique(key, return_index=True, return_inverse=True)
            by_first = np.argsort(first, kind="stable")  # unique documents in order of first appearance
            topic_of = uniq[by_first] // width
            start = np.searchsorted(topic_of, np.arange(T))  # topic-major positions: topics stay grouped
            label = np.empty(uniq.size, dtype=np.int64)
            label[by_first] = np.arange(uniq.size) - start[topic_of]
            out[pos] = label[inv.ravel()]
        return out.reshape(ids.shape).transpose(1, 0, 2)

    # ------------------------------------------------------------------------------------------ derived views
    def condensed(self) -> "JudgedRuns":
        """The condensed lists (Sakai 2007): unjudged documents removed, the rest moved up (trec_eval ``-J``).

        Documents with a grade ≤ -1 are *pooled but unjudged* in trec_eval (``form_res_rels.c``) and ``-J``
        drops them too; so does this. Cached: repeated calls return the same object.
        """
        cached = self.__dict__.get("_condensed")
        if cached is not None:
            return cached
        table = np.zeros(self.levels.size + 2, dtype=bool)
        table[: self.levels.size] = pooled_unjudged(self.levels)
        table[UNJUDGED] = True
        S, T, K = self.grades.shape
        step = max(1, _CONDENSE_BLOCK // max(T * K, 1))  # systems per block: the temporaries stay small
        # first pass: whether anything is dropped, and the longest condensed list (its real documents)
        any_drop, keep = False, 0
        for s0 in range(0, S, step):
            G = self.grades[s0:s0 + step]
            drop = table[G]
            if drop.any():
                any_drop = True
            drop |= G == ABSENT
            keep = max(keep, K - int(np.count_nonzero(drop, axis=-1).min(initial=K)))
        if not any_drop:
            out = self
        else:
            keep = max(keep, 1)
            g_out = np.full((S, T, keep), ABSENT, dtype=self.grades.dtype)
            d_out = np.full((S, T, keep), -1, dtype=self.doc_ids.dtype)
            slots = np.arange(keep)
            for s0 in range(0, S, step):
                G = self.grades[s0:s0 + step]
                kept = ~table[G]
                # the kept documents move up in rank order; a list longer than `keep` (kept absent slots
                # before its last real document) is cut there, as slicing the sorted lists did
                n = np.minimum(np.count_nonzero(kept, axis=-1), keep)
                if keep < K:
                    pos = np.cumsum(kept, axis=-1, dtype=np.int16 if K < 2 ** 15 else np.int32)
                    kept &= pos <= keep
                dest = slots < n[..., None]
                g_out[s0:s0 + step][dest] = G[kept]
                d_out[s0:s0 + step][dest] = self.doc_ids[s0:s0 + step][kept]
            out = replace(self, grades=g_out, doc_ids=d_out, report={**self.report, "condensed": True})
        object.__setattr__(self, "_condensed", out)
        return out

    def subset(self, systems: Sequence[str] | np.ndarray | None = None, topics: Sequence[str] | np.ndarray | None = None,
               *, repeats: bool = False) -> "JudgedRuns":
        """A new JudgedRuns restricted to some systems and/or topics (labels, integer positions or boolean masks).

        A system or topic selected twice is refused unless ``repeats=True`` (by mistake, it would count twice in
        every mean and G-study): with ``repeats=True`` — a resample with replacement, identical systems for a
        test — the second copy of ``"CWI0000"`` is named ``"CWI0000~2"``, the third ``"CWI0000~3"``, so names stay
        distinct. The new ``report["subset"]`` records how many systems and topics were kept of the original
        data's (``{"systems": [12, 104], "topics": [50, 50]}``), through repeated subsets.
        """
        si = self._select(systems, self.systems, "systems")
        ti = self._select(topics, self.topics, "topics")
        names = {}
        for idx, labels, what in ((si, self.systems, "systems"), (ti, self.topics, "topics")):
            seen, counts = np.unique(idx, return_counts=True)
            names[what] = tuple(labels[i] for i in idx)
            if (counts > 1).any():
                if not repeats:
                    twice = [labels[i] for i in seen[counts > 1]]
                    raise ValueError(f"`{what}` selects {len(twice)} {what[:-1]}(s) more than once (first: "
                                     f"{twice[0]!r}); each may be selected once, or pass repeats=True for copies "
                                     "under distinct names (a resample with replacement).")
                copy: dict[str, int] = {}
                renamed = []
                for name in names[what]:
                    copy[name] = copy.get(name, 0) + 1
                    renamed.append(name if copy[name] == 1 else f"{name}~{copy[name]}")
                names[what] = tuple(renamed)
        before = self.report.get("subset") or {"systems": [self.n_systems] * 2, "topics": [self.n_topics] * 2}
        subset = {"systems": [len(si), before["systems"][1]], "topics": [len(ti), before["topics"][1]]}
        starts, ends = self.qrels_offsets[ti], self.qrels_offsets[ti + 1]
        lens = ends - starts
        flat = np.repeat(starts - np.r_[0, np.cumsum(lens)[:-1]], lens) + np.arange(lens.sum())
        return replace(
            self,
            grades=self.grades[np.ix_(si, ti)],
            doc_ids=self.doc_ids[np.ix_(si, ti)],
            qrels_level=self.qrels_level[flat],
            qrels_offsets=np.r_[0, np.cumsum(lens)].astype(np.int64),
            systems=names["systems"],
            topics=names["topics"],
            n_retrieved=self.n_retrieved[np.ix_(si, ti)],
            report={**self.report, "subset": subset},
        )

    @staticmethod
    def _select(sel, labels: tuple[str, ...], what: str) -> np.ndarray:
        n = len(labels)
        if sel is None:
            return np.arange(n)
        arr = np.asarray(sel)
        if arr.dtype == bool:
            if arr.shape != (n,):
                raise ValueError(f"boolean `{what}` mask has shape {arr.shape}; expected ({n},)")
            return np.flatnonzero(arr)
        if arr.dtype.kind in "iu":
            if arr.size and (arr.min() < -n or arr.max() >= n):
                raise IndexError(f"`{what}` positions out of range for {n} {what}")
            return arr.astype(np.int64) % max(n, 1)
        pos = {lab: i for i, lab in enumerate(labels)}
        unknown = [str(x) for x in arr.tolist() if str(x) not in pos]
        if unknown:
            raise KeyError(f"unknown {what}: {unknown[:5]}{' ...' if len(unknown) > 5 else ''}")
        return np.array([pos[str(x)] for x in arr.tolist()], dtype=np.int64)

    def restrict_judgments(self, keep: np.ndarray) -> "JudgedRuns":
        """Forget some judgments: ``keep`` is a boolean array over all judged documents (``qrels_level`` order).

        Documents whose judgment is dropped become :data:`UNJUDGED` wherever they were retrieved; the remaining
        judged documents are renumbered per topic. Used by incompleteness studies (Buckley & Voorhees 2004).
        """
        keep = np.asarray(keep)
        if keep.dtype != bool or keep.shape != self.qrels_level.shape:
            raise ValueError(f"`keep` must be a boolean array of shape {self.qrels_level.shape}; got {keep.dtype} {keep.shape}")
        new_flat = np.cumsum(keep) - 1
        topic_of = np.repeat(np.arange(self.n_topics), np.diff(self.qrels_offsets))
        counts = np.bincount(topic_of[keep], minlength=self.n_topics)
        new_offsets = np.r_[0, np.cumsum(counts)].astype(np.int64)
        judged = self.doc_ids >= 0
        flat = np.where(judged, self.doc_ids + self.qrels_offsets[:-1][None, :, None], 0)
        kept = judged & keep[flat]
        new_ids = np.where(kept, new_flat[flat] - new_offsets[:-1][None, :, None], -1).astype(self.doc_ids.dtype)
        grades = np.where(judged & ~kept, np.int8(UNJUDGED), self.grades).astype(np.int8)
        return replace(
            self,
            grades=grades,
            doc_ids=new_ids,
            qrels_level=self.qrels_level[keep],
            qrels_offsets=new_offsets,
            report={**self.report, "judgments_kept": int(keep.sum()), "judgments_total": int(keep.size)},
        )

    # ------------------------------------------------------------------------------------------------- io
    def save(self, path: PathLike, *, sources: Mapping[str, Any] | None = None) -> None:
        """Save as ``.npz`` (zlib-compressed; no pickles), or as ``.npz.xz`` (LZMA, about 30 % smaller).

        ``sources``, a JSON-serialisable mapping (``gtheory judge`` records the run and qrels files with their
        sizes and SHA-256 hashes, and the judging options), is stored beside the arrays as a JSON text and comes
        back as ``report["sources"]`` from :meth:`load`, so that a reader can tell whether the files it was made
        from changed since.

        Document ids are stored only where a judged document sits (they are implied -1 elsewhere). The file
        is written atomically (a temporary file beside it, renamed at the end); an existing device, named pipe or
        ``/dev/stdout`` is written through, as named, and never replaced (:mod:`gtheory.kit.output`).
        """
        arrays = dict(
            format_version=np.array(_FORMAT_VERSION),
            grades=self.grades,
            judged_ids=self.doc_ids[self.grades >= 0],
            doc_id_dtype=np.array(self.doc_ids.dtype.str),
            levels=self.levels,
            qrels_level=self.qrels_level,
            qrels_offsets=self.qrels_offsets,
            systems=np.array(self.systems, dtype=str),
            topics=np.array(self.topics, dtype=str),
            n_retrieved=self.n_retrieved,
            missing=np.array(self.missing),
        )
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

    @classmethod
    def load(cls, path: PathLike) -> "JudgedRuns":
        """Load a tensor written by :meth:`save` (``.npz`` or ``.npz.xz``).

        Raises
        ------
        FileNotFoundError
            No such file.
        metrics.FixableError
            (a ``ValueError``) naming the file and the problem: not a saved tensor (a text file, e.g. qrels or a run:
            ``err.fix`` is ``{"qrels": ...}``), a damaged or truncated archive, a missing array, or arrays that do
            not make a tensor (float grade codes, a code beyond the levels table, non-finite levels, ...).
        """
        p = Path(path)
        if not p.exists():
            raise FileNotFoundError(f"no such file: {p}")
        if p.is_dir():
            raise IsADirectoryError(f"{p}: is a directory; give a file written by JudgedRuns.save (.npz)")
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
        return _from_saved(cls, arrays, p)


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


def _from_saved(cls: type, z: dict, p: Path) -> "JudgedRuns":
    """The tensor of the arrays of a saved file, every array checked (dtype, shape, range): one error naming the
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
    return cls(grades=grades, doc_ids=doc_ids, levels=levels, qrels_level=qrels_level.astype(np.int8, copy=False),
               qrels_offsets=offsets.astype(np.int64, copy=False), systems=names["systems"], topics=names["topics"],
               n_retrieved=n_ret.astype(np.int32, copy=False), missing=str(missing),
               report=report)


# ------------------------------------------------------------------------------------------------------- judge
_WHAT = {"runs": "run files, a directory of runs, a RunSet, or runs in memory (a DataFrame or a dict)",
         "qrels": "a qrels file, a Qrels, or qrels in memory (a DataFrame or a dict)"}


def check_judged(judged: object) -> JudgedRuns:
    """``judged`` itself if it is a :class:`metrics.JudgedRuns`; otherwise a TypeError naming ``judged`` and the
    type given."""
    if not isinstance(judged, JudgedRuns):
        raise TypeError(f"`judged` must be a metrics.JudgedRuns (from metrics.judge); got {type(judged).__name__}")
    return judged


@validate_params()
def judge(
    runs: RunSet | Sequence[Run] | PathLike | Sequence[PathLike],
    qrels: Qrels | PathLike,
    depth: int | None = None,
    *,
    missing: Missing = "zero",
    topics: Sequence[str] | None = None,
    ties: str = "trec_eval",
    duplicates: str = "error",
    workers: int | None = None,
    grades: str = "exact",
    progress: bool | str | Callable[[str], Any] = "auto",
) -> JudgedRuns:
    """Build the judged-grade tensor of ``runs`` against ``qrels``.

    Parameters
    ----------
    runs : a :class:`RunSet` from :func:`read_runs`, or run file paths / a directory of runs (then files are read,
        parsed and judged in ``workers`` processes, with ``ties`` and ``duplicates`` as in :func:`read_run`), or runs
        in memory (:mod:`metrics.io.inputs`): a DataFrame ``query_id, doc_id, score[, run]`` (or ``topic, docno,
        score[, system]``), a dict ``{qid: {docid: score}}`` or ``{system: {qid: {docid: score}}}``, an iterable of
        ``ScoredDoc`` named tuples (ir_datasets' ``scoreddocs_iter()``), ranked by the same rules as files.
    qrels : a :class:`Qrels`, the path of a qrels file, or qrels in memory: a DataFrame ``query_id, doc_id,
        relevance`` (or ``topic, docno, grade``), a dict ``{qid: {docid: grade}}`` or ``Qrel`` named tuples
        (ir_datasets' ``qrels_iter()``).
    depth : ranks kept per topic (trec_eval's ``-M``). ``None`` (default) keeps 1000, the TREC limit, and warns
        :class:`DepthWarning` when some run ranks documents below 1000: trec_eval's own default is no limit, so on
        such runs AP, recall and NumRet differ from trec_eval without ``-M``. An explicit ``depth`` (1000 as
        ``trec_eval -M 1000``, or more) cuts silently. The rows cut per run are in ``report["rows_beyond_depth"]``.
        The tensor's depth is the smaller of this and the deepest ranked list.
    missing : policy for a qrels topic that a run does not return: ``"zero"`` (default) scores it 0 in every measure,
        as ``trec_eval -c`` does (RBP's residual is then 1: the whole weight is unexamined); ``"exclude"`` makes
        measures give NaN for it.
    topics : evaluate only these qrels topics (default: every topic in the qrels, in natural order).
    grades : ``"exact"`` (default) keeps real-valued grades exactly and warns once
        (:class:`metrics.FractionalGradeWarning`) when some are not integers; ``"trec_eval"`` truncates
        them towards 0 as trec_eval's ``atol`` does (1.9 → 1), for trec_eval's numbers.
    ties, duplicates : how run files are read (see :func:`read_run`). With ``duplicates="error"`` every run file
        is read before the error, which lists each file that repeats a docno with its count (``err.counts``).
    workers : processes reading run files (default: the number of CPUs; ``1`` reads in this process).
    progress : ``"auto"`` (default) shows a progress bar on stderr when reading run files takes more than about 2
        seconds and stderr is a terminal (never into a pipe or a log file); ``True`` shows it anyway, ``False``
        never; a callable receives a message per run read instead.

    Returns
    -------
    JudgedRuns
        ``report`` lists run topics absent from the qrels (ignored, as trec_eval does), qrels topics a run misses,
        topics with no relevant document, and rows cut by ``depth``; ``coverage`` the judged share of what the runs
        retrieved (:class:`~metrics.io.coverage.Coverage`).

    Raises
    ------
    metrics.InputMismatchError
        The runs and qrels share no topic, or no run retrieved a judged document (the message quotes a topic or a
        docno of each side); a run without any judged document, or less than half of the top-10 documents judged,
        warns (:class:`metrics.LowCoverageWarning`).
    TrecFormatError
        A malformed run or qrels file (naming file, line and problem).
    ValueError
        Two runs with one system name, bad options.

    Notes
    -----
    Topics are those of the qrels: a topic that only appears in runs is ignored (counted in ``report``). Ranks follow
    the order the runs were read with (trec_eval's score-descending, docno-descending order by default). Run files
    are read one at a time into a tensor allocated once, so memory stays close to the final tensor's size.
    """
    for arg, value in (("runs", runs), ("qrels", qrels)):
        if value is None or isinstance(value, (bool, int, float, bytes)):
            raise TypeError(f"`{arg}` must be {_WHAT[arg]}; got {'None' if value is None else type(value).__name__}")
    warn_cut = depth is None
    depth = DEFAULT_DEPTH if depth is None else depth
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise ValueError(f"`depth` must be a positive integer; got {depth!r}")
    check_read_options(ties, duplicates)
    if missing not in ("zero", "exclude"):
        raise ValueError(f"`missing` must be 'zero' or 'exclude'; got {missing!r}")
    if is_in_memory(qrels, (Run, RunSet, Qrels), (Run,)):  # DataFrame, {qid: {docid: grade}} or Qrel named tuples
        qrels = read_qrels(qrels)
    if is_in_memory(runs, (Run, RunSet, Qrels), (Run,)):  # DataFrame, {qid: {docid: score}} dicts or ScoredDoc tuples
        runs = runs_from_memory(runs, ties=ties, duplicates=duplicates)
    elif isinstance(runs, Run):
        runs = [runs]
    if not isinstance(qrels, Qrels):
        qrels = read_qrels(qrels)
    qrels = apply_grade_policy(qrels, grades)
    qi = _build.index_qrels(qrels, topics)
    depth = int(depth)
    files = None
    if isinstance(runs, RunSet) or (isinstance(runs, (list, tuple)) and runs and all(isinstance(r, Run) for r in runs)):
        run_list = list(runs)
        names = [r.name for r in run_list]
        _check_unique_names(names, [r.path for r in run_list], "runs")
        results = (_build.judge_run(r, qi, depth) for r in run_list)
    else:
        files = _expand(runs)
        names = [_run_name(f) for f in files]
        _check_unique_names(names, [str(f) for f in files], "files")
        results = _build.judge_files(files, qi, depth, ties, duplicates, workers)
    if not names:
        raise ValueError("no runs to judge")
    show = check_progress(progress)
    bar = _build.Progress(len(names), False if isinstance(runs, RunSet) else show)
    tensor, pieces = _build.build(results, len(names), qi, depth, bar)
    found = [r.duplicate for r in pieces if r.duplicate is not None]
    if found:
        raise duplicate_error(found)
    grade_codes, ids, n_ret = tensor.arrays()
    judged = JudgedRuns(
        grades=grade_codes,
        doc_ids=ids,
        levels=qi.levels.astype(np.float64),
        qrels_level=qi.row_level,
        qrels_offsets=qi.offsets,
        systems=tuple(names),
        topics=qi.topics,
        n_retrieved=n_ret,
        missing=missing,
        report=_report(names, pieces, n_ret, qi, missing),
    )
    if files is None:
        get_run = list(runs).__getitem__
    else:  # files: read one again only to quote it in an error message
        get_run = lambda i: read_run(files[i], name=names[i], ties=ties, duplicates="first")  # noqa: E731
    check_coverage(judged, qrels, get_run, topics_selected=topics is not None)
    cut = judged.report["rows_beyond_depth"]
    if warn_cut and cut:
        total = sum(cut.values())
        some = ", ".join(f"{k} ({v})" for k, v in list(cut.items())[:5]) + (f" and {len(cut) - 5} more" if len(cut) > 5
                                                                            else "")
        warnings.warn(DepthWarning(
            f"{total} row(s) ranked below {depth} were not read, in {len(cut)} run(s): {some}. trec_eval without -M "
            "evaluates them, so AP, recall and NumRet can differ from its numbers",
            param="depth", fix={"depth": ...}, advice=f"pass depth={depth} to keep the TREC limit without this "
            "warning (trec_eval -M), or a larger depth to read them"), stacklevel=2)
    return judged


def _check_unique_names(names: list[str], sources: list[str], what: str) -> None:
    """Two runs with one system name would be two rows with one label: refused, naming both sources."""
    if len(set(names)) == len(names):
        return
    first: dict[str, str] = {}
    clashes = []
    for nm, src in zip(names, sources):
        if nm in first:
            clashes.append(f"{nm!r}: {first[nm]} and {src}")
        else:
            first[nm] = src
    dup = sorted({n for n in names if names.count(n) > 1})
    if what == "files":
        raise FixableError(f"several run files give the same system name(s) {dup} ({'; '.join(clashes)})",
                           fix={"names": ...}, advice="read them with read_runs(names=...)")
    raise ValueError(
        f"several runs have the same name(s) {dup} ({'; '.join(clashes)}); each run is one system: give each "
        "Run a distinct `name`"
    )


def _report(names: list[str], pieces: list, n_ret: np.ndarray, qi, missing: str) -> dict:
    missing_topics = {nm: [qi.topics[t] for t in np.flatnonzero(n_ret[i] == 0)] for i, nm in enumerate(names)}
    rel_levels = qi.levels > 0
    has_rel = np.zeros(len(qi.topics), dtype=bool)
    if qi.row_level.size:
        topic_of = np.repeat(np.arange(len(qi.topics)), np.diff(qi.offsets))
        has_rel[topic_of[rel_levels[qi.row_level]]] = True
    return {
        "run_topics_not_in_qrels": {nm: r.unknown_topics for nm, r in zip(names, pieces) if r.unknown_topics},
        "qrels_topics_missing_from_run": {k: v for k, v in missing_topics.items() if v},
        "topics_without_relevant": [qi.topics[t] for t in np.flatnonzero(~has_rel)],
        "rows_beyond_depth": {nm: r.beyond_depth for nm, r in zip(names, pieces) if r.beyond_depth},
        "duplicates_dropped": {nm: r.dropped for nm, r in zip(names, pieces) if r.dropped},
        "mixed_tags": {nm: list(r.tags) for nm, r in zip(names, pieces) if r.tags},
        "missing_policy": missing,
    }
