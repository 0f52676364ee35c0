"""Exact top-k search of a tree or of independent sigmoids (Numba).

Trees (flat softmax included) are searched depth-first with branch and
bound: a node's log-probability is the sum of the log-probabilities of the
slots on its path, which only decreases going down, so a subtree whose score
is below the k-th best leaf found so far (or below ``log(threshold)``) is
skipped.  Children are visited in descending probability so good leaves are
found early.  Empty slots are never scored or returned.  The result is the
same as scoring every label and sorting.  Probabilistic label trees
(``loss.plt``) are searched the same way, their node scores being sums of
log-sigmoids (marginal label probabilities, which do not sum to 1).

One-vs-all and negative-sampling models score each label independently with
a sigmoid, as fastText does.

A tree softmax can also be read a second way (:func:`mean_top_k`, a model
whose ``scoring`` is ``"mean"``): the sum of the slot scores on a label's
path is a flat softmax's logit over the same weights.  Its answer is the
geometric mean of the two distributions, renormalised: ``p(y)`` proportional
to ``sqrt(p_tree(y) * exp(flat(y)))``.  That needs every node scored (a
flat softmax's cost); docs/trees.md, "Two readings of one tree", says where
and why.
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from ..array_kernels import dot
from .kernels import node_probabilities, node_sigmoids, sigmoid


@njit(cache=True, nogil=True, inline="always")
def heap_push(heap_score, heap_label, size, k, score, label):
    """Keep the ``k`` best (score, label) pairs in a min-heap; returns size."""
    if size < k:
        i = size
        size += 1
    elif score > heap_score[0]:
        # replace the root, sift down
        i = 0
        while True:
            c = 2 * i + 1
            if c >= size:
                break
            if c + 1 < size and heap_score[c + 1] < heap_score[c]:
                c += 1
            if heap_score[c] >= score:
                break
            heap_score[i] = heap_score[c]
            heap_label[i] = heap_label[c]
            i = c
        heap_score[i] = score
        heap_label[i] = label
        return size
    else:
        return size
    # sift up
    while i > 0:
        parent = (i - 1) // 2
        if heap_score[parent] <= score:
            break
        heap_score[i] = heap_score[parent]
        heap_label[i] = heap_label[parent]
        i = parent
    heap_score[i] = score
    heap_label[i] = label
    return size



@njit(cache=True, nogil=True, fastmath=True)
def tree_top_k(w_out, children, n_labels, hidden, k, log_threshold, heap_score,
               heap_label, stack_node, stack_score, probs, child_order):
    """Exact top-k leaves of the tree for ``hidden``; returns the heap size."""
    return search_top_k(w_out, children, n_labels, hidden, k, log_threshold, heap_score,
                        heap_label, stack_node, stack_score, probs, child_order, False)


@njit(cache=True, nogil=True, fastmath=True)
def plt_top_k(w_out, children, n_labels, hidden, k, log_threshold, heap_score,
              heap_label, stack_node, stack_score, probs, child_order):
    """Exact top-k labels of a probabilistic label tree (``loss.plt``) by
    marginal probability; returns the heap size.  The same search: a node's
    score is the sum of the log-sigmoids on its path, which only decreases
    going down (each factor is at most 1)."""
    return search_top_k(w_out, children, n_labels, hidden, k, log_threshold, heap_score,
                        heap_label, stack_node, stack_score, probs, child_order, True)


@njit(cache=True, nogil=True, fastmath=True, inline="always")
def search_top_k(w_out, children, n_labels, hidden, k, log_threshold, heap_score,
                 heap_label, stack_node, stack_score, probs, child_order, independent):
    """The branch and bound of the module docstring.  ``independent``: a
    node's children are independent sigmoids (a PLT), else its child
    distribution (the tree softmax)."""
    arity = children.shape[1]
    size = 0
    top = 1
    stack_node[0] = 0
    stack_score[0] = 0.0
    while top > 0:
        top -= 1
        n = stack_node[top]
        score = stack_score[top]
        if score < log_threshold or (size == k and score <= heap_score[0]):
            continue
        if independent:
            node_sigmoids(w_out, children, n, hidden, probs)
        else:
            node_probabilities(w_out, children, n, hidden, probs)
        n_inner = 0
        for j in range(arity):
            c = children[n, j]
            if c < 0:
                continue
            s = score + np.log(max(probs[j], 1e-300))
            if s < log_threshold or (size == k and s <= heap_score[0]):
                continue
            if c < n_labels:
                size = heap_push(heap_score, heap_label, size, k, s, c)
            else:
                child_order[n_inner] = j
                probs[j] = s  # reuse: the child's path score
                n_inner += 1
        # insertion sort of internal children by ascending score, then push:
        # the best child ends on top of the stack and is explored first
        for a in range(1, n_inner):
            j = child_order[a]
            b = a - 1
            while b >= 0 and probs[child_order[b]] > probs[j]:
                child_order[b + 1] = child_order[b]
                b -= 1
            child_order[b + 1] = j
        for a in range(n_inner):
            j = child_order[a]
            stack_node[top] = children[n, j] - n_labels
            stack_score[top] = probs[j]
            top += 1
    return size



@njit(cache=True, nogil=True, fastmath=True)
def mean_top_k(w_out, children, n_labels, hidden, k, log_threshold, heap_score, heap_label,
               node_tree, node_flat, label_score, logits):
    """Exact top-k labels by the mean of the tree's two readings (module
    docstring), as normalised log-probabilities; returns the heap size.
    Scratch: ``node_tree``/``node_flat`` one entry per internal node,
    ``label_score`` one per label, ``logits`` one per slot."""
    arity = children.shape[1]
    node_tree[0] = 0.0
    node_flat[0] = 0.0
    # nodes are breadth-first: a node's path scores are known before its own
    for n in range(children.shape[0]):
        base = n * arity
        present, top, only = 0, -1e300, -1
        for j in range(arity):
            if children[n, j] >= 0:
                present += 1
                only = j
        full_binary = arity == 2 and present == 2
        for j in range(arity):
            if children[n, j] < 0:
                continue
            if present == 1:  # a one-child chain link: probability 1, no score
                logits[j] = 0.0
            elif full_binary:  # fastText's sigmoid on row 0: the logits (0, score)
                logits[j] = 0.0 if j == 0 else float(dot(w_out[base], hidden))
            else:
                logits[j] = float(dot(w_out[base + j], hidden))
            top = max(top, logits[j])
        total = 0.0
        for j in range(arity):
            if children[n, j] >= 0:
                total += np.exp(logits[j] - top)
        log_norm = top + np.log(total) if present > 1 else logits[only]
        for j in range(arity):
            c = children[n, j]
            if c < 0:
                continue
            tree = node_tree[n] + logits[j] - log_norm
            flat = node_flat[n] + logits[j]
            if c < n_labels:
                label_score[c] = 0.5 * (tree + flat)
            else:
                node_tree[c - n_labels] = tree
                node_flat[c - n_labels] = flat
    top = -1e300
    for label in range(n_labels):
        top = max(top, label_score[label])
    total = 0.0
    for label in range(n_labels):
        total += np.exp(label_score[label] - top)
    log_norm = top + np.log(total)
    size = 0
    for label in range(n_labels):
        s = label_score[label] - log_norm
        if s >= log_threshold:
            size = heap_push(heap_score, heap_label, size, k, s, label)
    return size


@njit(cache=True, nogil=True, fastmath=True)
def sigmoid_top_k(w_out, hidden, k, log_threshold, heap_score, heap_label):
    size = 0
    for label in range(w_out.shape[0]):
        s = np.log(max(sigmoid(dot(w_out[label], hidden)), 1e-300))
        if s >= log_threshold:
            size = heap_push(heap_score, heap_label, size, k, s, label)
    return size



@njit(cache=True, nogil=True)
def sort_heap(heap_score, heap_label, size, out_score, out_label):
    order = np.argsort(-heap_score[:size], kind="mergesort")
    for r in range(size):
        out_score[r] = heap_score[order[r]]
        out_label[r] = heap_label[order[r]]

