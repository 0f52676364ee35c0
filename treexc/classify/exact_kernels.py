"""The prediction arithmetic of the embedding model in one fixed order, so
that numpy can follow it to the bit (``classify/firstlines.py``).

Why: without Numba, Python and numpy answer the first lines of ``predict``
(the command's and the Python API's) in a fraction of the 0.4 s of CPU and
100 MiB that importing Numba costs; the answers must be the kernels' to the
last bit, ties included.  ``fastmath`` lets the compiler reorder float32 sums
and fuse multiply-adds as it likes, which numpy cannot reproduce, so these
kernels do without it and fix every order themselves:

* the hidden vector: the feature rows added in the line's order, then
  multiplied by ``float32(1 / n)`` (elementwise: vectorised all the same);
* every dot product (:func:`dot_lanes`): eight float32 partial sums, lane
  ``l`` taking the elements ``i`` with ``i % 8 == l`` in order (a tail of
  ``dim % 8`` elements into lanes 0..), then added as
  ``((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))``: eight independent
  chains keep the adds' pipelines busy without reassociating anything;
* the sigmoid and softmax in float64 with libm's ``exp`` and ``log``
  (Python's ``math`` module calls the same functions); a node's softmax
  normaliser summed over its slots in order;
* the answer: the ``k`` best labels by score, ties by smaller label id,
  whatever order the search met them in (:func:`heap_push` and
  :func:`sort_answer`; the branch and bound prunes a subtree only when it
  is strictly below the ``k``-th best).

Training keeps its own ``fastmath`` kernels (``loss/kernels.py``,
``loss/topk.py``): their models are not changed by this file.
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)

LOG_FLOOR = 1e-300  # log(max(p, LOG_FLOOR)): a label of probability 0 still has a score


@njit(cache=True, nogil=True, inline="always")
def dot_lanes(a, b):
    """float32 ``a . b`` in the module docstring's order."""
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = np.float32(0.0)
    n = len(a)
    m = n - n % 8
    for i in range(0, m, 8):
        s0 += a[i] * b[i]
        s1 += a[i + 1] * b[i + 1]
        s2 += a[i + 2] * b[i + 2]
        s3 += a[i + 3] * b[i + 3]
        s4 += a[i + 4] * b[i + 4]
        s5 += a[i + 5] * b[i + 5]
        s6 += a[i + 6] * b[i + 6]
        s7 += a[i + 7] * b[i + 7]
    r = n - m
    if r > 0:
        s0 += a[m] * b[m]
    if r > 1:
        s1 += a[m + 1] * b[m + 1]
    if r > 2:
        s2 += a[m + 2] * b[m + 2]
    if r > 3:
        s3 += a[m + 3] * b[m + 3]
    if r > 4:
        s4 += a[m + 4] * b[m + 4]
    if r > 5:
        s5 += a[m + 5] * b[m + 5]
    if r > 6:
        s6 += a[m + 6] * b[m + 6]
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))


@njit(cache=True, nogil=True)
def hidden_mean(w_in, feats, f0, f1, out):
    """The mean of the rows ``feats[f0:f1]`` of ``w_in``, added in order."""
    out[:] = 0.0
    for k in range(f0, f1):
        row = w_in[feats[k]]
        for i in range(len(out)):
            out[i] += row[i]
    inv = np.float32(1.0 / (f1 - f0))
    for i in range(len(out)):
        out[i] *= inv


@njit(cache=True, nogil=True, inline="always")
def sigmoid(x):
    """fastText's sigmoid of a float32 score, in float64."""
    if x < -30.0:
        return 0.0
    if x > 30.0:
        return 1.0
    return 1.0 / (1.0 + np.exp(-np.float64(x)))


@njit(cache=True, nogil=True)
def node_probabilities(w_out, children, n, hidden, probs):
    """Child distribution of internal node ``n`` into ``probs`` (0 for empty
    slots), as ``loss.kernels.node_probabilities`` for a classifier: a binary
    node with both children is fastText's sigmoid of its slot-0 row, a
    one-child node gives 1, else a softmax over the present slots."""
    arity = children.shape[1]
    base = n * arity
    if arity == 2 and children[n, 0] >= 0 and children[n, 1] >= 0:
        p1 = sigmoid(dot_lanes(w_out[base], hidden))
        probs[0] = 1.0 - p1
        probs[1] = p1
        return
    present = 0
    for j in range(arity):
        probs[j] = 0.0
        if children[n, j] >= 0:
            present += 1
    if present == 1:
        for j in range(arity):
            if children[n, j] >= 0:
                probs[j] = 1.0
        return
    top = -np.inf
    for j in range(arity):
        if children[n, j] >= 0:
            s = np.float64(dot_lanes(w_out[base + j], hidden))
            probs[j] = s
            top = max(top, s)
    z = 0.0
    for j in range(arity):
        if children[n, j] >= 0:
            e = np.exp(probs[j] - top)
            probs[j] = e
            z += e
    for j in range(arity):
        if children[n, j] >= 0:
            probs[j] = probs[j] / z


@njit(cache=True, nogil=True)
def node_sigmoids(w_out, children, n, hidden, probs):
    """Each slot's own sigmoid (a probabilistic label tree's node); 1 for the
    child of a one-child node, 0 for empty slots."""
    arity = children.shape[1]
    base = n * arity
    present = 0
    for j in range(arity):
        if children[n, j] >= 0:
            present += 1
    for j in range(arity):
        if children[n, j] < 0:
            probs[j] = 0.0
        elif present == 1:
            probs[j] = 1.0
        else:
            probs[j] = sigmoid(dot_lanes(w_out[base + j], hidden))


@njit(cache=True, nogil=True, inline="always")
def worse(score_a, label_a, score_b, label_b):
    """Is (score_a, label_a) below (score_b, label_b): a lower score, or the
    same score and a larger label id."""
    return score_a < score_b or (score_a == score_b and label_a > label_b)


@njit(cache=True, nogil=True)
def heap_push(heap_score, heap_label, size, k, score, label):
    """Keep the ``k`` best (score, label) pairs, by :func:`worse`, in a heap
    whose root is the worst kept; returns the new size."""
    if size < k:
        i = size
        size += 1
        while i > 0:  # sift up
            parent = (i - 1) // 2
            if not worse(score, label, heap_score[parent], heap_label[parent]):
                break
            heap_score[i] = heap_score[parent]
            heap_label[i] = heap_label[parent]
            i = parent
        heap_score[i] = score
        heap_label[i] = label
        return size
    if not worse(heap_score[0], heap_label[0], score, label):
        return size
    i = 0  # replace the root, sift down
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and worse(heap_score[c + 1], heap_label[c + 1], heap_score[c],
                                  heap_label[c]):
            c += 1
        if not worse(heap_score[c], heap_label[c], score, label):
            break
        heap_score[i] = heap_score[c]
        heap_label[i] = heap_label[c]
        i = c
    heap_score[i] = score
    heap_label[i] = label
    return size


@njit(cache=True, nogil=True)
def search_top_k(w_out, children, n_labels, hidden, k, log_threshold, heap_score,
                 heap_label, stack_node, stack_score, probs, child_order, independent):
    """Exact top-k leaves by path log-probability (``loss.topk``'s branch and
    bound; ``independent``: a probabilistic label tree's sigmoids).  A leaf's
    score is its path's ``log(max(p, 1e-300))`` summed from the root down.
    Returns the heap size."""
    arity = children.shape[1]
    size = 0
    top = 1
    stack_node[0] = 0
    stack_score[0] = 0.0
    while top > 0:
        top -= 1
        n = stack_node[top]
        score = stack_score[top]
        # a subtree's leaves score at most its root: skip it only when strictly
        # below the k-th best (an equal one may hold a smaller label id)
        if score < log_threshold or (size == k and score < heap_score[0]):
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
            s = score + np.log(max(probs[j], LOG_FLOOR))
            if s < log_threshold or (size == k and s < heap_score[0]):
                continue
            if c < n_labels:
                size = heap_push(heap_score, heap_label, size, k, s, c)
            else:
                child_order[n_inner] = j
                probs[j] = s  # reuse: the child's path score
                n_inner += 1
        # internal children by ascending score, then pushed: the best child
        # ends on top of the stack and is explored first (found early, good
        # leaves prune more; the answer does not depend on it)
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


@njit(cache=True, nogil=True)
def mean_top_k(w_out, children, n_labels, hidden, k, log_threshold, heap_score, heap_label,
               node_tree, node_flat, label_score, logits):
    """``loss.topk.mean_top_k`` (a tree softmax read both ways) in this
    module's order; returns the heap size."""
    arity = children.shape[1]
    node_tree[0] = 0.0
    node_flat[0] = 0.0
    for n in range(children.shape[0]):  # breadth-first: parents first
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
            if present == 1:
                logits[j] = 0.0
            elif full_binary:
                logits[j] = 0.0 if j == 0 else np.float64(dot_lanes(w_out[base], hidden))
            else:
                logits[j] = np.float64(dot_lanes(w_out[base + j], hidden))
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
            tree = (node_tree[n] + logits[j]) - log_norm
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


@njit(cache=True, nogil=True)
def sigmoid_top_k(w_out, hidden, k, log_threshold, heap_score, heap_label):
    """One-vs-all and negative sampling: each label its own sigmoid."""
    size = 0
    for label in range(w_out.shape[0]):
        s = np.log(max(sigmoid(dot_lanes(w_out[label], hidden)), LOG_FLOOR))
        if s >= log_threshold:
            size = heap_push(heap_score, heap_label, size, k, s, label)
    return size


@njit(cache=True, nogil=True)
def sort_answer(heap_score, heap_label, size, out_score, out_label):
    """The heap's pairs best first: by score, ties by smaller label id."""
    by_label = np.argsort(heap_label[:size])
    order = np.argsort(-heap_score[:size][by_label], kind="mergesort")
    for r in range(size):
        out_score[r] = heap_score[by_label[order[r]]]
        out_label[r] = heap_label[by_label[order[r]]]
