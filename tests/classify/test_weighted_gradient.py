"""Label weights in the embedding model's training kernel against the
definition, the weighted loss ``sum_t w_t l_t`` whose gradient is each
term's unweighted gradient times its weight ``w_t``.

The kernel trains an example whose largest term weight is ``W`` in
``repetitions(W)`` steps (mean ``W``), each term at ``w_t / W`` times the
rate, so the expected update is the weighted gradient.  Checked here: one
step (``W = 1``) against the terms' gradients times ``w_t``; an integer
``W`` as ``W`` unweighted steps; the repetitions' mean.

Each term ``t`` of an example owns one output row ``r`` and, in one step,
updates it once by ``alpha_r * hidden`` and the hidden gradient by
``alpha_r * row_r`` (the row read before its update).  So one step of the
unweighted kernel gives every term's gradient (``alpha_r`` from its row's
change), and the weighted step must change row ``r`` by ``w_t`` times that
and the input rows by the weighted sum; ``w_t`` by the rule the kernel's
docstring states (drawn label's weight; ova: own weight if positive, else
the line's largest; plt: the largest weight below the positive child, or
below the node for a negative one)."""

import numpy as np
import pytest

from treexc.classify import kernels as kern
from treexc.loss.registry import loss
from treexc.trees.builders import build_tree

K, DIM, ROWS_IN = 7, 6, 5
COUNTS = np.array([40, 25, 12, 8, 5, 3, 1], dtype=np.int64)
WEIGHTS = np.array([0.5, 1.0, 2.0, 3.0, 0.25, 4.0, 1.5])


def make_tree(name):
    entry = loss(name)
    if not entry.has_tree:
        return None
    if entry.tree == "flat":
        return build_tree("flat", K, K, 1)
    return build_tree("huffman", K, 2 if name == "hs" else 3, 0, counts=COUNTS)


def one_step(name, line_labels, lr, label_weight, seed=3, copies=1):
    """``(w_in before, w_in after, w_out before, w_out after, features)``
    of training on one line (``copies`` times over, at one rate)."""
    tree = make_tree(name)
    rng = np.random.default_rng(seed)
    w_in = rng.normal(scale=0.5, size=(ROWS_IN, DIM)).astype(np.float32)
    n_rows = tree.n_internal * tree.arity if tree is not None else K
    w_out = rng.normal(scale=0.5, size=(n_rows, DIM)).astype(np.float32)
    feats = np.array([0, 2, 3], dtype=np.int32)
    labels = np.array(line_labels, dtype=np.int32)
    feat_off = np.arange(copies + 1, dtype=np.int64) * len(feats)
    label_off = np.arange(copies + 1, dtype=np.int64) * len(labels)
    feats, labels = np.tile(feats, copies), np.tile(labels, copies)
    ntokens = np.full(copies, len(feats) // copies + len(labels) // copies + 1,
                      dtype=np.int32)
    if tree is not None:
        children, paths = tree.children, (tree.path_off, tree.path_node, tree.path_slot)
    else:
        children = np.zeros((1, 2), dtype=np.int32)
        paths = (np.zeros(1, np.int64), np.zeros(0, np.int32), np.zeros(0, np.int32))
    w_in0, w_out0 = w_in.copy(), w_out.copy()
    neg_cdf = np.cumsum(np.sqrt(COUNTS.astype(np.float64)))
    kern.train_thread(0, feat_off, feats, label_off, labels, ntokens, w_in, w_out,
                      loss(name).kernel, children, *paths, neg_cdf, 1, lr, 0.0, 10 ** 9,
                      10 ** 6, np.zeros(1, np.int64), int(ntokens.sum()), np.zeros(1, np.int64),
                      np.zeros(1), np.zeros(1, np.int64), np.zeros(1, np.int64), True, 0,
                      np.array([12345], dtype=np.uint64), False, np.zeros((1, 1, 1)),
                      np.zeros((1, 1)), np.ascontiguousarray(label_weight, dtype=np.float64))
    return w_in0, w_in, w_out0, w_out, feats[:3], tree


def labels_below(tree, node):
    return {lab for lab in range(K)
            if node in tree.path_node[tree.path_off[lab]:tree.path_off[lab + 1]].tolist()}


def term_weight(name, tree, row, line_labels, drawn):
    """The weight of row ``row``'s term by the rule."""
    line = set(line_labels)
    if name == "ova":
        return WEIGHTS[row] if row in line else max(WEIGHTS[list(line)])
    if name != "plt":
        return WEIGHTS[drawn]
    n, j = divmod(row, tree.arity)
    c = tree.children[n, j]
    below_c = {c} if c < K else labels_below(tree, c - K)
    if below_c & line:
        return max(WEIGHTS[list(below_c & line)])
    return max(WEIGHTS[list(labels_below(tree, n) & line)])


CASES = [("softmax", [4]), ("hs", [5]), ("tree", [2]), ("ns", [6]), ("ova", [1, 5]),
         ("ova", [3]), ("plt", [0, 5]), ("plt", [2, 3, 6]), ("plt", [4])]


def line_scale(name, line_labels):
    """The weights scaled so that the line's largest term weight is 1: one
    step (``repetitions(1) == 1``)."""
    top = max(WEIGHTS[line_labels]) if name in ("ova", "plt") else WEIGHTS[line_labels[0]]
    return WEIGHTS / top


@pytest.mark.parametrize("name,line_labels", CASES)
def test_weighted_step_is_each_terms_gradient_times_its_weight(name, line_labels):
    lr = 0.01
    weights = line_scale(name, line_labels)
    in0, in_plain, out0, out_plain, feats, tree = one_step(name, line_labels, lr, ())
    _, in_w, _, out_w, _, _ = one_step(name, line_labels, lr, weights)
    hidden = in0[feats].astype(np.float64).mean(axis=0)
    d_plain = (out_plain - out0).astype(np.float64)
    d_w = (out_w - out0).astype(np.float64)
    alpha = d_plain @ hidden / (hidden @ hidden)  # each row's step: alpha * hidden
    touched = np.flatnonzero(np.abs(d_plain).max(axis=1) > 0)
    assert len(touched) >= (1 if name != "ova" else K)
    # the unweighted step is what the module docstring says: alpha_r * hidden per row,
    # the input rows by the mean of alpha_r * row_r
    assert np.allclose(d_plain, np.outer(alpha, hidden), atol=1e-7)
    grad_in = (alpha[:, None] * out0.astype(np.float64)).sum(axis=0) / len(feats)
    assert np.allclose((in_plain - in0)[feats], grad_in, atol=1e-7)
    # the drawn label of a single-label line is its label (ns: and the negatives)
    drawn = line_labels[0]
    wt = np.zeros(len(out0))
    for r in touched:
        wt[r] = term_weight(name, tree, r, line_labels, drawn) * weights[0] / WEIGHTS[0]
    assert np.allclose(d_w, wt[:, None] * d_plain, rtol=2e-3, atol=1e-8)  # float32 rows: deltas to ~1e-4
    untouched = np.setdiff1d(np.arange(len(out0)), touched)
    assert (d_w[untouched] == 0).all()
    grad_in_w = ((wt * alpha)[:, None] * out0.astype(np.float64)).sum(axis=0) / len(feats)
    assert np.allclose((in_w - in0)[feats], grad_in_w, rtol=2e-3, atol=1e-8)


@pytest.mark.parametrize("name", ["softmax", "hs", "tree", "ns", "ova", "plt"])
def test_weight_one_everywhere_is_the_unweighted_step_to_the_bit(name):
    line = [1, 4] if name in ("ova", "plt") else [4]
    _, in_plain, _, out_plain, _, _ = one_step(name, line, 0.05, ())
    _, in_w, _, out_w, _, _ = one_step(name, line, 0.05, np.ones(K))
    assert np.array_equal(in_plain, in_w) and np.array_equal(out_plain, out_w)


@pytest.mark.parametrize("name,line", [("softmax", [3]), ("hs", [3]), ("tree", [5]),
                                       ("ova", [1, 4]), ("plt", [0, 6])])
def test_an_integer_weight_is_that_many_steps(name, line):
    # every term of the line weighs 3: three unweighted steps on it, at the same rate
    weights = np.full(K, 3.0)
    _, in_a, _, out_a, _, _ = one_step(name, line, 0.05, weights)
    _, in_b, _, out_b, _, _ = one_step(name, line, 0.05, (), copies=3)
    assert np.allclose(in_a, in_b, rtol=1e-6, atol=1e-7)
    assert np.allclose(out_a, out_b, rtol=1e-6, atol=1e-7)
    assert not np.allclose(out_a, one_step(name, line, 0.05, ())[3], atol=1e-6)


def test_repetitions_have_the_weight_as_mean():
    state = np.array([99], dtype=np.uint64)
    for weight in (0.03, 0.5, 1.0, 2.25, 7.8):
        reps = np.array([kern.repetitions(weight, state, 0) for _ in range(40000)])
        assert set(reps.tolist()) <= {int(weight), int(weight) + 1}
        assert abs(reps.mean() - weight) < 4 * np.sqrt(0.25 / len(reps)) + 1e-12
