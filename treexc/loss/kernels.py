"""Small numba building blocks shared by the training and prediction kernels:
the child distribution of a tree node (vector arithmetic is
``treexc/array_kernels.py``'s).

Node rows: internal node ``n`` owns rows ``n*arity .. n*arity + arity - 1``
of ``w_out`` (one per slot).  The root may own ``K > 1`` rows per slot (the
language model's ``-rootRows``): rows ``k = 1 .. K-1`` of slot ``j`` follow
the nodes' rows (:func:`root_row`), ``w_out`` then has
``(n_internal + K - 1) * arity`` rows, and the kernels read ``K`` from that
shape (:func:`root_rows`).  The root then scores slot ``j`` by
``log sum_k exp(row_kj . hidden)``: a group of labels is scored by the best
of ``K`` directions instead of one (docs/lm.md, "Several rows per root slot").
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from ..array_kernels import axpy, dot


@njit(cache=True, nogil=True, inline="always")
def sigmoid(x):
    if x < -30.0:
        return 0.0
    if x > 30.0:
        return 1.0
    return 1.0 / (1.0 + np.exp(-x))


@njit(cache=True, nogil=True, inline="always")
def safe_log(p):
    return np.log(max(p, 1e-30))


@njit(cache=True, nogil=True, inline="always")
def next_random(rng_state, t):
    """xorshift64* step on ``rng_state[t]``; returns a 63-bit integer."""
    x = rng_state[t]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng_state[t] = x
    return np.int64((x * np.uint64(2685821657736338717)) >> np.uint64(1))


@njit(cache=True, nogil=True, fastmath=True, inline="always")
def binary_logistic(w_out, row, hidden, grad, positive, lr):
    """One logistic unit; returns its loss.  ``grad`` gets the input gradient
    (computed with the row before its update, as fastText)."""
    p = sigmoid(dot(w_out[row], hidden))
    alpha = np.float32(lr * ((1.0 if positive else 0.0) - p))
    axpy(alpha, w_out[row], grad)
    axpy(alpha, hidden, w_out[row])
    return -safe_log(p if positive else 1.0 - p)


@njit(cache=True, nogil=True, inline="always")
def root_rows(w_out, children):
    """Rows per root slot, ``K`` (module docstring)."""
    arity = children.shape[1]
    return 1 + (w_out.shape[0] - children.shape[0] * arity) // arity


@njit(cache=True, nogil=True, inline="always")
def root_row(children, k, j):
    """The row of ``w_out`` that is the root's ``k``-th row of slot ``j``."""
    arity = children.shape[1]
    return j if k == 0 else (children.shape[0] - 1 + k) * arity + j


def scratch_size(w_out, children):
    """Length of the ``probs`` buffer of :func:`node_probabilities`,
    :func:`mixture_probabilities` and the kernels that call them: room for
    a node's distribution and the root's ``K`` row shares a slot,
    ``(K + 1) * arity``."""
    return (root_rows(w_out, children) + 1) * children.shape[1]


@njit(cache=True, nogil=True, fastmath=True)
def mixture_probabilities(scores, children, probs, with_shares=True):
    """The root's child distribution from its row scores (``scores[k*arity
    + j]``: row ``k`` of slot ``j``, ``K = len(scores) // arity`` rows a
    slot; module docstring) into ``probs[:arity]``, and row ``k``'s share
    of slot ``j``'s probability into ``probs[(k+1)*arity + j]``
    (``exp(s_kj - score_j)``, the shares of a slot sum to 1: the gradient
    of ``score_j`` with respect to row ``k`` is that share times the hidden
    vector; not without ``with_shares``).  ``scores`` may be
    ``probs[arity:]`` itself.  Returns the number of children."""
    arity = children.shape[1]
    n_rows = len(scores) // arity
    if len(probs) < (n_rows + 1) * arity:
        raise ValueError("probs is smaller than scratch_size")
    present = 0
    top = -1e300  # finite: fastmath assumes there are no infinities
    for j in range(arity):  # each slot's best row score in probs[j]
        probs[j] = 0.0
        if children[0, j] < 0:
            continue
        present += 1
        best = -1e300
        for k in range(n_rows):
            best = max(best, scores[k * arity + j])
        probs[j] = best
        top = max(top, best)
    # slot j's weight exp(score_j - top) = exp(best_j - top) * sum_k
    # exp(s_kj - best_j): no log, and the sum is at least 1 (no 0/0 in the
    # shares however far the slot is below the best one)
    total = 0.0
    for j in range(arity):
        if children[0, j] < 0:
            continue
        best = probs[j]
        z = 1.0
        if n_rows == 1:  # one row: its score is the slot's, its share 1
            if with_shares:
                probs[arity + j] = 1.0
        else:
            z = 0.0
            for k in range(n_rows):
                e = np.exp(scores[k * arity + j] - best)
                if with_shares:
                    probs[(k + 1) * arity + j] = e
                z += e
            if with_shares:
                for k in range(n_rows):
                    probs[(k + 1) * arity + j] /= z
        probs[j] = np.exp(best - top) * z
        total += probs[j]
    for j in range(arity):
        probs[j] /= total
    if present == 1:  # as node_probabilities: exactly 1
        for j in range(arity):
            probs[j] = 1.0 if children[0, j] >= 0 else 0.0
    return present


@njit(cache=True, nogil=True, fastmath=True)
def root_mixture_probabilities(w_out, children, hidden, probs):
    """:func:`mixture_probabilities` of the root's rows for ``hidden``
    (``K > 1`` rows a slot; ``probs`` of :func:`scratch_size`)."""
    arity = children.shape[1]
    n_rows = root_rows(w_out, children)
    if len(probs) < (n_rows + 1) * arity:  # as mixture_probabilities: before writing
        raise ValueError("probs is smaller than scratch_size")
    for k in range(n_rows):
        for j in range(arity):
            probs[(k + 1) * arity + j] = (dot(w_out[root_row(children, k, j)], hidden)
                                          if children[0, j] >= 0 else 0.0)
    return mixture_probabilities(probs[arity:(n_rows + 1) * arity], children, probs)


@njit(cache=True, nogil=True, fastmath=True)
def node_probabilities(w_out, children, n, hidden, probs):
    """Child distribution of internal node ``n`` into ``probs`` (0 for empty
    slots); returns the number of children.  Binary nodes with both children
    use fastText's sigmoid; a one-child node (a chain link of a depth-limited
    tree) costs nothing; a root with several rows per slot:
    :func:`root_mixture_probabilities`."""
    arity = children.shape[1]
    base = n * arity
    if n == 0 and w_out.shape[0] > children.shape[0] * arity:
        return root_mixture_probabilities(w_out, children, hidden, probs)
    if arity == 2 and children[n, 0] >= 0 and children[n, 1] >= 0:
        p1 = sigmoid(dot(w_out[base], hidden))
        probs[0] = 1.0 - p1
        probs[1] = p1
        return 2
    present = 0
    for j in range(arity):
        probs[j] = 0.0
        if children[n, j] >= 0:
            present += 1
    if present == 1:
        for j in range(arity):
            if children[n, j] >= 0:
                probs[j] = 1.0
        return 1
    top = -np.inf
    for j in range(arity):
        if children[n, j] >= 0:
            s = dot(w_out[base + j], hidden)
            probs[j] = s
            top = max(top, s)
    z = 0.0
    for j in range(arity):
        if children[n, j] >= 0:
            e = np.exp(probs[j] - top)
            probs[j] = e
            z += e
        else:
            probs[j] = 0.0
    for j in range(arity):
        probs[j] /= z
    return present


@njit(cache=True, nogil=True, fastmath=True)
def node_sigmoids(w_out, children, n, hidden, probs):
    """``probs[j] = P(child j | node n, hidden)`` for every slot of internal
    node ``n`` (0 for empty slots, 1 for the child of a one-child node);
    returns the number of children."""
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
            probs[j] = sigmoid(dot(w_out[base + j], hidden))
    return present
