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


@njit(cache=True, nogil=True)
def node_margins(node, row_cols, row_vals, node_off, w_cols, entry_off, w_slots, w_vals, z):
    """``z[j]`` = the margin of slot ``j`` of ``node`` for one line's row."""
    z[:] = 0.0
    lo0, hi0 = node_off[node], node_off[node + 1]
    for t in range(len(row_cols)):
        c = row_cols[t]
        lo, hi = lo0, hi0
        while lo < hi:  # the node's columns are sorted
            mid = (lo + hi) >> 1
            if w_cols[mid] < c:
                lo = mid + 1
            else:
                hi = mid
        lo0 = lo  # the row's columns are sorted too: the next one lies above
        if lo < hi0 and w_cols[lo] == c:
            v = row_vals[t]
            for q in range(entry_off[lo], entry_off[lo + 1]):
                z[w_slots[q]] += w_vals[q] * v
            lo0 = lo + 1


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
def predict_rows(indptr, indices, data, children, n_labels, node_off, w_cols, entry_off,
                 w_slots, w_vals, beam, scorer, k, threshold, out_label, out_score, out_count):
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
                node_margins(node, row_cols, row_vals, node_off, w_cols, entry_off, w_slots,
                             w_vals, z)
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
