"""Every node classifier of a tree, trained in threads: a big node's slots
as separate jobs and the columns renumbered by frequency give, to the bit,
each node's classifiers trained alone on the given columns, the root's at
``-rootMaxIter`` passes."""

from dataclasses import replace

import numpy as np
import pytest

from treexc.linear import kmeans_kernels as kk
from treexc.linear import solver_kernels as sk
from treexc.linear import teacher_kernels as tk
from treexc.linear.features import rows_from_arrays
from treexc.linear.kmeans_tree import kmeans_tree
from treexc.linear.node_training import by_frequency, max_passes, train_nodes
from treexc.linear.options import SOLVERS, make_linear_args


def _problem(seed, n=400, d=300, n_labels=40):
    rng = np.random.default_rng(seed)
    # Zipf-like columns, so that renumbering by frequency moves most of them
    p = 1.0 / np.arange(1, d + 1) ** 0.8
    p = rng.permutation(p / p.sum())
    indptr, indices, data = [0], [], []
    for _ in range(n):
        cols = np.unique(rng.choice(d, size=rng.integers(3, 25), p=p))
        indices += cols.tolist()
        data += rng.random(len(cols)).tolist()
        indptr.append(len(indices))
    labels = rng.integers(0, n_labels, size=n)
    rows = rows_from_arrays(np.array(indptr), np.array(indices, dtype=np.int32),
                            np.array(data), np.arange(n + 1), labels, d)
    centroids = kk.label_centroids(rows.indptr, rows.indices, rows.data, rows.label_off,
                                   rows.labels, n_labels, rows.n_cols - 1)
    tree = kmeans_tree(centroids, rows.n_cols - 1, n_labels, 4, 3, seed)
    return rows, tree


def _alone(tree, rows, args, root_passes=None):
    """Each node by ``solver_kernels.train_node`` on the given columns, one
    by one, at ``-maxIter`` passes (the root, node 0, at ``root_passes``
    if given)."""
    line_off, node_line = tk.node_lines(rows.label_off, rows.labels, tree.path_off,
                                        tree.path_node, tree.n_internal)
    depth = tree.node_depths()
    out = []
    for n in range(tree.n_internal):
        lines = node_line[line_off[n]:line_off[n + 1]]
        positive = tk.node_positives(lines, rows.label_off, rows.labels, tree.path_off,
                                     tree.path_node, tree.path_slot, n, depth[n], tree.arity)
        filled = (tree.children[n] >= 0).astype(np.uint8)
        *part, _ = sk.train_node(lines, positive, filled, rows.indptr, rows.indices, rows.data,
                                 args.C, SOLVERS.index(args.solver),
                                 root_passes if n == 0 and root_passes else args.maxIter,
                                 args.eps,
                                 args.prune, args.seed * 1000003 + n,
                                 np.zeros(rows.n_cols), np.full(rows.n_cols, -1, np.int32),
                                 np.zeros((0, 0)))
        out.append(part)
    return out


@pytest.mark.parametrize("solver", ["svm", "lr"])
@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("root_max_iter", [1, 5, 20])
def test_split_slots_and_renumbered_columns_give_each_node_alone(solver, threads,
                                                                 root_max_iter):
    rows, tree = _problem(5)
    args = make_linear_args(solver=solver, thread=threads, seed=2, prune=0.01,
                            rootMaxIter=root_max_iter)
    w = train_nodes(tree, rows, args)
    line_off, _ = tk.node_lines(rows.label_off, rows.labels, tree.path_off, tree.path_node,
                                tree.n_internal)
    split = [n for n in range(tree.n_internal)
             if sk.reads_in_place(line_off[n + 1] - line_off[n], rows.n_rows)]
    assert split == [0]  # the root: one job a slot
    alone = _alone(tree, rows, args, min(root_max_iter, args.maxIter))
    for n, (cols, entry_off, slots, vals) in enumerate(alone):
        a, b = w.node_off[n], w.node_off[n + 1]
        assert w.cols[a:b].tolist() == cols.tolist()
        e0, e1 = w.entry_off[a], w.entry_off[b]
        assert (w.entry_off[a:b + 1] - e0).tolist() == entry_off.tolist()
        assert w.slots[e0:e1].tolist() == slots.tolist()
        stored = vals.astype(np.float16).astype(np.float32)  # as join_nodes keeps them
        assert w.vals[e0:e1].tobytes() == stored.tobytes()
    assert len(w.vals) > 200


def test_the_same_weights_whatever_the_thread_count():
    rows, tree = _problem(7)
    one = train_nodes(tree, rows, make_linear_args(thread=1, seed=4))
    for threads in (2, 5):
        many = train_nodes(tree, rows, make_linear_args(thread=threads, seed=4))
        for field in ("node_off", "cols", "entry_off", "slots", "vals"):
            assert getattr(one, field).tobytes() == getattr(many, field).tobytes()
    other = train_nodes(tree, rows, make_linear_args(thread=1, seed=5))
    assert other.vals.tobytes() != one.vals.tobytes()  # the seed reaches the solver


def test_columns_by_frequency():
    indices = np.array([3, 1, 4, 1, 3, 1, 0, 5], dtype=np.int32)  # 5: the bias column
    new, given = by_frequency(indices, 6)
    assert given.tolist() == [1, 3, 0, 4, 2, 5]  # by count, ties in column order, bias last
    assert given[new].tolist() == indices.tolist()


def test_the_root_passes():
    args = make_linear_args(maxIter=20, rootMaxIter=5)
    assert (max_passes(args, True), max_passes(args, False)) == (5, 20)
    assert max_passes(replace(args, maxIter=3), True) == 3  # -maxIter bounds every node
    assert max_passes(replace(args, rootMaxIter=50), True) == 20


def test_the_root_cap_binds_and_spares_the_other_nodes():
    """One pass at the root changes its weights and no other node's."""
    rows, tree = _problem(7)
    args = make_linear_args(thread=1, seed=1, prune=0.01)
    capped = train_nodes(tree, rows, replace(args, rootMaxIter=1))
    full = train_nodes(tree, rows, replace(args, rootMaxIter=args.maxIter))

    def node(w, n):
        a, b = w.node_off[n], w.node_off[n + 1]
        return w.cols[a:b].tobytes(), w.vals[w.entry_off[a]:w.entry_off[b]].tobytes()

    assert node(capped, 0) != node(full, 0)
    assert all(node(capped, n) == node(full, n) for n in range(1, tree.n_internal))


def test_a_tree_of_one_node_is_not_capped():
    """One-vs-rest (the root's children are labels): every classifier at -maxIter."""
    rows, _ = _problem(3, n_labels=6)
    centroids = kk.label_centroids(rows.indptr, rows.indices, rows.data, rows.label_off,
                                   rows.labels, 6, rows.n_cols - 1)
    tree = kmeans_tree(centroids, rows.n_cols - 1, 6, 8, 25, 0)
    assert tree.n_internal == 1
    args = make_linear_args(thread=1, seed=1, prune=0.01)
    capped = train_nodes(tree, rows, replace(args, rootMaxIter=1))
    full = train_nodes(tree, rows, replace(args, rootMaxIter=args.maxIter))
    assert capped.vals.tobytes() == full.vals.tobytes()
    assert capped.cols.tobytes() == full.cols.tobytes()
