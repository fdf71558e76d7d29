r"""The stability objective of nDCG and its exact gradient in the gain and/or discount vector.

For a :class:`metrics.JudgedRuns` and a cut-off :math:`k`, the tuned nDCG is

.. math::

    X_{st}(g, d) = \frac{\mathrm{DCG}_{st}}{\mathrm{IDCG}_t}
                 = \frac{\sum_{r\le k} d_r\, g(x_{s,t,r})}{\sum_{r\le k} d_r\, g(x^*_{t,r})},

with :math:`x^*_t` the ideal ranking (judged documents by gain descending, as :func:`metrics.ndcg`).
DCG and IDCG are linear in :math:`d` for fixed :math:`g` and linear in :math:`g` for fixed
:math:`d` (bilinear jointly). The objective is a coefficient at one topic,

.. math::

    f = \Phi(1) = \frac{\rho}{1+\rho}, \qquad
    \rho_\Phi = \frac{\hat\sigma^2_s}{\hat\sigma^2_t + \hat\sigma^2_{st}}, \qquad
    \rho_{E\rho^2} = \frac{\hat\sigma^2_s}{\hat\sigma^2_{st}},

with the ANOVA (EMS) estimates of :func:`gtheory.variance_components`. For every :math:`n > 0`,
:math:`\Phi(n) = n\rho/(1+n\rho)` is increasing in :math:`\rho`, so **the maximiser does not
depend on the number of topics** (Kanoulas & Aslam 2009, §2.3): we optimise at :math:`n=1` and
project afterwards. Both ratios satisfy :math:`\rho > -1/n_t`, so :math:`f` is smooth and bounded.

Gradient (exact, no finite differences). The mean squares are quadratic forms of :math:`X`:

.. math::

    \frac{\partial MS_s}{\partial X_{st}} = \frac{2\,(\bar X_{s\cdot}-\bar X)}{n_s-1}, \quad
    \frac{\partial MS_t}{\partial X_{st}} = \frac{2\,(\bar X_{\cdot t}-\bar X)}{n_t-1}, \quad
    \frac{\partial MS_{st}}{\partial X_{st}} = \frac{2\,e_{st}}{(n_s-1)(n_t-1)},

(:math:`e` the double-centred residual), hence :math:`W = \partial f/\partial X` in closed form, and
by the quotient rule, with :math:`c_t = \mathrm{IDCG}_t`,

.. math::

    \frac{\partial f}{\partial d_r} = \sum_{s,t} \frac{W_{st}}{c_t} G_{s,t,r}
        - \sum_t \frac{\sum_s W_{st} X_{st}}{c_t} I_{t,r}, \qquad
    \frac{\partial f}{\partial g_l} = \sum_{s,t} \frac{W_{st}}{c_t} C^{(l)}_{st}
        - \sum_t \frac{\sum_s W_{st} X_{st}}{c_t} D^{(l)}_t,

where :math:`G_{s,t,r} = g(x_{s,t,r})`, :math:`I_{t,r} = g(x^*_{t,r})`,
:math:`C^{(l)}_{st} = \sum_r d_r [x_{s,t,r}=l]` and :math:`D^{(l)}_t` is the discount mass of
the ideal ranking's block of grade :math:`l` — two matrix–vector products per evaluation.

The ideal ranking depends on the *order* of the gains. Under the monotone gain constraint that
order is the grade order; without it (the paper's "unconstrained" gains) the order is recomputed
at every evaluation, so :math:`f` is piecewise smooth in :math:`g` (kinks where two gains tie or a
gain is 0) and the gradient is that of the current piece. On a kink it is the one-sided derivative
towards the higher grade having the larger gain (ties broken by grade descending, zero gains last):
the side the monotone constraint and :math:`g \ge 0` leave feasible, so a solver is not stopped
on a tie by the derivative of the forbidden side. A gain *at* 0 is a genuine jump, not a kink: a
topic whose only relevant grade has gain 0 has IDCG 0 and drops out (scores 0 for every system),
while for any positive gain its nDCG does not depend on that gain at all. Topics whose IDCG is 0 score 0 for every system and
contribute no gradient.

References
----------
.. [1] E. Kanoulas and J. A. Aslam (2009). Empirical justification of the gain and discount
       function for nDCG. CIKM 2009, §2.
.. [2] R. L. Brennan (2001). Generalizability Theory. Springer, ch. 3–4.
.. [3] D. Bodoff and P. Li (2007). Test theory for assessing IR test collections. SIGIR 2007.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

import metrics
from metrics import FixableError, JudgedRuns
from metrics.measures import RelevantCells, relevant_cells
from gtheory.kit.params import REQUIRED_CUTOFF, check_param, validate_params

__all__ = ["Objective", "Problem", "stability_and_gradient", "identified_depth"]

Objective = Literal["phi", "erho2"]
What = Literal["discount", "gain", "joint"]


@validate_params()
def stability_and_gradient(
    X: NDArray[np.float64], objective: Objective = "phi", *, grad: bool = True
) -> tuple[float, float, NDArray[np.float64] | None]:
    r"""``(f, rho, df/dX)`` for a systems × topics matrix: :math:`f = \rho/(1+\rho)` (Φ(1) or Eρ²(1)).

    Raw (unclipped) ANOVA components as in :func:`gtheory.variance_components`; see the module
    docstring for the formulas. ``df/dX`` is None when ``grad`` is False.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).random((6, 5))
    >>> f, rho, W = stability_and_gradient(X)
    >>> import gtheory
    >>> bool(np.isclose(rho, gtheory.stability_ratio(X)))
    True
    """
    return _stability_and_gradient(X, objective, grad=grad)


def _stability_and_gradient(X: NDArray[np.float64], objective: Objective = "phi", *, grad: bool = True
                                     ) -> tuple[float, float, NDArray[np.float64] | None]:
    """:func:`stability_and_gradient` without the argument check, for the solvers' inner loop (the objective was
    checked once, when the :class:`Problem` was built)."""
    f, rho, parts = _anova(X, objective)
    if not grad:
        return f, rho, None
    return f, rho, _weights(parts, X.shape)


def _anova(X: NDArray[np.float64], objective: Objective) -> tuple[float, float, tuple | None]:
    """``(f, rho, parts)``: the objective and what :func:`_weights` needs for ``df/dX`` (``None``
    when the denominator is not positive, where ``f`` is NaN and the gradient 0)."""
    S, T = X.shape
    mean_s = X.sum(axis=1) * (1.0 / T)
    mean_t = X.sum(axis=0) * (1.0 / S)
    grand = mean_s.sum() / S
    ds = mean_s - grand
    dt = mean_t - grand
    resid = X - mean_s[:, None]
    resid -= dt[None, :]  # double-centred residual e
    rv = resid.ravel()
    ms_s = T * (ds @ ds) / (S - 1)
    ms_t = S * (dt @ dt) / (T - 1)
    ms_e = (rv @ rv) / ((S - 1) * (T - 1))
    num = (ms_s - ms_e) / T
    if objective == "phi":
        den = ms_t / S + (1.0 - 1.0 / S) * ms_e
    else:
        den = ms_e
    if not den > 0:
        return float("nan"), float("nan"), None
    rho = num / den
    return float(rho / (1.0 + rho)), float(rho), (objective, resid, ds, dt, rho, den)


def _weights(parts: tuple | None, shape: tuple[int, int]) -> NDArray[np.float64]:
    """``W = df/dX`` from the ``parts`` of :func:`_anova` (a new array; ``parts`` is not modified)."""
    if parts is None:
        return np.zeros(shape)
    objective, resid, ds, dt, rho, den = parts
    S, T = shape
    # W = (d num - rho d den) / den * df/drho, df/drho = 1/(1+rho)^2, with the d MS/dX of the module
    # docstring; the three terms are fused (this runs once per solver iteration)
    scale = 1.0 / (den * (1.0 + rho) ** 2)
    c_e = (-1.0 / T - rho * (1.0 - 1.0 / S)) if objective == "phi" else (-1.0 / T - rho)
    W = resid * (scale * c_e * 2.0 / ((S - 1) * (T - 1)))
    W += (scale * 2.0 / ((S - 1) * T)) * ds[:, None]
    if objective == "phi":
        W -= (scale * rho * 2.0 / (S * (T - 1))) * dt[None, :]
    return W


def identified_depth(judged: JudgedRuns, *, judged_only: bool = False) -> int:
    r"""The deepest rank whose discount weight can change an nDCG score of ``judged``.

    :math:`\max(K, \max_t R_t)`: ranks past the runs' depth :math:`K` (of the condensed lists
    with ``judged_only``) carry gain only in the ideal ranking of a topic with more than :math:`K`
    relevant documents (:math:`R_t`, grades > 0); past both, a discount weight multiplies nothing,
    so a tuned discount is not identified there and :class:`Problem` refuses such a cut-off.
    On such data nDCG@k equals nDCG@``identified_depth`` for every discount, so a study can tune at
    ``min(k, identified_depth(judged))`` without changing any score.

    >>> import metrics
    >>> identified_depth(metrics.load_trec9())
    1000
    """
    j = judged.condensed() if judged_only else judged
    positive = np.asarray(j.levels) > 0
    return max(int(j.shape[2]), int(j.level_counts[:, positive].sum(axis=1).max(initial=0)))


def _compact(M: sp.csr_matrix):
    """``M`` (CSR) when at most a quarter of its entries are non-zero (relevant documents are rare deep
    in the lists: 3 % of TREC-9's top 1000), else as a dense array; both give exact ``@`` products."""
    return M if M.nnz <= 0.25 * M.shape[0] * M.shape[1] else M.toarray()


def _gain_matrix(rc: RelevantCells, gains: NDArray[np.float64], k: int) -> sp.csr_matrix:
    r"""The (cells, k) CSR matrix of the gains :math:`g(x_{s,t,r})` at ranks ≤ k, built from the
    sparse view (:mod:`metrics.measures.sparse`) without a dense cells × k array: :math:`\sum_l g_l P_l`
    over the levels with a non-zero gain, :math:`P_l` the 0/1 pattern of level :math:`l` (the
    patterns do not overlap, so every stored value is exactly its :math:`g_l`)."""
    out = sp.csr_matrix((rc.n_cells, k))
    for code in np.flatnonzero(gains != 0).tolist():
        out = out + rc.pattern(code, k) * float(gains[code])
    out.sort_indices()
    return out


def _ideal_order(gains: NDArray[np.float64], positive: NDArray[np.int64]) -> NDArray[np.int64]:
    """The ``positive`` level indices (grades > 0, ascending) in the order of the ideal ranking used
    for the gradient: by gain descending, tied gains by grade descending, a gain of 0 last.

    Where gains tie (or a gain is 0) :math:`f` has a kink in :math:`g`; this order gives the
    derivative on the side where the higher grade has the larger gain — the side the monotone
    constraint allows, and for a gain at 0 the side ``g >= 0`` allows. IDCG's value does not
    depend on it (tied blocks carry equal gains, zero-gain blocks add nothing).
    """
    rev = positive[::-1]  # grade descending, so the stable sort keeps ties highest grade first
    return rev[np.argsort(-gains[rev], kind="stable")]


@dataclass(frozen=True)
class _Block:
    name: str  # "discount" or "gain"
    start: int
    size: int
    monotone: bool

    @property
    def slice(self) -> slice:
        return slice(self.start, self.start + self.size)


class Problem:
    r"""One tuning problem: a judged-grade tensor, a cut-off and what is tuned.

    The variables are, in order, the discount vector :math:`d_1..d_k` (if tuned) and the gains of
    the positive grades in ascending grade order (if tuned). Grades :math:`\le 0` always have gain 0.
    Everything a solver needs is here: :meth:`value`, :meth:`value_and_grad` (exact),
    :meth:`scores_and_jacobian` (for the cvxpy solver), the paper's linear constraints and the
    conversion back to per-level gains and per-rank discounts.

    Parameters
    ----------
    judged : metrics.JudgedRuns
    cutoff : int
        nDCG@k; the discount vector has ``cutoff`` entries.
    what : {"discount", "gain", "joint"}
    gain : gain specification (as :func:`metrics.ndcg`) used when the gain is fixed.
    discount : discount specification used when the discount is fixed.
    objective : {"phi", "erho2"}
    monotone_gain, monotone_discount : bool
        Whether the solver must keep gains non-decreasing in grade / discounts non-increasing in
        rank (the paper's constraints); the unconstrained variants keep only non-negativity.
    judged_only : bool
        Tune nDCG′ on the condensed lists (unjudged documents removed).

    Notes
    -----
    Memory: the gains of the documents with a non-zero gain at ranks ≤ k, as a sparse
    :math:`n_s n_t \times k` matrix (127,000 entries, 1.5 MB, for TREC-9 at :math:`k=1000`;
    dense only where more than a quarter of the cells are relevant) for the discount, one 0/1
    pattern per positive grade for joint tuning, and per-grade discounted counts for the gain. They
    are built from :func:`metrics.measures.sparse.relevant_cells`; no dense cells × k array is made.
    """

    def __init__(
        self,
        judged: JudgedRuns,
        cutoff: int,
        what: What = "discount",
        *,
        gain: metrics.measures.gains.GainSpec = "linear",
        discount: metrics.measures.discounts.DiscountSpec = "log2",
        objective: Objective = "phi",
        monotone_gain: bool = True,
        monotone_discount: bool = True,
        judged_only: bool = False,
    ) -> None:
        if not isinstance(judged, JudgedRuns):
            raise TypeError(f"`judged` must be a metrics.JudgedRuns; got {type(judged).__name__}.")
        cutoff = check_param("cutoff", cutoff, REQUIRED_CUTOFF)  # the parameter table's rules (gtheory.kit.params)
        what = check_param("what", what)
        self.objective = check_param("objective", objective)
        if judged.n_systems < 2 or judged.n_topics < 2:
            raise ValueError(f"need at least 2 systems and 2 topics; got {judged.n_systems} × {judged.n_topics}.")
        if judged.missing == "exclude" and not judged.retrieved.all():
            raise FixableError(
                "`judged` is read with `missing='exclude'` and some runs miss topics (nDCG is NaN there), but the "
                "crossed G-study needs a complete matrix (subset the topics every run returns, or judge again)",
                param="judged", fix={"missing": "zero"}, fix_effect="score a topic a run does not return 0",
            )
        for name, flag in (("monotone_gain", monotone_gain), ("monotone_discount", monotone_discount),
                           ("judged_only", judged_only)):
            if not isinstance(flag, (bool, np.bool_)):
                raise TypeError(f"`{name}` must be True or False; got {flag!r}.")
        self.judged = judged
        self.cutoff = int(cutoff)
        self.what = what
        self.judged_only = bool(judged_only)
        self.monotone_gain = bool(monotone_gain)
        self.monotone_discount = bool(monotone_discount)
        j = judged.condensed() if judged_only else judged
        self._j = j
        self.levels = np.asarray(j.levels, dtype=np.float64)
        self.positive = np.flatnonzero(self.levels > 0)
        if self.positive.size == 0:
            raise ValueError("the qrels hold no positive grade; nDCG is 0 everywhere and cannot be tuned.")
        S, T, K = j.shape
        self.n_systems, self.n_topics = S, T
        k = self.cutoff
        kr = min(k, K)
        self._kr = kr
        self._codes = j.grades[..., :kr]  # a view of the level codes (no copy), for code that inspects them
        self._rc = rc = relevant_cells(j)
        if what != "gain":
            deepest = identified_depth(judged, judged_only=judged_only)
            if k > deepest:
                raise ValueError(
                    f"`cutoff` {k} is deeper than the runs ({K} ranks{' after removing unjudged documents' if judged_only else ''}) "
                    f"and than any topic's number of relevant documents: the discounts of ranks {deepest + 1}..{k} "
                    f"would change no score and could not be tuned; use a cutoff of at most {deepest}."
                )
        # fixed parts
        self.fixed_gain = self._fixed_gain(gain) if what == "discount" else None
        self.fixed_discount = self._fixed_discount(discount, k) if what == "gain" else None
        blocks = []
        n = 0
        if what in ("discount", "joint"):
            blocks.append(_Block("discount", 0, k, self.monotone_discount))
            n = k
        if what in ("gain", "joint"):
            blocks.append(_Block("gain", n, self.positive.size, self.monotone_gain))
            n += self.positive.size
        self.blocks = tuple(blocks)
        self.n = n
        # level indicator matrices (S*T, k) for the positive levels, when the gain varies
        self._M: list[NDArray[np.float64]] | None = None
        if what == "joint":
            self._M = [self._indicator(lv) for lv in self.positive]
        if what == "discount":
            g = self.fixed_gain
            self._A = _compact(_gain_matrix(rc, g, k))
            # the gradient needs A^T w: A.T is a CSC view of A (no copy); its matvec reads A once in
            # order and scatters into the k-vector, summing each rank over cells in ascending order as a
            # CSR copy of A^T would (same numbers; measured 15 % faster than that copy on TREC-9, k = 1000)
            self._AT = self._A.T if sp.issparse(self._A) else np.ascontiguousarray(self._A.T)
            self._I = metrics.ideal_gains(j, g, k)
        if what == "gain":
            d = self.fixed_discount
            # per-level discounted counts C_l (S, T), once: DCG = sum_l g_l C_l
            self._C = np.stack([rc.discounted_counts(lv, d[:kr]).reshape(S, T) for lv in self.positive])
            self._prefix_d = np.r_[0.0, np.cumsum(d)]


    def __repr__(self) -> str:
        return (f"Problem({self.what} of nDCG@{self.cutoff} for {self.objective}, {self.n_systems} systems × "
                f"{self.n_topics} topics, {self.n} variables)")
    def _fixed_gain(self, gain: metrics.measures.gains.GainSpec) -> NDArray[np.float64]:
        """The fixed per-level gains, checked: non-negative, 0 for grades <= 0, some relevant grade > 0."""
        g = metrics.gain_vector(gain, self.levels)
        shown = ", ".join(f"{lv:g}: {v:g}" for lv, v in zip(self.levels, g))
        if np.any(g < 0):
            raise ValueError(f"the fixed gains must be non-negative; got {{{shown}}}.")
        if np.any(g[self.levels <= 0] != 0):
            raise ValueError(
                f"the fixed gain of a non-relevant grade must be 0 (the paper's nDCG; Kanoulas & Aslam 2009); "
                f"got {{{shown}}}."
            )
        if not np.any(g[self.positive] > 0):
            raise ValueError(f"the fixed gains give every relevant grade gain 0, so nDCG is 0 everywhere; got {{{shown}}}.")
        return g

    @staticmethod
    def _fixed_discount(discount: metrics.measures.discounts.DiscountSpec, k: int) -> NDArray[np.float64]:
        """The fixed discount of ranks 1..k, checked: one weight per rank, non-negative, not all 0."""
        if not isinstance(discount, str):
            vec = np.asarray(discount, dtype=np.float64)
            if vec.ndim == 1 and vec.size != k:
                raise ValueError(
                    f"the fixed discount has {vec.size} weights but `cutoff` is {k}: give one weight per rank 1..{k} "
                    f"(a shorter vector would silently tune nDCG@{vec.size})."
                )
        d = metrics.discount_vector(discount, k, cutoff=k)
        if np.any(d < 0):
            raise ValueError(f"the fixed discount must be non-negative; got a weight {d.min():g} at rank {int(np.argmin(d)) + 1}.")
        if not np.any(d > 0):
            raise ValueError("the fixed discount is 0 at every rank, so nDCG is 0 everywhere.")
        return d

    # ------------------------------------------------------------------ layout
    def _indicator(self, level: int):
        """The (cells, k) 0/1 matrix of where ``level`` sits at ranks ≤ k (CSR unless dense is smaller)."""
        return _compact(self._rc.pattern(level, self.cutoff))

    def block(self, name: str) -> _Block | None:
        for b in self.blocks:
            if b.name == name:
                return b
        return None

    def split(self, x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(gain per level, discount per rank)`` for a variable vector ``x`` (fixed parts filled in)."""
        x = np.asarray(x, dtype=np.float64)
        bd, bg = self.block("discount"), self.block("gain")
        d = x[bd.slice] if bd else self.fixed_discount
        if bg:
            g = np.zeros(self.levels.size)
            g[self.positive] = x[bg.slice]
        else:
            g = self.fixed_gain
        return g, d

    def join(self, gain: NDArray[np.float64] | None, discount: NDArray[np.float64] | None) -> NDArray[np.float64]:
        """The variable vector for per-level ``gain`` and per-rank ``discount`` (the inverse of :meth:`split`)."""
        parts = []
        if self.block("discount"):
            parts.append(np.asarray(discount, dtype=np.float64)[: self.cutoff])
        if self.block("gain"):
            parts.append(np.asarray(gain, dtype=np.float64)[self.positive])
        return np.concatenate(parts)

    def normalise(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """Each block scaled to sum 1 (nDCG is scale-free in the gains and in the discounts)."""
        x = np.array(x, dtype=np.float64)
        for b in self.blocks:
            s = x[b.slice].sum()
            if s > 0:
                x[b.slice] /= s
        return x

    # --------------------------------------------------------------- the model
    def _ideal_blocks(self, g_levels: NDArray[np.float64], d: NDArray[np.float64]) -> NDArray[np.float64]:
        """D (n_pos, T): discount mass of each positive level's block in the ideal ranking."""
        order = _ideal_order(g_levels, self.positive)
        prefix = np.r_[0.0, np.cumsum(d)]
        k = d.size
        D = np.zeros((self.positive.size, self.n_topics))
        if order.size == 0:
            return D
        counts = self._j.level_counts[:, order]  # (T, J)
        hi = np.minimum(np.cumsum(counts, axis=1), k)
        lo = np.concatenate([np.zeros((self.n_topics, 1), dtype=hi.dtype), hi[:, :-1]], axis=1)
        mass = prefix[hi] - prefix[lo]  # (T, J)
        pos_index = {lv: i for i, lv in enumerate(self.positive)}
        for jdx, lv in enumerate(order):
            D[pos_index[lv]] = mass[:, jdx]
        return D

    def _parts(self, x: NDArray[np.float64]):
        """DCG (S, T), IDCG (T,), and what the gradient needs."""
        g, d = self.split(x)
        S, T = self.n_systems, self.n_topics
        if self.what == "discount":
            dcg = (self._A @ d).reshape(S, T)
            idcg = self._I @ d
            return dcg, idcg, None
        gp = g[self.positive]
        if self.what == "gain":
            dcg = np.tensordot(gp, self._C, axes=1)
            Dl = self._ideal_blocks(g, d)
            return dcg, gp @ Dl, (self._C, Dl)
        # joint
        C = np.stack([(M @ d).reshape(S, T) for M in self._M])
        Dl = self._ideal_blocks(g, d)
        return np.tensordot(gp, C, axes=1), gp @ Dl, (C, Dl)

    def scores(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """The tuned nDCG matrix (systems × topics) for variables ``x`` (0 where IDCG is 0)."""
        return self._scaled(np.asarray(x, dtype=np.float64))[0]

    def value(self, x: NDArray[np.float64]) -> float:
        """The objective :math:`f(x)` = Φ(1) (or Eρ²(1)) of the tuned nDCG (the ``f`` of :meth:`forward`)."""
        return _anova(self.scores(x), self.objective)[0]

    def _scaled(self, x: NDArray[np.float64]):
        """``(X, inv, extra)``: the tuned nDCG as DCG times ``inv`` = 1/IDCG (0 where IDCG is 0), and
        the gradient's extra terms of :meth:`_parts`."""
        dcg, idcg, extra = self._parts(x)
        ok = idcg > 0
        inv = np.where(ok, 1.0 / np.where(ok, idcg, 1.0), 0.0)
        return dcg * inv[None, :], inv, extra

    def forward(self, x: NDArray[np.float64]) -> tuple[float, tuple]:
        """``(f, state)``: the objective and what :meth:`gradient` needs to finish ``∂f/∂x`` at the
        same ``x`` without recomputing the scores (a solver asks for the gradient only at the
        iterates it accepts, not at every line-search point)."""
        x = np.asarray(x, dtype=np.float64)
        X, inv, extra = self._scaled(x)
        f, _, parts = _anova(X, self.objective)
        return f, (x, X, inv, extra, parts)

    def gradient(self, state: tuple) -> NDArray[np.float64]:
        """``∂f/∂x`` from the ``state`` of :meth:`forward` (the formulas of the module docstring)."""
        x, X, inv, extra, parts = state
        W = _weights(parts, X.shape)
        Wc = W * inv[None, :]  # W_st / c_t
        v = (W * X).sum(axis=0) * inv  # sum_s W_st X_st / c_t
        grad = np.zeros(self.n)
        bd, bg = self.block("discount"), self.block("gain")
        if self.what == "discount":
            grad[bd.slice] = self._AT @ Wc.ravel() - v @ self._I
            return grad
        g, d = self.split(x)
        C, Dl = extra
        if bg:
            grad[bg.slice] = np.einsum("lst,st->l", C, Wc) - Dl @ v
        if bd:
            gp = g[self.positive]
            w = Wc.ravel()
            gd = sum(gl * (M.T @ w) for gl, M in zip(gp, self._M))
            gd = gd - self._ideal_gain_matrix(g).T @ v
            grad[bd.slice] = gd
        return grad

    def value_and_grad(self, x: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        """``(f, ∂f/∂x)`` with the exact gradient of the module docstring."""
        f, state = self.forward(x)
        return f, self.gradient(state)

    def _ideal_gain_matrix(self, g_levels: NDArray[np.float64]) -> NDArray[np.float64]:
        return metrics.ideal_gains(self._j, g_levels, self.cutoff)

    def scores_and_jacobian(self, x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``X`` (S, T) and the Jacobian ``∂X/∂x`` as a dense (S·T, n) matrix (for the cvxpy solver)."""
        x = np.asarray(x, dtype=np.float64)
        S, T = self.n_systems, self.n_topics
        X, inv, extra = self._scaled(x)
        J = np.zeros((S * T, self.n))
        g, d = self.split(x)
        bd, bg = self.block("discount"), self.block("gain")
        inv_st = np.broadcast_to(inv[None, :], (S, T)).ravel()
        Xr = X.ravel()
        tcol = np.tile(np.arange(T), S)
        if bd:
            if self.what == "discount":
                G, I = self._A, self._I
            else:
                gp = g[self.positive]
                G = sum(gl * M for gl, M in zip(gp, self._M))
                I = self._ideal_gain_matrix(g)
            G = G.toarray() if sp.issparse(G) else G
            J[:, bd.slice] = G * inv_st[:, None] - (Xr * inv_st)[:, None] * I[tcol]
        if bg:
            C, Dl = extra
            J[:, bg.slice] = (C.reshape(C.shape[0], -1) * inv_st[None, :]).T - (Xr * inv_st)[:, None] * Dl.T[tcol]
        return X, J

    # ---------------------------------------------------------- constraints
    def linear_constraints(self) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """The paper's constraints as ``(A_eq, b_eq, A_ineq)``: each block sums to 1, and
        ``A_ineq @ x >= 0`` holds the monotonicity rows (discount non-increasing in rank, gain
        non-decreasing in grade) of the blocks that are monotone. Bounds: ``x >= 0``."""
        eq_rows, ineq_rows = [], []
        for b in self.blocks:
            row = np.zeros(self.n)
            row[b.slice] = 1.0
            eq_rows.append(row)
            if b.monotone and b.size > 1:
                m = np.zeros((b.size - 1, self.n))
                i = np.arange(b.size - 1)
                sign = 1.0 if b.name == "discount" else -1.0  # d_r - d_{r+1} >= 0; g_{j+1} - g_j >= 0
                m[i, b.start + i] = sign
                m[i, b.start + i + 1] = -sign
                ineq_rows.append(m)
        A_eq = np.array(eq_rows)
        A_in = np.vstack(ineq_rows) if ineq_rows else np.zeros((0, self.n))
        return A_eq, np.ones(len(eq_rows)), A_in

    def violation(self, x: NDArray[np.float64]) -> float:
        """Largest violation of the paper's constraints (after nothing: ``x`` as given)."""
        x = np.asarray(x, dtype=np.float64)
        # the rows of linear_constraints() applied block by block, without building them
        v = [np.max(-x, initial=0.0)]
        for b in self.blocks:
            xb = x[b.slice]
            v.append(abs(xb.sum() - 1.0))
            if b.monotone and b.size > 1:
                step = xb[:-1] - xb[1:] if b.name == "discount" else xb[1:] - xb[:-1]
                v.append(np.max(-step, initial=0.0))
        return float(max(v))
