"""The checks ``trees.path_kernels.compute_paths`` makes of a tree, with
numpy alone (the first answers of ``predict`` load a model file before
Numba is imported), and the messages of both."""

import numpy as np

from ..errors import TreexcError

TREE_ERRORS = {
    1: "node {} has a child id out of range",
    2: "label {} appears twice",
    3: "node {} is not in breadth-first order",
    4: "label {} has no leaf",
    5: "node {} is unreachable",
}


def check_paths(children, n_labels):
    """The checks of ``compute_paths`` that ``io.contents.check_tree``
    leaves to it: each label in exactly one leaf, every node reachable
    (first failure in the kernel's scan order).  Returns ``children``.
    Counts, not ``np.unique``: that one imports ``numpy.ma`` (17 ms of a
    first answer)."""
    flat = children.reshape(-1).astype(np.int64)
    leaves = flat[(flat >= 0) & (flat < n_labels)]
    seen = np.bincount(leaves, minlength=n_labels)
    if (seen > 1).any():
        first = np.full(n_labels, len(leaves))
        np.minimum.at(first, leaves, np.arange(len(leaves)))
        again = np.flatnonzero(first[leaves] != np.arange(len(leaves)))[0]
        raise TreexcError("corrupt tree: " + TREE_ERRORS[2].format(leaves[again]))
    if len(leaves) != n_labels:
        missing = np.flatnonzero(seen == 0)[0]
        raise TreexcError("corrupt tree: " + TREE_ERRORS[4].format(missing))
    reached = np.bincount(flat[flat >= n_labels] - n_labels, minlength=len(children))
    if np.count_nonzero(reached) != len(children) - 1:
        missing = np.flatnonzero(reached[1:] == 0)[0] + 1
        raise TreexcError("corrupt tree: " + TREE_ERRORS[5].format(missing))
    return children
