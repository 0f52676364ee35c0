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
M-ary Huffman tree and is then learned.

Training needs, per label, the path from the root: ``path_off`` (K+1),
``path_node`` and ``path_slot`` (the internal node and the slot taken there).
"""

from dataclasses import dataclass

import numpy as np

from ..errors import TreexcError
from . import path_kernels as tree_kernels


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


_TREE_ERRORS = {
    1: "node {} has a child id out of range",
    2: "label {} appears twice",
    3: "node {} is not in breadth-first order",
    4: "label {} has no leaf",
    5: "node {} is unreachable",
}


def compute_paths(children, n_labels):
    """Root-to-leaf paths of every label; refuses a malformed tree."""
    path_off, path_node, path_slot, error, where = tree_kernels.compute_paths(
        children, n_labels)
    if error:
        raise TreexcError("corrupt tree: " + _TREE_ERRORS[error].format(where))
    return path_off, path_node, path_slot


def flat_tree(n_labels):
    """A flat softmax: one node whose children are all the labels."""
    return Tree(np.arange(n_labels, dtype=np.int32)[None, :], n_labels)


def huffman_tree(counts, arity):
    """M-ary Huffman tree over label counts.

    Zero-count padding leaves (empty slots) are added so that every merge
    takes exactly ``arity`` nodes.  With ``arity == 2`` this is fastText's
    ``hs`` tree: the same two-queue construction, the same tie rule (a leaf is
    taken only when strictly lighter than the lightest internal node), and
    the right child (slot 1) is the sigmoid's positive class.
    """
    counts = np.asarray(counts, dtype=np.float64)
    n_labels = len(counts)
    if n_labels <= 1:  # nothing to merge: one node holding the label (if any)
        children = np.full((1, arity), -1, dtype=np.int32)
        children[0, :n_labels] = np.arange(n_labels)
        return Tree(children, n_labels)
    n_pad = (arity - 1 - (n_labels - 1) % (arity - 1)) % (arity - 1)
    # leaves in ascending count order, padding (count 0, id -1) first;
    # fastText walks its count-descending label list backwards
    order = np.argsort(-counts, kind="stable")[::-1]
    leaf_ids = np.concatenate([np.full(n_pad, -1), order]).astype(np.int64)
    leaf_counts = np.concatenate([np.zeros(n_pad), counts[order]])
    n_internal = (n_labels + n_pad - 1) // (arity - 1)
    built = np.empty((n_internal, arity), dtype=np.int64)  # creation order
    node_counts = np.empty(n_internal)
    leaf, node = 0, 0
    for new in range(n_internal):
        total = 0.0
        for j in range(arity):
            if leaf < len(leaf_ids) and (node >= new or leaf_counts[leaf] < node_counts[node]):
                built[new, j] = leaf_ids[leaf] if leaf_ids[leaf] >= 0 else -1
                total += leaf_counts[leaf]
                leaf += 1
            else:
                built[new, j] = n_labels + node  # provisional id: creation index
                total += node_counts[node]
                node += 1
        node_counts[new] = total
    return _renumber_breadth_first(built, n_labels, root=n_internal - 1)


def _renumber_breadth_first(children, n_labels, root):
    """Renumber internal nodes breadth-first from ``root`` (which becomes 0)."""
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
    return Tree(out.astype(np.int32), n_labels)


def tree_from_children(children, n_labels):
    """A tree from children arrays in any node order (root = node 0)."""
    return _renumber_breadth_first(np.asarray(children, dtype=np.int64), n_labels, root=0)


def random_balanced_tree(n_labels, arity, depth, rng):
    """Labels shuffled into the leaves of a complete ``arity``-ary tree of
    ``depth`` levels (``arity ** depth >= n_labels``), spread evenly so every
    subtree at a level holds the same number of labels, give or take one."""
    if arity ** depth < n_labels:
        raise TreexcError(f"-arity {arity} -depth {depth} holds {arity ** depth} "
                          f"leaves, fewer than the {n_labels} words")
    labels = rng.permutation(n_labels)
    return balanced_tree(labels, arity, depth, n_labels)


def balanced_tree(ordered_labels, arity, depth, n_labels):
    """Place ``ordered_labels`` left to right into a depth-``depth`` tree,
    splitting each node's share as evenly as possible among its children."""
    rows = []

    def build(items, level):
        node = len(rows)
        rows.append(None)
        row = np.full(arity, -1, dtype=np.int64)
        if level == depth - 1:
            row[:len(items)] = items
        else:
            parts = np.array_split(items, arity)
            for j, part in enumerate(parts):
                if len(part):
                    row[j] = n_labels + build(part, level + 1)
        rows[node] = row
        return node

    build(np.asarray(ordered_labels), 0)
    return tree_from_children(np.array(rows), n_labels)
