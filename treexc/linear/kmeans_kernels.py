"""Numba kernels of the label tree: label centroids (PIFA) and the balanced
spherical 2-means split the k-means tree is built from.

A label's centroid is the l2-normalised sum of the feature rows of its
lines (Parabel's and PECOS's PIFA embedding).  A split cuts a set of
labels into two parts of given sizes: each label goes to the side whose
normalised centroid it is closer to in cosine, ranked by the difference
of the two, so the sizes hold exactly (PECOS's and Parabel's balanced
k-means).  A split works on a copy of its labels' rows with the columns
renumbered to those they use, so it costs the nonzeros of its labels, not
the columns, and a deep split's sums stay in cache.
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)


@njit(cache=True, nogil=True)
def lines_of_labels(label_off, labels, n_labels):
    """``(off, lines)``: the lines of each label (a CSR, lines ascending)."""
    count = np.zeros(n_labels + 1, dtype=np.int64)
    for k in range(len(labels)):
        count[labels[k] + 1] += 1
    off = np.cumsum(count)
    fill = off[:-1].copy()
    lines = np.empty(len(labels), dtype=np.int64)
    for i in range(len(label_off) - 1):
        for k in range(label_off[i], label_off[i + 1]):
            lab = labels[k]
            lines[fill[lab]] = i
            fill[lab] += 1
    return off, lines


@njit(cache=True, nogil=True)
def label_centroids(indptr, indices, data, label_off, labels, n_labels, n_cols):
    """The PIFA rows ``(off, cols, vals)`` of every label over the feature
    columns ``0..n_cols-1`` (the bias column, ``n_cols``, left out)."""
    line_off, line_of = lines_of_labels(label_off, labels, n_labels)
    acc = np.zeros(n_cols + 1, dtype=np.float64)
    touched = np.empty(n_cols + 1, dtype=np.int32)
    off = np.zeros(n_labels + 1, dtype=np.int64)
    cap = max(16, len(indices))
    cols = np.empty(cap, dtype=np.int32)
    vals = np.empty(cap, dtype=np.float32)
    out = 0
    for lab in range(n_labels):
        m = 0
        for q in range(line_off[lab], line_off[lab + 1]):
            i = line_of[q]
            for k in range(indptr[i], indptr[i + 1]):
                c = indices[k]
                if c >= n_cols:
                    continue
                if acc[c] == 0.0:
                    touched[m] = c
                    m += 1
                acc[c] += data[k]
        norm = 0.0
        for j in range(m):
            norm += acc[touched[j]] * acc[touched[j]]
        scale = 1.0 / np.sqrt(norm) if norm > 0.0 else 0.0
        if out + m > cap:
            cap = 2 * (out + m)
            grown_c = np.empty(cap, dtype=np.int32)
            grown_v = np.empty(cap, dtype=np.float32)
            grown_c[:out] = cols[:out]
            grown_v[:out] = vals[:out]
            cols, vals = grown_c, grown_v
        order = np.sort(touched[:m])
        for j in range(m):
            c = order[j]
            cols[out] = c
            vals[out] = acc[c] * scale
            acc[c] = 0.0
            out += 1
        off[lab + 1] = out
    return off, cols[:out].copy(), vals[:out].copy()


@njit(cache=True, nogil=True)
def _local_rows(items, off, cols, vals, local):
    """The rows of ``items`` copied contiguous, their columns numbered
    ``0..u-1`` in order of first appearance: ``(off, cols, vals, u)``.
    ``local``: the column count's -1s, handed back as they came."""
    n = len(items)
    loff = np.zeros(n + 1, dtype=np.int64)
    for t in range(n):
        loff[t + 1] = loff[t] + off[items[t] + 1] - off[items[t]]
    lcols = np.empty(loff[n], dtype=np.int32)
    lvals = np.empty(loff[n], dtype=np.float32)
    u = 0
    q = 0
    for t in range(n):
        for k in range(off[items[t]], off[items[t] + 1]):
            c = cols[k]
            if local[c] < 0:
                local[c] = u
                u += 1
            lcols[q] = local[c]
            lvals[q] = vals[k]
            q += 1
    for t in range(n):
        for k in range(off[items[t]], off[items[t] + 1]):
            local[cols[k]] = -1
    return loff, lcols, lvals, u


@njit(cache=True, nogil=True)
def balanced_split(items, n_first, off, cols, vals, local, seed, max_iter):
    """Sides (0 or 1, int8) of ``items`` (rows of the PIFA matrix), exactly
    ``n_first`` on side 0, by balanced spherical 2-means from two random
    items.  ``local``: int32 scratch of the column count, all -1, left so.

    The items' rows are copied first with their columns renumbered to the
    ones they use, so that a deep split's centroids fit the cache; the two
    sides' sums sit side by side (column ``c`` of side ``s`` at
    ``2 * c + s``), one cache line for both in the scores."""
    n = len(items)
    side = np.ones(n, dtype=np.int8)
    if n_first >= n or n_first <= 0:
        side[:] = 0 if n_first >= n else 1
        return side
    state = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)
    state ^= state >> np.uint64(31)
    a = np.int64(state % np.uint64(n))
    state = state * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
    b = np.int64((state >> np.uint64(17)) % np.uint64(n - 1))
    if b >= a:
        b += 1
    side[:] = 2  # neither: only the two seeds count in the first centroids
    side[a] = 0
    side[b] = 1
    loff, lcols, lvals, u = _local_rows(items, off, cols, vals, local)
    acc = np.zeros(2 * u, dtype=np.float64)
    seen = np.zeros(2 * u, dtype=np.int32)  # the pass a side's column was last squared in
    score = np.empty(n, dtype=np.float64)
    for it in range(max_iter):
        for t in range(n):  # each side's sums, in item order
            s = side[t]
            if s == 2:
                continue
            for q in range(loff[t], loff[t + 1]):
                acc[2 * lcols[q] + s] += lvals[q]
        norm1 = 0.0
        norm2 = 0.0
        for t in range(n):  # each column's square once a side, in order of first appearance
            s = side[t]
            if s == 2:
                continue
            for q in range(loff[t], loff[t + 1]):
                j = 2 * lcols[q] + s
                if seen[j] != it + 1:
                    seen[j] = it + 1
                    if s == 0:
                        norm1 += acc[j] * acc[j]
                    else:
                        norm2 += acc[j] * acc[j]
        norm1 = np.sqrt(norm1)
        norm2 = np.sqrt(norm2)
        inv1 = 1.0 / norm1 if norm1 > 0.0 else 0.0
        inv2 = 1.0 / norm2 if norm2 > 0.0 else 0.0
        for t in range(n):
            s = 0.0
            for q in range(loff[t], loff[t + 1]):
                j = 2 * lcols[q]
                s += lvals[q] * (acc[j] * inv1 - acc[j + 1] * inv2)
            score[t] = s
        acc[:] = 0.0
        order = np.argsort(-score, kind="mergesort")  # ties: item order
        changed = it == 0
        for q in range(n):
            new = 0 if q < n_first else 1
            t = order[q]
            if side[t] != new:
                changed = True
                side[t] = new
        if not changed:
            break
    return side
