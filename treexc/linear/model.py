"""A trained sparse linear model: its features, label trees and node weights.

This is also the Python API object ``treexc.load_model`` returns for a
linear model file, with fastText's ``predict``, ``test``, ``test_label``,
``get_labels`` and ``save_model``; the members of the embedding model that
have no meaning here (word vectors, matrices, quantize) raise a
``TreexcError`` saying so.
"""

from dataclasses import dataclass

import numpy as np

from ..errors import TreexcError
from ..io.answers import api_answers, api_lines
from ..io.sparse_format import rows_of_piece
from ..io.textio import read_text
from ..meter import Meter, ranking
from ..metrics import DEFAULT_A, DEFAULT_B, METRICS
from ..options import default_threads
from ..runtime import run_in_ranges
from ..text.dictionary import Dictionary, check_duplicates
from ..trees.tree import Tree
from . import beam_kernels as bk
from .ensemble import predict_trees
from .features import TfidfFeatures, rows_from_arrays
from .node_training import NodeWeights
from .options import SCORERS
from .stored import read_linear, save_linear

PARALLEL_LINES = 256  # lines per prediction thread, at least
# the embedding model's members a linear model cannot answer
EMBEDDING_ONLY = ("get_word_vector", "get_sentence_vector", "get_input_matrix",
                  "get_output_matrix", "get_input_vector", "get_nearest_neighbors",
                  "get_analogies", "get_subwords", "quantize", "is_quantized",
                  "get_dimension", "word_vectors", "sentence_vector")


@dataclass
class ScoredTree:
    """One label tree and its nodes' classifiers."""

    tree: Tree
    weights: NodeWeights


class LinearModel:
    """``dictionary`` and ``features`` (``TfidfFeatures``) for text input,
    or both None and ``label_names`` for given sparse features."""

    def __init__(self, args, trees, n_cols, dictionary=None, features=None, label_names=None):
        self.args = args
        self.trees = trees
        self.n_cols = int(n_cols)
        self.dictionary = dictionary
        self.features = features
        self._label_names = label_names
        self._label_index = None
        self.plan = None  # linear/plan.py's, set by treexc supervised; kept in the file

    # -- shape ---------------------------------------------------------------
    @property
    def nlabels(self):
        return self.trees[0].tree.n_labels

    @property
    def tree(self):
        """The first tree (``dump-tree``)."""
        return self.trees[0].tree

    @property
    def text_input(self):
        return self.dictionary is not None

    def get_labels(self, include_freq=False, on_unicode_error=None):
        if self.text_input:
            names = self.dictionary.labels()
        else:
            names = list(self._label_names)
        if include_freq:
            return names, np.asarray(self.tree_label_counts())
        return names

    def get_words(self, include_freq=False, on_unicode_error=None):
        if not self.text_input:
            raise TreexcError("this linear model was trained on given sparse features: "
                              "it has no words")
        words = self.dictionary.words()
        if include_freq:
            return words, self.dictionary.counts[:self.dictionary.nwords].copy()
        return words

    def __getattr__(self, name):
        if name in EMBEDDING_ONLY or name in ("w_in", "w_out"):
            raise TreexcError(f"{name}: a linear model (-model linear) has no word vectors "
                              "or dense matrices; train with -model embedding for them")
        raise AttributeError(name)

    # -- prediction ----------------------------------------------------------
    def rows_of_text(self, data):
        """The encoded corpus of checked text (``uint8``) and its rows."""
        corpus = self.dictionary.encode(data)
        return corpus, self.features.rows(corpus)

    def rows_of_piece(self, data, path, first_line):
        """The rows of a piece of input (``uint8``) starting at line
        ``first_line`` of ``path``: text encoded and weighted, or sparse
        lines as given."""
        if self.text_input:
            return self.rows_of_text(data)[1]
        parts = rows_of_piece(data, path, first_line, self.n_cols, self.label_index())
        return rows_from_arrays(*parts, n_features=self.n_cols - 1)

    def label_index(self):
        """Label name -> id (a sparse model's labels, for its input)."""
        if self._label_index is None:
            self._label_index = {name: i for i, name in enumerate(self.get_labels())}
        return self._label_index

    def predict_rows(self, rows, k=1, threshold=0.0):
        """``(labels, log_scores, counts)`` of every row of ``rows``."""
        return predict_trees(self.trees, lambda t, k, th: self._predict_tree(t, rows, k, th),
                             rows.n_rows, self.nlabels, k, threshold)

    def _predict_tree(self, scored, rows, k, threshold):
        n = rows.n_rows
        out_label = np.zeros((n, k), dtype=np.int64)
        out_score = np.zeros((n, k), dtype=np.float64)
        out_count = np.zeros(n, dtype=np.int64)
        t, w = scored.tree, scored.weights
        scorer = SCORERS.index(self.args.scorer)
        block_off, block_first = w.blocks

        def run(a, b):  # rows a..b-1; the kernel releases the GIL
            bk.predict_rows(rows.indptr[a:b + 1], rows.indices, rows.data, t.children,
                            t.n_labels, w.node_off, w.cols, block_off, block_first,
                            w.entry_off, w.slots, w.vals, self.args.beam, scorer, k,
                            float(threshold), out_label[a:b], out_score[a:b], out_count[a:b])

        run_in_ranges(n, run, PARALLEL_LINES, default_threads())
        return out_label, out_score, out_count

    def predict(self, text, k=1, threshold=0.0, on_unicode_error=None):
        """fastText's ``predict``: for a string ``(labels, scores)``, for a
        list of strings the lists of both."""
        self._need_text("predict")
        single, _, data = api_lines(text)
        _, rows = self.rows_of_text(data)
        return api_answers(self.get_labels(), *self.predict_rows(rows, k, threshold), single)

    def predict_corpus(self, corpus, k=1, threshold=0.0):
        """As the embedding model's: the answers for an encoded corpus."""
        return self.predict_rows(self.features.rows(corpus), k, threshold)

    def encode_text(self, data):
        self._need_text("encode_text")
        return self.dictionary.encode(data)

    def evaluate(self, data, k=1, threshold=0.0, path="-"):
        """The :class:`Meter` of a labelled input (``uint8``; ``path`` names
        it in errors), fastText's counts: text, or sparse lines for a model
        trained on them."""
        if self.text_input:
            corpus, rows = self.rows_of_text(data)
        else:
            corpus = rows = self.rows_of_piece(data, path, 1)
        labels, _, counts = self.predict_rows(rows, k, threshold)
        return Meter.from_predictions(corpus, labels, counts, self.nlabels)

    def evaluate_ranking(self, data, k, threshold, metrics, A=DEFAULT_A, B=DEFAULT_B,
                         path="-"):
        """``(Meter, {metric@k: value})`` of one prediction of ``data``, as
        the embedding model's: nDCG@k, and PSP@k from the training file's
        label counts (a model of given sparse features has none)."""
        if self.text_input:
            corpus, rows = self.rows_of_text(data)
        else:
            if "psp" in metrics:
                raise TreexcError("-metrics psp: a model trained on given sparse features "
                                  "holds no label counts to weigh labels by; use ndcg")
            corpus = rows = self.rows_of_piece(data, path, 1)
        labels, _, counts = self.predict_rows(rows, k, threshold)
        ranks = ranking(corpus, labels, counts, self.tree_label_counts(), self.train_lines(),
                        k, metrics, A, B)
        return Meter.from_predictions(corpus, labels, counts, self.nlabels), ranks

    def train_lines(self):
        """The training file's lines (N of the propensities): its ``</s>``
        count, one a line as fastText counts; 0 without a dictionary."""
        if not self.text_input:
            return 0
        eos = self.dictionary.eos_id()
        return int(self.dictionary.counts[eos]) if eos >= 0 else \
            int(self.dictionary.label_counts.sum())

    def test(self, path, k=1, threshold=0.0):
        """``(N, precision@k, recall@k)`` on a labelled file, as fastText."""
        meter = self.evaluate(read_text(path), k, threshold, path)
        return meter.n_examples, meter.precision(), meter.recall()

    def test_metrics(self, path, k=5, metrics=METRICS, threshold=0.0, A=DEFAULT_A,
                     B=DEFAULT_B):
        """``test``'s figures and the ranking metrics (treexc.metrics), as
        the embedding model's ``test_metrics``."""
        meter, ranks = self.evaluate_ranking(read_text(path), k, threshold, metrics, A, B, path)
        return {"N": meter.n_examples, f"P@{k}": meter.precision(),
                f"R@{k}": meter.recall(), **ranks}

    def test_label(self, path, k=1, threshold=0.0):
        meter = self.evaluate(read_text(path), k, threshold, path)
        names = self.get_labels()
        return {names[i]: {"precision": meter.label_precision(i),
                           "recall": meter.label_recall(i),
                           "f1score": meter.label_f1(i)} for i in range(self.nlabels)}

    def _need_text(self, what):
        if not self.text_input:
            raise TreexcError(f"{what}: this model was trained on sparse features; give "
                              "it sparse lines (treexc predict/test read them)")

    # -- tree (dump-tree) ----------------------------------------------------
    def tree_label_names(self):
        return self.get_labels()

    def tree_label_counts(self):
        if self.text_input:
            return self.dictionary.label_counts
        return np.zeros(self.nlabels, dtype=np.int64)

    def tree_statistics(self, path):
        raise TreexcError("dump-tree -input: node measures are the embedding model's; "
                          "a linear model's tree is printed without -input")

    # -- files ---------------------------------------------------------------
    def save_model(self, path):
        save_linear(self, path)


def load_linear(path, loaded=None):
    """The :class:`LinearModel` in ``path`` (``stored.read_linear``);
    ``loaded``: ``modelfile.load``'s answer when the file has been read
    (``linear/firstlines.py``)."""
    s = read_linear(path, check_duplicates, Tree, loaded)
    a = s.args
    dictionary = features = None
    if s.features is not None:
        dictionary = Dictionary(*s.vocabulary, s.nwords, a.label, a.wordNgrams, a.bucket, 0, 0)
        dictionary._table = s.table
        features = TfidfFeatures(*s.features)
    trees = [ScoredTree(tree, NodeWeights(*weights)) for tree, weights in s.trees]
    model = LinearModel(a, trees, s.n_cols, dictionary, features, s.names)
    model.plan = s.plan
    return model
