"""A word vector model (``treexc skipgram``/``cbow``, or fastText's own
unsupervised ``.bin``): options, vocabulary, input and output matrices,
the output tree of ``-loss hs``.

This is also the Python API object (``treexc.train_unsupervised`` and, for
such files, ``treexc.load_model`` return one), with fastText's members
(``text/members``: ``get_words``, ``get_nearest_neighbors`` ...).  Word
vectors are fastText's to the bit on the same matrix (``text/subwords``),
so a fastText model read here answers ``print-word-vectors`` and ``nn`` as
fastText does.
"""

import numpy as np

from ..errors import TreexcError
from ..io import contents, modelfile
from ..io.fasttext_model import read_fasttext, starts_like_fasttext
from ..io.textio import to_bytes
from ..options import option_values
from ..text import tokens
from ..text.dictionary import Dictionary, check_duplicates
from ..text.members import FastTextMembers
from ..text.neighbours import norm32
from ..text.subwords import word_vectors as subword_vectors
from ..trees.tree import Tree
from .options import VectorArgs, validate

MODEL_KIND = "word vectors"
MAPPED = ("w_in", "w_out")  # weights: views of a large file, not copies


class WordVectors(FastTextMembers):
    def __init__(self, args, dictionary, w_in, w_out, tree=None):
        self.args = args
        self.dictionary = dictionary
        self.w_in = w_in
        self.w_out = w_out
        self.tree = tree  # -loss hs and softmax (a flat tree); None for ns
        self._unit_vectors = None  # normalised word vectors, for nn and analogies
        self._words = self._labels = None
        self._w_out_t = None

    def is_quantized(self):
        return False

    def get_dimension(self):
        return self.args.dim

    @property
    def nlabels(self):
        return self.dictionary.nlabels

    # -- vectors -------------------------------------------------------------
    def get_word_vector(self, word):
        """fastText's word vector: the mean of the word's own input row (when
        it is in the vocabulary) and of its character n-grams' rows; zeros
        for an unknown word without any.  The whole string is one word."""
        raw = to_bytes(word)
        row = tokens.entry_id(self.dictionary, raw)
        row = row if 0 <= row < self.dictionary.nwords else -1
        return self._word_vectors(np.frombuffer(bytearray(raw), dtype=np.uint8),
                                  np.zeros(1, np.int64), np.array([len(raw)], np.int32),
                                  np.array([row], np.int64))[0]

    def word_vectors(self, start=0, stop=None):
        """Vectors of the vocabulary words ``start..stop`` (all by default)."""
        d = self.dictionary
        stop = d.nwords if stop is None else stop
        return self._word_vectors(d.pool, d.entry_off[start:stop], d.entry_len[start:stop],
                                  np.arange(start, stop, dtype=np.int64))

    def word_rows(self, start, stop):
        """The words ``start..stop`` and their vectors: the ``.vec`` file's rows."""
        return self._entries(range(start, stop), None), self.word_vectors(start, stop)

    def _word_vectors(self, buf, word_off, word_len, word_ids):
        out = np.zeros((len(word_off), self.args.dim), dtype=np.float32)
        subword_vectors(buf, word_off, word_len, word_ids, self.w_in, self.dictionary.nwords,
                        self.args.minn, self.args.maxn, self.args.bucket, out)
        return out

    def get_sentence_vector(self, text):
        """fastText's sentence vector of a word vector model: the mean of
        the line's word vectors, each divided by its norm (zero ones left out)."""
        raw = to_bytes(text)
        return self.sentence_vector(np.frombuffer(raw, dtype=np.uint8))

    def sentence_vector(self, data):
        """:meth:`get_sentence_vector` of one line (``uint8`` array), split
        at fastText's separators as ``istringstream >> word`` does."""
        total = np.zeros(self.args.dim, dtype=np.float32)
        count = 0
        for word in bytes(data).split():
            vec = self.get_word_vector(word)
            n = norm32(vec)
            if n > 0:
                total += vec * np.float32(1.0 / np.float64(n))
                count += 1
        if count:
            total *= np.float32(1.0 / count)
        return total

    # -- files ---------------------------------------------------------------
    def save_model(self, path):
        d = self.dictionary
        arrays = {"pool": d.pool, "entry_off": d.entry_off, "entry_len": d.entry_len,
                  "counts": d.counts, "w_in": np.asarray(self.w_in),
                  "w_out": np.asarray(self.w_out)}
        if self.tree is not None:
            arrays["children"] = self.tree.children
        header = {"kind": MODEL_KIND, "args": option_values(self.args, saved_only=True),
                  "nwords": d.nwords, "has_tree": self.tree is not None}
        modelfile.save(path, header, arrays)


def is_word_vector_file(path):
    """Whether ``path`` holds a word vector model (treexc's or fastText's);
    False also when it cannot be read (the loader then says why)."""
    if starts_like_fasttext(path):
        try:
            return read_fasttext(path, header_only=True).args["model"] != "supervised"
        except TreexcError:
            return False
    try:
        return modelfile.load_header(path).get("kind") == MODEL_KIND
    except (TreexcError, OSError, AttributeError):
        return False


def load_vectors(path):
    """A word vector model from ``path`` (treexc's, or fastText's skipgram
    or cbow ``.bin``), every part checked first."""
    if starts_like_fasttext(path):
        return from_fasttext(path)
    header, a = modelfile.load(path, mapped=MAPPED)
    if header.get("kind") != MODEL_KIND:
        kind = contents.describe(header.get("kind")).strip("'")
        raise TreexcError(f"{path}: this is a '{kind}' model, not a word vector model")
    try:
        args = validate(contents.options(VectorArgs, header["args"]))
        nwords, has_tree = header["nwords"], header["has_tree"]
        if type(nwords) is not int or type(has_tree) is not bool:
            raise TypeError("nwords or has_tree")
        pool = contents.array(a, "pool", "u1", 1)
        entry_off = contents.array(a, "entry_off", "<i8", 1)
        entry_len = contents.array(a, "entry_len", "<i4", 1)
        counts = contents.array(a, "counts", "<i8", 1)
        contents.check_entries(pool, entry_off, entry_len, counts)
        if not 0 < nwords <= len(entry_off):
            raise ValueError(f"nwords {nwords} with {len(entry_off)} entries")
        table = check_duplicates(entry_off, entry_len, pool)
        tree = None
        if has_tree:
            children = contents.array(a, "children", "<i4", 2)
            contents.check_tree(children, nwords)
            tree = Tree(np.array(children), nwords)
        w_in = contents.array(a, "w_in", "<f4", 2)
        w_out = contents.array(a, "w_out", "<f4", 2)
        out_rows = tree.n_internal * tree.arity if tree is not None else w_out.shape[0]
        if (w_in.shape != (nwords + args.bucket, args.dim) or w_in.shape[0] >= 2 ** 31
                or w_out.shape != (out_rows, args.dim)):
            raise TreexcError("matrix shapes do not match")
        contents.check_weights("w_in", w_in)
        contents.check_weights("w_out", w_out)
    except KeyError as e:
        raise TreexcError(f"{path}: corrupt model (missing {e})") from None
    except (TypeError, AttributeError):
        raise TreexcError(f"{path}: corrupt model header") from None
    except (ValueError, TreexcError) as e:
        raise TreexcError(f"{path}: corrupt model ({e})") from None
    dictionary = _dictionary(args, pool, entry_off, entry_len, counts, nwords)
    dictionary._table = table
    return WordVectors(args, dictionary, w_in, w_out, tree)


def _dictionary(args, pool, entry_off, entry_len, counts, nwords):
    return Dictionary(np.array(pool), np.array(entry_off), np.array(entry_len),
                      np.array(counts), nwords, args.label, args.wordNgrams, args.bucket,
                      args.minn, args.maxn)


def from_fasttext(path):
    """fastText's skipgram or cbow model in ``path`` as a :class:`WordVectors`
    (its matrices mapped, its hs tree left out: word vectors do not use it)."""
    ft = read_fasttext(path, unsupervised=True)
    a = ft.args
    try:
        args = validate(VectorArgs(model=a["model"], dim=a["dim"], ws=a["ws"],
                                   epoch=max(a["epoch"], 1), minCount=max(a["minCount"], 1),
                                   neg=max(a["neg"], 1), wordNgrams=max(a["wordNgrams"], 1),
                                   loss=a["loss"], bucket=a["bucket"], minn=a["minn"],
                                   maxn=a["maxn"], lrUpdateRate=max(a["lrUpdateRate"], 1),
                                   t=a["t"] if a["t"] > 0 else 1e-4, thread=1))
    except TreexcError as e:
        raise TreexcError(f"{path}: a fastText model treexc cannot read ({e})") from None
    blobs = ft.words
    lens = np.array([len(b) for b in blobs], dtype=np.int32)
    offs = np.concatenate([[0], np.cumsum(lens, dtype=np.int64)[:-1]]).astype(np.int64)
    pool = np.frombuffer(b"".join(blobs), dtype=np.uint8)
    try:
        table = check_duplicates(offs, lens, pool)
    except ValueError as e:
        raise TreexcError(f"{path}: corrupt fastText model ({e})") from None
    dictionary = _dictionary(args, pool, offs, lens, ft.counts, ft.nwords)
    dictionary._table = table
    return WordVectors(args, dictionary, ft.w_in, ft.w_out, None)
