"""A vocabulary's hash table (Numba): fastText's FNV-1a hash of a token's
bytes, and an open-addressing table over entries whose bytes live in one
``pool`` array: ``slots`` (power-of-two size, -1 = empty) holds entry ids,
and each entry has a hash, an offset and a length into the pool.

The hash is 32-bit FNV-1a where every byte is first sign-extended (fastText
casts ``char`` to ``int8_t``), so bytes >= 0x80 hash differently from a
textbook FNV-1a.  Word n-gram hashes start from the *signed* 32-bit word
hashes widened to 64 bits (:func:`signed_widen`).
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)

_MASK32 = np.uint64(0xFFFFFFFF)


@njit(cache=True, nogil=True, inline="always")
def fnv_hash(buf, start, end):
    """fastText's 32-bit hash of ``buf[start:end]`` (returned as uint64)."""
    h = np.uint64(2166136261)
    for i in range(start, end):
        b = np.uint64(buf[i])
        if b >= 128:
            b |= np.uint64(0xFFFFFF00)  # int8_t sign extension
        h = ((h ^ b) * np.uint64(16777619)) & _MASK32
    return h



@njit(cache=True, nogil=True, inline="always")
def signed_widen(h32):
    """int32 -> uint64 conversion of a 32-bit hash, as fastText's
    ``uint64_t h = (int32_t)hash`` does (sign extension)."""
    if h32 >= np.uint64(0x80000000):
        return h32 | np.uint64(0xFFFFFFFF00000000)
    return h32



@njit(cache=True, nogil=True, inline="always")
def bytes_equal(a, a_start, length, b, b_start):
    for i in range(length):
        if a[a_start + i] != b[b_start + i]:
            return False
    return True



@njit(cache=True, nogil=True, inline="always")
def table_find(slots, entry_hash, entry_off, entry_len, pool, buf, start, end, h):
    """Entry id of ``buf[start:end]`` (hash ``h``) or -1."""
    mask = len(slots) - 1
    pos = np.int64(h) & mask
    length = end - start
    while True:
        e = slots[pos]
        if e < 0:
            return -1
        if (entry_hash[e] == h and entry_len[e] == length
                and bytes_equal(buf, start, length, pool, entry_off[e])):
            return e
        pos = (pos + 1) & mask



@njit(cache=True, nogil=True, inline="always")
def table_insert_slot(slots, h, e):
    mask = len(slots) - 1
    pos = np.int64(h) & mask
    while slots[pos] >= 0:
        pos = (pos + 1) & mask
    slots[pos] = e



@njit(cache=True, nogil=True)
def build_table_checked(entry_off, entry_len, pool):
    """Hash table over entries already stored in ``pool``.

    Returns ``(slots, entry_hash, first_duplicate)``.  A duplicate entry is
    not inserted, so lookups find the first one (what a vocabulary wants),
    and the build stays linear: inserting copies of one entry would probe
    past every earlier copy (a crafted model file with many took minutes).
    ``first_duplicate`` is the first duplicate entry's id, or -1.
    """
    n = len(entry_off)
    size = 64
    while size < 2 * n + 2:
        size *= 2
    slots = np.full(size, -1, dtype=np.int32)
    entry_hash = np.empty(n, dtype=np.uint64)
    first_duplicate = -1
    for e in range(n):
        start = entry_off[e]
        end = start + entry_len[e]
        h = fnv_hash(pool, start, end)
        entry_hash[e] = h
        if table_find(slots, entry_hash, entry_off, entry_len, pool, pool, start, end, h) >= 0:
            if first_duplicate < 0:
                first_duplicate = e
            continue
        table_insert_slot(slots, h, e)
    return slots, entry_hash, first_duplicate



@njit(cache=True, nogil=True)
def build_table(entry_off, entry_len, pool):
    """:func:`build_table_checked` without the duplicate report:
    ``(slots, entry_hash)``."""
    slots, entry_hash, _ = build_table_checked(entry_off, entry_len, pool)
    return slots, entry_hash

