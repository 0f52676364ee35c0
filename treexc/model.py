"""A trained classifier: options, vocabulary, output tree and weights.

This is also the Python API object (``treexc.load_model`` returns one), with
fastText's method names.
"""

import threading

import numpy as np

from . import modelfile
from .args import SHAPE_OPTIONS, default_threads, from_dict, to_dict, validate
from .dictionary import Dictionary
from .errors import TreexcError
from .textio import read_text
from .tree import Tree
from .vector_kernels import LOSS_NS, LOSS_OVA, LOSS_TREE

MODEL_KIND = "supervised"
PARALLEL_LINES = 512  # lines per prediction thread, at least


class Model:
    def __init__(self, args, dictionary, tree, w_in, w_out):
        self.args = args
        self.dictionary = dictionary
        self.tree = tree
        self.w_in = w_in
        self.w_out = w_out

    # -- shape ---------------------------------------------------------------
    @property
    def loss_kind(self):
        return {"ova": LOSS_OVA, "ns": LOSS_NS}.get(self.args.loss, LOSS_TREE)

    @property
    def children(self):
        if self.tree is None:  # unused by sigmoid losses; the kernels want an array
            return np.zeros((1, 2), dtype=np.int32)
        return self.tree.children

    @property
    def nlabels(self):
        return self.dictionary.nlabels

    def get_dimension(self):
        return self.args.dim

    def get_words(self):
        return self.dictionary.words()

    def get_labels(self):
        return self.dictionary.labels()

    # -- prediction ----------------------------------------------------------
    def encode_text(self, data):
        return self.dictionary.encode(data)

    def predict_corpus(self, corpus, k=1, threshold=0.0):
        """``(labels, log_probs, counts)`` arrays for every line of ``corpus``."""
        from .predict_kernels import predict_lines

        if k < 1:
            raise TreexcError(f"k {k}: must be >= 1")
        k = min(k, self.nlabels)
        n = corpus.n_lines
        out_label = np.zeros((n, k), dtype=np.int64)
        out_score = np.zeros((n, k), dtype=np.float64)
        out_count = np.zeros(n, dtype=np.int64)

        def run(a, b):  # lines a..b-1; the kernel releases the GIL
            predict_lines(corpus.feat_off[a:b + 1], corpus.feats, self.w_in, self.w_out,
                          self.loss_kind, self.children, self.nlabels, k, float(threshold),
                          out_label[a:b], out_score[a:b], out_count[a:b])

        n_threads = min(default_threads(), n // PARALLEL_LINES) if n else 0
        if n_threads <= 1:
            run(0, n)
        else:
            bounds = np.linspace(0, n, n_threads + 1).astype(int)
            threads = [threading.Thread(target=run, args=(bounds[i], bounds[i + 1]))
                       for i in range(n_threads)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        return out_label, out_score, out_count

    def predict(self, text, k=1, threshold=0.0):
        """fastText's ``predict``: for a string, ``(labels, probs)``; for a list
        of strings, ``(list of labels, list of probs)``."""
        single = isinstance(text, str)
        lines = [text] if single else list(text)
        for line in lines:
            if "\n" in line:
                raise TreexcError("predict processes one line at a time; "
                                  "remove the newline characters")
        raw = "".join(line + "\n" for line in lines).encode("utf-8")
        corpus = self.encode_text(np.frombuffer(raw, dtype=np.uint8))
        labels, scores, counts = self.predict_corpus(corpus, k, threshold)
        names = self.get_labels()
        all_labels, all_probs = [], []
        for i in range(len(lines)):
            c = counts[i]
            all_labels.append(tuple(names[j] for j in labels[i, :c]))
            all_probs.append(np.exp(scores[i, :c]))
        if single:
            return all_labels[0], all_probs[0]
        return all_labels, all_probs

    def test(self, path, k=1, threshold=0.0):
        """``(N, precision@k, recall@k)`` on a labelled file, as fastText."""
        meter = self.evaluate(read_text(path), k, threshold)
        return meter.n_examples, meter.precision(), meter.recall()

    def test_label(self, path, k=1, threshold=0.0):
        """Per-label ``{label: {"precision", "recall", "f1score"}}``."""
        meter = self.evaluate(read_text(path), k, threshold)
        names = self.get_labels()
        return {names[i]: {"precision": meter.label_precision(i),
                           "recall": meter.label_recall(i),
                           "f1score": meter.label_f1(i)} for i in range(self.nlabels)}

    def evaluate(self, data, k=1, threshold=0.0):
        from .meter import Meter

        corpus = self.encode_text(data)
        labels, _, counts = self.predict_corpus(corpus, k, threshold)
        return Meter.from_predictions(corpus, labels, counts, self.nlabels)

    # -- vectors -------------------------------------------------------------
    def get_word_vector(self, word):
        """fastText's word vector: the mean of the rows of the word and its
        character n-grams (just the word's row without ``-maxn``)."""
        data = np.frombuffer(word.encode("utf-8") + b"\n", dtype=np.uint8)
        corpus = self.dictionary.encode(data)
        rows = corpus.feats[corpus.feat_off[0]:corpus.feat_off[1]]
        eos = self.dictionary.eos_id()
        rows = rows[rows != eos] if word != "</s>" else rows
        if len(rows) == 0:
            return np.zeros(self.args.dim, dtype=np.float32)
        return self.w_in[rows].mean(axis=0, dtype=np.float32)

    def get_sentence_vector(self, text):
        """The hidden vector of a line, as used for classification."""
        return self.sentence_vector(np.frombuffer(text.encode("utf-8") + b"\n",
                                                  dtype=np.uint8))

    def sentence_vector(self, data):
        """The hidden vector of one line of checked text (``uint8`` array).
        Without a final newline the line has no ``</s>``, like the last line
        of a file for fastText."""
        corpus = self.dictionary.encode(data)
        rows = corpus.feats[corpus.feat_off[0]:corpus.feat_off[1]]
        if len(rows) == 0:
            return np.zeros(self.args.dim, dtype=np.float32)
        return self.w_in[rows].mean(axis=0, dtype=np.float32)

    def word_vectors(self):
        """Vectors of all vocabulary words, in vocabulary order."""
        n = self.dictionary.nwords
        if self.args.maxn == 0:
            return np.asarray(self.w_in[:n])
        return np.stack([self.get_word_vector(w) for w in self.get_words()]) if n else \
            np.zeros((0, self.args.dim), np.float32)

    # -- tree (for dump-tree) -------------------------------------------------
    def tree_label_names(self):
        return self.get_labels()

    def tree_label_counts(self):
        return self.dictionary.label_counts

    def tree_statistics(self, path):
        """Statistics by path position measured on a labelled file: every
        label of a line counts (``treelearn_kernels.collect_statistics``)."""
        from .treelearn_kernels import collect_statistics

        corpus = self.encode_text(read_text(path))
        t = self.tree
        stats_p = np.zeros((len(t.path_node), t.arity))
        stats_n = np.zeros(len(t.path_node))
        collect_statistics(corpus.feat_off, corpus.feats, corpus.label_off, corpus.labels,
                           self.w_in, self.w_out, t.children, t.path_off, t.path_node,
                           stats_p, stats_n)
        return stats_p, stats_n

    # -- files ---------------------------------------------------------------
    def save_model(self, path):
        d = self.dictionary
        arrays = {
            "pool": d.pool, "entry_off": d.entry_off, "entry_len": d.entry_len,
            "counts": d.counts, "children": self.children,
            "w_in": np.asarray(self.w_in), "w_out": np.asarray(self.w_out),
        }
        # paths and verbosity say nothing about the model (and would make two
        # identical trainings differ)
        saved_args = {k: v for k, v in to_dict(self.args).items()
                      if k not in ("input", "output", "verbose", "pretrainedVectors")}
        header = {"kind": MODEL_KIND, "args": saved_args, "nwords": d.nwords,
                  "has_tree": self.tree is not None}
        modelfile.save(path, header, arrays)


def load_model(path):
    header, a = modelfile.load(path)
    kind = header.get("kind")
    if kind != MODEL_KIND:
        raise TreexcError(f"{path}: this is a '{kind}' model, not a classifier")
    try:
        args = validate(from_dict(header["args"]))
        missing = [name for name in SHAPE_OPTIONS if name not in header["args"]]
        if missing:
            raise KeyError(missing[0])
        dictionary = Dictionary(a["pool"], a["entry_off"], a["entry_len"], a["counts"],
                                header["nwords"], args.label, args.wordNgrams,
                                args.bucket, args.minn, args.maxn)
        _check_dictionary(dictionary)
        tree = Tree(np.asarray(a["children"]), dictionary.nlabels) if header["has_tree"] \
            else None
        w_in, w_out = a["w_in"], a["w_out"]
    except KeyError as e:
        raise TreexcError(f"{path}: corrupt model (missing {e})") from None
    except (TypeError, ValueError, AttributeError):
        raise TreexcError(f"{path}: corrupt model header") from None
    except TreexcError as e:  # a bad option or tree: name the file
        raise TreexcError(f"{path}: corrupt model ({e})") from None
    expected_out = (tree.n_internal * tree.arity) if tree is not None else dictionary.nlabels
    if (w_in.ndim != 2 or w_out.ndim != 2 or w_in.shape[1] != args.dim
            or w_out.shape != (expected_out, args.dim)
            or w_in.shape[0] != dictionary.nwords + args.bucket
            or w_in.dtype != np.float32 or w_out.dtype != np.float32
            or (tree is None) != (args.loss in ("ova", "ns"))):
        raise TreexcError(f"{path}: corrupt model (matrix shapes do not match)")
    return Model(args, dictionary, tree, w_in, w_out)


def _check_dictionary(d):
    """Entries must lie inside the pool: the kernels do not check bounds."""
    n = len(d.entry_off)
    if (len(d.entry_len) != n or len(d.counts) != n or not 0 <= d.nwords <= n
            or (n and ((d.entry_off < 0).any() or (d.entry_len < 0).any()
                       or (d.entry_off + d.entry_len > len(d.pool)).any()))):
        raise ValueError("dictionary arrays")

