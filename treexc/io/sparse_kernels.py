"""Numba kernel reading sparse lines: ``labels f:v f:v ...``.

A line's first tokens (up to the first holding a ``:``) are its labels,
each token a comma-separated list (``3,17,42`` in the Extreme
Classification Repository's files, or ``__label__x`` tokens); the rest
are ``index:value`` pairs, index a non-negative integer, value a decimal
number (``1``, ``-0.25``, ``3e-2``).  Tokens are separated by spaces and
tabs; a ``\\r`` before the newline is ignored.
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from ..array_kernels import grown

OK = 0
BAD_PAIR = 1     # a token after the first pair without ':'
BAD_INDEX = 2    # not a non-negative integer, or too large
BAD_VALUE = 3    # not a finite decimal number
EMPTY_LABEL = 4  # ",," or a trailing comma in a label list
MAX_INDEX = 2 ** 31 - 2


@njit(cache=True, nogil=True, inline="always")
def _blank(c):
    return c == 32 or c == 9 or c == 13


@njit(cache=True, nogil=True)
def _parse_index(buf, a, b):
    if a >= b:
        return -1
    v = 0
    for k in range(a, b):
        c = buf[k]
        if c < 48 or c > 57:
            return -1
        v = v * 10 + (c - 48)
        if v > MAX_INDEX:
            return -1
    return v


@njit(cache=True, nogil=True)
def _parse_value(buf, a, b):
    """``(ok, value)`` of a decimal number in ``buf[a:b]``."""
    k = a
    sign = 1.0
    if k < b and (buf[k] == 45 or buf[k] == 43):
        sign = -1.0 if buf[k] == 45 else 1.0
        k += 1
    mant = 0.0
    digits = 0
    while k < b and 48 <= buf[k] <= 57:
        mant = mant * 10.0 + (buf[k] - 48)
        k += 1
        digits += 1
    scale = 0
    if k < b and buf[k] == 46:
        k += 1
        while k < b and 48 <= buf[k] <= 57:
            mant = mant * 10.0 + (buf[k] - 48)
            scale -= 1
            k += 1
            digits += 1
    if digits == 0:
        return False, 0.0
    if k < b and (buf[k] == 101 or buf[k] == 69):
        k += 1
        esign = 1
        if k < b and (buf[k] == 45 or buf[k] == 43):
            esign = -1 if buf[k] == 45 else 1
            k += 1
        e = 0
        edigits = 0
        while k < b and 48 <= buf[k] <= 57:
            e = min(e * 10 + (buf[k] - 48), 10000)
            k += 1
            edigits += 1
        if edigits == 0:
            return False, 0.0
        scale += esign * e
    if k != b:
        return False, 0.0
    value = sign * mant * 10.0 ** scale
    if not np.isfinite(value) or abs(value) > 1e30:
        return False, 0.0
    return True, value


@njit(cache=True, nogil=True)
def parse_sparse(buf):
    """``(indptr, indices, values, label_off, label_start, label_end,
    error, error_line)``: per line its pairs and the byte ranges of its
    label names; ``error`` is one of the codes above for the first bad
    line (0-based ``error_line``), else ``OK``."""
    n = len(buf)
    n_lines = 1
    for k in range(n):
        if buf[k] == 10:
            n_lines += 1
    if n > 0 and buf[n - 1] == 10:
        n_lines -= 1
    if n == 0:
        n_lines = 0
    indptr = np.zeros(n_lines + 1, dtype=np.int64)
    label_off = np.zeros(n_lines + 1, dtype=np.int64)
    cap = max(16, n // 4)
    indices = np.empty(cap, dtype=np.int32)
    values = np.empty(cap, dtype=np.float32)
    label_start = np.empty(max(16, n_lines), dtype=np.int64)
    label_end = np.empty(max(16, n_lines), dtype=np.int64)
    n_pairs = 0
    n_names = 0
    pos = 0
    for line in range(n_lines):
        end = pos
        while end < n and buf[end] != 10:
            end += 1
        k = pos
        in_pairs = False
        while k < end:
            while k < end and _blank(buf[k]):
                k += 1
            if k >= end:
                break
            t = k
            colon = -1
            while t < end and not _blank(buf[t]):
                if buf[t] == 58 and colon < 0:
                    colon = t
                t += 1
            if colon < 0:
                if in_pairs:
                    return indptr, indices, values, label_off, label_start, label_end, \
                        BAD_PAIR, line
                a = k
                for q in range(k, t + 1):  # the names between commas
                    if q == t or buf[q] == 44:
                        if q == a:
                            return indptr, indices, values, label_off, label_start, \
                                label_end, EMPTY_LABEL, line
                        if n_names == len(label_start):
                            label_start = grown(label_start, 2 * len(label_start))
                            label_end = grown(label_end, 2 * len(label_end))
                        label_start[n_names] = a
                        label_end[n_names] = q
                        n_names += 1
                        a = q + 1
            else:
                in_pairs = True
                index = _parse_index(buf, k, colon)
                if index < 0:
                    return indptr, indices, values, label_off, label_start, label_end, \
                        BAD_INDEX, line
                good, value = _parse_value(buf, colon + 1, t)
                if not good:
                    return indptr, indices, values, label_off, label_start, label_end, \
                        BAD_VALUE, line
                if n_pairs == len(indices):
                    indices = grown(indices, 2 * len(indices))
                    values = grown(values, 2 * len(values))
                indices[n_pairs] = index
                values[n_pairs] = value
                n_pairs += 1
            k = t
        indptr[line + 1] = n_pairs
        label_off[line + 1] = n_names
        pos = end + 1
    return (indptr, indices[:n_pairs].copy(), values[:n_pairs].copy(), label_off,
            label_start[:n_names].copy(), label_end[:n_names].copy(), OK, -1)
