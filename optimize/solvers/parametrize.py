r"""Scale-free parametrisations that turn the paper's constraints into simple bounds.

nDCG is invariant to scaling the gains or the discounts, so the paper's "probability
distribution" equality only fixes the scale: it can be dropped and the result normalised after.
What remains are monotonicity and non-negativity, which become bounds :math:`u \ge 0` on
increments (METHOD-NOTES; Kanoulas & Aslam 2009, Fig. 1):

* non-increasing, non-negative discount: :math:`d_r = \sum_{j \ge r} u_j` (a reverse cumulative sum),
  :math:`u_j = d_j - d_{j+1}` with :math:`d_{k+1} = 0`;
* non-decreasing, non-negative gains of the positive grades (gain of grade ≤ 0 fixed at 0):
  :math:`g_j = \sum_{i \le j} v_i`, :math:`v_i = g_i - g_{i-1}` with :math:`g_0 = 0`;
* a block without the monotone constraint is its own parameter, :math:`\ge 0`.

The maps are linear, so the chain rule is the transposed map applied to the gradient: for the
discount :math:`\partial f/\partial u_j = \sum_{r \le j} \partial f/\partial d_r` (a cumulative
sum), for the gains :math:`\partial f/\partial v_i = \sum_{j \ge i} \partial f/\partial g_j`.
With them a bound-constrained quasi-Newton method (L-BFGS-B) handles 1000 variables in seconds.

Example
-------
>>> import numpy as np
>>> from optimize.solvers.parametrize import increments_to_discount, discount_to_increments
>>> d = np.array([0.5, 0.3, 0.2])
>>> u = discount_to_increments(d)
>>> np.allclose(increments_to_discount(u), d)
True
"""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .objective import Problem

__all__ = [
    "increments_to_discount",
    "discount_to_increments",
    "increments_to_gain",
    "gain_to_increments",
    "Parametrization",
]


def increments_to_discount(u: NDArray[np.float64]) -> NDArray[np.float64]:
    """:math:`d_r = \\sum_{j\\ge r} u_j`."""
    return np.cumsum(np.asarray(u, dtype=np.float64)[::-1])[::-1]


def discount_to_increments(d: NDArray[np.float64]) -> NDArray[np.float64]:
    """:math:`u_j = d_j - d_{j+1}` (:math:`d_{k+1}=0`); non-negative iff ``d`` is non-increasing and ≥ 0."""
    d = np.asarray(d, dtype=np.float64)
    return d - np.r_[d[1:], 0.0]


def increments_to_gain(v: NDArray[np.float64]) -> NDArray[np.float64]:
    """:math:`g_j = \\sum_{i\\le j} v_i`."""
    return np.cumsum(np.asarray(v, dtype=np.float64))


def gain_to_increments(g: NDArray[np.float64]) -> NDArray[np.float64]:
    """:math:`v_i = g_i - g_{i-1}` (:math:`g_0=0`)."""
    g = np.asarray(g, dtype=np.float64)
    return g - np.r_[0.0, g[:-1]]


class Parametrization:
    """Map between a :class:`Problem`'s variables ``x`` and bound-constrained parameters ``z >= 0``.

    Each monotone block uses increments, each free block is itself. :meth:`to_x`, :meth:`to_z`
    and :meth:`pullback` (the gradient in ``z`` from the gradient in ``x``) are exact inverses /
    transposes of each other.
    """

    def __init__(self, problem: Problem) -> None:
        self.problem = problem

    def _per_block(self, v, on_discount, on_gain) -> NDArray[np.float64]:
        """A float copy of ``v`` with each monotone block replaced by ``on_discount`` or ``on_gain`` of it."""
        out = np.array(v, dtype=np.float64)
        for b in self.problem.blocks:
            if b.monotone:
                out[b.slice] = (on_discount if b.name == "discount" else on_gain)(out[b.slice])
        return out

    def to_x(self, z: NDArray[np.float64]) -> NDArray[np.float64]:
        return self._per_block(z, increments_to_discount, increments_to_gain)

    def to_z(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        return self._per_block(x, discount_to_increments, gain_to_increments)

    def pullback(self, grad_x: NDArray[np.float64]) -> NDArray[np.float64]:
        # the transposed maps: a cumulative sum for the discount, a reverse one for the gains
        return self._per_block(grad_x, np.cumsum, lambda g: np.cumsum(g[::-1])[::-1])

    def value_and_grad(self, z: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        f, g = self.problem.value_and_grad(self.to_x(z))
        return f, self.pullback(g)
