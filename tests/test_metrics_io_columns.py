"""Tests of metrics/io/_columns.py: the vectorised column splitter of the TREC readers and its number parser.

References: Python itself — ``bytes.split()`` for the tokens of a line, ``float(token)`` (correctly rounded, as C
``strtod``) for every number the fast parser claims to have parsed (hypothesis over decimal spellings), and
``==`` on the bytes for the hashes. The fast path may decline (``None`` / ``done`` False) but never disagree.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from metrics.io._columns import MAX_WIDTH, hash_rows, mix64, parse_decimals, split_columns


def test_tokens_and_line_numbers():
    raw = b"1 Q0 doc-1 1 0.5 run\n\n1\tQ0  doc-22 2 -3e-2 run\r\n"
    cols = split_columns(raw, 6)
    assert cols is not None and cols.n == 2
    want = [line.split() for line in raw.splitlines() if line.split()]
    assert [[cols.token(i, j).encode() for j in range(6)] for i in range(2)] == want
    assert cols.line_numbers().tolist() == [1, 3]  # the blank line counts
    assert cols.fixed(2).tolist() == [b"doc-1", b"doc-22"] and cols.fixed(2).dtype.itemsize % 8 == 0
    assert cols.lengths(2).tolist() == [5, 6]


@pytest.mark.parametrize("raw", [
    b"",                                  # nothing to split
    b"1 Q0 a 1 0.5\n",                    # five columns where six are expected
    b"1 Q0 a 1 0.5 r x\n",                # seven
    b"1 Q0 a\n1 0.5 r\n",                 # a record split over two lines
    b"1 Q0 a\x00b 1 0.5 r\n",             # a NUL byte: a token byte for trec_eval, left to the string reader
    b"1 Q0 " + b"d" * (MAX_WIDTH + 1) + b" 1 0.5 r\n",  # a token wider than MAX_WIDTH
])
def test_declines_what_it_cannot_prove(raw):
    assert split_columns(raw, 6) is None


def test_fixed_of_the_last_token_of_the_file_and_selected_rows():
    cols = split_columns(b"a bb\nccc d", 2)  # no final newline: the last window runs past the end
    assert cols.fixed(1).tolist() == [b"bb", b"d"] and cols.fixed(0, np.array([1])).tolist() == [b"ccc"]


def test_hash_is_independent_of_the_padding_width():
    narrow = np.array([b"abc", b"abcdefgh1"], dtype="S16")
    wide = np.array([b"abc", b"abcdefgh1"], dtype="S24")
    assert np.array_equal(hash_rows(narrow), hash_rows(wide))
    assert hash_rows(narrow)[0] != hash_rows(narrow)[1]


def test_mix64_is_a_bijection_on_a_sample():
    x = np.arange(100_000, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    assert np.unique(mix64(x.copy())).size == x.size


decimals = st.builds(
    lambda sign, whole, frac, exp: f"{sign}{whole}{'.' + frac if frac is not None else ''}{exp}",
    st.sampled_from(["", "-", "+"]),
    st.text("0123456789", min_size=1, max_size=12),
    st.one_of(st.none(), st.text("0123456789", min_size=0, max_size=12)),
    st.one_of(st.just(""), st.builds(lambda e, s, d: f"{e}{s}{d}", st.sampled_from("eE"), st.sampled_from(["", "-", "+"]),
                                     st.integers(0, 40))),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(decimals, min_size=1, max_size=20))
def test_parsed_numbers_equal_pythons_float(tokens):
    raw = "".join(f"x {t}\n" for t in tokens).encode()
    cols = split_columns(raw, 2)
    assert cols is not None
    values, done = parse_decimals(cols, 1)
    for tok, v, ok in zip(tokens, values.tolist(), done.tolist()):
        if ok:  # whatever it parses is exactly Python's correctly rounded value (the sign of zero included)
            ref = float(tok)
            assert v == ref and np.signbit(v) == np.signbit(ref), tok
    # the common spellings are always parsed on the fast path: up to 15 digits, no exponent
    for tok, ok in zip(tokens, done.tolist()):
        if "e" not in tok.lower() and len(tok.lstrip("+-").replace(".", "")) <= 15:
            assert ok, tok


def test_non_numbers_are_left_to_the_caller():
    cols = split_columns(b"x 1.2.3\nx abc\nx -\nx 1e\nx 0.25\n", 2)
    values, done = parse_decimals(cols, 1)
    assert done.tolist() == [False, False, False, False, True] and values[4] == 0.25
