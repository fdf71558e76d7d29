"""optimize.solvers._ratio on the sparse relevant-cells view: the same numbers as the dense (S, T, k) arrays it replaced.

The reference here is the dense construction written out from the definition (``JudgedRuns.level_values`` for the
gains at every rank, one-hot grades for the joint model), independent of the sparse code.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import metrics
from optimize.solvers._ratio import JointModel, RatioModel
from optimize.solvers.objective import stability_and_gradient
from optimize.solvers.regularised import _penalty_op


def _dense_P(j, g, k):
    S, T, K = j.shape
    P = np.zeros((S, T, k))
    P[..., :min(k, K)] = j.level_values(g, ranks=min(k, K))
    return P


def _dense_scores(P, Q, x):
    idcg = Q @ x
    inv = np.where(idcg > 0, 1.0 / np.where(idcg > 0, idcg, 1.0), 0.0)
    return (P @ x) * inv[None, :], inv


@pytest.mark.parametrize("k", [10, 1000])
def test_discount_model_is_sparse_and_matches_the_dense_arrays(trec9, k):
    j = trec9.judged
    m = RatioModel(j, k, "discount", gain="exponential")
    g = metrics.gain_vector("exponential", j.levels)
    P, Q = _dense_P(j, g, k), metrics.ideal_gains(j, g, k)
    assert sp.issparse(m.P) and m.P.shape == (j.n_systems * j.n_topics, k)
    assert m.P.nnz == np.count_nonzero(P)  # only the relevant cells are held
    np.testing.assert_array_equal(m.P.toarray(), P.reshape(-1, k))
    topics = np.arange(1, 50, 3)
    rng = np.random.default_rng(1)
    xs = rng.random((4, k))
    ref = np.stack([_dense_scores(P[:, topics], Q[topics], x)[0] for x in xs])
    np.testing.assert_allclose(m.scores(xs, topics), ref, rtol=0, atol=1e-13)
    np.testing.assert_allclose(m.scores(xs[0]), _dense_scores(P, Q, xs[0])[0], rtol=0, atol=1e-13)
    # the exact gradient against the dense formula of the module docstring
    X, inv = _dense_scores(P[:, topics], Q[topics], xs[1])
    f_ref, _, W = stability_and_gradient(X, "phi")
    Wc = W * inv[None, :]
    v = (W * X).sum(axis=0) * inv
    grad_ref = np.einsum("st,str->r", Wc, P[:, topics]) - v @ Q[topics]
    f, grad = m.value_and_grad(xs[1], topics, "phi")
    assert f == pytest.approx(f_ref, abs=1e-14)
    np.testing.assert_allclose(grad, grad_ref, rtol=1e-11, atol=1e-15)


@pytest.mark.parametrize("dense", [False, True])
def test_prefix_blocks_are_the_cumulative_sums_bit_for_bit(trec9, dense):
    # topflat's DCG(m) for every m: a block of ranks at a time, the same sequential sums as one cumsum
    j = trec9.judged
    k = 120
    m = RatioModel(j, k, "discount")
    if dense:
        m._set(m.P.toarray(), m.Q, *j.shape[:2])
    topics = np.arange(0, 50, 2)
    ref = np.cumsum(_dense_P(j, metrics.gain_vector("linear", j.levels), k)[:, topics], axis=-1)
    for block in (1, 7, 50, 500):
        parts = list(m.prefix_blocks(topics, block=block))
        assert [m0 for m0, _ in parts] == list(range(0, k, block))
        np.testing.assert_array_equal(np.concatenate([p for _, p in parts], axis=-1), ref)
    np.testing.assert_array_equal(m.row_totals(topics), ref[..., -1:])


def test_joint_model_holds_per_grade_patterns(dl19):
    j = dl19.judged
    k = 30
    jm = JointModel(j, k)
    assert all(sp.issparse(M) and M.shape == (j.n_systems * j.n_topics, k) for M in jm.M)
    codes = j.grades[..., :k]
    for lv, M in zip(jm.positive, jm.M):
        np.testing.assert_array_equal(M.toarray(), (codes == lv).reshape(-1, k))
    g = np.array([0.5, 2.0, 3.0])
    d = metrics.discount_vector("zipf", k)
    topics = np.arange(3, 40, 4)
    gl = np.zeros(j.levels.size)
    gl[jm.positive] = g
    P, Q = _dense_P(j, gl, k), metrics.ideal_gains(j, gl, k)
    ref = _dense_scores(P[:, topics], Q[topics], d)[0]
    np.testing.assert_allclose(jm.discount_view(g, topics).scores(d), ref, rtol=0, atol=1e-13)
    np.testing.assert_allclose(jm.gain_view(d, topics).scores(g), ref, rtol=0, atol=1e-13)


def test_penalty_operators():
    np.testing.assert_array_equal(_penalty_op(6, "smooth").toarray(), np.diff(np.eye(6), n=2, axis=0))
    np.testing.assert_array_equal(_penalty_op(6, "ridge").toarray(), np.eye(6))
    np.testing.assert_array_equal(_penalty_op(2, "smooth").toarray(), np.eye(2))


def test_coefficient_f_is_coefficients_f_bit_for_bit():
    from optimize.solvers._ratio import coefficient_f, coefficients

    X = np.random.default_rng(4).random((6, 9, 12))
    X[2] = 0.5  # no variance at all: NaN in both
    for objective in ("phi", "erho2"):
        np.testing.assert_array_equal(coefficient_f(X, objective), coefficients(X, objective)["f"])
        np.testing.assert_array_equal(coefficient_f(X[1], objective), coefficients(X[1], objective)["f"])
