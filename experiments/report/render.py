"""The report written out: :func:`render` turns the blocks of :mod:`experiments.report.sections` into Markdown or
one self-contained HTML page; :func:`write_report` writes ``report.md`` / ``report.html``, the figures and
``tables.json`` (the JSON of :meth:`experiments.report.result.Study.to_json`) into a report directory, atomically.

One concept: the output formats and files. What the report says is :mod:`experiments.report.sections`; a new
section needs no change here.
"""
from __future__ import annotations

import html
import re
from dataclasses import replace
from pathlib import Path
from typing import Literal, Mapping

import numpy as np

from .figures import (_MIME, FIGURE_FORMATS, FIGURES, _check_figure_format, figure_file,
                      render_figures, write_figures)
from .result import Study
from .sections import _md_text, _Table, report_blocks
from .settings import _check_title
from .wording import _fmt, fmt_count
from gtheory.kit.display import listed
from gtheory.kit.render import html as render_html

__all__ = ["render", "write_report", "check_report_directory", "REPORT_MARKER"]

def _cells(t: _Table) -> tuple[list[str], list[list[str]]]:
    f = t.frame
    idx_names = [n or "" for n in (f.index.names if f.index.nlevels > 1 else [f.index.name])]
    head = idx_names + [str(c) for c in f.columns]
    rows = []
    for key, row in f.iterrows():
        keys = list(key) if isinstance(key, tuple) else [key]
        rows.append([fmt_count(k) if isinstance(k, (float, np.floating)) else str(k) for k in keys]
                    + [fmt_count(row[c]) if str(c) in t.counts else _fmt(row[c], t.digits.get(str(c), 3))
                       for c in f.columns])
    return head, rows


def _md_cell(text: str) -> str:
    """A table cell's text as literal Markdown (:func:`gtheory.kit.render.markdown`: ``|`` escaped, HTML-special
    characters as entities, a newline as a space)."""
    return _md_text(text)


def _md_table(t: _Table) -> str:
    head, rows = _cells(t)
    n_index = t.frame.index.nlevels
    align = [":---" if i < n_index else "---:" for i in range(len(head))]  # labels left, numbers right
    lines = ["| " + " | ".join(_md_cell(h) for h in head) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(_md_cell(c) for c in r) + " |" for r in rows]
    cap = f"*{_md_text(t.caption)}*\n\n" if t.caption else ""
    return cap + "\n".join(lines)


_STYLE = ("body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}"
          "table{border-collapse:collapse;margin:0.3em 0 1.2em;font-size:0.9em}"
          "th,td{border:1px solid #ccc;padding:0.25em 0.6em}th{background:#f3f3f3}"
          "img{max-width:100%;height:auto}p>em:only-child{color:#555}")


def render(study: Study, format: Literal["md", "html"] = "md", *, figure_format: str = "png",
           figures: Mapping[str, bytes] | None = None) -> str:
    """The report text: Markdown, or one self-contained HTML page.

    Markdown refers to the figure files beside it (``phi_vs_topics.png`` …, see :func:`write_figures`). HTML is
    that Markdown rendered by Python-Markdown (with its ``tables`` extension), every figure embedded as a
    ``data:`` URI — a single file that can be mailed or opened anywhere. ``figures`` (file name → bytes, from
    :func:`render_figures`) avoids drawing the figures again; ``figure_format`` is ``"png"`` or ``"svg"``.
    """
    if format not in ("md", "html"):
        raise ValueError(f"`format` must be 'md' or 'html'; got {format!r}.")
    _check_figure_format(figure_format)
    blocks = report_blocks(study)
    parts = []
    for kind, c in blocks:
        if kind == "img":
            src = figure_file(c[0], figure_format)
            parts.append(f"![{_md_text(c[1])}]({src if format == 'md' else 'figure:' + src})\n\n*{_md_text(c[1])}*")
        else:
            parts.append({"h1": lambda: f"# {c}", "h2": lambda: f"## {c}", "p": lambda: c, "md": lambda: c,
                          "table": lambda: _md_table(c)}[kind]())
    text = "\n\n".join(parts) + "\n"
    if format == "md":
        return text
    import base64

    import markdown

    if figures is None:
        figures = render_figures(study, figure_format=figure_format)
    body = markdown.markdown(text, extensions=["tables"], output_format="html")
    for kind, c in blocks:
        if kind == "img":
            name = figure_file(c[0], figure_format)
            if name not in figures:
                raise ValueError(f"`figures` lacks {name!r}; pass the output of render_figures(study, "
                                 f"figure_format={figure_format!r}).")
            uri = f"data:{_MIME[figure_format]};base64,{base64.b64encode(figures[name]).decode('ascii')}"
            body = body.replace(f'src="figure:{name}"', f'src="{uri}"')
    title = render_html(re.sub(r"\\(.)", r"\1", html.unescape(blocks[0][1])))  # the title's text, escaped for HTML
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>"
            f"<style>{_STYLE}</style></head><body>\n{body}\n</body></html>\n")


def write_report(study: Study, out_dir: str | Path, *, format: Literal["md", "html"] = "md",
                 dpi: int = 110, figure_format: str = "png", title: str | None = None) -> Path:
    """Write ``report.md`` (or ``report.html``), every figure of :data:`FIGURES` and ``tables.json`` into
    ``out_dir``; returns the report's path.

    ``report.html`` embeds its figures (one file to mail); the figure files (PNG, or SVG with
    ``figure_format="svg"``) are written beside it too, for reuse. ``tables.json`` holds the unrounded
    numbers of the tables. ``title`` names the collection in the report's title (default: the study's
    ``name``, from :func:`run_study`'s ``title`` or the data).

    Everything is written into a temporary directory beside ``out_dir`` that replaces it at the end
    (:func:`gtheory.kit.output.output_directory`): an interrupted or failed run leaves the old report (or
    nothing), never a mix; an existing ``out_dir`` that holds other files than a report's is refused
    (ValueError).

    Examples
    --------
    >>> import metrics
    >>> from experiments import run_study, write_report
    >>> path = write_report(run_study(metrics.load_trec9(), quick=True), "out", format="html")  # doctest: +SKIP
    >>> path.name                                                                                 # doctest: +SKIP
    'report.html'
    """
    from gtheory.kit.output import output_directory as atomic_directory

    if format not in ("md", "html"):
        raise ValueError(f"`format` must be 'md' or 'html'; got {format!r}.")
    _check_figure_format(figure_format)
    if title is not None:
        study = replace(study, name=_check_title(title))
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ValueError(f"`out_dir` must be a directory; {out} is a file.")
    check_report_directory(out)
    figures = render_figures(study, figure_format=figure_format, dpi=dpi)
    with atomic_directory(out) as tmp:  # the old report, or the new one: never a mix, nothing if interrupted
        write_figures(study, tmp, figures=figures)
        (tmp / f"report.{format}").write_text(render(study, format, figure_format=figure_format, figures=figures),
                                              encoding="utf-8")
        (tmp / "tables.json").write_text(_tables_json(study), encoding="utf-8")
        (tmp / REPORT_MARKER).write_text("written by gtheory report; this directory is replaced as a whole\n",
                                         encoding="utf-8")
    return out / f"report.{format}"


#: a file in every report directory: a directory holding it may be replaced by a new report
REPORT_MARKER = ".gtheory-report"


def check_report_directory(out: Path) -> None:
    """Refuse to replace an existing directory that holds anything a report does not write: a report directory is
    replaced as a whole (atomically), so it must be new, empty, or hold only what :func:`write_report` writes — a
    previous report, which it replaces. Files a user added to a previous report (notes, another figure) would be
    lost, so they are refused too, untouched."""
    if not out.is_dir():
        return
    own = {"report.md", "report.html", "tables.json", REPORT_MARKER,
           *(figure_file(name, f) for name in FIGURES for f in FIGURE_FORMATS)}
    entries = [e.name for e in out.iterdir()]
    foreign = sorted(e for e in entries if e not in own and not e.startswith(f".{out.name}."))
    if foreign:
        shown = listed(foreign)
        what = "a previous report and files it did not write" if REPORT_MARKER in entries else \
            "files that are not part of a report"
        raise ValueError(f"`out_dir` {out} holds {what} ({shown}); a report directory is replaced as a whole, so "
                         "they would be lost. Move them, or give a new or empty directory.")


def _tables_json(study: Study) -> str:
    return study.to_json(indent=1)  # the one encoder: non-finite numbers as null
