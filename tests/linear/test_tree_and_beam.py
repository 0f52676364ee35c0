"""The k-means tree's balance, and beam search against brute force over
every label's path."""

import numpy as np
import pytest

from treexc.linear import beam_kernels as bk
from treexc.linear import kmeans_kernels as kk
from treexc.linear.kmeans_tree import cuts, kmeans_tree
from treexc.linear.node_training import NodeWeights


def _random_rows(rng, n, d, density=0.3):
    dense = rng.random((n, d)) * (rng.random((n, d)) < density)
    indptr = np.concatenate([[0], np.cumsum((dense != 0).sum(axis=1))]).astype(np.int64)
    indices = np.nonzero(dense)[1].astype(np.int32)
    return indptr, indices, dense[dense != 0].astype(np.float32), dense


@pytest.mark.parametrize("n_labels,arity,leaf", [(37, 4, 5), (100, 16, 10), (9, 2, 2),
                                                 (250, 3, 7)])
def test_kmeans_tree_is_balanced(n_labels, arity, leaf):
    rng = np.random.default_rng(n_labels)
    off, cols, vals, _ = _random_rows(rng, n_labels, 30)
    tree = kmeans_tree((off, cols, vals), 30, n_labels, arity, leaf, seed=3)
    depths = tree.depths()
    assert (depths == len(cuts(n_labels, arity, leaf)) + 1).all()  # one depth for all
    sizes = []
    for n in range(tree.n_internal):
        kids = tree.children[n][tree.children[n] >= 0]
        if (kids < n_labels).all():  # a last-level node: its labels
            sizes.append(len(kids))
    assert max(sizes) <= leaf and max(sizes) - min(sizes) <= 1


def test_cuts():
    assert cuts(732, 16, 100) == [8] and cuts(732, 16, 800) == []
    assert cuts(8758, 16, 100) == [16, 6] and cuts(5, 2, 2) == [2, 2]


def test_split_sizes_are_exact():
    rng = np.random.default_rng(0)
    off, cols, vals, _ = _random_rows(rng, 50, 20)
    local = np.full(21, -1, dtype=np.int32)
    items = np.arange(50, dtype=np.int64)
    for n_first in (1, 17, 25, 49):
        side = kk.balanced_split(items, n_first, off, cols, vals, local, 5, 20)
        assert (side == 0).sum() == n_first
        assert (local == -1).all()


def _random_weights(rng, tree, n_cols):
    parts = []
    for n in range(tree.n_internal):
        cols = np.sort(rng.choice(n_cols, size=min(n_cols, 6), replace=False)).astype(np.int32)
        kids = np.flatnonzero(tree.children[n] >= 0)
        entries = [np.sort(rng.choice(kids, size=rng.integers(1, len(kids) + 1),
                                      replace=False)) for _ in cols]
        off = np.concatenate([[0], np.cumsum([len(e) for e in entries])]).astype(np.int64)
        slots = np.concatenate(entries).astype(np.int32)
        parts.append((cols, off, slots, rng.normal(size=len(slots)).astype(np.float32)))
    node_off = np.concatenate([[0], np.cumsum([len(p[0]) for p in parts])]).astype(np.int64)
    bases = np.cumsum([0] + [len(p[2]) for p in parts])
    entry_off = np.concatenate([[0]] + [p[1][1:] + b for p, b in zip(parts, bases)])
    return NodeWeights(node_off, np.concatenate([p[0] for p in parts]), entry_off.astype(
        np.int64), np.concatenate([p[2] for p in parts]), np.concatenate([p[3] for p in parts]))


def _brute_force(tree, w, row_cols, row_vals, scorer, n_cols):
    x = np.zeros(n_cols)
    x[row_cols] = row_vals
    scores = np.zeros(tree.n_labels)
    for lab in range(tree.n_labels):
        s = 0.0
        for q in range(tree.path_off[lab], tree.path_off[lab + 1]):
            n, j = tree.path_node[q], tree.path_slot[q]
            z = 0.0
            for e in range(w.node_off[n], w.node_off[n + 1]):
                for p in range(w.entry_off[e], w.entry_off[e + 1]):
                    if w.slots[p] == j:
                        z += w.vals[p] * x[w.cols[e]]
            s += bk.log_score(z, scorer)
        scores[lab] = s
    return scores


@pytest.mark.parametrize("scorer", [bk.SCORER_L3HINGE, bk.SCORER_SIGMOID])
def test_full_beam_is_exact_top_k(scorer):
    rng = np.random.default_rng(1)
    n_labels, n_cols = 60, 12
    off, cols, vals, _ = _random_rows(rng, n_labels, n_cols)
    tree = kmeans_tree((off, cols, vals), n_cols, n_labels, 3, 4, seed=0)
    w = _random_weights(rng, tree, n_cols)
    indptr, indices, data, _ = _random_rows(rng, 20, n_cols, 0.5)
    k = 7
    out_l = np.zeros((20, k), np.int64)
    out_s = np.zeros((20, k))
    out_c = np.zeros(20, np.int64)
    bk.predict_rows(indptr, indices, data, tree.children, n_labels, w.node_off, w.cols,
                    *w.blocks, w.entry_off, w.slots, w.vals, tree.n_internal, scorer, k, 0.0,
                    out_l, out_s, out_c)
    for i in range(20):
        a, b = indptr[i], indptr[i + 1]
        scores = _brute_force(tree, w, indices[a:b], data[a:b], scorer, n_cols)
        order = np.lexsort((np.arange(n_labels), -scores))[:k]
        assert out_c[i] == k
        assert out_l[i].tolist() == order.tolist()
        assert np.allclose(out_s[i], scores[order])
    # a narrow beam answers a subset of the candidates, each with its exact score
    bk.predict_rows(indptr, indices, data, tree.children, n_labels, w.node_off, w.cols,
                    *w.blocks, w.entry_off, w.slots, w.vals, 1, scorer, k, 0.0, out_l, out_s,
                    out_c)
    scores = _brute_force(tree, w, indices[:indptr[1]], data[:indptr[1]], scorer, n_cols)
    assert np.allclose(out_s[0, :out_c[0]], scores[out_l[0, :out_c[0]]])


def test_node_margins_across_column_blocks():
    # nodes of 0 to 300 columns (up to 19 blocks) against a dense product;
    # rows that start below a node's first column and end above its last
    rng = np.random.default_rng(3)
    n_cols, arity, sizes = 400, 5, (0, 1, 15, 16, 17, 40, 300)
    cols = [np.sort(rng.choice(np.arange(10, 390), size=m, replace=False)) for m in sizes]
    counts = [rng.integers(1, arity + 1, size=m) for m in sizes]
    node_off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    entry_len = np.concatenate(counts).astype(np.int64)
    entry_off = np.concatenate([[0], np.cumsum(entry_len)]).astype(np.int64)
    slots = np.concatenate([rng.choice(arity, size=c, replace=False) for c in entry_len])
    w = NodeWeights(node_off, np.concatenate(cols).astype(np.int32), entry_off,
                    slots.astype(np.int32), rng.normal(size=len(slots)).astype(np.float32))
    z = np.empty(arity)
    for node in range(len(sizes)):
        dense = np.zeros((n_cols, arity))
        for e in range(node_off[node], node_off[node + 1]):
            for p in range(entry_off[e], entry_off[e + 1]):
                dense[w.cols[e], w.slots[p]] = w.vals[p]
        for density in (0.02, 0.3, 1.0):
            row_cols = np.flatnonzero(rng.random(n_cols) < density).astype(np.int32)
            row_vals = rng.normal(size=len(row_cols)).astype(np.float32)
            bk.node_margins(node, row_cols, row_vals, w.node_off, w.cols, *w.blocks,
                            w.entry_off, w.slots, w.vals, z)
            want = row_vals.astype(np.float64) @ dense[row_cols]
            assert np.allclose(z, want, rtol=1e-6, atol=1e-9), (node, density)
