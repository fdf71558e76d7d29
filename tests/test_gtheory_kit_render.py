"""gtheory.kit.render: one escaping rule per output format, and every result's outputs through it.

Property tests with generated run names (markup characters, newlines, ``$``, ``\\``, ``|``, ``<``, ``&``, backticks):
in every format the rendered table parses as one row per name and one cell per column, holds no live markup (no tag
but the table's own, no link, no image, no math), and shows the name itself (a newline as a space)."""
from __future__ import annotations

import html as _html
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gtheory.kit import render
from gtheory.kit.render import Math, compose, latex, markdown, one_line, plot_label

HOSTILE = ["<img src=x onerror=alert(1)>", "[x](javascript:alert(1))", "<b onmouseover=alert(1)>best", "a\nb|c",
           "a$\\frac$b", "x & y_1 % #2 {z} ~^", "`code` *em* __b__", "# head", "1. item", "- item", "![i](x.png)",
           "&lt;b&gt;", "\\", "a\r\n\n\tb\u2028c\x85d"]
#: characters that make markup in one format or another, and the line breaks
_MARKUP = "<>&\"'|`*_[]()!#$\\{}%~^+-=.:/\n\r\t\x85\u2028 "
names = st.lists(st.text(alphabet=st.sampled_from(_MARKUP) | st.characters(max_codepoint=0x24F, whitelist_categories=("L", "N")),
                         min_size=1, max_size=12).filter(lambda s: s.strip() and one_line(s).strip()),
                 min_size=2, max_size=4, unique_by=lambda s: " ".join(one_line(s).split()))
FEW = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _shown(s: str) -> str:
    """What a reader sees of a name: on one line, runs of white space as one (HTML and Markdown collapse them)."""
    return " ".join(one_line(s).split())


def _scores(runs):
    rng = np.random.default_rng(0)
    X = rng.random((len(runs), 12)) * 0.5 + np.linspace(0.4, 0.0, len(runs))[:, None]
    return pd.DataFrame(X, index=pd.Index(runs, name="system"), columns=pd.Index(range(12), name="topic"))


from _markup import parse as _parse  # noqa: E402

_TABLE_TAGS = {"table", "thead", "tbody", "tr", "th", "td", "p", "strong", "b", "sup", "em", "caption"}


def _md_to_html(md: str) -> str:
    import markdown as md_lib

    return md_lib.markdown(md, extensions=["tables"], output_format="html")


# ------------------------------------------------------------------------------------------- the rules
@pytest.mark.parametrize("name", HOSTILE)
def test_each_rule_on_hostile_names(name):
    md = markdown(name)
    assert "<" not in md and "\n" not in md and not re.search(r"(?<!\\)[\[\]|`*_]", md.replace("\\\\", ""))
    page = _parse(_md_to_html(md))
    assert page.tags <= {"p"}, page.tags  # a paragraph of text, nothing else
    assert " ".join(_html.unescape(re.sub("<[^>]+>", "", _md_to_html(md))).split()) == _shown(name)
    tex = latex(name)
    assert "\n" not in tex and not re.search(r"(?<!\\)[$&%#_^~]", tex.replace(r"\textbackslash{}", ""))
    assert render.html(name) == _html.escape(one_line(name), quote=True)
    assert render.text(name) == one_line(name) and "\n" not in render.text(name)
    # matplotlib takes ``\$`` as a literal dollar in text without unescaped dollars: the name shows as it is
    label = plot_label(name)
    assert label.count("$") == label.count(r"\$") and label.replace(r"\$", "$") == one_line(name)


def test_math_is_math_in_latex_only():
    parts = ["runs ", Math(r"\sigma^2", "σ²"), " of a_b"]
    assert compose(parts, "latex") == r"runs $\sigma^2$ of a\_b"
    assert compose(parts, "text") == "runs σ² of a_b" and compose(parts, "md") == r"runs σ² of a\_b"
    with pytest.raises(ValueError, match="`fmt`"):
        render.escape("x", "pdf")


# ------------------------------------------------------------------------------------------- every format, every name
@FEW
@given(names)
def test_markdown_table_one_row_per_name_no_live_markup(runs):
    from experiments.compare import compare
    from experiments.compare import compare_measures

    X = _scores(runs)
    t = compare_measures({"AP|<i>x</i>": X}, correction="holm")
    page = _parse(_md_to_html(t.to_markdown()))
    assert page.tags <= _TABLE_TAGS and page.attrs <= {"style", "align"}, (page.tags, page.attrs)
    body = page.rows[1:]
    assert len(body) == len(runs) and all(len(r) == 2 for r in body)
    letters = t.letters()
    # what the reader sees: HTML collapses runs of white space (a name's line break is written as a space, beside
    # the separating one; whether the Markdown converter also collapses them depends on its release)
    assert [" ".join(r[0].split()) for r in body] == [f"({letters[r]}) {_shown(r)}" for r in t.means.index]
    assert page.rows[0] == ["run", "AP|<i>x</i>"]
    c = compare(X, baseline=runs[0])
    page = _parse(_md_to_html(c.to_markdown()))
    assert page.tags <= _TABLE_TAGS and len(page.rows) == len(runs)  # header + one row per other run
    seen = [[" ".join(cell.split()) for cell in r[:2]] for r in page.rows[1:]]  # as the reader sees them (above)
    assert seen == [[_shown(a), _shown(b)] for a, b in zip(c.table["a"], c.table["b"])]


_TEX_BACK = {v: k for k, v in render._TEX.items()}
_TEX_TOKEN = re.compile("|".join(re.escape(v) for v in sorted(_TEX_BACK, key=len, reverse=True)))


def _tex_cells(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)&", line.removesuffix(r"\\"))]


@FEW
@given(names)
def test_latex_table_one_row_per_name_specials_escaped(runs):
    from experiments.compare import compare_measures

    t = compare_measures({"nDCG@10": _scores(runs), "P_10": _scores(runs[::-1])})
    tex = t.to_latex()
    body = tex.split("\\midrule\n")[1].split("\\bottomrule")[0].splitlines()
    assert len(body) == len(runs) and "\n\n" not in tex  # no blank line (a paragraph) inside the tabular
    letters = t.letters()
    for line, run in zip(body, t.means.index):
        cells = _tex_cells(line)
        assert len(cells) == 1 + 2 * 2  # the run, then a mean and its marker per measure
        back = _TEX_TOKEN.sub(lambda m: _TEX_BACK[m.group(0)], cells[0])
        assert back == f"({letters[run]}) {one_line(run)}".rstrip()
        stripped = _TEX_TOKEN.sub("", cells[0])
        assert not re.search(r"[\\$&%#_^~{}\[\]]", stripped)  # nothing special left unescaped
    # the pairs table of one measure: one row per pair, both names read back
    from experiments.compare import compare

    c = compare(_scores(runs), baseline=runs[-1])
    body = c.to_latex().split("\\midrule\n")[1].split("\\bottomrule")[0].splitlines()
    assert len(body) == len(c.table)
    for line, (a, b) in zip(body, zip(c.table["a"], c.table["b"])):
        cells = _tex_cells(line)
        assert len(cells) == 7
        assert [_TEX_TOKEN.sub(lambda m: _TEX_BACK[m.group(0)], x) for x in cells[:2]] == [one_line(a).strip(),
                                                                                          one_line(b).strip()]


@FEW
@given(names)
def test_html_and_text_one_row_per_name(runs):
    from experiments.compare import compare
    from experiments.compare import compare_measures

    t = compare_measures({"AP": _scores(runs)})
    page = _parse(t._repr_html_())
    assert page.tags <= _TABLE_TAGS and not page.attrs
    letters = t.letters()
    assert [r[0] for r in page.rows[1:]] == [f"({letters[r]}) {one_line(r)}" for r in t.means.index]
    c = compare(_scores(runs))
    page = _parse(c._repr_html_())
    assert page.tags <= _TABLE_TAGS and page.attrs <= {"style"}
    assert [r[:2] for r in page.rows[-len(c.table):]] == [[one_line(a), one_line(b)]
                                                         for a, b in zip(c.table["a"], c.table["b"])]
    # the text table: one line per run, every column starting at the same place
    lines = t.summary().split("\n\n")[0].splitlines()
    assert len(lines) == 1 + len(runs)
    for line, run in zip(lines[1:], t.means.index):
        assert line.startswith(f"({letters[run]})") and one_line(run) in line
    starts = {line.index(f"{t.means.loc[run, 'AP']:.4f}") for line, run in zip(lines[1:], t.means.index)}
    assert len(starts) == 1
    lines = c.summary().splitlines()
    rows = lines[lines.index(next(x for x in lines if x.startswith("a "))) + 1:]
    assert len(rows) == len(c.table) and all(r.startswith(one_line(a)) for r, a in zip(rows, c.table["a"]))


@FEW
@given(names)
def test_report_tables_one_row_per_name(runs):
    # the report's tables (Markdown, then rendered to HTML as the report does) and the topics section's HTML tables
    from experiments.report.render import _md_table
    from experiments.report.sections import _Table
    from experiments.report.topics import _html_table

    frame = pd.DataFrame({"Φ": np.linspace(0.1, 0.9, len(runs))}, index=pd.Index(runs, name="run <b>|"))
    page = _parse(_md_to_html(_md_table(_Table(frame, caption="runs of *x* <i>"))))
    assert page.tags <= _TABLE_TAGS and len(page.rows) == 1 + len(runs)
    # whitespace as HTML shows it (one space; Markdown releases differ in collapsing runs of spaces in a cell)
    assert [" ".join(r[0].split()) for r in page.rows] == [" ".join(x.split()) for x in ["run <b>|", *map(_shown, runs)]]
    page = _parse(_html_table(["run", "x"], [[r, "1"] for r in runs], caption="<b>c</b>"))
    assert page.tags <= _TABLE_TAGS and [r[0] for r in page.rows[1:]] == [one_line(r) for r in runs]


@settings(max_examples=10, deadline=None)
@given(names)
def test_plot_labels_are_literal_and_draw(runs):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from experiments.compare import compare

    c = compare(_scores(runs))
    ax = c.plot()
    try:
        ax.figure.canvas.draw()  # mathtext would parse (and fail on) an unescaped name here
        for tick, (a, b) in zip(ax.get_yticklabels(), zip(c.table["a"], c.table["b"])):
            assert tick._preprocess_math(tick.get_text()) == (one_line(f"{a} − {b}"), False)
    finally:
        plt.close(ax.figure)


def test_a_mathtext_name_plots_and_saves(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from experiments.compare import compare

    c = compare(_scores(["a$\\frac$b", "base"]), measure="$x^$")
    ax = c.plot()
    ax.figure.savefig(tmp_path / "c.png")
    assert ax.get_yticklabels()[0]._preprocess_math(ax.get_yticklabels()[0].get_text())[0] == "a$\\frac$b − base"
    plt.close(ax.figure)


# ------------------------------------------------------------------------------------------- tables a paper can use
def test_latex_caption_has_real_math_and_booktabs():
    from experiments.compare import compare_measures

    tex = compare_measures({"AP": _scores(["a", "b", "c"])}, baseline="a").to_latex()
    assert r"$\sigma^2 = V_E$" in tex and r"$\alpha$" in tex and "textasciicircum" not in tex
    assert r"$\uparrow$/$\downarrow$" in tex or "better/worse" in tex
    assert [tex.count(r) for r in (r"\toprule", r"\midrule", r"\bottomrule")] == [1, 1, 1]


def test_many_runs_keep_their_columns_in_line():
    # 59 runs: letters (a) ... (bg); the markers of a run that beats many others are long
    from experiments.compare import compare_measures

    runs = [f"run{i:02d}" for i in range(59)]
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.random((59, 15)) * 0.2 + np.linspace(0.8, 0.0, 59)[:, None],
                     index=pd.Index(runs, name="system"), columns=pd.Index(range(15), name="topic"))
    t = compare_measures({"AP": X, "P@10": X * 0.9})
    assert t.letters()[runs[-1]] == "bg" and max(len(m) for m in t.markers()["AP"]) > 6
    lines = t.summary().split("\n\n")[0].splitlines()[1:]
    for col in ("AP", "P@10"):
        starts = {line.index(f"{t.means.loc[r, col]:.4f}", 30 if col == "P@10" else 0) for line, r in
                  zip(lines, t.means.index)}
        assert len(starts) == 1, col
    assert "*: best in column" in t.summary() and "bold" not in t.summary()
    assert sum("*" in line.split()[2] for line in lines) == 1  # the best mean of AP marked, once
    # LaTeX: the markers have a column of their own, so every mean sits in the same column whatever its marker
    body = t.to_latex().split("\\midrule\n")[1].split("\\bottomrule")[0].splitlines()
    assert {len(_tex_cells(line)) for line in body} == {5}
    assert "r@{}l" in t.to_latex()


def test_text_tables_align_wide_and_combining_characters():
    """Run names in CJK (two columns each on a terminal) or with combining accents (none) keep the next column in
    line: every line's terminal width up to the second column is the same."""
    from gtheory.kit.render import display_width, text_table

    rows = [["日本語ラン", "0.1"], ["café", "0.2"], ["cafe\u0301", "0.3"], ["plain", "0.4"]]
    lines = text_table(["run", "x"], rows, "<>")
    assert display_width("日本語") == 6 and display_width("cafe\u0301") == 4 and display_width("abc") == 3
    assert len({display_width(ln) for ln in lines}) == 1  # right-aligned last column: all end at one width
    assert lines[1].startswith("日本語ラン  ") and lines[2].startswith("café    ")
