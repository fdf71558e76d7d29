r"""Compare systems as IR papers do: paired tests per pair, multiple-comparison correction, effect sizes, intervals.

:func:`compare` tests every pair of systems (or every system against a baseline) on one systems x topics score
matrix and returns a :class:`Comparison`: one row per pair with both means, the difference and its interval, the
test statistic, the p-value and the corrected p-value, the effect size and the verdict. :func:`compare_measures`
does the same for several measures and lays the means out as the runs x measures table of a paper
(:class:`ComparisonTable`: LaTeX with booktabs, Markdown, HTML, CSV), with markers of significant differences.

Tests (all two-sided; ``d_j = x_{a,j} - x_{b,j}`` the per-topic differences of the pair, n topics):

* ``"t"`` — the paired t-test, :math:`t = \bar d / (s_d/\sqrt n)` on n - 1 degrees of freedom
  (:func:`scipy.stats.ttest_rel`);
* ``"wilcoxon"`` — the Wilcoxon signed-rank test (:func:`scipy.stats.wilcoxon`; exact null distribution when
  n <= 50 without zeros or ties, the normal approximation otherwise; zeros dropped);
* ``"sign"`` — the sign test: the number of positive differences among the non-zero ones is Binomial(n', 1/2)
  under H0 (:func:`scipy.stats.binomtest`);
* ``"randomization"`` — Fisher's paired randomisation (permutation) test: under H0 each difference's sign is a
  fair coin, :math:`p = \#\{s : |\sum_j s_j d_j| \ge |\sum_j d_j|\} / N`. Exact (all :math:`N = 2^n` sign
  vectors) when :math:`2^n` is at most ``n_resamples``; otherwise ``n_resamples`` random sign vectors shared by
  all pairs and the unbiased estimate :math:`p = (k + 1)/(B + 1)` (Phipson & Smyth 2010) — never 0;
* ``"bootstrap"`` — Sakai's paired studentised bootstrap test (:func:`experiments.bootstrap_asl`, Sakai 2006),
  ``n_resamples`` replicates shared by all pairs;
* ``"tukey-hsd"`` — the randomised Tukey HSD (:func:`experiments.tukey_hsd_randomised`, Carterette 2012), which
  controls the family-wise error over all pairs of the compared systems itself (no further correction).

Corrections (``correction``): ``"holm"``, ``"bonferroni"``, ``"bh"`` (Benjamini–Hochberg), ``"by"``
(Benjamini–Yekutieli), ``"sidak"``, ``"holm-sidak"``, ``"hommel"`` — computed by statsmodels'
:func:`~statsmodels.stats.multitest.multipletests` over the pairs of the table; a pair is significant when its
(adjusted) p-value is at most ``alpha`` (statsmodels' rule).

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
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, Sequence

import numpy as np
import pandas as pd

from gtheory.kit.display import fmt, html_table, kv_table
from gtheory.kit.render import Math, compose, latex, markdown, md_row, plot_label, text, text_table
from gtheory.kit.jsonio import JsonResult

from experiments._validation import TIE_REL, Scores, check_choice, keep_top_k, pair_indices, score_matrix
from gtheory.kit.params import validate_params

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["compare", "Comparison", "COMPARISON_SCHEMA", "TESTS", "CORRECTIONS", "residual_variance"]

#: the tests of :func:`compare`
TESTS: tuple[str, ...] = ("t", "wilcoxon", "sign", "randomization", "bootstrap", "tukey-hsd")
#: correction name -> statsmodels' ``multipletests`` method
CORRECTIONS: dict[str, str] = {
    "holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh", "by": "fdr_by", "sidak": "sidak",
    "holm-sidak": "holm-sidak", "hommel": "hommel",
}
_TEST_NAMES = {
    "t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test", "sign": "sign test",
    "randomization": "paired randomisation test (Fisher)", "bootstrap": "paired bootstrap test (Sakai 2006)",
    "tukey-hsd": "randomised Tukey HSD (Carterette 2012)",
}
_ALPHA = Math(r"\alpha", "alpha")
_TABLE_FLOATS = ("mean_a", "mean_b", "diff", "ci_lo", "ci_hi", "statistic", "p", "p_adjusted", "effect_size")
#: largest number of topics for the exact randomisation test (2^n sign vectors)
_EXACT_MAX_TOPICS = 24
#: elements of one block of the randomisation test's pairs x sign-vectors sums (32 MB)
_BLOCK_ELEMENTS = 1 << 22


# ----------------------------------------------------------------------------------------------- the tests


def residual_variance(values: np.ndarray) -> float:
    r""":math:`V_E`, the residual mean square of the two-way ANOVA without replication of a systems x topics matrix:
    :math:`\sum_{ij}(x_{ij} - \bar x_{i\cdot} - \bar x_{\cdot j} + \bar x)^2 / ((m-1)(n-1))` (computed on the
    doubly-centred matrix, so an offset in the scores does not cost precision)."""
    m, n = values.shape
    r = values - values.mean(axis=1, keepdims=True) - values.mean(axis=0, keepdims=True) + values.mean()
    return float(np.einsum("ij,ij->", r, r) / ((m - 1) * (n - 1)))


def _exact_d(D: np.ndarray, scale: float) -> np.ndarray:
    from experiments.pairwise_tests import _exact_differences

    return _exact_differences(D, TIE_REL * scale)


def _t_test(D: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from scipy import stats

    from experiments.discriminative import _studentise

    n = D.shape[1]
    mean = D.mean(axis=1)
    # the paired bootstrap's studentisation: 0/0 -> 0, c/0 -> +-inf, means and spreads at rounding level are 0
    t = _studentise(mean, D.var(axis=1, ddof=1), n, np.abs(D).max(axis=1))
    p = np.where(t == 0, 1.0, 2.0 * stats.t.sf(np.abs(t), n - 1))
    return t, np.minimum(p, 1.0)


def _sign_test(D: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from scipy import stats

    pos = np.count_nonzero(D > 0, axis=1)
    nz = np.count_nonzero(D != 0, axis=1)
    k = np.minimum(pos, nz - pos)
    # two-sided p of Binomial(n', 1/2): the distribution is symmetric, so it is twice the smaller tail (capped at 1),
    # which is scipy.stats.binomtest's "two-sided" rule at p = 1/2
    p = np.where(nz == 0, 1.0, np.minimum(1.0, 2.0 * stats.binom.cdf(k, np.maximum(nz, 1), 0.5)))
    return pos.astype(float), p


def _sign_matrix(n: int, n_resamples: int, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """The sign vectors of the randomisation test (rows, float +-1): all 2^n when that is at most ``n_resamples``
    (exact), else ``n_resamples`` random ones."""
    if n <= _EXACT_MAX_TOPICS and 2 ** n <= n_resamples:
        codes = np.arange(2 ** n, dtype=np.int64)
        bits = (codes[:, None] >> np.arange(n, dtype=np.int64)) & 1
        return 1.0 - 2.0 * bits, True
    return 1.0 - 2.0 * rng.integers(0, 2, size=(n_resamples, n)), False


def _randomization(D: np.ndarray, n_resamples: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, bool]:
    """Fisher's paired randomisation test of every row of ``D``: the observed sum, the p-value, and whether it was
    exact. One sign matrix for all pairs; the sums are one matrix product per block of pairs."""
    P, n = D.shape
    S, exact = _sign_matrix(n, n_resamples, rng)
    ST = np.ascontiguousarray(S.T)  # n x N
    N = S.shape[0]
    obs = D.sum(axis=1)
    # a sum equal to the observed one in exact arithmetic counts as reaching it, whatever rounding does
    thr = np.abs(obs) - TIE_REL * np.abs(D).sum(axis=1)
    count = np.empty(P, dtype=np.int64)
    block = max(1, _BLOCK_ELEMENTS // N)
    for start in range(0, P, block):
        stop = min(P, start + block)
        sums = D[start:stop] @ ST
        np.abs(sums, out=sums)
        count[start:stop] = np.count_nonzero(sums >= thr[start:stop, None], axis=1)
    p = count / N if exact else (count + 1) / (N + 1)
    return obs / n, np.minimum(p, 1.0), exact


# ----------------------------------------------------------------------------------------------- results


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
                f"{self.min_detectable_difference:.3f} with power 0.8 at alpha = {self.alpha:g} "
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
        rows = [[text(r.a), text(r.b), f"{r.diff:.4f}", f"[{r.ci_lo:8.4f}, {r.ci_hi:8.4f}]", _fmt_p(r.p),
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
            rows.append(md_row([markdown(r.a), markdown(r.b), f"{r.diff:.4f}", f"[{r.ci_lo:.4f}, {r.ci_hi:.4f}]",
                                markdown(_fmt_p(r.p)), markdown(_fmt_p(r.p_adjusted)), f"{r.effect_size:.2f}",
                                "\\*" if r.significant else ""]))
        return f"{self._title('md')}\n\n" + "\n".join(rows) + "\n\n\\*: significant\n"

    def to_latex(self) -> str:
        """The pairs table as a LaTeX ``table`` with booktabs rules (``\\usepackage{booktabs}``); names escaped
        (:func:`gtheory.kit.render.latex`: specials as text commands, newlines as spaces)."""
        lines = [r"\begin{table}", r"\centering", r"\begin{tabular}{llrrrrr}", r"\toprule",
                 r"$a$ & $b$ & $\bar d$ & CI & $p$ & $p_{\mathrm{adj}}$ & ES \\", r"\midrule"]
        for r in self.table.itertuples(index=False):
            d = f"\\textbf{{{r.diff:.4f}}}" if r.significant else f"{r.diff:.4f}"
            lines.append(f"{latex(r.a)} & {latex(r.b)} & {d} & [{r.ci_lo:.4f}, {r.ci_hi:.4f}] & "
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


def _md(s: Any) -> str:
    """Literal Markdown text (:func:`gtheory.kit.render.markdown`)."""
    return markdown(s)


def _tex(s: Any) -> str:
    """Literal LaTeX text (:func:`gtheory.kit.render.latex`)."""
    return latex(s)


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
    if test == "tukey-hsd" and correction != "none":
        from gtheory.errors import ParameterError

        raise ParameterError("correction", "the randomised Tukey HSD controls the family-wise error over all pairs "
                             f"itself; use correction=None with test='tukey-hsd' (got {correction!r}).")
    check_choice(effect_size, "effect_size", ("sakai", "dz"))
    return correction  # alpha and n_resamples: the parameter table (gtheory.kit.params)


def _select(s: Scores, systems: Sequence[Any] | None, top_k: int | None, baseline: Any) -> Scores:
    if systems is not None:
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


@validate_params()
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
) -> Comparison:
    r"""Test every pair of systems, or every system against ``baseline``, on one score matrix.

    Parameters
    ----------
    scores : DataFrame or ndarray
        Systems x topics score matrix (DataFrame index = run names), e.g. one measure of
        :func:`metrics.evaluate`. No NaN.
    test : {'t', 'wilcoxon', 'sign', 'randomization', 'bootstrap', 'tukey-hsd'}
        The paired test (module docstring: definitions and sources).
    correction : {None, 'holm', 'bonferroni', 'bh', 'by', 'sidak', 'holm-sidak', 'hommel'}
        Multiple-comparison correction over the pairs of the table (statsmodels' ``multipletests``). Not with
        ``'tukey-hsd'``, which controls the family-wise error itself.
    baseline : label, optional
        Compare each other system with this one (rows ``a`` = the system, ``b`` = the baseline); all pairs if None.
    alpha : float
        Significance level, in (0, 1); the intervals are at level 1 - alpha.
    seed : int, Generator or None
        Randomness of the randomisation, bootstrap and Tukey tests; the same seed gives the same numbers.
    n_resamples : int
        Sign vectors (randomisation; exact enumeration instead when 2^n_topics <= n_resamples), bootstrap
        replicates, or Tukey permutations.
    effect_size : {'sakai', 'dz'}
        Sakai's diff / sqrt(V_E) (V_E: the residual variance of the two-way ANOVA of the compared systems) or
        Cohen's d_z = diff / s_d.
    systems : sequence of labels, optional
        Compare only these systems (in this order).
    top_k : int, optional
        Compare only the ``top_k`` systems by mean (best first); the baseline is always kept.
    measure : str, optional
        The measure's name, shown in the outputs.

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
    correction = _check_inputs(test, correction, effect_size)
    s = score_matrix(scores)
    if baseline is not None and baseline not in s.systems:
        raise ValueError(f"`baseline` {baseline!r} is not one of the systems of `scores` "
                         f"({', '.join(map(repr, list(s.systems[:5])))}{', ...' if len(s.systems) > 5 else ''}).")
    kept = _select(s, systems, top_k, baseline)
    if baseline is not None and baseline not in kept.systems:
        kept = Scores(np.vstack([kept.values, s.values[s.systems.get_loc(baseline)]]),
                      kept.systems.append(pd.Index([baseline])), kept.topics, kept.labelled)
    if len(kept.systems) < 2:
        raise ValueError("`compare` needs at least 2 systems after `systems`/`top_k`.")
    rng = np.random.default_rng(seed)
    X = kept.values
    m, n = X.shape
    if baseline is not None:
        b = kept.systems.get_loc(baseline)
        I = np.array([i for i in range(m) if i != b], dtype=np.intp)
        J = np.full(len(I), b, dtype=np.intp)
    else:
        I, J = pair_indices(m)
    D = _exact_d(X[I] - X[J], float(np.abs(X).max()))
    exact = False
    used = n_resamples
    if test == "t":
        stat, p = _t_test(D)
        used = 0
    elif test == "sign":
        stat, p = _sign_test(D)
        used = 0
    elif test == "wilcoxon":
        from experiments.pairwise_tests import _wilcoxon_rows

        stat, p = _wilcoxon_rows(D, "wilcox", "auto")
        used = 0
    elif test == "randomization":
        stat, p, exact = _randomization(D, n_resamples, rng)
        if exact:
            used = 2 ** n
    elif test == "bootstrap":
        from experiments.discriminative import _bootstrap_differences

        stat, p, _ = _bootstrap_differences(D, n_resamples, rng)
    else:  # tukey-hsd over the compared systems
        from experiments.pairwise_tests import tukey_hsd_randomised

        tk = tukey_hsd_randomised(pd.DataFrame(X, index=range(m)), n_resamples=n_resamples, seed=rng)
        lookup = {(int(a), int(bb)): pv for a, bb, pv in zip(tk["system_a"], tk["system_b"], tk["p_value"])}
        p = np.array([lookup[(min(i, j), max(i, j))] for i, j in zip(I, J)])
        stat = X[I].mean(axis=1) - X[J].mean(axis=1)
    p = np.asarray(p, dtype=float)
    if correction != "none" and len(p) > 1:
        from statsmodels.stats.multitest import multipletests

        reject, p_adj, _, _ = multipletests(p, alpha=alpha, method=CORRECTIONS[correction])
    else:
        p_adj = p.copy()
        reject = p_adj <= alpha
    means = X.mean(axis=1)
    diff = means[I] - means[J]
    from scipy import stats as st

    sd = (X[I] - X[J]).std(axis=1, ddof=1)
    half = st.t.ppf(1.0 - alpha / 2.0, n - 1) * sd / math.sqrt(n)
    ve = residual_variance(X) if m > 1 else float("nan")
    with np.errstate(divide="ignore", invalid="ignore"):
        es = diff / math.sqrt(ve) if effect_size == "sakai" else np.where(sd > 0, diff / sd, np.sign(diff) * np.inf)
    labels = kept.systems
    table = pd.DataFrame({
        "a": [_label(x) for x in labels[I]], "b": [_label(x) for x in labels[J]],
        "mean_a": means[I], "mean_b": means[J], "diff": diff, "ci_lo": diff - half, "ci_hi": diff + half,
        "statistic": np.asarray(stat, float), "p": p, "p_adjusted": np.asarray(p_adj, float),
        "effect_size": np.asarray(es, float), "significant": np.asarray(reject, bool),
    })
    mdd = math.nan
    if n >= 3 and m >= 2 and np.isfinite(ve) and ve > 0:
        from gtheory.topic_set_size import min_detectable_difference

        mdd = float(min_detectable_difference("paired-t", n, variance=ve, alpha=alpha, power=0.8))
    order = np.argsort(-means, kind="stable")
    mean_series = pd.Series(means[order], index=[_label(x) for x in labels[order]], name="mean")
    return Comparison(
        test=test, correction=correction, alpha=alpha, baseline=None if baseline is None else _label(baseline),
        effect_size=effect_size, measure=measure, n_systems=m, n_topics=n, n_resamples=int(used),
        exact=bool(exact), seed=seed if isinstance(seed, (int, type(None))) and not isinstance(seed, bool) else None,
        residual_variance=ve, means=mean_series, table=table, min_detectable_difference=mdd,
    )


def _label(x: Any) -> Any:
    if isinstance(x, np.generic):
        x = x.item()
    return x if isinstance(x, str) else str(x)




def __getattr__(name: str) -> Any:  # compare_measures and ComparisonTable lived here: still importable from here
    if name in ("compare_measures", "ComparisonTable"):
        from experiments import compare_table

        return getattr(compare_table, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
