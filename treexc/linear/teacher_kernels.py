"""Numba kernels of teacher forcing: which lines reach which tree node.

A node's classifiers are trained on the lines that have a label below it
(the others never reach it when the tree routes them right), each line
positive for the slots its labels lie below.  The labels' root-to-leaf
paths (``trees.tree.Tree``: ``path_off``, ``path_node``, ``path_slot``)
say both.

With label weights, a line's weight in slot ``j``'s classifier
(:func:`node_costs`) is the largest weight of its labels below slot ``j``
where it is positive there, else the largest weight of its labels below
the node: the rule of the embedding model's PLT (``loss/plt.py``, which
says why the largest), so on a single-label line every classifier it
reaches weighs its label's weight.
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)


@njit(cache=True, nogil=True)
def node_lines(label_off, labels, path_off, path_node, n_internal):
    """``(off, lines)``: the lines reaching each internal node, ascending
    and each once."""
    last = np.full(n_internal, -1, dtype=np.int64)
    count = np.zeros(n_internal + 1, dtype=np.int64)
    for i in range(len(label_off) - 1):
        for k in range(label_off[i], label_off[i + 1]):
            lab = labels[k]
            for q in range(path_off[lab], path_off[lab + 1]):
                n = path_node[q]
                if last[n] != i:
                    last[n] = i
                    count[n + 1] += 1
    off = np.cumsum(count)
    fill = off[:-1].copy()
    lines = np.empty(off[-1], dtype=np.int64)
    last[:] = -1
    for i in range(len(label_off) - 1):
        for k in range(label_off[i], label_off[i + 1]):
            lab = labels[k]
            for q in range(path_off[lab], path_off[lab + 1]):
                n = path_node[q]
                if last[n] != i:
                    last[n] = i
                    lines[fill[n]] = i
                    fill[n] += 1
    return off, lines


@njit(cache=True, nogil=True)
def node_positives(lines, label_off, labels, path_off, path_node, path_slot, node, depth,
                   arity):
    """``positive[s, j]``: line ``lines[s]`` has a label below slot ``j`` of
    ``node`` (at ``depth``)."""
    positive = np.zeros((len(lines), arity), dtype=np.uint8)
    for s in range(len(lines)):
        i = lines[s]
        for k in range(label_off[i], label_off[i + 1]):
            lab = labels[k]
            q = path_off[lab] + depth
            if q < path_off[lab + 1] and path_node[q] == node:
                positive[s, path_slot[q]] = 1
    return positive


@njit(cache=True, nogil=True)
def node_costs(lines, label_off, labels, path_off, path_node, path_slot, node, depth, arity,
               label_weight):
    """``weight[s, j]``: line ``lines[s]``'s weight in slot ``j``'s
    classifier of ``node`` (at ``depth``; module docstring)."""
    weight = np.zeros((len(lines), arity), dtype=np.float64)
    below = np.zeros(arity, dtype=np.bool_)
    for s in range(len(lines)):
        i = lines[s]
        below[:] = False
        largest = 0.0
        for k in range(label_off[i], label_off[i + 1]):
            lab = labels[k]
            q = path_off[lab] + depth
            if q < path_off[lab + 1] and path_node[q] == node:
                j = path_slot[q]
                below[j] = True
                weight[s, j] = max(weight[s, j], label_weight[lab])
                largest = max(largest, label_weight[lab])
        for j in range(arity):
            if not below[j]:
                weight[s, j] = largest
    return weight
