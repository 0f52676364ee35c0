"""Output trees in flat arrays, for every tree-shaped loss.

A tree over ``K`` labels with arity ``M`` is stored as ``children``, an
``(n_internal, M)`` int32 array: ``children[n, j]`` is

* ``0 <= c < K``: the leaf of label ``c``,
* ``c >= K``: the internal node ``c - K``,
* ``-1``: an empty slot (a padding leaf; never predicted, never scored).

Internal node 0 is the root and nodes are numbered breadth-first, so a
node's depth never decreases with its id.  Each internal node ``n`` owns the
output-matrix rows ``n * M .. n * M + M - 1`` (row ``j`` scores slot ``j``).
A node whose two slots are both filled in a binary tree uses only row
``n * M`` and a sigmoid, exactly like fastText's ``hs``.

``flat`` softmax is the one-node tree of arity ``K``; ``hs`` is the binary
Huffman tree; ``hs -arity M`` the M-ary Huffman tree; ``tree`` starts from the
M-ary Huffman tree (or, under a depth limit, the spread tree) and is then
learned.  The builders of every shape are in ``trees.builders``.

Training needs, per label, the path from the root: ``path_off`` (K+1),
``path_node`` and ``path_slot`` (the internal node and the slot taken there).
"""

from dataclasses import dataclass

import numpy as np

from ..errors import TreexcError
from . import path_kernels as tree_kernels
from .tree_checks import TREE_ERRORS as _TREE_ERRORS


@dataclass
class Tree:
    children: np.ndarray  # int32 (n_internal, arity)
    n_labels: int

    def __post_init__(self):
        self.children = np.ascontiguousarray(self.children, dtype=np.int32)
        self.path_off, self.path_node, self.path_slot = compute_paths(self.children,
                                                                      self.n_labels)

    @property
    def arity(self):
        return self.children.shape[1]

    @property
    def n_internal(self):
        return self.children.shape[0]

    def depths(self):
        """Depth of each label's leaf (the root's children are at depth 1)."""
        return np.diff(self.path_off)

    def max_depth(self):
        return int(self.depths().max()) if self.n_labels else 0

    def node_depths(self):
        """Depth of each internal node (root: 0)."""
        depth = np.zeros(self.n_internal, dtype=np.int32)
        for n in range(self.n_internal):
            for c in self.children[n]:
                if c >= self.n_labels:
                    depth[c - self.n_labels] = depth[n] + 1
        return depth


def compute_paths(children, n_labels):
    """Root-to-leaf paths of every label; refuses a malformed tree."""
    path_off, path_node, path_slot, error, where = tree_kernels.compute_paths(
        children, n_labels)
    if error:
        raise TreexcError("corrupt tree: " + _TREE_ERRORS[error].format(where))
    return path_off, path_node, path_slot


def tree_from_children(children, n_labels):
    """A tree from children arrays in any node order (root = node 0)."""
    return renumber_breadth_first(np.asarray(children, dtype=np.int64), n_labels, root=0)


def renumber_breadth_first(children, n_labels, root):
    """Renumber internal nodes breadth-first from ``root`` (which becomes 0)."""
    return renumbered(children, n_labels, root)[0]


def renumbered(children, n_labels, root):
    """``(tree, order)``: :func:`renumber_breadth_first`'s tree and, for
    each of its internal nodes, the index in ``children`` it came from."""
    n_internal = len(children)
    order = [root]
    new_id = np.full(n_internal, -1, dtype=np.int64)
    new_id[root] = 0
    head = 0
    while head < len(order):
        n = order[head]
        head += 1
        for c in children[n]:
            if c >= n_labels:
                new_id[c - n_labels] = len(order)
                order.append(c - n_labels)
    out = children[order].copy()
    internal = out >= n_labels
    out[internal] = n_labels + new_id[out[internal] - n_labels]
    return Tree(out.astype(np.int32), n_labels), np.array(order, dtype=np.int64)
