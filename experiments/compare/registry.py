r"""The one registry of the paired tests and the multiple-comparison corrections of :func:`experiments.compare`.

Each test is declared once, here, as a :class:`ComparisonTest` (its name, its title in the outputs, the function
that computes it, whether it resamples, when its null distribution is exact, what it assumes, its reference); each
correction once as a :class:`Correction` (its name, statsmodels' method, what it controls, its smallest threshold).
Everything else is derived from these two tuples: :func:`experiments.compare`'s dispatch and its ``test`` /
``correction`` choices, the ``--test`` and ``--correction`` choices of ``gtheory compare`` and its ``--help``, and
the table of tests in docs/compare.md (:func:`tests_markdown`; a test checks the page holds it verbatim).

A new test is one entry here and one function of its family (:mod:`experiments.compare.classical`,
:mod:`experiments.compare.resampling`) taking a :class:`PairsInput` and returning a :class:`PairsOutcome`, the two
types declared here.

This module imports nothing heavy (the command line reads it to build its parser); a test's function is imported
on first use (:attr:`ComparisonTest.function`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

__all__ = ["PairsInput", "PairsOutcome", "ComparisonTest", "Correction", "TEST_REGISTRY", "CORRECTION_REGISTRY",
           "TESTS", "CORRECTIONS", "test_named", "correction_named", "tests_markdown", "tests_help", "corrections_help"]


@dataclass(frozen=True)
class PairsInput:
    """What every test receives: ``D`` (pairs x topics, standardised differences with exact zeros and ties), ``X``
    (systems x topics, the standardised scores), ``I``/``J`` (the rows of ``X`` of each pair, ``D = X[I] - X[J]``),
    ``n_resamples``, ``rng`` and ``continuity_correction`` (Wilcoxon's normal approximation)."""

    D: np.ndarray
    X: np.ndarray
    I: np.ndarray
    J: np.ndarray
    n_resamples: int
    rng: np.random.Generator
    continuity_correction: bool = True


@dataclass(frozen=True)
class PairsOutcome:
    """What every test returns: ``statistic`` and ``p`` per pair, ``exact`` (the null distribution was enumerated),
    ``n_resamples`` (resamples drawn or enumerated; 0 for the classical tests) and ``p_floor`` (the smallest p-value
    the test can give on these data and settings)."""

    statistic: np.ndarray
    p: np.ndarray
    exact: bool = False
    n_resamples: int = 0
    p_floor: float = 0.0


@dataclass(frozen=True)
class ComparisonTest:
    """One paired test of :func:`experiments.compare` (all two-sided; ``d_j`` the pair's difference on topic j).

    Attributes
    ----------
    name : str
        The value of ``test=`` and of ``--test``.
    title : str
        Its name in the outputs' titles and captions.
    impl : str
        ``"module:function"`` of its function (:attr:`function`).
    statistic : str
        The statistic and its null distribution, in words (docs table).
    resampling : bool
        Whether it draws random resamples (``n_resamples``, ``seed``).
    exact : str
        When its p-value is exact (docs table).
    assumes : str
        What it assumes of the per-topic differences.
    reference : str
        What it was checked against.
    controls_family : bool
        It controls the family-wise error over all pairs itself (no further correction is allowed).
    statistic_in_units : bool
        Its statistic is a difference in mean score (in the scores' units), not a unit-free number.
    """

    name: str
    title: str
    impl: str
    statistic: str
    resampling: bool
    exact: str
    assumes: str
    reference: str
    controls_family: bool = False
    statistic_in_units: bool = False

    @property
    def function(self) -> Callable[..., Any]:
        """The function computing the test (imported on first use)."""
        module, name = self.impl.split(":")
        return getattr(import_module(module), name)


TEST_REGISTRY: tuple[ComparisonTest, ...] = (
    ComparisonTest(
        "t", "paired t-test", "experiments.compare.classical:t_test",
        "paired t = mean(d) / (s_d / √n) on n − 1 df", False, "exact under normality",
        "the mean difference is normal (by the central limit theorem for many topics)", "`scipy.stats.ttest_rel`"),
    ComparisonTest(
        "wilcoxon", "Wilcoxon signed-rank test", "experiments.compare.classical:wilcoxon",
        "signed-rank statistic; zeros dropped; normal approximation with R's continuity correction "
        "(`continuity_correction`)", False, "n < 50 without zeros or ties (R's `wilcox.test`; scipy's `auto` also at n = 50); normal approximation otherwise",
        "the differences are symmetric about their median", "`scipy.stats.wilcoxon`, R `wilcox.test`"),
    ComparisonTest(
        "sign", "sign test", "experiments.compare.classical:sign_test",
        "#positive differences among the non-zero ones ~ Binomial(n', ½)", False, "always",
        "only the signs of the differences (zeros dropped)", "`scipy.stats.binomtest`"),
    ComparisonTest(
        "randomization", "paired randomisation test (Fisher)", "experiments.compare.resampling:randomization",
        "p = #{sign vectors s : \\|Σ s_j d_j\\| ≥ \\|Σ d_j\\|} / N; Monte Carlo: p = (k + 1)/(B + 1) "
        "(Phipson & Smyth 2010: never 0)", True,
        "all 2ⁿ sign vectors when 2ⁿ ≤ `n_resamples` (n ≤ 26 topics at the largest `n_resamples`), "
        "Monte Carlo otherwise",
        "each difference's sign is exchangeable under H0", "brute-force enumeration", statistic_in_units=True),
    ComparisonTest(
        "bootstrap", "paired bootstrap test (Sakai 2006)", "experiments.compare.resampling:bootstrap",
        "Sakai's paired studentised bootstrap; p = #{b : \\|t*_b\\| ≥ \\|t\\|} / B (0 means < 1/B)", True, "never",
        "the topics are a random sample of a population", "`experiments.bootstrap_asl`"),
    ComparisonTest(
        "tukey-hsd", "randomised Tukey HSD (Carterette 2012)", "experiments.compare.resampling:tukey_hsd",
        "range of the system means when each topic's scores are permuted across the systems; controls the "
        "family-wise error over all pairs of the compared runs itself", True, "never",
        "the systems' scores are exchangeable within a topic under H0", "`experiments.tukey_hsd_randomised`",
        controls_family=True, statistic_in_units=True),
)


@dataclass(frozen=True)
class Correction:
    """One multiple-comparison correction (statsmodels' :func:`~statsmodels.stats.multitest.multipletests`).

    ``smallest_threshold(alpha, P)`` is the smallest raw p-value threshold the procedure uses over ``P`` pairs: a
    pair whose p-value can never fall below it (a resampling test with too few resamples) cannot be rejected at that
    step. Holm, Bonferroni, Hommel and Benjamini–Hochberg start at alpha / P (Hochberg & Tamhane; Benjamini &
    Hochberg 1995, the first rank), Šidák and Holm–Šidák at 1 - (1 - alpha)^(1/P), Benjamini–Yekutieli at
    alpha / (P Σ_{i<=P} 1/i)."""

    name: str
    method: str
    controls: str
    title: str
    #: single-step or step-down from the smallest threshold (Bonferroni, Holm, Šidák, Holm–Šidák): when the
    #: smallest p-value misses it, no pair is rejected at all
    first_step_decides: bool = False

    def smallest_threshold(self, alpha: float, n_pairs: int) -> float:
        P = max(int(n_pairs), 1)
        if self.method in ("sidak", "holm-sidak"):
            return -math.expm1(math.log1p(-alpha) / P)
        if self.method == "fdr_by":
            return alpha / (P * sum(1.0 / i for i in range(1, P + 1)))
        return alpha / P


CORRECTION_REGISTRY: tuple[Correction, ...] = (
    Correction("holm", "holm", "family-wise error", "Holm", True),
    Correction("bonferroni", "bonferroni", "family-wise error", "Bonferroni", True),
    Correction("bh", "fdr_bh", "false discovery rate (independent or positively dependent tests)",
               "Benjamini–Hochberg"),
    Correction("by", "fdr_by", "false discovery rate (any dependence)", "Benjamini–Yekutieli"),
    Correction("sidak", "sidak", "family-wise error (independent tests)", "Šidák", True),
    Correction("holm-sidak", "holm-sidak", "family-wise error (independent tests)", "Holm–Šidák", True),
    Correction("hommel", "hommel", "family-wise error (positively dependent tests)", "Hommel"),
)

#: the names of the tests, in registry order
TESTS: tuple[str, ...] = tuple(t.name for t in TEST_REGISTRY)
#: correction name -> statsmodels' ``multipletests`` method
CORRECTIONS: dict[str, str] = {c.name: c.method for c in CORRECTION_REGISTRY}


def test_named(name: str) -> ComparisonTest:
    """The registry entry of the test ``name`` (KeyError if there is none: validate first)."""
    return next(t for t in TEST_REGISTRY if t.name == name)


def correction_named(name: str) -> Correction:
    """The registry entry of the correction ``name``."""
    return next(c for c in CORRECTION_REGISTRY if c.name == name)


def tests_markdown() -> str:
    """The table of tests of docs/compare.md, from the registry (the page holds it verbatim; a test checks)."""
    rows = ["| `test` | statistic and null distribution | resampling | exact | assumes | checked against |",
            "|---|---|---|---|---|---|"]
    for t in TEST_REGISTRY:
        rows.append(f"| `{t.name}` | {t.statistic} | {'yes' if t.resampling else 'no'} | {t.exact} | {t.assumes} "
                    f"| {t.reference} |")
    return "\n".join(rows) + "\n"


def tests_help() -> str:
    """The tests for ``gtheory compare --help``: one line each."""
    return "\n".join(f"  {t.name:<14} {t.title}{' (resampling)' if t.resampling else ''}"
                     f"{'; controls the family-wise error itself' if t.controls_family else ''}"
                     for t in TEST_REGISTRY)


def corrections_help() -> str:
    """The corrections for ``gtheory compare --help``: one line each."""
    return "\n".join(f"  {c.name:<14} {c.title}: {c.controls}" for c in CORRECTION_REGISTRY)
