"""Numba kernels for one training thread (Hogwild SGD, as fastText).

One call of :func:`train_thread` runs one worker until the shared token
counter reaches ``stop_at`` (or ``control[0]`` asks it to stop).  Several
Python threads call it at once on the same weight arrays: the kernels
release the GIL and update ``w_in`` and ``w_out`` without locks.  Those races
on weights are accepted on purpose (Hogwild); everything else a thread
writes is its own slot: ``progress[t]``, ``loss_sum[t]``, ``loss_n[t]``,
``cursor[t]``, ``rng_state[t]`` and ``stats_*[t]``, so counters and tree
statistics are exact.

Losses (``loss_kind``): KERNEL_TREE covers flat softmax (one node), fastText's
binary ``hs``, M-ary Huffman and learned trees; KERNEL_OVA is one-vs-all;
KERNEL_NS is negative sampling over labels; KERNEL_PLT a probabilistic label
tree (``loss.plt``), trained on every label of a line.  Shapes: ``w_in`` (rows, dim),
``w_out`` (n_internal * M or K, dim), both float32.
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from ..array_kernels import all_finite, axpy, searchsorted
from ..loss.kernels import binary_logistic, next_random
from ..loss.plt import plt_gradient
from ..loss.registry import KERNEL_NS, KERNEL_OVA, KERNEL_PLT
from ..loss.tree_softmax import path_gradient
from ..text.epoch_order import half_bits, shuffled_line

# ``control[0]``: 0 run, STOP stop (Ctrl-C, an error elsewhere), DIVERGED a
# worker met a NaN or infinite value (the caller reports it and saves nothing),
# BAD_CORPUS a line's offsets or ids lie outside the arrays or the model (the
# token cache changed under the run: the kernels index with checked ids only)
STOP, DIVERGED, BAD_CORPUS = 1, 2, 3


@njit(cache=True, nogil=True, inline="always")
def line_is_sane(feat_off, feats, label_off, labels, ntokens, line, n_rows, n_labels):
    """Do line ``line``'s offsets lie inside the arrays and its ids inside
    the model (``n_rows`` input rows, ``n_labels`` labels)?  A few integer
    tests a line: the corpus is a file (the token cache) that another
    process may rewrite while training reads it."""
    if line + 1 >= len(feat_off) or line + 1 >= len(label_off):
        return False
    f0, f1 = feat_off[line], feat_off[line + 1]
    l0, l1 = label_off[line], label_off[line + 1]
    if not (0 <= f0 <= f1 <= len(feats) and 0 <= l0 <= l1 <= len(labels)
            and ntokens[line] >= 0):
        return False
    for k in range(f0, f1):
        if not 0 <= feats[k] < n_rows:
            return False
    for k in range(l0, l1):
        if not 0 <= labels[k] < n_labels:
            return False
    return True


@njit(cache=True, nogil=True)
def learning_rate(lr0, hold, x):
    """The rate at ``x``, the fraction of the run done: ``lr0`` while ``x <
    hold``, then falling linearly to 0 at ``x = 1`` (``hold = 0`` is
    fastText's schedule; the learned tree holds it for the first half)."""
    if x < hold:
        return lr0
    return lr0 * max(0.0, 1.0 - x) / (1.0 - hold)


@njit(cache=True, nogil=True)
def sample_negative(neg_cdf, rng_state, thread):
    u = (next_random(rng_state, thread) >> 11) * (1.0 / 4503599627370496.0)  # [0, 1)
    return searchsorted(neg_cdf, u * neg_cdf[-1], True)


@njit(cache=True, nogil=True)
def repetitions(weight, rng_state, thread):
    """How many times an example of ``weight`` is trained: ``floor(weight)``,
    plus one with probability its fractional part (mean: ``weight``)."""
    reps = int(weight)
    if weight > reps:
        u = (next_random(rng_state, thread) >> 11) * (1.0 / 4503599627370496.0)  # [0, 1)
        if u < weight - reps:
            reps += 1
    return reps


@njit(cache=True, nogil=True, fastmath=True)
def train_thread(thread, feat_off, feats, label_off, labels, ntokens,
                 w_in, w_out, loss_kind, children, path_off, path_node, path_slot,
                 neg_cdf, neg, lr0, lr_hold, total_tokens, lr_update_rate,
                 progress, stop_at, control, loss_sum, loss_n, cursor, shuffled, order_key,
                 rng_state, collect, stats_p, stats_n, label_weight):
    """Train on lines from position ``cursor[thread]`` on until ``sum(progress)
    >= stop_at`` or ``control[0]`` is set.  In the file's order
    (``shuffled`` false) position ``i`` is line ``i``, cycling through the
    corpus.  Shuffled, position ``i`` is line ``text.epoch_order.shuffled_line``
    of ``i`` under ``order_key``, and the call returns at the end of this
    pass (``cursor[thread] == n_lines``): the corpus is then one window of
    an epoch (``text.windows``).  A NaN or
    infinite hidden vector or gradient sets ``control[0] = DIVERGED``: a test
    of ``2 * dim`` integers per example (words/sec on cooking unchanged at
    -thread 1 and 2).  A line whose offsets or ids are out of range
    (:func:`line_is_sane`) sets ``control[0] = BAD_CORPUS``.

    ``label_weight``: one weight a label (float64), or empty: none.  A
    weight scales a term of the example's loss: for the drawn-label losses
    (tree softmax, ns) every term by the drawn label's weight; for ova a
    label's term by its own weight where the line has it, else by the
    line's largest label weight; for a PLT ``loss.plt`` (the same rule
    over the tree's nodes).  The example's largest term weight ``W`` is
    not a rate ``W`` times larger (balanced weights reach 40 and more on a
    long tail, and such steps wrecked the model: docs/results/weights.md)
    but ``W`` steps: the example is trained ``repetitions(W)`` times
    (mean ``W``, at the rate), each term at its weight over ``W`` times the
    rate.  The expected update is the weighted gradient's, and no step is
    larger than an unweighted one.

    The learning rate follows global progress ``x = sum(progress) /
    total_tokens``: constant ``lr0`` while ``x < lr_hold``, then decaying
    linearly to 0 at ``x = 1`` (``lr_hold = 0`` is fastText's schedule).
    """
    dim = w_in.shape[1]
    n_rows = w_in.shape[0]
    n_lines = len(ntokens)
    n_labels = len(neg_cdf)
    hidden = np.zeros(dim, dtype=np.float32)
    grad = np.zeros(dim, dtype=np.float32)
    probs = np.zeros(max(children.shape[1], 2), dtype=np.float64)
    positive = np.zeros(n_labels, dtype=np.bool_)
    # a PLT's positive nodes and their children's sigmoids (loss.plt)
    n_nodes = children.shape[0] if loss_kind == KERNEL_PLT else 1
    node_index = np.zeros(n_nodes, dtype=np.int64)
    node_list = np.zeros(n_nodes, dtype=np.int64)
    node_probs = np.zeros((n_nodes, children.shape[1]), dtype=np.float64)
    weighted = len(label_weight) > 0
    node_weight = np.zeros(n_nodes if weighted else 0, dtype=np.float64)
    position = cursor[thread]
    half = half_bits(n_lines)
    local_tokens = 0
    done = 0
    for t in range(len(progress)):
        done += progress[t]
    lr = 0.0
    while done < stop_at and control[0] == 0 and position < n_lines:
        # learning rate from global progress
        x = done / total_tokens
        lr = learning_rate(lr0, lr_hold, x)
        # train until the next progress update
        while local_tokens < lr_update_rate and position < n_lines:
            line = shuffled_line(position, n_lines, order_key, half) if shuffled else position
            if not line_is_sane(feat_off, feats, label_off, labels, ntokens, line, n_rows,
                                n_labels):
                control[0] = BAD_CORPUS
                break
            f0, f1 = feat_off[line], feat_off[line + 1]
            l0, l1 = label_off[line], label_off[line + 1]
            local_tokens += ntokens[line]
            position += 1
            if position == n_lines and not shuffled:
                position = 0
            if f1 == f0 or l1 == l0:
                continue
            # label weights: the example trained reps times, reps drawn with mean
            # its weight (the module docstring says why not the rate times it)
            reps = 1
            target = -1
            line_weight = 1.0
            failed = False
            if weighted:
                if loss_kind == KERNEL_OVA or loss_kind == KERNEL_PLT:
                    line_weight = 0.0  # the line's largest label weight
                    for k in range(l0, l1):
                        line_weight = max(line_weight, label_weight[labels[k]])
                else:
                    target = labels[l0 + next_random(rng_state, thread) % (l1 - l0)]
                    line_weight = label_weight[target]
                reps = repetitions(line_weight, rng_state, thread)
            for _rep in range(reps):
                hidden[:] = 0.0
                for k in range(f0, f1):
                    axpy(np.float32(1.0), w_in[feats[k]], hidden)
                inv = np.float32(1.0 / (f1 - f0))
                for i in range(dim):
                    hidden[i] *= inv
                if not all_finite(hidden):
                    control[0] = DIVERGED
                    failed = True
                    break
                grad[:] = 0.0
                loss = 0.0
                if loss_kind == KERNEL_OVA:
                    for k in range(l0, l1):
                        positive[labels[k]] = True
                    for label in range(n_labels):
                        rate = lr
                        if weighted and positive[label]:
                            rate = lr * label_weight[label] / line_weight
                        loss += binary_logistic(w_out, label, hidden, grad, positive[label],
                                                rate)
                    for k in range(l0, l1):
                        positive[labels[k]] = False
                elif loss_kind == KERNEL_PLT:
                    # every label of the line, SGD in place (loss.plt)
                    loss = plt_gradient(w_out, children, path_off, path_node, path_slot,
                                        labels, l0, l1, hidden, -lr / line_weight, grad, w_out,
                                        positive, node_index, node_list, node_probs, loss,
                                        collect, stats_p[thread], stats_n[thread], label_weight,
                                        node_weight)
                else:
                    # one label of a multi-label line, uniformly at random (fastText)
                    if not weighted:
                        target = labels[l0 + next_random(rng_state, thread) % (l1 - l0)]
                    rate = lr
                    if loss_kind == KERNEL_NS:
                        loss += binary_logistic(w_out, target, hidden, grad, True, rate)
                        if n_labels > 1:
                            for _ in range(neg):
                                other = target
                                while other == target:
                                    other = sample_negative(neg_cdf, rng_state, thread)
                                loss += binary_logistic(w_out, other, hidden, grad, False, rate)
                    else:
                        # SGD in place on the path's rows (loss.tree_softmax)
                        loss = path_gradient(w_out, children, path_off, path_node, path_slot,
                                             target, hidden, -rate, grad, w_out, probs, loss,
                                             collect, stats_p[thread], stats_n[thread])
                if not all_finite(grad):
                    control[0] = DIVERGED
                    failed = True
                    break
                for i in range(dim):
                    grad[i] *= inv
                for k in range(f0, f1):
                    axpy(np.float32(1.0), grad, w_in[feats[k]])
                loss_sum[thread] += loss
                loss_n[thread] += 1
            if failed:
                break
        progress[thread] += local_tokens
        local_tokens = 0
        done = 0
        for t in range(len(progress)):
            done += progress[t]
    cursor[thread] = position
    return lr
