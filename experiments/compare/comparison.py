r"""The result of :func:`experiments.compare`: :class:`Comparison`, one row per pair of systems, with its outputs (text,
Markdown, LaTeX, HTML, CSV, JSON and its schema, a plot) and the number formats they share with
:class:`experiments.ComparisonTable`.
"""
from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Mapping

import numpy as np

from gtheory.kit.display import fmt, html_table, kv_table
from gtheory.kit.jsonio import JsonResult
from gtheory.kit.render import Math, compose, latex, markdown, md_row, plot_label, text, text_table

from .registry import CORRECTIONS, TEST_REGISTRY, TESTS, correction_named, test_named

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["Comparison", "COMPARISON_SCHEMA", "PAIR_COLUMNS"]

_TEST_NAMES = {t.name: t.title for t in TEST_REGISTRY}
_ALPHA = Math(r"\alpha", "alpha")
_TABLE_FLOATS = ("mean_a", "mean_b", "diff", "ci_lo", "ci_hi", "statistic", "p", "p_adjusted", "effect_size")
#: the columns of a comparison's table, in order
PAIR_COLUMNS = ("a", "b", *_TABLE_FLOATS, "significant")
#: one pair (row of the table) as the outputs read it: plain Python values
_Pair = namedtuple("_Pair", PAIR_COLUMNS)


def _num(x: float, digits: int = 4) -> str:
    """A score, difference or interval end with ``digits`` decimals, or in scientific notation with ``digits``
    significant digits when decimals cannot show it (scores in other units: |x| >= 1e5, or 0 < |x| < 10^-digits),
    so that scores x 1e160 do not print as 160-digit numbers nor scores x 1e-155 as 0.0000."""
    if not np.isfinite(x):
        return str(float(x))
    if x != 0 and not 10.0 ** -digits <= abs(x) < 1e5:
        return f"{x:.{digits - 1}e}"
    return f"{x:.{digits}f}"


def _fmt_p(p: float) -> str:
    if not np.isfinite(p):
        return "nan"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


@dataclass(frozen=True, eq=False)
class Comparison(JsonResult):
    """Pairwise comparison of systems on one measure (:func:`compare`).

    Attributes
    ----------
    test, correction : str
        The test (:data:`TESTS`) and the multiple-comparison correction (``"none"`` for none).
    alpha : float
        Significance level; intervals are at level 1 - alpha.
    baseline : str or None
        The baseline every system was compared with, or None for all pairs.
    effect_size : str
        ``"sakai"`` (difference / sqrt(V_E)) or ``"dz"`` (Cohen's d_z).
    measure : str or None
        The measure's name, if known.
    n_systems, n_topics : int
        Size of the compared matrix.
    n_resamples : int
        Resamples of the randomisation, bootstrap and Tukey tests (0 for the others).
    exact : bool
        The randomisation test enumerated all sign vectors (False for the other tests).
    seed : int or None
        The seed of the randomised tests.
    residual_variance : float
        V_E of the two-way ANOVA of the compared matrix (Sakai's effect-size denominator).
    pairs : dict of str -> ndarray
        The table's columns (:data:`PAIR_COLUMNS`), one entry per pair: ``a`` and ``b`` the names (object arrays of
        str), the numbers float64, ``significant`` bool. The outputs are made from these, without pandas.
    systems : tuple of str
        The compared systems, best first.
    system_means : ndarray
        Their mean scores, in the order of ``systems``.
    means : Series
        Mean score per compared system (best first): ``system_means`` indexed by ``systems``, built on first access.
    min_detectable_difference : float
        The true difference in means that a paired t-test on this many topics detects with power 0.8 at ``alpha``,
        with sigma^2 = V_E (Sakai's topic set size design, :func:`gtheory.topic_set_size`): differences much smaller
        than this are unlikely to come out significant here, whatever the test.
    table : DataFrame
        One row per pair: ``a``, ``b``, ``mean_a``, ``mean_b``, ``diff`` (mean_a - mean_b), ``ci_lo``, ``ci_hi``,
        ``statistic``, ``p``, ``p_adjusted``, ``effect_size``, ``significant``: ``pairs`` as a frame, built on first
        access.
    """

    test: str
    correction: str
    alpha: float
    baseline: str | None
    effect_size: str
    measure: str | None
    n_systems: int
    n_topics: int
    n_resamples: int
    exact: bool
    seed: int | None
    residual_variance: float
    pairs: Mapping[str, np.ndarray] = field(repr=False)
    systems: tuple = field(repr=False)
    system_means: np.ndarray = field(repr=False)
    min_detectable_difference: float = math.nan

    JSON_FORMAT: ClassVar[str] = "gtheory.experiments.Comparison/1"
    #: the fields held as arrays, written as ``means`` and ``table`` in the JSON document
    _ARRAY_FIELDS: ClassVar[tuple[str, ...]] = ("pairs", "systems", "system_means")

    def __post_init__(self) -> None:
        """The arrays in their types (names: object arrays of str; numbers float64; ``significant`` bool), read-only
        (``table`` and ``means`` are built from them once), checked for one entry per
        pair and one mean per system: a result made by hand is refused before it renders wrongly."""
        missing = [c for c in PAIR_COLUMNS if c not in self.pairs]
        if missing:
            raise ValueError(f"`pairs` must hold the columns {list(PAIR_COLUMNS)}; missing {missing}")
        cols = {}
        for c in PAIR_COLUMNS:
            v = self.pairs[c]
            if c in ("a", "b"):
                a = np.empty(len(v), dtype=object)
                a[:] = [str(x) for x in v]
            else:
                a = np.array(v, dtype=bool if c == "significant" else np.float64)
            if a.ndim != 1:
                raise ValueError(f"`pairs[{c!r}]` must be one-dimensional; got shape {a.shape}")
            a.setflags(write=False)
            cols[c] = a
        sizes = {len(a) for a in cols.values()}
        if len(sizes) != 1:
            raise ValueError(f"`pairs` must give every column one entry per pair; got lengths "
                             f"{ {c: len(a) for c, a in cols.items()} }")
        means = np.array(self.system_means, dtype=np.float64)
        systems = tuple(str(x) for x in self.systems)
        if means.shape != (len(systems),):
            raise ValueError(f"`system_means` must give one mean per system ({len(systems)}); got shape "
                             f"{means.shape}")
        means.setflags(write=False)
        object.__setattr__(self, "pairs", cols)
        object.__setattr__(self, "systems", systems)
        object.__setattr__(self, "system_means", means)

    @cached_property
    def table(self) -> "pd.DataFrame":
        """One row per pair (the class docstring), built from ``pairs`` on first access."""
        import pandas as pd

        cols = {c: (list(self.pairs[c]) if c in ("a", "b") else self.pairs[c].copy()) for c in PAIR_COLUMNS}
        return pd.DataFrame(cols)

    @cached_property
    def means(self) -> "pd.Series":
        """Mean score per compared system, best first (``system_means`` indexed by ``systems``)."""
        import pandas as pd

        return pd.Series(self.system_means.copy(), index=list(self.systems), name="mean", dtype=float)

    @property
    def n_pairs(self) -> int:
        """Number of pairs (rows of the table)."""
        return len(self.pairs["a"])

    def rows(self) -> list[tuple]:
        """The pairs as named tuples of plain Python values (fields :data:`PAIR_COLUMNS`), in the table's order."""
        return [_Pair(*v) for v in zip(*(self.pairs[c].tolist() for c in PAIR_COLUMNS))]

    def means_by_system(self) -> dict[str, float]:
        """System -> its mean score."""
        return dict(zip(self.systems, self.system_means.tolist()))

    def _footnote(self) -> str:
        if not np.isfinite(self.min_detectable_difference):
            return ""
        return (f"with {self.n_topics} topics a paired t-test detects a true difference of "
                f"{self.min_detectable_difference:.3g} with power 0.8 at alpha = {self.alpha:g} "
                "(Sakai's topic set size design, sigma^2 = V_E)")

    @property
    def n_significant(self) -> int:
        """Number of significant pairs."""
        return int(np.count_nonzero(self.pairs["significant"]))

    def _title(self, fmt: str = "text") -> str:
        """The table's title for ``fmt`` (:mod:`gtheory.kit.render`: names and measure escaped)."""
        what = [self.measure, ": "] if self.measure else []
        against = ["against ", self.baseline] if self.baseline is not None else ["all pairs"]
        if self.correction != "none":
            corr = f", {correction_named(self.correction).title}-corrected"
        else:  # Tukey's HSD controls the family itself: nothing is missing to say
            corr = "" if test_named(self.test).controls_family else ", uncorrected"
        return compose([*what, _TEST_NAMES.get(self.test, self.test), ", ", *against, corr, ", ", _ALPHA,
                        f" = {self.alpha:g}, {self.n_topics} topics"], fmt)

    def summary(self) -> str:
        """The pairs table as text (numbers rounded for display only; significant pairs marked ``*``)."""
        lines = [self._title(),
                 f"{self.n_significant} of {self.n_pairs} pair{'s' * (self.n_pairs != 1)} significant (*); effect size "
                 f"{'diff/sqrt(V_E)' if self.effect_size == 'sakai' else 'Cohen d_z'}; intervals "
                 f"{100 * (1 - self.alpha):g}% paired-t, per pair"]
        if self._footnote():
            lines.append(f"minimum detectable difference: {self._footnote()}")
        rows = [[text(r.a), text(r.b), _num(r.diff), f"[{_num(r.ci_lo):>8}, {_num(r.ci_hi):>8}]", _fmt_p(r.p),
                 _fmt_p(r.p_adjusted), f"{r.effect_size:.2f}", "*" if r.significant else ""]
                for r in self.rows()]
        lines += text_table(["a", "b", "diff", "interval", "p", "p adj", "ES", ""], rows, "<<>>>>><")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return (f"Comparison({self.test}, {self.correction}, {self.n_significant}/{self.n_pairs} pairs "
                f"significant at {self.alpha:g}; {self.n_systems} systems, {self.n_topics} topics)")

    def _repr_html_(self) -> str:
        head = kv_table(f"Comparison — {self._title()}", {
            "significant pairs": f"{self.n_significant} of {self.n_pairs}",
            "V_E": fmt(self.residual_variance, 4)})
        return head + html_table(self.rows(), header=list(PAIR_COLUMNS))

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain JSON values plus ``"format"``; non-finite numbers are None."""
        from gtheory.kit.jsonio import jsonable

        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in self._ARRAY_FIELDS}
        table = {"index": None, "columns": list(PAIR_COLUMNS), "rows": [list(r) for r in self.rows()]}
        return jsonable({"format": self.JSON_FORMAT, **d, "means": {"systems": list(map(str, self.systems)),
                                                                   "values": self.system_means},
                         "table": table})

    @classmethod
    def from_json(cls, text_or_path: Any) -> "Comparison":
        """A :class:`Comparison` from :meth:`to_json` output (text or a file path), checked field by field against
        :data:`COMPARISON_SCHEMA` (:func:`gtheory.kit.schema.read_document`): a tampered or truncated document is
        refused with a :class:`gtheory.kit.errors.DocumentError` naming the field."""
        from gtheory.kit.schema import read_document

        return _comparison_from(read_document(text_or_path, cls.JSON_FORMAT, COMPARISON_SCHEMA), cls.JSON_FORMAT)

    def to_csv(self, path: Any = None, *, raw: bool = False) -> str:
        """The pairs table as CSV text; also written to ``path`` if given (:func:`gtheory.kit.write_text`: atomic for a
        file, written through for a device or pipe). Text cells that a spreadsheet would run as a formula get a
        leading ``'`` (:func:`gtheory.kit.csv_safe`) unless ``raw``."""
        text = comparison_csv(self.table, raw)
        if path is not None:
            from gtheory.kit import write_text

            write_text(path, text)
        return text

    def to_markdown(self) -> str:
        """The pairs table as a GitHub-flavoured Markdown table (significant pairs marked ``*``); names and the title
        are literal text (:func:`gtheory.kit.render.markdown`: no live HTML, link or cell break)."""
        rows = [md_row(["a", "b", "diff", "interval", "p", "p adj.", "ES", ""]),
                "|---|---|---:|---:|---:|---:|---:|---|"]
        for r in self.rows():
            rows.append(md_row([markdown(r.a), markdown(r.b), _num(r.diff), f"[{_num(r.ci_lo)}, {_num(r.ci_hi)}]",
                                markdown(_fmt_p(r.p)), markdown(_fmt_p(r.p_adjusted)), f"{r.effect_size:.2f}",
                                "\\*" if r.significant else ""]))
        return f"{self._title('md')}\n\n" + "\n".join(rows) + "\n\n\\*: significant\n"

    def to_latex(self) -> str:
        """The pairs table as a LaTeX ``table`` with booktabs rules (``\\usepackage{booktabs}``); names escaped
        (:func:`gtheory.kit.render.latex`: specials as text commands, newlines as spaces)."""
        lines = [r"\begin{table}", r"\centering", r"\begin{tabular}{llrrrrr}", r"\toprule",
                 r"$a$ & $b$ & $\bar d$ & CI & $p$ & $p_{\mathrm{adj}}$ & ES \\", r"\midrule"]
        for r in self.rows():
            d = f"\\textbf{{{_num(r.diff)}}}" if r.significant else _num(r.diff)
            lines.append(f"{latex(r.a)} & {latex(r.b)} & {d} & [{_num(r.ci_lo)}, {_num(r.ci_hi)}] & "
                         f"{latex(_fmt_p(r.p))} & {latex(_fmt_p(r.p_adjusted))} & {r.effect_size:.2f} \\\\")
        lines += [r"\bottomrule", r"\end{tabular}", f"\\caption{{{self._title('latex')}; bold: significant.}}",
                  r"\end{table}"]
        return "\n".join(lines) + "\n"

    def plot(self, ax: "Axes | None" = None) -> "Axes":
        """The differences with their intervals, one line per pair (significant ones filled); names shown literally
        (:func:`gtheory.kit.render.plot_label`: never parsed as mathtext)."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 0.3 * self.n_pairs + 1.2))
        t = self.pairs
        y = np.arange(self.n_pairs)[::-1]
        ax.hlines(y, t["ci_lo"], t["ci_hi"], color="0.4")
        sig = t["significant"]
        ax.plot(t["diff"][sig], y[sig], "o", color="C0", label="significant")
        ax.plot(t["diff"][~sig], y[~sig], "o", mfc="white", color="C0", label="not significant")
        ax.axvline(0.0, color="0.7", lw=0.8)
        ax.set_yticks(y, [plot_label(f"{a} − {b}") for a, b in zip(t["a"], t["b"])])
        ax.set_xlabel(plot_label(f"difference in mean {self.measure or 'score'} ({100 * (1 - self.alpha):g}% "
                                 "interval)"))
        ax.set_title(self._title("plot"), fontsize="small")
        ax.legend(fontsize="small")
        return ax


def comparison_csv(frame: "pd.DataFrame", raw: bool = False) -> str:
    """A comparison's table (or several, concatenated) as CSV text: no index, numbers with 10 significant digits,
    text cells that a spreadsheet would run as a formula neutralised unless ``raw``."""
    from gtheory.kit import csv_safe

    return (frame if raw else csv_safe(frame)).to_csv(index=False, float_format="%.10g")


def _comparison_schema() -> dict[str, Any]:
    from gtheory.kit.schema import choice, count, flag, integer, list_of, obj, real, table, text

    number = real(nullable=True, null_as=math.nan)  # a non-finite number is written as null
    p = real(0.0, 1.0, nullable=True, null_as=math.nan)
    return {
        "test": choice(*TESTS), "correction": choice("none", *CORRECTIONS), "alpha": real(0.0, 1.0, low_open=True,
                                                                                        high_open=True),
        "baseline": text(nullable=True), "effect_size": choice("sakai", "dz"), "measure": text(nullable=True),
        "n_systems": integer(2), "n_topics": integer(2), "n_resamples": integer(0), "exact": flag(),
        "seed": integer(0, nullable=True), "residual_variance": real(0.0, nullable=True, null_as=math.nan),
        "means": obj({"systems": list_of(text()), "values": list_of(number)}),
        "table": table({"a": text(), "b": text(), **{c: number for c in _TABLE_FLOATS if c not in ("p", "p_adjusted")},
                        "p": p, "p_adjusted": p, "significant": flag()}),
        "min_detectable_difference": real(0.0, nullable=True, null_as=math.nan, required=False, default=math.nan),
    }


#: the declared schema of a :class:`Comparison` document (field -> rule, :mod:`gtheory.kit.schema`)
COMPARISON_SCHEMA: dict[str, Any] = _comparison_schema()


def _comparison_from(d: dict[str, Any], fmt: str, prefix: str = "") -> Comparison:
    """A :class:`Comparison` from its checked fields, after the checks between fields (the means of the compared
    systems, the pairs' names, Tukey without a correction); ``prefix`` names where the comparison sits in a larger
    document (``"comparisons.AP."``)."""
    from gtheory.kit.errors import DocumentError
    from gtheory.kit.jsonio import table_back

    systems, values = d["means"]["systems"], d["means"]["values"]
    if len(systems) != len(values) or len(systems) != d["n_systems"] or len(set(systems)) != len(systems):
        raise DocumentError(fmt, prefix + "means", f"must give one mean for each of the n_systems = "
                                                   f"{d['n_systems']} distinct systems; got {len(systems)} systems, "
                                                   f"{len(values)} values")
    if d["baseline"] is not None and d["baseline"] not in systems:
        raise DocumentError(fmt, prefix + "baseline",
                            f"must be one of the compared systems; got {d['baseline']!r}")
    if d["test"] == "tukey-hsd" and d["correction"] != "none":
        raise DocumentError(fmt, prefix + "correction", "must be 'none' with test 'tukey-hsd' (it controls the "
                                                        f"family-wise error itself); got {d['correction']!r}")
    frame = table_back(d["table"], "table", _TABLE_FLOATS)
    m = d["n_systems"]
    want = m - 1 if d["baseline"] is not None else m * (m - 1) // 2
    if len(frame) != want:
        raise DocumentError(fmt, prefix + "table", f"must have one row per pair of the {m} systems "
                                                   f"({'each against the baseline' if d['baseline'] is not None else 'all pairs'}: "
                                                   f"{want} rows); got {len(frame)}")
    known = set(systems)
    for col in ("a", "b"):
        if not frame[col].isin(known).all():
            bad = frame.loc[~frame[col].isin(known), col].iloc[0]
            raise DocumentError(fmt, prefix + f"table.{col}",
                                f"must name compared systems (those of 'means'); got {bad!r}")
    kw = {k: d[k] for k in d if k not in ("table", "means")}  # the arrays are typed by Comparison.__post_init__
    return Comparison(**kw, pairs={c: frame[c].to_numpy() for c in PAIR_COLUMNS}, systems=systems,
                      system_means=values)


def _label(x: Any) -> Any:
    if isinstance(x, np.generic):
        x = x.item()
    return x if isinstance(x, str) else str(x)
