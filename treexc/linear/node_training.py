"""Training every node classifier of a label tree, in threads.

The nodes are independent once the tree is fixed (each is trained on the
lines that reach it, ``teacher_kernels``), so worker threads
(``runtime.run_workers``) take nodes from one queue, the largest first,
and run ``solver_kernels.train_node`` without the GIL.  Each node draws
its random order from its own seed, so the weights are the same whatever
thread trains it and in whatever order: ``-thread N`` gives the same
model as ``-thread 1``.
"""

import threading
from dataclasses import dataclass

import numpy as np

from ..runtime import run_workers
from . import solver_kernels as sk
from . import teacher_kernels as tk
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


def train_nodes(tree, rows, args, nodes=None, kept=None):
    """The :class:`NodeWeights` of ``tree`` on ``rows`` (``SparseRows``).
    ``nodes``: train only these, the others' weights given by ``kept``
    (node -> :func:`node_part`)."""
    line_off, node_line = tk.node_lines(rows.label_off, rows.labels, tree.path_off,
                                        tree.path_node, tree.n_internal)
    depth = tree.node_depths()
    todo = np.arange(tree.n_internal) if nodes is None else np.asarray(nodes)
    # the largest first, so that no thread is left with one big node at the end
    cost = np.diff(line_off)[todo] * (tree.children[todo] >= 0).sum(axis=1)
    todo = todo[np.argsort(-cost, kind="stable")].tolist()
    results = [None] * tree.n_internal
    lock = threading.Lock()
    solver = SOLVERS.index(args.solver)
    control = np.zeros(1, dtype=np.int64)
    passes = [0]
    no_weights = np.zeros((0, 0), dtype=np.float64)  # rows.label_weight None: all weigh 1

    def work(_):
        w = np.zeros(rows.n_cols, dtype=np.float64)
        column_slot = np.full(rows.n_cols, -1, dtype=np.int32)
        while control[0] == 0:
            with lock:
                if not todo:
                    return
                n = todo.pop(0)
            lines = node_line[line_off[n]:line_off[n + 1]]
            positive = tk.node_positives(lines, rows.label_off, rows.labels, tree.path_off,
                                         tree.path_node, tree.path_slot, n, depth[n],
                                         tree.arity)
            filled = (tree.children[n] >= 0).astype(np.uint8)
            line_weight = no_weights if rows.label_weight is None else tk.node_costs(
                lines, rows.label_off, rows.labels, tree.path_off, tree.path_node,
                tree.path_slot, n, depth[n], tree.arity, rows.label_weight)
            *weights, made = sk.train_node(lines, positive, filled, rows.indptr, rows.indices,
                                           rows.data, args.C, solver, args.maxIter, args.eps,
                                           args.prune, args.seed * 1000003 + n, w, column_slot,
                                           line_weight)
            results[n] = weights
            with lock:
                passes[0] += made

    run_workers(max(1, min(args.thread, len(todo))), work, control, lambda: None)
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
