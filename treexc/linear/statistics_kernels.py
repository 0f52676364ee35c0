"""Numba kernel of the learned tree's statistics for the linear family.

AssignLabels (``trees/assign_kernels``) reads, per label and node of its
path, the sum over the label's lines of the node's child distribution and
the number of those lines (``stats_p``, ``stats_n`` by path position, as
the embedding model's training kernels fill them).  Here a node's child
distribution is its classifiers' scores (``beam_kernels.log_score`` of
each filled slot's margin) normalised to sum to one.
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from .beam_kernels import log_score, node_margins


@njit(cache=True, nogil=True)
def path_statistics(indptr, indices, data, label_off, labels, children, path_off, path_node,
                    node_off, w_cols, block_off, block_first, entry_off, w_slots, w_vals,
                    scorer, stats_p, stats_n):
    """Add every labelled line's statistics into ``stats_p`` (path
    positions x slots) and ``stats_n`` (path positions)."""
    arity = children.shape[1]
    z = np.empty(arity, dtype=np.float64)
    p = np.empty(arity, dtype=np.float64)
    for i in range(len(indptr) - 1):
        a, b = indptr[i], indptr[i + 1]
        for k in range(label_off[i], label_off[i + 1]):
            lab = labels[k]
            for q in range(path_off[lab], path_off[lab + 1]):
                node = path_node[q]
                node_margins(node, indices[a:b], data[a:b], node_off, w_cols, block_off,
                             block_first, entry_off, w_slots, w_vals, z)
                total = 0.0
                for j in range(arity):
                    p[j] = np.exp(log_score(z[j], scorer)) if children[node, j] >= 0 else 0.0
                    total += p[j]
                if total <= 0.0:
                    continue
                for j in range(arity):
                    stats_p[q, j] += p[j] / total
                stats_n[q] += 1.0
