"""Output trees by name, for both model families.

:func:`build_tree` builds any of them; the models choose:

* ``flat``: one node over all labels (the flat softmax);
* ``huffman``: the M-ary Huffman tree over label counts (``-loss hs``'s
  tree at arity 2, the classifier's learned tree's start without a depth
  limit, ``treexc lm -tree huffman``);
* ``spread``: labels dealt out evenly under a depth limit, as AssignLabels
  places labels without statistics (the classifier's learned tree's start
  under ``-maxDepth``);
* ``random``: labels shuffled into a complete tree, every leaf at the
  depth (the language model's ``random`` tree and its learned tree's
  start);
* ``cluster``: label vectors clustered bottom-up (``trees.cluster``).

Learned trees start from one of these and are rebuilt by
``trees.learner.TreeLearner``.
"""


import numpy as np

from . import assign_kernels as kern
from .capacity import LM_FLAGS, check_capacity
from .cluster import cluster_tree
from .huffman_kernels import huffman_merges, huffman_padding
from .tree import Tree, renumber_breadth_first, tree_from_children

BUILDERS = ("flat", "huffman", "spread", "random", "cluster")


def build_tree(name, n_labels, arity, depth, rng=None, counts=None, vectors=None,
               flags=LM_FLAGS):
    """The ``name`` tree (one of :data:`BUILDERS`) over ``n_labels`` labels
    at ``arity``: ``depth`` is the depth limit of ``spread`` (0: none) and
    the leaves' depth of ``random`` and ``cluster``; ``huffman`` needs the
    label ``counts``, ``random`` and ``cluster`` a generator ``rng``,
    ``cluster`` the label ``vectors`` (rows = labels).  ``flags``: how the
    user spelled the shape, for a refusal (``capacity.ShapeFlags``)."""
    if name == "flat":
        return flat_tree(n_labels)
    if name == "huffman":
        return huffman_tree(counts, arity)
    if name == "spread":
        return spread_tree(n_labels, arity, depth, flags)
    if name == "random":
        return random_tree(n_labels, arity, depth, rng, flags)
    if name == "cluster":
        return cluster_tree(vectors, arity, depth, rng, flags=flags)
    raise ValueError(f"unknown tree builder {name!r} (choose from {', '.join(BUILDERS)})")


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
    n_pad = huffman_padding(n_labels, arity)
    # leaves in ascending count order, padding (count 0, id -1) first;
    # fastText walks its count-descending label list backwards
    order = np.argsort(-counts, kind="stable")[::-1]
    leaf_ids = np.concatenate([np.full(n_pad, -1), order]).astype(np.int64)
    leaf_counts = np.concatenate([np.zeros(n_pad), counts[order]])
    taken = huffman_merges(leaf_counts, arity)
    # leaves by label id (-1: an empty slot), merged nodes by provisional id
    # (n_labels + creation index)
    built = np.where(taken >= 0, leaf_ids[np.maximum(taken, 0)], n_labels - taken - 1)
    return renumber_breadth_first(built, n_labels, root=len(taken) - 1)


def spread_tree(n_labels, arity, max_depth, flags=LM_FLAGS):
    """The tree AssignLabels builds without statistics: labels dealt out
    evenly to the children, a node of at most ``arity`` labels made flat."""
    check_capacity(n_labels, arity, max_depth, flags)
    flat = Tree(np.full((1, arity), -1, dtype=np.int32), 0)
    children, _ = kern.rebuild_tree(
        flat.children, n_labels, np.zeros(n_labels + 1, dtype=np.int64),
        np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32),
        np.zeros((0, arity)), np.zeros(0), True, max_depth, False, np.zeros(0), 0.0)
    return Tree(children, n_labels)


def random_tree(n_labels, arity, depth, rng, flags=LM_FLAGS):
    """Labels shuffled into the leaves of a complete ``arity``-ary tree of
    ``depth`` levels (``arity ** depth >= n_labels``), spread evenly so every
    subtree at a level holds the same number of labels, give or take one."""
    check_capacity(n_labels, arity, depth, flags)
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
