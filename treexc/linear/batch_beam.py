"""``beam_kernels.predict_rows`` with numpy alone, over a batch of rows at
once (``linear/firstlines.py`` answers with it): the tree is walked a level
at a time, every line's beam a set of (line, node, log-score) pairs whose
margins, children's scores, kept beams and labels found are numpy
operations over all the pairs of :data:`BLOCK_LINES` lines.

Its answers are the kernel's to the bit: a pair's margins are the products
(float32) added in float64 in the kernel's order (the row's columns, then
each column's entries: ``bincount`` adds its weights in input order); the
scorer as ``beam_kernels.log_score`` (the sigmoid with libm's ``exp`` and
``log1p``, Python's ``math``); the beam and the answer the best by score,
ties to the smaller id, NaN scores last in their order (``_top``).
"""

import math

import numpy as np

from .options import SCORERS

SIGMOID = SCORERS.index("sigmoid")
# lines whose beams go down the tree together: numpy's arrays of a block
# stay a few MB (cooking's model: some 1,300 products a line and tree)
BLOCK_LINES = 512
# the largest node-by-column table of a tree's weights (4 bytes a cell)
DENSE_CELLS = 1 << 22


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


def predict_tree(tree, columns, rows, n_labels, beam, scorer, k, threshold):
    """``(labels, log_scores, counts)`` of :class:`Rows` ``rows`` in one
    tree (``(children, weights)``; ``columns`` its :class:`NodeColumns`),
    as ``beam_kernels.predict_rows`` gives them."""
    n = rows.n_rows
    out_label = np.zeros((n, k), dtype=np.int64)
    out_score = np.zeros((n, k), dtype=np.float64)
    out_count = np.zeros(n, dtype=np.int64)
    log_threshold = math.log(threshold) if threshold > 0.0 else -math.inf
    for lo in range(0, n, BLOCK_LINES):
        hi = min(n, lo + BLOCK_LINES)
        line, label, score = _block_labels(tree, columns, rows, lo, hi, n_labels, beam,
                                           scorer, k)
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


def _block_labels(tree, columns, rows, lo, hi, n_labels, beam, scorer, k):
    """``(line, label, log-score)`` of the ``k`` best labels of rows
    ``lo..hi-1`` (lines counted from ``lo``), by line, best first."""
    children, weights = tree
    arity = children.shape[1]
    pair_line = np.arange(hi - lo, dtype=np.int64)
    pair_node = np.zeros(hi - lo, dtype=np.int64)
    pair_log = np.zeros(hi - lo, dtype=np.float64)
    found = []  # per level: (line, label, score) of the labels reached
    while len(pair_line):
        z = _margins(weights, columns, rows, lo + pair_line, pair_node, arity)
        child = children[pair_node].astype(np.int64)
        score = pair_log[:, None] + _log_scores(z, scorer)
        line = np.broadcast_to(pair_line[:, None], child.shape)
        label = (child >= 0) & (child < n_labels)
        found.append((line[label], child[label], score[label]))
        inner = child >= n_labels
        pair_line, pair_node, pair_log = _best_per_line(
            line[inner], child[inner] - n_labels, score[inner], beam)
    line, label, score = (np.concatenate(parts) for parts in zip(*found))
    return _best_per_line(line, label, score, k)


def _margins(weights, columns, rows, pair_line, pair_node, arity):
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


def _log_scores(z, scorer):  # beam_kernels.log_score, elementwise
    if scorer == SIGMOID:  # libm's exp and log1p, as the kernel's (not numpy's)
        out = z.copy()
        far = z > -30.0
        e = map(math.exp, (-z[far]).tolist())
        out[far] = -np.fromiter(map(math.log1p, e), dtype=np.float64, count=int(far.sum()))
        return out
    h = 1.0 - z
    return np.where(h > 0.0, -h * h * h, 0.0)


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
