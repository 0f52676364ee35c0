"""The paper's learned tree for the linear family: the k-means tree
refined by AssignLabels (``trees/learner.assign_labels``, the algorithm the
embedding model's tree is learned by) on statistics from the trained node
classifiers (``statistics_kernels``), the nodes whose slots changed
retrained, ``-treeUpdates`` times.

The depth stays the k-means tree's, every label at it (``exact_depth``),
and a node keeps the k-means tree's arity bound (the widest node's slots):
AssignLabels moves labels between slots where a label's lines score
another child better than its average, which a fixed k-means tree cannot.
"""

import time

import numpy as np

from ..trees.learner import assign_labels
from . import statistics_kernels as stk
from .model import ScoredTree
from .node_training import node_part, train_nodes
from .options import SCORERS


def refine_tree(scored, rows, args, reporter):
    """``scored`` (a ``ScoredTree``) after ``args.treeUpdates`` rebuilds."""
    for update in range(args.treeUpdates):
        t0 = time.monotonic()
        tree, w = scored.tree, scored.weights
        stats_p = np.zeros((len(tree.path_node), tree.arity), dtype=np.float64)
        stats_n = np.zeros(len(tree.path_node), dtype=np.float64)
        stk.path_statistics(rows.indptr, rows.indices, rows.data, rows.label_off, rows.labels,
                            tree.children, tree.path_off, tree.path_node, w.node_off, w.cols,
                            *w.blocks, w.entry_off, w.slots, w.vals, SCORERS.index(args.scorer),
                            stats_p, stats_n)
        new, old_id = assign_labels(tree, stats_p, stats_n, "ll", max_depth=tree.max_depth(),
                                    exact_depth=True)
        same = unchanged_nodes(tree, new, old_id)
        kept = {m: node_part(w, old_id[m]) for m in np.flatnonzero(same).tolist()}
        retrain = np.flatnonzero(~same)
        weights = train_nodes(new, rows, args, nodes=retrain, kept=kept)
        moved = int(_moved_labels(tree, new))
        reporter.info(f"tree update {update + 1}/{args.treeUpdates}: {moved} labels moved, "
                      f"{len(retrain)} of {new.n_internal} nodes retrained "
                      f"({time.monotonic() - t0:.1f} s)")
        scored = ScoredTree(new, weights)
    return scored


def _moved_labels(old, new):
    """Labels whose leaf slot changed (same depth)."""
    last_old, last_new = old.path_off[1:] - 1, new.path_off[1:] - 1
    return ((old.path_slot[last_old] != new.path_slot[last_new])
            | (old.path_node[last_old] != new.path_node[last_new])).sum()


def unchanged_nodes(old, new, old_id):
    """Whether each node of ``new`` trains the same classifiers as its old
    node ``old_id[m]``: the same labels below, each under the same slot."""
    same = old_id >= 0
    below_old = np.bincount(old.path_node, minlength=old.n_internal)
    below_new = np.bincount(new.path_node, minlength=new.n_internal)
    same &= below_new == np.where(old_id >= 0, below_old[np.maximum(old_id, 0)], -1)
    # each label's (node, slot) at each depth, new against old
    depth_new = np.diff(new.path_off)
    depth_old = np.diff(old.path_off)
    lab = np.repeat(np.arange(new.n_labels), depth_new)
    pos = np.arange(len(new.path_node)) - np.repeat(new.path_off[:-1], depth_new)
    in_old = pos < depth_old[lab]
    old_q = np.where(in_old, old.path_off[lab] + pos, 0)
    node_new = new.path_node.astype(np.int64)
    agrees = in_old & (old.path_node[old_q] == old_id[node_new]) \
        & (old.path_slot[old_q] == new.path_slot)
    bad = np.zeros(new.n_internal, dtype=bool)
    bad[node_new[~agrees]] = True
    return same & ~bad
