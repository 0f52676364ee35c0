"""fastText 0.9.2's prediction arithmetic, to the bit (Numba), for models
converted from fastText (``"scoring": "fasttext"``, ``fasttext_convert``).

treexc's own kernels score in float64 with vectorised float32 sums
(``fastmath``) and exact log-probabilities; fastText does not, and its
answers differ in the last bits, in ties and, for hs, in ranking.  So a
converted model is scored as fastText scores it (its ``loss.cc``,
``densematrix.cc``, ``vector.cc``, ``model.cc``, as compiled for x86-64 SSE
without fused multiply-adds):

* hidden vector: float32 sum of the rows in feature order, times
  ``float32(1 / n)``; every dot product a float32 sum in index order (no
  ``fastmath`` here, so the compiler keeps that order);
* softmax: float32 logits, ``exp`` in double of ``logit - max`` stored as
  float32, a float32 sum, a float32 division; a label below ``threshold``
  (a probability) is skipped; score ``std_log(p) = float32(log(p + 1e-5))``;
* ova, ns: the 512-entry sigmoid table on [-8, 8];
* hs: depth-first, left child first, ``f = 1 / (1 + expf(-x))`` in float32,
  path scores summed in float32 of ``std_log(1 - f)`` and ``std_log(f)``,
  subtrees pruned below ``std_log(threshold)`` or below the k-th best;
* the k best kept and ordered by libstdc++'s heap (``loss.stl_heap``), so
  ties come out in fastText's order.

Probabilities are ``expf(score)``, as fastText's ``predictLine``.
"""

import numpy as np
from numba import njit

from ... import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from ...loss.registry import KERNEL_TREE
from ...loss.stl_heap import offer, sort_heap
from ..exact_kernels import hidden_mean  # no fastmath: fastText's order of float32 sums

SIGMOID_TABLE_SIZE = 512
MAX_SIGMOID = 8


@njit(cache=True, nogil=True)
def sigmoid_table():
    """``Loss::t_sigmoid_``: x = i * 16 / 512 - 8 in float32, then
    ``1 / (1 + expf(-x))`` in double, stored as float32."""
    t = np.empty(SIGMOID_TABLE_SIZE + 1, dtype=np.float32)
    for i in range(SIGMOID_TABLE_SIZE + 1):
        x = (np.float32(i * 2 * MAX_SIGMOID) / np.float32(SIGMOID_TABLE_SIZE)
             - np.float32(MAX_SIGMOID))
        t[i] = np.float32(1.0 / (1.0 + np.float64(np.exp(-x))))
    return t


@njit(cache=True, nogil=True, inline="always")
def table_sigmoid(table, x):
    if x < np.float32(-MAX_SIGMOID):
        return np.float32(0.0)
    if x > np.float32(MAX_SIGMOID):
        return np.float32(1.0)
    i = np.int64((x + np.float32(MAX_SIGMOID)) * np.float32(SIGMOID_TABLE_SIZE)
                 / np.float32(MAX_SIGMOID) / np.float32(2))
    return table[i]


@njit(cache=True, nogil=True, inline="always")
def std_log(x):
    """fastText's ``std_log``: ``log(x + 1e-5)`` in double, as float32."""
    return np.float32(np.log(np.float64(x) + 1e-5))


@njit(cache=True, nogil=True, inline="always")
def dot32(row, vec):
    d = np.float32(0.0)
    for j in range(len(vec)):
        d += row[j] * vec[j]
    return d


@njit(cache=True, nogil=True)
def _flat_top_k(w_out_t, children, loss_kind, table, hidden, k, threshold, output,
                heap_score, heap_label):
    """``Loss::predict`` of softmax (a one-node tree) and of ova/ns.
    ``w_out_t`` is the output matrix transposed: every label's logit is
    still a float32 sum in index order (fastText's ``dotRow``), but all
    labels advance together, a loop the compiler vectorises."""
    n = output.shape[0]
    output[:] = 0.0
    for i in range(w_out_t.shape[0]):
        row = w_out_t[i]
        h = hidden[i]
        for j in range(n):
            output[j] += row[j] * h
    if loss_kind == KERNEL_TREE:  # softmax
        top = output[0]
        for j in range(n):
            top = max(output[j], top)
        z = np.float32(0.0)
        for j in range(n):
            output[j] = np.float32(np.exp(np.float64(output[j] - top)))
            z += output[j]
        for j in range(n):
            output[j] = output[j] / z
    else:
        for j in range(n):
            output[j] = table_sigmoid(table, output[j])
    size = 0
    for j in range(n):
        x = output[j]
        if x < threshold:
            continue
        # fastText skips x when the heap is full and std_log(x) < the front's
        # score; std_log is monotone, and when x + 1e-5 is 1e-4 (relative)
        # below the front's, its float32 log is certainly lower (a float32
        # ulp of a log above log(1e-5) is < 1e-6): the log is not computed
        if size == k and (np.float64(x) + 1e-5
                          < (np.float64(output[heap_label[0]]) + 1e-5) * (1.0 - 1e-4)):
            continue
        size = offer(heap_score, heap_label, size, k, std_log(x), j)
    if loss_kind == KERNEL_TREE:  # heap entries are slots of the one node: their labels
        for r in range(size):
            heap_label[r] = children[0, heap_label[r]]
    return size


@njit(cache=True, nogil=True)
def _hs_top_k(w_out, children, n_labels, hidden, k, threshold, heap_score, heap_label,
              stack_node, stack_score):
    """``HierarchicalSoftmaxLoss::dfs`` with an explicit stack (the left
    child on top, so it is searched first, as fastText's recursion does)."""
    log_threshold = std_log(threshold)
    size = 0
    top = 1
    stack_node[0] = n_labels  # the root, inner node 0
    stack_score[0] = np.float32(0.0)
    while top > 0:
        top -= 1
        c = stack_node[top]
        score = stack_score[top]
        if score < log_threshold:
            continue
        if size == k and score < heap_score[0]:
            continue
        if c < n_labels:
            size = offer(heap_score, heap_label, size, k, score, c)
            continue
        n = c - n_labels
        left, right = children[n, 0], children[n, 1]
        if right < 0:  # the one-label tree: probability 1
            stack_node[top] = left
            stack_score[top] = score
            top += 1
            continue
        f = dot32(w_out[2 * n], hidden)
        f = np.float32(1.0) / (np.float32(1.0) + np.exp(-f))
        stack_node[top] = right
        stack_score[top] = score + std_log(f)
        stack_node[top + 1] = left
        stack_score[top + 1] = score + std_log(np.float32(1.0) - f)
        top += 2
    return size


@njit(cache=True, nogil=True)
def predict_lines_fasttext(feat_off, feats, w_in, w_out, w_out_t, loss_kind, hs, children,
                           n_labels, k, threshold, out_label, out_prob, out_count):
    """Top-k labels of every line as fastText computes them: label ids,
    float32 probabilities (``expf`` of fastText's score) and counts, as
    ``predict_kernels.predict_lines``.  ``hs``: search the binary tree
    (else softmax over the one-node tree, or ova/ns, on ``w_out_t``, the
    output matrix transposed); ``threshold`` is float32."""
    dim = w_in.shape[1]
    hidden = np.zeros(dim, dtype=np.float32)
    table = sigmoid_table()
    heap_score = np.empty(k + 1, dtype=np.float32)
    heap_label = np.empty(k + 1, dtype=np.int64)
    flat = not hs
    output = np.empty(n_labels if flat else 0, dtype=np.float32)
    stack_node = np.empty(children.shape[0] + 3, dtype=np.int64)
    stack_score = np.empty(children.shape[0] + 3, dtype=np.float32)
    for line in range(len(feat_off) - 1):
        f0, f1 = feat_off[line], feat_off[line + 1]
        out_count[line] = 0
        if f1 == f0:
            continue
        hidden_mean(w_in, feats, f0, f1, hidden)
        if flat:
            size = _flat_top_k(w_out_t, children, loss_kind, table, hidden, k, threshold,
                               output, heap_score, heap_label)
        else:
            size = _hs_top_k(w_out, children, n_labels, hidden, k, threshold, heap_score,
                             heap_label, stack_node, stack_score)
        sort_heap(heap_score, heap_label, size)
        for r in range(size):
            out_label[line, r] = heap_label[r]
            out_prob[line, r] = np.exp(heap_score[r])
        out_count[line] = size
