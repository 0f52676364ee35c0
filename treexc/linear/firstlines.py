"""The first answers of a linear model, without Numba.

Why: importing Numba and loading the cached kernels costs more CPU (and,
in the Python API, more memory: llvmlite's library alone is about 100 MiB
resident) than answering a few lines with Python and numpy.  A short
prediction is answered here; the kernels take over once the input turns
out big (``io/first_answers.py`` says when).  This module imports nothing
that imports Numba (a test checks ``sys.modules``).

What it mirrors, operation for operation, so that its answers are the
kernels' to the bit (no ``fastmath`` in those kernels: their order of
arithmetic is the source's):

* :func:`load` reads the file through ``stored.read_linear``, as
  ``model.load_linear`` does, with the kernels' two checks written with
  numpy (``text.line_features``, ``trees.tree_checks``);
* :meth:`LinearFirstLines.rows` is ``Dictionary.encode``
  (``text.line_features.LineEncoder``) then ``feature_kernels.tfidf_rows``:
  term counts in order of appearance, columns sorted, ``(1 + ln tf) * idf``
  in float64, the l2 norm summed in column order, float32 values, the
  bias column last;
* :meth:`LinearFirstLines.predict_rows` is ``beam_kernels.predict_rows``:
  a node's margins summed in float64 over the row's columns in order (each
  product a float32), the scorer with libm's ``exp``/``log1p`` (Python's
  ``math``), the beam and the answer by score, ties by the smaller id;
  an ensemble averaged by ``ensemble.predict_trees``.

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
SIGMOID = SCORERS.index("sigmoid")
# fastText's tokens (text.line_features), and each newline as a token of its own
_TOKEN_OR_NEWLINE = re.compile(rb"[^ \n\r\t\v\f\x00]+|\n")
HASHES_KEPT = 1 << 18  # tokens whose hash a model remembers
LONG_TOKEN = 64  # bytes: a longer token is hashed by Python (_fnv_hashes)
# lines whose beams go down the tree together: numpy's arrays of a block
# stay a few MB (cooking's model: some 40 products a line and node)
BLOCK_LINES = 512
# the largest node-by-column table of a tree's weights (4 bytes a cell)
DENSE_CELLS = 1 << 22


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
        return predict_trees(self.trees, lambda t, k, th: self._predict_tree(t, rows, k, th),
                             rows.n_rows, self.n_labels, k, threshold)

    def _predict_tree(self, tree, rows, k, threshold):
        """``beam_kernels.predict_rows`` over :data:`BLOCK_LINES` rows at
        once, a level of the tree at a time: every line's beam is a set of
        (line, node, log-score) pairs; their margins, the children's scores,
        the beam kept and the labels found are numpy operations over all
        the block's pairs."""
        n = rows.n_rows
        out_label = np.zeros((n, k), dtype=np.int64)
        out_score = np.zeros((n, k), dtype=np.float64)
        out_count = np.zeros(n, dtype=np.int64)
        log_threshold = math.log(threshold) if threshold > 0.0 else -math.inf
        for lo in range(0, n, BLOCK_LINES):
            hi = min(n, lo + BLOCK_LINES)
            line, label, score = self._block_labels(tree, rows, lo, hi, k)
            rank = np.arange(len(line)) - np.searchsorted(line, line)
            # the kernel's answer stops at its first label below the threshold
            stop = np.full(hi - lo, k, dtype=np.int64)
            below = score < log_threshold
            np.minimum.at(stop, line[below], rank[below])
            keep = rank < stop[line]
            out_label[lo + line[keep], rank[keep]] = label[keep]
            out_score[lo + line[keep], rank[keep]] = score[keep]
            out_count[lo:hi] = np.minimum(stop, np.bincount(line, minlength=hi - lo))
        return out_label, out_score, out_count

    def _block_labels(self, tree, rows, lo, hi, k):
        """``(line, label, log-score)`` of the ``k`` best labels of rows
        ``lo..hi-1`` (lines counted from ``lo``), by line, best first."""
        children, weights = tree
        n_labels, arity = self.n_labels, children.shape[1]
        columns = self._columns(tree)
        pair_line = np.arange(hi - lo, dtype=np.int64)
        pair_node = np.zeros(hi - lo, dtype=np.int64)
        pair_log = np.zeros(hi - lo, dtype=np.float64)
        found = []  # per level: (line, label, score) of the labels reached
        while len(pair_line):
            z = self._batch_margins(weights, columns, rows, lo + pair_line, pair_node, arity)
            child = children[pair_node].astype(np.int64)
            score = pair_log[:, None] + self._log_scores(z)
            line = np.broadcast_to(pair_line[:, None], child.shape)
            label = (child >= 0) & (child < n_labels)
            found.append((line[label], child[label], score[label]))
            inner = child >= n_labels
            pair_line, pair_node, pair_log = _best_per_line(
                line[inner], child[inner] - n_labels, score[inner], self.args.beam)
        line, label, score = (np.concatenate(parts) for parts in zip(*found))
        return _best_per_line(line, label, score, k)

    def _columns(self, tree):
        """The tree's :class:`NodeColumns` (made at its first use)."""
        found = self._columns_of.get(id(tree))
        if found is None:
            found = self._columns_of[id(tree)] = NodeColumns(tree[1], self.n_cols)
        return found

    @staticmethod
    def _batch_margins(weights, columns, rows, pair_line, pair_node, arity):
        """``beam_kernels.node_margins`` of every pair: ``z[p, j]`` sums the
        products (float32) of slot ``j`` in the row's column order, then the
        entry's order (``bincount`` adds its weights in input order)."""
        node_off, w_cols, entry_off, w_slots, w_vals = weights
        n_pairs = len(pair_line)
        a = rows.indptr[pair_line]
        lengths = rows.indptr[pair_line + 1] - a
        pair = np.repeat(np.arange(n_pairs, dtype=np.int64), lengths)
        at = np.arange(len(pair)) + np.repeat(a - np.cumsum(lengths) + lengths, lengths)
        place = columns.find(pair_node[pair], rows.cols[at])
        hit = place >= 0
        entries, pair, values = place[hit], pair[hit], rows.vals[at[hit]]
        starts, stops = entry_off[entries], entry_off[entries + 1]
        lengths = stops - starts
        q = np.repeat(stops - lengths.cumsum(), lengths) + np.arange(lengths.sum())
        products = w_vals[q] * np.repeat(values, lengths)  # float32, as the kernel's
        slot = np.repeat(pair * arity, lengths) + w_slots[q]
        return np.bincount(slot, weights=products.astype(np.float64),
                           minlength=n_pairs * arity).reshape(n_pairs, arity)

    def _log_scores(self, z):  # beam_kernels.log_score, elementwise
        if self.scorer == SIGMOID:  # libm's exp and log1p, as the kernel's (not numpy's)
            return np.array([-math.log1p(math.exp(-x)) if x > -30.0 else x
                             for x in z.ravel().tolist()], dtype=np.float64).reshape(z.shape)
        h = 1.0 - z
        return np.where(h > 0.0, -h * h * h, 0.0)

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


class NodeColumns:
    """Where a node's weights hold a column: each node's sorted columns
    found by one lookup for any (node, column), in a dense node-by-column
    table of entry indices where that has at most :data:`DENSE_CELLS`
    cells, else by ``searchsorted`` over ``node << 32 | column`` keys
    (ascending: a node's columns are)."""

    def __init__(self, weights, n_cols):
        node_off, w_cols = weights[0], weights[1]
        n_nodes = len(node_off) - 1
        node = np.repeat(np.arange(n_nodes, dtype=np.int64), np.diff(node_off))
        self.n_cols = n_cols
        if n_nodes * n_cols <= DENSE_CELLS:
            self.table = np.full(n_nodes * n_cols, -1, dtype=np.int32)
            self.table[node * n_cols + w_cols] = np.arange(len(w_cols), dtype=np.int32)
            self.keys = None
        else:
            self.table = None
            self.keys = (node << 32) | w_cols.astype(np.int64)

    def find(self, nodes, cols):
        """The entry index of each ``(nodes[i], cols[i])``, -1 where the
        node has no weight for the column."""
        if self.table is not None:
            return self.table[nodes * self.n_cols + cols]
        keys = self.keys
        if len(keys) == 0:
            return np.full(len(cols), -1, dtype=np.int64)
        wanted = (nodes << 32) | cols
        place = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
        return np.where(keys[place] == wanted, place, -1)


class Rows:
    """Lines' rows in compressed-sparse-row arrays: ``indptr`` (int64),
    ``cols`` (int64, ascending in a row, the bias column last), ``vals``
    (float32)."""

    def __init__(self, indptr, cols, vals):
        self.indptr, self.cols, self.vals = indptr, cols, vals

    @property
    def n_rows(self):
        return len(self.indptr) - 1

    @classmethod
    def of(cls, rows):
        """The rows of a list of ``(columns, values)``."""
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([len(c) for c, _ in rows], out=indptr[1:])
        if not rows:
            return cls(indptr, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32))
        return cls(indptr, np.concatenate([c for c, _ in rows]).astype(np.int64),
                   np.concatenate([v for _, v in rows]).astype(np.float32))


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


def _best_per_line(line, ids, score, k):
    """Of ``(line, id, score)`` triples, each line's ``k`` best by score
    (ties: the smaller id; scores that are NaN last, in their order), as
    ``beam_kernels._top``; sorted by line, then best first."""
    if k <= 0 or len(line) == 0:
        return line[:0], ids[:0], score[:0]
    n_lines = int(line.max()) + 1
    if len(line) > 2 * k * n_lines:  # first drop what is below each line's k-th best
        kth = _kth_best(line, score, k, n_lines)
        keep = ~(score < kth[line])  # NaN scores (and lines whose k-th is NaN) kept
        line, ids, score = line[keep], ids[keep], score[keep]
    tie = ids
    nan = np.isnan(score)
    if nan.any():
        tie = np.where(nan, np.arange(len(ids)) + (int(ids.max()) + 1), ids)
    order = np.lexsort((tie, -score, line))
    line, ids, score = line[order], ids[order], score[order]
    rank = np.arange(len(line)) - np.searchsorted(line, line)
    keep = rank < k
    return line[keep], ids[keep], score[keep]


def _kth_best(line, score, k, n_lines):
    """Each line's ``k``-th best score (``-inf`` for a line with fewer;
    NaN where NaN scores make it one), from a line-by-candidate matrix."""
    per_line = np.bincount(line, minlength=n_lines)
    width = int(per_line.max())
    if width < k:
        return np.full(n_lines, -np.inf)
    order = np.argsort(line, kind="stable")
    place = np.arange(len(line)) - np.repeat(np.cumsum(per_line) - per_line, per_line)
    table = np.full((n_lines, width), np.inf)
    table[line[order], place] = -score[order]
    return -np.partition(table, k - 1, axis=1)[:, k - 1]


def first_answers():
    """The gate of numpy's answers (``io.first_answers.FirstAnswers``): the
    input's first :data:`FIRST_LINES` lines and :data:`FIRST_BYTES` bytes,
    in pieces of any size within those (a piece is answered at once)."""
    return FirstAnswers(FIRST_LINES, FIRST_LINES, FIRST_BYTES, FIRST_BYTES)


def answers_at_once(data):
    """Does numpy answer the whole of ``data`` (a ``uint8`` array: the file
    ``treexc test`` reads at once), by :func:`first_answers`' rule?"""
    n_lines = int(np.count_nonzero(data == 10)) + bool(len(data) and data[-1] != 10)
    return first_answers().take(n_lines, len(data))
