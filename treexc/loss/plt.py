"""Probabilistic label trees (PLT) for multi-label lines (Numba).

A PLT (Jasinska et al. 2016; Wydmuch et al. 2018, extremeText) uses the
tree of ``trees/tree.py`` differently from the tree softmax: every node is a
binary event "some label of this example lies below this node".  The row of
slot ``j`` of internal node ``n`` (row ``n*M + j``, the same layout as the
tree softmax) is a logistic classifier for ``P(child j | node n, h) =
sigmoid(w_row . h)``; the root holds for every example (a training line has
at least one label), so a label's marginal probability is the product of
the sigmoids along its path.  The children's sigmoids are independent: they
do not sum to 1, and neither do the labels' probabilities.

The update of one example (:func:`plt_gradient`): the nodes on the paths of
all its labels are positive; every child slot of a positive node is one
binary logistic step, target 1 if the child is positive (on some label's
path, or one of the labels) else 0.  A one-child node (a chain link of a
depth-limited tree) has probability exactly 1 and is not trained, as in the
tree softmax.

Gradient conventions are ``tree_softmax.path_gradient``'s: the gradient of
the loss with respect to slot ``j``'s score is ``p_j - y_j``; it is scaled by
``coef`` and added to the hidden gradient (times the row, read before its
update) and to row ``j`` of ``grad_w`` (times the hidden vector).  SGD in
place: ``coef = -lr`` and ``grad_w`` the weight matrix itself.

Label weights (``label_weight``, one a label, or empty: none): a child
slot's binary term is scaled by a weight (its SGD step taken at ``coef``
times it): a positive child's is the largest weight of the example's
labels below it (a leaf: its label's own weight), a negative child's the
largest weight of the example's labels below its node.  On a single-label
line every term weighs the label's weight.  The largest, not the mean: a
node's classifier is shared by every label below it and its error costs
each of them, so it weighs as the weightiest of them; a mean would dilute
a rare label's weight by its frequent co-labels at every node they share
(the root on every line).  ``node_weight`` (internal nodes,) float64:
scratch.

Statistics for a learned PLT (``trees.learner``, AssignLabels): at path
position ``q`` of each label of the example (every label, not one drawn),
``stats_p[q, :]`` += the sigmoids of that node's children and
``stats_n[q]`` += 1 (docs/trees.md, "The learned PLT: the objective and the choices").
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from ..array_kernels import axpy
from .kernels import node_sigmoids, safe_log


@njit(cache=True, nogil=True, fastmath=True)
def plt_gradient(w_out, children, path_off, path_node, path_slot, labels, l0, l1, hidden,
                 coef, grad_hidden, grad_w, label_mark, node_index, node_list, node_probs,
                 loss, collect, stats_p, stats_n, label_weight, node_weight):
    """One PLT step for the example whose labels are ``labels[l0:l1]``
    (conventions: module docstring); returns ``loss`` plus the example's
    binary log-losses.

    Scratch space, left as found: ``label_mark`` (K,) bool and ``node_index``
    (internal nodes,) int64 all zero/False on entry; ``node_list``
    (internal nodes,) int64 and ``node_probs`` (internal nodes, M) float64."""
    n_labels = len(label_mark)
    arity = children.shape[1]
    weighted = len(label_weight) > 0
    # the positive nodes: every node on the paths of the example's labels
    n_pos = 0
    for k in range(l0, l1):
        label = labels[k]
        if label_mark[label]:
            continue  # a label repeated on the line
        label_mark[label] = True
        for q in range(path_off[label], path_off[label + 1]):
            n = path_node[q]
            if node_index[n] == 0:
                node_list[n_pos] = n
                n_pos += 1
                node_index[n] = n_pos  # position + 1: 0 means "not positive"
                if weighted:
                    node_weight[n_pos - 1] = 0.0
            if weighted:
                a = node_index[n] - 1
                node_weight[a] = max(node_weight[a], label_weight[label])
    # every child slot of a positive node: one logistic step
    for a in range(n_pos):
        n = node_list[a]
        base = n * arity
        probs = node_probs[a]
        present = node_sigmoids(w_out, children, n, hidden, probs)
        if present == 1:
            continue  # probability exactly 1: nothing to learn
        for j in range(arity):
            c = children[n, j]
            if c < 0:
                continue
            positive = label_mark[c] if c < n_labels else node_index[c - n_labels] > 0
            p = probs[j]
            loss -= safe_log(p if positive else 1.0 - p)
            scale = coef
            if weighted:
                if not positive:
                    scale = coef * node_weight[a]
                elif c < n_labels:
                    scale = coef * label_weight[c]
                else:
                    scale = coef * node_weight[node_index[c - n_labels] - 1]
            alpha = np.float32(scale * (p - (1.0 if positive else 0.0)))
            axpy(alpha, w_out[base + j], grad_hidden)
            axpy(alpha, hidden, grad_w[base + j])
    if collect:
        for k in range(l0, l1):
            label = labels[k]
            if not label_mark[label]:
                continue  # counted once, at its first occurrence
            label_mark[label] = False
            for q in range(path_off[label], path_off[label + 1]):
                probs = node_probs[node_index[path_node[q]] - 1]
                for j in range(stats_p.shape[1]):
                    stats_p[q, j] += probs[j]
                stats_n[q] += 1.0
    # leave the scratch space as found
    for k in range(l0, l1):
        label_mark[labels[k]] = False
    for a in range(n_pos):
        node_index[node_list[a]] = 0
    return loss


@njit(cache=True, nogil=True, fastmath=True)
def plt_path_statistics(w_out, children, path_off, path_node, target, hidden, probs,
                        stats_p, stats_n):
    """A learned PLT's statistics of ``target``'s path without training
    (``dump-tree -input``): the children's sigmoids at each node."""
    for q in range(path_off[target], path_off[target + 1]):
        node_sigmoids(w_out, children, path_node[q], hidden, probs)
        for j in range(stats_p.shape[1]):
            stats_p[q, j] += probs[j]
        stats_n[q] += 1.0
