"""Checks of a model file's contents that both model kinds need: arrays of
the right dtype and rank, vocabulary entries inside the pool, a tree of
sane size, finite weights, saved options of the right types.  Each raises
``ValueError`` (what is wrong); the loaders turn it into a ``TreexcError``
naming the file.  The check that needs a hash table (no vocabulary entry
twice) is ``text.dictionary.check_duplicates``.  No Numba here:
``classify/firstlines.py`` loads a model before Numba is imported.
"""

import dataclasses
import math

import numpy as np

# Trained weights stay far below this; beyond it a dot product of two rows
# could overflow float32 (dim <= 100,000), and NaN or infinite weights (a
# diverged run, a corrupt file) would end in division by zero at prediction.
MAX_WEIGHT = 1e8
# weights are checked a block at a time: no copy of a large mapped matrix
_BLOCK = 4 << 20  # floats


def array(arrays, name, dtype, ndim):
    """``arrays[name]``, refused unless of exactly this dtype and rank."""
    if name not in arrays:
        raise KeyError(name)
    a = arrays[name]
    if a.dtype != np.dtype(dtype) or a.ndim != ndim:
        raise ValueError(f"array '{name}' is {a.dtype} of rank {a.ndim}, "
                         f"expected {np.dtype(dtype)} of rank {ndim}")
    return a


def check_entries(pool, entry_off, entry_len, counts):
    """Vocabulary entries must lie inside the pool (the kernels do not check
    bounds).  ``entry_off <= len(pool) - entry_len`` cannot overflow once
    ``0 <= entry_len <= len(pool)``, where ``entry_off + entry_len`` could."""
    n = len(entry_off)
    if len(entry_len) != n or len(counts) != n:
        raise ValueError("vocabulary arrays of different lengths")
    if n >= 2 ** 31 - 1:
        raise ValueError("too many vocabulary entries")
    if n and ((entry_len < 0).any() or (entry_len > len(pool)).any()
              or (entry_off < 0).any()
              or (entry_off > len(pool) - entry_len.astype(np.int64)).any()):
        raise ValueError("vocabulary entries outside the byte pool")


# A label's path is about log(labels) nodes long in any tree treexc builds
# (Huffman trees over int64 counts stay below ~90); a tree whose paths add up
# to more is refused before its paths are allocated.
MAX_MEAN_DEPTH = 128


def check_tree(children, n_labels):
    """Refuse a tree whose root-to-leaf paths would need memory out of
    proportion to the file, before ``tree.compute_paths`` allocates them.
    Only the links it needs are checked here; the kernel checks the rest."""
    n_internal, arity = children.shape
    if n_internal < 1 or arity < 2 or n_internal * arity >= 2 ** 31:
        raise ValueError(f"tree of shape {children.shape}")
    c = children.astype(np.int64)
    if ((c < -1) | (c >= n_labels + n_internal)).any():
        raise ValueError("tree: a child id out of range")
    node_of = np.repeat(np.arange(n_internal, dtype=np.int64), arity).reshape(c.shape)
    inner = c >= n_labels
    child, parent_of_child = c[inner] - n_labels, node_of[inner]
    ordered = np.sort(child)  # duplicates side by side (np.unique would import numpy.ma)
    if (child <= parent_of_child).any() or (ordered[1:] == ordered[:-1]).any():
        raise ValueError("tree: nodes not in breadth-first order")
    # depths by pointer doubling: log2(nodes) vectorised steps
    parent = np.arange(n_internal, dtype=np.int64)
    parent[child] = parent_of_child
    depth = (parent != np.arange(n_internal)).astype(np.int64)
    for _ in range(int(n_internal).bit_length()):
        depth = depth + depth[parent]  # the root has depth 0 and is its own parent
        parent = parent[parent]
    leaf = (c >= 0) & ~inner
    total = int((depth[node_of[leaf]] + 1).sum())
    if total > MAX_MEAN_DEPTH * max(n_labels, 1) + 2 ** 20:
        raise ValueError(f"tree: paths too long ({total} nodes for {n_labels} labels)")


def check_weights(name, w):
    """Weights must be finite and below :data:`MAX_WEIGHT` in magnitude
    (checked in blocks: no copy of a large mapped matrix)."""
    flat = w.reshape(-1)
    for start in range(0, len(flat), _BLOCK):
        block = flat[start:start + _BLOCK]
        # max/min propagate NaN, and a NaN fails both comparisons
        if not (block.max() <= MAX_WEIGHT and block.min() >= -MAX_WEIGHT):
            raise ValueError(f"weights '{name}' are NaN, infinite or above "
                             f"{MAX_WEIGHT:g} (a diverged training run?)")


def options(cls, saved, wide=("seed",)):
    """An options dataclass ``cls`` from a header's saved options, each of
    the field's own type (``ValueError`` naming the first that is not):
    ints fit int32 (``wide`` ones int64), floats are finite, no bool passes
    for a number.  Unknown names are ignored (options of other versions)."""
    if not isinstance(saved, dict):
        raise TypeError("options are not a mapping")
    values = {}
    for field in dataclasses.fields(cls):
        if field.name not in saved:
            continue
        value = saved[field.name]
        kind = field.type if isinstance(field.type, str) else field.type.__name__
        limit = 2 ** 63 if field.name in wide else 2 ** 31
        ok = {"int": type(value) is int and -limit <= value < limit,
              "float": type(value) in (int, float) and abs(value) < 2 ** 63
              and math.isfinite(value),
              "str": type(value) is str,
              "bool": type(value) is bool}.get(kind, False)
        if not ok:
            raise ValueError(f"option {field.name} = {describe(value)} is not a valid {kind}")
        values[field.name] = value
    return cls(**values)


def describe(value):
    """A header value for a message: short, and never a deep ``repr``."""
    if isinstance(value, (list, dict)):
        return f"a JSON {'list' if isinstance(value, list) else 'object'}"
    return repr(value)[:40]
