"""Training every node classifier of a label tree, in threads.

The nodes are independent once the tree is fixed (each is trained on the
lines that reach it, ``teacher_kernels``), so worker threads
(``runtime.run_workers``) take jobs from one queue, the largest first,
and run ``solver_kernels`` without the GIL.  A node read in place (one
holding most lines: the root) is one job a group of slots (the SVM
solves a group's slots at once, ``solver_kernels.SLOT_GROUP``), so that
its classifiers, most of the training, spread over the threads instead of
leaving one thread alone with it at the end; its columns and norms are
found once, by the first thread to reach it.  Each group draws its random
orders from its node's seed and its first slot, so the weights are the
same whatever thread trains it and in whatever order: ``-thread N`` gives
the same model as ``-thread 1``.

The solvers read the rows with the columns renumbered by document
frequency, the most frequent first (:func:`by_frequency`): the weights a
pass reads most then share cache lines, where the root, whose weight
vector spans every column, would otherwise miss the cache on most reads.
Each row keeps its entries' order, so every sum runs as on the columns
as given: the same weights to the bit, mapped back to the given columns.
"""

import threading
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..runtime import run_workers
from . import solver_kernels as sk
from . import teacher_kernels as tk
from .beam_kernels import column_blocks
from .options import SOLVERS

FLOAT16_LARGEST = 60000.0  # larger weights keep float32 (float16 ends at 65504)


@dataclass
class NodeWeights:
    """Every node's classifiers, feature-major: node ``n``'s columns are
    ``cols[node_off[n]:node_off[n + 1]]`` (ascending), column entry ``e``'s
    slots and weights ``slots[entry_off[e]:entry_off[e + 1]]``, ``vals``."""

    node_off: np.ndarray   # int64 (n_internal + 1,)
    cols: np.ndarray       # int32
    entry_off: np.ndarray  # int64 (len(cols) + 1,)
    slots: np.ndarray      # int32
    vals: np.ndarray       # float32

    @property
    def nnz(self):
        return len(self.vals)

    @cached_property
    def blocks(self):
        """``beam_kernels.column_blocks`` of the columns (made on first use)."""
        return column_blocks(self.node_off, self.cols)


def by_frequency(indices, n_cols):
    """``(renumbered indices, given column of each new one)``: the columns
    but the bias (the last, kept last) numbered by descending document
    frequency, ties in column order."""
    df = np.bincount(indices, minlength=n_cols)[:n_cols - 1]
    given = np.concatenate([np.argsort(-df, kind="stable"), [n_cols - 1]]).astype(np.int32)
    new = np.empty(n_cols, dtype=np.int32)
    new[given] = np.arange(n_cols, dtype=np.int32)
    return new[indices], given


def max_passes(args, root):
    """The solver's passes at most for a node's classifiers: ``-rootMaxIter``
    at a ``root`` (a node that most training lines reach, above other
    nodes: each of its classifiers reads every line, and takes about twice
    the passes of a deeper node to meet ``-eps``), ``-maxIter`` elsewhere
    and as a bound."""
    return min(args.maxIter, args.rootMaxIter) if root else args.maxIter


class _Node:
    """What the jobs of one node share: its lines, targets, costs and,
    for a node trained a group of slots a job, its columns and norms."""

    def __init__(self, n, groups, max_iter):
        self.n = n
        self.groups = groups  # its jobs' first slots (-1: the whole node)
        self.max_iter = max_iter
        self.lock = threading.Lock()
        self.ready = False
        self.parts = [None] * len(groups)
        self.left = len(groups)


def train_nodes(tree, rows, args, nodes=None, kept=None):
    """The :class:`NodeWeights` of ``tree`` on ``rows`` (``SparseRows``).
    ``nodes``: train only these, the others' weights given by ``kept``
    (node -> :func:`node_part`)."""
    line_off, node_line = tk.node_lines(rows.label_off, rows.labels, tree.path_off,
                                        tree.path_node, tree.n_internal)
    depth = tree.node_depths()
    todo = np.arange(tree.n_internal) if nodes is None else np.asarray(nodes)
    # the largest first, so that no thread is left with one big node at the end
    n_lines = np.diff(line_off)
    cost = n_lines[todo] * (tree.children[todo] >= 0).sum(axis=1)
    todo = todo[np.argsort(-cost, kind="stable")].tolist()
    indices, given = by_frequency(rows.indices, rows.n_cols)
    jobs = []  # (node state, a group's first slot or -1: the whole node)
    for n in todo:
        filled = np.flatnonzero(tree.children[n] >= 0).tolist()
        in_place = sk.reads_in_place(n_lines[n], rows.n_rows)
        # the root of a tree deeper than one node (a tree of one node is
        # one-vs-rest: its classifiers are the labels')
        max_iter = max_passes(args, in_place and bool((tree.children[n] >= tree.n_labels).any()))
        groups = sorted({j - j % sk.SLOT_GROUP for j in filled})
        if in_place and len(groups) > 1:
            node = _Node(n, groups, max_iter)
            jobs += [(node, g) for g in groups]
        else:
            jobs.append((_Node(n, [-1], max_iter), -1))
    jobs.reverse()  # popped from the end
    results = [None] * tree.n_internal
    lock = threading.Lock()
    solver = SOLVERS.index(args.solver)
    control = np.zeros(1, dtype=np.int64)
    passes = [0]
    no_weights = np.zeros((0, 0), dtype=np.float64)  # rows.label_weight None: all weigh 1
    bias_col = rows.n_cols - 1

    def targets(node):
        n = node.n
        node.lines = node_line[line_off[n]:line_off[n + 1]]
        node.positive = tk.node_positives(node.lines, rows.label_off, rows.labels,
                                          tree.path_off, tree.path_node, tree.path_slot, n,
                                          depth[n], tree.arity)
        node.filled = (tree.children[n] >= 0).astype(np.uint8)
        node.line_weight = no_weights if rows.label_weight is None else tk.node_costs(
            node.lines, rows.label_off, rows.labels, tree.path_off, tree.path_node,
            tree.path_slot, n, depth[n], tree.arity, rows.label_weight)

    def finish(node, places, slots, vals):
        cols, entry_off, slots, vals = sk.feature_major(node.cols, places, slots, vals)
        results[node.n] = sk.in_given_columns(cols, entry_off, slots, vals, given)

    def work(_):
        w = np.zeros(rows.n_cols, dtype=np.float64)
        column_slot = np.full(rows.n_cols, -1, dtype=np.int32)
        while control[0] == 0:
            with lock:
                if not jobs:
                    return
                node, slot = jobs.pop()
            seed = args.seed * 1000003 + node.n
            if slot < 0:  # the whole node
                targets(node)
                *weights, made = sk.train_node(
                    node.lines, node.positive, node.filled, rows.indptr, indices, rows.data,
                    args.C, solver, node.max_iter, args.eps, args.prune, seed, w, column_slot,
                    node.line_weight)
                results[node.n] = sk.in_given_columns(*weights, given)
                with lock:
                    passes[0] += made
                continue
            with node.lock:  # the first job of the node finds what its slots share
                if not node.ready:
                    targets(node)
                    node.cols = sk.node_columns(node.lines, rows.indptr, indices, column_slot)
                    node.xnorm2 = sk.squared_norms(node.lines, rows.indptr, rows.data)
                    node.ready = True
            part = sk.train_slots(node.lines, rows.indptr, indices, rows.data, node.xnorm2,
                                  node.cols, True, node.positive, node.filled, slot,
                                  min(slot + sk.SLOT_GROUP, len(node.filled)), args.C,
                                  solver, node.max_iter, args.eps, args.prune, seed, bias_col,
                                  w, node.line_weight)
            with lock:
                passes[0] += part[3]
            with node.lock:
                node.parts[node.groups.index(slot)] = part
                node.left -= 1
                last = node.left == 0
            if last:  # the slots' weights in slot order, as one call would give them
                finish(node, *(np.concatenate([p[i] for p in node.parts]) for i in range(3)))

    run_workers(max(1, min(args.thread, len(jobs))), work, control, lambda: None)
    for n, part in (kept or {}).items():
        results[n] = part
    return join_nodes(results)


def node_part(weights, n):
    """Node ``n``'s ``(cols, entry_off, slots, vals)`` out of ``weights``."""
    a, b = weights.node_off[n], weights.node_off[n + 1]
    e0, e1 = weights.entry_off[a], weights.entry_off[b]
    return (weights.cols[a:b], weights.entry_off[a:b + 1] - e0, weights.slots[e0:e1],
            weights.vals[e0:e1])


def stored_values(vals):
    """The weights as the model file keeps them: rounded to float16 (its
    compact layout, ``stored``) unless one is too large for it, so that a
    trained model answers as the file it is saved to."""
    vals = np.asarray(vals, dtype=np.float32)
    if len(vals) and not float(np.abs(vals).max()) <= FLOAT16_LARGEST:
        return vals
    return vals.astype(np.float16).astype(np.float32)


def join_nodes(parts):
    """One :class:`NodeWeights` of the nodes' ``(cols, entry_off, slots, vals)``,
    the weights rounded as stored (:func:`stored_values`)."""
    node_off = np.zeros(len(parts) + 1, dtype=np.int64)
    node_off[1:] = np.cumsum([len(p[0]) for p in parts])
    bases = np.cumsum([0] + [len(p[2]) for p in parts])
    entry_off = np.concatenate([np.zeros(1, np.int64)]
                               + [p[1][1:] + base for p, base in zip(parts, bases)])
    return NodeWeights(node_off, np.concatenate([p[0] for p in parts]).astype(np.int32),
                       entry_off.astype(np.int64),
                       np.concatenate([p[2] for p in parts]).astype(np.int32),
                       stored_values(np.concatenate([p[3] for p in parts])))
