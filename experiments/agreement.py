r"""Agreement between the system rankings of two evaluation configurations.

Two configurations (two metrics, two gain/discount vectors, two qrels, ...) each give a systems x topics
score matrix, or just the per-system mean scores. The functions here compare the rankings of systems by
mean score: Kendall's :math:`\tau` (:math:`\tau_b` when there are ties), the AP rank correlation
:math:`\tau_{AP}` of Yilmaz et al. [2]_ with the tie-aware variants of Urbano & Marrero [3]_, the RMSE
between mean scores, a :math:`\tau` matrix across many configurations (Table 4 of Kanoulas & Aslam [1]_)
and the scatter plot of mean scores (their Figures 7 and 8).

Inputs are NumPy arrays (rows matched by position) or pandas objects (rows matched by system label).
A 2-D input is averaged over topics (axis 1) first; a higher mean score ranks a system higher.

Validated against: :func:`scipy.stats.kendalltau` (``variant='b'``) for :func:`kendall_tau`; the
published values of Urbano's R package *ircor* and brute-force evaluations of the definitions for
:func:`tau_ap` (see ``tests/test_experiments_agreement.py``).

References
----------
.. [1] E. Kanoulas and J. A. Aslam. Empirical justification of the gain and discount function for nDCG.
   CIKM 2009.
.. [2] E. Yilmaz, J. A. Aslam and S. Robertson. A new rank correlation coefficient for information
   retrieval. SIGIR 2008, pp. 587-594.
.. [3] J. Urbano and M. Marrero. The treatment of ties in AP correlation. ICTIR 2017.
.. [4] M. G. Kendall. The treatment of ties in ranking problems. Biometrika 33(3), 1945.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from gtheory.kit.checks import check_choice
from experiments._validation import align_pair, as_scores
from gtheory.kit.ties import tie_values
from gtheory.kit.render import plot_label

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["kendall_tau", "tau_ap", "rmse", "tau_matrix", "plot_mean_scatter"]

ScoresLike = Any  # ndarray | DataFrame | Series | array-like

_BLOCK = 2048  # rows per block in the O(m^2) pair loops (bounds memory at ~ _BLOCK * m values)


def _means_pair(a: ScoresLike, b: ScoresLike, names: tuple[str, str] = ("a", "b")):
    sa = as_scores(a, names[0])
    sb = as_scores(b, names[1])
    sa, sb = align_pair(sa, sb, names)
    return sa.means, sb.means, sa.systems


def _ranked_means_pair(a: ScoresLike, b: ScoresLike, names: tuple[str, str] = ("a", "b")):
    """:func:`_means_pair` for a rank correlation: means equal up to rounding made exactly equal
    (:func:`gtheory.kit.ties.tie_values`, the package's one tie rule). Mean scores that are equal in exact arithmetic
    often differ in the last bits (the sum of 0.1, 0.2, 0.3 is not that of 0.3, 0.3, 0.0): on TREC-9, 14 of the 25
    pairs of systems whose P@10 means are equal are not equal as computed, and a ranking must see them tied."""
    x, y, systems = _means_pair(a, b, names)
    return tie_values(x), tie_values(y), systems


def kendall_tau(a: ScoresLike, b: ScoresLike) -> float:
    r"""Kendall's rank correlation between the system rankings by mean score of ``a`` and ``b``.

    Parameters
    ----------
    a, b : ndarray, DataFrame or Series
        Systems x topics score matrices or per-system mean scores of two configurations. pandas
        inputs are aligned by system label; NumPy rows are matched by position.

    Returns
    -------
    float
        :math:`\tau_b` in [-1, 1] (equal to :math:`\tau_a` when neither ranking has ties); NaN if one
        ranking is all ties.

    Raises
    ------
    ValueError
        If ``a`` and ``b`` do not cover the same systems, contain NaN, or have fewer than 2 systems.

    Notes
    -----
    With :math:`s^a_{ij} = \operatorname{sign}(\bar a_i - \bar a_j)` over the mean scores,

    .. math::

        \tau_b = \frac{\sum_{i<j} s^a_{ij} s^b_{ij}}
                      {\sqrt{\sum_{i<j} (s^a_{ij})^2 \; \sum_{i<j} (s^b_{ij})^2}}

    i.e. (concordant - discordant) / sqrt(pairs untied in a * pairs untied in b) [4]_. Computed
    exactly in :math:`O(m^2)` time and blocked :math:`O(m)` memory. Means equal up to rounding (within
    :math:`10^{-9}` of the largest) are ties (:func:`gtheory.kit.ties.tie_values`): equal P@10 means often differ in the
    last bits as computed, and a τ that ordered them would be wrong.

    Examples
    --------
    >>> from experiments import kendall_tau
    >>> kendall_tau([0.30, 0.25, 0.20, 0.10], [0.28, 0.29, 0.15, 0.12])
    0.6666666666666666
    """
    x, y, _ = _ranked_means_pair(a, b)
    m = x.shape[0]
    both = 0.0
    na = 0.0
    nb = 0.0
    for start in range(0, m, _BLOCK):
        sx = np.sign(x[start:start + _BLOCK, None] - x[None, :])
        sy = np.sign(y[start:start + _BLOCK, None] - y[None, :])
        both += float(np.sum(sx * sy))
        na += float(np.sum(sx * sx))
        nb += float(np.sum(sy * sy))
    if na == 0.0 or nb == 0.0:
        return float("nan")
    # every unordered pair counted twice (i, j) and (j, i): the factor cancels in the ratio
    return float(both / np.sqrt(na * nb))


def _harmonic(n: int) -> np.ndarray:
    """H[k] = sum_{i=1..k} 1/i for k = 0..n (H[0] = 0)."""
    h = np.zeros(n + 1)
    h[1:] = np.cumsum(1.0 / np.arange(1, n + 1))
    return h


def _count_above_concordant(p: np.ndarray, rx: np.ndarray) -> np.ndarray:
    """For each item i: #{j : p_j < p_i and rx_j < rx_i} (strict in both)."""
    m = p.shape[0]
    out = np.empty(m)
    for start in range(0, m, _BLOCK):
        sl = slice(start, start + _BLOCK)
        above = (p[None, :] < p[sl, None]) & (rx[None, :] < rx[sl, None])
        out[sl] = above.sum(axis=1)
    return out


def _tau_ap_a(x: np.ndarray, y: np.ndarray) -> float:
    # x: reference, y: compared; both "ascending = better" (already negated). x has no ties.
    m = x.shape[0]
    rx = rankdata(x)
    p = rankdata(y, method="min")  # position of i's tie group in y (1-based)
    t = rankdata(y, method="max") - p + 1  # size of that group
    h = _harmonic(m)
    pi = p.astype(np.int64)
    ti = t.astype(np.int64)
    c_above = _count_above_concordant(p, rx)
    # term I: concordant items above i's group, times E[1/(position of i - 1)] over the positions
    # i can take in its group: (1/t) sum_{k=1..t} 1/(p + k - 2). An untied item (t = 1) below the top
    # takes C/(p - 1) directly -- exactly 1 when all items above it are concordant, which the
    # difference of two harmonic partial sums is not.
    single = (ti == 1) & (pi > 1)
    grouped = (ti > 1) & (pi > 1)
    term1 = np.sum(c_above[single] / (pi[single] - 1))
    s_grouped = (h[pi[grouped] + ti[grouped] - 2] - h[pi[grouped] - 2]) / ti[grouped]
    term1 += np.sum(c_above[grouped] * s_grouped)
    # term II: expected concordant pairs within a group over its random orderings; each of the t
    # items carries 1/t of the group total (1/2) sum_{k=1..t-1} k / (p + k - 1) (0 when t = 1)
    tied = ti > 1
    within = (ti[tied] - 1) - (pi[tied] - 1) * (h[pi[tied] + ti[tied] - 2] - h[pi[tied] - 1])
    term2 = np.sum(within / (2.0 * ti[tied]))
    return _clip_unit(2.0 * (term1 + term2) / (m - 1) - 1.0)


def _clip_unit(value: float) -> float:
    """A correlation clipped to [-1, 1] (rounding in the sums can overshoot by a few ulps); NaN stays NaN."""
    return float(np.clip(value, -1.0, 1.0))


def _tau_ap_b_asym(x: np.ndarray, y: np.ndarray) -> float:
    # positions from y (ties share the group's first position p); concordance from x (ties in x
    # are not concordant).
    rx = rankdata(x)
    p = rankdata(y, method="min")
    not_top = p != 1
    if not np.any(not_top):
        return float("nan")
    c_above = _count_above_concordant(p, rx)
    # 2 * sum / count (not 2 / count * sum): exactly 1 when every ratio is 1
    return _clip_unit(2.0 * np.sum(c_above[not_top] / (p[not_top] - 1)) / np.count_nonzero(not_top) - 1.0)


def tau_ap(a: ScoresLike, b: ScoresLike, *, variant: Literal["a", "b"] = "a") -> float:
    r"""AP rank correlation :math:`\tau_{AP}` between the system rankings by mean score [2]_ [3]_.

    :math:`\tau_{AP}` weighs disagreements near the top of the ranking more than those at the bottom.
    It is asymmetric: ``a`` is the reference ("true") ranking and ``b`` the one being assessed,
    the argument order of Urbano's *ircor* (``tauAP(x, y)``).

    Parameters
    ----------
    a, b : ndarray, DataFrame or Series
        Systems x topics matrices or per-system means (reference first). pandas inputs are aligned
        by system label.
    variant : {'a', 'b'}
        ``'a'`` -- :math:`\tau_{AP,a}` of Urbano & Marrero [3]_ (the *accuracy* scenario): ``a`` must
        have no ties; ties in ``b`` are treated as an unknown order and the coefficient is the
        expected :math:`\tau_{AP}` over all orderings of each tie group. Without ties it equals
        Yilmaz et al.'s :math:`\tau_{AP}` exactly.
        ``'b'`` -- :math:`\tau_{AP,b}` [3]_ (the *agreement* scenario): ties allowed in both; the
        mean of the two asymmetric coefficients, hence symmetric. Without ties it is the mean of
        :math:`\tau_{AP}(a, b)` and :math:`\tau_{AP}(b, a)`.

    Returns
    -------
    float
        The coefficient, always in [-1, 1] (clipped: rounding in the sums could overshoot by a few
        ulps), and exactly 1.0 when ``b`` ranks the systems as ``a`` does; NaN for ``variant='b'``
        when a ranking is all ties.

    Raises
    ------
    ValueError
        If ``variant='a'`` and ``a`` has tied mean scores (use ``variant='b'``), or for invalid input
        as in :func:`kendall_tau`.

    Notes
    -----
    With items ordered by ``b`` (position :math:`i = 1..m`, best first) and :math:`C(i)` the number
    of items above position :math:`i` that ``a`` also ranks above the item at :math:`i`,

    .. math::

        \tau_{AP} = \frac{2}{m-1} \sum_{i=2}^{m} \frac{C(i)}{i-1} - 1 .

    :math:`\tau_{AP,a}` replaces each term by its expectation over the random order of the tie group
    of the item (group starting at position :math:`p`, of size :math:`t`):

    .. math::

        \tau_{AP,a} = \frac{2}{m-1}\Big[\sum_i C^{>}(i)\,\frac{1}{t_i}\sum_{k=1}^{t_i}
            \frac{1}{p_i+k-2} \;+\; \sum_i \frac{1}{2t_i}\sum_{k=1}^{t_i-1}\frac{k}{p_i+k-1}\Big] - 1

    where :math:`C^{>}(i)` counts the items in groups above :math:`i`'s group that ``a`` ranks above
    :math:`i`. :math:`\tau_{AP,b}` uses :math:`p_i - 1` as the denominator and averages over the
    items not in the top group, :math:`\tau_{AP,b}^{\,b}(a, b) = \frac{2}{|\{i: p_i > 1\}|}
    \sum_{p_i>1} \frac{C^{>}(i)}{p_i - 1} - 1`, then symmetrises:
    :math:`\tau_{AP,b} = (\tau_{AP,b}^{\,b}(a,b) + \tau_{AP,b}^{\,b}(b,a))/2`. These follow the
    definitions in [3]_ as implemented in *ircor* 1.0.

    Examples
    --------
    >>> from experiments import tau_ap
    >>> truth = [0.4, 0.3, 0.2, 0.1]
    >>> round(tau_ap(truth, [0.3, 0.4, 0.2, 0.1]), 4)   # top two swapped
    0.3333
    >>> round(tau_ap(truth, [0.4, 0.3, 0.1, 0.2]), 4)   # bottom two swapped
    0.7778
    """
    check_choice(variant, "variant", ("a", "b"))
    x, y, systems = _ranked_means_pair(a, b)
    x, y = -x, -y  # higher score = better = smaller rank
    if variant == "a":
        if np.unique(x).size != x.size:
            vals, counts = np.unique(x, return_counts=True)
            tied = systems[np.isin(x, vals[counts > 1])]
            raise ValueError(
                "`a` must have no tied mean scores for variant='a' (it is the reference ranking); "
                f"{len(tied)} systems are tied: {', '.join(map(repr, list(tied)[:5]))}"
                f"{', ...' if len(tied) > 5 else ''}. Use variant='b' for ties in both rankings."
            )
        return _tau_ap_a(x, y)
    return _clip_unit((_tau_ap_b_asym(x, y) + _tau_ap_b_asym(y, x)) / 2.0)


def rmse(a: ScoresLike, b: ScoresLike) -> float:
    r"""Root mean squared difference between the per-system mean scores of ``a`` and ``b``.

    .. math::

        \mathrm{RMSE} = \sqrt{\frac{1}{m}\sum_{s=1}^{m} (\bar a_s - \bar b_s)^2}

    As reported next to :math:`\tau` in Figures 7 and 8 of [1]_.

    Parameters
    ----------
    a, b : ndarray, DataFrame or Series
        Systems x topics matrices or per-system means; aligned like :func:`kendall_tau`.

    Examples
    --------
    >>> from experiments import rmse
    >>> rmse([0.2, 0.4], [0.1, 0.4])
    0.07071067811865477
    """
    x, y, _ = _means_pair(a, b)
    return float(np.sqrt(np.mean((x - y) ** 2)))


def tau_matrix(
    configurations: Mapping[str, ScoresLike],
    *,
    method: Literal["kendall", "tau_ap"] = "kendall",
    variant: Literal["a", "b"] = "b",
) -> pd.DataFrame:
    r"""Rank correlations between every pair of configurations (Table 4 of [1]_).

    Parameters
    ----------
    configurations : mapping of name -> scores
        Systems x topics matrices or per-system means, one per configuration (e.g. per discount
        function); all must cover the same systems (aligned by label for pandas input).
    method : {'kendall', 'tau_ap'}
        :func:`kendall_tau` (symmetric) or :func:`tau_ap`.
    variant : {'a', 'b'}
        Passed to :func:`tau_ap`. With ``'a'`` the matrix is asymmetric: entry (row ``r``, column
        ``c``) is ``tau_ap(configurations[r], configurations[c])``, the row being the reference.

    Returns
    -------
    DataFrame
        Square, indexed and labelled by configuration name, ones on the diagonal.

    Examples
    --------
    >>> import numpy as np
    >>> from experiments import tau_matrix
    >>> rng = np.random.default_rng(0)
    >>> base = rng.random((8, 20))
    >>> table = tau_matrix({"log": base, "half": base / 2, "noisy": base + rng.normal(0, .2, base.shape)})
    >>> float(table.loc["log", "half"])
    1.0
    """
    if not isinstance(configurations, Mapping):
        raise TypeError(
            "`configurations` must be a mapping of name -> scores (e.g. a dict); got "
            f"{type(configurations).__name__}."
        )
    if len(configurations) < 2:
        raise ValueError(f"`configurations` must hold at least 2 entries; got {len(configurations)}.")
    check_choice(method, "method", ("kendall", "tau_ap"))
    check_choice(variant, "variant", ("a", "b"))
    names = list(configurations)
    first_name = f"configurations[{names[0]!r}]"
    first = as_scores(configurations[names[0]], first_name)
    means = {names[0]: first.means}
    for name in names[1:]:
        this = f"configurations[{name!r}]"
        _, s = align_pair(first, as_scores(configurations[name], this), (first_name, this))
        means[name] = s.means  # in the first configuration's system order
    k = len(names)
    out = np.eye(k)
    for i in range(k):
        for j in range(k):
            if i == j:
                continue
            if method == "kendall":
                if j < i:
                    out[i, j] = out[j, i]
                    continue
                out[i, j] = kendall_tau(means[names[i]], means[names[j]])
            else:
                if variant == "b" and j < i:
                    out[i, j] = out[j, i]
                    continue
                out[i, j] = tau_ap(means[names[i]], means[names[j]], variant=variant)
    return pd.DataFrame(out, index=pd.Index(names, name="reference" if method == "tau_ap" else None),
                        columns=pd.Index(names))


def plot_mean_scatter(
    a: ScoresLike,
    b: ScoresLike,
    *,
    ax: "Axes | None" = None,
    labels: Sequence[str] = ("a", "b"),
    title: str | None = None,
    label_top: int = 0,
) -> "Axes":
    r"""Scatter plot of per-system mean scores, ``a`` on x and ``b`` on y (Figures 7/8 of [1]_).

    The legend reports Kendall's :math:`\tau` (:func:`kendall_tau`) and :func:`rmse`; a dashed
    :math:`y = x` line shows where the two configurations agree.

    Parameters
    ----------
    a, b : ndarray, DataFrame or Series
        Systems x topics matrices or per-system means; aligned like :func:`kendall_tau`.
    ax : matplotlib Axes, optional
        Where to draw; a new figure is made if omitted.
    labels : (str, str)
        Axis labels for ``a`` and ``b`` (e.g. ``("optimal discount", "log discount")``).
    title : str, optional
        Axes title.
    label_top : int
        Name the ``label_top`` best systems by their mean in ``a``: a column of labels in the lower
        right (below the diagonal, where the points rarely are), each with a leader line to its
        circled point; 0 names none.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from experiments import plot_mean_scatter
    >>> ax = plot_mean_scatter([0.3, 0.2, 0.1], [0.32, 0.18, 0.12], labels=("optimal", "log"))
    >>> ax.get_xlabel()
    'mean score (optimal)'
    """
    if isinstance(labels, str) or len(labels) != 2:
        raise ValueError(f"`labels` must be two strings (x label, y label); got {labels!r}.")
    if isinstance(label_top, bool) or not isinstance(label_top, (int, np.integer)) or label_top < 0:
        raise ValueError(f"`label_top` must be a non-negative integer; got {label_top!r}.")
    x, y, systems = _means_pair(a, b)
    tau = kendall_tau(x, y)
    err = rmse(x, y)
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(4.5, 4.5))
    lo = float(min(x.min(), y.min()))
    hi = float(max(x.max(), y.max()))
    pad = 0.03 * (hi - lo if hi > lo else 1.0)
    ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], linestyle="--", color="0.6", linewidth=1, zorder=1)
    ax.scatter(x, y, s=18, zorder=2, label=f"Kendall τ = {tau:.3f}\nRMSE = {err:.4f}")
    ax.set_xlim(lo - pad, hi + pad)
    ax.set_ylim(lo - pad, hi + pad)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel(f"mean score ({labels[0]})")
    ax.set_ylabel(f"mean score ({labels[1]})")
    if title is not None:
        ax.set_title(title)
    ax.legend(loc="upper left", frameon=False, handlelength=0, handletextpad=0)
    top = np.argsort(-x, kind="stable")[:label_top]
    for i, s in enumerate(top):  # best first, in a column in the empty lower right (below y = x), leader lines
        ax.scatter([x[s]], [y[s]], s=30, facecolors="none", edgecolors="k", linewidths=0.8, zorder=3)
        ax.annotate(plot_label(systems[s]), (x[s], y[s]), xycoords="data", textcoords="axes fraction",
                    xytext=(0.97, 0.06 + 0.065 * (len(top) - 1 - i)), fontsize=7, ha="right", va="center",
                    zorder=4, arrowprops=dict(arrowstyle="-", color="0.5", lw=0.6, shrinkA=1, shrinkB=3))
    return ax
