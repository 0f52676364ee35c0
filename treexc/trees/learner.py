"""Learning the tree: statistics, AssignLabels, and publishing new paths.

:class:`TreeLearner` owns the per-thread statistics the training kernel
fills (``stats_p[t, p, :]`` and ``stats_n[t, p]`` for path position ``p``,
see ``treelearn_kernels``), and rebuilds the tree from their sum when all
workers are stopped.

Policy for statistics (documented in docs/trees.md):

* They accumulate from the start of training, as in the paper.
* After a rebuild, a label keeps its statistics at every node it still
  reaches through the same nodes; from the first node where its path
  changed on, they restart from zero (they described other nodes).
* A multi-label line contributes to the statistics of the one label drawn
  for its gradient step (the same label fastText trains on).

A new internal node that sits where an old internal node was inherits its
output weights; a node that did not exist before starts from zero weights,
as fastText initialises the output layer.
"""

import numpy as np

from ..errors import TreexcError
from . import assign_kernels as kern
from .tree import Tree


def assign_labels(tree, stats_p, stats_n, gradient="ll", max_depth=0, exact_depth=True,
                  label_mass=None, mass_slack=0.0):
    """New tree from summed statistics (shapes ``(P, M)`` and ``(P,)``, ``P``
    = total path length of ``tree``) and the old-node id of each new node.

    ``max_depth = D`` limits the depth (each child of a depth-``d`` node
    holds at most ``M ** (D - d - 1)`` labels); with ``exact_depth`` every
    leaf is at depth ``D`` (the language model's trees).  ``mass_slack > 0``
    also caps the mass (``label_mass``) of each child at ``mass_slack /
    arity`` of its parent's."""
    if label_mass is None:
        label_mass, mass_slack = np.zeros(0), 0.0
    check_capacity(tree.n_labels, tree.arity, max_depth)
    children, old_id = kern.rebuild_tree(
        tree.children, tree.n_labels, tree.path_off, tree.path_node, tree.path_slot,
        np.ascontiguousarray(stats_p), np.ascontiguousarray(stats_n), gradient == "ll",
        max_depth, exact_depth and max_depth > 0,
        np.ascontiguousarray(label_mass, dtype=np.float64), float(mass_slack))
    return Tree(children, tree.n_labels), old_id


def spread_tree(n_labels, arity, max_depth):
    """The tree AssignLabels builds without statistics: labels dealt out
    evenly to the children, a node of at most ``arity`` labels made flat."""
    check_capacity(n_labels, arity, max_depth)
    flat = Tree(np.full((1, arity), -1, dtype=np.int32), 0)
    children, _ = kern.rebuild_tree(
        flat.children, n_labels, np.zeros(n_labels + 1, dtype=np.int64),
        np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32),
        np.zeros((0, arity)), np.zeros(0), True, max_depth, False, np.zeros(0), 0.0)
    return Tree(children, n_labels)


def check_capacity(n_labels, arity, max_depth):
    if max_depth > 0 and arity ** max_depth < n_labels:
        raise TreexcError(f"-maxDepth {max_depth} with -arity {arity} holds "
                          f"{arity ** max_depth} leaves, fewer than the {n_labels} labels")


class TreeLearner:
    def __init__(self, tree, n_threads, gradient="ll", max_depth=0, exact_depth=False):
        self.tree = tree
        self.n_threads = n_threads
        self.gradient = gradient
        self.max_depth = max_depth
        self.exact_depth = exact_depth
        self.rebuilds = 0
        self.last_moved = 0
        self._allocate()

    def _allocate(self):
        # float32 halves the memory; sums of probabilities lose nothing that
        # matters for a ranking of (label, child) scores
        n_pos = len(self.tree.path_node)
        self.stats_p = np.zeros((self.n_threads, n_pos, self.tree.arity), dtype=np.float32)
        self.stats_n = np.zeros((self.n_threads, n_pos), dtype=np.float32)

    def rebuild(self, w_out):
        """AssignLabels; returns the new output matrix (rows follow nodes)."""
        old = self.tree
        sum_p, sum_n = self.stats_p[0], self.stats_n[0]
        for t in range(1, self.n_threads):
            sum_p += self.stats_p[t]
            sum_n += self.stats_n[t]
        new, old_id = assign_labels(old, sum_p, sum_n, self.gradient, self.max_depth,
                                    self.exact_depth)
        arity, dim = old.arity, w_out.shape[1]
        new_w = np.zeros((new.n_internal * arity, dim), dtype=w_out.dtype)
        kept = np.flatnonzero(old_id >= 0)
        new_w.reshape(-1, arity, dim)[kept] = np.asarray(w_out).reshape(-1, arity, dim)[
            old_id[kept]]
        self.tree = new
        self._allocate()
        # the carried sums live in thread 0's slot
        self.last_moved = kern.carry_statistics(
            old.path_off, old.path_node, old.path_slot, new.path_off, new.path_node,
            new.path_slot, old_id, sum_p, sum_n, self.stats_p[0], self.stats_n[0])
        self.rebuilds += 1
        return new_w
