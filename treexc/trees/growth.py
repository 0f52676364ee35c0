"""A tree grown by new labels, its old nodes kept: continued training
(``classify/continued.py``) adds the labels of new data to a trained tree.

New labels get the ids after the old ones.  Each function returns the
grown :class:`Tree` and ``old_id``, for each of its internal nodes the old
node it is (-1: a new node), so that ``learner.remap_rows`` moves every
node-owned matrix (a new node's rows start at zero, as fastText starts the
output layer).

* :func:`flat_grown`: a flat softmax gains slots.
* :func:`assigned`: a learned tree's new labels placed by AssignLabels
  (``assign_kernels.rebuild_tree``) as it places labels without
  statistics: top-down, each in the child with the fewest labels that has
  room (by label count and depth limit, and the mass cap if one is
  given), the old labels in their old slots where these still have room.
  The run that follows learns the tree again from its statistics, the new
  labels' included.
* :func:`grafted`: a fixed tree (Huffman, random, cluster) keeps every old
  leaf but its rarest label's, which becomes the root of a Huffman tree
  over that label and the new ones (counts of the data): new labels go
  where the rarest labels are, deep, as a Huffman tree over all the counts
  would put rare labels, without moving any trained node.
"""

import numpy as np

from . import assign_kernels as kern
from .builders import flat_tree, huffman_tree
from .capacity import check_capacity
from .tree import Tree, renumbered


def flat_grown(tree, n_labels):
    """A flat softmax over ``n_labels`` (old labels first)."""
    return flat_tree(n_labels), np.zeros(1, dtype=np.int64)


def _shifted(children, n_old, n_new):
    """Children with internal node ids moved past ``n_new`` more labels."""
    out = np.array(children, dtype=np.int64)
    out[out >= n_old] += n_new
    return out


def assigned(tree, label_counts, max_depth, mass_slack, flags):
    """``tree`` grown to ``len(label_counts)`` labels by AssignLabels
    without statistics (``max_depth``: 0 none; ``mass_slack``: the mass
    cap, 0 none, over ``label_counts``); ``flags`` name the shape's flags
    in a refusal of a depth that cannot hold them (``capacity``)."""
    n_old, n_labels = tree.n_labels, len(label_counts)
    arity = tree.arity
    check_capacity(n_labels, arity, max_depth, flags)
    children = _shifted(tree.children, n_old, n_labels - n_old).astype(np.int32)
    # a new label has no path: no old slot, no statistics anywhere
    path_off = np.concatenate([tree.path_off,
                               np.full(n_labels - n_old, tree.path_off[-1], np.int64)])
    n_pos = len(tree.path_node)
    new_children, old_id = kern.rebuild_tree(
        children, n_labels, path_off, tree.path_node, tree.path_slot,
        np.zeros((n_pos, arity), np.float32), np.zeros(n_pos, np.float32), True, max_depth,
        False, np.ascontiguousarray(label_counts, dtype=np.float64), float(mass_slack))
    return Tree(new_children, n_labels), old_id


def grafted(tree, label_counts):
    """``tree`` grown to ``len(label_counts)`` labels: the leaf of its
    rarest label (the deepest among equals) replaced by the Huffman tree
    of that label and the new labels, at the tree's arity."""
    n_old, n_labels = tree.n_labels, len(label_counts)
    n_new = n_labels - n_old
    counts = np.asarray(label_counts, dtype=np.float64)
    rare = int(np.lexsort((-tree.depths(), counts[:n_old]))[0])
    sub = huffman_tree(np.concatenate([[counts[rare]], counts[n_old:]]), tree.arity)
    n_sub = n_new + 1  # the subtree's labels: 0 the rare one, j the new label j - 1
    s = sub.children.astype(np.int64)
    base = n_labels + tree.n_internal  # the subtree's root, after the old nodes
    s = np.where(s < 0, -1, np.where(s >= n_sub, base + s - n_sub,
                                     np.where(s == 0, rare, n_old + s - 1)))
    old = _shifted(tree.children, n_old, n_new)
    old[old == rare] = base
    grown, order = renumbered(np.vstack([old, s]), n_labels, root=0)
    return grown, np.where(order < tree.n_internal, order, -1)


def moved_labels(old, new):
    """How many of ``old``'s labels have another path in ``new``."""
    moved = 0
    for label in range(old.n_labels):
        a, b = old.path_off[label], old.path_off[label + 1]
        c, d = new.path_off[label], new.path_off[label + 1]
        if b - a != d - c or (old.path_slot[a:b] != new.path_slot[c:d]).any():
            moved += 1
    return moved
