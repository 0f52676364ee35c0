"""Numba kernels of the label tree: label centroids (PIFA) and the balanced
spherical 2-means split the k-means tree is built from.

A label's centroid is the l2-normalised sum of the feature rows of its
lines (Parabel's and PECOS's PIFA embedding).  A split cuts a set of
labels into two parts of given sizes: each label goes to the side whose
normalised centroid it is closer to in cosine, ranked by the difference
of the two, so the sizes hold exactly (PECOS's and Parabel's balanced
k-means).  Dense scratch columns are passed in zeroed and handed back
zeroed, so a split costs the nonzeros of its labels, not the columns.
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
def _centroid(items, side, which, off, cols, vals, acc, seen):
    """``acc`` = the sum of the rows of ``items`` on side ``which``; its
    norm.  ``seen``: zeroed flags of the columns, left zeroed."""
    for t in range(len(items)):
        if side[t] != which:
            continue
        r = items[t]
        for k in range(off[r], off[r + 1]):
            acc[cols[k]] += vals[k]
    norm = 0.0
    for t in range(len(items)):
        if side[t] != which:
            continue
        r = items[t]
        for k in range(off[r], off[r + 1]):
            c = cols[k]
            if not seen[c]:  # each column's square once
                seen[c] = 1
                norm += acc[c] * acc[c]
    for t in range(len(items)):  # only this side's columns were flagged
        if side[t] != which:
            continue
        r = items[t]
        for k in range(off[r], off[r + 1]):
            seen[cols[k]] = 0
    return np.sqrt(norm)


@njit(cache=True, nogil=True)
def balanced_split(items, n_first, off, cols, vals, acc1, acc2, seen, seed, max_iter):
    """Sides (0 or 1, int8) of ``items`` (rows of the PIFA matrix), exactly
    ``n_first`` on side 0, by balanced spherical 2-means from two random
    items.  ``acc1``/``acc2`` (float64) and ``seen`` (uint8): zeroed
    scratch of the column count, left zeroed."""
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
    score = np.empty(n, dtype=np.float64)
    for it in range(max_iter):
        norm1 = _centroid(items, side, 0, off, cols, vals, acc1, seen)
        norm2 = _centroid(items, side, 1, off, cols, vals, acc2, seen)
        inv1 = 1.0 / norm1 if norm1 > 0.0 else 0.0
        inv2 = 1.0 / norm2 if norm2 > 0.0 else 0.0
        for t in range(n):
            r = items[t]
            s = 0.0
            for k in range(off[r], off[r + 1]):
                s += vals[k] * (acc1[cols[k]] * inv1 - acc2[cols[k]] * inv2)
            score[t] = s
        for t in range(n):  # clear the scratch
            r = items[t]
            for k in range(off[r], off[r + 1]):
                acc1[cols[k]] = 0.0
                acc2[cols[k]] = 0.0
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
