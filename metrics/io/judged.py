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

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Mapping, Sequence

import numpy as np

from ._grades import ABSENT, UNJUDGED, pooled_unjudged
from .coverage import Coverage, coverage
from .saved import read_saved, write_saved
from .trec_lines import PathLike

__all__ = ["JudgedRuns", "UNJUDGED", "ABSENT", "check_judged"]

#: tensor elements per block of :meth:`JudgedRuns.condensed` (bounds its temporaries to a few MB)
_CONDENSE_BLOCK = 1 << 20


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
        report = self.report if isinstance(self.report, dict) else {}
        return coverage(self.grades, self.retrieved, self.systems, self.topics, report.get("run_topics_not_in_qrels"))

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
        write_saved(path, {
            "grades": self.grades, "judged_ids": self.doc_ids[self.grades >= 0],
            "doc_id_dtype": np.array(self.doc_ids.dtype.str), "levels": self.levels, "qrels_level": self.qrels_level,
            "qrels_offsets": self.qrels_offsets, "systems": np.array(self.systems, dtype=str),
            "topics": np.array(self.topics, dtype=str), "n_retrieved": self.n_retrieved,
            "missing": np.array(self.missing)}, sources)

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
        return cls(**read_saved(path))


def check_judged(judged: object) -> JudgedRuns:
    """``judged`` itself if it is a :class:`metrics.JudgedRuns`; otherwise a TypeError naming ``judged`` and the
    type given."""
    if not isinstance(judged, JudgedRuns):
        raise TypeError(f"`judged` must be a metrics.JudgedRuns (from metrics.judge); got {type(judged).__name__}")
    return judged
