"""The first answers of a linear model, without Numba.

Why: importing Numba and loading the cached kernels costs more CPU (and,
in the Python API, more memory: llvmlite's library alone is about 100 MiB
resident) than answering a few thousand lines with numpy.  A small input
is answered here, a batch at a time (the whole of a `treexc test` file
within the rule of :data:`FIRST_LINES` and :data:`FIRST_BYTES`); the
kernels take over once the input turns out big (:func:`first_answers`,
``io/first_answers.py``).  This module imports nothing that imports
Numba (a test checks ``sys.modules``).

What it mirrors, operation for operation, so that its answers are the
kernels' to the bit (no ``fastmath`` in those kernels: their order of
arithmetic is the source's):

* :func:`load` reads the file through ``stored.read_linear``, as
  ``model.load_linear`` does, with the kernels' two checks written with
  numpy (``text.line_features``, ``trees.tree_checks``);
* :meth:`LinearFirstLines.encode_lines` (a batch) and :meth:`row` (one
  line, ``text.line_features.LineEncoder``) are ``Dictionary.encode``
  then ``feature_kernels.tfidf_rows``: the same features of each line
  (word ids, ``</s>``, word n-gram buckets; known labels apart), columns
  sorted and counted, ``(1 + ln tf) * idf`` in float64 (libm's log),
  the l2 norm summed in column order, float32 values, the bias column
  last;
* :meth:`LinearFirstLines.predict_rows` is ``beam_kernels.predict_rows``
  (``linear/batch_beam.py``: a level of the tree at a time over the
  batch's beams), an ensemble averaged by ``ensemble.predict_trees``;
* :meth:`LinearFirstLines.evaluate` and :meth:`evaluate_ranking` are
  ``LinearModel``'s (``treexc test``, ``test-label``), on the same meter.

A model of given sparse features (``-input`` in the repository's format)
is answered by the kernels: :meth:`LinearFirstLines.predict` returns
``None`` for it.
"""

import math
import re
from itertools import repeat

import numpy as np

from ..io.first_answers import FirstAnswers
from ..io.textio import to_str
from ..meter import Meter, ranking
from ..text.line_features import (EOS_HASH, LineEncoder, fnv_hash, signed_widen,
                                   vocabulary_entries)
from ..trees.tree_checks import check_paths
from .batch_beam import SIGMOID, NodeColumns, Rows, predict_tree
from .ensemble import predict_trees
from .options import SCORERS
from .stored import read_linear

BIAS = 1.0  # features.BIAS: the bias column's value
# The rule of numpy's answers (first_answers): the first FIRST_LINES lines
# and FIRST_BYTES bytes of an input are answered here, the rest by the
# kernels (a `treexc test` file within both: all of it here).  The kernels'
# start costs 0.3-0.6 s of CPU (Numba's import, the cached kernels, the
# model's second load), then they answer a line 1.2-1.6 times cheaper.
# The whole `treexc test MODEL FILE 5`, numpy's CPU over the kernels'
# (benchmarks/bench_linear_crossover.py, medians of 3, docs/results/
# startup.md): cooking's model 0.70 at 4,000 lines (0.37 MB), 0.92 at
# 8,000; wn_hypernym's 0.80 at 4,000 (0.52 MB), 0.96 at 8,000;
# agnews_testonly's 0.52 at 4,000 (1.0 MB), 0.86 at 8,000 (2.0 MB);
# debian_tags' (long lines, 540 bytes) 0.80 at 1,000 (0.54 MB), 1.03 at
# 2,000 (1.06 MB).
FIRST_LINES = 4000
FIRST_BYTES = 1 << 19
# half the lines for the sigmoid scorer (each score two libm calls made by
# Python): cooking's -scorer sigmoid model 0.56 of the kernels' CPU at
# 1,000 lines, 0.96 at 4,000
SIGMOID_LINES = FIRST_LINES // 2
# fastText's tokens (text.line_features), and each newline as a token of its own
_TOKEN_OR_NEWLINE = re.compile(rb"[^ \n\r\t\v\f\x00]+|\n")
HASHES_KEPT = 1 << 18  # tokens whose hash a model remembers
LONG_TOKEN = 64  # bytes: a longer token is hashed by Python (_fnv_hashes)


def load(path, loaded=None):
    """A :class:`LinearFirstLines` for the linear model in ``path``, checked
    as ``model.load_linear`` checks it.  ``loaded``: ``modelfile.load``'s
    answer when the file has been read already."""
    s = read_linear(path, lambda off, lens, pool: vocabulary_entries(pool, off, lens),
                    check_paths, loaded)
    return LinearFirstLines(s)


class LinearFirstLines:
    """A checked linear model, as numpy arrays, that answers lines."""

    def __init__(self, stored):
        self.args = a = stored.args
        self.loaded = stored.loaded  # (header, arrays): the kernels' model reuses them
        self.trees = stored.trees    # (children, (node_off, cols, entry_off, slots, vals))
        keys, entry_ids = stored.table
        if stored.features is None:  # given sparse features: the kernels read them
            self.encoder = None
            self.labels = list(stored.names)
        else:
            self.encoder = LineEncoder(entry_ids, stored.nwords, a.label, a.wordNgrams,
                                       a.bucket, 0, 0)
            self.labels = [to_str(key) for key in keys[stored.nwords:]]
            kept, idf, _, _ = stored.features
            self.kept, self.idf = kept, idf.astype(np.float64)
        self.n_labels = len(self.labels)
        self.scorer = SCORERS.index(a.scorer)
        pool, entry_off, entry_len, counts = stored.vocabulary
        self.label_counts = counts[stored.nwords:]
        # the training file's lines (LinearModel.train_lines): its </s> count
        eos = entry_ids.get(b"</s>", -1) if stored.features is not None else -1
        self.train_lines = (int(counts[eos]) if 0 <= eos < stored.nwords
                            else int(self.label_counts.sum()) if stored.features is not None
                            else 0)
        self.n_cols = stored.n_cols
        self._columns_of = {}
        self._hashes = {b"\n": EOS_HASH}  # token -> hash, for the word n-grams

    @property
    def text_input(self):
        return self.encoder is not None

    def answers_text(self):
        """Does :meth:`predict` answer lines of text (a model trained on given
        features reads none)?"""
        return self.text_input

    # -- text -> rows (feature_kernels.tfidf_rows) ----------------------------
    def row(self, line, has_eos):
        """``(columns, values)`` of one line: Python ints and floats (each
        value a float32)."""
        feats = self.encoder.features(line, has_eos)
        cols, tf = [], {}
        if feats and len(self.kept):
            ids = np.array(feats, dtype=np.int64)
            place = np.minimum(np.searchsorted(self.kept, ids), len(self.kept) - 1)
            found = self.kept[place] == ids
            for c in place[found].tolist():  # the kept ids, in order of appearance
                if c in tf:
                    tf[c] += 1
                else:
                    tf[c] = 1
                    cols.append(c)
        cols.sort()
        values, norm = [], 0.0
        for c in cols:
            v = (1.0 + math.log(tf[c])) * float(self.idf[c])
            values.append(v)
            norm += v * v
        scale = 1.0 / math.sqrt(norm) if norm > 0.0 else 0.0
        data = np.array(values, dtype=np.float64) * scale
        cols.append(len(self.kept))  # the bias column
        return (np.array(cols, dtype=np.int64),
                np.append(data.astype(np.float32), np.float32(BIAS)))

    # -- text -> rows, a batch at a time -----------------------------------------
    def encode_lines(self, piece):
        """The rows of every line of ``piece`` (bytes) and its corpus
        (:class:`Lines`: the features and labels fastText's meter counts),
        the whole piece at once: each token looked up once in Python, the
        word n-grams, term counts and weights computed by numpy over all
        lines (a line's features in another order than ``LineEncoder``'s:
        its row sorts and counts them, the meter counts them)."""
        enc = self.encoder
        tokens = _TOKEN_OR_NEWLINE.findall(piece)
        n_lines = piece.count(b"\n") + (len(piece) > 0 and not piece.endswith(b"\n"))
        ids, nwords = enc.entry_ids, enc.nwords
        entry = np.fromiter(map(ids.get, tokens, repeat(-1)), dtype=np.int64,
                            count=len(tokens))
        newline = np.fromiter(map(b"\n".__eq__, tokens), dtype=bool, count=len(tokens))
        line = np.cumsum(newline) - newline  # a newline ends its own line
        entry[newline] = enc.eos_id
        label = entry >= nwords
        unknown = np.flatnonzero((entry < 0) & ~newline)
        skipped = label.copy()  # labels, known or not, are no features
        prefix = enc.prefix
        skipped[unknown[[tokens[i].startswith(prefix) for i in unknown.tolist()]]] = True
        word = ~skipped
        is_feat = word & (entry >= 0)
        feat_line, feat_ids = [line[is_feat]], [entry[is_feat]]
        if enc.word_ngrams > 1:  # over the hashes of the line's words, </s> included
            hashed = np.flatnonzero(word)
            hashes = self._hashes_of([tokens[i] for i in hashed.tolist()])
            h_line = line[hashed]
            hh = hashes  # hh[a]: the n-gram of words a..a+d (text.kernels' order of sums)
            for d in range(1, min(enc.word_ngrams, len(hashes))):
                same_line = h_line[d:] == h_line[:-d]
                if not same_line.any():
                    break
                hh = hh[:-1] * np.uint64(116049371) + hashes[d:]
                feat_line.append(h_line[:-d][same_line])
                feat_ids.append(nwords + (hh[same_line] % np.uint64(enc.bucket)).astype(np.int64))
        feat_line, feat_ids = np.concatenate(feat_line), np.concatenate(feat_ids)
        lines = Lines.of_arrays(n_lines, feat_line, line[label], entry[label] - nwords)
        return self.rows_of(feat_line, feat_ids, n_lines), lines

    def _hashes_of(self, tokens):
        """The widened FNV-1a hashes (``text.line_features``) of ``tokens``
        (``uint64``), each token's remembered (at most :data:`HASHES_KEPT`)."""
        known = self._hashes
        found = list(map(known.get, tokens))
        missing = [i for i, h in enumerate(found) if h is None]
        if missing:
            new = dict.fromkeys(tokens[i] for i in missing)
            for token, h in zip(new, _fnv_hashes(list(new)).tolist()):
                new[token] = h
            for i in missing:
                found[i] = new[tokens[i]]
            if len(known) < HASHES_KEPT:
                known.update(new)
        return np.array(found, dtype=np.uint64)

    def rows_of(self, line, ids, n):
        """:class:`Rows` of ``n`` lines of features ``ids`` (``line``: each
        one's line): :meth:`row` of each line."""
        n_kept = len(self.kept)
        if n_kept and len(ids):
            place = np.minimum(np.searchsorted(self.kept, ids), n_kept - 1)
            found = self.kept[place] == ids
            line, col = line[found], place[found]
        else:
            line = col = np.zeros(0, dtype=np.int64)
        # each line's distinct columns, ascending, and their term counts
        key = np.sort(line * (n_kept + 1) + col)
        first = np.ones(len(key), dtype=bool)
        first[1:] = key[1:] != key[:-1]
        starts = np.flatnonzero(first)
        tf = np.diff(np.append(starts, len(key)))
        key = key[starts]
        line, col = key // (n_kept + 1), key % (n_kept + 1)
        # (1 + ln tf) * idf in float64 (libm's log), the l2 norm summed in
        # column order (bincount adds in input order)
        log_tf = np.array([0.0] + [math.log(t) for t in range(1, int(tf.max(initial=1)) + 1)])
        v = (1.0 + log_tf[tf]) * self.idf[col]
        norm = np.bincount(line, weights=v * v, minlength=n)
        scale = np.zeros(n)
        positive = norm > 0.0
        scale[positive] = 1.0 / np.sqrt(norm[positive])
        data = (v * scale[line]).astype(np.float32)
        # the bias column last on every line
        per_line = np.bincount(line, minlength=n) + 1
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(per_line, out=indptr[1:])
        place = np.arange(len(line)) + line  # each line's entries shift by the biases before
        cols = np.full(indptr[-1], n_kept, dtype=np.int64)
        vals = np.full(indptr[-1], np.float32(BIAS), dtype=np.float32)
        cols[place], vals[place] = col, data
        return Rows(indptr, cols, vals)

    # -- prediction ----------------------------------------------------------
    def predict(self, piece, k, threshold):
        """``(labels, log_scores, counts)`` of every line of ``piece``
        (bytes), as ``LinearModel.predict_rows`` gives them for its rows;
        ``None`` for a model of given sparse features."""
        if not self.text_input:
            return None
        return self.predict_rows(self.encode_lines(piece)[0], k, threshold)

    def predict_rows(self, rows, k, threshold):
        """``LinearModel.predict_rows`` of :class:`Rows` (or a list of
        ``(columns, values)``)."""
        if not isinstance(rows, Rows):
            rows = Rows.of(rows)
        return predict_trees(self.trees, lambda t, k, th: predict_tree(
            t, self._columns(t), rows, self.n_labels, self.args.beam, self.scorer, k, th),
            rows.n_rows, self.n_labels, k, threshold)

    def _columns(self, tree):
        """The tree's :class:`NodeColumns` (made at its first use)."""
        found = self._columns_of.get(id(tree))
        if found is None:
            found = self._columns_of[id(tree)] = NodeColumns(tree[1], self.n_cols)
        return found

    # -- the rule: numpy's answers or the kernels' -------------------------------
    def first_answers(self):
        """The gate of numpy's answers (``io.first_answers.FirstAnswers``):
        the input's first :data:`FIRST_LINES` lines (:data:`SIGMOID_LINES`
        for the sigmoid scorer) and :data:`FIRST_BYTES` bytes, in pieces of
        any size within those (a piece is answered at once)."""
        lines = SIGMOID_LINES if self.scorer == SIGMOID else FIRST_LINES
        return FirstAnswers(lines, lines, FIRST_BYTES, FIRST_BYTES)

    def answers_at_once(self, data):
        """Does numpy answer the whole of ``data`` (a ``uint8`` array: the
        file ``treexc test`` reads at once), by :meth:`first_answers`' rule?"""
        if not self.text_input:
            return False
        n_lines = int(np.count_nonzero(data == 10)) + bool(len(data) and data[-1] != 10)
        return self.first_answers().take(n_lines, len(data))

    # -- the meter (treexc test, test-label) -----------------------------------
    @property
    def nlabels(self):
        return self.n_labels

    def get_labels(self):
        return list(self.labels)

    def evaluate(self, data, k=1, threshold=0.0, path="-"):
        """``LinearModel.evaluate`` of checked text (``uint8``)."""
        rows, lines = self.encode_lines(data.tobytes())
        labels, _, counts = self.predict_rows(rows, k, threshold)
        return Meter.from_predictions(lines, labels, counts, self.n_labels)

    def evaluate_ranking(self, data, k, threshold, metrics, A, B, path="-"):
        """``LinearModel.evaluate_ranking`` of checked text (``uint8``)."""
        rows, lines = self.encode_lines(data.tobytes())
        labels, _, counts = self.predict_rows(rows, k, threshold)
        ranks = ranking(lines, labels, counts, self.label_counts, self.train_lines, k,
                        metrics, A, B)
        return Meter.from_predictions(lines, labels, counts, self.n_labels), ranks


class Lines:
    """What the meter reads of an encoded file (``text.dictionary.Corpus``'s
    ``feat_off``, ``label_off``, ``labels``, ``n_lines``)."""

    def __init__(self, feat_off, label_off, labels):
        self.feat_off, self.label_off, self.labels = feat_off, label_off, labels

    @property
    def n_lines(self):
        return len(self.feat_off) - 1

    @classmethod
    def of_arrays(cls, n, feat_line, label_line, labels):
        """``n`` lines: each feature's line, each label's line (ascending)
        and the label ids."""
        feat_off = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(feat_line, minlength=n), out=feat_off[1:])
        label_off = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(label_line, minlength=n), out=label_off[1:])
        return cls(feat_off, label_off, labels.astype(np.int32))


def _fnv_hashes(tokens):
    """``signed_widen(fnv_hash(token))`` of each token (``uint64``): numpy
    steps through the tokens' bytes together, a byte position at a time;
    a token longer than :data:`LONG_TOKEN` bytes is hashed by Python."""
    lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    short = lengths <= LONG_TOKEN
    lengths = np.where(short, lengths, 0)
    raw = np.frombuffer(b"".join(t for t, s in zip(tokens, short.tolist()) if s),
                        dtype=np.uint8)
    start = np.cumsum(lengths) - lengths
    h = np.full(len(tokens), 2166136261, dtype=np.uint64)
    active = np.arange(len(tokens))
    for p in range(int(lengths.max(initial=0))):
        active = active[lengths[active] > p]
        b = raw[start[active] + p].astype(np.uint64)
        b = np.where(b >= 128, b | np.uint64(0xFFFFFF00), b)  # sign-extended bytes
        h[active] = ((h[active] ^ b) * np.uint64(16777619)) & np.uint64(0xFFFFFFFF)
    h = np.where(h >= 0x80000000, h | np.uint64(0xFFFFFFFF00000000), h)
    for i in np.flatnonzero(~short).tolist():
        h[i] = signed_widen(fnv_hash(tokens[i]))
    return h


