r"""G-study and D-study for the crossed systems × topics (s × t) random-effects design.

One observation per cell (a metric's score for each system on each topic). The estimator is the
ANOVA / expected-mean-squares one of Brennan (2001, ch. 3); Φ and Eρ² follow Brennan ch. 4 and
Kanoulas & Aslam (CIKM 2009, §2); intervals follow Brennan ch. 6 (see :mod:`gtheory.gstudy.intervals`).

Validated against statsmodels (``anova_lm`` of an OLS fit, and ``MixedLM`` REML), Brennan's
published synthetic data sets and tables (via ``gt4ireval``'s tests): see
``tests/test_gtheory_gstudy_gstudy.py``.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .balanced import GStudy, balanced_gstudy
from .score_layout import Orientation
from .score_matrix import ScoreInput, as_score_matrix, checked_matrix

__all__ = ["gstudy", "labelled_gstudy"]


def gstudy(
    scores: ScoreInput,
    *,
    drop_lowest: float = 0.0,
    orientation: Orientation = "auto",
    measure: str | None = None,
    missing: str = "error",
) -> GStudy:
    r"""G-study of a crossed systems × topics score matrix (random effects, one score per cell).

    Parameters
    ----------
    scores : ndarray, DataFrame or path
        Score matrix with rows = systems and columns = topics (a 2-D array, or a DataFrame whose
        index holds systems and columns topics — labels are kept), a long DataFrame (columns
        ``system, topic, score``, or ir_measures' ``run_id, query_id, value``), or the path of a
        CSV file read with :func:`gtheory.read_scores`. A DataFrame's axis names are honoured: one
        whose ``index.name`` is ``"topic"`` (or ``columns.name`` ``"system"``) holds topics in its
        rows and is transposed; an unnamed frame with labels (``pd.read_csv(f, index_col=0)``) is
        refused unless ``orientation`` is given or its labels tell (the rule of
        :func:`gtheory.as_score_matrix`); an unnamed frame with the shape of a long table is refused
        as ambiguous.
    drop_lowest : float, optional
        Fraction in [0, 1) of systems to drop before estimating, lowest mean score first (common
        in IR reliability studies to remove buggy runs). Systems whose mean is below the
        ``drop_lowest`` quantile of the system means (linear interpolation, as R's default and
        ``gt4ireval``) are dropped, so ties are kept together (also means equal in exact arithmetic
        that differ in the last bits, e.g. two P@10 means of 0.326).
    orientation : str, optional
        Layout of a CSV file, DataFrame or array: ``"auto"`` (default: by the names),
        ``"systems x topics"`` (also ``"systems-by-topics"``), ``"topics x systems"`` (also
        ``"topics-by-systems"``; an array is transposed too) or ``"long"``. It must not contradict a
        DataFrame's axis names.
    measure : str, optional
        The measure to study in a long DataFrame or CSV with a ``measure`` column holding several
        (ir_measures' ``measure``; :func:`metrics.evaluate` stacked).
    missing : {"error", "exclude", "henderson", "reml"}, optional
        What to do with missing cells (NaN; an empty cell of a CSV file; an absent system/topic
        pair of a long CSV or DataFrame). ``"error"`` (default) refuses them. ``"exclude"`` drops
        every topic with a missing cell. ``"henderson"`` (Henderson's Method 1, analogous ANOVA,
        Brennan 2001 ch. 7) and ``"reml"`` (restricted maximum likelihood) estimate the components
        from the scored cells and return an :class:`gtheory.gstudy.unbalanced.UnbalancedGStudy` (Φ/Eρ² at
        the harmonic-mean number of topics per system; intervals from ``.bootstrap()``); see
        :mod:`gtheory.gstudy.unbalanced`. All three warn (``MissingCellsWarning``) with the share of
        missing cells. A complete matrix gives the usual ANOVA G-study whatever ``missing`` is.

    Returns
    -------
    GStudy
        Variance components, mean squares, sums of squares, degrees of freedom, with methods
        ``phi``, ``erho2``, ``topics_needed``, ``interval``, ``dstudy``, ``summary``, ``plot``.

    Raises
    ------
    TypeError
        If ``scores`` is not an array, DataFrame or path.
    ValueError
        If ``scores`` has fewer than 2 systems or topics, contains NaN or infinite values, is
        constant (Φ and Eρ² are 0/0), varies only between topics (Eρ² is 0/0), is so large or
        so flat that the sums of squares overflow or underflow double precision (the variance
        components would be NaN, infinite or 0: rescale), has a layout that is ambiguous or
        contradicts ``orientation``, or if ``drop_lowest`` is out of range or leaves fewer than
        2 systems.

    Warns
    -----
    PrecisionLossWarning
        When the scores are so large for their spread that float64 had rounded them noticeably
        (``X + 1e16``); a negative estimate is then reported in it, not as a NegativeVarianceWarning.
    NegativeVarianceWarning
        When an estimate is negative and set to 0 (Brennan 2001, §3.4; as ``gt4ireval``); not for
        an estimate that is rounding noise (a relative tolerance: ``|σ²| ≤ 1e-12 ×`` the scores'
        variance, e.g. −7.9e-34 for scores of variance 0.01), which is set to 0 silently.

    Notes
    -----
    Model: :math:`X_{st} = \mu + \nu_s + \nu_t + \nu_{st,e}` with independent random effects.
    Sums of squares, :math:`df_s = n_s-1`, :math:`df_t = n_t-1`, :math:`df_{st}=(n_s-1)(n_t-1)`,
    and the EMS equations :math:`E[MS_s] = \sigma^2_{st} + n_t\sigma^2_s`,
    :math:`E[MS_t] = \sigma^2_{st} + n_s\sigma^2_t`, :math:`E[MS_{st}] = \sigma^2_{st}` give

    .. math::

        \hat\sigma^2_{st} = MS_{st}, \quad \hat\sigma^2_s = (MS_s - MS_{st})/n_t, \quad
        \hat\sigma^2_t = (MS_t - MS_{st})/n_s .

    Computed in closed form from centred data (sums of squares of deviations, so ``X + 1e12``
    gives the components of ``X``); about 50–100 µs for
    100 × 50 in :func:`gtheory.variance_components` (benchmarks/bench_gstudy.py: thousands of times faster than
    statsmodels OLS + ``anova_lm``).

    References
    ----------
    .. [1] R. L. Brennan (2001). *Generalizability Theory*. Springer. Ch. 2–3 (G-study, EMS),
           ch. 4 (D-study, Φ, Eρ²), ch. 6 (intervals).
    .. [2] E. Kanoulas and J. A. Aslam (2009). Empirical justification of the gain and discount
           function for nDCG. *CIKM 2009*, §2.
    .. [3] L. S. Feldt (1965). *Psychometrika* 30(3):357–370.
    .. [4] C. Arteaga, S. Jeyaratnam, G. A. Franklin (1982). *Comm. Statist. Theory Methods*
           11(15):1643–1658.
    .. [5] J. Urbano, M. Marrero, D. Martín (2013). On the measurement of test collection
           reliability. *SIGIR 2013*.

    Examples
    --------
    >>> import numpy as np
    >>> from gtheory import gstudy
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(0, 0.1, (30, 1)) + rng.normal(0, 0.2, (1, 50)) + rng.normal(0, 0.1, (30, 50))
    >>> g = gstudy(X)
    >>> round(g.phi(50), 2) >= round(g.phi(10), 2)
    True
    >>> g.topics_needed(0.95).n >= 1
    True
    """
    _check_missing(missing)
    x, systems, topics = as_score_matrix(scores, orientation=orientation, measure=measure,
                                         allow_nan=missing != "error")
    return _estimated(x, systems, topics, drop_lowest=drop_lowest, missing=missing)


def labelled_gstudy(x: np.ndarray, systems: Sequence[str], topics: Sequence[str], *, drop_lowest: float = 0.0,
                    missing: str = "error") -> GStudy:
    """:func:`gstudy` of the systems x topics array ``x`` labelled ``systems`` and ``topics`` (strings): what
    ``gstudy(pd.DataFrame(x, index=systems, columns=topics, copy=False), orientation="systems-by-topics", ...)``
    returns (the same checks, :func:`gtheory.gstudy.score_matrix.checked_matrix`, and errors; the same numbers to the
    last bit, ``x``'s memory layout being the frame's), without building the frame (nor importing pandas: the
    command line's G-study of computed scores)."""
    _check_missing(missing)
    x = np.asarray(x, dtype=np.float64)  # its layout kept: that of the frame wrapping it (metrics.measures.as_frame)
    checked_matrix(x, systems, topics, allow_nan=missing != "error")
    return _estimated(x, list(systems), list(topics), drop_lowest=drop_lowest, missing=missing)


def _check_missing(missing: Any) -> None:
    if missing not in ("error", "exclude", "henderson", "reml"):
        raise ValueError("`missing` must be 'error', 'exclude', 'henderson' or 'reml'; "
                         f"got {missing!r}.")


def _estimated(x: np.ndarray, systems: list[str], topics: list[str], *, drop_lowest: float, missing: str) -> GStudy:
    """The G-study of a checked matrix: balanced, or from the scored cells when some are missing."""
    if missing != "error" and np.isnan(x).any():  # missing cells: gtheory/gstudy/unbalanced.py
        from .unbalanced import gstudy_missing

        return gstudy_missing(x, systems, topics, method=missing, drop_lowest=drop_lowest)
    return balanced_gstudy(x, systems, topics, drop_lowest=drop_lowest)
