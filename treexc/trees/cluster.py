"""The paper's "Clustering Tree": label vectors clustered bottom-up.

Label vectors (for the language model, word vectors from a short training
run) are clustered with k-means into ``M ** (D-1)`` clusters, then the
cluster centroids into ``M ** (D-2)`` groups, and so on; each level is
filled greedily (closest pairs first) with at most ``M`` members per
cluster, so every leaf stays at depth ``D``.
"""

import numpy as np

from ..errors import TreexcError
from .capacity import LM_FLAGS, check_capacity
from .tree import tree_from_children


def kmeans(X, k, rng, iterations=10):
    """Lloyd's k-means with BLAS distances: ``(centroids, assignment)``."""
    n = len(X)
    k = min(k, n)
    C = X[rng.choice(n, size=k, replace=False)].copy()
    assign = np.zeros(n, dtype=np.int64)
    for _ in range(iterations):
        assign = nearest(X, C)
        sums = np.zeros_like(C)
        np.add.at(sums, assign, X)
        sizes = np.bincount(assign, minlength=k)
        empty = sizes == 0
        C[~empty] = sums[~empty] / sizes[~empty, None]
        if empty.any():  # re-seed empty clusters on random points
            C[empty] = X[rng.choice(n, size=int(empty.sum()), replace=False)]
    return C, assign


def nearest(X, C, step=8192):
    out = np.empty(len(X), dtype=np.int64)
    c2 = (C * C).sum(axis=1)
    for i in range(0, len(X), step):
        d = c2[None, :] - 2.0 * (X[i:i + step] @ C.T)
        out[i:i + step] = d.argmin(axis=1)
    return out


def greedy_fill(X, C, capacity, candidates=32):
    """Assign each row of ``X`` to a centroid of ``C``, closest pairs first,
    at most ``capacity`` rows per centroid.  Only each row's ``candidates``
    nearest centroids are paired; rows left over go to the nearest centroid
    that still has room."""
    n, k = len(X), len(C)
    if n > k * capacity:
        raise TreexcError(f"{n} items do not fit {k} clusters of {capacity}")
    c2 = (C * C).sum(axis=1)
    dist = c2[None, :] - 2.0 * (X @ C.T)
    m = min(candidates, k)
    cand = np.argpartition(dist, m - 1, axis=1)[:, :m] if m < k else \
        np.tile(np.arange(k), (n, 1))
    cand_d = np.take_along_axis(dist, cand, axis=1)
    order = np.argsort(cand_d, axis=None, kind="stable")
    rows, cols = np.unravel_index(order, cand.shape)
    assign = np.full(n, -1, dtype=np.int64)
    room = np.full(k, capacity, dtype=np.int64)
    for r, c in zip(rows.tolist(), cand[rows, cols].tolist()):
        if assign[r] < 0 and room[c] > 0:
            assign[r] = c
            room[c] -= 1
    for r in np.flatnonzero(assign < 0):
        choices = np.flatnonzero(room > 0)
        c = choices[np.argmin(dist[r, choices])]
        assign[r] = c
        room[c] -= 1
    return assign


def cluster_tree(vectors, arity, depth, rng, iterations=10, flags=LM_FLAGS):
    """Bottom-up clustering tree over label vectors (rows = label ids), every
    leaf at ``depth``."""
    V = len(vectors)
    check_capacity(V, arity, depth, flags)
    X = np.asarray(vectors, dtype=np.float32)
    X = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)
    # members[level][g] = ids (words at the bottom, groups above) of group g
    items = X
    levels = []
    for level in range(depth - 1, 0, -1):
        k = min(arity ** level, len(items))
        k = max(k, -(-len(items) // arity))
        C, _ = kmeans(items, k, rng, iterations)
        assign = greedy_fill(items, C, arity)
        used = np.unique(assign)
        remap = np.full(k, -1, dtype=np.int64)
        remap[used] = np.arange(len(used))
        assign = remap[assign]
        groups = [[] for _ in range(len(used))]
        for i, g in enumerate(assign.tolist()):
            groups[g].append(i)
        levels.append(groups)
        cent = np.zeros((len(used), X.shape[1]), dtype=np.float32)
        np.add.at(cent, assign, items)
        items = cent / np.maximum(np.linalg.norm(cent, axis=1, keepdims=True), 1e-12)
    # top level: the root holds the remaining groups (or words when depth 1)
    rows = []

    def build(level_index, members):
        """Node over ``members`` of ``levels[level_index]`` (groups), or words
        when ``level_index < 0``; returns its row index."""
        node = len(rows)
        rows.append(None)
        row = np.full(arity, -1, dtype=np.int64)
        for j, m in enumerate(members):
            if level_index < 0:
                row[j] = m
            else:
                row[j] = V + build(level_index - 1, levels[level_index][m])
        rows[node] = row
        return node

    top = len(levels) - 1
    build(top, list(range(len(items))) if levels else list(range(V)))
    return tree_from_children(np.array(rows), V)

