r"""Compare systems as IR papers do: paired tests per pair, multiple-comparison correction, effect sizes, intervals.

:func:`compare` tests every pair of systems (or every system against a baseline) on one systems x topics score
matrix and returns a :class:`Comparison`: one row per pair with both means, the difference and its interval, the
test statistic, the p-value and the corrected p-value, the effect size and the verdict. :func:`compare_measures`
does the same for several measures and lays the means out as the runs x measures table of a paper
(:class:`ComparisonTable`: LaTeX with booktabs, Markdown, HTML, CSV), with markers of significant differences.

Tests (all two-sided; ``d_j = x_{a,j} - x_{b,j}`` the per-topic differences of the pair, n topics), declared once
in :mod:`experiments.compare_registry` and computed in :mod:`experiments.compare_tests`:

* ``"t"`` — the paired t-test, :math:`t = \bar d / (s_d/\sqrt n)` on n - 1 degrees of freedom
  (:func:`scipy.stats.ttest_rel`);
* ``"wilcoxon"`` — the Wilcoxon signed-rank test (:func:`scipy.stats.wilcoxon`; exact null distribution when
  n <= 50 without zeros or ties, the normal approximation otherwise, with the continuity correction of R's
  ``wilcox.test`` unless ``continuity_correction=False``; zeros dropped);
* ``"sign"`` — the sign test: the number of positive differences among the non-zero ones is Binomial(n', 1/2)
  under H0 (:func:`scipy.stats.binomtest`);
* ``"randomization"`` — Fisher's paired randomisation (permutation) test: under H0 each difference's sign is a
  fair coin, :math:`p = \#\{s : |\sum_j s_j d_j| \ge |\sum_j d_j|\} / N`. Exact (all :math:`N = 2^n` sign
  vectors, counted by meeting in the middle) when :math:`2^n` is at most ``n_resamples``; otherwise
  ``n_resamples`` random sign vectors shared by all pairs, drawn in blocks, and the unbiased estimate
  :math:`p = (k + 1)/(B + 1)` (Phipson & Smyth 2010) — never 0;
* ``"bootstrap"`` — Sakai's paired studentised bootstrap test (:func:`experiments.bootstrap_asl`, Sakai 2006),
  ``n_resamples`` replicates shared by all pairs;
* ``"tukey-hsd"`` — the randomised Tukey HSD (:func:`experiments.tukey_hsd_randomised`, Carterette 2012), which
  controls the family-wise error over all pairs of the compared systems itself (no further correction).

Corrections (``correction``): ``"holm"``, ``"bonferroni"``, ``"bh"`` (Benjamini–Hochberg), ``"by"``
(Benjamini–Yekutieli), ``"sidak"``, ``"holm-sidak"``, ``"hommel"`` — computed by statsmodels'
:func:`~statsmodels.stats.multitest.multipletests` over the pairs of the table, one call per table (Holm computed
here: statsmodels' collects garbage on every call); a pair is significant when its (adjusted) p-value is at most
``alpha`` (statsmodels' rule). When the smallest p-value the test can give is above the correction's smallest
threshold, a warning says how many resamples are needed.

Units: every statistic is computed on the scores divided by a power of two at their largest magnitude, so p-values
and effect sizes do not depend on the units; V_E at rounding level (below 1e-9 of the scores' magnitude) is 0.

Effect sizes (``effect_size``): ``"sakai"`` — :math:`\bar d / \sqrt{V_E}`, with :math:`V_E` the residual mean
square of the two-way systems x topics ANOVA without replication over all compared systems (Sakai, *Statistical
reform in information retrieval?*, SIGIR Forum 2014; *Laboratory Experiments in IR*, 2018, ch. 5); ``"dz"`` —
Cohen's :math:`d_z = \bar d / s_d`.

The interval of each difference is the paired-t interval :math:`\bar d \pm t_{1-\alpha/2,\,n-1}\, s_d/\sqrt n`
at level 1 - ``alpha``, per pair (not simultaneous), whatever the test.

Ties follow the rest of the package: differences equal in exact arithmetic are made equal before ranking or
counting (:data:`gtheory.kit.ties.TIE_REL`), so discrete measures (P@10) are not decided by rounding.

References
----------
T. Sakai. Statistical significance, power, and sample sizes: a systematic review of SIGIR and TOIS, 2006-2015.
SIGIR 2016. — B. Carterette. Multiple testing in statistical analysis of systems-based IR experiments. TOIS 30(1),
2012. — M. D. Smucker, J. Allan, B. Carterette. A comparison of statistical significance tests for IR evaluation.
CIKM 2007. — B. Phipson, G. K. Smyth. Permutation p-values should never be zero. SAGMB 9(1), 2010.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, Sequence

import numpy as np
import pandas as pd

from gtheory.kit.display import fmt, html_table, kv_table
from gtheory.kit.render import Math, compose, latex, markdown, md_row, plot_label, text, text_table
from gtheory.kit.jsonio import JsonResult

from gtheory.kit.params import BOOLEAN, integer, validate_params
from gtheory.kit.ties import tie_values

from experiments import compare_registry as _registry
from experiments import compare_tests as _tests
from gtheory.kit.checks import check_choice
from gtheory.kit.ties import TIE_REL
from experiments._validation import Scores, keep_top_k, pair_indices, score_matrix
from experiments.compare_tests import MAX_RESAMPLES
from experiments.pairwise_tests import _exact_differences

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["compare", "Comparison", "COMPARISON_SCHEMA", "TESTS", "CORRECTIONS", "residual_variance"]

#: the tests of :func:`compare` (:data:`experiments.compare_registry.TEST_REGISTRY`)
TESTS: tuple[str, ...] = _registry.TESTS
#: correction name -> statsmodels' ``multipletests`` method (:data:`experiments.compare_registry.CORRECTION_REGISTRY`)
CORRECTIONS: dict[str, str] = _registry.CORRECTIONS
_TEST_NAMES = {t.name: t.title for t in _registry.TEST_REGISTRY}
_ALPHA = Math(r"\alpha", "alpha")
_TABLE_FLOATS = ("mean_a", "mean_b", "diff", "ci_lo", "ci_hi", "statistic", "p", "p_adjusted", "effect_size")


# ----------------------------------------------------------------------------------------------- V_E


def residual_variance(values: np.ndarray) -> float:
    r""":math:`V_E`, the residual mean square of the two-way ANOVA without replication of a systems x topics matrix:
    :math:`\sum_{ij}(x_{ij} - \bar x_{i\cdot} - \bar x_{\cdot j} + \bar x)^2 / ((m-1)(n-1))` (computed on the
    doubly-centred matrix, so an offset in the scores does not cost precision)."""
    m, n = values.shape
    r = values - values.mean(axis=1, keepdims=True) - values.mean(axis=0, keepdims=True) + values.mean()
    return float(np.einsum("ij,ij->", r, r) / ((m - 1) * (n - 1)))


def _unit(X: np.ndarray) -> float:
    """The power of two at or just above the largest |score| (1 for an all-zero matrix): dividing by it is exact, so
    the standardised scores of ``X`` and of ``X * 10**k`` differ only by the rounding of the product."""
    top = float(np.abs(X).max())
    if top == 0.0:
        return 1.0
    return math.ldexp(1.0, math.frexp(top)[1])


# ----------------------------------------------------------------------------------------------- results


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
    means : Series
        Mean score per compared system (best first).
    min_detectable_difference : float
        The true difference in means that a paired t-test on this many topics detects with power 0.8 at ``alpha``,
        with sigma^2 = V_E (Sakai's topic set size design, :func:`gtheory.topic_set_size`): differences much smaller
        than this are unlikely to come out significant here, whatever the test.
    table : DataFrame
        One row per pair: ``a``, ``b``, ``mean_a``, ``mean_b``, ``diff`` (mean_a - mean_b), ``ci_lo``, ``ci_hi``,
        ``statistic``, ``p``, ``p_adjusted``, ``effect_size``, ``significant``.
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
    means: pd.Series = field(repr=False)
    table: pd.DataFrame = field(repr=False)
    min_detectable_difference: float = math.nan

    JSON_FORMAT: ClassVar[str] = "gtheory.experiments.Comparison/1"

    def _footnote(self) -> str:
        if not np.isfinite(self.min_detectable_difference):
            return ""
        return (f"with {self.n_topics} topics a paired t-test detects a true difference of "
                f"{self.min_detectable_difference:.3g} with power 0.8 at alpha = {self.alpha:g} "
                "(Sakai's topic set size design, sigma^2 = V_E)")

    @property
    def n_significant(self) -> int:
        """Number of significant pairs."""
        return int(self.table["significant"].sum())

    def _title(self, fmt: str = "text") -> str:
        """The table's title for ``fmt`` (:mod:`gtheory.kit.render`: names and measure escaped)."""
        what = [self.measure, ": "] if self.measure else []
        against = ["against ", self.baseline] if self.baseline is not None else ["all pairs"]
        corr = "" if self.correction == "none" else f", {self.correction}-corrected"
        return compose([*what, _TEST_NAMES.get(self.test, self.test), ", ", *against, corr, ", ", _ALPHA,
                        f" = {self.alpha:g}, {self.n_topics} topics"], fmt)

    def summary(self) -> str:
        """The pairs table as text (numbers rounded for display only; significant pairs marked ``*``)."""
        t = self.table
        lines = [self._title(),
                 f"{self.n_significant} of {len(t)} pairs significant (*); effect size "
                 f"{'diff/sqrt(V_E)' if self.effect_size == 'sakai' else 'Cohen d_z'}; intervals "
                 f"{100 * (1 - self.alpha):g}% paired-t, per pair"]
        if self._footnote():
            lines.append(f"minimum detectable difference: {self._footnote()}")
        rows = [[text(r.a), text(r.b), _num(r.diff), f"[{_num(r.ci_lo):>8}, {_num(r.ci_hi):>8}]", _fmt_p(r.p),
                 _fmt_p(r.p_adjusted), f"{r.effect_size:.2f}", "*" if r.significant else ""]
                for r in t.itertuples(index=False)]
        lines += text_table(["a", "b", "diff", "interval", "p", "p adj", "ES", ""], rows, "<<>>>>><")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return (f"Comparison({self.test}, {self.correction}, {self.n_significant}/{len(self.table)} pairs "
                f"significant at {self.alpha:g}; {self.n_systems} systems, {self.n_topics} topics)")

    def _repr_html_(self) -> str:
        head = kv_table(f"Comparison — {self._title()}", {
            "significant pairs": f"{self.n_significant} of {len(self.table)}",
            "V_E": fmt(self.residual_variance, 4)})
        return head + html_table(self.table.itertuples(index=False), header=list(self.table.columns))

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain JSON values plus ``"format"``; non-finite numbers are None."""
        from gtheory.kit.jsonio import jsonable, table

        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("table", "means")}
        return jsonable({"format": self.JSON_FORMAT, **d, "means": {"systems": list(map(str, self.means.index)),
                                                                   "values": self.means.to_numpy()},
                         "table": table(self.table)})

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
        text = _csv(self.table, raw)
        if path is not None:
            from gtheory.kit import write_text

            write_text(path, text)
        return text

    def to_markdown(self) -> str:
        """The pairs table as a GitHub-flavoured Markdown table (significant pairs marked ``*``); names and the title
        are literal text (:func:`gtheory.kit.render.markdown`: no live HTML, link or cell break)."""
        rows = [md_row(["a", "b", "diff", "interval", "p", "p adj.", "ES", ""]),
                "|---|---|---:|---:|---:|---:|---:|---|"]
        for r in self.table.itertuples(index=False):
            rows.append(md_row([markdown(r.a), markdown(r.b), _num(r.diff), f"[{_num(r.ci_lo)}, {_num(r.ci_hi)}]",
                                markdown(_fmt_p(r.p)), markdown(_fmt_p(r.p_adjusted)), f"{r.effect_size:.2f}",
                                "\\*" if r.significant else ""]))
        return f"{self._title('md')}\n\n" + "\n".join(rows) + "\n\n\\*: significant\n"

    def to_latex(self) -> str:
        """The pairs table as a LaTeX ``table`` with booktabs rules (``\\usepackage{booktabs}``); names escaped
        (:func:`gtheory.kit.render.latex`: specials as text commands, newlines as spaces)."""
        lines = [r"\begin{table}", r"\centering", r"\begin{tabular}{llrrrrr}", r"\toprule",
                 r"$a$ & $b$ & $\bar d$ & CI & $p$ & $p_{\mathrm{adj}}$ & ES \\", r"\midrule"]
        for r in self.table.itertuples(index=False):
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
            _, ax = plt.subplots(figsize=(6, 0.3 * len(self.table) + 1.2))
        t = self.table
        y = np.arange(len(t))[::-1]
        ax.hlines(y, t["ci_lo"], t["ci_hi"], color="0.4")
        sig = t["significant"].to_numpy()
        ax.plot(t["diff"][sig], y[sig], "o", color="C0", label="significant")
        ax.plot(t["diff"][~sig], y[~sig], "o", mfc="white", color="C0", label="not significant")
        ax.axvline(0.0, color="0.7", lw=0.8)
        ax.set_yticks(y, [plot_label(f"{a} − {b}") for a, b in zip(t["a"], t["b"])])
        ax.set_xlabel(plot_label(f"difference in mean {self.measure or 'score'} ({100 * (1 - self.alpha):g}% "
                                 "interval)"))
        ax.set_title(self._title("plot"), fontsize="small")
        ax.legend(fontsize="small")
        return ax


def _csv(frame: pd.DataFrame, raw: bool = False) -> str:
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
    known = set(systems)
    for col in ("a", "b"):
        if not frame[col].isin(known).all():
            bad = frame.loc[~frame[col].isin(known), col].iloc[0]
            raise DocumentError(fmt, prefix + f"table.{col}",
                                f"must name compared systems (those of 'means'); got {bad!r}")
    frame["significant"] = frame["significant"].astype(bool)
    means = pd.Series(values, index=systems, name="mean", dtype=float)
    kw = {k: d[k] for k in d if k not in ("table", "means")}
    return Comparison(**kw, means=means, table=frame)


# ----------------------------------------------------------------------------------------------- compare


def _check_inputs(test, correction, effect_size):
    check_choice(test, "test", TESTS)
    if correction is None:
        correction = "none"
    check_choice(correction, "correction", ("none", *CORRECTIONS))
    if _registry.test_named(test).controls_family and correction != "none":
        from gtheory.errors import ParameterError

        raise ParameterError("correction", f"the {_TEST_NAMES[test]} controls the family-wise error over all pairs "
                             f"itself; use correction=None with test={test!r} (got {correction!r}).")
    check_choice(effect_size, "effect_size", ("sakai", "dz"))
    return correction  # alpha and n_resamples: the parameter table (gtheory.kit.params)


def _check_labels(s: Scores) -> None:
    """Refuse system labels that are distinct values but print alike (``1`` and ``"1"``): every output shows labels
    as text, so the two rows could not be told apart (the labels are compared as the user wrote them)."""
    if not s.labelled:
        return
    texts = pd.Index([_label(x) for x in s.systems])
    if texts.has_duplicates:
        dup = texts[texts.duplicated()][0]
        same = [x for x, t in zip(s.systems, texts) if t == dup]
        raise ValueError(f"`scores` has system labels that are different values but print alike: "
                         f"{', '.join(f'{x!r} ({type(x).__name__})' for x in same)}; the outputs could not tell "
                         "them apart. Rename one (e.g. scores.rename(index={...})).")


def _select(s: Scores, systems: Sequence[Any] | None, top_k: int | None, baseline: Any) -> Scores:
    if systems is not None:
        if isinstance(systems, (str, bytes)):
            raise TypeError(f"`systems` must be a list of system labels, not one string; give systems=[{systems!r}].")
        wanted = list(systems)
        idx = s.systems.get_indexer(wanted)
        if (idx < 0).any():
            missing = [w for w, i in zip(wanted, idx) if i < 0]
            raise ValueError(f"`systems` names {len(missing)} system(s) not in `scores`: "
                             f"{', '.join(map(repr, missing[:5]))}{', ...' if len(missing) > 5 else ''}.")
        if len(set(idx)) < len(idx):
            raise ValueError("`systems` lists a system twice.")
        s = s.take(idx)
    if top_k is not None:
        s = keep_top_k(s, top_k)
    return s


def _holm(p: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Holm's step-down adjusted p-values, :math:`\\tilde p_{(i)} = \\max_{k \\le i} \\min(1, (P - k + 1) p_{(k)})`,
    and rejections :math:`\\tilde p \\le \\alpha` — statsmodels' ``multipletests(method="holm")``, which runs a
    garbage collection on every call (20 ms, more than the whole uncorrected table); checked against it."""
    order = np.argsort(p, kind="stable")
    P = len(p)
    adj = np.empty(P)
    adj[order] = np.minimum(1.0, np.maximum.accumulate(p[order] * np.arange(P, 0, -1)))
    return adj <= alpha, adj


def _adjust(p: np.ndarray, alpha: float, correction: str) -> tuple[np.ndarray, np.ndarray]:
    """(rejected, adjusted p) over the whole vector of the table's p-values: one call per table."""
    if correction == "none" or len(p) < 2:
        return p <= alpha, p.copy()
    method = CORRECTIONS[correction]
    if method == "holm":
        return _holm(p, alpha)
    from statsmodels.stats.multitest import multipletests

    reject, adj, _, _ = multipletests(p, alpha=alpha, method=method)
    return np.asarray(reject, bool), np.asarray(adj, float)


def _resolution_warning(test: str, outcome: Any, correction: str, alpha: float, n_pairs: int, n_topics: int,
                        n_resamples: int) -> None:
    """Warn when the smallest p-value the test can give here is above the smallest threshold of the correction: a
    pair that needs that threshold cannot be found significant, however clear the difference (Holm over 1,711
    pairs at alpha = .05 starts at 2.9e-5, below the 1/10,001 of 10,000 random sign vectors)."""
    floor = outcome.p_floor
    if correction == "none":
        thr, what, none = alpha, f"alpha = {alpha:g}", True
    else:
        corr = _registry.correction_named(correction)
        thr = corr.smallest_threshold(alpha, n_pairs)
        what = f"the smallest {correction} threshold over {n_pairs} pairs at alpha = {alpha:g}, {thr:.3g}"
        none = corr.first_step_decides
    if floor <= thr:
        return
    who = ("so no pair can come out significant, however clear its difference" if none else
           "so the pairs that need it cannot come out significant, however clear their difference")
    from gtheory.kit.errors import FixableWarning

    if _registry.test_named(test).resampling and not outcome.exact:
        need = math.ceil(1.0 / thr) - 1
        while 1.0 / (need + 1) > thr:
            need += 1
        warnings.warn(FixableWarning(
            f"with n_resamples = {n_resamples} the {_TEST_NAMES[test]} cannot give a p-value below "
            f"1/{n_resamples + 1} = {floor:.3g}, above {what}, {who}", param="n_resamples",
            fix={"n_resamples": need},
            fix_effect=f"reach it (about {need / n_resamples:.1f}x the resampling time of this call; memory does "
                       "not grow, the resamples run in blocks)"), stacklevel=4)
    else:
        warnings.warn(FixableWarning(
            f"with {n_topics} topics the {_TEST_NAMES[test]} cannot give a p-value below {floor:.3g}, above {what}, "
            f"{who}; more topics, or another test (test='t'), can"),
            stacklevel=4)


def _pairs(kept: Scores, baseline: Any) -> tuple[np.ndarray, np.ndarray]:
    m = len(kept.systems)
    if baseline is None:
        return pair_indices(m)
    b = kept.systems.get_loc(baseline)
    I = np.array([i for i in range(m) if i != b], dtype=np.intp)
    return I, np.full(len(I), b, dtype=np.intp)


#: compare's rule for n_resamples: bounded, so that a table ends (the resamples run in blocks: memory is not the limit)
N_RESAMPLES_RULE = integer(1, MAX_RESAMPLES, fix="give at most 100,000,000 resamples (a p-value resolution of 1e-8), "
                                                 "e.g. `n_resamples=10000`")


@validate_params(n_resamples=N_RESAMPLES_RULE, continuity_correction=BOOLEAN)
def compare(
    scores: Any,
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
    measure: str | None = None,
    continuity_correction: bool = True,
) -> Comparison:
    r"""Test every pair of systems, or every system against ``baseline``, on one score matrix.

    The statistics are computed on standardised scores (divided by a power of two at the scores' magnitude), so the
    p-values and effect sizes do not depend on the units and the means, differences and intervals scale with them.

    Parameters
    ----------
    scores : DataFrame or ndarray
        Systems x topics score matrix (DataFrame index = run names), e.g. one measure of
        :func:`metrics.evaluate`. No NaN; each topic and each system once; system labels that print alike
        (``1`` and ``"1"``) are refused.
    test : {'t', 'wilcoxon', 'sign', 'randomization', 'bootstrap', 'tukey-hsd'}
        The paired test (:data:`experiments.compare_registry.TEST_REGISTRY`: definitions, assumptions, sources).
    correction : {None, 'holm', 'bonferroni', 'bh', 'by', 'sidak', 'holm-sidak', 'hommel'}
        Multiple-comparison correction over the pairs of the table (statsmodels' ``multipletests``, one call per
        table; Holm computed here, checked against it). Not with ``'tukey-hsd'``, which controls the family-wise
        error itself.
    baseline : label, optional
        Compare each other system with this one (rows ``a`` = the system, ``b`` = the baseline); all pairs if None.
    alpha : float
        Significance level, in (0, 1); the intervals are at level 1 - alpha.
    seed : int, Generator or None
        Randomness of the randomisation, bootstrap and Tukey tests; the same seed gives the same numbers.
    n_resamples : int
        Sign vectors (randomisation; exact enumeration instead when 2^n_topics <= n_resamples), bootstrap
        replicates, or Tukey permutations; at most 100,000,000. Drawn in blocks: memory does not grow with it. When
        the smallest p-value it allows (1/(n_resamples + 1)) is above the smallest threshold of ``correction``, a
        :class:`~gtheory.kit.errors.FixableWarning` says how many resamples are needed.
    effect_size : {'sakai', 'dz'}
        Sakai's diff / sqrt(V_E) (V_E: the residual variance of the two-way ANOVA of the compared systems) or
        Cohen's d_z = diff / s_d. When V_E is 0 (the systems differ by a constant on every topic, up to rounding:
        below 1e-9 of the scores' magnitude), Sakai's effect sizes are +-inf (0/0: NaN), ``residual_variance`` is 0,
        there is no minimum detectable difference, and a warning says so.
    systems : sequence of labels, optional
        Compare only these systems (in this order).
    top_k : int, optional
        Compare only the ``top_k`` systems by mean (best first); the baseline is always kept.
    measure : str, optional
        The measure's name, shown in the outputs.
    continuity_correction : bool
        Wilcoxon's normal approximation with the continuity correction (default, R's ``wilcox.test``) or without
        (scipy's default); no effect on the other tests or on Wilcoxon's exact null distribution.

    Returns
    -------
    Comparison
        ``table`` has one row per pair; ``means`` the mean of each compared system.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from experiments import compare
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame(rng.random((3, 40)) + [[0.3], [0.0], [0.0]],
    ...                  index=pd.Index(["new", "bm25", "ql"], name="system"))
    >>> c = compare(X, test="t", correction="holm", baseline="bm25")
    >>> c.table[["a", "b", "significant"]].values.tolist()
    [['new', 'bm25', True], ['ql', 'bm25', False]]
    """
    # validation
    correction = _check_inputs(test, correction, effect_size)
    s = score_matrix(scores)
    _check_labels(s)
    if baseline is not None and baseline not in s.systems:
        raise ValueError(f"`baseline` {baseline!r} is not one of the systems of `scores` "
                         f"({', '.join(map(repr, list(s.systems[:5])))}{', ...' if len(s.systems) > 5 else ''}).")
    kept = _select(s, systems, top_k, baseline)
    if baseline is not None and baseline not in kept.systems:
        kept = Scores(np.vstack([kept.values, s.values[s.systems.get_loc(baseline)]]),
                      kept.systems.append(pd.Index([baseline])), kept.topics, kept.labelled)
    if len(kept.systems) < 2:
        raise ValueError("`compare` needs at least 2 systems after `systems`/`top_k`.")
    # standardised scores: every statistic is unit-free, every location scales back by `unit`
    unit = _unit(kept.values)
    X = kept.values / unit
    m, n = X.shape
    I, J = _pairs(kept, baseline)
    zero = TIE_REL * float(np.abs(X).max())
    D = _exact_differences(X[I] - X[J], zero)
    # dispatch
    entry = _registry.test_named(test)
    outcome = entry.function(_tests.PairsInput(
        D, X, I, J, n_resamples, np.random.default_rng(seed), continuity_correction))
    p = np.asarray(outcome.p, dtype=float)
    _resolution_warning(test, outcome, correction, alpha, len(p), n, n_resamples)
    # correction: one call over the table's p-values
    reject, p_adj = _adjust(p, alpha, correction)
    # the table: means, differences, intervals, effect sizes (standardised, then back in the scores' units)
    from scipy.special import stdtrit  # what scipy.stats.t.ppf evaluates, without importing scipy.stats

    means = X.mean(axis=1)
    diff = means[I] - means[J]
    sd = D.std(axis=1, ddof=1) if n > 1 else np.full(len(D), np.nan)
    sd = np.where(sd <= zero, 0.0, sd)
    half = stdtrit(n - 1, 1.0 - alpha / 2.0) * sd / math.sqrt(n)
    ve = residual_variance(X)
    if not math.sqrt(max(ve, 0.0)) > zero:  # V_E at rounding level: the systems differ by constants
        ve = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        es = diff / math.sqrt(ve) if effect_size == "sakai" else diff / sd
        es = np.where(np.abs(diff) <= zero, np.where((sd if effect_size == "dz" else ve) == 0, np.nan, 0.0), es)
    if ve == 0.0:
        warnings.warn(
            "V_E = 0: the compared systems differ by a constant on every topic (up to rounding), so the residual "
            "variance is 0, Sakai's effect sizes are +-inf (NaN for equal systems) and there is no minimum "
            "detectable difference", UserWarning, stacklevel=3)
    labels = kept.systems
    table = pd.DataFrame({
        "a": [_label(x) for x in labels[I]], "b": [_label(x) for x in labels[J]],
        "mean_a": means[I] * unit, "mean_b": means[J] * unit, "diff": diff * unit,
        "ci_lo": (diff - half) * unit, "ci_hi": (diff + half) * unit,
        "statistic": np.asarray(outcome.statistic, float) * (unit if entry.statistic_in_units else 1.0),
        "p": p, "p_adjusted": np.asarray(p_adj, float),
        "effect_size": np.asarray(es, float), "significant": np.asarray(reject, bool),
    })
    mdd = math.nan
    if n >= 3 and ve > 0:
        from gtheory.topics import min_detectable_difference

        mdd = float(min_detectable_difference("paired-t", n, variance=ve, alpha=alpha, power=0.8)) * unit
    order = np.argsort(-tie_values(means), kind="stable")
    mean_series = pd.Series(means[order] * unit, index=[_label(x) for x in labels[order]], name="mean")
    return Comparison(
        test=test, correction=correction, alpha=alpha, baseline=None if baseline is None else _label(baseline),
        effect_size=effect_size, measure=measure, n_systems=m, n_topics=n, n_resamples=int(outcome.n_resamples),
        exact=bool(outcome.exact),
        seed=seed if isinstance(seed, (int, type(None))) and not isinstance(seed, bool) else None,
        residual_variance=ve * unit * unit, means=mean_series, table=table, min_detectable_difference=mdd,
    )


def _label(x: Any) -> Any:
    if isinstance(x, np.generic):
        x = x.item()
    return x if isinstance(x, str) else str(x)
