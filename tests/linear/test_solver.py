"""The node classifiers' dual coordinate descent against the primal
optimum found by Newton's method in numpy, on small dense problems."""

import numpy as np
import pytest

from treexc.linear import dual_kernels as dk
from treexc.linear import solver_kernels as sk


def _problem(seed, n=40, d=6):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d))
    x[:, -1] = 1.0  # a bias column
    y = np.where(x[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    indptr = np.arange(0, n * d + 1, d, dtype=np.int64)
    indices = np.tile(np.arange(d, dtype=np.int32), n)
    return x, y, indptr, indices, x.ravel().astype(np.float32)


def _newton(grad_hess, d, steps=60):
    w = np.zeros(d)
    for _ in range(steps):
        g, h = grad_hess(w)
        w -= np.linalg.solve(h, g)
    return w


def _svm_grad_hess(x, y, C):
    def gh(w):
        margin = 1.0 - y * (x @ w)
        active = margin > 0
        xa = x[active]
        g = w - 2.0 * C * (xa * (margin[active] * y[active])[:, None]).sum(axis=0)
        return g, np.eye(len(w)) + 2.0 * C * xa.T @ xa
    return gh


def _lr_grad_hess(x, y, C):
    def gh(w):
        s = 1.0 / (1.0 + np.exp(y * (x @ w)))  # sigma(-y w.x)
        g = w - C * (x * (y * s)[:, None]).sum(axis=0)
        return g, np.eye(len(w)) + C * (x.T * (s * (1 - s))) @ x
    return gh


def _dual(solver, x, y, indptr, indices, data, C):
    xf = data.astype(np.float64).reshape(x.shape)
    state = np.array([12345], dtype=np.uint64)
    lines = np.arange(len(y), dtype=np.int64)
    xnorm2 = (xf * xf).sum(axis=1)
    cost = np.broadcast_to(np.asarray(C, dtype=np.float64), y.shape).copy()
    if solver is dk.solve_svm:  # one slot of a group, its costs as line weights of C = 1
        w = np.zeros((x.shape[1], 1))
        solver(lines, (y > 0).astype(np.uint8)[:, None], np.zeros(1, dtype=np.int64), xnorm2,
               indptr, indices, data, 1.0, cost[:, None], 20000, 1e-9, w, state)
        return w[:, 0], xf
    w = np.zeros(x.shape[1])
    solver(lines, y, xnorm2, indptr, indices, data, cost, 20000, 1e-9, w, state)
    return w, xf


def test_svm_slots_solved_together_reach_each_ones_optimum():
    x, y, indptr, indices, data = _problem(6)
    xf = data.astype(np.float64).reshape(x.shape)
    targets = np.stack([y, -y, np.where(x[:, 1] > 0, 1.0, -1.0)], axis=1)
    positive = np.zeros((len(y), 5), dtype=np.uint8)
    slots = np.array([0, 2, 4], dtype=np.int64)
    positive[:, slots] = targets > 0
    w = np.zeros((x.shape[1], 3))
    passes = dk.solve_svm(np.arange(len(y), dtype=np.int64), positive, slots,
                          (xf * xf).sum(axis=1), indptr, indices, data, 0.5, np.zeros((0, 0)),
                          20000, 1e-9, w, np.array([7], dtype=np.uint64))
    assert passes >= 3
    for j in range(3):
        assert np.allclose(w[:, j], _newton(_svm_grad_hess(xf, targets[:, j], 0.5), x.shape[1]),
                           atol=1e-5)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_svm_dual_reaches_the_primal_optimum(seed, C):
    x, y, indptr, indices, data = _problem(seed)
    w, xf = _dual(dk.solve_svm, x, y, indptr, indices, data, C)
    best = _newton(_svm_grad_hess(xf, y, C), x.shape[1])
    assert np.allclose(w, best, atol=1e-5)
    g, _ = _svm_grad_hess(xf, y, C)(w)
    assert np.abs(g).max() < 1e-4  # the primal gradient vanishes there


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_lr_dual_reaches_the_primal_optimum(seed, C):
    x, y, indptr, indices, data = _problem(seed)
    w, xf = _dual(dk.solve_lr, x, y, indptr, indices, data, C)
    best = _newton(_lr_grad_hess(xf, y, C), x.shape[1])
    assert np.allclose(w, best, atol=1e-4)
    g, _ = _lr_grad_hess(xf, y, C)(w)
    assert np.abs(g).max() < 1e-3


def test_train_node_prunes_and_stores_feature_major():
    x, y, indptr, indices, data = _problem(3, n=50, d=5)
    n, d = x.shape
    positive = np.zeros((n, 3), dtype=np.uint8)
    positive[:, 0] = y > 0
    positive[:, 2] = y < 0
    filled = np.array([1, 0, 1], dtype=np.uint8)  # slot 1 empty: no classifier
    w = np.zeros(d)
    column_slot = np.full(d, -1, dtype=np.int32)
    lines = np.arange(n, dtype=np.int64)
    cols, entry_off, slots, vals, _ = sk.train_node(
        lines, positive, filled, indptr, indices, data, 1.0, sk.SOLVER_SVM, 20000, 1e-9,
        0.3, 7, w, column_slot, np.zeros((0, 0)))
    assert (w == 0).all() and (column_slot == -1).all()  # scratch handed back clean
    assert (np.diff(cols) > 0).all() and entry_off[-1] == len(slots) == len(vals)
    assert set(slots.tolist()) <= {0, 2}
    xf = data.astype(np.float64).reshape(x.shape)
    for slot, labels in ((0, y), (2, -y)):
        full = _newton(_svm_grad_hess(xf, labels, 1.0), d)
        expect = {c: full[c] for c in range(d) if abs(full[c]) >= 0.3 or c == d - 1}
        got = {int(cols[e]): float(vals[q]) for e in range(len(cols))
               for q in range(entry_off[e], entry_off[e + 1]) if slots[q] == slot}
        assert got.keys() == expect.keys()
        assert np.allclose([got[c] for c in expect], list(expect.values()), atol=1e-4)


def _svm_weighted(x, y, cost):
    def gh(w):
        margin = 1.0 - y * (x @ w)
        active = margin > 0
        xa, ca = x[active], cost[active]
        g = w - 2.0 * (xa * (ca * margin[active] * y[active])[:, None]).sum(axis=0)
        return g, np.eye(len(w)) + 2.0 * (xa.T * ca) @ xa
    return gh


def _lr_weighted(x, y, cost):
    def gh(w):
        s = 1.0 / (1.0 + np.exp(y * (x @ w)))
        g = w - (x * (cost * y * s)[:, None]).sum(axis=0)
        return g, np.eye(len(w)) + (x.T * (cost * s * (1 - s))) @ x
    return gh


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("solver,primal,tol", [(dk.solve_svm, _svm_weighted, 1e-5),
                                               (dk.solve_lr, _lr_weighted, 1e-4)])
def test_per_line_costs_reach_the_weighted_primal_optimum(seed, solver, primal, tol):
    # C_i = C * w_i: the dual's box bound per line is the primal's loss of line i times w_i
    x, y, indptr, indices, data = _problem(seed)
    cost = 0.7 * np.random.default_rng(seed + 10).choice([0.2, 1.0, 5.0], size=len(y))
    w, xf = _dual(solver, x, y, indptr, indices, data, cost)
    best = _newton(primal(xf, y, cost), x.shape[1])
    assert np.allclose(w, best, atol=tol)
    unweighted, _ = _dual(solver, x, y, indptr, indices, data, 0.7)
    assert not np.allclose(w, unweighted, atol=100 * tol)  # the weights changed the optimum


@pytest.mark.parametrize("solver", [dk.solve_svm, dk.solve_lr])
def test_a_line_of_weight_two_is_the_line_twice(solver):
    x, y, indptr, indices, data = _problem(4, n=30, d=4)
    twice = np.concatenate([np.arange(len(y)), [0, 5, 9]])
    x2, y2 = x[twice], y[twice]
    d = x.shape[1]
    indptr2 = np.arange(0, len(y2) * d + 1, d, dtype=np.int64)
    indices2 = np.tile(np.arange(d, dtype=np.int32), len(y2))
    w_dup, _ = _dual(solver, x2, y2, indptr2, indices2, x2.ravel().astype(np.float32), 1.0)
    cost = np.ones(len(y))
    cost[[0, 5, 9]] = 2.0
    w_weighted, _ = _dual(solver, x, y, indptr, indices, data, cost)
    assert np.allclose(w_dup, w_weighted, atol=1e-4)


def test_train_node_takes_each_lines_weight_per_slot():
    x, y, indptr, indices, data = _problem(5, n=40, d=5)
    n, d = x.shape
    positive = np.zeros((n, 2), dtype=np.uint8)
    positive[:, 0] = y > 0
    positive[:, 1] = y < 0
    filled = np.ones(2, dtype=np.uint8)
    lines = np.arange(n, dtype=np.int64)
    line_weight = np.random.default_rng(1).choice([0.5, 1.0, 3.0], size=(n, 2))
    cols, entry_off, slots, vals, _ = sk.train_node(
        lines, positive, filled, indptr, indices, data, 2.0, sk.SOLVER_SVM, 20000, 1e-9,
        0.0, 7, np.zeros(d), np.full(d, -1, dtype=np.int32), line_weight)
    xf = data.astype(np.float64).reshape(x.shape)
    for slot, labels in ((0, y), (1, -y)):
        full = _newton(_svm_weighted(xf, labels, 2.0 * line_weight[:, slot]), d)
        got = np.zeros(d)
        for e in range(len(cols)):
            for q in range(entry_off[e], entry_off[e + 1]):
                if slots[q] == slot:
                    got[cols[e]] = vals[q]
        assert np.allclose(got, full, atol=1e-4)


@pytest.mark.parametrize("solver", [sk.SOLVER_SVM, sk.SOLVER_LR])
def test_a_node_of_few_lines_trains_as_its_rows_alone(solver):
    """A node holding at most half the lines solves on a renumbered copy of
    its rows: the same weights, to the bit, as those rows trained in place."""
    rng = np.random.default_rng(3)
    n, d = 90, 40
    dense = np.where(rng.random((n, d)) < 0.2, rng.random((n, d)), 0.0).astype(np.float32)
    dense[:, -1] = 1.0  # the bias column
    indptr = np.concatenate([[0], np.cumsum((dense != 0).sum(axis=1))]).astype(np.int64)
    indices = np.nonzero(dense)[1].astype(np.int32)
    data = dense[dense != 0]
    lines = np.arange(0, n, 3, dtype=np.int64)  # a third of the lines: the copy
    positive = (rng.random((len(lines), 3)) < 0.4).astype(np.uint8)
    filled = np.ones(3, dtype=np.uint8)

    def train(ptr, idx, val, at):
        w = np.zeros(d)
        column_slot = np.full(d, -1, dtype=np.int32)
        out = sk.train_node(at, positive, filled, ptr, idx, val, 1.0, solver, 50, 0.01, 0.01,
                            11, w, column_slot, np.zeros((0, 0)))
        assert (w == 0).all() and (column_slot == -1).all()
        return out

    sub = dense[lines]  # the node's rows alone: all the lines, read in place
    sub_ptr = np.concatenate([[0], np.cumsum((sub != 0).sum(axis=1))]).astype(np.int64)
    copied = train(indptr, indices, data, lines)
    in_place = train(sub_ptr, np.nonzero(sub)[1].astype(np.int32), sub[sub != 0],
                     np.arange(len(lines), dtype=np.int64))
    assert len(copied[3]) > 0
    for a, b in zip(copied[:4], in_place[:4]):
        assert a.dtype == b.dtype and np.array_equal(a, b)
