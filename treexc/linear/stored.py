"""A linear model's file: written through ``io/modelfile`` (magic, version,
checksums) and read back with every index checked before a kernel reads it.

Header: ``kind`` ``"linear"``, the saved options, ``input`` (``"text"``:
a dictionary and tf-idf features; ``"sparse"``: given feature columns),
``n_cols``, ``n_trees``.  Arrays: the vocabulary (``pool``, ``entry_off``,
``entry_len``, ``counts``: words then labels, as the embedding model's) or
the label names alone; ``kept`` and ``idf`` (text input); per tree ``t``
``t{t}.children`` (``trees.tree.Tree``) and the node weights
``t{t}.node_off``, ``.cols``, ``.entry_len``, ``.slots``, ``.vals``
(``node_training.NodeWeights``, its ``entry_off`` stored as the column
entries' counts).  The file is format version 5 (``modelfile``'s
``COMPACT_LINEAR_VERSION``), its weights compact: slots and counts one byte
each where the tree's arity allows (``|u1``, else ``<i4``), weights as
float16 (``<f2``) where they fit, each widened on load for the kernels.
The columns, the largest array (one a column entry, most entries holding
one or two weights), are kept as their low 16 bits (``<u2``) and, in
``t{t}.col_high``, per node and value of the high bits the number of its
columns that have it: a node's columns ascend, so those counts give back
the high bits in order.  Files whose columns are whole (``<i4``, no
``col_high``) and files of the earlier layout (``entry_off``, ``<i4``
slots, ``<f4`` weights: no ``"weights": "compact"`` in the header) are
still read.

Reading imports no Numba: the checks that kernels make (the vocabulary's
duplicates, the tree's paths) are given by the caller, so that the first
answers of ``predict`` (``linear/firstlines.py``) read the same file with
the same refusals before the kernels are loaded.
"""

from dataclasses import dataclass

import numpy as np

from ..errors import TreexcError
from ..io import contents, modelfile
from ..options import check_fields, default_threads, option_values
from ..planning import stored_plan
from ..io.textio import to_bytes, to_str
from .options import LinearArgs
from .plan import Plan

MODEL_KIND = "linear"
WEIGHT_ARRAYS = (("node_off", "<i8"), ("cols", "<i4"), ("entry_off", "<i8"),
                 ("slots", "<i4"), ("vals", "<f4"))
COMPACT = "compact"
# the compact layout's arrays and the dtypes each may be stored as
COMPACT_ARRAYS = (("node_off", ("<i8",)), ("cols", ("<u2", "<i4")),
                  ("entry_len", ("|u1", "<i4")), ("slots", ("|u1", "<i4")),
                  ("vals", ("<f2", "<f4")))
LOW_BITS = 16  # the columns' bits kept in ``cols``; ``col_high`` counts the rest


def narrowest(values):
    """``values`` (non-negative integers) as ``uint8`` if they fit, else ``int32``."""
    top = int(values.max()) if len(values) else 0
    return values.astype(np.uint8 if top <= 255 else np.int32)


def compact_weights(weights):
    """The stored arrays of one tree's :class:`NodeWeights`."""
    vals = weights.vals
    with np.errstate(over="ignore"):  # one too large: compared unequal below
        half = vals.astype(np.float16)
    if np.array_equal(half.astype(np.float32), vals):  # rounded by training: exact
        vals = half
    return {"node_off": weights.node_off, **split_columns(weights.node_off, weights.cols),
            "entry_len": narrowest(np.diff(weights.entry_off)),
            "slots": narrowest(weights.slots), "vals": vals}


def split_columns(node_off, cols):
    """``cols`` (ascending within each node) as their low bits and the
    counts of each node's columns per value of the high bits."""
    high = cols.astype(np.int64) >> LOW_BITS
    n_high = int(high.max()) + 1 if len(high) else 1
    node = np.repeat(np.arange(len(node_off) - 1), np.diff(node_off))
    counts = np.bincount(node * n_high + high, minlength=(len(node_off) - 1) * n_high)
    return {"cols": (cols & ((1 << LOW_BITS) - 1)).astype(np.uint16),
            "col_high": counts.astype(np.int32)}


def joined_columns(node_off, low, counts):
    """The columns :func:`split_columns` split, or ``ValueError``."""
    n_nodes = len(node_off) - 1
    if n_nodes < 1 or len(counts) % n_nodes or not len(counts) \
            or (counts < 0).any():
        raise ValueError("col_high does not match the nodes")
    n_high = len(counts) // n_nodes
    if n_high > 1 << (31 - LOW_BITS):  # columns beyond int32
        raise ValueError("col_high does not match the nodes")
    per_node = counts.reshape(n_nodes, n_high)
    if not np.array_equal(per_node.sum(axis=1, dtype=np.int64), np.diff(node_off)):
        raise ValueError("col_high does not match the nodes' columns")
    high = np.repeat(np.tile(np.arange(n_high, dtype=np.int64), n_nodes), counts)
    return ((high << LOW_BITS) | low.astype(np.int64)).astype(np.int32)


def save_linear(model, path):
    arrays = {}
    header = {"kind": MODEL_KIND, "args": option_values(model.args, saved_only=True),
              "input": "text" if model.text_input else "sparse", "n_cols": model.n_cols,
              "n_trees": len(model.trees), "weights": COMPACT}
    plan = getattr(model, "plan", None)
    if plan is not None:  # the family and the defaults, with their rules (linear/plan.py)
        header["plan"] = plan if isinstance(plan, dict) else plan.header()
    if model.text_input:
        d = model.dictionary
        arrays.update(pool=d.pool, entry_off=d.entry_off, entry_len=d.entry_len,
                      counts=d.counts, kept=model.features.kept, idf=model.features.idf)
        header.update(nwords=d.nwords, n_ids=model.features.n_ids,
                      eos_id=model.features.eos_id)
    else:
        pool, off, lens = label_pool(model.get_labels())
        arrays.update(pool=pool, entry_off=off, entry_len=lens,
                      counts=np.zeros(len(off), dtype=np.int64))
        header["nwords"] = 0
    for t, scored in enumerate(model.trees):
        arrays[f"t{t}.children"] = scored.tree.children
        for name, arr in compact_weights(scored.weights).items():
            arrays[f"t{t}.{name}"] = arr
    modelfile.save(path, header, arrays, version=modelfile.COMPACT_LINEAR_VERSION)


@dataclass
class StoredLinear:
    """The checked parts of a linear model file."""

    args: LinearArgs
    n_cols: int
    nwords: int
    vocabulary: tuple   # (pool, entry_off, entry_len, counts)
    table: object       # check_vocabulary's answer
    features: tuple     # (kept, idf, n_ids, eos_id) of text input, else None
    names: list         # the label names of given sparse input, else None
    trees: list         # per tree (check_tree's answer, its WEIGHT_ARRAYS)
    loaded: tuple       # modelfile.load's (header, arrays)
    plan: object        # the saved plan (``linear/plan.Plan``), None in a file without one


def read_linear(path, check_vocabulary, check_tree, loaded=None):
    """The :class:`StoredLinear` of the linear model in ``path``, every part
    checked; a bad file is one ``TreexcError`` naming it.
    ``check_vocabulary(entry_off, entry_len, pool)`` and
    ``check_tree(children, n_labels)`` raise ``ValueError`` or
    ``TreexcError``; their answers are kept.  ``loaded``: ``modelfile.load``'s
    answer when the file has been read already."""
    header, arrays = loaded if loaded is not None else modelfile.load(path)
    if header.get("kind") != MODEL_KIND:
        raise TreexcError(f"{path}: not a linear model")
    try:
        return _model(header, arrays, check_vocabulary, check_tree)
    except (KeyError, TypeError, ValueError) as e:
        what = f"missing '{e.args[0]}'" if isinstance(e, KeyError) else str(e)
        raise TreexcError(f"{path}: corrupt linear model ({what})") from None


def _model(header, arrays, check_vocabulary, check_tree):
    args = contents.options(LinearArgs, header["args"])
    args.thread = default_threads()  # not saved: the machine's
    if "rootMaxIter" not in header["args"]:  # a file of before the root's cap: none
        args.rootMaxIter = args.maxIter
    try:
        check_fields(args)
    except TreexcError as e:
        raise ValueError(f"saved options: {e}") from None
    n_cols, n_trees, nwords = header["n_cols"], header["n_trees"], header["nwords"]
    for name, value in (("n_cols", n_cols), ("n_trees", n_trees), ("nwords", nwords)):
        if type(value) is not int or not 0 <= value < 2 ** 31:
            raise ValueError(f"{name} = {contents.describe(value)}")
    pool = contents.array(arrays, "pool", np.uint8, 1)
    entry_off = contents.array(arrays, "entry_off", np.int64, 1)
    entry_len = contents.array(arrays, "entry_len", np.int32, 1)
    counts = contents.array(arrays, "counts", np.int64, 1)
    contents.check_entries(pool, entry_off, entry_len, counts)
    table = check_vocabulary(entry_off, entry_len, pool)
    n_labels = len(entry_off) - nwords
    if n_labels < 1 or n_trees < 1 or n_cols < 1:
        raise ValueError("no labels, trees or columns")
    features = names = None
    if header["input"] == "text":
        features = _features(header, arrays, n_cols, nwords + args.bucket)
    elif header["input"] == "sparse" and nwords == 0:
        names = names_of_pool(pool, entry_off, entry_len)
    else:
        raise ValueError(f"input {contents.describe(header['input'])}")
    compact = header.get("weights", None)
    if compact not in (None, COMPACT):
        raise ValueError(f"weights {contents.describe(compact)}")
    trees = [_scored_tree(arrays, t, n_labels, n_cols, check_tree, compact == COMPACT)
             for t in range(n_trees)]
    return StoredLinear(args, n_cols, nwords, (pool, entry_off, entry_len, counts), table,
                        features, names, trees, (header, arrays),
                        stored_plan(header.get("plan"), Plan))


def _features(header, arrays, n_cols, encoded_ids):
    kept = contents.array(arrays, "kept", np.int32, 1)
    idf = contents.array(arrays, "idf", np.float32, 1)
    n_ids, eos_id = header["n_ids"], header["eos_id"]
    if n_ids != encoded_ids or type(eos_id) is not int:  # the ids encoding gives
        raise ValueError("n_ids or eos_id")
    if len(kept) != len(idf) or len(kept) + 1 != n_cols:
        raise ValueError("kept and idf do not match the columns")
    if len(kept) and (kept[0] < 0 or kept[-1] >= n_ids or (np.diff(kept) <= 0).any()):
        raise ValueError("kept ids out of range or not ascending")
    contents.check_weights("idf", idf)
    return np.array(kept), np.array(idf), n_ids, eos_id


def _compact_parts(arrays, t):
    """The compact layout's arrays of tree ``t``, widened to ``WEIGHT_ARRAYS``'
    dtypes (the counts summed into offsets)."""
    parts = {}
    for name, dtypes in COMPACT_ARRAYS:
        key = f"t{t}.{name}"
        if key not in arrays:
            raise KeyError(key)
        if arrays[key].dtype.str not in dtypes or arrays[key].ndim != 1:
            raise ValueError(f"array '{key}' is {arrays[key].dtype} of rank "
                             f"{arrays[key].ndim}, expected one of {', '.join(dtypes)}")
        parts[name] = arrays[key]
    if parts["cols"].dtype == np.uint16:  # low bits, the high ones counted
        counts = contents.array(arrays, f"t{t}.col_high", np.int32, 1)
        if len(parts["node_off"]) < 2 or parts["node_off"][0] != 0 \
                or parts["node_off"][-1] != len(parts["cols"]) \
                or (np.diff(parts["node_off"]) < 0).any():
            raise ValueError(f"tree {t}: node_off out of order or range")
        parts["cols"] = joined_columns(parts["node_off"], parts["cols"], counts)
    counts = parts.pop("entry_len")
    entry_off = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, dtype=np.int64, out=entry_off[1:])
    parts["entry_off"] = entry_off
    parts["slots"] = parts["slots"].astype(np.int32)
    parts["vals"] = parts["vals"].astype(np.float32)
    return parts


def _scored_tree(arrays, t, n_labels, n_cols, check_tree, compact):
    children = contents.array(arrays, f"t{t}.children", np.int32, 2)
    contents.check_tree(children, n_labels)
    tree = check_tree(np.array(children), n_labels)
    if compact:
        parts = _compact_parts(arrays, t)
    else:
        parts = {name: contents.array(arrays, f"t{t}.{name}", dtype, 1)
                 for name, dtype in WEIGHT_ARRAYS}
    node_off, cols, entry_off = parts["node_off"], parts["cols"], parts["entry_off"]
    slots, vals = parts["slots"], parts["vals"]
    n_internal, arity = children.shape
    if len(node_off) != n_internal + 1 or len(entry_off) != len(cols) + 1 \
            or len(slots) != len(vals):
        raise ValueError(f"tree {t}: weight arrays of mismatched lengths")
    for name, off, total in (("node_off", node_off, len(cols)),
                             ("entry_off", entry_off, len(slots))):
        if off[0] != 0 or off[-1] != total or (np.diff(off) < 0).any():
            raise ValueError(f"tree {t}: {name} out of order or range")
    if len(cols) and (cols.min() < 0 or cols.max() >= n_cols):
        raise ValueError(f"tree {t}: a weight's column out of range")
    step = np.diff(cols.astype(np.int64))
    starts = node_off[1:-1][(node_off[1:-1] > 0) & (node_off[1:-1] < len(cols))] - 1
    step[starts] = 1  # a node's first column follows another node's last
    if (step <= 0).any():  # the beam's binary search needs them ascending
        raise ValueError(f"tree {t}: a node's columns not ascending")
    if len(slots) and (slots.min() < 0 or slots.max() >= arity):
        raise ValueError(f"tree {t}: a weight's slot out of range")
    contents.check_weights(f"t{t}.vals", vals)
    # the file's views copied (the widened compact arrays are the loader's own)
    return tree, tuple(a if a.flags.owndata else np.array(a)
                       for a in (parts[name] for name, _ in WEIGHT_ARRAYS))


def label_pool(names):
    """``(pool, off, len)`` of label names (a sparse model's labels)."""
    blobs = [to_bytes(name) for name in names]
    lens = np.array([len(b) for b in blobs], dtype=np.int32)
    off = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64)
    return np.frombuffer(b"".join(blobs), dtype=np.uint8).copy(), off, lens


def names_of_pool(pool, off, lens):
    return [to_str(bytes(pool[o:o + n])) for o, n in zip(off.tolist(), lens.tolist())]
