"""The sparse "relevant cells" view of a judged-grade tensor, used by nDCG, its sweeps and its tuning.

A document contributes to DCG only where its gain is non-zero, and gains are 0 for unjudged and absent documents and
(for every named family) for grades ≤ 0. Deep in the lists such documents are rare (10 % of TREC-9's top 100 ranks,
2.4 % of its top 1000), so instead of mapping gains onto the whole (systems, topics, ranks) tensor we keep, per level
code, the (cell, rank) pairs where that level sits:

.. math::

    \\mathrm{DCG}_k(s, t) = \\sum_{l} g_l\\, C^{(l)}_{st}(d, k), \\qquad
    C^{(l)}_{st}(d, k) = \\sum_{r \\le k,\\; x_{s,t,r} = l} d_r ,

the *per-grade discounted counts* :math:`C^{(l)}` (one sparse matrix–vector product each, over the documents of
grade :math:`l` only). A gain-only sweep reuses them: for a fixed discount and cut-off every further gain vector
costs one (cells × levels) @ (levels,) product. The ideal DCG of topic :math:`t` comes from its grade counts and the
prefix sums :math:`P_m = \\sum_{r \\le m} d_r` of the discount: with the positive-gain levels in gain-descending
order and cumulative counts :math:`c_{t,j}`,

.. math::

    \\mathrm{IDCG}_k(t) = \\sum_j g_{(j)} \\left(P_{\\min(c_{t,j}, k)} - P_{\\min(c_{t,j-1}, k)}\\right).

Nothing here allocates a cells × cut-off float64 array: the entries are built from the int8 tensor a block of systems
at a time, and a per-level pattern (CSR, cells × k) holds only that level's documents. Definitions as
:mod:`metrics.measures.ndcg` (Järvelin & Kekäläinen 2002; trec_eval's ideal ranking).
"""
from __future__ import annotations

import sys
import threading
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING

import numpy as np

from .discounts import DiscountSpec, discount_vector
from .gains import GainSpec, gain_vector
from ..io import JudgedRuns

if TYPE_CHECKING:  # SciPy's sparse matrices are imported where one is built (pattern, matvec), not to evaluate nDCG
    import scipy.sparse as sp

__all__ = ["RelevantCells", "relevant_cells", "ideal_dcg", "active_codes", "matvec"]

#: tensor elements scanned per block when collecting the entries (bounds the temporary bool mask to ~8 MB)
_SCAN_BLOCK = 1 << 23
#: per-level patterns and discounted counts kept per tensor (least recently used dropped first)
_PATTERNS_KEPT = 16
_COUNTS_KEPT = 32
#: parsed gain / discount specifications kept per view (small: a sweep repeats a few at a time)
_SPECS_KEPT = 16
#: discounted counts of a view computed with NumPy before the CSR kernel takes over (RelevantCells.discounted_counts)
_NUMPY_COUNTS = 16

_CACHE: "weakref.WeakKeyDictionary[JudgedRuns, RelevantCells]" = weakref.WeakKeyDictionary()
_CACHE_LOCK = threading.Lock()


_CSR_MATVEC: list = []  # SciPy's compiled CSR kernel (None: a SciPy without it), looked up at the first matvec


def _csr_kernel():
    """``scipy.sparse._sparsetools.csr_matvec``, called without the ~8 µs of Python dispatch around ``A @ x``
    (imported on first use: nDCG itself needs no SciPy, :meth:`RelevantCells.discounted_counts`)."""
    if not _CSR_MATVEC:
        try:
            from scipy.sparse._sparsetools import csr_matvec
        except ImportError:  # pragma: no cover - a SciPy without it: the public operator
            csr_matvec = None
        _CSR_MATVEC.append(csr_matvec)
    return _CSR_MATVEC[0]


def matvec(A: sp.csr_matrix, x: np.ndarray) -> np.ndarray:
    """``A @ x`` for a canonical CSR ``A`` and a contiguous float64 ``x`` (the same kernel and summation order)."""
    _csr_matvec = _csr_kernel()
    if _csr_matvec is None or A.data.dtype != np.float64:
        return np.asarray(A @ x)
    y = np.zeros(A.shape[0])
    _csr_matvec(A.shape[0], A.shape[1], A.indptr, A.indices, A.data, x, y)
    return y


def active_codes(gains: np.ndarray) -> np.ndarray:
    """The level codes whose gain is non-zero (the only documents DCG has to visit)."""
    return np.flatnonzero(np.asarray(gains) != 0)


def _ideal_order(gains: np.ndarray) -> np.ndarray:
    """The positive-gain level codes in the ideal ranking's order: gain descending (ties: level ascending)."""
    pos = np.flatnonzero(gains > 0)
    return pos[np.argsort(-gains[pos], kind="stable")] if pos.size > 1 else pos


def _ideal_from_cum(cum: np.ndarray, gains: np.ndarray, d: np.ndarray) -> np.ndarray:
    """IDCG from the cumulative counts ``cum`` (T, J) of the ideal order's levels and their ``gains`` (J,):
    :math:`\\sum_j (g_j - g_{j+1}) P_{\\min(c_{t,j}, k)}` (the module docstring's sum, telescoped)."""
    k = d.size
    prefix = np.empty(k + 1)
    prefix[0] = 0.0
    np.cumsum(d, out=prefix[1:])
    steps = np.empty(gains.size)
    steps[:-1] = gains[:-1] - gains[1:]
    steps[-1] = gains[-1]
    return prefix[np.minimum(cum, k)] @ steps


def ideal_dcg(level_counts: np.ndarray, gains: np.ndarray, d: np.ndarray) -> np.ndarray:
    """IDCG per topic for per-level ``gains`` and the discount ``d`` of ranks 1..len(d) (module docstring).

    The ideal ranking lists every judged document with a positive gain, by gain descending (trec_eval's ideal);
    ranks past ``len(d)`` are cut off.
    """
    gains = np.asarray(gains, dtype=np.float64)
    order = _ideal_order(gains)
    if order.size == 0 or d.size == 0:
        return np.zeros(level_counts.shape[0])
    return _ideal_from_cum(np.cumsum(level_counts[:, order], axis=1), gains[order], d)


class RelevantCells:
    """Sparse view of a :class:`~metrics.JudgedRuns` (see the module docstring); get it with :func:`relevant_cells`.

    Attributes
    ----------
    n_systems, n_topics, depth : the tensor's shape (``depth``: ranks of the evaluated lists).
    levels : the distinct grades (``JudgedRuns.levels``); level codes index it.
    level_counts : (n_topics, n_levels) judged documents per topic and level (for the ideal ranking).
    """

    def __init__(self, judged: JudgedRuns) -> None:
        self._judged_ref = weakref.ref(judged)
        self.n_systems, self.n_topics, self.depth = judged.shape
        self.n_cells = self.n_systems * self.n_topics
        self.levels = np.asarray(judged.levels, dtype=np.float64)
        self.level_counts = judged.level_counts
        #: the most judged documents of any topic (the ideal ranking's length bound)
        self.max_judged = int(self.level_counts.sum(axis=1).max(initial=0))
        self._entries: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._patterns: OrderedDict = OrderedDict()
        self._counts: OrderedDict = OrderedDict()
        self._cum: dict[tuple[int, ...], np.ndarray] = {}  # per ideal order: its cumulative grade counts
        self._specs: dict[tuple, np.ndarray] = {}  # parsed gain / discount specifications (read-only vectors)
        # for gain vectors indexed by grade: the levels with a grade >= 0 and those grades (integer levels only)
        lv = self.levels
        integer = bool(np.all(lv == np.round(lv)) and np.all(np.abs(lv) < 2.0 ** 62))  # an index (1e20 is no int64)
        self._graded = np.flatnonzero(lv >= 0)
        self._grade_index = lv[self._graded].astype(np.int64) if integer else None
        self._max_grade = int(lv.max(initial=0))
        self._n_counts = 0  # discounted counts computed (not from the cache)
        self._lock = threading.Lock()

    # ------------------------------------------------------------------------------------- specifications
    def _memo(self, key: tuple, make) -> np.ndarray:
        """``make()``, kept under ``key`` (read-only) among the last few specifications."""
        hit = self._specs.get(key)
        if hit is None:
            hit = make()  # raises for a bad specification: nothing is stored
            hit.setflags(write=False)
            if len(self._specs) >= _SPECS_KEPT:
                self._specs.clear()
            self._specs[key] = hit
        return hit

    def gains(self, gain: GainSpec) -> np.ndarray:
        """:func:`metrics.measures.gains.gain_vector` of ``gain`` for this tensor's levels, the same numbers, cheaper per call:
        a family name is parsed once (memoised, read-only); a plain list / tuple / float array indexed by grade, on
        integer grades it covers, is gathered directly (``vec[grade]``, 0 for grades < 0 — the pooled-but-unjudged
        ones) and checked finite; anything else, and every error, goes through ``gain_vector``."""
        if isinstance(gain, str):
            return self._memo(("gain", gain), lambda: gain_vector(gain, self.levels))
        if self._grade_index is not None and (type(gain) in (list, tuple) or type(gain) is np.ndarray):
            try:
                vec = np.asarray(gain, dtype=np.float64)
            except (TypeError, ValueError):
                vec = None
            if vec is not None and vec.ndim == 1 and vec.size > self._max_grade:
                if np.isfinite(vec).all():  # gain_vector refuses any non-finite entry, used by a grade or not
                    g = np.zeros(self.levels.size)
                    g[self._graded] = vec[self._grade_index]
                    return g
        return gain_vector(gain, self.levels)

    def discount(self, discount: DiscountSpec, n: int, cutoff: int | None) -> np.ndarray:
        """:func:`metrics.measures.discounts.discount_vector` ``(discount, n, cutoff=cutoff)`` (read-only), computed once per
        family name, length and cut-off; vectors are converted on every call."""
        if not isinstance(discount, str):
            return discount_vector(discount, n, cutoff=cutoff)
        return self._memo(("discount", discount, int(n), cutoff), lambda: discount_vector(discount, n, cutoff=cutoff))

    # ------------------------------------------------------------------------------------------- entries
    def _scan(self, codes: list[int]) -> None:
        """Collect (cell, rank) of every document whose level code is in ``codes``, a block of systems at a time."""
        judged = self._judged_ref()
        if judged is None:  # pragma: no cover - the tensor is alive while it is being evaluated
            raise RuntimeError("the JudgedRuns of this sparse view no longer exists")
        S, T, K = judged.shape
        table = np.zeros(self.levels.size + 2, dtype=bool)
        table[codes] = True  # the sentinels (-1, -2) index the last two slots: False
        step = max(1, _SCAN_BLOCK // max(T * K, 1))
        parts: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {c: [] for c in codes}
        for s0 in range(0, S, step):
            G = judged.grades[s0:s0 + step]
            flat = np.flatnonzero(table[G])
            code = G.reshape(-1)[flat]
            cell = (flat // K + s0 * T).astype(np.int32)
            rank = (flat % K).astype(np.int32)
            for c in codes:
                sel = code == c
                parts[c].append((cell[sel], rank[sel]))
        for c in codes:
            cells = np.concatenate([p[0] for p in parts[c]]) if parts[c] else np.zeros(0, np.int32)
            ranks = np.concatenate([p[1] for p in parts[c]]) if parts[c] else np.zeros(0, np.int32)
            self._entries[c] = (cells, ranks)

    def entries(self, code: int) -> tuple[np.ndarray, np.ndarray]:
        """``(cell, rank)`` (int32, 0-based rank) of every document of level ``code``, by cell then rank.

        ``cell = system * n_topics + topic``. The first request scans the tensor once for every level with a
        positive grade (and for this level if it is not one of them).
        """
        code = int(code)
        with self._lock:
            if code not in self._entries:
                wanted = [c for c in np.flatnonzero(self.levels > 0).tolist() if c not in self._entries]
                if code not in wanted:
                    wanted.append(code)
                self._scan(wanted)
            return self._entries[code]

    def n_entries(self, code: int, k: int | None = None) -> int:
        """Documents of level ``code`` (at ranks ≤ ``k`` if given)."""
        _, rank = self.entries(code)
        return int(rank.size if k is None else np.count_nonzero(rank < k))

    # ------------------------------------------------------------------------------------------ patterns
    def pattern(self, code: int, k: int, *, values: float = 1.0) -> sp.csr_matrix:
        """The (cells, k) CSR matrix holding ``values`` where level ``code`` sits at a rank ≤ k (0 elsewhere).

        Column indices are int32 and sorted within each row (the rank order), exactly as
        ``scipy.sparse.csr_matrix`` builds them from the dense matrix; cached for ``values == 1``.
        """
        import scipy.sparse as sp

        key = (int(code), int(k))
        if values == 1.0:
            with self._lock:
                hit = self._patterns.get(key)
                if hit is not None:
                    self._patterns.move_to_end(key)
                    return hit
        cell, rank = self.entries(code)
        if k < self.depth:
            keep = rank < k
            cell, rank = cell[keep], rank[keep]
        indptr = np.zeros(self.n_cells + 1, dtype=np.int64)
        np.cumsum(np.bincount(cell, minlength=self.n_cells), out=indptr[1:])
        if indptr[-1] <= np.iinfo(np.int32).max:
            indptr = indptr.astype(np.int32)
        data = np.full(rank.size, float(values))
        M = sp.csr_matrix((data, rank, indptr), shape=(self.n_cells, int(k)), copy=False)
        M.has_sorted_indices = True
        M.has_canonical_format = True
        if values == 1.0:
            with self._lock:
                self._patterns[key] = M
                while len(self._patterns) > _PATTERNS_KEPT:
                    self._patterns.popitem(last=False)
        return M

    def discounted_counts(self, code: int, d: np.ndarray, *, _key: bytes | None = None) -> np.ndarray:
        """:math:`C^{(l)}` (n_cells,): the discount mass of level ``code``'s documents at ranks 1..len(d).

        Cached by (level, discount vector): a sweep over gains with one discount and cut-off computes it once.
        ``pattern(code, len(d)) @ d`` (SciPy's CSR kernel, the pattern cached) once SciPy's sparse module is loaded or
        after the first :data:`_NUMPY_COUNTS` counts of this view (a sweep); before, ``np.bincount`` of the entries
        (4x slower per call, but no ``scipy.sparse`` import, ~0.1 s, for a command line's few nDCG). Both sum each
        cell's terms in rank order from 0: the same numbers bit for bit.
        """
        d = np.ascontiguousarray(d, dtype=np.float64)
        key = (int(code), d.size, d.tobytes() if _key is None else _key)
        hit = self._counts.get(key)
        if hit is not None:
            return hit
        self._n_counts += 1  # unlocked: only chooses between two kernels that give the same numbers
        if self._n_counts > _NUMPY_COUNTS or "scipy.sparse" in sys.modules:
            out = matvec(self.pattern(code, d.size), d)
        else:
            cell, rank = self.entries(code)  # by cell, then rank
            if d.size < self.depth:
                keep = rank < d.size
                cell, rank = cell[keep], rank[keep]
            out = np.bincount(cell, weights=d[rank], minlength=self.n_cells)  # sequential += in entry order
        out.setflags(write=False)
        with self._lock:
            self._counts[key] = out
            while len(self._counts) > _COUNTS_KEPT:
                self._counts.popitem(last=False)
        return out

    def ideal_dcg(self, gains: np.ndarray, d: np.ndarray) -> np.ndarray:
        """IDCG per topic (n_topics,) over ranks 1..len(d), as :func:`ideal_dcg` (the cumulative grade counts of
        each ideal order are cached; the order of a few levels is sorted in Python, faster than NumPy here)."""
        gl = np.asarray(gains, dtype=np.float64).tolist()
        order = tuple(sorted((i for i, x in enumerate(gl) if x > 0), key=lambda i: -gl[i]))  # stable: ties by level
        if not order or d.size == 0:
            return np.zeros(self.n_topics)
        cum = self._cum.get(order)
        if cum is None:
            if len(self._cum) >= _COUNTS_KEPT:
                self._cum.clear()
            cum = self._cum[order] = np.cumsum(self.level_counts[:, list(order)], axis=1)
        return _ideal_from_cum(cum, np.array([gl[i] for i in order]), d)

    def dcg(self, gains: np.ndarray, d: np.ndarray) -> np.ndarray:
        """DCG (n_systems, n_topics) over ranks 1..len(d): :math:`\\sum_l g_l C^{(l)}` (module docstring), summed
        over the levels with a non-zero gain in ascending level order."""
        terms = [(c, g) for c, g in enumerate(np.asarray(gains, dtype=np.float64).tolist()) if g != 0]
        if not terms or d.size == 0:
            return np.zeros((self.n_systems, self.n_topics))
        d = np.ascontiguousarray(d, dtype=np.float64)
        key = d.tobytes()
        out = None
        for c, g in terms:
            term = self.discounted_counts(c, d, _key=key) * g
            if out is None:
                out = term
            else:
                out += term
        return out.reshape(self.n_systems, self.n_topics)


def relevant_cells(judged: JudgedRuns, judged_only: bool = False) -> RelevantCells:
    """The :class:`RelevantCells` of ``judged`` (of its condensed lists with ``judged_only``), built once per tensor.

    Kept in a weak-keyed table beside the tensor (not in it, so pickling a tensor ships no cache).
    """
    j = judged.condensed() if judged_only else judged
    with _CACHE_LOCK:
        rc = _CACHE.get(j)
        if rc is None:
            rc = _CACHE[j] = RelevantCells(j)
    return rc
