"""Numba kernel deriving root-to-leaf paths from a children array."""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)


@njit(cache=True, nogil=True)
def compute_paths(children, n_labels):
    """Paths of every label, or an error code.

    Returns ``(path_off, path_node, path_slot, error, where)``; ``error`` is
    0 when the tree is well-formed, else 1 = a child id out of range,
    2 = a label twice, 3 = an internal node not in breadth-first order or
    with two parents, 4 = a label without leaf, 5 = an unreachable node;
    ``where`` says which node or label.
    """
    n_internal, arity = children.shape
    parent = np.full(n_internal, -1, dtype=np.int64)
    parent_slot = np.zeros(n_internal, dtype=np.int64)
    leaf_parent = np.full(n_labels, -1, dtype=np.int64)
    leaf_slot = np.zeros(n_labels, dtype=np.int64)
    node_depth = np.zeros(n_internal, dtype=np.int64)
    path_len = np.zeros(n_labels, dtype=np.int64)
    empty = np.zeros(0, dtype=np.int32)
    zero = np.zeros(1, dtype=np.int64)
    for n in range(n_internal):
        for j in range(arity):
            c = children[n, j]
            if c < -1 or c >= n_labels + n_internal:
                return zero, empty, empty, 1, n
            if 0 <= c < n_labels:
                if leaf_parent[c] >= 0:
                    return zero, empty, empty, 2, c
                leaf_parent[c] = n
                leaf_slot[c] = j
                path_len[c] = node_depth[n] + 1
            elif c >= n_labels:
                m = c - n_labels
                if m <= n or parent[m] >= 0:
                    return zero, empty, empty, 3, m
                parent[m] = n
                parent_slot[m] = j
                node_depth[m] = node_depth[n] + 1
    for label in range(n_labels):
        if leaf_parent[label] < 0:
            return zero, empty, empty, 4, label
    for m in range(1, n_internal):
        if parent[m] < 0:
            return zero, empty, empty, 5, m
    path_off = np.zeros(n_labels + 1, dtype=np.int64)
    for label in range(n_labels):
        path_off[label + 1] = path_off[label] + path_len[label]
    path_node = np.empty(path_off[n_labels], dtype=np.int32)
    path_slot = np.empty(path_off[n_labels], dtype=np.int32)
    for label in range(n_labels):
        pos = path_off[label + 1] - 1
        n = leaf_parent[label]
        j = leaf_slot[label]
        while n >= 0:
            path_node[pos] = n
            path_slot[pos] = j
            pos -= 1
            j = parent_slot[n]
            n = parent[n]
    return path_off, path_node, path_slot, 0, 0
