r"""Sakai's paired bootstrap test over all system pairs, and the discriminative power of a metric.

* :func:`bootstrap_asl` -- Sakai's paired, studentised bootstrap test [1]_ (1000 resamples by default),
  vectorised over all pairs and replicates;
* :func:`discriminative_power` -- the share of pairs significant at :math:`\alpha` and Sakai's
  estimated difference required for significance [1]_ (:class:`DiscriminativePower`);
* :func:`plot_asl_curves` -- ASL sorted ascending against system-pair rank, one curve per metric
  (Figure 9 of Kanoulas & Aslam [2]_).

The classical and randomised alternatives are in :mod:`experiments.compare.pairwise_tests`; both are importable from
:mod:`experiments`. Every result table has one row per unordered system
pair :math:`(a, b)`, in the order of :func:`numpy.triu_indices` over the systems (input order, or best-first when
``top_k`` is given), with ``mean_diff`` = mean(a) - mean(b).

Validated against straightforward per-pair loops (same seed, same numbers); see
``tests/test_experiments_significance.py`` and ``tests/test_experiments_discriminative.py``.

References
----------
.. [1] T. Sakai. Evaluating evaluation metrics based on the bootstrap. SIGIR 2006, pp. 525-532.
.. [2] E. Kanoulas and J. A. Aslam. Empirical justification of the gain and discount function for nDCG.
   CIKM 2009.
.. [3] B. Efron and R. J. Tibshirani. An Introduction to the Bootstrap. Chapman & Hall, 1993
   (Algorithm 16.2, the studentised bootstrap test of a mean).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, Mapping

import numpy as np

from gtheory.kit.display import fmt, kv_table
from gtheory.kit.render import plot_label
from gtheory.kit.jsonio import JsonResult

from gtheory.kit.ties import TIE_REL
from experiments._validation import pair_frame, pair_indices, score_matrix
from gtheory.kit.params import probability, validate_params

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["bootstrap_asl", "discriminative_power", "DiscriminativePower", "plot_asl_curves"]

ScoresLike = Any

#: pairs per block in the bootstrap with critical differences: B x block work arrays around 4 MB
_PAIR_BLOCK_ELEMENTS = 1 << 19
#: pairs per block of the ASL-only bootstrap: the 128 x B buffers (1 MB each at B = 1000) stay in
#: the L2 cache for the passes after each product (measured best among 64..256 on TREC-9)
_BLOCK_PAIRS = 128
#: a mean or standard deviation below this fraction of the pair's largest |difference| is zero
_REL_ZERO = 1e-10


def _studentise(mean: np.ndarray, var: np.ndarray, n: int, scale: np.ndarray) -> np.ndarray:
    """t = mean / sqrt(var / n) with the conventions 0/0 -> 0 and c/0 -> sign(c) * inf.

    Means and standard deviations smaller than ``_REL_ZERO * scale`` count as exactly zero, so that
    round-off in a constant difference vector does not produce a spurious finite t.
    """
    tol = _REL_ZERO * scale
    mean = np.where(np.abs(mean) <= tol, 0.0, mean)
    sd = np.sqrt(np.maximum(var, 0.0))
    sd = np.where(sd <= tol, 0.0, sd)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean * math.sqrt(n) / sd
    return np.where(mean == 0.0, 0.0, t)



def _bootstrap(
    values: np.ndarray, n_resamples: int, rng: np.random.Generator, k_crit: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Observed t, ASL and (if ``k_crit``) the critical |mean difference| for every pair i < j."""
    I, J = pair_indices(values.shape[0])
    return _bootstrap_differences(values[I] - values[J], n_resamples, rng, k_crit)


def _bootstrap_differences(
    D: np.ndarray, n_resamples: int, rng: np.random.Generator, k_crit: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """:func:`_bootstrap` on the P x n per-topic differences ``D`` of any list of pairs (the same draws for the same
    seed: the resampled topics are drawn before anything else)."""
    n = D.shape[1]
    # One B x n matrix of resampled topic indices, shared by all pairs (see bootstrap_asl Notes).
    idx = rng.integers(0, n, size=(n_resamples, n))
    counts = np.bincount((idx + n * np.arange(n_resamples)[:, None]).ravel(), minlength=n_resamples * n)
    counts = counts.reshape(n_resamples, n).astype(np.float64)
    scale = np.abs(D).max(axis=1)
    zbar = D.mean(axis=1)
    W = D - zbar[:, None]  # shifted to the null hypothesis: w = z - mean(z)
    W2 = W * W
    t_obs = _studentise(zbar, W2.sum(axis=1) / (n - 1), n, scale)
    abs_t_obs = np.abs(t_obs)

    # Fast path for regular pairs (finite, non-zero t): |t*| >= (1 - rho)|t| without square roots or
    # divisions. With t_c = (1 - rho)|t| and kappa = n t_c^2 / (n - 1 + t_c^2), the test
    # mean*^2 n / var* >= t_c^2 is s1^2 >= kappa s2 for the replicate sums s1, s2 of w*, w*^2, and
    # kappa s2 comes straight out of the product with the rows kappa w^2. Replicates whose mean
    # counts as zero (|s1| <= n tol) have t* = 0 and never exceed. Degenerate pairs (t = 0 or
    # +-inf) and the critical differences use _studentise.
    regular = np.isfinite(t_obs) & (t_obs != 0)
    tc2 = np.where(regular, (abs_t_obs * (1.0 - TIE_REL)) ** 2, 0.0)
    kappa = n * tc2 / (n - 1 + tc2)
    K = kappa[:, None] * W2
    mean_tol2 = (n * _REL_ZERO * scale) ** 2
    # a replicate can pass s1^2 >= kappa s2 with s1^2 <= tol only if kappa s2 <= tol; s2 >= n min(w^2)
    # (up to rounding, hence the factor 1/2), so only pairs with kappa n min(w^2) <= 2 tol need the mask
    needs_mask = kappa * n * W2.min(axis=1) <= 2.0 * mean_tol2
    if k_crit is not None:
        exceed, crit = _bootstrap_general(counts, W, K, scale, abs_t_obs, mean_tol2, regular, k_crit)
        return t_obs, exceed / n_resamples, crit
    exceed = _bootstrap_exceed(counts, W, K, scale, abs_t_obs, mean_tol2, regular, needs_mask)
    return t_obs, exceed / n_resamples, None


def _bootstrap_exceed(counts, W, K, scale, abs_t_obs, mean_tol2, regular, needs_mask) -> np.ndarray:
    """#{b : |t(w*_b)| >= (1 - rho)|t(z)|} per pair.

    Per block of pairs, one matrix product gives the replicate sums of w* and of kappa w*^2 (the
    block's rows of W stacked on those of K = kappa W o W, times the n x B count matrix); then two
    passes over the (pairs, B) sums, which stay in the L2 cache: q = s1^2 in place, and the
    comparison q >= kappa s2. The products are the floor: 4 B n P flops
    (benchmarks/bench_significance.py states and measures it).
    """
    n_resamples, n = counts.shape
    P = W.shape[0]
    exceed = np.empty(P, dtype=np.int64)
    block = max(1, min(P, _BLOCK_PAIRS))
    CT = np.ascontiguousarray(counts.T)  # n x B
    operand = np.empty((2 * block, n))
    sums = np.empty((2 * block, n_resamples))
    hit = np.empty((block, n_resamples), dtype=bool)
    small = np.uint16 if n_resamples < np.iinfo(np.uint16).max else None
    # B a multiple of 8 with at most 255 words per row: sum the hit bytes 8 at a time as uint64
    # words (each byte lane gathers at most B/8 <= 255 ones, so no carry crosses lanes), then add
    # the 8 lanes of each row's word sum
    words = n_resamples % 8 == 0 and n_resamples // 8 <= 255
    for start in range(0, P, block):
        stop = min(P, start + block)
        p = stop - start
        op = operand[: 2 * p]
        op[:p] = W[start:stop]
        op[p:] = K[start:stop]
        out = sums[: 2 * p]
        np.matmul(op, CT, out=out)
        a1, a2, h = out[:p], out[p:], hit[:p]  # s1 = sum of w*, a2 = kappa * sum of w*^2 (p x B)
        odd = np.flatnonzero(~regular[start:stop])
        if odd.size:  # degenerate pairs: the studentised statistic itself
            mean = a1[odd] / n
            s2 = CT.T @ (W[start:stop][odd] ** 2).T  # B x odd: their kappa is 0
            var = (s2.T - a1[odd] * mean) / (n - 1)
            abs_t = np.abs(_studentise(mean, var, n, scale[start:stop][odd, None]))
            odd_exceed = np.count_nonzero(abs_t >= abs_t_obs[start:stop][odd, None], axis=1)
        np.multiply(a1, a1, out=a1)  # q = s1^2
        np.greater_equal(a1, a2, out=h)
        # count of True per row: an integer sum of the bytes (3x faster than count_nonzero(axis=1))
        if words:
            lanes = np.add.reduce(h.view(np.uint64), axis=1)  # p word sums
            cnt = np.add.reduce(lanes.view(np.uint8).reshape(p, 8), axis=1, dtype=np.int64)
        elif small:
            cnt = np.add.reduce(h.view(np.uint8), axis=1, dtype=small).astype(np.int64)
        else:
            cnt = np.count_nonzero(h, axis=1).astype(np.int64)
        # a replicate with q <= tol has t* = 0 and never exceeds (only pairs with some w near 0 can pass)
        low = np.flatnonzero(needs_mask[start:stop] & regular[start:stop])
        if low.size:
            tol = mean_tol2[start:stop][low, None]
            cnt[low] = np.count_nonzero(h[low] & (a1[low] > tol), axis=1)
        if odd.size:
            cnt[odd] = odd_exceed
        exceed[start:stop] = cnt
    return exceed


def _bootstrap_general(counts, W, K, scale, abs_t_obs, mean_tol2, regular, k_crit: int):
    """ASL counts (the test of :func:`_bootstrap_exceed`) and Sakai's critical differences (every
    replicate's studentised statistic)."""
    n_resamples, n = counts.shape
    P = W.shape[0]
    exceed = np.empty(P, dtype=np.int64)
    crit = np.empty(P)
    block = max(1, _PAIR_BLOCK_ELEMENTS // n_resamples)
    for start in range(0, P, block):
        sl = slice(start, start + block)
        Wb = W[sl]
        s1 = counts @ Wb.T  # B x p: sum over the resampled topics of w*
        s2 = counts @ (Wb * Wb).T  # B x p: sum of w*^2
        ks2 = counts @ K[sl].T  # B x p: kappa * sum of w*^2
        q = s1 * s1
        hit = (q >= ks2) & (q > mean_tol2[sl])
        odd = ~regular[sl]
        mean = s1 / n
        var = (s2 - s1 * mean) / (n - 1)
        abs_t = np.abs(_studentise(mean, var, n, scale[sl]))
        exceed[sl] = np.where(odd, np.count_nonzero(abs_t >= abs_t_obs[sl], axis=0), np.count_nonzero(hit, axis=0))
        # the replicate whose |t(w*_b)| is the (B alpha)-th largest; ties -> largest |mean|
        kth = np.partition(abs_t, n_resamples - k_crit, axis=0)[n_resamples - k_crit]
        crit[sl] = np.where(abs_t == kth, np.abs(mean), -np.inf).max(axis=0)
    return exceed, crit


@validate_params()
def bootstrap_asl(
    scores: ScoresLike, *, n_resamples: int = 1000, seed: int | np.random.Generator | None = 0,
    top_k: int | None = None,
) -> pd.DataFrame:
    r"""Sakai's paired bootstrap test for every system pair: achieved significance levels [1]_.

    Parameters
    ----------
    scores : ndarray or DataFrame
        Systems x topics score matrix (rows = systems; DataFrame index = system labels). At least 2
        systems and 2 topics; no NaN.
    n_resamples : int
        Number of bootstrap replicates :math:`B` (Sakai used 1000).
    seed : int, Generator or None
        Randomness, via :func:`numpy.random.default_rng`. The same seed gives the same numbers.
    top_k : int, optional
        Keep only the ``top_k`` systems by mean score (Kanoulas & Aslam [2]_ used 30); pairs are
        then formed in best-first order.

    Returns
    -------
    DataFrame
        One row per pair: ``system_a``, ``system_b``, ``mean_diff`` (mean a - mean b), ``t`` (the
        observed studentised statistic) and ``asl``. ``attrs`` records ``n_resamples``, ``n_topics`` and
        ``test``.

    Raises
    ------
    TypeError, ValueError
        For a non-numeric or non-2-D ``scores``, NaN, fewer than 2 systems or topics, a bad ``n_resamples``,
        ``seed`` or ``top_k``.

    Notes
    -----
    For a pair (X, Y) with per-topic differences :math:`z_j = x_j - y_j` (:math:`j = 1..n`),

    .. math::

        t(z) = \frac{\bar z}{\hat\sigma_z / \sqrt n}, \qquad w_j = z_j - \bar z, \qquad
        \mathrm{ASL} = \frac{1}{B}\,\#\{b : |t(w^{*b})| \ge |t(z)|\}

    where :math:`w^{*b}` is the b-th bootstrap sample of :math:`w` (shifted so the null hypothesis
    :math:`\mu_z = 0` holds) and :math:`\hat\sigma` the sample standard deviation (ddof = 1) [1]_ [3]_.
    The test is two-sided. *Ties*: a replicate with :math:`|t(w^{*b})| \ge (1 - 10^{-9})\,|t(z)|` counts
    as exceeding, so that replicates whose statistic equals the observed one in exact arithmetic (common
    with discrete scores such as P@10, where resamples repeat the observed proportions) are counted
    whatever rounding does to them — the convention of :func:`scipy.stats.permutation_test`'s relative
    tolerance. (Earlier versions left the comparison to rounding and missed some exact ties.)

    *Shared resampling.* Each replicate resamples *topics*: one matrix ``idx = rng.integers(0, n,
    size=(B, n))`` is drawn, and replicate ``b`` uses topics ``idx[b]`` for every pair, as when one
    resamples the topic set of the whole test collection. A per-pair loop that draws ``idx`` the same
    way reproduces these ASLs exactly.

    *Vectorisation.* With :math:`C` the B x n matrix of how often each topic was drawn, the
    replicate sums are :math:`C W^\top` and :math:`C (W \circ W)^\top` for the P x n matrix of
    centred pair differences W; two matrix products per block of pairs give every
    :math:`\bar w^{*b}` and :math:`\hat\sigma_{w^{*b}}`. The comparison itself needs no root or
    division: with :math:`t_c = (1-10^{-9})|t(z)|` and :math:`\kappa = n t_c^2/(n-1+t_c^2)`,
    :math:`|t(w^{*b})| \ge t_c \iff s_1^2 \ge \kappa s_2` for the replicate sums :math:`s_1, s_2` of
    :math:`w^*, w^{*2}`, and :math:`\kappa s_2` is the product with the rows :math:`\kappa\, w \circ w`.

    *Degenerate pairs.* A zero mean gives :math:`t = 0` (so identical systems get ASL = 1); a
    non-zero mean with zero spread gives :math:`t = \pm\infty` (a constant non-zero difference gets
    ASL = 0).

    Examples
    --------
    >>> import numpy as np
    >>> from experiments import bootstrap_asl
    >>> rng = np.random.default_rng(1)
    >>> scores = rng.random((4, 50)) * 0.5 + np.array([[0.3], [0.1], [0.0], [0.0]])
    >>> table = bootstrap_asl(scores, n_resamples=1000, seed=0)
    >>> list(table.columns)
    ['system_a', 'system_b', 'mean_diff', 't', 'asl']
    >>> bool(table.loc[0, "asl"] < 0.05)   # system 0 is clearly better than system 1
    True
    """
    s = score_matrix(scores, top_k)
    rng = np.random.default_rng(seed)
    t_obs, asl, _ = _bootstrap(s.values, n_resamples, rng)
    I, J = pair_indices(len(s.systems))
    frame = pair_frame(s, I, J, t=t_obs, asl=asl)
    frame.attrs.update(n_resamples=n_resamples, n_topics=s.values.shape[1], test="paired bootstrap (Sakai 2006)")
    return frame


@dataclass(frozen=True, eq=False)
class DiscriminativePower(JsonResult):
    """Discriminative power of a metric on one score matrix (Sakai 2006).

    Attributes
    ----------
    alpha : float
        Significance level.
    power : float
        Share of system pairs with ASL < ``alpha``.
    n_significant : int
        Number of such pairs.
    n_pairs : int
        Number of pairs tested.
    estimated_difference : float
        Sakai's estimated difference in mean score required for significance at ``alpha``
        (unrounded; Sakai reports it to two significant figures). This is the *bootstrap* definition
        of Sakai 2006 (the largest per-pair critical difference, see :func:`discriminative_power`);
        the *swap-method* difference required (Voorhees & Buckley 2002; Sakai 2007's tables, with
        the highest mean and the relative difference) is
        :func:`experiments.min_difference_for_swap_rate`.
    n_topics : int
        Topics in the matrix.
    n_resamples : int
        Bootstrap replicates.
    table : DataFrame
        The per-pair results of :func:`bootstrap_asl` plus ``critical_diff`` (each pair's
        difference required) and ``significant``.
    """

    alpha: float
    power: float
    n_significant: int
    n_pairs: int
    estimated_difference: float
    n_topics: int
    n_resamples: int
    table: pd.DataFrame = field(repr=False)

    def summary(self) -> str:
        """A short text report (numbers rounded for display only)."""
        return (
            f"Discriminative power (paired bootstrap, B={self.n_resamples}, {self.n_topics} topics)\n"
            f"  significant pairs at alpha={self.alpha:g}: {self.n_significant}/{self.n_pairs} "
            f"({100 * self.power:.1f}%)\n"
            f"  estimated difference required: {self.estimated_difference:.2g}"
        )

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return (f"DiscriminativePower({self.n_significant}/{self.n_pairs} pairs with ASL < {self.alpha:g} "
                f"({100 * self.power:.1f}%), difference required {fmt(self.estimated_difference, 2)}; "
                f"B = {self.n_resamples}, {self.n_topics} topics)")

    #: the ``"format"`` of :meth:`to_dict`
    JSON_FORMAT: ClassVar[str] = "gtheory.experiments.DiscriminativePower/1"

    def to_dict(self) -> dict[str, Any]:
        """The numbers and the per-pair table (:func:`gtheory.kit.jsonio.table`, with its ``attrs``) as plain JSON values
        plus ``"format"``; non-finite numbers are None."""
        from gtheory.kit.jsonio import jsonable, table

        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "table"}
        return jsonable({"format": self.JSON_FORMAT, **d, "table": table(self.table),
                         "table_attrs": dict(self.table.attrs)})

    @classmethod
    def from_json(cls, text_or_path: Any) -> "DiscriminativePower":
        """A :class:`DiscriminativePower` from :meth:`to_json` output (text or a file path); null numbers are NaN."""
        from gtheory.kit.jsonio import load_document, table_back
        from gtheory.kit.schema import check_document

        d = load_document(text_or_path, cls.JSON_FORMAT)
        d = check_document(d, _POWER_SCHEMA, cls.JSON_FORMAT)  # a DocumentError naming the field
        frame = table_back(d["table"], "table", ("mean_diff", "t", "asl", "critical_diff"))
        frame["significant"] = frame["significant"].astype(bool)
        frame.attrs.update(d["table_attrs"] or {})
        return cls(**{k: v for k, v in d.items() if k not in ("table", "table_attrs")}, table=frame)

    def _repr_html_(self) -> str:
        return kv_table(f"DiscriminativePower (paired bootstrap, B = {self.n_resamples}, {self.n_topics} topics)", {
            f"pairs with ASL < {self.alpha:g}": f"{self.n_significant} of {self.n_pairs}",
            "power": self.power, "difference required": self.estimated_difference})


@validate_params()
def discriminative_power(
    scores: ScoresLike,
    alpha: float = 0.05,
    *,
    n_resamples: int = 1000,
    seed: int | np.random.Generator | None = 0,
    top_k: int | None = None,
) -> DiscriminativePower:
    r"""Discriminative power of a metric and the difference it needs for significance [1]_.

    Runs :func:`bootstrap_asl` (same ``n_resamples``, ``seed`` and ``top_k`` give the same ASLs) and
    summarises it.

    Parameters
    ----------
    scores : ndarray or DataFrame
        Systems x topics score matrix.
    alpha : float
        Significance level, in (0, 1).
    n_resamples, seed, top_k
        As in :func:`bootstrap_asl`.

    Returns
    -------
    DiscriminativePower
        ``power`` (share of pairs with ASL < alpha), ``n_significant``, ``estimated_difference``
        and the per-pair ``table``.

    Notes
    -----
    Discriminative power is :math:`\#\{(X,Y) : \mathrm{ASL}_{XY} < \alpha\} / \#\text{pairs}`.

    The estimated difference required follows Sakai's algorithm [1]_: for each pair, sort the
    replicates by :math:`|t(w^{*b})|`; the replicate at the :math:`B\alpha`-th largest value marks
    the critical value of the test, and its :math:`|\bar w^{*b}|` is the difference in means at which
    that pair would just reach significance. The estimate is the largest of these over all pairs,

    .. math::

        \widehat{\Delta}_\alpha = \max_{(X,Y)} \; |\bar w^{*b_{XY}}|, \qquad
        b_{XY} = \text{the replicate with the } \lceil B\alpha \rceil\text{-th largest } |t(w^{*b})| .

    Ties in :math:`|t|` at that rank take the largest :math:`|\bar w^{*b}|`.

    This is the bootstrap definition of the difference required (Sakai 2006 [1]_). The swap-method
    one (Voorhees & Buckley 2002; the "absolute difference required", highest mean and relative
    difference of Sakai 2007's tables) is :func:`experiments.min_difference_for_swap_rate`.

    Examples
    --------
    >>> import numpy as np
    >>> from experiments import discriminative_power
    >>> rng = np.random.default_rng(2)
    >>> scores = rng.random((6, 40)) * 0.4 + np.linspace(0.4, 0, 6)[:, None]
    >>> result = discriminative_power(scores, alpha=0.05, n_resamples=500, seed=0)
    >>> result.n_pairs
    15
    >>> 0 < result.estimated_difference < 0.4
    True
    """
    s = score_matrix(scores, top_k)
    rng = np.random.default_rng(seed)
    k_crit = min(n_resamples, max(1, math.ceil(n_resamples * alpha - 1e-9)))
    t_obs, asl, crit = _bootstrap(s.values, n_resamples, rng, k_crit=k_crit)
    I, J = pair_indices(len(s.systems))
    significant = asl < alpha
    table = pair_frame(s, I, J, t=t_obs, asl=asl, critical_diff=crit, significant=significant)
    table.attrs.update(n_resamples=n_resamples, n_topics=s.values.shape[1], test="paired bootstrap (Sakai 2006)")
    n_sig = int(significant.sum())
    return DiscriminativePower(
        alpha=alpha,
        power=n_sig / len(table),
        n_significant=n_sig,
        n_pairs=len(table),
        estimated_difference=float(crit.max()),
        n_topics=s.values.shape[1],
        n_resamples=n_resamples,
        table=table,
    )


@validate_params(alpha=probability(none=True))
def plot_asl_curves(
    curves: Mapping[str, pd.DataFrame | DiscriminativePower],
    *,
    ax: "Axes | None" = None,
    alpha: float | None = 0.05,
    title: str | None = None,
) -> "Axes":
    r"""ASL curves: each metric's pair ASLs sorted ascending vs system-pair rank (Figure 9 of [2]_).

    A curve that stays lower for longer belongs to the more discriminative metric: the pairs left of
    where it crosses the :math:`\alpha` line are the ones it can tell apart.

    Parameters
    ----------
    curves : mapping of name -> DataFrame or DiscriminativePower
        Results of :func:`bootstrap_asl` (column ``asl``), of :func:`discriminative_power`, or of
        the other tests here (column ``p_value``).
    ax : matplotlib Axes, optional
        Where to draw; a new figure is made if omitted.
    alpha : float or None
        Draw a horizontal reference line at this level (``None``: no line).
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import numpy as np
    >>> from experiments import bootstrap_asl, plot_asl_curves
    >>> scores = np.random.default_rng(0).random((5, 30))
    >>> ax = plot_asl_curves({"metric": bootstrap_asl(scores, n_resamples=200)})
    >>> ax.get_ylabel()
    'achieved significance level (ASL)'
    """
    if not isinstance(curves, Mapping) or not curves:
        raise TypeError(
            "`curves` must be a non-empty mapping of name -> bootstrap_asl() table (e.g. "
            f"{{'nDCG': table}}); got {type(curves).__name__}."
        )
    series = {}
    for name, result in curves.items():
        table = result.table if isinstance(result, DiscriminativePower) else result
        import pandas as pd

        if not isinstance(table, pd.DataFrame):
            raise TypeError(
                f"`curves[{name!r}]` must be a DataFrame from bootstrap_asl() or a "
                f"DiscriminativePower; got {type(result).__name__}."
            )
        column = "asl" if "asl" in table.columns else "p_value" if "p_value" in table.columns else None
        if column is None:
            raise ValueError(
                f"`curves[{name!r}]` needs an 'asl' or 'p_value' column; got columns {list(table.columns)}."
            )
        series[name] = np.sort(table[column].to_numpy(dtype=float))
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(5.5, 4))
    for name, values in series.items():
        ax.plot(np.arange(1, values.size + 1), values, label=plot_label(name), linewidth=1.5)
    if alpha is not None:
        ax.axhline(alpha, color="0.5", linestyle="--", linewidth=1, label=f"α = {alpha:g}")
    ax.set_xlabel("system pair (sorted by ASL)")
    ax.set_ylabel("achieved significance level (ASL)")
    ax.set_ylim(0, max(1.0, *(v.max() for v in series.values())) * 1.02)
    if title is not None:
        ax.set_title(title)
    ax.legend(frameon=False)
    return ax



def _power_schema() -> dict:
    from gtheory.kit.schema import anything, flag, integer, obj, real, table

    number = real(nullable=True, null_as=math.nan)
    return {"alpha": real(0.0, 1.0, low_open=True, high_open=True),
            "power": real(0.0, 1.0, nullable=True, null_as=math.nan), "n_significant": integer(0),
            "n_pairs": integer(0), "estimated_difference": number, "n_topics": integer(2), "n_resamples": integer(1),
            "table": table({"system_a": anything(), "system_b": anything(), "mean_diff": number, "t": number,
                            "asl": real(0.0, 1.0, nullable=True, null_as=math.nan), "critical_diff": number,
                            "significant": flag()}),
            "table_attrs": obj(nullable=True)}


#: the declared schema of a :class:`DiscriminativePower` document (:mod:`gtheory.kit.schema`)
_POWER_SCHEMA = _power_schema()
