"""Numba kernels of word vector training (fastText's skipgram and cbow),
run by several threads at once on shared weights (Hogwild).

One call of :func:`train_thread` runs one worker until the shared token
counter reaches ``stop_at`` (or ``control[0]`` asks it to stop).  The
kernels release the GIL and update ``w_in`` and ``w_out`` without locks;
everything else a thread writes is its own slot (``progress[t]``,
``loss_sum[t]``, ``loss_n[t]``, ``cursor[t]``, ``rng_state[t]``,
``stats_*[t]``), so counters and tree statistics are exact.

What fastText 0.9.2 does, and so these kernels (``FastText::skipgram``,
``cbow``, ``Model::update``, ``Dictionary::getLine``):

* A line is read up to ``MAX_LINE_SIZE`` known tokens (a longer line goes on
  as the next one); each word is kept with probability ``pdiscard[word]``
  (``-t`` subsampling), drawn for every token.
* Each position gets a window ``b`` uniform in ``1..ws``.  skipgram: the
  centre word's subword rows predict each word within ``b`` (one update per
  context word, the hidden vector recomputed each time); cbow: the mean of
  the subword rows of all words within ``b`` predicts the centre word.
* The input gradient is added to every input row as it is (word vectors do
  not divide it by the number of rows, unlike the classifier).
* The rate falls linearly from ``lr`` to 0 over all tokens of all epochs,
  read from the shared counter every ``lrUpdateRate`` tokens.

Losses: ``LOSS_NS`` draws ``neg`` negatives from fastText's table (each word
``sqrt(count)`` times in 10M slots, shuffled), redrawing the target;
``LOSS_TREE`` is a softmax along the target's path in an output tree
(``loss.tree_softmax``): a binary Huffman tree is fastText's ``hs``, the flat
tree its ``softmax``, a learned tree collects AssignLabels' statistics.
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from ..array_kernels import all_finite, axpy
from ..loss.kernels import binary_logistic, next_random
from ..loss.tree_softmax import path_gradient
from ..text.kernels import char_ngrams

LOSS_NS, LOSS_TREE = 0, 1
CBOW, SKIPGRAM = 0, 1
MAX_LINE_SIZE = 1024  # fastText's Dictionary::MAX_LINE_SIZE
# ``control[0]``: 0 run, STOP stop (Ctrl-C, an error elsewhere), DIVERGED a
# worker met a NaN or infinite value (nothing is saved)
STOP, DIVERGED = 1, 2


@njit(cache=True, nogil=True)
def subword_table(pool, entry_off, entry_len, nwords, minn, maxn, bucket):
    """Every word's input rows, as ``Dictionary::initNgrams``: the word's
    own row, then its character n-grams' (none for ``</s>`` or without
    ``-maxn``).  Returns ``(offsets int64 (nwords + 1,), rows int32)``."""
    longest = 1
    for i in range(nwords):
        longest = max(longest, entry_len[i])
    scratch = np.empty(longest + 2, dtype=np.uint8)
    one = np.empty((longest + 2) * min(max(maxn, 1), longest + 2) + 1, dtype=np.int64)
    off = np.zeros(nwords + 1, dtype=np.int64)
    rows = np.empty(max(16, nwords * 4), dtype=np.int32)
    n_rows = 0
    for w in range(nwords):
        start = entry_off[w]
        end = start + entry_len[w]
        n = 0
        is_eos = (end - start == 4 and pool[start] == 60 and pool[start + 1] == 47
                  and pool[start + 2] == 115 and pool[start + 3] == 62)
        if maxn > 0 and not is_eos:
            n = char_ngrams(pool, start, end, scratch, minn, maxn, bucket, nwords, one, 0)
        if n_rows + n + 1 > len(rows):
            grown = np.empty(2 * (n_rows + n + 1), dtype=np.int32)
            grown[:n_rows] = rows[:n_rows]
            rows = grown
        rows[n_rows] = w
        for k in range(n):
            rows[n_rows + 1 + k] = one[k]
        n_rows += n + 1
        off[w + 1] = n_rows
    return off, rows[:n_rows].copy()


@njit(cache=True, nogil=True, inline="always")
def uniform(rng_state, t):
    """A float in [0, 1) from ``rng_state[t]``."""
    return (next_random(rng_state, t) >> 10) * (1.0 / 9007199254740992.0)


@njit(cache=True, nogil=True, fastmath=True)
def update(inputs, n_inputs, target, w_in, w_out, hidden, grad, loss_kind, neg_table, neg,
           children, path_off, path_node, path_slot, probs, lr, rng_state, thread,
           collect, stats_p, stats_n):
    """``Model::update``: the mean of the input rows ``inputs[:n_inputs]``
    predicts ``target``; the gradient is added to each input row.  Returns
    the loss (>= 0), or -1 when the hidden vector or gradient is not finite
    (a flag, not NaN: ``fastmath`` folds NaN tests away)."""
    hidden[:] = 0.0
    for k in range(n_inputs):
        axpy(np.float32(1.0), w_in[inputs[k]], hidden)
    inv = np.float32(1.0 / n_inputs)
    for i in range(len(hidden)):
        hidden[i] *= inv
    grad[:] = 0.0
    if loss_kind == LOSS_NS:
        loss = binary_logistic(w_out, target, hidden, grad, True, lr)
        for _ in range(neg):
            other = target
            while other == target:
                other = neg_table[next_random(rng_state, thread) % len(neg_table)]
            loss += binary_logistic(w_out, other, hidden, grad, False, lr)
    else:
        loss = path_gradient(w_out, children, path_off, path_node, path_slot, target, hidden,
                             -lr, grad, w_out, probs, 0.0, collect, stats_p, stats_n)
    if not (all_finite(grad) and all_finite(hidden)):
        return -1.0
    for k in range(n_inputs):
        axpy(np.float32(1.0), grad, w_in[inputs[k]])
    return loss


@njit(cache=True, nogil=True)
def learning_rate(lr0, x):
    """fastText's rate at ``x``, the fraction of all tokens done."""
    return lr0 * max(0.0, 1.0 - x)


@njit(cache=True, nogil=True, fastmath=True)
def train_thread(thread, feat_off, feats, sub_off, sub_rows, pdiscard, w_in, w_out,
                 model_kind, loss_kind, neg_table, neg, ws, children, path_off, path_node,
                 path_slot, lr0, total_tokens, lr_update_rate, progress, stop_at, control,
                 loss_sum, loss_n, cursor, rng_state, collect, stats_p, stats_n):
    """Train on lines from ``cursor[thread]`` on (cycling through the
    corpus, line ``i`` being ``feats[feat_off[i]:feat_off[i + 1]]``) until
    ``sum(progress) >= stop_at`` or ``control[0]`` is set; returns the rate
    last used.  A line's tokens count towards progress whether kept or not."""
    dim = w_in.shape[1]
    n_lines = len(feat_off) - 1
    hidden = np.zeros(dim, dtype=np.float32)
    grad = np.zeros(dim, dtype=np.float32)
    probs = np.zeros(max(children.shape[1], 2), dtype=np.float64)
    words = np.empty(MAX_LINE_SIZE, dtype=np.int32)
    longest = 1
    for w in range(len(sub_off) - 1):
        longest = max(longest, sub_off[w + 1] - sub_off[w])
    bow = np.empty(2 * ws * longest, dtype=np.int32)
    line = cursor[thread]
    k = feat_off[line]  # the next token of the line
    done = 0
    for t in range(len(progress)):
        done += progress[t]
    local = 0
    lr = lr0
    while done < stop_at and control[0] == 0:
        lr = learning_rate(lr0, done / total_tokens)
        while local < lr_update_rate:
            # the next piece of at most MAX_LINE_SIZE tokens, subsampled
            end = min(feat_off[line + 1], k + MAX_LINE_SIZE)
            n = 0
            for j in range(k, end):
                w = feats[j]
                if uniform(rng_state, thread) <= pdiscard[w]:
                    words[n] = w
                    n += 1
            local += end - k
            k = end
            if k == feat_off[line + 1]:
                line += 1
                if line == n_lines:
                    line = 0
                k = feat_off[line]
            for p in range(n):
                b = 1 + next_random(rng_state, thread) % ws
                lo, hi = max(0, p - b), min(n, p + b + 1)
                if model_kind == SKIPGRAM:
                    w = words[p]
                    s0, s1 = sub_off[w], sub_off[w + 1]
                    for c in range(lo, hi):
                        if c == p:
                            continue
                        loss = update(sub_rows[s0:s1], s1 - s0, words[c], w_in, w_out, hidden,
                                      grad, loss_kind, neg_table, neg, children, path_off,
                                      path_node, path_slot, probs, lr, rng_state, thread,
                                      collect, stats_p[thread], stats_n[thread])
                        if loss < 0.0:
                            control[0] = DIVERGED
                            break
                        loss_sum[thread] += loss
                        loss_n[thread] += 1
                else:
                    m = 0
                    for c in range(lo, hi):
                        if c == p:
                            continue
                        w = words[c]
                        for r in range(sub_off[w], sub_off[w + 1]):
                            bow[m] = sub_rows[r]
                            m += 1
                    if m == 0:
                        continue
                    loss = update(bow, m, words[p], w_in, w_out, hidden, grad, loss_kind,
                                  neg_table, neg, children, path_off, path_node, path_slot,
                                  probs, lr, rng_state, thread, collect, stats_p[thread],
                                  stats_n[thread])
                    if loss < 0.0:
                        control[0] = DIVERGED
                    else:
                        loss_sum[thread] += loss
                        loss_n[thread] += 1
                if control[0] != 0:
                    break
            if control[0] != 0:
                break
        progress[thread] += local
        local = 0
        done = 0
        for t in range(len(progress)):
            done += progress[t]
    # where the next call goes on: the line's start (a split line is taken
    # again from its beginning; the counters stay exact)
    cursor[thread] = line
    return lr
