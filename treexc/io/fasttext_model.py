"""fastText 0.9.2's model files (``.bin``; ``.ftz`` recognised), read and
checked: supervised models, and skipgram and cbow (word vector) ones.

The layout, learned from fastText's ``FastText::saveModel`` and the ``save``
methods of ``Args``, ``Dictionary`` and ``DenseMatrix`` (little-endian, no
padding)::

    int32 magic 793712314, int32 version (12; 11 is read as fastText reads it)
    args        int32 dim, ws, epoch, minCount, neg, wordNgrams, loss
                (1 hs, 2 ns, 3 softmax, 4 ova), model (1 cbow, 2 skipgram,
                3 supervised), bucket, minn, maxn, lrUpdateRate; float64 t
    dictionary  int32 size, nwords, nlabels; int64 ntokens, pruneidx_size;
                size entries: the bytes, a NUL, int64 count, int8 type
                (0 word, 1 label); pruneidx_size pairs of int32
    bool quant  then the input matrix: int64 rows, int64 cols, float32 data
                (a quantised matrix has another layout: ``.ftz``)
    bool qout   then the output matrix, as the input one

The label prefix is not saved: fastText loads every model with
``__label__``.  The file is untrusted: every count is checked against the
bytes left before anything is allocated, and any problem is one
``TreexcError`` naming the file.  The matrices are views of a read-only
mapping of the file (no copy of a large input matrix).  No Numba here.
"""

import mmap
import os
import struct
from dataclasses import dataclass

import numpy as np

from ..errors import TreexcError
from ..loss.registry import LOSSES as REGISTERED
from ..loss.registry import loss

MAGIC = 793712314
VERSION = 12
# fastText's loss_name numbers: each loss's fasttext_id in loss/registry.py
LOSSES = {entry.fasttext_id: name for name, entry in REGISTERED.items() if entry.fasttext_id}
MODELS = {1: "cbow", 2: "skipgram", 3: "supervised"}
LABEL_PREFIX = "__label__"  # not saved in the file: fastText's default
_ARGS = struct.Struct("<12id")
_ARG_NAMES = ("dim", "ws", "epoch", "minCount", "neg", "wordNgrams", "loss", "model",
              "bucket", "minn", "maxn", "lrUpdateRate", "t")
_DICT = struct.Struct("<iiiqq")
_MATRIX = struct.Struct("<qq")


@dataclass
class FastTextModel:
    """A fastText model as its file holds it."""

    version: int
    args: dict          # _ARG_NAMES -> value; "loss" and "model" as names
    words: list         # bytes of every entry, words then labels
    counts: np.ndarray  # int64, one per entry
    nwords: int
    ntokens: int
    w_in: np.ndarray    # float32 (nwords + bucket, dim), read-only view
    w_out: np.ndarray   # float32 (nlabels, dim) for softmax, ova and ns;
                        # (nlabels - 1, dim) for hs (a row per inner node)

    @property
    def nlabels(self):
        return len(self.words) - self.nwords


def starts_like_fasttext(path):
    """Whether ``path`` begins with fastText's magic number (no error if it
    cannot be read: the caller's loader reports that)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError:
        return False
    return len(head) == 4 and struct.unpack("<i", head)[0] == MAGIC


class _Reader:
    """Reads fixed-size fields from a mapped file, refusing a short file."""

    def __init__(self, path, buffer):
        self.path, self.buffer, self.pos = path, buffer, 0

    def bad(self, what):
        raise TreexcError(f"{self.path}: corrupt fastText model ({what})")

    def unpack(self, fmt, what):
        if self.pos + fmt.size > len(self.buffer):
            raise TreexcError(f"{self.path}: truncated fastText model (in the {what})")
        values = fmt.unpack_from(self.buffer, self.pos)
        self.pos += fmt.size
        return values

    def matrix(self, what):
        rows, cols = self.unpack(_MATRIX, what)
        if rows < 0 or cols < 0:
            self.bad(f"{what} of {rows} x {cols}")
        nbytes = 4 * rows * cols  # Python integers: no overflow
        if self.pos + nbytes > len(self.buffer):
            raise TreexcError(f"{self.path}: truncated fastText model (the {what} needs "
                              f"{nbytes} bytes, {len(self.buffer) - self.pos} are left)")
        m = np.frombuffer(self.buffer, dtype="<f4", count=rows * cols, offset=self.pos)
        self.pos += nbytes
        return m.reshape(rows, cols)


def read_fasttext(path, unsupervised=False, header_only=False):
    """The supervised fastText model in ``path``, every part checked; with
    ``unsupervised``, a skipgram or cbow model instead (no labels needed,
    an output row per word).  ``header_only``: the options alone (``args``
    of a model without dictionary or matrices), to tell the kinds apart."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            buffer = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
    except OSError as e:
        raise TreexcError(f"{path}: cannot read the model file: {e.strerror or e}") from None
    r = _Reader(path, buffer)
    magic, version = r.unpack(struct.Struct("<ii"), "header")
    if magic != MAGIC:
        raise TreexcError(f"{path}: not a fastText model (wrong magic number)")
    if version not in (11, VERSION):
        raise TreexcError(f"{path}: fastText model format version {version}; treexc reads "
                          f"versions 11 and {VERSION} (fastText 0.9.x)")
    args = dict(zip(_ARG_NAMES, r.unpack(_ARGS, "options")))
    if args["model"] not in MODELS:
        r.bad(f"model type {args['model']}")
    if args["loss"] not in LOSSES:
        r.bad(f"loss {args['loss']}")
    args["model"], args["loss"] = MODELS[args["model"]], LOSSES[args["loss"]]
    if header_only:
        return FastTextModel(version, args, [], np.zeros(0, np.int64), 0, 0, None, None)
    if (args["model"] == "supervised") == unsupervised:
        raise TreexcError(f"{path}: a fastText supervised model, not a word vector one"
                          if unsupervised else
                          f"{path}: a fastText {args['model']} (word vector) model, not a "
                          "classifier")
    if version == 11 and not unsupervised:  # old supervised models have no character n-grams
        args["maxn"] = 0
    for name in ("dim", "ws", "epoch", "neg", "wordNgrams", "bucket", "minn", "maxn",
                 "lrUpdateRate", "minCount"):
        if args[name] < 0:
            r.bad(f"{name} {args[name]}")
    if args["dim"] < 1:
        r.bad(f"dim {args['dim']}")
    words, counts, nwords, ntokens = _read_dictionary(r, labels_needed=not unsupervised)
    nlabels = len(words) - nwords
    (quant,) = r.unpack(struct.Struct("<?"), "input matrix")
    if quant:
        raise TreexcError(f"{path}: a quantised fastText model (.ftz); treexc reads only "
                          "unquantised ones (the .bin fastText wrote before quantize)")
    w_in = r.matrix("input matrix")
    (qout,) = r.unpack(struct.Struct("<?"), "output matrix")
    if qout:
        raise TreexcError(f"{path}: a fastText model with a quantised output matrix (.ftz); "
                          "treexc reads only unquantised ones")
    w_out = r.matrix("output matrix")
    if r.pos != len(buffer):
        r.bad(f"{len(buffer) - r.pos} bytes after the output matrix")
    if unsupervised:  # an output row per word (hs uses nwords - 1 of them)
        if w_in.shape != (nwords + args["bucket"], args["dim"]) or \
                w_out.shape != (nwords, args["dim"]):
            r.bad(f"matrices of {w_in.shape} and {w_out.shape} for {nwords} words")
        return FastTextModel(version, args, words, counts, nwords, ntokens, w_in, w_out)
    hs = loss(args["loss"]).fixed_huffman
    out_rows = nlabels - 1 if hs else nlabels
    if w_in.shape != (nwords + args["bucket"], args["dim"]):
        r.bad(f"input matrix of {w_in.shape[0]} x {w_in.shape[1]}, expected "
              f"{nwords + args['bucket']} x {args['dim']}")
    # fastText's hs output matrix has a row per label too; inner nodes use the first nlabels-1
    if w_out.shape[1] != args["dim"] or w_out.shape[0] < max(out_rows, 0):
        r.bad(f"output matrix of {w_out.shape[0]} x {w_out.shape[1]} for {nlabels} labels")
    return FastTextModel(version, args, words, counts, nwords, ntokens, w_in,
                         w_out[:out_rows] if hs else w_out)


def _read_dictionary(r, labels_needed=True):
    size, nwords, nlabels, ntokens, pruneidx_size = r.unpack(_DICT, "dictionary")
    if size < 0 or nwords < 0 or nlabels < 0 or size != nwords + nlabels:
        r.bad(f"dictionary of {size} entries, {nwords} words and {nlabels} labels")
    if nlabels < 1 and labels_needed:
        r.bad("no label")
    if nwords < 1 and not labels_needed:
        r.bad("no word")
    if pruneidx_size >= 0:  # only a quantised model is pruned (fastText refuses others)
        raise TreexcError(f"{r.path}: a pruned (quantised) fastText model; treexc reads "
                          "only unquantised ones")
    # each entry takes at least 10 bytes: refuse a count the file cannot hold
    if 10 * size > len(r.buffer) - r.pos:
        raise TreexcError(f"{r.path}: truncated fastText model (in the dictionary)")
    words, counts = [], np.empty(size, dtype=np.int64)
    buffer, pos = r.buffer, r.pos
    tail = struct.Struct("<qb")
    for i in range(size):
        end = buffer.find(b"\0", pos)
        if end < 0 or end + tail.size > len(buffer):
            raise TreexcError(f"{r.path}: truncated fastText model (in the dictionary)")
        count, kind = tail.unpack_from(buffer, end + 1)
        if kind != (0 if i < nwords else 1) or count < 0 or end == pos:
            r.bad(f"dictionary entry {i}")
        words.append(bytes(buffer[pos:end]))
        counts[i] = count
        pos = end + 1 + tail.size
    r.pos = pos
    return words, counts, nwords, ntokens
