"""Tests of gtheory/kit/display.py: number formatting and the HTML tables of every result's ``_repr_html_``.

References: Python's own ``html.parser`` (tags balance, cell text read back unescaped) and the formatting rules of
the module's docstrings (significant digits, never ``-0``, ∞ and – for infinities and NaN).
"""
from __future__ import annotations

import html.parser
import math

import numpy as np
from hypothesis import given, settings, strategies as st

import gtheory
from gtheory.kit.render import one_line
from gtheory.kit.display import fmt, html_table, kv_table, listed, signed


class _Table(html.parser.HTMLParser):
    """Checks that tags balance and collects the text of every cell (unescaped by the parser) and its tag."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.cells: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        self.stack.append(tag)
        if tag in ("td", "th", "caption"):
            self.cells.append((tag, ""))

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes <{self.stack[-1] if self.stack else None}>"
        self.stack.pop()

    def handle_data(self, data):
        if self.stack and self.stack[-1] in ("td", "th", "caption"):
            tag, text = self.cells[-1]
            self.cells[-1] = (tag, text + data)


def parse(markup: str) -> _Table:
    p = _Table()
    p.feed(markup)
    p.close()
    assert not p.stack, f"unclosed tags {p.stack}"
    assert markup.startswith("<table") and markup.endswith("</table>")
    return p


def test_fmt_never_writes_negative_zero():
    fmt = gtheory.kit.display.fmt
    assert fmt(-0.0) == "0" and fmt(np.float64(-0.0)) == "0" and fmt(-1e-12) == "-1e-12" and fmt(-0.00012, 2) == "-0.00012"
    assert fmt(float("nan")) == "–" and fmt(float("inf")) == "∞" and fmt(np.int64(3)) == "3" and fmt(True) == "yes"


def test_fmt_digits_and_types():
    assert fmt(0.123456789) == "0.1235" and fmt(0.123456789, 2) == "0.12" and fmt(123456.0) == "1.235e+05"
    assert fmt(-math.inf) == "−∞" and fmt(np.bool_(False)) == "no" and fmt("text") == "text"


def test_signed():
    assert signed(0.0123) == "+0.012" and signed(-0.0123) == "-0.012" and signed(0.01234, 4) == "+0.0123"
    assert signed(-0.0001) == "0.000" and signed(0.0004) == "0.000" and signed(float("nan")) == "nan"


def test_html_table_escapes_labels():
    out = gtheory.kit.display.html_table([("<b>run & co</b>", 1.0)], header=["run", "score"], caption="a < b")
    assert "<b>" not in out and "&lt;b&gt;run &amp; co&lt;/b&gt;" in out and "a &lt; b" in out
    parse(out)


def test_html_table_layout_and_kv_table():
    out = html_table([("a", 0.5, True), ("b", math.nan, 3)], header=["name", "x", "ok"], caption="cap", digits=2)
    cells = parse(out).cells
    assert cells == [("caption", "cap"), ("th", "name"), ("th", "x"), ("th", "ok"),
                     ("td", "a"), ("td", "0.5"), ("td", "yes"), ("td", "b"), ("td", "–"), ("td", "3")]
    # the label column is left-aligned, numbers right-aligned
    assert out.count("text-align:left") == 1 + 1 + 2 and out.count("text-align:right") == 2 + 4  # caption too
    kv = kv_table("G-study", {"σ²(system)": 0.0012345, "n": 7})
    assert parse(kv).cells == [("caption", "G-study"), ("td", "σ²(system)"), ("td", "0.001234"),
                               ("td", "n"), ("td", "7")]
    assert "<caption" not in html_table([("x",)]) and "<thead>" not in html_table([("x",)])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=8), st.floats(allow_nan=True, allow_infinity=True)), max_size=5))
def test_any_label_is_escaped_and_read_back(rows):
    # whatever the labels hold (<, &, quotes), the table parses and each cell reads back as the text fmt gives
    cells = parse(html_table(rows)).cells
    # (on one line: the kit's HTML rule writes a control character or line break as a space, gtheory.kit.render)
    assert [text for _, text in cells] == [one_line(fmt(v)) for row in rows for v in row]


@settings(max_examples=200, deadline=None)
@given(st.floats(-1e300, 1e300), st.integers(1, 8))  # within range: rounding up to the next digit stays finite
def test_fmt_reads_back_within_its_digits(v, digits):
    # fmt keeps `digits` significant digits: the text read back is within half a unit in the last digit kept
    # (relative slack 1e-12 for the decimal-to-binary conversion of the bound itself); never a negative zero
    text = fmt(v, digits)
    back = float(text)
    assert not (text.startswith("-") and back == 0)
    if v == 0:
        assert back == 0
    else:
        unit = 10.0 ** (math.floor(math.log10(abs(v))) - digits + 1)
        assert abs(back - v) <= 0.5 * unit * (1 + 1e-12)


def test_listed_shows_the_first_items_and_counts_the_rest():
    items = [f"r{i}" for i in range(12)]
    assert listed(items[:3]) == "r0, r1, r2"
    assert listed(items) == "r0, r1, r2, r3, r4 and 7 more"
    assert listed(items, "run", show=2) == "12 runs (r0, r1 and 10 more)"
    assert listed(items[:1], "run file") == "run file r0"
    assert listed(items[:5], show=5) == "r0, r1, r2, r3, r4"  # exactly `show`: nothing more to count
