"""Numba helpers over plain arrays that every kernel layer uses: float32
vector arithmetic (``dot``, ``axpy``), a binary search and array growth.
They sit below ``text/``, ``trees/`` and ``loss/`` so that none of those
imports another for them."""

import numpy as np
from numba import njit

from . import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)


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
def all_finite(v):
    """Are all of float32 ``v``'s values finite?  A test of the exponent bits:
    under ``fastmath`` the compiler assumes floats are finite and folds
    ``np.isfinite`` to True (measured: it never fires in these kernels)."""
    bits = v.view(np.uint32)
    for i in range(len(bits)):
        if bits[i] & np.uint32(0x7F800000) == np.uint32(0x7F800000):
            return False
    return True


@njit(cache=True, nogil=True, inline="always")
def searchsorted(values, x, right):
    """``np.searchsorted(values, x, side="right" if right else "left")``,
    written out: Numba's own puts numba.np.arraymath in the cached kernel's
    environment, and loading the kernel then imports it, numba.np.linalg
    and scipy.linalg (137 modules, 0.2 s; 16 MiB of a gutenberg_books
    training run's peak: docs/results/classify.md, "Corpora larger than memory: the
    token cache")."""
    lo, hi = 0, len(values)
    while lo < hi:
        mid = (lo + hi) >> 1
        if values[mid] < x or (right and values[mid] == x):
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, nogil=True)
def grown(arr, size):
    """``arr`` copied into a new zeroed array of ``size`` items (at least
    ``len(arr)``): the kernels' appendable buffers, doubled when full."""
    out = np.zeros(size, dtype=arr.dtype)
    out[:len(arr)] = arr
    return out
