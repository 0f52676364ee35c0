"""The starting label tree: balanced spherical k-means over label centroids.

The labels are cut into ``-arity`` balanced clusters, each cluster again,
until a cluster holds at most ``-leafSize`` labels, the last cut into no
more parts than that needs (:func:`cuts`); every level cuts every cluster,
so all labels sit at one depth and a last-level node holds at most
``-leafSize`` labels (PECOS cuts into 16 at every level, leaves of at most
100).  A cut
into ``k`` parts is made of balanced 2-means splits, the sizes in
proportion to the parts each side gets.  The result is a
``trees.tree.Tree`` (breadth-first, padded to the widest node), the
structure the learned tree's AssignLabels rebuilds.
"""

import math

import numpy as np

from ..trees.tree import Tree
from . import kmeans_kernels as kk

SPLIT_ITERATIONS = 20  # 2-means rounds at most per split (PECOS: 20)


def cuts(n_labels, arity, leaf_size):
    """The parts each cluster of a level is cut into, level by level:
    ``arity`` while a cluster would hold more than ``arity * leaf_size``
    labels, then the fewest that bring the largest to at most
    ``leaf_size`` (every cluster of a level is cut alike, so all labels
    end at one depth)."""
    out, largest = [], n_labels
    while largest > leaf_size:
        k = min(arity, math.ceil(largest / leaf_size))
        out.append(k)
        largest = math.ceil(largest / k)
    return out


class _Splitter:
    def __init__(self, centroids, n_cols, seed):
        self.off, self.cols, self.vals = centroids
        self.local = np.full(n_cols + 1, -1, dtype=np.int32)
        self.seed = seed
        self.calls = 0

    def parts(self, items, k):
        """``items`` cut into ``k`` balanced parts (fewer when too few items)."""
        k = min(k, len(items))
        if k <= 1:
            return [items]
        first = k // 2
        n_first = round(len(items) * first / k)
        self.calls += 1
        side = kk.balanced_split(items, n_first, self.off, self.cols, self.vals, self.local,
                                 self.seed * 1000003 + self.calls, SPLIT_ITERATIONS)
        return (self.parts(items[side == 0], first)
                + self.parts(items[side == 1], k - first))


def kmeans_tree(centroids, n_cols, n_labels, arity, leaf_size, seed):
    """The k-means ``Tree`` of ``n_labels`` labels from their PIFA rows
    ``centroids = (off, cols, vals)``."""
    splitter = _Splitter(centroids, n_cols, seed)
    level = [np.arange(n_labels, dtype=np.int64)]
    levels = [level]
    for k in cuts(n_labels, arity, leaf_size):
        level = [part for cluster in level for part in splitter.parts(cluster, k)]
        levels.append(level)
    return tree_of_levels(levels, n_labels)


def tree_of_levels(levels, n_labels):
    """The ``Tree`` whose depth-``d`` nodes are the clusters ``levels[d]``
    (each a part of one cluster of the level above, in order) and whose
    last level's nodes hold their labels."""
    rows = []
    node_base = 0
    for d, level in enumerate(levels):
        if d + 1 < len(levels):
            below = levels[d + 1]
            first_child = node_base + len(level)
            q = 0
            for cluster in level:
                size, count = 0, 0
                while q < len(below) and size < len(cluster):
                    size += len(below[q])
                    q += 1
                    count += 1
                rows.append(n_labels + first_child + np.arange(count))
                first_child += count
        else:
            rows.extend(cluster for cluster in level)
        node_base += len(level)
    width = max(2, max(len(r) for r in rows))
    children = np.full((len(rows), width), -1, dtype=np.int32)
    for n, r in enumerate(rows):
        children[n, :len(r)] = r
    return Tree(children, n_labels)
