"""Scores in a run file are parsed exactly as Python's ``float`` parses the token, whatever their form.

The byte-level reader has an exact vectorised path for plain decimals and for mantissa-exponent forms
(``9.97e-05``) and falls back to ``float`` for anything else; this checks both paths against ``float``
on random tokens of every form, including the boundaries where the fast path hands over.
"""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

import metrics


def _tokens(rng: np.random.Generator, n: int) -> list[str]:
    out = []
    for _ in range(n):
        kind = rng.integers(6)
        mant_digits = int(rng.integers(1, 21))                       # up to 20 digits: beyond the 2^53 / 19-digit edge
        digits = "".join(str(d) for d in rng.integers(0, 10, mant_digits))
        point = int(rng.integers(0, mant_digits + 1))
        mant = (digits[:point] or "0") + ("." + digits[point:] if point < mant_digits else "")
        sign = rng.choice(["", "-", "+"]) if kind else ""
        if kind <= 1:
            tok = f"{sign}{mant}"
        else:
            e = int(rng.integers(-30, 31)) if kind < 5 else int(rng.integers(-320, 309))
            esign = "-" if e < 0 else ("+" if rng.random() < .5 else "")
            zeros = "00" if kind == 4 else ""                              # leading zeros in the exponent
            tok = f"{sign}{mant}{rng.choice(['e', 'E'])}{esign}{zeros}{abs(e)}"
        if np.isfinite(float(tok)):                                  # overflow is refused (tested elsewhere)
            out.append(tok)
    return out


def _roundtrip(tmp_path, tokens: list[str]) -> np.ndarray:
    lines = [f"1 Q0 d{i} {i + 1} {t} r" for i, t in enumerate(tokens)]
    p = tmp_path / "run.txt"
    p.write_text("\n".join(lines) + "\n")
    run = metrics.read_run(p, ties="input")
    got = dict(zip(run.docno.tolist(), run.score.tolist()))
    return np.array([got[f"d{i}"] for i in range(len(tokens))])


def test_every_score_form_parses_as_float(tmp_path):
    rng = np.random.default_rng(20261124)
    tokens = _tokens(rng, 20000)
    ref = np.array([float(t) for t in tokens])
    got = _roundtrip(tmp_path, tokens)
    assert np.array_equal(got, ref), [(t, g, r) for t, g, r in zip(tokens, got, ref) if g != r][:5]
    assert np.array_equal(np.signbit(got), np.signbit(ref))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=1, max_size=40))
def test_repr_of_random_doubles_round_trips(tmp_path_factory, values):
    tokens = [repr(v) for v in values] + [f"{v:.17e}" for v in values]
    got = _roundtrip(tmp_path_factory.mktemp("run"), tokens)
    ref = np.array([float(t) for t in tokens])
    assert np.array_equal(got, ref)
