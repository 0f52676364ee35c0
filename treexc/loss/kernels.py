"""Small numba building blocks shared by the training and prediction kernels:
float32 vector arithmetic and the child distribution of a tree node."""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)


@njit(cache=True, nogil=True, fastmath=True, inline="always")
def dot(a, b):
    s = np.float32(0.0)
    for i in range(len(a)):
        s += a[i] * b[i]
    return s


@njit(cache=True, nogil=True, fastmath=True, inline="always")
def axpy(alpha, x, y):
    """y += alpha * x"""
    for i in range(len(x)):
        y[i] += alpha * x[i]


@njit(cache=True, nogil=True, inline="always")
def searchsorted(values, x, right):
    """``np.searchsorted(values, x, side="right" if right else "left")``,
    written out: Numba's own puts numba.np.arraymath in the cached kernel's
    environment, and loading the kernel then imports it, numba.np.linalg
    and scipy.linalg (137 modules, 0.2 s; 16 MiB of a gutenberg_books
    training run's peak: docs/benchmarks.md, "Out of core")."""
    lo, hi = 0, len(values)
    while lo < hi:
        mid = (lo + hi) >> 1
        if values[mid] < x or (right and values[mid] == x):
            lo = mid + 1
        else:
            hi = mid
    return lo


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


@njit(cache=True, nogil=True, fastmath=True)
def node_probabilities(w_out, children, n, hidden, probs):
    """Child distribution of internal node ``n`` into ``probs`` (0 for empty
    slots); returns the number of children.  Binary nodes with both children
    use fastText's sigmoid; a one-child node (a chain link of a depth-limited
    tree) costs nothing."""
    arity = children.shape[1]
    base = n * arity
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
