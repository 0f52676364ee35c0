"""A small linear model file read with Python alone (no numpy): the
parts ``linear/pure.py`` answers with, checked as ``stored.read_linear``
and ``io/modelfile.load`` check them.

Why: ``treexc test`` and ``predict`` of a small linear model on a small
input spend most of their CPU importing numpy (0.10 s of CPU on the
development machine) and click, not answering (docs/results/startup.md,
"Small inputs without numpy or click").  This module reads the file with
``struct``, ``array`` and ``zlib``.

It reads only what it can answer to the bit: a model of text input in the
compact layout (format version 5 or 6, ``"weights": "compact"``), one
tree, at most :data:`MODEL_BYTES` bytes.  Anything else, and any file
that fails a check, gives ``None``: the caller then runs the full command,
which reads the same file and says what is wrong with it in its own words
(so this module needs no messages).  The checks are those of the full
reader, so that no file the full command refuses is answered here:
every checksum, the array directory, the saved options' types and ranges
(:data:`OPTION_RULES`, ``linear.options.LinearArgs``' declarations; a
test compares the two), the saved plan's fields, the vocabulary's bounds
and duplicates, the features, the tree's links and paths, the weights'
layout, ranges and magnitudes.
"""

import json
import math
import os
import struct
import sys
import zlib
from array import array
from itertools import accumulate, islice, repeat
from operator import add, lt

MAGIC = b"TREEXC\x00M"
END_MAGIC = b"TREEXEND"
VERSIONS = (5, 6)  # modelfile: the compact linear layouts
_PREAMBLE = struct.Struct("<8sIIQ")
_ALIGN = 64
# the largest model file read here: the vocabulary's table and the weights
# are Python objects (a 4 MB file: about 10 ms of CPU to read)
MODEL_BYTES = 4 << 20
MAX_WEIGHT = 1e8  # io/contents.MAX_WEIGHT
MAX_MEAN_DEPTH = 128  # io/contents.MAX_MEAN_DEPTH
# array dtypes -> (array typecode, item size); '<f2' is read by struct
_TYPECODES = {"<f4": "f", "<f8": "d", "<i4": "i", "<i8": "q", "|u1": "B", "|i1": "b",
              "<u2": "H", "<f2": None}
_ITEMSIZE = {"<f4": 4, "<f8": 8, "<i4": 4, "<i8": 8, "|u1": 1, "|i1": 1, "<u2": 2, "<f2": 2}
# LinearArgs' fields as contents.options and options.check_fields check them:
# name -> (type, choices, above, at least, at most); "thread" is set on load
OPTION_RULES = {
    "input": ("str", (), None, None, None), "output": ("str", (), None, None, None),
    "wordNgrams": ("int", (), None, 1, None), "minCount": ("int", (), None, 0, None),
    "minCountLabel": ("int", (), None, 0, None), "minDf": ("int", (), None, 1, None),
    "bucket": ("int", (), None, 0, None), "label": ("str", (), None, None, None),
    "verbose": ("int", (), None, None, None), "cache": ("str", (), None, None, None),
    "seed": ("int", (), None, 0, None), "arity": ("int", (), None, 2, 100000),
    "leafSize": ("int", (), None, 2, 100000),
    "tree": ("str", ("kmeans", "learned"), None, None, None),
    "treeUpdates": ("int", (), None, 0, None),
    "solver": ("str", ("svm", "lr"), None, None, None),
    "C": ("float", (), 0.0, None, None), "maxIter": ("int", (), None, 1, None),
    "eps": ("float", (), 0.0, None, None), "prune": ("float", (), None, 0.0, None),
    "beam": ("int", (), None, 1, None),
    "scorer": ("str", ("l3hinge", "sigmoid"), None, None, None),
    "ensemble": ("int", (), None, 1, 64), "labelWeights": ("str", (), None, None, None),
    "weightBalanced": ("bool", (), None, None, None),
}
OPTION_DEFAULTS = {"wordNgrams": 2, "bucket": 2000000, "label": "__label__", "beam": 10,
                   "scorer": "l3hinge"}
PLAN_FIELDS = ("model", "tree", "arity", "leaf_size", "solver", "C", "prune", "beam",
               "ensemble")  # linear.plan.Plan's fields, as planning.stored_plan checks


class Refused(Exception):
    """Not answered here: the full command reads the file."""


class PureModel:
    """The parts of a checked linear model that answer lines."""

    def __init__(self, args, nwords, keys, ids, kept, idf, children, weights):
        self.label_prefix = args["label"].encode("utf-8", "surrogateescape")
        self.word_ngrams, self.bucket = args["wordNgrams"], args["bucket"]
        self.beam, self.sigmoid = args["beam"], args["scorer"] == "sigmoid"
        self.nwords, self.keys, self.ids = nwords, keys, ids
        self.labels = keys[nwords:]
        self.n_labels = len(self.labels)
        eos = ids.get(b"</s>", -1)
        self.eos_id = eos if eos < nwords else -1
        self.column = dict(zip(kept, range(len(kept))))  # feature id -> column
        self.bias_column = len(kept)
        self.idf = idf
        self.children = children  # per node, its children (a list of ints)
        self.weights = weights    # (node_off, cols, entry_off, slots, vals) as lists


def load(path):
    """The :class:`PureModel` of ``path``, or ``None`` (the full command's)."""
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > MODEL_BYTES:
            return None  # (not opened: a FIFO would wait for a writer)
        with open(path, "rb") as f:
            buffer = f.read(MODEL_BYTES + 1)
        return _model(*_layout(buffer))
    except (OSError, Refused, ValueError, TypeError, KeyError, IndexError, OverflowError,
            RecursionError, UnicodeError, struct.error):
        return None


def linear_text_header(path):
    """The header of ``path`` (its array directory included) if it is a
    treexc linear model of text input, by its checked preamble and header
    alone (read without the arrays), else ``None``."""
    try:
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as f:
            preamble = f.read(_PREAMBLE.size)
            if len(preamble) < _PREAMBLE.size:
                return None
            magic, version, header_crc, header_length = _PREAMBLE.unpack(preamble)
            if magic != MAGIC or version not in VERSIONS or header_length > MODEL_BYTES:
                return None
            raw = f.read(header_length)
        if zlib.crc32(raw) != header_crc:
            return None
        header = json.loads(raw.decode("utf-8"))
        if isinstance(header, dict) and header.get("kind") == "linear" \
                and header.get("input") == "text":
            return header
    except (OSError, ValueError, RecursionError, UnicodeError, struct.error):
        pass
    return None


def root_children(header):
    """How many children the root of a one-node, one-tree model has (its
    header's array directory says), else ``None``."""
    try:
        shape = [a["shape"] for a in header["arrays"] if a["name"] == "t0.children"]
        if header["n_trees"] == 1 and len(shape) == 1 and shape[0][0] == 1:
            return int(shape[0][1])
    except (KeyError, TypeError, IndexError, ValueError):
        pass
    return None


def _layout(buffer):
    """``(header, arrays)`` of a file's bytes, every checksum verified."""
    if len(buffer) > MODEL_BYTES or len(buffer) < _PREAMBLE.size:
        raise Refused
    magic, version, header_crc, header_length = _PREAMBLE.unpack_from(buffer)
    if magic != MAGIC or version not in VERSIONS \
            or _PREAMBLE.size + header_length > len(buffer):
        raise Refused
    raw = buffer[_PREAMBLE.size:_PREAMBLE.size + header_length]
    if zlib.crc32(raw) != header_crc:
        raise Refused
    header = json.loads(raw.decode("utf-8"))
    if not isinstance(header, dict) or not isinstance(header.get("arrays"), list):
        raise Refused
    data_start = _PREAMBLE.size + header_length
    view, arrays, end = memoryview(buffer), {}, data_start
    for a in header.pop("arrays"):
        if not isinstance(a, dict) or not isinstance(a["name"], str) or "zlib" in a \
                or a["name"] in arrays:
            raise Refused
        dtype, shape, offset, crc = a["dtype"], a["shape"], a["offset"], a["crc32"]
        if not isinstance(dtype, str) or dtype not in _ITEMSIZE \
                or not isinstance(shape, list) or len(shape) > 4 \
                or not all(type(n) is int and n >= 0 for n in shape) \
                or type(offset) is not int or offset < data_start \
                or not (type(crc) is int and 0 <= crc < 2 ** 32):
            raise Refused
        nbytes = _ITEMSIZE[dtype] * math.prod(shape)
        if offset + nbytes > len(buffer) or zlib.crc32(view[offset:offset + nbytes]) != crc:
            raise Refused
        end = max(end, offset + nbytes)
        arrays[a["name"]] = (dtype, shape, view[offset:offset + nbytes])
    end = (end + _ALIGN - 1) // _ALIGN * _ALIGN
    if len(buffer) < end + len(END_MAGIC) or buffer[end:end + len(END_MAGIC)] != END_MAGIC:
        raise Refused
    return header, arrays


def _values(arrays, name, dtypes, rank=1):
    """The values of ``arrays[name]`` (a list; an ``array`` for floats),
    refused unless one of ``dtypes`` and of rank ``rank``."""
    dtype, shape, raw = arrays[name]
    if dtype not in dtypes or len(shape) != rank:
        raise Refused
    if dtype == "<f2":
        return struct.unpack(f"<{len(raw) // 2}e", raw)
    out = array(_TYPECODES[dtype])
    out.frombytes(raw)
    if sys.byteorder != "little" and out.itemsize > 1:
        out.byteswap()
    return out if dtype in ("<f4", "<f8") else out.tolist()


def _options(saved):
    """The saved options used here, every saved one checked as the full
    reader checks them (``contents.options``, ``options.check_fields``)."""
    if not isinstance(saved, dict):
        raise Refused
    for name, (kind, choices, above, at_least, at_most) in OPTION_RULES.items():
        if name not in saved:
            continue
        value = saved[name]
        limit = 2 ** 63 if name == "seed" else 2 ** 31
        ok = {"int": type(value) is int and -limit <= value < limit,
              "float": type(value) in (int, float) and abs(value) < 2 ** 63
              and math.isfinite(value),
              "str": type(value) is str, "bool": type(value) is bool}[kind]
        if not ok or (choices and value not in choices) \
                or (above is not None and not value > above) \
                or (at_least is not None and not value >= at_least) \
                or (at_most is not None and not value <= at_most):
            raise Refused
    return {name: saved.get(name, default) for name, default in OPTION_DEFAULTS.items()}


def _model(header, arrays):
    if header.get("kind") != "linear" or header.get("input") != "text" \
            or header.get("weights") != "compact":
        raise Refused
    args = _options(header["args"])
    n_cols, n_trees, nwords = header["n_cols"], header["n_trees"], header["nwords"]
    if not all(type(v) is int and 0 <= v < 2 ** 31 for v in (n_cols, n_trees, nwords)) \
            or n_trees != 1 or n_cols < 1:
        raise Refused
    plan = header.get("plan")
    if plan is not None and (not isinstance(plan, dict) or tuple(plan) != PLAN_FIELDS
                             or not all(isinstance(v, list) and len(v) == 3
                                        and isinstance(v[0], (int, float, str))
                                        and isinstance(v[1], str) and isinstance(v[2], str)
                                        for v in plan.values())):
        raise Refused
    keys, ids = _vocabulary(arrays)
    n_labels = len(keys) - nwords
    if n_labels < 1:
        raise Refused
    kept = _values(arrays, "kept", ("<i4",))
    idf = _values(arrays, "idf", ("<f4",))
    if header["n_ids"] != nwords + args["bucket"] or type(header["eos_id"]) is not int \
            or len(kept) != len(idf) or len(kept) + 1 != n_cols:
        raise Refused
    if kept and (kept[0] < 0 or kept[-1] >= header["n_ids"] or not ascending(kept)):
        raise Refused
    _check_weights(idf)
    children = _tree(arrays, n_labels)
    weights = _weights(arrays, len(children), len(children[0]), n_cols)
    return PureModel(args, nwords, keys, ids, kept, idf.tolist(), children, weights)


def _vocabulary(arrays):
    pool = arrays["pool"][2].tobytes() if arrays["pool"][0] == "|u1" else None
    if pool is None or len(arrays["pool"][1]) != 1:
        raise Refused
    entry_off = _values(arrays, "entry_off", ("<i8",))
    entry_len = _values(arrays, "entry_len", ("<i4",))
    counts = _values(arrays, "counts", ("<i8",))
    n = len(entry_off)
    if len(entry_len) != n or len(counts) != n or n >= 2 ** 31 - 1:
        raise Refused
    if n and (min(entry_len) < 0 or max(entry_len) > len(pool) or min(entry_off) < 0
              or max(map(add, entry_off, entry_len)) > len(pool)):
        raise Refused
    keys = list(map(pool.__getitem__, map(slice, entry_off, map(add, entry_off, entry_len))))
    ids = dict(zip(keys, range(n)))
    if len(ids) != n:  # an entry twice
        raise Refused
    return keys, ids


def _tree(arrays, n_labels):
    """The checked tree (``contents.check_tree``, ``tree_checks.check_paths``):
    per node its children."""
    dtype, shape, _ = arrays["t0.children"]
    flat = _values(arrays, "t0.children", ("<i4",), rank=2)
    n_internal, arity = shape
    if n_internal < 1 or arity < 2 or n_internal * arity >= 2 ** 31:
        raise Refused
    if min(flat) < -1 or max(flat) >= n_labels + n_internal:
        raise Refused
    children = [flat[i * arity:(i + 1) * arity] for i in range(n_internal)]
    parent, seen = [0] * n_internal, [0] * n_internal
    labels = [0] * n_labels
    for node, row in enumerate(children):
        for c in row:
            if c >= n_labels:
                if c - n_labels <= node or seen[c - n_labels]:  # breadth-first, once
                    raise Refused
                seen[c - n_labels] = 1
                parent[c - n_labels] = node
            elif c >= 0:
                labels[c] += 1
    if any(count != 1 for count in labels) or sum(seen) != n_internal - 1:
        raise Refused
    depth = [0] * n_internal
    for node in range(1, n_internal):  # parents come first (breadth-first)
        depth[node] = depth[parent[node]] + 1
    total = sum(depth[node] + 1 for node, row in enumerate(children)
                for c in row if 0 <= c < n_labels)
    if total > MAX_MEAN_DEPTH * n_labels + 2 ** 20:
        raise Refused
    return children


def _weights(arrays, n_internal, arity, n_cols):
    """The tree's node weights (``stored._compact_parts``, ``_scored_tree``)."""
    node_off = _values(arrays, "t0.node_off", ("<i8",))
    low = _values(arrays, "t0.cols", ("<u2", "<i4"))
    if len(node_off) != n_internal + 1 or node_off[0] != 0 or node_off[-1] != len(low) \
            or any(b < a for a, b in zip(node_off, node_off[1:])):
        raise Refused
    if arrays["t0.cols"][0] == "<u2":  # the low 16 bits, the high ones counted per node
        counts = _values(arrays, "t0.col_high", ("<i4",))
        if not counts or len(counts) % n_internal or min(counts) < 0:
            raise Refused
        n_high = len(counts) // n_internal
        if n_high > 1 << 15:
            raise Refused
        cols = []
        for node in range(n_internal):
            per_node = counts[node * n_high:(node + 1) * n_high]
            if sum(per_node) != node_off[node + 1] - node_off[node]:
                raise Refused
            at = node_off[node]
            for high, count in enumerate(per_node):  # (high << 16) + low: low < 2^16
                cols.extend(map(add, low[at:at + count], repeat(high << 16)) if high
                            else low[at:at + count])
                at += count
    else:
        cols = low
    entry_len = _values(arrays, "t0.entry_len", ("|u1", "<i4"))
    slots = _values(arrays, "t0.slots", ("|u1", "<i4"))
    vals = _values(arrays, "t0.vals", ("<f2", "<f4"))
    entry_off = [0, *accumulate(entry_len)]
    if len(entry_len) != len(cols) or len(slots) != len(vals) \
            or (entry_len and min(entry_len) < 0) or entry_off[-1] != len(slots):
        raise Refused
    if cols and (min(cols) < 0 or max(cols) >= n_cols):
        raise Refused
    for node in range(n_internal):  # a node's columns ascend
        if not ascending(cols[node_off[node]:node_off[node + 1]]):
            raise Refused
    if slots and (min(slots) < 0 or max(slots) >= arity):
        raise Refused
    _check_weights(vals)
    return node_off, cols, entry_off, slots, list(vals)


def ascending(values):
    """Does each of ``values`` (a list) exceed the one before?"""
    return all(map(lt, values, islice(values, 1, None)))


def _check_weights(values):
    """``contents.check_weights``: finite, within :data:`MAX_WEIGHT`."""
    if values and not (max(values) <= MAX_WEIGHT and min(values) >= -MAX_WEIGHT):
        raise Refused
    total = sum(values)  # NaN that max and min passed over (no overflow below 1e8)
    if total != total:
        raise Refused
