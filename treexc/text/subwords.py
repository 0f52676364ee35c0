"""Numba kernel for word vectors, as fastText 0.9.2 computes them.

A word's vector is the mean of its own input row (for a vocabulary word) and
the rows of its character n-grams (with ``-maxn``), never of word n-grams:
those belong to lines, not words (``FastText::getWordVector`` averages
``Dictionary::getSubwords``).  The rows are added in fastText's order and in
float32, then multiplied by ``float32(1 / count)``, so on the same matrix the
result is fastText's to the bit.
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from .kernels import char_ngrams


@njit(cache=True, nogil=True)
def _is_eos(buf, start, end):
    return (end - start == 4 and buf[start] == 60 and buf[start + 1] == 47
            and buf[start + 2] == 115 and buf[start + 3] == 62)  # "</s>"


@njit(cache=True, nogil=True)
def word_vectors(buf, word_off, word_len, word_ids, w_in, nwords, minn, maxn, bucket, out):
    """Vectors of the words ``buf[word_off[i]:word_off[i] + word_len[i]]``.

    Parameters
    ----------
    buf : uint8 (n_bytes,)
        The words' bytes (a dictionary's pool, or one word).
    word_off, word_len : int64 (n,), int32 or int64 (n,)
        Where each word lies in ``buf``.
    word_ids : int64 (n,)
        Each word's own input row, or -1 for a word outside the vocabulary
        (it then has only its character n-grams; none without ``-maxn``).
    w_in : float32 (nwords + bucket, dim)
        The input matrix.
    out : float32 (n, dim)
        Receives the vectors; zeros for a word without any row.  ``</s>``
        has no character n-grams (fastText's rule).
    """
    dim = w_in.shape[1]
    longest = 0
    for i in range(len(word_off)):
        longest = max(longest, word_len[i])
    scratch = np.empty(longest + 2, dtype=np.uint8)
    # each start position of <word> gives at most maxn n-grams, and none
    # longer than <word>: maxn comes from the model file and may be huge
    rows = np.empty((longest + 2) * min(max(maxn, 1), longest + 2) + 1, dtype=np.int64)
    acc = np.empty(dim, dtype=np.float32)
    for i in range(len(word_off)):
        start = word_off[i]
        end = start + word_len[i]
        n = 0
        if word_ids[i] >= 0:
            rows[0] = word_ids[i]
            n = 1
        if maxn > 0 and not _is_eos(buf, start, end):
            n = char_ngrams(buf, start, end, scratch, minn, maxn, bucket, nwords, rows, n)
        acc[:] = 0.0
        for r in range(n):
            row = w_in[rows[r]]
            for j in range(dim):
                acc[j] += row[j]
        scale = np.float32(1.0 / n) if n > 0 else np.float32(0.0)
        for j in range(dim):
            out[i, j] = acc[j] * scale
