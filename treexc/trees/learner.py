"""Learning the tree: statistics, AssignLabels, and the rebuild, for both
model families.

:class:`TreeLearner` owns the per-thread statistics the training kernels
fill (``stats_p[t, q, :]`` and ``stats_n[t, q]`` for path position ``q``,
see ``loss.tree_softmax``) and rebuilds the tree from their sum when all
workers are stopped, remapping every node-owned matrix (weights, an
optimiser's accumulators) to the new nodes.

Policy for statistics (documented in docs/trees.md):

* They accumulate from the start of training, as in the paper.
* After a rebuild, a label keeps its statistics at every node it still
  reaches through the same nodes; from the first node where its path
  changed on, they restart from zero (they described other nodes;
  resetting everything at each rebuild left most of the language model's
  words without statistics and made its tree churn: docs/lm.md).
* A multi-label line contributes to the statistics of the one label drawn
  for its gradient step (the same label fastText trains on).  A probabilistic
  label tree (``loss.plt``) trains every label of a line, and every label
  adds its statistics (its nodes' children's sigmoids).

A new internal node that sits where an old internal node was inherits its
output weights; a node that did not exist before starts from zero weights,
as fastText initialises the output layer.
"""

import time

import numpy as np

from . import assign_kernels as kern
from .capacity import LM_FLAGS, check_capacity
from .tree import Tree


def assign_labels(tree, stats_p, stats_n, gradient="ll", max_depth=0, exact_depth=True,
                  label_mass=None, mass_slack=0.0):
    """New tree from summed statistics (shapes ``(P, M)`` and ``(P,)``, ``P``
    = total path length of ``tree``) and the old-node id of each new node.

    ``max_depth = D`` limits the depth (each child of a depth-``d`` node
    holds at most ``M ** (D - d - 1)`` labels; ``capacity.check_capacity``
    has refused a ``D`` too small); with ``exact_depth`` every leaf is at
    depth ``D`` (the language model's trees).  ``mass_slack > 0`` also caps
    the mass (``label_mass``) of each child at ``mass_slack / arity`` of its
    parent's."""
    if label_mass is None:
        label_mass, mass_slack = np.zeros(0), 0.0
    children, old_id = kern.rebuild_tree(
        tree.children, tree.n_labels, tree.path_off, tree.path_node, tree.path_slot,
        np.ascontiguousarray(stats_p), np.ascontiguousarray(stats_n), gradient == "ll",
        max_depth, exact_depth and max_depth > 0,
        np.ascontiguousarray(label_mass, dtype=np.float64), float(mass_slack))
    return Tree(children, tree.n_labels), old_id


class TreeLearner:
    """Statistics and rebuilds of one learned tree.

    ``gradient``, ``max_depth``, ``exact_depth``, ``label_mass`` and
    ``mass_slack``: :func:`assign_labels`'.  The statistics are float32
    (half the memory of float64: one entry per thread, label, node
    on its path and child, 1.1 GB in float64 for the language model of all
    of gutenberg_lm; sums of probabilities lose nothing that matters for a
    ranking of (label, child) scores: docs/lm.md, "Statistics in float32").
    """

    def __init__(self, tree, n_threads, gradient="ll", max_depth=0, exact_depth=False,
                 label_mass=None, mass_slack=0.0, flags=LM_FLAGS):
        check_capacity(tree.n_labels, tree.arity, max_depth, flags)
        self.tree = tree
        self.n_threads = n_threads
        self.gradient = gradient
        self.max_depth = max_depth
        self.exact_depth = exact_depth
        self.label_mass = label_mass
        self.mass_slack = mass_slack
        self.rebuilds = 0
        self.last_moved = 0  # labels whose path changed at the last rebuild
        self.stats_p = self.stats_n = None
        self._carried_p = self._carried_n = None
        self._reset()

    def _reset(self):
        """Zero statistics for the current tree, in the buffers of the last
        rebuild when the shape is the same: at arity 256 over 34K words they
        are 139 MB a thread, and fresh ones cost more in page faults than
        AssignLabels itself."""
        shape = (self.n_threads, len(self.tree.path_node), self.tree.arity)
        if self.stats_p is None or self.stats_p.shape != shape:
            self.stats_p = np.zeros(shape, dtype=np.float32)
            self.stats_n = np.zeros(shape[:2], dtype=np.float32)
        else:
            self.stats_p[:] = 0.0
            self.stats_n[:] = 0.0

    def rebuild(self, *node_matrices, leaf_rows=False):
        """AssignLabels on the statistics summed over threads, with every
        worker stopped.  Returns ``node_matrices`` (node ``n`` owns rows
        ``n*arity..``) remapped to the new nodes (:func:`remap_rows`); with
        ``leaf_rows`` a leaf slot's row also follows its label
        (:func:`move_leaf_rows`)."""
        old = self.tree
        sum_p, sum_n = self.stats_p[0], self.stats_n[0]  # summed in place
        for t in range(1, self.n_threads):
            sum_p += self.stats_p[t]
            sum_n += self.stats_n[t]
        new, old_id = assign_labels(old, sum_p, sum_n, self.gradient, self.max_depth,
                                    self.exact_depth, self.label_mass, self.mass_slack)
        remapped = []
        for matrix in node_matrices:
            moved = remap_rows(matrix, old_id, old.arity, old.n_internal)
            if leaf_rows:
                move_leaf_rows(moved, matrix, old, new)
            remapped.append(moved)
        shape = (len(new.path_node), new.arity)
        if self._carried_p is None or self._carried_p.shape != shape:
            self._carried_p = np.zeros(shape, dtype=np.float32)
            self._carried_n = np.zeros(shape[0], dtype=np.float32)
        else:
            self._carried_p[:] = 0.0
            self._carried_n[:] = 0.0
        self.last_moved = kern.carry_statistics(
            old.path_off, old.path_node, old.path_slot, new.path_off, new.path_node,
            new.path_slot, old_id, sum_p, sum_n, self._carried_p, self._carried_n)
        self.tree = new
        self._reset()
        self.stats_p[0] = self._carried_p  # the carried sums live in thread 0's slot
        self.stats_n[0] = self._carried_n
        self.rebuilds += 1
        return remapped


def remap_rows(old, old_id, arity, old_internal):
    """Rows of a node-indexed matrix (node ``n`` owns rows ``n*arity..``) of
    a tree of ``old_internal`` internal nodes, for a rebuilt tree: new node
    ``i`` takes old node ``old_id[i]``'s rows, or zeros for a node that did
    not exist.  The root's extra rows (after the nodes' rows:
    ``loss.kernels.root_row``) stay the root's: it is node 0 in both."""
    main = old_internal * arity
    new = np.zeros((len(old_id) * arity + len(old) - main,) + old.shape[1:],
                   dtype=old.dtype)
    kept = np.flatnonzero(old_id >= 0)
    if len(kept):
        src = (old_id[kept][:, None] * arity + np.arange(arity)).ravel()
        dst = (kept[:, None] * arity + np.arange(arity)).ravel()
        new[dst] = old[src]
    new[len(old_id) * arity:] = old[main:]
    return new


def move_leaf_rows(new_mat, old_mat, old_tree, new_tree):
    """Make each word's leaf row follow the word: the row of the slot that
    holds word ``w`` in ``new_tree`` takes the row of ``w``'s slot in
    ``old_tree`` (a leaf slot's row is that word's output vector; the rows
    of slots that lead to subtrees stay with their node).  A word at the
    root in both trees takes its extra root rows along too."""
    M = old_tree.arity
    last_old = old_tree.path_off[1:] - 1
    last_new = new_tree.path_off[1:] - 1
    old_node = old_tree.path_node[last_old].astype(np.int64)
    new_node = new_tree.path_node[last_new].astype(np.int64)
    src = old_node * M + old_tree.path_slot[last_old]
    dst = new_node * M + new_tree.path_slot[last_new]
    new_mat[dst] = old_mat[src]
    extra = (len(old_mat) - old_tree.n_internal * M) // M
    at_root = (old_node == 0) & (new_node == 0)
    for k in range(1, extra + 1):
        new_mat[(new_tree.n_internal - 1 + k) * M + dst[at_root]] = \
            old_mat[(old_tree.n_internal - 1 + k) * M + src[at_root]]


def train_in_phases(learner, model, total_tokens, updates, run_phase, control, start=0):
    """The paper's schedule for a model whose output tree is learned
    (``learner``; None: one phase): ``updates`` phases over the first half
    of the ``total_tokens``, each followed by a rebuild (``model.tree`` and
    ``model.w_out`` replaced), then the rest; ``run_phase(stop_at,
    collect)`` trains until ``stop_at`` tokens are done, ``control[0]``
    set means stop; ``start``: rebuilds done already (a resumed run).
    Returns the rebuilds done and their seconds."""
    rebuilds, seconds = 0, 0.0
    if learner is not None:
        for r in range(start + 1, updates + 1):
            run_phase(int(total_tokens * 0.5 * r / updates), True)
            if control[0]:
                break
            start = time.monotonic()
            model.w_out, = learner.rebuild(model.w_out)
            model.tree = learner.tree
            rebuilds += 1
            seconds += time.monotonic() - start
    if not control[0]:
        run_phase(total_tokens, False)
    return rebuilds, seconds
