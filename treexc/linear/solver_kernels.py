"""Numba kernels of the node classifiers: their rows, slots and weights.

Each internal node holds one binary classifier per filled child slot,
trained on the lines that reach the node (a line reaches it when one of
its labels lies below: teacher forcing), positive where a label lies below
the slot, by dual coordinate descent (``dual_kernels``: the L2-loss SVM,
a group of slots at once, or logistic regression).

Weights below ``prune`` in magnitude are dropped (the bias is kept), and
the node's weights are returned feature-major: its sorted feature
columns, and per column the slots and weights, which is what prediction
reads (a line's columns looked up in the node's).  Scratch arrays are the
calling thread's, passed in and handed back cleared.
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from ..array_kernels import grown
from .dual_kernels import solve_lr, solve_svm

SOLVER_SVM = 0
SOLVER_LR = 1
# the SVM's slots solved together (solve_svm): at the root a group's weights
# are the columns x 16 float64 (147 MB over 1.1M columns)
SLOT_GROUP = 16


@njit(cache=True, nogil=True)
def node_columns(lines, indptr, indices, column_slot):
    """The columns of the rows ``lines``, ascending; ``column_slot``
    (int32, -1, as long as the columns): scratch, left as found."""
    cols = np.empty(16, dtype=np.int32)
    m = 0
    for s in range(len(lines)):
        i = lines[s]
        for k in range(indptr[i], indptr[i + 1]):
            c = indices[k]
            if column_slot[c] < 0:
                column_slot[c] = 0
                if m == len(cols):
                    cols = grown(cols, 2 * m)
                cols[m] = c
                m += 1
    cols = np.sort(cols[:m])
    for q in range(m):
        column_slot[cols[q]] = -1
    return cols


@njit(cache=True, nogil=True)
def squared_norms(lines, indptr, data):
    """Each row of ``lines``' squared norm, its entries summed in order."""
    xnorm2 = np.zeros(len(lines), dtype=np.float64)
    for s in range(len(lines)):
        i = lines[s]
        for k in range(indptr[i], indptr[i + 1]):
            xnorm2[s] += data[k] * data[k]
    return xnorm2


@njit(cache=True, nogil=True)
def reads_in_place(n_lines, n_rows):
    """Whether a node of ``n_lines`` of the ``n_rows`` solves on the rows in
    place: one holding most lines (the root), which a copy would only
    double in memory."""
    return 2 * n_lines > n_rows


@njit(cache=True, nogil=True)
def node_rows(lines, cols, indptr, indices, data, column_slot):
    """A copy of the rows ``lines`` with the columns renumbered to their
    places in ``cols`` (the rows' columns, ascending): ``(ptr, idx, val)``.
    Each pass over it walks contiguous rows and a weight vector only as
    long as the node's columns, which stays in cache where the whole
    model's would not; the entries keep their order, so every sum runs as
    on the rows in place: the same weights to the bit.  ``column_slot``:
    scratch, left as found."""
    n = len(lines)
    for q in range(len(cols)):
        column_slot[cols[q]] = q
    ptr = np.zeros(n + 1, dtype=np.int64)
    for s in range(n):
        i = lines[s]
        ptr[s + 1] = ptr[s] + indptr[i + 1] - indptr[i]
    idx = np.empty(ptr[n], dtype=np.int32)
    val = np.empty(ptr[n], dtype=data.dtype)
    for s in range(n):
        i = lines[s]
        p = ptr[s]
        for k in range(indptr[i], indptr[i + 1]):
            idx[p] = column_slot[indices[k]]
            val[p] = data[k]
            p += 1
    for q in range(len(cols)):
        column_slot[cols[q]] = -1
    return ptr, idx, val


@njit(cache=True, nogil=True)
def slot_groups(first, last):
    """The groups of slots ``first .. last - 1`` solved together: runs of
    ``SLOT_GROUP`` slot numbers (a node's slots split alike in any call)."""
    return np.arange(first - first % SLOT_GROUP, last, SLOT_GROUP)


@njit(cache=True, nogil=True)
def train_slots(rows_at, ptr, idx, val, xnorm2, cols, in_place, positive, filled, first,
                last, C, solver, max_iter, eps, prune, seed, bias_col, w, line_weight):
    """Slots ``first .. last - 1`` of one node (those ``filled``; ``first``
    and ``last`` at group bounds, :func:`slot_groups`, or the node's
    last slot): each slot's classifier on the rows ``rows_at`` of ``(ptr,
    idx, val)`` (the rows in place, columns as ``cols`` numbers them, when
    ``in_place``; else the node's copy, ``node_rows``), ``positive[s, j]``
    whether line ``s`` is positive for slot ``j``, ``line_weight`` as
    ``train_node``'s.  The SVM solves a group's slots at once
    (:func:`solve_svm`), drawing its orders from ``seed`` and the group's
    first slot; logistic regression a slot at a time, from the slot's own
    number: a slot trains alike in whatever call.  ``w`` (float64, zero):
    scratch, as long as the columns in place or the node's columns, left
    as found.  Returns the kept weights ``(places, slots, vals, passes)``,
    slot by slot, each slot's places ascending."""
    n = len(rows_at)
    m = len(cols)
    kept_place = np.empty(64, dtype=np.int32)
    kept_slot = np.empty(64, dtype=np.int32)
    kept_val = np.empty(64, dtype=np.float32)
    n_kept = 0
    y = np.empty(n, dtype=np.float64)
    cost = np.full(n, C, dtype=np.float64)
    weighted = line_weight.shape[0] > 0
    state = np.empty(1, dtype=np.uint64)
    passes = 0
    for g0 in slot_groups(first, last):
        group = np.flatnonzero(filled[max(g0, first):min(g0 + SLOT_GROUP, last)]) \
            + max(g0, first)
        if len(group) == 0:
            continue
        W = np.zeros((len(w) if solver == SOLVER_SVM else 0, len(group)), dtype=np.float64)
        if solver == SOLVER_SVM:
            state[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(2 * g0 + 1)
            passes += solve_svm(rows_at, positive, group, xnorm2, ptr, idx, val, C,
                                line_weight, max_iter, eps, W, state)
        for jj in range(len(group)):
            j = group[jj]
            if solver == SOLVER_LR:
                for s in range(n):
                    y[s] = 1.0 if positive[s, j] else -1.0
                    if weighted:
                        cost[s] = C * line_weight[s, j]
                state[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) \
                    + np.uint64(2 * j + 1)
                passes += solve_lr(rows_at, y, xnorm2, ptr, idx, val, cost, max_iter, eps,
                                   w, state)
            for q in range(m):
                c = cols[q]
                at = c if in_place else q
                if solver == SOLVER_LR:
                    v = w[at]
                    w[at] = 0.0
                else:
                    v = W[at, jj]
                if abs(v) >= prune or (c == bias_col and v != 0.0):
                    if n_kept == len(kept_place):
                        kept_place = grown(kept_place, 2 * len(kept_place))
                        kept_slot = grown(kept_slot, 2 * len(kept_slot))
                        kept_val = grown(kept_val, 2 * len(kept_val))
                    kept_place[n_kept] = q
                    kept_slot[n_kept] = j
                    kept_val[n_kept] = v
                    n_kept += 1
    return kept_place[:n_kept].copy(), kept_slot[:n_kept].copy(), kept_val[:n_kept].copy(), \
        passes


@njit(cache=True, nogil=True)
def feature_major(cols, kept_place, kept_slot, kept_val):
    """The kept weights (``train_slots``' places, slots and values, slot by
    slot) grouped by column: ``(cols, entry_off, slots, vals)``, the used
    columns ascending, each column's slots ascending."""
    m = len(cols)
    n_kept = len(kept_place)
    count = np.zeros(m + 1, dtype=np.int64)
    for e in range(n_kept):
        count[kept_place[e] + 1] += 1
    start = np.cumsum(count)
    fill = start[:-1].copy()
    slots = np.empty(n_kept, dtype=np.int32)
    vals = np.empty(n_kept, dtype=np.float32)
    for e in range(n_kept):  # entries come slot by slot: each group stays ascending
        q = kept_place[e]
        slots[fill[q]] = kept_slot[e]
        vals[fill[q]] = kept_val[e]
        fill[q] += 1
    used = 0
    for q in range(m):
        if start[q + 1] > start[q]:
            used += 1
    out_cols = np.empty(used, dtype=np.int32)
    entry_off = np.zeros(used + 1, dtype=np.int64)
    e = 0
    for q in range(m):
        if start[q + 1] > start[q]:
            out_cols[e] = cols[q]
            entry_off[e + 1] = start[q + 1]
            e += 1
    return out_cols, entry_off, slots, vals


@njit(cache=True, nogil=True)
def train_node(lines, positive, filled, indptr, indices, data, C, solver, max_iter, eps,
               prune, seed, w, column_slot, line_weight):
    """The classifiers of one node: ``lines`` (ascending) reach it,
    ``positive[s, j]`` says whether line ``s`` is positive for slot ``j``,
    ``filled[j]`` whether slot ``j`` has a child, ``line_weight[s, j]``
    line ``s``'s weight in slot ``j``'s classifier (its cost ``C`` times
    it), or an empty array: every line weighs 1.  ``w`` (float64, zero)
    and ``column_slot`` (int32, -1), as long as the columns: scratch, left
    as found.  Returns ``(cols, entry_off, slots, vals, passes)``: the
    node's columns ascending, and for column ``cols[e]`` the slots and
    weights ``entry_off[e]:entry_off[e + 1]``.  Below the root the solver
    reads a copy of the node's rows (``node_rows``); the same slots split
    over several ``train_slots`` calls give the same weights."""
    n = len(lines)
    cols = node_columns(lines, indptr, indices, column_slot)
    xnorm2 = squared_norms(lines, indptr, data)
    in_place = reads_in_place(n, len(indptr) - 1)
    if in_place:
        rows_at, ptr, idx, val = lines, indptr, indices, data
        wv = w[:]
    else:
        rows_at = np.arange(n)
        ptr, idx, val = node_rows(lines, cols, indptr, indices, data, column_slot)
        wv = w[:len(cols)]
    places, slots, vals, passes = train_slots(
        rows_at, ptr, idx, val, xnorm2, cols, in_place, positive, filled, 0,
        positive.shape[1], C, solver, max_iter, eps, prune, seed, w.shape[0] - 1, wv,
        line_weight)
    out_cols, entry_off, slots, vals = feature_major(cols, places, slots, vals)
    return out_cols, entry_off, slots, vals, passes


@njit(cache=True, nogil=True)
def in_given_columns(cols, entry_off, slots, vals, given):
    """A node's ``(cols, entry_off, slots, vals)`` over renumbered columns
    (``cols`` ascending) over the given columns instead, ``given[c]`` that
    of column ``c``: the columns ascending again, each keeping its slots."""
    m = len(cols)
    at = np.empty(m, dtype=np.int32)
    for e in range(m):
        at[e] = given[cols[e]]
    order = np.argsort(at)
    out_cols = np.empty(m, dtype=np.int32)
    out_off = np.zeros(m + 1, dtype=np.int64)
    out_slots = np.empty(len(slots), dtype=np.int32)
    out_vals = np.empty(len(vals), dtype=np.float32)
    p = 0
    for e in range(m):
        src = order[e]
        out_cols[e] = at[src]
        for q in range(entry_off[src], entry_off[src + 1]):
            out_slots[p] = slots[q]
            out_vals[p] = vals[q]
            p += 1
        out_off[e + 1] = p
    return out_cols, out_off, out_slots, out_vals
