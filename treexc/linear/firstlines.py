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

import numpy as np

from ..io.textio import to_str
from ..text.line_features import LineEncoder, split_piece, vocabulary_entries
from ..trees.tree_checks import check_paths
from .ensemble import predict_trees
from .options import SCORERS
from .stored import read_linear

BIAS = 1.0  # features.BIAS: the bias column's value
# lines answered here before the kernels take over (io/first_answers.py):
# here a line costs about 0.5 ms of CPU (make demo's model: a beam of 10
# nodes of 16 slots, each node a few numpy calls), the kernels' start about
# 0.4 s, then microseconds a line
FIRST_LINES = 500
SIGMOID = SCORERS.index("sigmoid")


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

    # -- prediction ----------------------------------------------------------
    def predict(self, piece, k, threshold):
        """``(labels, log_scores, counts)`` of every line of ``piece``
        (bytes), as ``LinearModel.predict_rows`` gives them for its rows;
        ``None`` for a model of given sparse features."""
        if not self.text_input:
            return None
        lines, eos = split_piece(piece)
        return self.predict_rows([self.row(line, e) for line, e in zip(lines, eos)],
                                 k, threshold)

    def predict_rows(self, rows, k, threshold):
        """``LinearModel.predict_rows`` of a list of ``(columns, values)``."""
        return predict_trees(self.trees, lambda t, k, th: self._predict_tree(t, rows, k, th),
                             len(rows), self.n_labels, k, threshold)

    def _predict_tree(self, tree, rows, k, threshold):
        n = len(rows)
        out_label = np.zeros((n, k), dtype=np.int64)
        out_score = np.zeros((n, k), dtype=np.float64)
        out_count = np.zeros(n, dtype=np.int64)
        log_threshold = math.log(threshold) if threshold > 0.0 else -math.inf
        for i, (cols, vals) in enumerate(rows):
            c = 0
            for label, score in self._beam(tree, cols, vals, k):
                if score < log_threshold:
                    break
                out_label[i, c] = label
                out_score[i, c] = score
                c += 1
            out_count[i] = c
        return out_label, out_score, out_count

    def _beam(self, tree, cols, vals, k):
        """The ``k`` best ``(label, log-score)`` of one row, best first
        (``beam_kernels.predict_rows``)."""
        children, weights = tree
        n_labels, beam = self.n_labels, self.args.beam
        beam_nodes, beam_logs = [0], [0.0]
        candidates = []
        while beam_nodes:
            following = []
            for node, log in zip(beam_nodes, beam_logs):
                z = self._margins(weights, node, cols, vals, children.shape[1])
                for j, ch in enumerate(children[node].tolist()):
                    if ch < 0:
                        continue
                    s = log + self._log_score(z[j])
                    if ch < n_labels:
                        candidates.append((ch, s))
                    else:
                        following.append((ch - n_labels, s))
            kept = _top(following, beam)
            beam_nodes = [node for node, _ in kept]
            beam_logs = [s for _, s in kept]
        return _top(candidates, k)

    @staticmethod
    def _margins(weights, node, cols, vals, arity):
        """``beam_kernels.node_margins``: each slot's margin, the products
        (float32) added in the row's column order, then the entry's order."""
        node_off, w_cols, entry_off, w_slots, w_vals = weights
        lo, hi = int(node_off[node]), int(node_off[node + 1])
        if hi == lo:
            return [0.0] * arity
        segment = w_cols[lo:hi]
        place = np.minimum(np.searchsorted(segment, cols), hi - lo - 1)
        hit = segment[place] == cols
        entries = place[hit] + lo
        starts, stops = entry_off[entries], entry_off[entries + 1]
        lengths = stops - starts
        q = np.repeat(stops - lengths.cumsum(), lengths) + np.arange(lengths.sum())
        products = w_vals[q] * np.repeat(vals[hit], lengths)  # float32, as the kernel's
        return np.bincount(w_slots[q], weights=products.astype(np.float64),
                           minlength=arity).tolist()

    def _log_score(self, z):  # beam_kernels.log_score
        if self.scorer == SIGMOID:
            return -math.log1p(math.exp(-z)) if z > -30.0 else z
        h = 1.0 - z
        return -h * h * h if h > 0.0 else 0.0


def _top(pairs, k):
    """The ``k`` best ``(id, score)`` pairs, best first (ties: the smaller
    id first), as ``beam_kernels._top``."""
    return sorted(pairs, key=lambda p: (-p[1], p[0]))[:max(k, 0)]
