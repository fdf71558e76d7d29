"""A small HTML reader for the tests of rendered outputs: the cells of each table row, and every tag and attribute
seen (live markup in a rendered page shows as a tag or an attribute)."""
from __future__ import annotations

from html.parser import HTMLParser


class Cells(HTMLParser):
    """The rows of the tables (text of each cell) and every tag and attribute seen."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rows, self.tags, self.attrs, self._cell = [], set(), set(), None

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attrs |= {a for a, _ in attrs}
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def parse(html_text: str) -> Cells:
    """The :class:`Cells` of ``html_text``."""
    p = Cells()
    p.feed(html_text)
    return p
