"""What a tree shape holds: the one check that refuses a shape too small
for its labels (or too large for the tree code's int64 counts), and the
node counts the memory estimates use.

Both commands limit depth: ``treexc supervised -maxDepth D`` (a limit:
leaves at depth <= D) and ``treexc lm -depth D`` (every leaf at depth D).
Either way a node at depth ``d`` holds at most ``arity ** (D - d)``
leaves.  Error messages name the flags the user typed (:class:`ShapeFlags`).
"""

import math
from dataclasses import dataclass

from ..errors import TreexcError

MAX_LEAVES_LOG2 = 62  # the tree code counts leaves in int64


@dataclass(frozen=True)
class ShapeFlags:
    """How a command spells a tree's shape, for error messages."""
    depth: str   # the depth option
    items: str   # what the leaves are
    count: str   # how many there are
    fit: str     # how to let treexc fit the shape


LM_FLAGS = ShapeFlags("-depth", "words of the vocabulary", "the vocabulary's size",
                      "-arity 0 to fit")
CLASSIFIER_FLAGS = ShapeFlags("-maxDepth", "labels", "the number of labels",
                              "-maxDepth -1 to fit")


def check_capacity(n_labels, arity, depth, flags=LM_FLAGS):
    """Refuse ``arity ** depth`` leaves (``depth`` 0: no limit, nothing to
    check) when they overflow the tree code's int64 counts (``-depth 64``
    at arity 2 overflowed inside AssignLabels) or are fewer than
    ``n_labels``.  ``arity`` 0 means "fitted later" (the LM's ``-arity
    0``, at least 2).  Logarithms first, so that a huge depth costs
    nothing to refuse."""
    if depth <= 0:
        return
    if depth * math.log2(max(arity, 2)) >= MAX_LEAVES_LOG2:
        if arity:
            raise TreexcError(
                f"-arity {arity} {flags.depth} {depth}: the tree holds more than 2^62 "
                f"leaves; lower -arity or {flags.depth} (arity^depth need only reach "
                f"{flags.count})")
        raise TreexcError(
            f"{flags.depth} {depth}: a tree of arity at least 2 and this depth holds "
            f"more than 2^62 leaves; use {flags.depth} 61 or less (a few levels are "
            "enough: the default is 3)")
    if arity and arity ** depth < n_labels:
        raise TreexcError(f"-arity {arity} {flags.depth} {depth} holds {arity ** depth} "
                          f"leaves, fewer than the {n_labels} {flags.items} (raise -arity "
                          f"or {flags.depth}, or {flags.fit})")


def min_internal_nodes(n_labels, arity):
    """The fewest internal nodes an ``arity``-ary tree over ``n_labels``
    leaves can have (each holds at most ``arity`` children)."""
    if n_labels <= 1:
        return 1
    return max(1, -(-(n_labels - 1) // (arity - 1)))


def balanced_internal_nodes(n_labels, arity, depth):
    """Internal nodes of a tree with every leaf at ``depth``, packed full
    (``builders.random_tree``): ``sum over levels of
    ceil(n / M^l)``, at least one per level."""
    return sum(-(-max(n_labels, 1) // arity ** level) for level in range(1, depth + 1))


def fit_arity(vocab_size, depth):
    """Smallest arity M >= 2 with M ** depth >= vocab_size."""
    m = max(2, int(math.ceil(vocab_size ** (1.0 / depth))) - 1)
    while m ** depth < vocab_size:
        m += 1
    return m


def fit_depth(n_labels, arity):
    """The least depth whose complete ``arity``-ary tree holds every label.
    On gutenberg_books and wn_hypernym (docs/trees.md) this tight limit
    trained better learned trees than no limit, whose greedy grew deep,
    lopsided trees."""
    depth = 1
    while arity ** depth < n_labels:
        depth += 1
    return depth


def rebuild_memory_parts(threads, positions, n_labels, arity, flags):
    """A learned tree's (``trees.learner``, ``trees.assign_kernels``): the
    statistics, one float32 per child slot and a count per path position,
    per thread and the rebuild's carried copy; and AssignLabels' scores at
    a node, a float64 per (label, child slot)."""
    return [("tree statistics", (threads + 1) * positions * (arity + 1) * 4, flags),
            ("tree rebuild scores", n_labels * arity * 8, "-arity")]
