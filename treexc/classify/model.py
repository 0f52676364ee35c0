"""A trained classifier: options, vocabulary, output tree and weights.

This is also the Python API object (``treexc.load_model`` returns one), with
fastText's method names.
"""

import threading

import numpy as np

from ..errors import TreexcError
from ..io import modelfile
from ..io.textio import read_text, to_bytes, to_str
from ..loss.registry import loss
from ..options import option_values
from ..text import tokens
from ..text.dictionary import Dictionary, check_duplicates
from ..text.subwords import word_vectors as subword_vectors
from ..trees.tree import Tree
from .fasttext_convert import SCORING_FASTTEXT
from .fasttext_kernels import predict_lines_fasttext
from .meter import Meter
from .neighbours import analogy_query, neighbours, normalise_rows
from .options import default_threads
from .predict_kernels import collect_statistics, predict_lines
from .stored import MODEL_KIND, read_classifier

PARALLEL_LINES = 512  # lines per prediction thread, at least


class Model:
    def __init__(self, args, dictionary, tree, w_in, w_out, scoring=""):
        self.args = args
        self.dictionary = dictionary
        self.tree = tree
        self.w_in = w_in
        self.w_out = w_out
        # "fasttext": converted from fastText, answers as fastText computes them
        self.scoring = scoring
        self._unit_vectors = None  # normalised word vectors, for nn and analogies
        self._words = self._labels = None
        self._w_out_t = None  # fastText scoring of a flat layer: w_out transposed

    # -- shape ---------------------------------------------------------------
    @property
    def loss_kind(self):
        return loss(self.args.loss).kernel

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

    def get_words(self, include_freq=False, on_unicode_error=None):
        """The vocabulary's words (with ``include_freq``, also their counts
        as an int64 array).  ``on_unicode_error`` decodes invalid UTF-8 as
        ``bytes.decode`` does ('strict', 'replace', ...); by default a word
        keeps its bytes (``surrogateescape``) and nothing is raised."""
        d = self.dictionary
        words = self._entries(range(d.nwords), on_unicode_error)
        return (words, np.array(d.counts[:d.nwords])) if include_freq else words

    def get_labels(self, include_freq=False, on_unicode_error=None):
        """The labels, as :meth:`get_words` the words."""
        d = self.dictionary
        labels = self._entries(range(d.nwords, len(d.entry_off)), on_unicode_error)
        return (labels, np.array(d.label_counts)) if include_freq else labels

    def _entries(self, ids, on_unicode_error):
        decode = _decoder(on_unicode_error)
        return [decode(self.dictionary.entry_bytes(i)) for i in ids]

    @property
    def words(self):
        if self._words is None:
            self._words = self.get_words()
        return self._words

    @property
    def labels(self):
        if self._labels is None:
            self._labels = self.get_labels()
        return self._labels

    def __contains__(self, word):
        return word in self.words

    def __getitem__(self, word):
        return self.get_word_vector(word)

    # -- prediction ----------------------------------------------------------
    def encode_text(self, data):
        return self.dictionary.encode(data)

    def predict_corpus(self, corpus, k=1, threshold=0.0):
        """``(labels, log_probs, counts)`` arrays for every line of ``corpus``."""
        if k == -1:  # fastText's "unlimited": every label
            k = self.nlabels
        if k < 1:
            raise TreexcError(f"k {k}: must be >= 1, or -1 for all labels")
        k = min(k, self.nlabels)
        n = corpus.n_lines
        out_label = np.zeros((n, k), dtype=np.int64)
        out_score = np.zeros((n, k), dtype=np.float64)
        out_count = np.zeros(n, dtype=np.int64)

        fasttext = self.scoring == SCORING_FASTTEXT
        out_prob = np.zeros((n, k), dtype=np.float32) if fasttext else None
        if fasttext:  # flat layers: the transposed matrix, a vectorised loop
            hs = self.args.loss == "hs"
            w_out_t = np.zeros((1, 1), np.float32) if hs else self._transposed_output()

        def run(a, b):  # lines a..b-1; the kernel releases the GIL
            if fasttext:
                predict_lines_fasttext(corpus.feat_off[a:b + 1], corpus.feats, self.w_in,
                                       self.w_out, w_out_t, self.loss_kind, hs, self.children, self.nlabels, k,
                                       np.float32(threshold), out_label[a:b], out_prob[a:b],
                                       out_count[a:b])
                return
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
        if fasttext:  # log-probabilities whose exp rounds back to fastText's float32
            with np.errstate(divide="ignore"):
                out_score = np.log(out_prob.astype(np.float64))
        return out_label, out_score, out_count

    def _transposed_output(self):
        if self._w_out_t is None:
            self._w_out_t = np.ascontiguousarray(np.asarray(self.w_out).T)
        return self._w_out_t

    def predict(self, text, k=1, threshold=0.0, on_unicode_error=None):
        """fastText's ``predict``: for a string, ``(labels, probs)``; for a list
        of strings, ``(list of labels, list of probs)``.  ``on_unicode_error``:
        as :meth:`get_labels`."""
        single = isinstance(text, str)
        lines = [text] if single else list(text)
        for line in lines:
            if not isinstance(line, str):
                raise TypeError(f"predict takes a str or a list of str, not "
                                f"{type(line).__name__}")
            if "\n" in line:
                raise TreexcError("predict processes one line at a time; "
                                  "remove the newline characters")
        raw = "".join(line + "\n" for line in lines).encode("utf-8", "surrogateescape")
        corpus = self.encode_text(np.frombuffer(raw, dtype=np.uint8))
        labels, scores, counts = self.predict_corpus(corpus, k, threshold)
        names = self.get_labels(on_unicode_error=on_unicode_error)
        all_labels, all_probs = [], []
        for i in range(len(lines)):
            c = counts[i]
            all_labels.append(tuple(names[j] for j in labels[i, :c]))
            probs = np.exp(scores[i, :c])
            if self.scoring == SCORING_FASTTEXT:  # fastText's float32 values exactly
                probs = probs.astype(np.float32).astype(np.float64)
            all_probs.append(probs)
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
        corpus = self.encode_text(data)
        labels, _, counts = self.predict_corpus(corpus, k, threshold)
        return Meter.from_predictions(corpus, labels, counts, self.nlabels)

    # -- vectors -------------------------------------------------------------
    def get_word_vector(self, word):
        """fastText's word vector: the mean of the input rows of the word
        (when it is in the vocabulary) and of its character n-grams (with
        ``-maxn``); never word n-grams.  Zeros for an unknown word without
        ``-maxn``.  The whole string is one word, as for fastText.  A
        label's entry id also names an input row for fastText (a hashed
        bucket's): it is added as fastText adds it, where the row exists."""
        raw = to_bytes(word)  # str of textio.to_str: its bytes back
        row = tokens.entry_id(self.dictionary, raw)
        # writable arrays of the pool's types: the kernel compiles once for both
        return self._word_vectors(np.frombuffer(bytearray(raw), dtype=np.uint8),
                                  np.zeros(1, np.int64), np.array([len(raw)], np.int32),
                                  np.array([row if row < self.w_in.shape[0] else -1], np.int64))[0]

    def word_vectors(self):
        """Vectors of all vocabulary words, in vocabulary order (the rows of
        the ``.vec`` file)."""
        d = self.dictionary
        n = d.nwords
        if self.args.maxn == 0:  # each word's own row
            return np.array(self.w_in[:n], dtype=np.float32)
        return self._word_vectors(d.pool, d.entry_off[:n], d.entry_len[:n],
                                  np.arange(n, dtype=np.int64))

    def _word_vectors(self, buf, word_off, word_len, word_ids):
        # imported here: each kernel module costs prediction's start-up
        out = np.zeros((len(word_off), self.args.dim), dtype=np.float32)
        subword_vectors(buf, word_off, word_len, word_ids, self.w_in, self.dictionary.nwords,
                        self.args.minn, self.args.maxn, self.args.bucket, out)
        return out

    def get_sentence_vector(self, text):
        """The hidden vector of a line, as used for classification: the mean
        of its words', character and word n-grams' and ``</s>``'s rows."""
        raw = to_bytes(text) + b"\n"  # str of textio.to_str: its bytes back
        return self.sentence_vector(np.frombuffer(raw, dtype=np.uint8))

    def sentence_vector(self, data):
        """The hidden vector of one line of checked text (``uint8`` array).
        Without a final newline the line has no ``</s>``, like the last line
        of a file for fastText."""
        corpus = self.dictionary.encode(data)
        if corpus.n_lines == 0:  # no bytes at all
            return np.zeros(self.args.dim, dtype=np.float32)
        rows = corpus.feats[corpus.feat_off[0]:corpus.feat_off[1]]
        if len(rows) == 0:
            return np.zeros(self.args.dim, dtype=np.float32)
        return self.w_in[rows].mean(axis=0, dtype=np.float32)

    # -- fastText's vector and vocabulary members ------------------------------
    def get_word_id(self, word):
        """fastText's ``get_word_id``: the entry id of ``word``, a word or a
        label (fastText looks both up), or -1."""
        return tokens.entry_id(self.dictionary, to_bytes(word))

    def get_label_id(self, label):
        """The label's id (0..labels-1), or -1; fastText's arithmetic, so a
        word gives its id minus the number of words."""
        e = self.get_word_id(label)
        return e - self.dictionary.nwords if e != -1 else -1

    def get_subword_id(self, subword):
        """The input-matrix row ``subword`` hashes to."""
        try:
            return tokens.subword_id(self.dictionary, to_bytes(subword))
        except ValueError as e:
            raise TreexcError(str(e)) from None

    def get_subwords(self, word, on_unicode_error=None):
        """``(subwords, ids)``: the word itself if known, then its character
        n-grams (with ``-maxn``), and their input rows (an int64 array)."""
        strings, ids = tokens.subwords(self.dictionary, to_bytes(word))
        decode = _decoder(on_unicode_error)
        return [decode(b) for b in strings], np.array(ids, dtype=np.int64)

    def get_input_vector(self, ind):
        """Row ``ind`` of the input matrix (a copy)."""
        if not 0 <= ind < self.w_in.shape[0]:
            raise TreexcError(f"input row {ind} out of range [0, {self.w_in.shape[0]})")
        return np.array(self.w_in[ind])

    def get_input_matrix(self):
        """A copy of the input matrix: words, then hashed buckets."""
        return np.array(self.w_in)

    def get_output_matrix(self):
        """A copy of the output matrix: a row per label (softmax, ova, ns);
        with a tree, ``arity`` rows per inner node, breadth-first (a binary
        node's sigmoid in its first row)."""
        return np.array(self.w_out)

    def set_matrices(self, input_matrix, output_matrix):
        """Replace both matrices by float32 copies of the same shapes."""
        w_in = np.array(input_matrix, dtype=np.float32)
        w_out = np.array(output_matrix, dtype=np.float32)
        if w_in.shape != self.w_in.shape or w_out.shape != self.w_out.shape:
            raise TreexcError(f"set_matrices: shapes {w_in.shape} and {w_out.shape}, the "
                              f"model's are {self.w_in.shape} and {self.w_out.shape}")
        self.w_in, self.w_out, self._unit_vectors, self._w_out_t = w_in, w_out, None, None

    def normalised_word_vectors(self):
        """The vocabulary's word vectors, each of norm 1 (0 stays 0)."""
        if self._unit_vectors is None:
            vectors = self.word_vectors().copy()
            normalise_rows(vectors)
            self._unit_vectors = vectors
        return self._unit_vectors

    def get_nearest_neighbors(self, word, k=10, on_unicode_error=None):
        """fastText's ``[(cosine similarity, word), ...]``, best first, the
        word itself left out."""
        return neighbours(self, self.get_word_vector(word), k, [word],
                          _decoder(on_unicode_error))

    def get_analogies(self, wordA, wordB, wordC, k=10, on_unicode_error=None):  # noqa: N803
        """The ``k`` words nearest to ``A - B + C`` (each normalised), the
        three left out: ``[(similarity, word), ...]``."""
        query = analogy_query(*(self.get_word_vector(w) for w in (wordA, wordB, wordC)))
        return neighbours(self, query, k, [wordA, wordB, wordC], _decoder(on_unicode_error))

    def get_line(self, text, on_unicode_error=None):
        """``(words, labels)`` of a line (``</s>`` ends the words); for a
        list of lines, ``(list of words, list of labels)``."""
        decode = _decoder(on_unicode_error)

        def split(line):
            if "\n" in line:
                raise TreexcError("get_line processes one line at a time; remove the "
                                  "newline characters")
            words, labels = tokens.split_line(self.dictionary, to_bytes(line) + b"\n")
            return [decode(w) for w in words], [decode(b) for b in labels]

        if isinstance(text, list):
            pairs = [split(line) for line in text]
            return [p[0] for p in pairs], [p[1] for p in pairs]
        return split(text)

    # -- tree (for dump-tree) -------------------------------------------------
    def tree_label_names(self):
        return self.get_labels()

    def tree_label_counts(self):
        return self.dictionary.label_counts

    def tree_statistics(self, path):
        """Statistics by path position measured on a labelled file: every
        label of a line counts (``predict_kernels.collect_statistics``)."""
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
        header = {"kind": MODEL_KIND, "args": option_values(self.args, saved_only=True),
                  "nwords": d.nwords,
                  "has_tree": self.tree is not None}
        if self.scoring:  # only converted models: the others' headers stay as they were
            header["scoring"] = self.scoring
        modelfile.save(path, header, arrays)


def load_model(path, loaded=None):
    """A classifier from ``path``, every part of the file checked first
    (``stored.read_classifier``).  ``loaded``: ``modelfile.load``'s answer,
    when the file has been read already (``classify/firstlines.py``)."""
    s = read_classifier(path, _vocabulary_table, Tree, loaded)
    a = s.args
    dictionary = Dictionary(s.pool, s.entry_off, s.entry_len, s.counts, s.nwords, a.label,
                            a.wordNgrams, a.bucket, a.minn, a.maxn)
    dictionary._table = s.vocabulary  # the table built while checking
    return Model(a, dictionary, s.tree, s.w_in, s.w_out, s.scoring)


def _decoder(on_unicode_error):
    """Bytes to str: with fastText's ``on_unicode_error`` handler when one
    is given, else keeping invalid bytes (``textio.to_str``)."""
    if on_unicode_error is None:
        return to_str
    return lambda raw: raw.decode("utf-8", on_unicode_error)


def _vocabulary_table(pool, entry_off, entry_len):
    return check_duplicates(entry_off, entry_len, pool)
