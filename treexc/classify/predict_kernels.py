"""Numba kernels of inference: each line's hidden vector, then its exact
top-k labels, its labels' mean hidden vectors (for a clustering tree), or
its labels' tree statistics (``dump-tree -input``).  All scratch space is
allocated per call, so concurrent calls are safe.

The answers (:func:`predict_lines`) are computed in ``exact_kernels``'
fixed order, which ``classify/firstlines.py`` follows with numpy to the
bit; every kernel here sums its hidden vector with
``exact_kernels.hidden_mean``, and the statistics and centroids, which
training uses, keep ``fastmath`` for the rest."""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from ..loss.plt import plt_path_statistics
from ..loss.registry import KERNEL_PLT, KERNEL_TREE
from ..loss.tree_softmax import path_statistics
from .exact_kernels import hidden_mean, mean_top_k, search_top_k, sigmoid_top_k, sort_answer


@njit(cache=True, nogil=True)
def predict_lines(feat_off, feats, w_in, w_out, loss_kind, children, n_labels, k,
                  threshold, mean_scoring, out_label, out_score, out_count):
    """Top-k labels of every line, best first, ties by smaller label id
    (``mean_scoring``: a tree softmax read both ways, ``loss.topk.mean_top_k``).

    ``out_label``/``out_score`` are (n_lines, k): label ids and
    log-probabilities; ``out_count[i]`` says how many are valid (0 for a
    line without features or when nothing passes ``threshold``).
    """
    dim = w_in.shape[1]
    arity = children.shape[1]
    depth_bound = children.shape[0] + 1
    hidden = np.zeros(dim, dtype=np.float32)
    heap_score = np.empty(k, dtype=np.float64)
    heap_label = np.empty(k, dtype=np.int64)
    stack_node = np.empty(depth_bound * arity + 1, dtype=np.int64)
    stack_score = np.empty(depth_bound * arity + 1, dtype=np.float64)
    probs = np.empty(max(arity, 2), dtype=np.float64)
    child_order = np.empty(arity, dtype=np.int64)
    n_internal = children.shape[0] if mean_scoring else 1
    node_tree = np.empty(n_internal, dtype=np.float64)
    node_flat = np.empty(n_internal, dtype=np.float64)
    label_score = np.empty(n_labels if mean_scoring else 1, dtype=np.float64)
    log_threshold = np.log(threshold) if threshold > 0.0 else -np.inf
    for line in range(len(feat_off) - 1):
        f0, f1 = feat_off[line], feat_off[line + 1]
        out_count[line] = 0
        if f1 == f0:
            continue
        hidden_mean(w_in, feats, f0, f1, hidden)
        if loss_kind == KERNEL_TREE and mean_scoring:
            size = mean_top_k(w_out, children, n_labels, hidden, k, log_threshold, heap_score,
                              heap_label, node_tree, node_flat, label_score, probs)
        elif loss_kind == KERNEL_TREE or loss_kind == KERNEL_PLT:
            size = search_top_k(w_out, children, n_labels, hidden, k, log_threshold,
                                heap_score, heap_label, stack_node, stack_score, probs,
                                child_order, loss_kind == KERNEL_PLT)
        else:
            size = sigmoid_top_k(w_out, hidden, k, log_threshold, heap_score, heap_label)
        sort_answer(heap_score, heap_label, size, out_score[line], out_label[line])
        out_count[line] = size


@njit(cache=True, nogil=True, fastmath=True)
def label_centroids(feat_off, feats, label_off, labels, w_in, sums, counts):
    """``sums[c]`` += the hidden vector of every line (with features) that
    has label ``c``, ``counts[c]`` += 1: label vectors for a clustering
    tree."""
    hidden = np.zeros(w_in.shape[1], dtype=np.float32)
    for line in range(len(feat_off) - 1):
        f0, f1 = feat_off[line], feat_off[line + 1]
        if f1 == f0:
            continue
        hidden_mean(w_in, feats, f0, f1, hidden)
        for k in range(label_off[line], label_off[line + 1]):
            c = labels[k]
            counts[c] += 1
            for i in range(len(hidden)):
                sums[c, i] += hidden[i]


@njit(cache=True, nogil=True, fastmath=True)
def collect_statistics(feat_off, feats, label_off, labels, w_in, w_out, children,
                       path_off, path_node, stats_p, stats_n, loss_kind):
    """The classifier's training statistics measured on a data set without
    training: every label of every line (with features) adds its nodes'
    child distributions at its path positions (``loss.tree_softmax``; a
    PLT's children's sigmoids, ``loss.plt``)."""
    dim = w_in.shape[1]
    hidden = np.zeros(dim, dtype=np.float32)
    probs = np.zeros(max(children.shape[1], 2))
    for line in range(len(feat_off) - 1):
        f0, f1 = feat_off[line], feat_off[line + 1]
        if f1 == f0:
            continue
        hidden_mean(w_in, feats, f0, f1, hidden)
        for k in range(label_off[line], label_off[line + 1]):
            if loss_kind == KERNEL_PLT:
                plt_path_statistics(w_out, children, path_off, path_node, labels[k], hidden,
                                    probs, stats_p, stats_n)
            else:
                path_statistics(w_out, children, path_off, path_node, labels[k], hidden,
                                probs, stats_p, stats_n)

