"""The order of the training lines in an epoch: a fresh seeded random
permutation for every pass, computed line by line, with no array.

Why shuffle: fastText reads its file in the same order every epoch. SGD
then ends every epoch on the same lines at the smallest learning rates,
and a file that is not well mixed (sorted by label, by source, by date)
trains badly. A new order each epoch measured up to +0.03 P@1 with one
thread (two Hogwild threads already vary the order: there it is within
noise on shuffled files), and turned a file sorted by label from useless
into usable (docs/trees.md, "The order of the lines").

Why no array: a permutation of the lines costs 4-8 bytes a line (228 MB
for 57M lines) and has to be redrawn each epoch while other threads read
it. Instead, position ``i`` of epoch ``lap`` is mapped through a keyed
bijection of ``[0, n)``: a four-round Feistel network on the smallest
square power of two that holds ``n`` (at most ``4n`` values), applied
again while the result falls outside ``[0, n)`` (cycle-walking keeps it a
bijection of ``[0, n)``; about two rounds of walking on average).  A
thread's lines are a pure function of ``(seed, lap, position)``, so with
``-thread 1`` training stays reproducible.  The language model, whose
stream is in memory, fills a batch of positions with :func:`fill_order`.

The classifier's threads read their shuffled epochs a window of random
blocks at a time (``text/windows``: the token cache may be larger than
memory) and call :func:`shuffled_line` within the window; the sizes of its
blocks and windows are here, with the order.
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_ROUNDS = 4

# The classifier's shuffled epochs (text/windows): a window is WINDOW_BLOCKS
# blocks of consecutive lines, and the windows of all threads together hold
# about WINDOWS_BYTES of encoded arrays (16 blocks of 256 KiB each with 2
# threads).  8 MiB, not 32: with the rest of a training run
# (docs/results/classify.md, "Corpora larger than memory") 32 MiB of windows kept peak memory above
# fastText's on gutenberg_books (219 against 205 MiB; 194 with 8); smaller
# blocks also shuffle more finely, and a window is still read in 16 reads
WINDOWS_BYTES = 8 << 20
WINDOW_BLOCKS = 16


@njit(cache=True, nogil=True, inline="always")
def _mix(x):
    """SplitMix64's finaliser: a well-mixed 64-bit hash of ``x`` (uint64)."""
    x ^= x >> np.uint64(30)
    x *= _M1
    x ^= x >> np.uint64(27)
    x *= _M2
    x ^= x >> np.uint64(31)
    return x


@njit(cache=True, nogil=True)
def epoch_key(seed, lap):
    """The permutation key of epoch ``lap`` (0, 1, ...) under ``seed``, as an
    int64 (its bits: a key passes through Python as a plain int64)."""
    return np.int64(_mix(np.uint64(seed) * _GOLDEN + np.uint64(lap) + np.uint64(1)))


@njit(cache=True, nogil=True)
def half_bits(n):
    """The least ``h`` with ``4 ** h >= n``: the Feistel halves' width."""
    h = 0
    while (1 << (2 * h)) < n:
        h += 1
    return h


@njit(cache=True, nogil=True)
def shuffled_line(i, n, key, h):
    """The line at position ``i`` (0 <= i < n) of the order keyed ``key``;
    ``h = half_bits(n)``.  A bijection of ``[0, n)`` for every key."""
    if n <= 1:
        return i
    key = np.uint64(key)
    mask = np.uint64((1 << h) - 1)
    shift = np.uint64(h)
    x = np.uint64(i)
    while True:
        left = x >> shift
        right = x & mask
        round_key = key
        for _ in range(_ROUNDS):
            left, right = right, left ^ (_mix(right ^ round_key) & mask)
            round_key += _GOLDEN
        x = (left << shift) | right
        if x < np.uint64(n):
            return np.int64(x)


def block_lines(n_lines, nbytes, n_threads):
    """Lines per block of a shuffled epoch read by ``n_threads`` threads, of
    a corpus of ``n_lines`` lines and ``nbytes`` bytes of encoded arrays:
    each thread's window of :data:`WINDOW_BLOCKS` blocks holds its share of
    :data:`WINDOWS_BYTES`, so memory does not grow with the threads."""
    block_bytes = WINDOWS_BYTES // (WINDOW_BLOCKS * max(n_threads, 1))
    return max(1, min(n_lines, block_bytes * n_lines // max(nbytes, 1)))


@njit(cache=True, nogil=True)
def fill_order(out, start, count, n, key):
    """``out[:count]`` = the lines at positions ``start..start+count`` of the
    order keyed ``key`` over ``[0, n)`` (a batch of the language model)."""
    h = half_bits(n)
    for k in range(count):
        out[k] = shuffled_line(start + k, n, key, h)
