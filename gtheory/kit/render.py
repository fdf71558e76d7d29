r"""The one renderer of each output format: how text that comes from the data (a run name, a measure, a collection's
name) is written into plain text, Markdown, LaTeX, HTML and plot labels, so that it shows literally and is never
taken for markup.

Run names are chosen by campaign participants; a name is data, never markup. Every result's ``summary``,
``to_markdown``, ``to_latex`` and ``_repr_html_``, the report's sections and every plot label, title and legend pass
the data's text through the rule of their format here — one rule per format:

* :func:`text` (fixed-width text tables): control characters and line or paragraph separators (a newline, a tab,
  ``\x85``, U+2028 …) become one space, so a name never splits a row; nothing else changes.
* :func:`markdown` (a Markdown paragraph or table cell; GitHub and Python-Markdown): the same spaces, the
  HTML-special characters ``& < > " '``, ``~`` (strike-through) and ``$`` (GitHub's math) as character references
  (``<img …>`` stays text, not raw HTML), every inline-markup character ``\ ` * _ [ ] |`` backslash-escaped
  (``[x](javascript:…)`` is not a link, ``![x](…)`` not an image: both need the brackets; ``|`` does not split a
  cell), and a start that would open a block (``#``, ``-``, ``+``, ``1.``) escaped. A bare ``http://`` or ``www.`` address stays text in
  Python-Markdown; GitHub may show it as a plain link to that very address (no script, no other target).
* :func:`latex` (LaTeX text mode, a ``tabular`` cell or a caption): the specials ``# $ % & _ { } ~ ^ \`` as their
  text commands, ``< > |`` as ``\textless{}`` …, ``[`` and ``]`` braced (a cell starting with ``[`` after ``\\`` is
  not read as the row's optional skip), and the same spaces (a newline is never a blank line inside a tabular).
* :func:`html` (HTML text or an attribute value): every HTML-special character as a character reference, the same
  spaces.
* :func:`plot_label` (a matplotlib text: label, title, tick, legend, annotation): every ``$`` escaped as ``\$``, so
  mathtext never parses a name (``a$\frac$b`` plots and saves, shown literally), and the same spaces. Matplotlib
  shows ``\$`` as ``$`` in text that holds no unescaped ``$``; with ``text.usetex`` the label goes to TeX instead:
  use :func:`latex` there.

Text the package writes itself may hold a formula: :class:`Math` is one formula in every format (LaTeX source for
LaTeX, Unicode for the others), and :func:`compose` joins plain text (escaped) and formulas (rendered) for a format.
"""
from __future__ import annotations

import html as _html
import re
import unicodedata
from typing import Any, Iterable, Literal

__all__ = ["FORMATS", "Math", "compose", "escape", "html", "latex", "markdown", "md_row", "one_line", "plot_label",
           "text", "text_table"]

Format = Literal["text", "md", "latex", "html", "plot"]
#: the output formats of :func:`escape`
FORMATS: tuple[str, ...] = ("text", "md", "latex", "html", "plot")


def _breaks(ch: str) -> bool:
    """A control character (Cc), a line or paragraph separator (Zl, Zp): each would break a row or a cell."""
    return unicodedata.category(ch) in ("Cc", "Zl", "Zp")


def one_line(s: Any) -> str:
    """``str(s)`` on one line: every control character and line/paragraph separator as one space."""
    s = str(s)
    return "".join(" " if _breaks(c) else c for c in s) if any(_breaks(c) for c in s) else s


def text(s: Any) -> str:
    """``s`` for a plain-text (fixed-width) table or line: :func:`one_line`; nothing else is special."""
    return one_line(s)


_MD = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "~": "&#126;", "$": "&#36;",
       **{c: "\\" + c for c in "\\`*_[]|"}}
#: a line start that Markdown reads as a heading, a list item or a rule (``# x``, ``- x``, ``+ x``, ``1. x``, ``---``)
_BLOCK_START = re.compile(r"^(\s*)(#|[-+](?=\s|$)|-{2,}|\d{1,9}[.)](?=\s|$))")


def markdown(s: Any, *, line_start: bool = True) -> str:
    """``s`` as literal Markdown inline text (a paragraph, a heading, a table cell): module docstring.
    ``line_start=False``: the text follows other text on its line (a heading's ``## ``), so a start like ``7.``
    cannot open a block and is left as it is."""
    out = "".join(_MD.get(c, c) for c in one_line(s))
    if not line_start:
        return out
    return _BLOCK_START.sub(lambda m: m.group(1) + (m.group(2)[:-1] + "\\" + m.group(2)[-1] if m.group(2)[0].isdigit()
                                                    else "\\" + m.group(2)), out, count=1)


_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
        "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}",
        ">": r"\textgreater{}", "|": r"\textbar{}", "[": "{[}", "]": "{]}"}


def latex(s: Any) -> str:
    """``s`` as literal LaTeX text-mode material (a ``tabular`` cell, a caption): module docstring."""
    return "".join(_TEX.get(c, c) for c in one_line(s))


def html(s: Any) -> str:
    """``s`` as literal HTML text or attribute value: :func:`html.escape` with quotes, on one line."""
    return _html.escape(one_line(s), quote=True)


def plot_label(s: Any) -> str:
    """``s`` for a matplotlib text (not parsed as mathtext; shown literally): module docstring."""
    return one_line(s).replace("$", r"\$")


_ESCAPE = {"text": text, "md": markdown, "latex": latex, "html": html, "plot": plot_label}


def escape(s: Any, fmt: Format) -> str:
    """``s`` escaped by the rule of ``fmt`` (one of :data:`FORMATS`)."""
    try:
        rule = _ESCAPE[fmt]
    except KeyError:
        raise ValueError(f"`fmt` must be one of {', '.join(FORMATS)}; got {fmt!r}.") from None
    return rule(s)


class Math:
    """One formula the package writes (never data): its LaTeX source (math mode, without ``$``) and its Unicode
    text for the other formats. ``Math(r"\\sigma^2", "σ²")``."""

    __slots__ = ("tex", "plain")

    def __init__(self, tex: str, plain: str) -> None:
        self.tex, self.plain = tex, plain

    def render(self, fmt: Format) -> str:
        """``$tex$`` in LaTeX; the Unicode text, escaped for the format, elsewhere."""
        if fmt == "latex":
            return f"${self.tex}$"
        return escape(self.plain, fmt)

    def __repr__(self) -> str:
        return f"Math({self.tex!r}, {self.plain!r})"


def compose(parts: Iterable[Any], fmt: Format) -> str:
    """The pieces of a caption or title joined for ``fmt``: each :class:`Math` rendered, everything else (text,
    data) escaped (:func:`escape`)."""
    return "".join(p.render(fmt) if isinstance(p, Math) else escape(p, fmt) for p in parts)


def md_row(cells: Iterable[str]) -> str:
    """One Markdown table row of cells already rendered for Markdown."""
    return "| " + " | ".join(cells) + " |"


def display_width(s: str) -> int:
    """The columns ``s`` takes on a terminal: 2 for a wide or full-width character (CJK, ``unicodedata``'s East Asian
    width W or F), 0 for a mark or a format character (categories Mn, Me, Cf: the accent of ``e`` + U+0301, Thai
    vowel signs, a zero-width space or joiner, variation selectors), 1 for the others. (Emoji joined by U+200D
    count each part: terminals differ there.)"""
    if s.isascii():
        return len(s)
    import unicodedata

    return sum(0 if unicodedata.category(c) in ("Mn", "Me", "Cf") else
               2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def text_table(head: list[str], rows: list[list[str]], align: str) -> list[str]:
    """Lines of a fixed-width text table: ``head`` and ``rows`` (cells already :func:`text`), ``align`` one
    character per column, ``"<"`` or ``">"``; each column as wide as its widest cell on a terminal
    (:func:`display_width`: run names in CJK or with combining accents stay in line), two spaces between columns."""
    cols = list(zip(head, *rows)) if rows else [(h,) for h in head]
    widths = [max(display_width(c) for c in col) for col in cols]

    def cell(c: str, a: str, w: int) -> str:
        pad = " " * (w - display_width(c))
        return c + pad if a == "<" else pad + c

    def line(cells: list[str]) -> str:
        return "  ".join(cell(c, a, w) for c, a, w in zip(cells, align, widths)).rstrip()

    return [line(head)] + [line(r) for r in rows]
