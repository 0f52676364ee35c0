"""Numba kernels for fastText-compatible tokenisation, hashing and encoding
(counting: ``count_kernels``).

Everything here works on raw UTF-8 bytes (``uint8`` arrays) so that a 100 MB
training file is tokenised, counted and encoded without creating one Python
object per token.

Compatibility notes (fastText 0.9.2, ``src/dictionary.cc``):

* Tokens are separated by the bytes ``' ' \\n \\r \\t \\v \\f \\0``.  Every
  ``\\n`` ends a line and produces the end-of-sentence token ``</s>``, also on
  an empty line.  Bytes after the last ``\\n`` form a final line without
  ``</s>``.
* Tokens hash with fastText's FNV-1a (``table.fnv_hash``); word n-gram
  hashes combine the signed word hashes as ``h * 116049371 + next``.
* Character n-grams are taken over ``<word>``, counted in UTF-8 characters,
  skipping the 1-grams ``<`` and ``>``.

Vocabularies are hash tables (``table``), probed by a keyed hash whose key
(``seed``) every kernel that looks tokens up is given.
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from ..array_kernels import grown
from .table import bytes_equal, fnv_hash, probe_hash, signed_widen, table_find


@njit(cache=True, nogil=True)
def eos_bytes():
    out = np.empty(4, dtype=np.uint8)
    out[0] = 60   # <
    out[1] = 47   # /
    out[2] = 115  # s
    out[3] = 62   # >
    return out


@njit(cache=True, nogil=True, inline="always")
def is_separator(c):
    return c == 32 or c == 10 or c == 13 or c == 9 or c == 11 or c == 12 or c == 0


@njit(cache=True, nogil=True, inline="always")
def next_token(buf, i):
    """The next token at or after byte ``i``, skipping separators other than
    the newline: ``(start, end)`` of a word, ``(p, p)`` for a newline at
    ``p`` (the ``</s>`` token), ``(len(buf), len(buf))`` at the end."""
    n = len(buf)
    while i < n and buf[i] != 10 and is_separator(buf[i]):
        i += 1
    end = i
    if i < n and buf[i] != 10:
        while end < n and not is_separator(buf[end]):
            end += 1
    return i, end


@njit(cache=True, nogil=True, inline="always")
def has_prefix(buf, start, end, prefix):
    if end - start < len(prefix):
        return False
    for i in range(len(prefix)):
        if buf[start + i] != prefix[i]:
            return False
    return True


@njit(cache=True, nogil=True)
def mark_labels(entry_off, entry_len, pool, prefix):
    out = np.zeros(len(entry_off), dtype=np.bool_)
    for e in range(len(entry_off)):
        out[e] = has_prefix(pool, entry_off[e], entry_off[e] + entry_len[e], prefix)
    return out


@njit(cache=True, nogil=True)
def char_ngrams(buf, start, end, scratch, minn, maxn, bucket, nwords, out, n_out):
    """Write the character n-gram ids of ``<buf[start:end]>`` to ``out`` from
    ``n_out`` on; returns the new count, or -1 if ``out`` is too small."""
    length = end - start + 2
    scratch[0] = 60  # '<'
    scratch[1:length - 1] = buf[start:end]
    scratch[length - 1] = 62  # '>'
    for i in range(length):
        if (scratch[i] & 0xC0) == 0x80:  # UTF-8 continuation byte
            continue
        j = i
        n = 1
        while j < length and n <= maxn:
            j += 1
            while j < length and (scratch[j] & 0xC0) == 0x80:
                j += 1
            if n >= minn and not (n == 1 and (i == 0 or j == length)):
                if n_out == len(out):
                    return -1
                out[n_out] = nwords + np.int64(fnv_hash(scratch, i, j) % np.uint64(bucket))
                n_out += 1
            n += 1
    return n_out


# What _encode_until_full ran out of.
DONE, NEED_LINES, NEED_FEATS, NEED_LABELS, NEED_HASHES, NEED_SCRATCH = 0, 1, 2, 3, 4, 5


@njit(cache=True, nogil=True)
def _encode_until_full(buf, i, slots, entry_hash, entry_off, entry_len, pool, nwords,
                       eos_id, prefix, word_ngrams, bucket, minn, maxn,
                       feat_off, feats, label_off, labels, ntokens, hashes, scratch,
                       state, seed):
    """Inner loop of :func:`encode_lines`, one line at a time.  When an output
    array is full it returns ``(start of the unfinished line, NEED_*)`` and
    the caller grows that array and calls again; arrays are never re-bound
    here (see ``_count_until_full``).  ``state`` = [line, n_feats, n_labels,
    bare_first, bare_count]."""
    n = len(buf)
    eos = eos_bytes()
    eos_hash = fnv_hash(eos, 0, 4)
    line, n_feats, n_labels = state[0], state[1], state[2]
    while i < n:
        if line + 1 >= len(feat_off):
            return i, NEED_LINES
        line_start = i
        f, nl, nh = n_feats, n_labels, 0
        tokens = 0
        words = 0         # word tokens other than </s>
        label_tokens = 0  # label tokens, known or not
        while True:
            if i == n:  # final line without newline: no </s> token
                break
            c = buf[i]
            if c != 10 and is_separator(c):
                i += 1
                continue
            is_eos = c == 10
            if is_eos:
                e = eos_id
                h = eos_hash
                start = end = i
            else:
                start = i
                end = i
                while end < n and not is_separator(buf[end]):
                    end += 1
                h = fnv_hash(buf, start, end)
                e = table_find(slots, entry_hash, entry_off, entry_len, pool,
                               buf, start, end, probe_hash(buf, start, end, seed))
            tokens += 1
            if e >= nwords:
                if nl == len(labels):
                    return line_start, NEED_LABELS
                labels[nl] = e - nwords
                nl += 1
                label_tokens += 1
            elif e < 0 and not is_eos and has_prefix(buf, start, end, prefix):
                label_tokens += 1  # a label unknown to the model: ignored
            else:
                if not is_eos:
                    words += 1
                if e >= 0:
                    if f == len(feats):
                        return line_start, NEED_FEATS
                    feats[f] = e
                    f += 1
                # fastText gives </s> no character n-grams, also when the
                # text spells it out
                if maxn > 0 and not is_eos and not (
                        h == eos_hash and end - start == 4
                        and bytes_equal(buf, start, 4, eos, 0)):
                    if end - start + 2 > len(scratch):
                        return line_start, NEED_SCRATCH
                    f = char_ngrams(buf, start, end, scratch, minn, maxn, bucket,
                                    nwords, feats, f)
                    if f < 0:
                        return line_start, NEED_FEATS
                if word_ngrams > 1:  # kept for the word n-grams only (8 bytes a word)
                    if nh == len(hashes):
                        return line_start, NEED_HASHES
                    hashes[nh] = signed_widen(h)
                    nh += 1
            if is_eos:
                i += 1
                break
            i = end
        # word n-grams over the line's word hashes (unknown words included)
        for a in range(nh):
            hh = hashes[a]
            for b in range(a + 1, min(nh, a + word_ngrams)):
                hh = hh * np.uint64(116049371) + hashes[b]
                if f == len(feats):
                    return line_start, NEED_FEATS
                feats[f] = nwords + np.int64(hh % np.uint64(bucket))
                f += 1
        ntokens[line] = tokens
        if label_tokens > 0 and words == 0:
            state[4] += 1
            if state[3] < 0:
                state[3] = line
        line += 1
        n_feats, n_labels = f, nl
        feat_off[line] = n_feats
        label_off[line] = n_labels
        state[0], state[1], state[2] = line, n_feats, n_labels
    return i, DONE


@njit(cache=True, nogil=True)
def encode_lines(buf, slots, entry_hash, entry_off, entry_len, pool, nwords,
                 eos_id, prefix, word_ngrams, bucket, minn, maxn, seed):
    """Turn fastText-format text into per-line feature and label ids.

    Vocabulary entries ``0..nwords-1`` are words, the rest labels (label id
    = entry - nwords).  Feature ids: word ids, then character n-grams and
    word n-grams as ``nwords + bucket index`` (fastText's input-matrix rows).

    Returns ``(feat_off, feats, label_off, labels, ntokens, bare_first,
    bare_count)``: line ``i`` has features ``feats[feat_off[i]:feat_off[i+1]]``,
    likewise labels, and ``ntokens[i]`` tokens (words, labels and ``</s>``, as
    fastText counts); ``bare_*`` locate lines with labels but no words.
    """
    n = len(buf)
    n_lines = 1
    for k in range(n):
        if buf[k] == 10:
            n_lines += 1
    feat_off = np.zeros(n_lines + 1, dtype=np.int64)
    label_off = np.zeros(n_lines + 1, dtype=np.int64)
    ntokens = np.zeros(n_lines, dtype=np.int32)
    feats = np.empty(max(16, n // 4), dtype=np.int32)
    labels = np.empty(max(16, n_lines), dtype=np.int32)
    hashes = np.empty(256, dtype=np.uint64)
    scratch = np.empty(256, dtype=np.uint8)
    state = np.array([0, 0, 0, -1, 0], dtype=np.int64)
    i = 0
    while True:
        i, need = _encode_until_full(buf, i, slots, entry_hash, entry_off, entry_len,
                                     pool, nwords, eos_id, prefix, word_ngrams, bucket,
                                     minn, maxn, feat_off, feats, label_off, labels,
                                     ntokens, hashes, scratch, state, seed)
        if need == DONE:
            break
        if need == NEED_FEATS:
            feats = grown(feats, 2 * len(feats))
        elif need == NEED_LABELS:
            labels = grown(labels, 2 * len(labels))
        elif need == NEED_HASHES:
            hashes = grown(hashes, 2 * len(hashes))
        elif need == NEED_SCRATCH:
            scratch = np.empty(2 * len(scratch), dtype=np.uint8)
        else:
            feat_off = grown(feat_off, 2 * len(feat_off))
            label_off = grown(label_off, 2 * len(label_off))
            ntokens = grown(ntokens, 2 * len(ntokens))
    line, n_feats, n_labels = state[0], state[1], state[2]
    # the features trimmed by a copy only when that copy is small: a copy of
    # a full buffer would hold both at once (a 200 MB line: 133 MB more)
    used_feats = feats[:n_feats] if 2 * n_feats >= len(feats) else feats[:n_feats].copy()
    return (feat_off[:line + 1].copy(), used_feats,
            label_off[:line + 1].copy(), labels[:n_labels].copy(), ntokens[:line].copy(),
            state[3], state[4])


@njit(cache=True, nogil=True)
def encode_stream(buf, slots, entry_hash, entry_off, entry_len, pool, vocab_of_entry,
                  eos_id, unk_id, seed):
    """Token ids of ``buf`` as one stream, ``eos_id`` at each line end
    (also after a final line without newline).

    ``slots``/``entry_*``/``pool`` is a vocabulary hash table
    (``table.build_table`` under ``seed``) and ``vocab_of_entry`` maps its entries
    to model ids (-1: too rare, becomes ``unk_id``).  Returns int32 ids.
    """
    n = len(buf)
    out = np.empty(0, dtype=np.int32)
    for write in (False, True):  # first pass: size the output
        k = 0
        i = 0
        in_line = False
        while True:
            start, end = next_token(buf, i)
            if start == n:
                break
            if start == end:  # newline
                if write:
                    out[k] = eos_id
                in_line = False
                i = end + 1
            else:
                if write:
                    e = table_find(slots, entry_hash, entry_off, entry_len, pool, buf,
                                   start, end, probe_hash(buf, start, end, seed))
                    w = vocab_of_entry[e] if e >= 0 else -1
                    out[k] = w if w >= 0 else unk_id
                in_line = True
                i = end
            k += 1
        if in_line:
            if write:
                out[k] = eos_id
            k += 1
        if not write:
            out = np.empty(k, dtype=np.int32)
    return out

