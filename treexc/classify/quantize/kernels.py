"""Numba kernels of product quantisation (``treexc quantize``, as fastText's).

A matrix of ``dim`` columns is cut into sub-vectors of ``dsub`` columns
(the last one shorter when ``dsub`` does not divide ``dim``); each
sub-quantiser has :data:`KSUB` centroids, found by k-means, and a row is
stored as one byte per sub-vector, the index of its nearest centroid.
Centroids are kept as one ``(KSUB, dim)`` float32 array: columns
``m * dsub ... m * dsub + dsub - 1`` are sub-quantiser ``m``'s.  With
``-qnorm`` each row's norm is stored apart (a one-dimensional quantiser of
its own) and the row is quantised divided by it.
"""

import numpy as np
from numba import njit

from ... import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from ...loss.kernels import next_random

KSUB = 256          # centroids per sub-quantiser: one byte per code
KMEANS_ITERATIONS = 25
# fastText samples at most 256 points per centroid to train a sub-quantiser
MAX_POINTS = 256 * KSUB
SPLIT_EPS = np.float32(1.0 / 1024)


@njit(cache=True, nogil=True, fastmath=True)
def nearest(x, centroids_t, sq_norms, dist):
    """The nearest centroid to ``x`` (squared L2 distance, the first on
    ties): ``|c|^2 - 2 x.c`` for all centroids at once, a loop over the
    centroids innermost (``centroids_t`` is (d, KSUB): it vectorises)."""
    dist[:] = sq_norms
    for t in range(len(x)):
        xt = np.float32(-2.0) * x[t]
        row = centroids_t[t]
        for j in range(len(dist)):
            dist[j] += xt * row[j]
    best, best_dist = 0, dist[0]
    for j in range(1, len(dist)):
        if dist[j] < best_dist:
            best, best_dist = j, dist[j]
    return best


@njit(cache=True, nogil=True, fastmath=True)
def transposed(centroids):
    """``(centroids.T, squared norms)`` as :func:`nearest` takes them."""
    k, d = centroids.shape
    centroids_t = np.ascontiguousarray(centroids.T)
    sq_norms = np.zeros(k, dtype=np.float32)
    for j in range(k):
        for t in range(d):
            sq_norms[j] += centroids[j, t] * centroids[j, t]
    return centroids_t, sq_norms


@njit(cache=True, nogil=True, fastmath=True)
def assign(x, centroids, codes):
    """``codes[i]`` = the nearest row of ``centroids`` to ``x[i]``."""
    centroids_t, sq_norms = transposed(centroids)
    dist = np.empty(centroids.shape[0], dtype=np.float32)
    for i in range(x.shape[0]):
        codes[i] = nearest(x[i], centroids_t, sq_norms, dist)


@njit(cache=True, nogil=True, fastmath=True)
def kmeans(x, first, iterations, rng_state):
    """k-means of the rows of ``x`` (n, d), n >= :data:`KSUB`: starting from
    the rows ``first`` (KSUB distinct ones), ``iterations`` rounds of
    assignment then means.  An empty cluster takes half of a cluster drawn
    with probability growing with its size (fastText's rule), both moved
    apart by a small step.  Returns the (KSUB, d) float32 centroids."""
    n, d = x.shape
    centroids = np.empty((KSUB, d), dtype=np.float32)
    for j in range(KSUB):
        centroids[j] = x[first[j]]
    codes = np.empty(n, dtype=np.uint8)
    counts = np.empty(KSUB, dtype=np.int64)
    sums = np.empty((KSUB, d), dtype=np.float64)
    for _ in range(iterations):
        assign(x, centroids, codes)
        sums[:] = 0.0
        counts[:] = 0
        for i in range(n):
            c = codes[i]
            counts[c] += 1
            for t in range(d):
                sums[c, t] += x[i, t]
        for j in range(KSUB):
            if counts[j] > 0:
                for t in range(d):
                    centroids[j, t] = sums[j, t] / counts[j]
        for j in range(KSUB):
            if counts[j] > 0:
                continue
            # n >= KSUB and a cluster is empty: some cluster has 2 or more
            m = 0
            while True:
                u = (next_random(rng_state, 0) >> 11) * (1.0 / 4503599627370496.0)
                if counts[m] >= 2 and u * (n - KSUB) < counts[m] - 1:
                    break
                m = (m + 1) % KSUB
            for t in range(d):
                step = SPLIT_EPS * max(abs(centroids[m, t]), np.float32(1e-6))
                sign = np.float32(1.0) if t % 2 == 1 else np.float32(-1.0)
                centroids[j, t] = centroids[m, t] + sign * step
                centroids[m, t] -= sign * step
            counts[j] = counts[m] // 2
            counts[m] -= counts[j]
    return centroids


@njit(cache=True, nogil=True, fastmath=True)
def encode_rows(w, row_scale, centroids, dsub, codes):
    """``codes[i, m]``: the nearest centroid of sub-quantiser ``m`` to the
    sub-vector ``m`` of ``w[i] * row_scale[i]``."""
    rows, dim = w.shape
    nsubq = codes.shape[1]
    x = np.empty(dsub, dtype=np.float32)
    dist = np.empty(KSUB, dtype=np.float32)
    for m in range(nsubq):
        lo = m * dsub
        hi = min(lo + dsub, dim)
        centroids_t, sq_norms = transposed(centroids[:, lo:hi])
        for i in range(rows):
            for t in range(lo, hi):
                x[t - lo] = w[i, t] * row_scale[i]
            codes[i, m] = nearest(x[:hi - lo], centroids_t, sq_norms, dist)


@njit(cache=True, nogil=True)
def decode_rows(codes, centroids, dsub, norm_codes, norm_centroids, has_norm, ids, out):
    """``out[i]`` = row ``ids[i]`` decoded: its centroids side by side, times
    its decoded norm with ``has_norm``.  Codes are bytes and centroids have
    :data:`KSUB` rows, so no code can read outside them; ``ids`` are
    checked by the caller."""
    dim = centroids.shape[1]
    for i in range(len(ids)):
        r = ids[i]
        scale = norm_centroids[norm_codes[r]] if has_norm else np.float32(1.0)
        for t in range(dim):
            out[i, t] = centroids[codes[r, t // dsub], t] * scale
