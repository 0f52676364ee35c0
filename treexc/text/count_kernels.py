"""Numba kernels counting a text's tokens (fastText's tokenisation, the
separators and ``</s>`` of ``kernels``) into a vocabulary hash table
(``table``), piece by piece, and in the same pass, where asked, each line's
labels (``label_lines``: the labels a line of ``-plan``)."""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from ..array_kernels import grown
from .kernels import eos_bytes, has_prefix, is_separator, next_token
from .table import probe_hash, table_find, table_insert_slot


# count state: what a count carries from piece to piece (int64 array)
N_ENTRIES, POOL_USED, N_LINES, MAX_LEN, SEED = 0, 1, 2, 3, 4
# with the labels' lines recorded (``rows``): rows used, the current line's
# first row, its words so far, whether one of them is a literal </s>
N_ROWS, LINE_ROW, LINE_WORDS, LINE_EOS = 5, 6, 7, 8
STATE_SIZE = 9


@njit(cache=True, nogil=True, inline="always")
def _end_line_rows(rows, state, eos_ends):
    """A line ends: its rows get its words (less a literal ``</s>`` that
    ends the file's last line, ``eos_ends``); the next line starts."""
    words = state[LINE_WORDS] - (1 if eos_ends and state[LINE_EOS] else 0)
    for k in range(state[LINE_ROW], state[N_ROWS]):
        rows[k, 3] = words
    state[LINE_ROW] = state[N_ROWS]
    state[LINE_WORDS] = 0
    state[LINE_EOS] = 0


@njit(cache=True, nogil=True)
def _count_until_full(buf, i, slots, entry_off, entry_len, entry_hash, entry_count,
                      pool, state, prefix, rows):
    """Inner loop of :func:`count_more`.  It never re-binds an array (that
    would cost reference-count traffic on every token); it returns the byte
    position at which one of the arrays needs to grow instead.  ``state``:
    see :data:`STATE_SIZE`; ``rows`` (when it has any): see
    :func:`count_more`."""
    n_entries, pool_used, n_lines, max_len = (state[N_ENTRIES], state[POOL_USED],
                                              state[N_LINES], state[MAX_LEN])
    seed = np.uint64(state[SEED])
    record = len(rows) > 0
    n = len(buf)
    while i < n:
        start, end = next_token(buf, i)
        if start == n:
            i = n
            break
        if start == end:  # newline
            entry_count[0] += 1
            if record:
                _end_line_rows(rows, state, False)
            n_lines += 1
            i = end + 1
            continue
        i = start  # where the caller resumes if an array must grow
        label = record and has_prefix(buf, start, end, prefix)
        if label and state[N_ROWS] == len(rows):
            break  # the caller grows the rows and calls again at i
        h = probe_hash(buf, start, end, seed)
        e = table_find(slots, entry_hash, entry_off, entry_len, pool, buf, start, end, h)
        if e < 0:
            length = end - start
            if (n_entries == len(entry_off) or pool_used + length > len(pool)
                    or 2 * (n_entries + 1) > len(slots)):
                break  # the caller grows the arrays and calls again at i
            pool[pool_used:pool_used + length] = buf[start:end]
            e = n_entries
            entry_off[e] = pool_used
            entry_len[e] = length
            entry_hash[e] = h
            entry_count[e] = 0
            pool_used += length
            n_entries += 1
            table_insert_slot(slots, h, e)
        entry_count[e] += 1
        max_len = max(max_len, end - start)
        if label:  # a row per distinct label entry of the line
            seen = False
            for k in range(state[LINE_ROW], state[N_ROWS]):
                if rows[k, 1] == e:
                    rows[k, 2] += 1
                    seen = True
                    break
            if not seen:
                k = state[N_ROWS]
                rows[k, 0] = n_lines
                rows[k, 1] = e
                rows[k, 2] = 1
                state[N_ROWS] = k + 1
        elif record:
            state[LINE_WORDS] += 1
            if e == 0:  # a literal </s> (entry 0)
                state[LINE_EOS] = 1
        i = end
    state[N_ENTRIES], state[POOL_USED], state[N_LINES], state[MAX_LEN] = \
        n_entries, pool_used, n_lines, max_len
    return i


@njit(cache=True, nogil=True)
def new_count_arrays(pool_size, seed):
    """The arrays of an empty count (``</s>`` as entry 0), for
    :func:`count_more`: ``(slots, entry_off, entry_len, entry_hash,
    entry_count, pool, state)``, the table probed under ``seed``."""
    cap = 1024
    entry_off = np.empty(cap, dtype=np.int64)
    entry_len = np.empty(cap, dtype=np.int32)
    entry_hash = np.empty(cap, dtype=np.uint64)
    entry_count = np.zeros(cap, dtype=np.int64)
    pool = np.empty(max(64, pool_size), dtype=np.uint8)
    slots = np.full(2048, -1, dtype=np.int32)
    pool[:4] = eos_bytes()
    entry_off[0] = 0
    entry_len[0] = 4
    entry_hash[0] = probe_hash(pool, 0, 4, seed)
    table_insert_slot(slots, entry_hash[0], 0)
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    state[N_ENTRIES], state[POOL_USED], state[MAX_LEN] = 1, 4, 4
    state[SEED] = np.int64(seed)
    return slots, entry_off, entry_len, entry_hash, entry_count, pool, state


@njit(cache=True, nogil=True)
def count_more(buf, slots, entry_off, entry_len, entry_hash, entry_count, pool, state,
               prefix, rows):
    """Count the tokens of ``buf``, the next piece of a file made of whole
    lines (but maybe the last), into the arrays of :func:`new_count_arrays`;
    returns them and ``rows``, grown where they had to (``state`` is updated
    in place).  Counting a file piece by piece gives the same entries in the
    same order as counting it whole.

    Where ``rows`` has rows (shape ``(0, 4)``: not kept), the same pass keeps
    the lines' labels (tokens starting with ``prefix``), in ``rows[:state[
    N_ROWS]]``: a row ``(line, entry, tokens, words)`` per distinct label
    entry of a line: the line's number (from the file's first), the entry,
    how many of the line's tokens spell it, and the line's other tokens
    less its ``</s>`` (what ``Corpus.drop_bare_lines`` weighs: the file's
    last line without a newline counts a literal ``</s>`` as its end)."""
    i = 0
    while True:
        i = _count_until_full(buf, i, slots, entry_off, entry_len, entry_hash,
                              entry_count, pool, state, prefix, rows)
        if i >= len(buf):
            break
        if len(rows) and state[N_ROWS] == len(rows):
            wider = np.empty((2 * len(rows), 4), dtype=np.int64)
            wider[:len(rows)] = rows
            rows = wider
        n_entries = state[N_ENTRIES]
        if n_entries == len(entry_off):
            cap = 2 * len(entry_off)
            entry_off = grown(entry_off, cap)
            entry_len = grown(entry_len, cap)
            entry_hash = grown(entry_hash, cap)
            entry_count = grown(entry_count, cap)
        if 2 * (n_entries + 1) > len(slots):  # keep the load factor under 1/2
            slots = np.full(2 * len(slots), -1, dtype=np.int32)
            for k in range(n_entries):
                table_insert_slot(slots, entry_hash[k], k)
        token_end = i
        while token_end < len(buf) and not is_separator(buf[token_end]):
            token_end += 1
        while state[POOL_USED] + token_end - i > len(pool):
            pool = grown(pool, 2 * len(pool))
    # bytes after the last newline form a line of their own
    if len(buf) > 0 and buf[len(buf) - 1] != 10:
        if len(rows):
            _end_line_rows(rows, state, True)
        state[N_LINES] += 1
    return slots, entry_off, entry_len, entry_hash, entry_count, pool, rows


@njit(cache=True, nogil=True)
def count_tokens(buf, seed):
    """Count every distinct token of ``buf`` (``</s>`` for each ``\\n``),
    the table probed under ``seed``.

    Returns ``(entry_off, entry_len, entry_count, pool, n_lines, max_len)``
    with entries in order of first occurrence; entry 0 is ``</s>``.
    """
    slots, entry_off, entry_len, entry_hash, entry_count, pool, state = \
        new_count_arrays(len(buf) // 16, seed)
    slots, entry_off, entry_len, entry_hash, entry_count, pool, _ = count_more(
        buf, slots, entry_off, entry_len, entry_hash, entry_count, pool, state,
        np.empty(0, dtype=np.uint8), np.empty((0, 4), dtype=np.int64))
    n_entries, pool_used = state[N_ENTRIES], state[POOL_USED]
    n_lines, max_len = state[N_LINES], state[MAX_LEN]
    return (entry_off[:n_entries].copy(), entry_len[:n_entries].copy(),
            entry_count[:n_entries].copy(), pool[:pool_used].copy(), n_lines, max_len)
