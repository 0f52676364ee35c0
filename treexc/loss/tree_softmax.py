"""Tree-softmax kernels shared by both model families (Numba).

A label's probability is the product, over the internal nodes on its path
(``tree.compute_paths``), of the node's child distribution at the slot the
path takes (``kernels.node_probabilities``: a softmax over the node's rows,
a sigmoid at a full binary node, exactly 1 at a one-child node).  Each kernel
here walks one label's path for one hidden vector; the models loop over
their examples (the classifier one line at a time, the language model a
batch of positions at a time).

Gradient conventions: at a node with child distribution ``p`` and the path's
slot ``s``, the gradient of ``-log p_s`` with respect to the score of slot
``j`` is ``p_j - [j == s]``.  :func:`path_gradient` scales it by ``coef`` and
adds ``coef * (p_j - [j == s]) * row_j`` to the hidden vector's gradient and
``coef * (p_j - [j == s]) * hidden`` to row ``j`` of ``grad_w``:

* SGD in place (the classifier, fastText's ``hs``/softmax step):
  ``coef = -lr`` and ``grad_w`` is the weight matrix itself; the hidden
  gradient reads each row before its update, as fastText does;
* accumulation for a later optimiser step (the language model's Adagrad):
  ``coef = 1 / batch`` and ``grad_w`` a gradient buffer.

(``-lr * (p - y)`` equals ``lr * (y - p)`` bit for bit: negation is exact.)

A root with ``K > 1`` rows per slot (``kernels``' docstring) splits slot
``j``'s term among its rows by their shares of the slot's probability, so
``probs`` must have ``kernels.scratch_size`` entries.

Statistics for AssignLabels (``trees.learner``): at path position ``q``
(an index into ``path_node``), ``stats_p[q, :] += p`` and
``stats_n[q] += 1``; float32 or float64 arrays (the caller's choice).
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from ..array_kernels import axpy
from .kernels import (
    node_probabilities,
    node_sigmoids,
    root_row,
    root_rows,
    safe_log,
)


@njit(cache=True, nogil=True, inline="always")
def add_statistics(stats_p, stats_n, q, probs):
    """The node distribution ``probs`` at path position ``q``."""
    for j in range(stats_p.shape[1]):
        stats_p[q, j] += probs[j]
    stats_n[q] += 1.0


@njit(cache=True, nogil=True, fastmath=True)
def path_gradient(w_out, children, path_off, path_node, path_slot, target, hidden,
                  coef, grad_hidden, grad_w, probs, loss, collect, stats_p, stats_n):
    """One gradient step along ``target``'s path (conventions: module
    docstring); returns ``loss`` plus the path's negative log-likelihood.

    A one-child node is skipped: its probability is exactly 1, so its update
    would be exactly zero.  With ``collect`` every node on the path (one-child
    ones included) adds its distribution to ``stats_p``/``stats_n``."""
    return path_part_gradient(w_out, children, path_node, path_slot, path_off[target],
                              path_off[target + 1], hidden, coef, grad_hidden, grad_w,
                              probs, loss, collect, stats_p, stats_n)


@njit(cache=True, nogil=True, fastmath=True)
def path_part_gradient(w_out, children, path_node, path_slot, q_first, q_end, hidden,
                       coef, grad_hidden, grad_w, probs, loss, collect, stats_p, stats_n):
    """:func:`path_gradient` over path positions ``q_first .. q_end - 1``
    (the language model scores the root of a whole batch at once and
    starts below it)."""
    arity = children.shape[1]
    n_root_rows = root_rows(w_out, children)
    for q in range(q_first, q_end):
        n = path_node[q]
        slot = path_slot[q]
        base = n * arity
        present = node_probabilities(w_out, children, n, hidden, probs)
        loss -= safe_log(probs[slot])
        if present == 1:
            pass  # nothing to learn at a one-child node
        elif n == 0 and n_root_rows > 1:
            for j in range(arity):
                if children[0, j] >= 0:
                    alpha = coef * (probs[j] - (1.0 if j == slot else 0.0))
                    for k in range(n_root_rows):
                        share = np.float32(alpha * probs[(k + 1) * arity + j])
                        r = root_row(children, k, j)
                        axpy(share, w_out[r], grad_hidden)
                        axpy(share, hidden, grad_w[r])
        elif arity == 2 and children[n, 0] >= 0 and children[n, 1] >= 0:
            # a sigmoid on row 0 (fastText's hs): slot 1 is the positive class
            alpha = np.float32(coef * (probs[1] - (1.0 if slot == 1 else 0.0)))
            axpy(alpha, w_out[base], grad_hidden)
            axpy(alpha, hidden, grad_w[base])
        else:
            for j in range(arity):
                if children[n, j] >= 0:
                    alpha = np.float32(coef * (probs[j] - (1.0 if j == slot else 0.0)))
                    axpy(alpha, w_out[base + j], grad_hidden)
                    axpy(alpha, hidden, grad_w[base + j])
        if collect:
            add_statistics(stats_p, stats_n, q, probs)
    return loss


@njit(cache=True, nogil=True, fastmath=True)
def path_statistics(w_out, children, path_off, path_node, target, hidden, probs, stats_p,
                    stats_n):
    """AssignLabels' statistics of ``target``'s path without training (for
    ``dump-tree -input``: node measures on a data file)."""
    for q in range(path_off[target], path_off[target + 1]):
        node_probabilities(w_out, children, path_node[q], hidden, probs)
        add_statistics(stats_p, stats_n, q, probs)


@njit(cache=True, nogil=True, fastmath=True)
def path_log_prob(w_out, children, path_off, path_node, path_slot, target, hidden, probs):
    """``log p(target | hidden)``: the sum of the log-probabilities of the
    slots on the path (each floored at 1e-300)."""
    return path_part_log_prob(w_out, children, path_node, path_slot, path_off[target],
                              path_off[target + 1], hidden, probs)


@njit(cache=True, nogil=True, fastmath=True)
def path_part_log_prob(w_out, children, path_node, path_slot, q_first, q_end, hidden,
                       probs):
    """:func:`path_log_prob`'s sum over path positions ``q_first .. q_end - 1``."""
    s = 0.0
    for q in range(q_first, q_end):
        node_probabilities(w_out, children, path_node[q], hidden, probs)
        s += np.log(max(probs[path_slot[q]], 1e-300))
    return s


@njit(cache=True, nogil=True, fastmath=True)
def tree_all_log_probs(hidden, w_out, children, n_labels, out, sigmoids=False):
    """Log-probability of every leaf for one hidden vector (``out`` (K,)),
    by a walk over the whole tree: for tests and small label sets.  With
    ``sigmoids``, a PLT's independent child sigmoids (``plt.py``): each
    label's log marginal, the brute force ``topk`` must agree with."""
    arity = children.shape[1]
    n_internal = children.shape[0]
    node_score = np.zeros(n_internal, dtype=np.float64)
    probs = np.empty(max(arity, 2) * (1 + root_rows(w_out, children)), dtype=np.float64)
    # nodes are breadth-first: a parent is always scored before its children
    for n in range(n_internal):
        if sigmoids:
            node_sigmoids(w_out, children, n, hidden, probs)
        else:
            node_probabilities(w_out, children, n, hidden, probs)
        for j in range(arity):
            c = children[n, j]
            if c < 0:
                continue
            s = node_score[n] + np.log(max(probs[j], 1e-300))
            if c < n_labels:
                out[c] = s
            else:
                node_score[c - n_labels] = s
