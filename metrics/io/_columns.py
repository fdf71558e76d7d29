"""Whitespace-separated columns of a text file, found with NumPy on the raw bytes (no per-line Python).

The fast path of the TREC readers (:mod:`metrics.io.trec_runs`, :mod:`metrics.io.trec_qrels`). :func:`split_columns` locates every token of a file
with a handful of vectorised passes over its bytes and checks that each non-blank line has the expected number of
columns; a column then becomes a fixed-width byte array (:meth:`Columns.fixed`), a 64-bit hash per row
(:func:`hash_rows`) or float64 values (:func:`parse_decimals`) without creating a Python object per row.

Whitespace is ASCII space, tab, newline, carriage return, vertical tab and form feed, as in trec_eval. Files with
any other control byte (NUL included), and tokens longer than :data:`MAX_WIDTH` bytes, are left to the exact
string-based reader (:func:`split_columns` returns ``None``); so is anything this module cannot prove it handles
exactly (e.g. a hash collision): the fast path changes speed, never results.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

__all__ = ["Columns", "split_columns", "hash_rows", "parse_decimals", "MAX_WIDTH"]

#: tokens wider than this (bytes) send the file to the string-based reader
MAX_WIDTH = 64
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Columns:
    """Token positions of a file: ``starts[i, j]``/``ends[i, j]`` (end exclusive) of column ``j`` of record ``i``.

    ``buf`` holds the file's bytes (a read-only view of them); ``size`` is the file's length.
    """

    buf: np.ndarray
    size: int
    starts: np.ndarray
    ends: np.ndarray

    @property
    def n(self) -> int:
        return self.starts.shape[0]

    def lengths(self, j: int) -> np.ndarray:
        return self.ends[:, j] - self.starts[:, j]

    def fixed(self, j: int, rows: np.ndarray | None = None, *, pad: bool = True) -> np.ndarray | None:
        """Column ``j`` as a NumPy ``S<w>`` array (``w`` a multiple of 8, zero padded), or ``None`` if wider than
        :data:`MAX_WIDTH`. Comparisons of these arrays are ``strcmp`` comparisons (no token holds a NUL byte).
        With ``pad=False`` the bytes after each token are whatever follows it in the file."""
        s, e = self.starts[:, j], self.ends[:, j]
        if rows is not None:
            s, e = s[rows], e[rows]
        length = e - s
        w = int(length.max(initial=1))
        if w > MAX_WIDTH:
            return None
        w = -(-w // 8) * 8
        last = self.size - w  # windows of w bytes start at 0 .. last
        if last >= 0:
            windows = np.ndarray(shape=(last + 1,), dtype=f"S{w}", buffer=self.buf, strides=(1,))
            out = windows[np.minimum(s, last)]
        else:
            out = np.zeros(s.size, dtype=f"S{w}")
        for i in np.flatnonzero(s > last):  # the last tokens of the file: their window would run past its end
            out[i] = bytes(self.buf[s[i] : self.size])
        if not pad:
            return out
        words = out.view(np.uint64).reshape(-1, w // 8)
        for k in range(w // 8):  # zero the bytes past the token
            words[:, k] &= _BYTE_MASK[np.clip(length - 8 * k, 0, 8)]
        return out

    def line_numbers(self, rows: np.ndarray | None = None) -> np.ndarray:
        """1-based line number of each record (or of ``rows``)."""
        nl = np.flatnonzero(self.buf[: self.size] == 10)
        first = self.starts[:, 0] if rows is None else self.starts[rows, 0]
        return np.searchsorted(nl, first) + 1

    def token(self, i: int, j: int) -> str:
        return bytes(self.buf[self.starts[i, j] : self.ends[i, j]]).decode("utf-8", "replace")


def split_columns(raw: bytes, ncols: int) -> Columns | None:
    """Locate the tokens of ``raw``; ``None`` when the exact string-based reader must decide (see module docstring).

    Also ``None`` when a line does not have ``ncols`` columns (the string-based reader then names the line). Bytes
    up to 32 separate tokens here; every byte between tokens is then checked to be whitespace, so a control byte
    (a token byte for trec_eval) sends the file to the string reader.
    """
    n = len(raw)
    if n == 0:
        return None
    b = buf = np.frombuffer(raw, dtype=np.uint8)
    ws = _scratch(n + 2)  # reused between files: fresh memory costs page faults
    ws[0] = ws[-1] = True
    np.less_equal(b, 32, out=ws[1:-1])
    pos = np.int32 if n < 2**31 else np.int64  # token positions: half the memory when they fit
    parts = []
    for a in range(0, n + 1, _CHUNK):  # in chunks: the temporaries stay small
        z = min(a + _CHUNK, n + 1)
        at = np.flatnonzero(ws[a + 1 : z + 1] != ws[a:z]).astype(pos)
        at += a
        parts.append(at)
    del ws
    edges = np.concatenate(parts)
    del parts
    if edges.size == 0 or edges.size % (2 * ncols):
        return None
    if int((edges[1::2] - edges[0::2]).max()) > MAX_WIDTH:
        return None
    if not _one_record_per_line(b, edges, ncols):
        return None
    pairs = edges.reshape(-1, ncols, 2)
    return Columns(buf, n, pairs[:, :, 0], pairs[:, :, 1])


_LOCAL = threading.local()


def _scratch(size: int) -> np.ndarray:
    """A bool work array of ``size`` entries, private to this thread and reused by its next call."""
    if size > _SCRATCH_MAX:
        return np.empty(size, dtype=bool)
    a = getattr(_LOCAL, "ws", None)
    if a is None or a.size < size:
        a = np.empty(max(size, 1 << 16), dtype=bool)
        _LOCAL.ws = a
    return a[:size]


_SCRATCH_MAX = 1 << 26  # larger work arrays are not kept


def _one_record_per_line(b: np.ndarray, edges: np.ndarray, ncols: int) -> bool:
    """Every non-blank line holds exactly one record: no newline between the tokens of a record, at least one
    between records. Most gaps are one byte, checked directly; longer gaps by counting newlines.

    ``edges`` alternate token start, token end (exclusive); gap ``i`` runs from the end of token ``i`` to the start
    of token ``i + 1``.
    """
    gap_start, gap_end = edges[1:-1:2], edges[2::2]
    first = b[gap_start]
    if not _whitespace(first) or not _whitespace(b[: edges[0]]) or not _whitespace(b[edges[-1] :]):
        return False
    glen = gap_end - gap_start
    one = glen == 1
    want = np.zeros(gap_start.size, dtype=bool)
    want[ncols - 1 :: ncols] = True
    if (((first == 10) ^ want) & one).any():  # a one-byte gap is a newline where a record ends
        return False
    long = np.flatnonzero(~one)
    if long.size:  # every byte of the longer gaps
        size = glen[long]
        offsets = np.r_[0, np.cumsum(size)[:-1]]
        at = np.repeat(gap_start[long] - offsets, size) + np.arange(int(size.sum()))
        gap_bytes = b[at]
        if not _whitespace(gap_bytes):
            return False
        has = np.add.reduceat((gap_bytes == 10).view(np.uint8), offsets, dtype=np.int64) > 0
        if not np.array_equal(has, want[long]):
            return False
    return True


def _whitespace(x: np.ndarray) -> bool:
    """Every byte of ``x`` is ASCII whitespace (a control byte such as NUL or \\x1c is a token byte, not a gap)."""
    return bool((((x - np.uint8(9)) < 5) | (x == 32)).all())


#: ``_BYTE_MASK[n]``: the uint64 word (little- or big-endian, as stored) keeping its first ``n`` bytes
_BYTE_MASK = np.array([np.frombuffer(b"\xff" * n + b"\x00" * (8 - n), dtype=np.uint64)[0] for n in range(9)],
                      dtype=np.uint64)
_HASH_SEED = np.uint64(0x9E3779B97F4A7C15)


def hash_rows(s: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each entry of a zero-padded ``S<8k>`` array, independent of the padding width.

    Not collision-free: every use verifies a match on the bytes.
    """
    w = s.dtype.itemsize // 8
    words = s.view(np.uint64).reshape(-1, w)
    h = mix64(words[:, 0] ^ _HASH_SEED)
    for i in range(1, w):
        wi = words[:, i]
        h = np.where(wi != 0, mix64(h ^ wi), h)  # an all-zero word is padding (tokens hold no NUL byte)
    return h


def mix64(h: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser (a bijection on uint64)."""
    h = h ^ (h >> np.uint64(30))
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(27)
    h *= np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    return h


_P10 = np.array([10.0**k for k in range(23)])
_EXTENDED = np.finfo(np.longdouble).nmant >= 63  # x87 80-bit (or quad) long double: 10**k exact for k <= 27
_P10L = np.array([np.longdouble(10) ** k for k in range(28)], dtype=np.longdouble)
# x87 80-bit extended (64-bit significand in the first 8 bytes, little-endian): the dropped bits can be read directly
_X87 = np.finfo(np.longdouble).nmant == 63 and np.little_endian and np.dtype(np.longdouble).itemsize in (12, 16)


def parse_decimals(cols: Columns, j: int) -> tuple[np.ndarray, np.ndarray]:
    """Column ``j`` as float64, exactly as C ``strtod`` / Python ``float`` would round it, for tokens of the form
    ``[+-]digits[.digits]`` (at most 19 digits); returns ``(values, done)``: rows with ``done`` False (another
    spelling, an exponent, more digits or a rounding case that needs more precision) are left to the caller.

    Exactness: the digits form an integer ``M`` and the value is ``M / 10**f``. When ``M < 2**53`` and
    ``f <= 22`` both are exact doubles and one IEEE division rounds correctly (Clinger 1990). Otherwise the division
    is done in 64-bit-mantissa long double, where both are again exact, and the result rounded to double, unless it
    lies exactly half-way between two doubles (double rounding could then differ): such rows are left to the caller.
    """
    n = cols.n
    x = np.zeros(n, dtype=np.float64)
    done = np.zeros(n, dtype=bool)
    length = cols.lengths(j)
    s = cols.fixed(j, pad=False)  # bytes past a token are never read as digits: only columns < its length are
    if s is None:
        return x, done
    w = s.dtype.itemsize
    m = s.view(np.uint8).reshape(n, w)
    dot = m == 46
    dpos = dot.argmax(axis=1)
    dpos[~dot[np.arange(n), dpos] | (dpos >= length)] = 127  # no dot in the token
    sign = ((m[:, 0] == 45) | (m[:, 0] == 43)).astype(np.int64)
    key = (sign << 14) | (dpos << 7) | length
    order = np.argsort(key.astype(np.int16), kind="stable")  # radix sort
    ks = key[order]
    bounds = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1], True])
    for a, z in zip(bounds[:-1], bounds[1:]):
        k = int(ks[a])
        sg, dp, ln = k >> 14, (k >> 7) & 127, k & 127
        digit_cols = [c for c in range(sg, ln) if c != dp]
        nd = len(digit_cols)
        if nd == 0 or nd > 40:
            continue
        rows = order[a:z]
        dig = np.take(m, rows, axis=0)[:, digit_cols] - np.uint8(48)
        ok = (dig < 10).all(axis=1)
        if nd > 19:  # at most 19 significant digits (leading zeros do not count): no uint64 overflow
            ok &= nd - (dig != 0).argmax(axis=1) <= 19
        if not ok.all():
            rows, dig = rows[ok], dig[ok]
        mant = np.zeros(rows.size, dtype=np.uint64)
        for c in range(nd):
            mant *= np.uint64(10)
            mant += dig[:, c]
        frac = ln - dp - 1 if dp < 127 else 0
        if frac <= 22:
            exact = mant < np.uint64(1 << 53)
            val = mant.astype(np.float64) / _P10[frac]
        else:
            exact = np.zeros(rows.size, dtype=bool)
            val = np.zeros(rows.size)
        if _EXTENDED and frac <= 27 and not exact.all():
            i = np.flatnonzero(~exact)
            xl = mant[i].astype(np.longdouble) / _P10L[frac]
            xd = xl.astype(np.float64)
            if _X87:  # the 11 significand bits that rounding to double drops are not exactly 1000 0000 000
                low = xl.view(np.uint16).reshape(-1, xl.itemsize // 2)[:, 0] & np.uint16(0x7FF)
                exact[i] = (low != 0x400) | (xl == 0)
            else:
                half = np.spacing(np.abs(xd)).astype(np.longdouble) / 2
                exact[i] = np.abs(xl - xd.astype(np.longdouble)) != half
            val[i] = xd
        if sg:
            neg = m[rows, 0] == 45
            val = np.where(neg, -val, val)
        x[rows[exact]] = val[exact]
        done[rows[exact]] = True
    if not done.all():
        _parse_exponents(m, length, x, done)
    return x, done


def _parse_exponents(m: np.ndarray, length: np.ndarray, x: np.ndarray, done: np.ndarray) -> None:
    """The rows not ``done`` spelled ``[+-]digits[.digits](e|E)[+-]digits`` (e.g. ``9.97e-05``), in place.

    The mantissa digits form ``M`` with ``f`` fraction digits and the exponent is ``E``: the value is
    ``M / 10**(f - E)``, computed exactly as in :func:`parse_decimals` when ``0 <= f - E <= 22`` and ``M < 2**53``
    (one correctly rounded IEEE division), or as ``M * 10**(E - f)`` when ``0 < E - f <= 22`` and ``M < 2**53``
    (one correctly rounded multiplication); other rows are left to the caller.
    """
    rest = np.flatnonzero(~done)
    mr = m[rest]
    n, w = mr.shape
    col = np.arange(w)
    inside = col < length[rest, None]
    is_e = ((mr == 101) | (mr == 69)) & inside
    has = is_e.any(axis=1)
    if not has.any():
        return
    rest, mr, is_e, inside = rest[has], mr[has], is_e[has], inside[has]
    ln = length[rest]
    epos = is_e.argmax(axis=1)
    dot = (mr == 46) & inside
    has_dot = dot.any(axis=1)
    dpos = np.where(has_dot, dot.argmax(axis=1), 127)
    sign = ((mr[:, 0] == 45) | (mr[:, 0] == 43)).astype(np.int64)
    esign = ((mr[np.arange(rest.size), np.minimum(epos + 1, w - 1)] == 45)
             | (mr[np.arange(rest.size), np.minimum(epos + 1, w - 1)] == 43)).astype(np.int64)
    key = (((sign * 128 + dpos) * 128 + epos) * 2 + esign) * 128 + ln
    ks, inv = np.unique(key, return_inverse=True)
    for g, k in enumerate(ks.tolist()):
        sel = np.flatnonzero(inv == g)
        rows = rest[sel]
        sg, k = divmod(k, 128 ** 3 * 2)
        dp, k = divmod(k, 128 ** 2 * 2)
        ep, k = divmod(k, 128 * 2)
        es, lnk = divmod(k, 128)
        if dp < 127 and dp > ep:  # a dot in the exponent: not a number
            continue
        mcols = [c for c in range(sg, ep) if c != dp]
        ecols = list(range(ep + 1 + es, lnk))
        if not mcols or not 1 <= len(ecols) <= 4 or len(mcols) > 19:
            continue
        dig = mr[sel][:, mcols] - np.uint8(48)
        edig = mr[sel][:, ecols] - np.uint8(48)
        ok = (dig < 10).all(axis=1) & (edig < 10).all(axis=1)
        mant = np.zeros(sel.size, dtype=np.uint64)
        for c in range(len(mcols)):
            mant *= np.uint64(10)
            mant += dig[:, c]
        e = np.zeros(sel.size, dtype=np.int64)
        for c in range(len(ecols)):
            e = e * 10 + edig[:, c]
        if es:
            e = np.where(mr[sel, ep + 1] == 45, -e, e)
        f = (ep - dp - 1 if dp < 127 else 0) - e  # value = mant / 10**f
        ok &= (mant < np.uint64(1 << 53)) & (np.abs(f) <= 22)
        fk = np.clip(f, -22, 22)
        mf = mant.astype(np.float64)
        val = np.where(f >= 0, mf / _P10[np.maximum(fk, 0)], mf * _P10[np.maximum(-fk, 0)])
        if sg:
            val = np.where(mr[sel, 0] == 45, -val, val)
        x[rows[ok]] = val[ok]
        done[rows[ok]] = True
