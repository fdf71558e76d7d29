r"""The runs x measures table of a paper: :func:`compare_measures` runs :func:`experiments.compare` for every measure and
lays out the means with markers of significant differences (:class:`ComparisonTable`: LaTeX with booktabs, Markdown,
HTML, CSV, JSON). Tests, corrections, effect sizes and their sources: :mod:`experiments.compare`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping, Sequence

import numpy as np
import pandas as pd

from gtheory.kit.checks import fixed_seed
from gtheory.kit.jsonio import JsonResult

from experiments._validation import TIE_REL, as_scores
from experiments.compare import (N_RESAMPLES_RULE, _TEST_NAMES, Comparison, _csv, _label, _md, _select, _tex,
                                 compare)
from gtheory.kit.params import BOOLEAN, validate_params

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["compare_measures", "ComparisonTable"]



@dataclass(frozen=True, eq=False)
class ComparisonTable(JsonResult):
    """Runs x measures table of means with markers of significant differences (:func:`compare_measures`).

    With a baseline, a cell is marked ▲ (significantly better than the baseline) or ▼ (worse). Without one, each run
    gets a letter (a, b, c, ... in row order) and a cell lists, as superscripts, the letters of the runs it is
    significantly better than (the convention of ranx and of many IR papers). The best mean of each column is bold.

    Attributes
    ----------
    means : DataFrame
        Runs (rows, in the order given or best first by the first measure) x measures.
    comparisons : dict
        The :class:`Comparison` of each measure.
    baseline : str or None
        The baseline, or None for all pairs.
    """

    means: pd.DataFrame = field(repr=False)
    comparisons: dict = field(repr=False)
    baseline: str | None = None

    JSON_FORMAT: ClassVar[str] = "gtheory.experiments.ComparisonTable/1"

    def _first(self) -> Comparison:
        return next(iter(self.comparisons.values()))

    def letters(self) -> dict[str, str]:
        """Run -> its letter (all-pairs tables)."""
        return {r: _letter(i) for i, r in enumerate(self.means.index)}

    def markers(self) -> pd.DataFrame:
        """Runs x measures: the marker text of each cell ('▲', '▼', letters, or '')."""
        out = pd.DataFrame("", index=self.means.index, columns=self.means.columns)
        letters = self.letters()
        for meas, c in self.comparisons.items():
            t = c.table[c.table["significant"]]
            for r in t.itertuples(index=False):
                if self.baseline is not None:
                    out.loc[r.a, meas] += "▲" if r.diff > 0 else "▼"
                else:
                    win, lose = (r.a, r.b) if r.diff > 0 else (r.b, r.a)
                    out.loc[win, meas] += letters[lose]
            if self.baseline is None:
                out[meas] = out[meas].map(lambda s: "".join(sorted(s)))
        return out

    def _best(self) -> pd.DataFrame:
        """Runs x measures: the column's best mean, ties decided with :data:`gtheory.kit.ties.TIE_REL` of the
        column's largest |mean| (means equal in exact arithmetic but summed in another order are both best)."""
        m = self.means
        top = m.max(axis=0)
        tol = TIE_REL * m.abs().max(axis=0)
        return m.ge(top - tol, axis=1)

    def _caption(self) -> str:
        c = self._first()
        corr = "" if c.correction == "none" else f", {c.correction} correction"
        if self.baseline is not None:
            mark = f"▲/▼: significantly better/worse than {self.baseline}"
        else:
            mark = "superscripts: the runs (by letter) a run is significantly better than"
        foot = "; ".join(f"{m}: {v.min_detectable_difference:.3g}" for m, v in self.comparisons.items()
                         if np.isfinite(v.min_detectable_difference))
        foot = (f" Minimum detectable difference (paired t, power 0.8, sigma^2 = V_E): {foot}." if foot else "")
        counts = {m: v.n_topics for m, v in self.comparisons.items()}
        if len(set(counts.values())) == 1:
            topics = f"{c.n_topics} topics"
        else:  # measures over different topics: each with its own count
            topics = "topics: " + ", ".join(f"{k} {v}" for k, v in counts.items())
        return (f"{_TEST_NAMES[c.test]}{corr}, alpha = {c.alpha:g}, {topics}; {mark}; "
                f"bold: best in column.{foot}")

    def summary(self) -> str:
        """The table as text."""
        mk = self.markers()
        letters = self.letters()
        w = max(len(str(r)) for r in self.means.index) + (4 if self.baseline is None else 0)
        head = f"{'run':<{w}}" + "".join(f"  {m:>14}" for m in self.means.columns)
        lines = [head]
        for r in self.means.index:
            name = f"({letters[r]}) {r}" if self.baseline is None else str(r)
            cells = "".join(f"  {self.means.loc[r, m]:>8.4f}{mk.loc[r, m]:<6}" for m in self.means.columns)
            lines.append(f"{name:<{w}}{cells}")
        return "\n".join(lines + ["", self._caption()])

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return (f"ComparisonTable({len(self.means)} runs x {self.means.shape[1]} measures, "
                f"{'baseline ' + str(self.baseline) if self.baseline is not None else 'all pairs'})")

    def _rows(self, escape: Callable[[Any], str], bold: Callable[[str], str],
              mark: Callable[[str], str]) -> list[tuple[str, list[str]]]:
        """The one layout of every format: (run label, cells) per row, the run's letter first in all-pairs tables,
        each mean to 4 decimals, the column's best through ``bold``, a non-empty marker through ``mark``, run names
        through the format's ``escape``."""
        mk, best, letters = self.markers(), self._best(), self.letters()
        rows = []
        for r in self.means.index:
            name = f"({letters[r]}) {escape(r)}" if self.baseline is None else escape(r)
            cells = []
            for m in self.means.columns:
                v = f"{self.means.loc[r, m]:.4f}"
                v = bold(v) if best.loc[r, m] else v
                cells.append(v + (mark(mk.loc[r, m]) if mk.loc[r, m] else ""))
            rows.append((name, cells))
        return rows

    def to_markdown(self) -> str:
        """GitHub-flavoured Markdown: means with markers, best bold."""
        cols = list(self.means.columns)
        rows = ["| run | " + " | ".join(map(_md, cols)) + " |", "|---|" + "---:|" * len(cols)]
        for name, cells in self._rows(_md, lambda v: f"**{v}**", lambda s: f"<sup>{s}</sup>"):
            rows.append(f"| {name} | " + " | ".join(cells) + " |")
        return "\n".join(rows) + "\n\n" + self._caption() + "\n"

    def to_latex(self, *, caption: str | None = None, label: str | None = None) -> str:
        """A LaTeX ``table`` with booktabs rules (``\\usepackage{booktabs}``): means, markers as superscripts
        (``$^{\\blacktriangle}$`` needs amssymb, so ``$\\uparrow$``/``$\\downarrow$`` are used), best bold."""
        cols = list(self.means.columns)
        lines = [r"\begin{table}", r"\centering", r"\begin{tabular}{l" + "r" * len(cols) + "}", r"\toprule",
                 "Run & " + " & ".join(_tex(c) for c in cols) + r" \\", r"\midrule"]
        for name, cells in self._rows(_tex, lambda v: f"\\textbf{{{v}}}", _tex_marker):
            lines.append(f"{name} & " + " & ".join(cells) + r" \\")
        cap = caption if caption is not None else self._caption()
        cap = _tex(cap).replace("▲/▼", r"$\uparrow$/$\downarrow$")
        lines += [r"\bottomrule", r"\end{tabular}", f"\\caption{{{cap}}}"]
        if label:
            lines.append(f"\\label{{{label}}}")
        lines.append(r"\end{table}")
        return "\n".join(lines) + "\n"

    def _repr_html_(self) -> str:
        import html

        cols = list(self.means.columns)
        out = ["<table><thead><tr><th>run</th>" + "".join(f"<th>{html.escape(str(c))}</th>" for c in cols)
               + "</tr></thead><tbody>"]
        for name, cells in self._rows(lambda r: html.escape(str(r)), lambda v: f"<b>{v}</b>",
                                      lambda s: f"<sup>{s}</sup>"):
            out.append(f"<tr><td>{name}</td>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        out.append(f"</tbody></table><p>{html.escape(self._caption())}</p>")
        return "".join(out)

    def to_csv(self, path: Any = None, *, raw: bool = False) -> str:
        """Runs x measures: each measure's mean and its marker column (``<measure>:sig``); also written to ``path``
        if given; formula-like text cells neutralised unless ``raw`` (as :meth:`Comparison.to_csv`)."""
        mk = self.markers()
        frame = pd.DataFrame({"run": list(self.means.index)})
        for m in self.means.columns:
            frame[m] = self.means[m].to_numpy()
            frame[f"{m}:sig"] = mk[m].to_numpy()
        text = _csv(frame, raw)
        if path is not None:
            from gtheory.kit import write_text

            write_text(path, text)
        return text

    def to_dict(self) -> dict[str, Any]:
        """The means, the baseline and every measure's comparison (its ``to_dict``) plus ``"format"``."""
        from gtheory.kit.jsonio import jsonable, table

        return jsonable({"format": self.JSON_FORMAT, "baseline": self.baseline,
                         "means": table(self.means.rename_axis("run")),
                         "comparisons": {k: v.to_dict() for k, v in self.comparisons.items()}})

    @classmethod
    def from_json(cls, text_or_path: Any) -> "ComparisonTable":
        """A :class:`ComparisonTable` from :meth:`to_json` output."""
        import json

        from gtheory.kit.jsonio import load_document, table_back

        d = load_document(text_or_path, cls.JSON_FORMAT)
        means = table_back(d["means"], "means")
        means = means.astype(float)
        comps = {k: Comparison.from_json(json.dumps(v)) for k, v in d["comparisons"].items()}
        return cls(means=means, comparisons=comps, baseline=d.get("baseline"))

    def plot(self, ax: "Axes | None" = None) -> "Axes":
        """The first measure's differences with their intervals (:meth:`Comparison.plot`)."""
        return self._first().plot(ax)


def _tex_marker(s: str) -> str:
    """A cell's marker as a LaTeX superscript (arrows: ▲/▼ need amssymb)."""
    return "$^{" + s.replace("▲", r"\uparrow").replace("▼", r"\downarrow") + "}$"


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
    first = as_scores(scores[names[0]], f"scores[{names[0]!r}]", require_matrix=True, min_topics=2)
    kept = _select(first, systems, top_k, baseline)
    runs = list(kept.systems)
    if baseline is not None and baseline not in runs:
        if baseline not in first.systems:
            raise ValueError(f"`baseline` {baseline!r} is not one of the runs.")
        runs.append(baseline)
    comps = {}
    seed = fixed_seed(seed)  # the same seed for every measure
    for name in names:
        s = as_scores(scores[name], f"scores[{name!r}]", require_matrix=True, min_topics=2)
        if missing := [r for r in runs if r not in s.systems]:
            raise ValueError(f"measure {name!r} lacks run(s) {', '.join(map(repr, missing[:5]))}: every measure must "
                             "cover the same runs.")
        comps[str(name)] = compare(scores[name], test=test, correction=correction, baseline=baseline, alpha=alpha,
                                   seed=seed, n_resamples=n_resamples, effect_size=effect_size, systems=runs,
                                   measure=str(name), continuity_correction=continuity_correction)
    means = pd.DataFrame({n: c.means.reindex([_label(r) for r in runs]) for n, c in comps.items()})
    means.index.name = None
    return ComparisonTable(means=means, comparisons=comps, baseline=None if baseline is None else _label(baseline))
