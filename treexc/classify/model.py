"""A trained classifier: options, vocabulary, output tree and weights.

This is also the Python API object (``treexc.load_model`` returns one), with
fastText's method names.
"""

import numpy as np

from ..errors import TreexcError
from ..io import bus_error, modelfile
from ..io.answers import api_lines
from ..io.textio import read_text, to_bytes
from ..metrics import DEFAULT_A, DEFAULT_B, METRICS
from ..loss.registry import loss
from ..options import option_values, typed_options
from ..runtime import run_in_ranges
from ..text import tokens
from ..text.dictionary import Dictionary, check_duplicates
from ..text.pruned import PrunedDictionary
from ..text.subwords import word_vectors as subword_vectors
from ..trees.tree import Tree
from .fasttext.convert import SCORING_FASTTEXT
from .fasttext.kernels import predict_lines_fasttext
from ..text.members import FastTextMembers
from ..meter import Meter, ranking
from .options import check_k_threshold, default_threads
from .plan_rules import SCORING_MEAN
from .predict_kernels import collect_statistics, predict_lines
from .quantize.quantize import quantize_model
from .quantize.options import QuantizeArgs
from .quantize.matrix import QuantizedMatrix
from .stored import MODEL_KIND, PQ_CODES, QUANTIZED_VERSION, read_classifier

PARALLEL_LINES = 512  # lines per prediction thread, at least
SENTENCE_CHUNK = 1 << 16  # feature rows gathered at once for a sentence vector


class Model(FastTextMembers):
    def __init__(self, args, dictionary, tree, w_in, w_out, w_out_quantized=None,
                 quantization=None, scoring="", plan=None):
        self.args = args
        # what training chose and why (classify/plan.py's Plan), or a loaded
        # file's {field: rule} (None: a file from before plans were saved)
        self.plan = plan
        self.dictionary = dictionary
        self.tree = tree
        # a float32 matrix, or a QuantizedMatrix in a quantised model
        self.w_in = w_in
        self.w_out = w_out  # float32 (decoded, when quantised with -qout)
        self.w_out_quantized = w_out_quantized  # its codes, kept for save_model
        self.quantization = quantization  # what quantize did (the file's header)
        # "fasttext": converted from fastText, answers as fastText computes them;
        # "mean": a tree softmax answering with its two readings (loss.topk)
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

    # -- quantisation --------------------------------------------------------
    def is_quantized(self):
        return isinstance(self.w_in, QuantizedMatrix)

    def quantize(self, input=None, qout=False, cutoff=0, retrain=False, epoch=None,
                 lr=None, thread=None, verbose=None, dsub=2, qnorm=False, reporter=None):
        """fastText's ``quantize``, in place (``classify/quantize/quantize.py``):
        prune to the ``cutoff`` input rows of largest norm (``retrain``:
        then train them again on ``input``), product-quantise the input
        matrix (``dsub`` columns per code byte, ``qnorm``: norms apart) and
        with ``qout`` the output matrix.  The tree is unchanged."""
        q = typed_options(QuantizeArgs, output="", input=input or "", qout=qout,
                          cutoff=cutoff, retrain=retrain, epoch=epoch, lr=lr, thread=thread,
                          verbose=verbose, dsub=dsub, qnorm=qnorm)
        (self.dictionary, self.w_in, self.w_out, self.w_out_quantized,
         self.quantization) = quantize_model(self, q, reporter)

    def input_rows(self, feats):
        """``(matrix, feats)`` for the kernels: the input matrix and
        ``feats`` as they are, or for a quantised model the decoded rows
        ``feats`` uses and ``feats`` renumbered into them."""
        if self.is_quantized():
            return self.w_in.gather(feats)
        return self.w_in, feats

    # -- prediction ----------------------------------------------------------
    def encode_text(self, data):
        return self.dictionary.encode(data)

    def predict_corpus(self, corpus, k=1, threshold=0.0):
        """``(labels, log_probs, counts)`` arrays for every line of ``corpus``."""
        check_k_threshold(k, threshold)
        if k == -1:  # fastText's "unlimited": every label
            k = self.nlabels
        k = min(k, self.nlabels)
        n = corpus.n_lines
        out_label = np.zeros((n, k), dtype=np.int64)
        out_score = np.zeros((n, k), dtype=np.float64)
        out_count = np.zeros(n, dtype=np.int64)
        w_in, feats = self.input_rows(corpus.feats)

        fasttext = self.scoring == SCORING_FASTTEXT
        out_prob = np.zeros((n, k), dtype=np.float32) if fasttext else None
        if fasttext:  # flat layers: the transposed matrix, a vectorised loop
            hs = loss(self.args.loss).fixed_huffman
            w_out_t = np.zeros((1, 1), np.float32) if hs else self._transposed_output()

        def run(a, b):  # lines a..b-1; the kernel releases the GIL
            if fasttext:
                predict_lines_fasttext(corpus.feat_off[a:b + 1], feats, w_in,
                                       self.w_out, w_out_t, self.loss_kind, hs, self.children,
                                       self.nlabels, k, np.float32(threshold), out_label[a:b],
                                       out_prob[a:b], out_count[a:b])
                return
            predict_lines(corpus.feat_off[a:b + 1], feats, w_in, self.w_out,
                          self.loss_kind, self.children, self.nlabels, k, float(threshold),
                          self.scoring == SCORING_MEAN, out_label[a:b], out_score[a:b],
                          out_count[a:b])

        run_in_ranges(n, run, PARALLEL_LINES, default_threads())
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
        single, n_lines, data = api_lines(text)
        corpus = self.encode_text(data)
        labels, scores, counts = self.predict_corpus(corpus, k, threshold)
        names = self.get_labels(on_unicode_error=on_unicode_error)
        all_labels, all_probs = [], []
        for i in range(n_lines):
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

    def test_metrics(self, path, k=5, metrics=METRICS, threshold=0.0, A=DEFAULT_A,
                     B=DEFAULT_B):
        """``test``'s figures and the ranking metrics of extreme
        classification (``metrics``: among "ndcg", "psp"; A and B: the
        propensities' parameters), as ``{"N", "P@k", "R@k", "nDCG@k",
        "PSP@k"}``; treexc.metrics defines them."""
        meter, ranks = self.evaluate_ranking(read_text(path), k, threshold, metrics, A, B)
        return {"N": meter.n_examples, f"P@{k}": meter.precision(),
                f"R@{k}": meter.recall(), **ranks}

    def evaluate(self, data, k=1, threshold=0.0, path="-"):
        """The :class:`Meter` of labelled text (``path``: its name; unused,
        as the linear model's ``evaluate`` takes it)."""
        corpus = self.encode_text(data)
        labels, _, counts = self.predict_corpus(corpus, k, threshold)
        return Meter.from_predictions(corpus, labels, counts, self.nlabels)

    def evaluate_ranking(self, data, k, threshold, metrics, A=DEFAULT_A, B=DEFAULT_B,
                         path="-"):
        """``(Meter, {metric@k: value})`` of one prediction of ``data``
        (``path``: its name; unused, as the linear model's takes it)."""
        corpus = self.encode_text(data)
        labels, _, counts = self.predict_corpus(corpus, k, threshold)
        ranks = ranking(corpus, labels, counts, self.dictionary.label_counts,
                        self.train_lines(), k, metrics, A, B)
        return Meter.from_predictions(corpus, labels, counts, self.nlabels), ranks

    def train_lines(self):
        """The training file's lines, N of the propensities: the count of
        ``</s>``, one a line as fastText counts (the labels' summed counts,
        an upper bound, where a pruned vocabulary lost it)."""
        eos = self.dictionary.eos_id()
        if eos >= 0:
            return int(self.dictionary.counts[eos])
        return int(self.dictionary.label_counts.sum())

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

    def word_vectors(self, start=0, stop=None):
        """Vectors of the vocabulary words ``start..stop`` (all by default),
        in vocabulary order (the rows of the ``.vec`` file)."""
        d = self.dictionary
        stop = d.nwords if stop is None else stop
        if self.is_quantized():
            self._check_word_vectors()
            return self.w_in.rows(np.arange(start, stop))
        if self.args.maxn == 0:  # each word's own row
            return np.array(self.w_in[start:stop], dtype=np.float32)
        return self._word_vectors(d.pool, d.entry_off[start:stop], d.entry_len[start:stop],
                                  np.arange(start, stop, dtype=np.int64))

    def word_rows(self, start, stop):
        """The words ``start..stop`` and their vectors: the ``.vec`` file's
        rows, a block at a time (``io.vectors.write_vec``)."""
        return self._entries(range(start, stop), None), self.word_vectors(start, stop)

    def _word_vectors(self, buf, word_off, word_len, word_ids):
        out = np.zeros((len(word_off), self.args.dim), dtype=np.float32)
        if self.is_quantized():  # without -maxn: each word's own row
            self._check_word_vectors()
            known = word_ids >= 0
            out[known] = self.w_in.rows(word_ids[known])
            return out
        subword_vectors(buf, word_off, word_len, word_ids, self.w_in, self.dictionary.nwords,
                        self.args.minn, self.args.maxn, self.args.bucket, out)
        return out

    def _check_word_vectors(self):
        if self.args.maxn > 0:
            raise TreexcError("word vectors of a quantised model with character n-grams "
                              "(-maxn) are not available: use the model before quantize")

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
        w_in, rows = self.input_rows(rows)
        if len(rows) <= SENTENCE_CHUNK:
            return w_in[rows].mean(axis=0, dtype=np.float32)
        # a long line: its rows gathered at once took 14 GB for a 150 MB line
        # (dim 100); summed a chunk at a time instead
        total = np.zeros(w_in.shape[1], dtype=np.float64)
        for start in range(0, len(rows), SENTENCE_CHUNK):
            total += w_in[rows[start:start + SENTENCE_CHUNK]].sum(axis=0, dtype=np.float64)
        return (total / len(rows)).astype(np.float32)

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
        w_in, feats = self.input_rows(corpus.feats)
        collect_statistics(corpus.feat_off, feats, corpus.label_off, corpus.labels,
                           w_in, self.w_out, t.children, t.path_off, t.path_node,
                           stats_p, stats_n, self.loss_kind)
        return stats_p, stats_n

    # -- files ---------------------------------------------------------------
    def save_model(self, path):
        d = self.dictionary
        arrays = {
            "pool": d.pool, "entry_off": d.entry_off, "entry_len": d.entry_len,
            "counts": d.counts, "children": self.children,
        }
        # paths and verbosity say nothing about the model (and would make two
        # identical trainings differ)
        header = {"kind": MODEL_KIND, "args": option_values(self.args, saved_only=True),
                  "nwords": d.nwords,
                  "has_tree": self.tree is not None}
        if self.scoring:  # only converted models: the others' headers stay as they were
            header["scoring"] = self.scoring
        if self.plan is not None:  # what training chose and why (classify/plan.py)
            header["plan"] = self.plan if isinstance(self.plan, dict) else self.plan.header()
        if not self.is_quantized():
            arrays.update(w_in=np.asarray(self.w_in), w_out=np.asarray(self.w_out))
            modelfile.save(path, header, arrays)
            return
        # a format version of its own: an older treexc refuses it as newer
        header["quantization"] = dict(self.quantization,
                                      pruned=isinstance(d, PrunedDictionary))
        if header["quantization"]["pruned"]:
            arrays["kept_buckets"] = d.kept_buckets
        arrays.update(self.w_in.arrays("in"))
        if self.w_out_quantized is not None:
            arrays.update(self.w_out_quantized.arrays("out"))
        else:
            arrays["w_out"] = np.asarray(self.w_out)
        # the codes stay as they are (mapped when large; bytes of PQ codes
        # hardly compress); the rest is small next to them once compressed
        modelfile.save(path, header, arrays, version=QUANTIZED_VERSION,
                       compressed=[n for n in arrays if n not in PQ_CODES])


def load_model(path, loaded=None):
    """A classifier from ``path``, every part of the file checked first
    (``stored.read_classifier``).  ``loaded``: ``modelfile.load``'s answer,
    when ``classify/firstlines.py`` has read and checked the file already
    (its weights are not scanned again)."""
    if modelfile.mapping_wanted():
        bus_error.install()
    s = read_classifier(path, _vocabulary_table, Tree, loaded,
                        weights_checked=loaded is not None)
    a = s.args
    parts = (s.pool, s.entry_off, s.entry_len, s.counts, s.nwords, a.label, a.wordNgrams,
             a.bucket, a.minn, a.maxn)
    q = s.quantized
    if q is None or q.kept_buckets is None:
        dictionary = Dictionary(*parts)
    else:  # quantised with -cutoff
        dictionary = PrunedDictionary(*parts, q.kept_buckets)
    dictionary._table = s.vocabulary  # the table built while checking
    if q is None:
        return Model(a, dictionary, s.tree, s.w_in, s.w_out, scoring=s.scoring, plan=s.plan)
    w_in = QuantizedMatrix(*q.w_in)
    w_out_q = QuantizedMatrix(*q.w_out) if q.w_out is not None else None
    w_out = w_out_q.dense() if w_out_q is not None else s.w_out
    return Model(a, dictionary, s.tree, w_in, w_out, w_out_q, q.description, s.scoring,
                 s.plan)


def _vocabulary_table(pool, entry_off, entry_len):
    return check_duplicates(entry_off, entry_len, pool)
