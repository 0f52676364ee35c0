"""Numba kernels of prediction: beam search down the label tree.

A child's score is a transform of its classifier's margin ``z`` (l3hinge
``exp(-max(0, 1 - z)^3)``, PECOS's, or the sigmoid), and a label's score
the product along its path, computed as a sum of logarithms.  From the
root, each level keeps the ``beam`` best nodes; the labels found below the
kept nodes are the candidates, of which the ``k`` best (scores at least
``threshold``) are the answer, exactly.  A beam as wide as the tree scores
every label: the answer is then the exact top-k of the whole tree.
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from ..array_kernels import grown

SCORER_L3HINGE = 0
SCORER_SIGMOID = 1


@njit(cache=True, nogil=True, inline="always")
def log_score(z, scorer):
    if scorer == SCORER_SIGMOID:
        return -np.log1p(np.exp(-z)) if z > -30.0 else z
    h = 1.0 - z
    return -h * h * h if h > 0.0 else 0.0


# A node's columns are searched in blocks of 2**BLOCK_SHIFT: first among
# the blocks' first columns (a node's are few, so they stay in cache), then
# within one block (a cache line or two).  gutenberg_next's model: a line's
# beam reads 31 nodes of 58,000 columns on average, and a plain binary
# search of them missed the cache at most of its 6,300 steps a line.
BLOCK_SHIFT = 4


def column_blocks(node_off, cols):
    """``(block_off, block_first)``: node ``n``'s blocks are
    ``block_off[n]:block_off[n + 1]``, block ``b``'s first column
    ``block_first[b]`` (its columns from ``node_off[n] + (b - block_off[n])
    << BLOCK_SHIFT``)."""
    counts = (np.diff(node_off) + (1 << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT
    block_off = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=block_off[1:])
    node = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    first = node_off[node] + ((np.arange(block_off[-1]) - block_off[node]) << BLOCK_SHIFT)
    return block_off, np.ascontiguousarray(cols[first], dtype=np.int32)


@njit(cache=True, nogil=True)
def node_margins(node, row_cols, row_vals, node_off, w_cols, block_off, block_first,
                 entry_off, w_slots, w_vals, z):
    """``z[j]`` = the margin of slot ``j`` of ``node`` for one line's row
    (``block_off``, ``block_first``: :func:`column_blocks`)."""
    z[:] = 0.0
    base, end = node_off[node], node_off[node + 1]
    b0, b1 = block_off[node], block_off[node + 1]
    at = base  # the row's columns are sorted, as the node's: the next one lies at or above
    for t in range(len(row_cols)):
        c = row_cols[t]
        lo, hi = b0 + ((at - base) >> BLOCK_SHIFT), b1  # the block holding c: the last
        while lo < hi:                                  # whose first column is <= c
            mid = (lo + hi) >> 1
            if block_first[mid] <= c:
                lo = mid + 1
            else:
                hi = mid
        if lo == b0:
            continue  # below the node's first column
        start = base + ((lo - 1 - b0) << BLOCK_SHIFT)
        lo, hi = max(start, at), min(start + (1 << BLOCK_SHIFT), end)
        while lo < hi:
            mid = (lo + hi) >> 1
            if w_cols[mid] < c:
                lo = mid + 1
            else:
                hi = mid
        at = lo
        if lo < end and w_cols[lo] == c:
            v = row_vals[t]
            for q in range(entry_off[lo], entry_off[lo + 1]):
                z[w_slots[q]] += w_vals[q] * v
            at = lo + 1


@njit(cache=True, nogil=True)
def _top(scores, ids, n, k):
    """Indices of the ``k`` largest of ``scores[:n]`` (ties: smaller id first)."""
    order = np.argsort(-scores[:n], kind="mergesort")
    if n > 1:  # equal scores by id
        start = 0
        for q in range(1, n + 1):
            if q == n or scores[order[q]] != scores[order[start]]:
                if q - start > 1:
                    group = order[start:q]
                    order[start:q] = group[np.argsort(ids[group], kind="mergesort")]
                start = q
    return order[:min(k, n)]


@njit(cache=True, nogil=True)
def predict_rows(indptr, indices, data, children, n_labels, node_off, w_cols, block_off,
                 block_first, entry_off, w_slots, w_vals, beam, scorer, k, threshold,
                 out_label, out_score, out_count):
    """The top-``k`` labels of each row and their log-scores; ``out_count``
    says how many pass ``threshold`` (a probability)."""
    n_internal, arity = children.shape
    log_threshold = np.log(threshold) if threshold > 0.0 else -np.inf
    z = np.empty(arity, dtype=np.float64)
    cap = beam * arity
    beam_nodes = np.empty(cap, dtype=np.int64)
    beam_logs = np.empty(cap, dtype=np.float64)
    next_nodes = np.empty(cap, dtype=np.int64)
    next_logs = np.empty(cap, dtype=np.float64)
    lab_ids = np.empty(cap, dtype=np.int64)
    lab_logs = np.empty(cap, dtype=np.float64)
    for i in range(len(indptr) - 1):
        a, b = indptr[i], indptr[i + 1]
        row_cols, row_vals = indices[a:b], data[a:b]
        n_beam = 1
        beam_nodes[0] = 0
        beam_logs[0] = 0.0
        n_lab = 0
        while n_beam > 0:
            n_next = 0
            for t in range(n_beam):
                node = beam_nodes[t]
                node_margins(node, row_cols, row_vals, node_off, w_cols, block_off,
                             block_first, entry_off, w_slots, w_vals, z)
                for j in range(arity):
                    ch = children[node, j]
                    if ch < 0:
                        continue
                    s = beam_logs[t] + log_score(z[j], scorer)
                    if ch < n_labels:
                        if n_lab == len(lab_ids):
                            lab_ids = grown(lab_ids, 2 * len(lab_ids))
                            lab_logs = grown(lab_logs, 2 * len(lab_logs))
                        lab_ids[n_lab] = ch
                        lab_logs[n_lab] = s
                        n_lab += 1
                    else:
                        next_nodes[n_next] = ch - n_labels
                        next_logs[n_next] = s
                        n_next += 1
            keep = _top(next_logs, next_nodes, n_next, beam)
            for t in range(len(keep)):
                beam_nodes[t] = next_nodes[keep[t]]
                beam_logs[t] = next_logs[keep[t]]
            n_beam = len(keep)
        best = _top(lab_logs, lab_ids, n_lab, k)
        c = 0
        for t in range(len(best)):
            s = lab_logs[best[t]]
            if s < log_threshold:
                break
            out_label[i, c] = lab_ids[best[t]]
            out_score[i, c] = s
            c += 1
        out_count[i] = c
