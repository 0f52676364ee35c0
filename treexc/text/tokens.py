"""A word's subwords and a line's tokens as fastText's Python API returns
them (``get_subwords``, ``get_line``, ``get_word_id``, ``get_subword_id``),
on bytes, one word or line at a time.

fastText's rules (``Dictionary::getSubwords``, ``computeSubwords``,
``readWord``, the ``getLine`` of its Python binding): an entry is looked up
among words *and* labels; a word's subwords are its own entry (when known)
then the character n-grams of ``<word>`` (``minn..maxn`` UTF-8 characters,
not the lone ``<`` or ``>``; none for ``</s>``), each hashed into
``nwords + hash % bucket``; a line is cut at fastText's separators, a
newline is the token ``</s>`` and ends it; unknown tokens are words unless
they start with the label prefix, and unknown labels are dropped.
"""

import numpy as np

from . import table

SEPARATORS = b" \n\r\t\v\f\x00"
EOS = b"</s>"


def entry_id(dictionary, raw):
    """fastText's ``Dictionary::getId``: the entry (word or label) of the
    bytes ``raw``, or -1."""
    buf = np.frombuffer(raw, dtype=np.uint8)
    d = dictionary
    slots, entry_hash = d.table()
    return int(table.find_bytes(slots, entry_hash, d.entry_off, d.entry_len, d.pool, buf,
                                table.PROBE_SEED))


def subword_id(dictionary, raw):
    """``nwords + hash(raw) % bucket``: the input row a subword hashes to."""
    if dictionary.bucket < 1:
        raise ValueError("the model has no hashed buckets (-bucket 0)")
    buf = np.frombuffer(raw, dtype=np.uint8)
    return dictionary.nwords + int(table.fnv_hash(buf, 0, len(buf)) % dictionary.bucket)


def char_ngrams(raw, minn, maxn):
    """The character n-grams of ``<raw>`` in fastText's order (bytes)."""
    word = b"<" + raw + b">"
    out = []
    for i in range(len(word)):
        if (word[i] & 0xC0) == 0x80:  # inside a UTF-8 character
            continue
        j, n = i, 1
        while j < len(word) and n <= maxn:
            j += 1
            while j < len(word) and (word[j] & 0xC0) == 0x80:
                j += 1
            if n >= minn and not (n == 1 and (i == 0 or j == len(word))):
                out.append(word[i:j])
            n += 1
    return out


def subwords(dictionary, raw):
    """``(substrings, ids)``: the word's own entry (if any) and its
    character n-grams, as ``Dictionary::getSubwords(word, ngrams,
    substrings)``."""
    d = dictionary
    strings, ids = [], []
    e = entry_id(d, raw)
    if e >= 0:
        strings.append(d.entry_bytes(e))
        ids.append(e)
    if raw != EOS and d.maxn > 0:
        for gram in char_ngrams(raw, d.minn, d.maxn):
            strings.append(gram)
            ids.append(subword_id(d, gram))
    return strings, ids


def split_line(dictionary, raw):
    """``(words, labels)`` (bytes) of the first line of ``raw``, as the
    Python binding's ``getLine``: ``</s>`` ends the words when a newline
    ends the line."""
    d = dictionary
    prefix = d.label_prefix.encode("utf-8", "surrogateescape")
    words, labels = [], []
    token = bytearray()
    for pos in range(len(raw) + 1):
        c = raw[pos:pos + 1]
        if c and c not in SEPARATORS:
            token += c
            continue
        if token:
            _classify(d, bytes(token), prefix, words, labels)
            token.clear()
        if c == b"\n":
            _classify(d, EOS, prefix, words, labels)
            break
    return words, labels


def _classify(d, token, prefix, words, labels):
    e = entry_id(d, token)
    is_label = e >= d.nwords if e >= 0 else token.startswith(prefix)
    if not is_label:
        words.append(token)
    elif e >= 0:
        labels.append(token)
