"""Numba kernels of the M-ary Huffman construction, written once for the
Huffman trees (``builders.huffman_tree``: ``-loss hs``, the learned tree's
start) and for AssignLabels, which keeps each node's own Huffman leaves as
leaves (``assign_kernels``)."""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)


@njit(cache=True, nogil=True)
def huffman_merges(leaf_mass, arity):
    """The M-ary Huffman construction (fastText's two queues) over leaves
    of ascending mass, padding included (``len(leaf_mass)`` is ``1 mod
    (arity - 1)``): row ``k`` lists what merge ``k`` takes, leaf ``i`` as
    ``i`` and the node of merge ``k'`` as ``-(k' + 1)``; the last row is the
    root.  A leaf is taken only when strictly lighter than the lightest
    merged node.  ``builders.huffman_tree`` builds its tree from it."""
    n_leaves = len(leaf_mass)
    n_merges = (n_leaves - 1) // (arity - 1)
    taken = np.empty((n_merges, arity), dtype=np.int64)
    merged = np.empty(n_merges)
    leaf, node = 0, 0
    for new in range(n_merges):
        total = 0.0
        for j in range(arity):
            if leaf < n_leaves and (node >= new or leaf_mass[leaf] < merged[node]):
                taken[new, j] = leaf
                total += leaf_mass[leaf]
                leaf += 1
            else:
                taken[new, j] = -(node + 1)
                total += merged[node]
                node += 1
        merged[new] = total
    return taken


@njit(cache=True, nogil=True)
def huffman_padding(n, arity):
    """Empty leaves that make every merge of an ``arity``-ary Huffman tree
    over ``n`` leaves take exactly ``arity`` nodes."""
    return (arity - 1 - (n - 1) % (arity - 1)) % (arity - 1)


@njit(cache=True, nogil=True)
def huffman_root_leaves(ascending_mass, arity):
    """How many of these labels (masses in ascending order) the ``arity``-ary
    Huffman tree over them puts directly under its root: the heaviest ones."""
    n = len(ascending_mass)
    if n <= arity:
        return n
    n_pad = huffman_padding(n, arity)
    leaf_mass = np.zeros(n + n_pad)
    leaf_mass[n_pad:] = ascending_mass
    # counted by hand: np.sum here put numba.np.arraymath in the cached
    # kernel's environment, whose loading imports scipy.linalg (0.2 s)
    top = huffman_merges(leaf_mass, arity)[-1]
    count = 0
    for child in top:
        count += child >= n_pad
    return count
