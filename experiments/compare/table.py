r"""The runs x measures table of a paper: :func:`compare_measures` runs :func:`experiments.compare` for every measure and
lays out the means with markers of significant differences (:class:`ComparisonTable`: LaTeX with booktabs, Markdown,
HTML, CSV, JSON). Tests, corrections, effect sizes and their sources: :mod:`experiments.compare.systems`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping, Sequence

import numpy as np

from gtheory.kit.checks import fixed_seed
from gtheory.kit.jsonio import JsonResult

from gtheory.kit.ties import TIE_REL
from experiments._validation import as_scores

from .comparison import (_ALPHA, _TEST_NAMES, COMPARISON_SCHEMA, Comparison, _comparison_from, _label, _num,
                         comparison_csv)
from .registry import correction_named, test_named
from .systems import N_RESAMPLES_RULE, _select, compare, did_you_mean
from gtheory.kit.render import Math, compose, escape, html, latex, markdown, md_row, text, text_table
from gtheory.kit.params import BOOLEAN, validate_params

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["compare_measures", "ComparisonTable"]

def _table_schema() -> dict:
    from gtheory.kit.schema import obj, real, table, text

    return {"baseline": text(nullable=True),
            "means": table(index=text(), cells=real(nullable=True, null_as=float("nan"))),
            "comparisons": obj()}


#: the declared schema of a :class:`ComparisonTable` document (each comparison: the Comparison's own schema)
_TABLE_SCHEMA = _table_schema()
_SIGMA2 = Math(r"\sigma^2 = V_E", "σ² = V_E")
_ARROWS = Math(r"\uparrow/\downarrow", "▲/▼")



@dataclass(frozen=True, eq=False)
class ComparisonTable(JsonResult):
    """Runs x measures table of means with markers of significant differences (:func:`compare_measures`).

    With a baseline, a cell is marked ▲ (significantly better than the baseline) or ▼ (worse). Without one, each run
    gets a letter (a, b, c, ... in row order) and a cell lists, as superscripts, the letters of the runs it is
    significantly better than (the convention of ranx and of many IR papers). The best mean of each column is bold
    (``*`` in the text table).

    Attributes
    ----------
    runs : tuple of str
        The runs (rows, in the order given or best first by the first measure).
    values : ndarray
        Their means, runs x measures (the columns in the order of ``comparisons``). The outputs are made from these,
        without pandas.
    comparisons : dict
        The :class:`Comparison` of each measure.
    baseline : str or None
        The baseline, or None for all pairs.
    means : DataFrame
        ``values`` as a runs x measures frame, built on first access.
    """

    runs: tuple = field(repr=False)
    values: np.ndarray = field(repr=False)
    comparisons: dict = field(repr=False)
    baseline: str | None = None

    JSON_FORMAT: ClassVar[str] = "gtheory.experiments.ComparisonTable/1"

    def __post_init__(self) -> None:
        """``runs`` a tuple of str and ``values`` a read-only float64 runs x measures array, checked against the
        comparisons (one column each): a table made by hand is refused before it renders wrongly."""
        runs = tuple(str(r) for r in self.runs)
        values = np.array(self.values, dtype=np.float64)
        if values.shape != (len(runs), len(self.comparisons)):
            raise ValueError(f"`values` must be runs x measures, ({len(runs)}, {len(self.comparisons)}); got shape "
                             f"{values.shape}")
        values.setflags(write=False)
        object.__setattr__(self, "runs", runs)
        object.__setattr__(self, "values", values)

    @property
    def measures(self) -> list[str]:
        """The measures (columns), in the order of ``comparisons``."""
        return list(self.comparisons)

    @cached_property
    def means(self) -> "pd.DataFrame":
        """Runs x measures means (``values`` labelled), built on first access."""
        import pandas as pd

        return pd.DataFrame(self.values.copy(), index=list(self.runs), columns=self.measures)

    def _first(self) -> Comparison:
        return next(iter(self.comparisons.values()))

    def letters(self) -> dict[str, str]:
        """Run -> its letter (all-pairs tables)."""
        return {r: _letter(i) for i, r in enumerate(self.runs)}

    def _markers(self) -> list[list[str]]:
        """Runs x measures: the marker text of each cell ('▲', '▼', letters, or ''), as lists (rows)."""
        letters = self.letters()
        row = {r: i for i, r in enumerate(self.runs)}
        out = [[""] * len(self.comparisons) for _ in self.runs]
        for k, c in enumerate(self.comparisons.values()):
            col: dict[str, list[str]] = {r: [] for r in self.runs}
            t = c.pairs
            sig = np.flatnonzero(t["significant"])
            for a, b, diff in zip(t["a"][sig].tolist(), t["b"][sig].tolist(), t["diff"][sig].tolist()):
                if self.baseline is not None:
                    col[a].append("▲" if diff > 0 else "▼")
                else:
                    win, lose = (a, b) if diff > 0 else (b, a)
                    col[win].append(letters[lose])
            for r, v in col.items():
                out[row[r]][k] = self._joined(v if self.baseline is not None else sorted(v, key=_letter_order))
        return out

    def _joined(self, marks: list[str]) -> str:
        """A cell's marks as one string: run together while every letter is one character (``abd``), separated by
        commas once there are more than 26 runs and letters of two (``a,ab,b``: ``aab`` could be a+ab or aa+b)."""
        return ("," if self.baseline is None and len(self.runs) > 26 else "").join(marks)

    def markers(self) -> "pd.DataFrame":
        """Runs x measures: the marker text of each cell ('▲', '▼', letters, or '')."""
        import pandas as pd

        return pd.DataFrame(self._markers(), index=self.means.index, columns=self.means.columns)

    def _best(self) -> np.ndarray:
        """Runs x measures (bool): the column's best mean, ties decided with :data:`gtheory.kit.ties.TIE_REL` of the
        column's largest |mean| (means equal in exact arithmetic but summed in another order are both best); a NaN
        mean (a document's null) is never best, and is skipped in the column's best and largest."""
        m = np.asarray(self.values, dtype=np.float64)
        nan = np.isnan(m)
        top = np.where(nan, -np.inf, m).max(axis=0)
        tol = TIE_REL * np.where(nan, 0.0, np.abs(m)).max(axis=0)
        with np.errstate(invalid="ignore"):
            return m >= top - tol

    def _caption(self, fmt: str = "text") -> str:
        """The caption for ``fmt`` (:mod:`gtheory.kit.render`): formulas as math in LaTeX, names escaped; the text
        table marks the best of a column with ``*`` (it cannot show bold), the others bold it."""
        c = self._first()
        if c.correction != "none":
            corr = f", {correction_named(c.correction).title} correction"
        else:  # Tukey's HSD controls the family itself: nothing is missing to say
            corr = "" if test_named(c.test).controls_family else ", no multiple-comparison correction"
        if self.baseline is not None:
            mark = [_ARROWS, ": significantly better/worse than ", self.baseline]
        else:
            mark = ["superscripts: the runs (by letter) a run is significantly better than"]
        best = "*: best in column" if fmt == "text" else "bold: best in column"
        foot: list = []
        for m, v in self.comparisons.items():
            if np.isfinite(v.min_detectable_difference):
                foot += ["; " if foot else "", m, f": {_num(v.min_detectable_difference, 3)}"]
        if foot:
            foot = [" Minimum detectable difference (paired t, power 0.8, ", _SIGMA2, "): ", *foot, "."]
        counts = {m: v.n_topics for m, v in self.comparisons.items()}
        if len(set(counts.values())) == 1:
            n = f"{c.n_topics} topics"
        else:  # measures over different topics: each with its own count
            n = "topics: " + ", ".join(f"{k} {v}" for k, v in counts.items())
        return compose([_TEST_NAMES.get(c.test, c.test), corr, ", ", _ALPHA, f" = {c.alpha:g}, {n}; ", *mark,
                        f"; {best}.", *foot], fmt)

    def _marker_text(self, s: str, fmt: str) -> str:
        """A cell's marker (letters of run names, or ▲/▼: the package's own characters) for ``fmt``."""
        if not s:
            return ""
        if fmt == "latex":
            return "$^{" + s.replace("▲", r"\uparrow").replace("▼", r"\downarrow") + "}$"
        if fmt in ("md", "html"):
            return f"<sup>{s}</sup>"
        return s

    def summary(self) -> str:
        """The table as fixed-width text: each column as wide as its widest cell (the letters and markers of many
        runs stay in line); the best mean of a column marked ``*`` (legend in the caption)."""
        mk, best, letters = self._markers(), self._best(), self.letters()
        cols = self.measures
        head = ["", "run"] if self.baseline is None else ["run"]
        align = "<<" if self.baseline is None else "<"
        for m in cols:
            head += [text(m), ""]
            align += "><"
        rows = []
        for i, r in enumerate(self.runs):
            row = [f"({letters[r]})", text(r)] if self.baseline is None else [text(r)]
            for k in range(len(cols)):
                row += [_num(self.values[i, k]) + ("*" if best[i, k] else " "), mk[i][k]]
            rows.append(row)
        return "\n".join(text_table(head, rows, align) + ["", self._caption("text")])

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return (f"ComparisonTable({len(self.runs)} runs x {len(self.comparisons)} measures, "
                f"{'baseline ' + str(self.baseline) if self.baseline is not None else 'all pairs'})")

    def _rows(self, fmt: str, bold: Callable[[str], str], sep: str = "") -> list[tuple[str, list[str]]]:
        """The one layout of every format: (run label, cells) per row, the run's letter first in all-pairs tables,
        each mean to 4 decimals, the column's best through ``bold``, a non-empty marker after ``sep``, run names
        escaped by the format's one rule (:func:`gtheory.kit.render.escape`)."""
        mk, best, letters = self._markers(), self._best(), self.letters()
        rows = []
        for i, r in enumerate(self.runs):
            name = f"({letters[r]}) {escape(r, fmt)}" if self.baseline is None else escape(r, fmt)
            cells = []
            for k in range(len(self.comparisons)):
                v = _num(self.values[i, k])
                v = bold(v) if best[i, k] else v
                cells.append(v + sep + self._marker_text(mk[i][k], fmt))
            rows.append((name, cells))
        return rows

    def to_markdown(self) -> str:
        """GitHub-flavoured Markdown: means with markers, best bold; names, measures and the caption literal text
        (:func:`gtheory.kit.render.markdown`)."""
        cols = self.measures
        rows = [md_row(["run", *(markdown(c) for c in cols)]), "|---|" + "---:|" * len(cols)]
        for name, cells in self._rows("md", lambda v: f"**{v}**"):
            rows.append(md_row([name, *cells]))
        return "\n".join(rows) + "\n\n" + self._caption("md") + "\n"

    def to_latex(self, *, caption: str | None = None, label: str | None = None) -> str:
        """A LaTeX ``table`` with booktabs rules (``\\usepackage{booktabs}``): each measure is a pair of columns,
        the means right-aligned and their markers (superscripts: ``$\\uparrow$``/``$\\downarrow$`` against a
        baseline, the letters of the runs beaten otherwise) in a left-aligned column of their own, so long markers
        never push the means out of line; best bold; the caption's formulas as math (``$\\sigma^2 = V_E$``).
        A given ``caption`` is text (escaped); ``label`` is written as given."""
        cols = self.measures
        lines = [r"\begin{table}", r"\centering", r"\begin{tabular}{l" + "r@{}l" * len(cols) + "}", r"\toprule",
                 "Run & " + " & ".join(f"\\multicolumn{{2}}{{c}}{{{latex(c)}}}" for c in cols) + r" \\",
                 r"\midrule"]
        for name, cells in self._rows("latex", lambda v: f"\\textbf{{{v}}}", sep="&"):
            lines.append(f"{name} & " + " & ".join(cells) + r" \\")
        cap = latex(caption) if caption is not None else self._caption("latex")
        lines += [r"\bottomrule", r"\end{tabular}", f"\\caption{{{cap}}}"]
        if label:
            lines.append(f"\\label{{{label}}}")
        lines.append(r"\end{table}")
        return "\n".join(lines) + "\n"

    def _repr_html_(self) -> str:
        cols = self.measures
        out = ["<table><thead><tr><th>run</th>" + "".join(f"<th>{html(c)}</th>" for c in cols)
               + "</tr></thead><tbody>"]
        for name, cells in self._rows("html", lambda v: f"<b>{v}</b>"):
            out.append(f"<tr><td>{name}</td>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        out.append(f"</tbody></table><p>{self._caption('html')}</p>")
        return "".join(out)

    def to_csv(self, path: Any = None, *, raw: bool = False) -> str:
        """Runs x measures: each measure's mean and its marker column (``<measure>:sig``), in an all-pairs table after
        a first column ``letter`` (the run's letter, the key to the markers); also written to ``path`` if given;
        formula-like text cells neutralised unless ``raw`` (as :meth:`Comparison.to_csv`)."""
        import pandas as pd

        mk = self._markers()
        frame = pd.DataFrame({"run": list(self.runs)})
        if self.baseline is None:  # the key to the letters of the marker columns
            frame.insert(0, "letter", [_letter(i) for i in range(len(self.runs))])
        for k, m in enumerate(self.measures):
            frame[m] = self.values[:, k]
            frame[f"{m}:sig"] = [row[k] for row in mk]
        text = comparison_csv(frame, raw)
        if path is not None:
            from gtheory.kit import write_text

            write_text(path, text)
        return text

    def to_dict(self) -> dict[str, Any]:
        """The means, the baseline and every measure's comparison (its ``to_dict``) plus ``"format"``."""
        from gtheory.kit.jsonio import jsonable

        means = {"index": "run", "columns": [str(c) for c in self.measures],
                 "rows": [[r, *v] for r, v in zip(self.runs, np.asarray(self.values).tolist())]}
        return jsonable({"format": self.JSON_FORMAT, "baseline": self.baseline, "means": means,
                         "comparisons": {k: v.to_dict() for k, v in self.comparisons.items()}})

    @classmethod
    def from_json(cls, text_or_path: Any) -> "ComparisonTable":
        """A :class:`ComparisonTable` from :meth:`to_json` output, checked field by field (the means table, and each
        measure's comparison by :data:`experiments.compare.comparison.COMPARISON_SCHEMA`); a tampered document is
        refused with a :class:`gtheory.kit.errors.DocumentError` naming the field."""
        from gtheory.kit.errors import DocumentError
        from gtheory.kit.jsonio import table_back
        from gtheory.kit.schema import check_document, read_document

        fmt = cls.JSON_FORMAT
        d = read_document(text_or_path, fmt, _TABLE_SCHEMA)
        inner = Comparison.JSON_FORMAT
        comps = {}
        for k, v in d["comparisons"].items():
            if v.get("format") != inner:
                raise DocumentError(fmt, f"comparisons.{k}.format", f"must be {inner!r}; got {v.get('format')!r}")
            checked = check_document({f: x for f, x in v.items() if f != "format"}, COMPARISON_SCHEMA, fmt,
                                     prefix=f"comparisons.{k}.")
            comps[k] = _comparison_from(checked, fmt, prefix=f"comparisons.{k}.")
        means = table_back(d["means"], "means").astype(float)
        if not comps or list(means.columns) != list(comps):
            raise DocumentError(fmt, "means", f"must have one column per compared measure {list(comps)}; got "
                                              f"{list(means.columns)}")
        for k, c in comps.items():
            if set(c.systems) != set(means.index):
                raise DocumentError(fmt, f"comparisons.{k}.means", "must compare the runs of 'means'")
            if d["baseline"] != c.baseline:
                raise DocumentError(fmt, "baseline", f"must be the comparisons' baseline {c.baseline!r}; got "
                                                     f"{d['baseline']!r}")
        return cls(runs=tuple(means.index), values=means.to_numpy(dtype=np.float64), comparisons=comps,
                   baseline=d["baseline"])

    def plot(self, ax: "Axes | None" = None) -> "Axes":
        """The first measure's differences with their intervals (:meth:`Comparison.plot`)."""
        return self._first().plot(ax)


def _letter_order(s: str) -> tuple[int, str]:
    """The order of run letters: a .. z, then aa, ab, ...: by length, then alphabetically (the rows' order)."""
    return len(s), s


def _letter(i: int) -> str:
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(ord("a") + r) + s
    return s


@validate_params(n_resamples=N_RESAMPLES_RULE, continuity_correction=BOOLEAN)
def compare_measures(
    scores: Mapping[str, Any],
    *,
    test: str = "t",
    correction: str | None = None,
    baseline: Any = None,
    alpha: float = 0.05,
    seed: int | np.random.Generator | None = 0,
    n_resamples: int = 10000,
    effect_size: str = "sakai",
    systems: Sequence[Any] | None = None,
    top_k: int | None = None,
    continuity_correction: bool = True,
) -> ComparisonTable:
    """:func:`compare` for several measures, and the runs x measures table of a paper.

    Parameters
    ----------
    scores : mapping of measure name -> systems x topics matrix
        E.g. the result of :func:`metrics.evaluate` (one DataFrame per measure, the same runs).
    test, correction, baseline, alpha, seed, n_resamples, effect_size, continuity_correction
        As in :func:`compare`; every measure is tested the same way, with the same seed (a Generator gives one
        seed, drawn from it).
    systems, top_k
        The runs to show; ``top_k`` picks the best by the *first* measure (and keeps the baseline), and the same
        runs are used for every measure.

    Returns
    -------
    ComparisonTable
    """
    if not isinstance(scores, Mapping) or not scores:
        raise TypeError("`scores` must be a non-empty mapping of measure name -> systems x topics score matrix "
                        f"(e.g. metrics.evaluate's result); got {type(scores).__name__}.")
    names = list(scores)
    first = as_scores(scores[names[0]], f"scores[{names[0]!r}]", require_matrix=True, min_topics=2, arrays=True)
    kept = _select(first, systems, top_k, baseline)
    runs = list(kept.systems)
    if baseline is not None and baseline not in runs:
        if baseline not in first.systems:
            raise ValueError(f"`baseline` {baseline!r} is not one of the runs{did_you_mean(baseline, first.systems) or '.'}")
        runs.append(baseline)
    comps = {}
    seed = fixed_seed(seed)  # the same seed for every measure
    for name in names:
        s = as_scores(scores[name], f"scores[{name!r}]", require_matrix=True, min_topics=2, arrays=True)
        if missing := [r for r in runs if r not in s.systems]:
            raise ValueError(f"measure {name!r} lacks run(s) {', '.join(map(repr, missing[:5]))}: every measure must "
                             "cover the same runs.")
        comps[str(name)] = compare(scores[name], test=test, correction=correction, baseline=baseline, alpha=alpha,
                                   seed=seed, n_resamples=n_resamples, effect_size=effect_size, systems=runs,
                                   measure=str(name), continuity_correction=continuity_correction)
    labels = tuple(_label(r) for r in runs)
    values = np.empty((len(labels), len(comps)))
    for k, c in enumerate(comps.values()):
        mean = c.means_by_system()
        values[:, k] = [mean[r] for r in labels]
    return ComparisonTable(runs=labels, values=values, comparisons=comps,
                           baseline=None if baseline is None else _label(baseline))
