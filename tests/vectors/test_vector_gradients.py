"""The word vector update (``vectors.kernels.update``) against finite
differences of its loss, for each loss: negative sampling, the Huffman
tree's hierarchical softmax, a wider learned-shape tree and the flat
softmax.  One SGD step of rate ``lr`` moves each input row by ``-lr *
dL/dhidden`` (word vectors do not divide by the number of rows, as
fastText) and each output row by ``-lr * dL/drow``."""

import numpy as np
import pytest

from treexc.loss.kernels import sigmoid
from treexc.loss.tree_softmax import path_log_prob
from treexc.trees.builders import build_tree
from treexc.vectors import kernels as kern

DIM, NWORDS = 6, 7
INPUTS = np.array([1, 4, 9], dtype=np.int32)  # rows of the mean (9: a bucket row)
TARGET, NEGATIVE = 2, 5


def _weights(out_rows, seed=0):
    rng = np.random.default_rng(seed)
    w_in = rng.normal(0, 0.5, (12, DIM)).astype(np.float32)
    w_out = rng.normal(0, 0.5, (out_rows, DIM)).astype(np.float32)
    return w_in, w_out


def _tree(name):
    counts = np.array([50, 30, 20, 9, 5, 3, 1], dtype=np.float64)
    if name == "huffman":
        return build_tree("huffman", NWORDS, 2, 0, counts=counts)
    if name == "huffman3":
        return build_tree("huffman", NWORDS, 3, 0, counts=counts)
    return build_tree("flat", NWORDS, NWORDS, 1)


def _loss(kind, tree, w_in, w_out):
    """The loss of one update, in float64 from the float32 weights."""
    hidden = w_in[INPUTS].astype(np.float64).mean(axis=0).astype(np.float32)
    if kind == "ns":
        pos = float(sigmoid(float(w_out[TARGET].astype(np.float64) @ hidden)))
        neg = float(sigmoid(float(w_out[NEGATIVE].astype(np.float64) @ hidden)))
        return -np.log(pos) - np.log(1.0 - neg)
    probs = np.zeros(max(tree.arity, 2))
    return -path_log_prob(w_out, tree.children, tree.path_off, tree.path_node,
                          tree.path_slot, TARGET, hidden, probs)


def _step(kind, tree, w_in, w_out, lr):
    """One update on copies; returns the new matrices and the loss."""
    w_in, w_out = w_in.copy(), w_out.copy()
    children = tree.children if tree is not None else np.zeros((1, 2), np.int32)
    path = ((tree.path_off, tree.path_node, tree.path_slot) if tree is not None else
            (np.zeros(1, np.int64), np.zeros(0, np.int32), np.zeros(0, np.int32)))
    loss = kern.update(INPUTS, len(INPUTS), TARGET, w_in, w_out,
                       np.zeros(DIM, np.float32), np.zeros(DIM, np.float32),
                       kern.LOSS_NS if kind == "ns" else kern.LOSS_TREE,
                       np.array([NEGATIVE], np.int32), 1, children, *path,
                       np.zeros(max(children.shape[1], 2)), lr,
                       np.array([7], np.uint64), 0, False, np.zeros((1, 1), np.float32),
                       np.zeros(1, np.float32))
    return w_in, w_out, loss


@pytest.mark.parametrize("kind", ["ns", "huffman", "huffman3", "softmax"])
def test_update_is_the_loss_gradient(kind):
    tree = None if kind == "ns" else _tree(kind)
    out_rows = NWORDS if tree is None else tree.n_internal * tree.arity
    w_in, w_out = _weights(out_rows)
    lr = 1e-3
    new_in, new_out, loss = _step(kind, tree, w_in, w_out, lr)
    assert loss == pytest.approx(_loss(kind, tree, w_in, w_out), rel=1e-4)
    eps = 1e-2
    # input rows: the same step on every row of the mean, -lr * n * dL/drow
    for j in range(DIM):
        plus, minus = w_in.copy(), w_in.copy()
        plus[INPUTS[0], j] += eps
        minus[INPUTS[0], j] -= eps
        d_row = (_loss(kind, tree, plus, w_out) - _loss(kind, tree, minus, w_out)) / (2 * eps)
        expected = -lr * len(INPUTS) * d_row
        for r in INPUTS:
            assert (new_in[r, j] - w_in[r, j]) == pytest.approx(expected, rel=0.02, abs=1e-7)
    # output rows: every row the loss reads
    moved = 0
    for r in range(out_rows):
        for j in range(DIM):
            plus, minus = w_out.copy(), w_out.copy()
            plus[r, j] += eps
            minus[r, j] -= eps
            d = (_loss(kind, tree, w_in, plus) - _loss(kind, tree, w_in, minus)) / (2 * eps)
            assert (new_out[r, j] - w_out[r, j]) == pytest.approx(-lr * d, rel=0.02, abs=1e-7)
            moved += abs(d) > 1e-4
    assert moved >= DIM  # the test saw a gradient at all


def test_a_non_finite_hidden_vector_is_reported():
    w_in, w_out = _weights(NWORDS)
    w_in[INPUTS[0], 0] = np.inf
    assert _step("ns", None, w_in, w_out, 0.05)[2] == -1.0
