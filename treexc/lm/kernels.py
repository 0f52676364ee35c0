"""Numba kernels of the language model (``treexc lm``).

The dense parts of a mini-batch step (context matrices, flat softmax) are
BLAS matrix products done by the caller (numpy ``@`` on float32); these
kernels do everything around them: turning text into token ids, gathering
context embeddings, the tree softmax of a whole batch, and the sparse and
dense Adagrad updates.  All of them release the GIL, so several worker
threads run them at once on shared weights (Hogwild: the races on weight
rows and Adagrad accumulators are accepted on purpose).  Everything a
thread writes besides weights is its own: gradient buffers, touched-row
lists and tree statistics are per thread.

Shapes (``d`` = dimension, ``T`` = context size, ``B`` = batch size,
``M`` = arity): weight matrices carry their bias as an extra last column,
``(rows, d + 1)`` float32, and hidden vectors carry a constant 1 there
(``r_aug``, ``(B, d + 1)``), so one dot product is ``w . r + b``.
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from ..loss.kernels import mixture_probabilities, root_row, root_rows, safe_log
from ..loss.tree_softmax import (
    add_statistics,
    path_gradient,
    path_log_prob,
    path_part_gradient,
    path_part_log_prob,
    path_statistics,
)

# -- contexts --------------------------------------------------------------------

@njit(cache=True, nogil=True)
def gather_context(ids, positions, n_pos, context, pad_id, U, ctx, E):
    """For each of the first ``n_pos`` ``positions`` p: ``ctx[i, k]`` = the
    id of the word k+1 before p (``pad_id`` before the start of the stream)
    and ``E[i, k*d:(k+1)*d] = U[ctx[i, k], :d]``.

    ``U`` (V, >= d), ``ctx`` (B, T) int32, ``E`` (B, T*d) float32.
    """
    d = E.shape[1] // context
    for i in range(n_pos):
        p = positions[i]
        for k in range(context):
            q = p - 1 - k
            w = ids[q] if q >= 0 else pad_id
            ctx[i, k] = w
            row = U[w]
            base = k * d
            for j in range(d):
                E[i, base + j] = row[j]


@njit(cache=True, nogil=True)
def gather_targets(ids, positions, n_pos, targets):
    for i in range(n_pos):
        targets[i] = ids[positions[i]]


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def scatter_context_grad(ctx, n_pos, context, dE, gU, flags, touched, n_touched):
    """``gU[ctx[i, k], :d] += dE[i, k*d:(k+1)*d]``; rows seen for the first
    time go on the ``touched`` list (``flags`` marks them).  Returns the new
    list length."""
    d = dE.shape[1] // context
    for i in range(n_pos):
        for k in range(context):
            w = ctx[i, k]
            if flags[w] == 0:
                flags[w] = 1
                touched[n_touched] = w
                n_touched += 1
            g = gU[w]
            base = k * d
            for j in range(d):
                g[j] += dE[i, base + j]
    return n_touched


# -- Adagrad ---------------------------------------------------------------------

@njit(cache=True, nogil=True, fastmath=True, inline="always")
def _adagrad_row(p, s, g, lr, eps):
    """One row's Adagrad step, then its gradient cleared (float32
    arithmetic throughout: twice the SIMD width)."""
    for j in range(len(p)):
        gj = g[j]
        s[j] += gj * gj
        p[j] -= lr * gj / (np.sqrt(s[j]) + eps)
        g[j] = 0.0


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def adagrad_rows(param, acc, grad, touched, n_touched, flags, lr, eps):
    """Adagrad on the touched rows, then clears their gradients and flags."""
    lr = np.float32(lr)
    eps = np.float32(eps)
    for a in range(n_touched):
        r = touched[a]
        flags[r] = 0
        _adagrad_row(param[r], acc[r], grad[r], lr, eps)


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def adagrad_node_rows(param, acc, grad, touched, n_touched, flags, children, lr, eps):
    """Adagrad on the rows of the touched tree nodes (node ``n`` owns rows
    ``n*arity ..``), then clears their gradients and flags.  The rows of
    empty slots are skipped: their gradient is zero, so their step would
    change nothing, and they are most of the work where a node has few
    children (a depth-limited tree's chain links have one child in
    ``arity`` slots: at 201-ary, depth 2, skipping them made an epoch 1.3x
    faster, the weights bit for bit the same).  The root's extra rows
    (``loss.kernels.root_row``) are stepped with the root."""
    arity = children.shape[1]
    n_root_rows = root_rows(param, children)
    lr = np.float32(lr)
    eps = np.float32(eps)
    for a in range(n_touched):
        n = touched[a]
        flags[n] = 0
        for j in range(arity):
            if children[n, j] >= 0:
                r = n * arity + j
                _adagrad_row(param[r], acc[r], grad[r], lr, eps)
                if n == 0:
                    for k in range(1, n_root_rows):
                        r = root_row(children, k, j)
                        _adagrad_row(param[r], acc[r], grad[r], lr, eps)


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def adagrad_dense(param, acc, grad, lr, eps):
    """Adagrad on a whole (flattened) array."""
    lr = np.float32(lr)
    eps = np.float32(eps)
    p = param.reshape(-1)
    s = acc.reshape(-1)
    g = grad.reshape(-1)
    for j in range(len(p)):
        gj = g[j]
        s[j] += gj * gj
        p[j] -= lr * gj / (np.sqrt(s[j]) + eps)


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def adagrad_flat_chunk(U, acc, g_out, r0, r1, gU, flags, lr, eps):
    """Adagrad on rows ``r0:r1`` of the flat softmax's (tied) embeddings:
    the gradient is ``g_out[0:r1-r0]`` (the output part, from a BLAS
    product) plus ``gU`` for rows flagged as used as context or target
    (cleared here)."""
    cols = U.shape[1]
    lr = np.float32(lr)
    eps = np.float32(eps)
    for r in range(r0, r1):
        p = U[r]
        s = acc[r]
        g = g_out[r - r0]
        if flags[r]:
            flags[r] = 0
            extra = gU[r]
            for j in range(cols):
                gj = g[j] + extra[j]
                extra[j] = 0.0
                s[j] += gj * gj
                p[j] -= lr * gj / (np.sqrt(s[j]) + eps)
        else:
            for j in range(cols):
                gj = g[j]
                s[j] += gj * gj
                p[j] -= lr * gj / (np.sqrt(s[j]) + eps)


# -- flat softmax helpers --------------------------------------------------------

@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def flat_targets_grad(U, targets, n_pos, r_aug, dr, inv_b, gU, flags):
    """The one-hot part of the flat softmax gradient: ``dr[i] -= U[t_i] / B``
    and ``gU[t_i] -= r_aug[i] / B`` (rows flagged for ``adagrad_flat_chunk``)."""
    cols = U.shape[1]
    for i in range(n_pos):
        t = targets[i]
        flags[t] = 1
        u = U[t]
        g = gU[t]
        for j in range(cols):
            dr[i, j] -= inv_b * u[j]
            g[j] -= inv_b * r_aug[i, j]


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def flag_context_rows(ctx, n_pos, context, flags):
    for i in range(n_pos):
        for k in range(context):
            flags[ctx[i, k]] = 1


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def scatter_context_grad_flat(ctx, n_pos, context, dE, gU):
    d = dE.shape[1] // context
    for i in range(n_pos):
        for k in range(context):
            g = gU[ctx[i, k]]
            base = k * d
            for j in range(d):
                g[j] += dE[i, base + j]


# -- tree softmax (a batch at a time; the path kernels are loss.tree_softmax's) --

@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def tree_batch_grad(r_aug, targets, n_pos, W, children, path_off, path_node, path_slot,
                    scale, dr, gW, node_flags, touched, n_touched, probs,
                    collect, stats_p, stats_n):
    """Loss and gradients of the tree softmax for a batch, accumulated for
    Adagrad: ``path_gradient`` with ``coef = scale`` adds to ``dr[i]``
    (through ``W``) and to ``gW`` (through ``r_aug[i]``).  Nodes on the
    paths seen for the first time go on ``touched`` (their rows get the
    Adagrad step).  With ``collect``, AssignLabels' statistics too.

    Returns ``(loss sum, n_touched)``.
    """
    loss = 0.0
    for i in range(n_pos):
        target = targets[i]
        for q in range(path_off[target], path_off[target + 1]):
            n = path_node[q]
            if node_flags[n] == 0:
                node_flags[n] = 1
                touched[n_touched] = n
                n_touched += 1
        loss = path_gradient(W, children, path_off, path_node, path_slot, target, r_aug[i],
                             scale, dr[i], gW, probs, loss, collect, stats_p, stats_n)
    return loss, n_touched


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def tree_log_probs(r_aug, targets, n_pos, W, children, path_off, path_node, path_slot,
                   probs, out):
    """``out[i] = log p(targets[i] | r_aug[i])`` under the tree."""
    for i in range(n_pos):
        out[i] = path_log_prob(W, children, path_off, path_node, path_slot, targets[i],
                               r_aug[i], probs)


# Below this weight of the target's slot the shifted exponentials
# (float32) have lost their precision: the position's root falls back to
# the float64 mixture of its raw scores.
SLOT_WEIGHT_FLOOR = 1e-30


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def tree_batch_grad_given_root(r_aug, targets, n_pos, W, children, path_off, path_node,
                               path_slot, root_scores, root_exp, scale, dr, gW, root_coef,
                               node_flags, touched, n_touched, probs, collect, stats_p,
                               stats_n):
    """:func:`tree_batch_grad` with the root done for the whole batch by the
    caller: its row scores ``root_scores[i, k*arity + j]`` (row ``k`` of
    slot ``j``) and their exponentials ``root_exp[i]``, shifted by the
    position's largest score, 0 for empty slots (numpy's vectorised exp:
    a scalar exp per row here was most of the root's time).  Slot ``j``'s
    probability is ``sum_k x_kj / sum x``, so the gradient of the loss with
    respect to score ``s_kj`` is ``x_kj / sum x - [j == slot] x_kj / w_slot``
    (``w_slot``: the target slot's weight): times ``scale`` into
    ``root_coef[i]``, for the caller's products into ``dr`` and the root's
    rows of ``gW``.  The nodes below go through ``path_part_gradient`` as
    in :func:`tree_batch_grad`.  The root goes on ``touched``."""
    arity = children.shape[1]
    n_scores = root_scores.shape[1]
    loss = 0.0
    if node_flags[0] == 0:
        node_flags[0] = 1
        touched[n_touched] = 0
        n_touched += 1
    for i in range(n_pos):
        target = targets[i]
        q0, q1 = path_off[target], path_off[target + 1]
        for q in range(q0 + 1, q1):
            n = path_node[q]
            if node_flags[n] == 0:
                node_flags[n] = 1
                touched[n_touched] = n
                n_touched += 1
        slot = path_slot[q0]
        x = root_exp[i]
        total, w_slot = _total_and_slot_weight(x, arity, slot)
        coef = root_coef[i]
        if w_slot > SLOT_WEIGHT_FLOOR:
            loss -= np.log(w_slot / total)
            c = scale / total
            for kj in range(n_scores):
                coef[kj] = c * x[kj]
            c = scale / w_slot
            for kj in range(slot, n_scores, arity):
                coef[kj] -= c * x[kj]
            if collect:
                for j in range(arity):
                    probs[j] = x[j]
                for k in range(1, n_scores // arity):
                    for j in range(arity):
                        probs[j] += x[k * arity + j]
                for j in range(arity):
                    probs[j] /= total
        else:
            mixture_probabilities(root_scores[i], children, probs)
            loss -= safe_log(probs[slot])
            for k in range(n_scores // arity):
                for j in range(arity):
                    alpha = scale * (probs[j] - (1.0 if j == slot else 0.0))
                    coef[k * arity + j] = alpha * probs[(k + 1) * arity + j]
        if collect:
            add_statistics(stats_p, stats_n, q0, probs)
        loss = path_part_gradient(W, children, path_node, path_slot, q0 + 1, q1, r_aug[i],
                                  scale, dr[i], gW, probs, loss, collect, stats_p, stats_n)
    return loss, n_touched


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def _total_and_slot_weight(x, arity, slot):
    """``sum x`` (float64) and slot ``slot``'s weight ``sum_k x[k*arity + slot]``."""
    total = 0.0
    for kj in range(len(x)):
        total += x[kj]
    w_slot = 0.0
    for kj in range(slot, len(x), arity):
        w_slot += x[kj]
    return total, w_slot


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def tree_log_probs_given_root(r_aug, targets, n_pos, W, children, path_off, path_node,
                              path_slot, root_scores, root_exp, probs, out):
    """:func:`tree_log_probs` with the root done for the batch (as
    :func:`tree_batch_grad_given_root`)."""
    arity = children.shape[1]
    for i in range(n_pos):
        target = targets[i]
        q0 = path_off[target]
        slot = path_slot[q0]
        total, w_slot = _total_and_slot_weight(root_exp[i], arity, slot)
        if w_slot > SLOT_WEIGHT_FLOOR:
            lp = np.log(w_slot / total)
        else:
            mixture_probabilities(root_scores[i], children, probs, False)
            lp = np.log(max(probs[slot], 1e-300))
        out[i] = lp + path_part_log_prob(W, children, path_node, path_slot, q0 + 1,
                                         path_off[target + 1], r_aug[i], probs)


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def tree_collect(r_aug, targets, n_pos, W, children, path_off, path_node, path_slot,
                 probs, stats_p, stats_n):
    """AssignLabels' statistics of a batch without training: for
    ``dump-tree``'s node measures on a data file."""
    for i in range(n_pos):
        path_statistics(W, children, path_off, path_node, targets[i], r_aug[i], probs,
                        stats_p, stats_n)
