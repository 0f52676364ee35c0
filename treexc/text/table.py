"""A vocabulary's hash table (Numba): fastText's FNV-1a hash of a token's
bytes, and an open-addressing table over entries whose bytes live in one
``pool`` array: ``slots`` (power-of-two size, -1 = empty) holds entry ids,
and each entry has a probe key, an offset and a length into the pool.

The FNV-1a hash is 32-bit, every byte first sign-extended (fastText casts
``char`` to ``int8_t``), so bytes >= 0x80 hash differently from a textbook
FNV-1a.  It defines what fastText's models hold: the n-gram buckets (word
n-gram hashes start from the *signed* 32-bit word hashes widened to 64
bits, :func:`signed_widen`).

The table does not probe by it: FNV-1a is public and weak, and 65,536
distinct words sharing one 32-bit FNV-1a value take seconds to generate;
probed by that value they make one chain, and counting or encoding a text
of them costs a probe past every earlier one for each word (quadratic:
more than 300 s for 6.4 MB, fastText 0.9.2 hangs likewise).  The table is
probed by :func:`probe_hash` instead, SipHash-1-3 (a keyed hash made
against such flooding) under :data:`PROBE_SEED`, drawn at random when a
process starts: nobody outside the process can know which words collide.
Where a word's entry lands in the table never shows in what treexc
computes (entry ids come from the order of first occurrence), so models
stay byte for byte the same.
"""

import os

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)

_MASK32 = np.uint64(0xFFFFFFFF)
# the probe hash's key: a process's own, never written anywhere
PROBE_SEED = np.uint64(int.from_bytes(os.urandom(8), "little"))


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
def _rotl(x, b):
    return (x << np.uint64(b)) | (x >> np.uint64(64 - b))


@njit(cache=True, nogil=True, inline="always")
def _sip_round(v0, v1, v2, v3):
    v0 += v1
    v1 = _rotl(v1, 13) ^ v0
    v0 = _rotl(v0, 32)
    v2 += v3
    v3 = _rotl(v3, 16) ^ v2
    v0 += v3
    v3 = _rotl(v3, 21) ^ v0
    v2 += v1
    v1 = _rotl(v1, 17) ^ v2
    v2 = _rotl(v2, 32)
    return v0, v1, v2, v3


@njit(cache=True, nogil=True, inline="always")
def probe_hash(buf, start, end, seed):
    """SipHash-1-3 of ``buf[start:end]`` under the key ``(seed, ~seed)``:
    where the table probes for a token (a uint64)."""
    k0 = np.uint64(seed)
    k1 = ~k0
    v0 = k0 ^ np.uint64(0x736F6D6570736575)
    v1 = k1 ^ np.uint64(0x646F72616E646F6D)
    v2 = k0 ^ np.uint64(0x6C7967656E657261)
    v3 = k1 ^ np.uint64(0x7465646279746573)
    length = end - start
    i = start
    while i + 8 <= end:
        m = np.uint64(0)
        for j in range(8):
            m |= np.uint64(buf[i + j]) << np.uint64(8 * j)
        v3 ^= m
        v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
        v0 ^= m
        i += 8
    m = np.uint64(length & 0xFF) << np.uint64(56)
    for j in range(end - i):
        m |= np.uint64(buf[i + j]) << np.uint64(8 * j)
    v3 ^= m
    v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
    v0 ^= m
    v2 ^= np.uint64(0xFF)
    for _ in range(3):
        v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


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
    """Entry id of ``buf[start:end]`` (probe key ``h``: :func:`probe_hash`)
    or -1; ``entry_hash`` holds the entries' probe keys."""
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
def find_bytes(slots, entry_hash, entry_off, entry_len, pool, raw, seed):
    """Entry id of all of ``raw`` or -1 (a table built under ``seed``)."""
    return table_find(slots, entry_hash, entry_off, entry_len, pool, raw, 0, len(raw),
                      probe_hash(raw, 0, len(raw), seed))


@njit(cache=True, nogil=True)
def build_table_checked(entry_off, entry_len, pool, seed):
    """Hash table over entries already stored in ``pool``.

    Returns ``(slots, entry_hash, first_duplicate)``, ``entry_hash`` the
    entries' probe keys under ``seed``.  A duplicate entry is
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
        h = probe_hash(pool, start, end, seed)
        entry_hash[e] = h
        if table_find(slots, entry_hash, entry_off, entry_len, pool, pool, start, end, h) >= 0:
            if first_duplicate < 0:
                first_duplicate = e
            continue
        table_insert_slot(slots, h, e)
    return slots, entry_hash, first_duplicate



@njit(cache=True, nogil=True)
def build_table(entry_off, entry_len, pool, seed):
    """:func:`build_table_checked` without the duplicate report:
    ``(slots, entry_hash)``."""
    slots, entry_hash, _ = build_table_checked(entry_off, entry_len, pool, seed)
    return slots, entry_hash

